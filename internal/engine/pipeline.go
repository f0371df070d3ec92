package engine

import (
	"sort"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// RenderOptions are the settings of one render that are not edits.
type RenderOptions struct {
	// Seed drives every random operation (grain, noise, cutout, random_crop). The same
	// seed gives the same bytes; it is combined with each operation's name and its
	// occurrence in render order, never with global state.
	Seed uint64

	// Interpolation is how warps (rotate, affine, perspective and the other
	// resampling geometry) read between pixels: "cubic" (Catmull-Rom, the default
	// when empty: the sharpest, for editing and export) or "linear" (bilinear, what
	// augmentation libraries use by default: about a quarter of the cost). Crops,
	// flips and quarter turns move whole pixels either way.
	Interpolation string

	// pre holds, by edit index, what a first pass over the whole image computed for
	// an edit that a streamed render then applies band by band (see bandPlan).
	pre map[int]any
}

// Interpolations are the values RenderOptions.Interpolation takes ("" is cubic).
var Interpolations = []string{"cubic", "linear"}

// Check refuses options Render would refuse (an unknown interpolation), with
// invalid_input.
func (opt RenderOptions) Check() error {
	switch opt.Interpolation {
	case "", "cubic", "linear":
		return nil
	}
	return darkroom.Errorf(darkroom.InvalidInput, "interpolation %q is not one of %v", opt.Interpolation, Interpolations)
}

// Render applies edits to src and returns the result as a new image; src is never
// modified. Edits run in the catalog's stage order (geometry, light, tone, color,
// detail, effects), stably, so two edits of one stage keep their order in the list;
// the order edits were applied in does not matter. Geometry may change the dimensions.
//
// Each edit's effect is blended as out = in + (op(in) - in) * mask * strength, where
// the mask is rasterized on the image entering that edit. Strength 0 and a mask that is
// zero everywhere leave the image exactly as it was; an edit whose arguments are
// neutral does too. Geometry cannot be masked and is all or nothing: strength 0 skips
// it, any other strength applies it fully.
//
// Errors: invalid_input for an unknown operation, a missing or malformed argument, or a
// strength outside [0, 1]; masking_error for a mask on a geometry operation or a mask
// that cannot be rasterized; render_error for a malformed source image.
func Render(src *Image, edits []Edit, opt RenderOptions) (*Image, error) {
	order, err := checkRender(src, edits, opt)
	if err != nil {
		return nil, err
	}
	pool := &bufPool{}
	defer pool.recycle()
	out, err := renderFrame(src, edits, order, opt, frame{}, pool)
	if err != nil {
		return nil, err
	}
	if out == src {
		return src.Clone(), nil
	}
	return out, nil
}

// RenderOwned is Render for a caller that gives src up. When it succeeds src must
// not be used again: its pixels may be the result's, or recycled. When it fails, src
// is unchanged and still the caller's. Edits that are all unmasked per-pixel tone
// operations (exposure, tone, contrast, curve, gamma, random_tone_curve, which
// cannot fail once their arguments are read) change src in place, in one pass,
// instead of writing a new image; an edit list that changes nothing returns src
// itself.
func RenderOwned(src *Image, edits []Edit, opt RenderOptions) (*Image, error) {
	order, err := checkRender(src, edits, opt)
	if err != nil {
		return nil, err
	}
	inPlace := true
	for _, e := range edits {
		inPlace = inPlace && (e.Strength == 0 || rowOps[e.Op] && e.Mask == nil && e.Strength == 1)
	}
	pool := &bufPool{}
	defer pool.recycle()
	// In place, every edit joins the row chain, which runs last: an argument an
	// edit refuses fails the render before any pixel is written.
	out, err := renderFrameOwn(src, edits, order, opt, frame{}, pool, inPlace)
	if err != nil {
		return nil, err
	}
	if out != src && !inPlace {
		Recycle(src)
	}
	return out, nil
}

// checkRender checks the source, the options and the edits as Render does before
// any pixel is touched, and returns the order the edits run in.
func checkRender(src *Image, edits []Edit, opt RenderOptions) ([]int, error) {
	if err := checkImage(src); err != nil {
		return nil, err
	}
	if err := opt.Check(); err != nil {
		return nil, err
	}
	return renderOrder(edits)
}

// renderOrder checks what Render checks before any pixel is touched and returns the
// order the edits run in.
func renderOrder(edits []Edit) ([]int, error) {
	order := make([]int, len(edits))
	for i, e := range edits {
		order[i] = i
		entry, ok := catalog[e.Op]
		if !ok {
			return nil, darkroom.Errorf(darkroom.InvalidInput, "edit %d: unknown operation %q", i, e.Op)
		}
		if !(e.Strength >= 0 && e.Strength <= 1) {
			return nil, darkroom.Errorf(darkroom.InvalidInput, "edit %d (%s): strength %v is outside [0, 1]", i, e.Op, e.Strength)
		}
		if entry.stage == "geometry" && e.Mask != nil {
			return nil, darkroom.Errorf(darkroom.MaskingError, "edit %d (%s): a geometry operation cannot be masked", i, e.Op)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		return stageIndex(catalog[edits[order[a]].Op].stage) < stageIndex(catalog[edits[order[b]].Op].stage)
	})
	return order, nil
}

// renderFrame runs checked edits, in order, on src, which is the band of rows of fr
// from row fr.y0; the zero frame means each edit's image is the whole picture (geometry
// may change its size). It returns src itself when no edit changed it. Images it makes
// and drops go back to pool; src is never modified.
func renderFrame(src *Image, edits []Edit, order []int, opt RenderOptions, fr frame, pool *bufPool) (*Image, error) {
	return renderFrameOwn(src, edits, order, opt, fr, pool, false)
}

// renderFrameOwn is renderFrame; when own is set, the caller gives src up, and its
// pixels go back to pool as soon as an edit has replaced them.
func renderFrameOwn(src *Image, edits []Edit, order []int, opt RenderOptions, fr frame, pool *bufPool, own bool) (*Image, error) {
	occ := occurrences(edits)
	cur := src
	var chain rowChain
	var held *heldFlip
	skip := 0 // edits a warp has run already (rc.post)
	for k, i := range order {
		if skip > 0 {
			skip--
			continue
		}
		e := edits[i]
		entry := catalog[e.Op]
		rc := &runCtx{key: editKey(opt.Seed, e.Op, occ[i]), pool: pool, frame: fr, pre: opt.pre[i], bilinear: opt.Interpolation == "linear"}
		if e.Strength == 0 {
			continue
		}
		if chainable(e, rc.pre) {
			if err := chainRowOp(rc, &chain, e, i, cur); err != nil {
				return nil, err
			}
			continue
		}
		cur = chain.run(cur, src, own, pool)
		if h := holdFlip(e, edits, order[k+1:], rc, cur); h != nil {
			held = h
			continue
		}
		var weight []float32
		ya, yb := 0, cur.H // the rows the edit changes
		if entry.stage != "geometry" && (e.Mask != nil || e.Strength < 1) {
			weight = pool.get(cur.W * cur.H)
			if err := maskWeights(weight, cur, e.Mask, float32(e.Strength), fr); err != nil {
				return nil, darkroom.Wrap(darkroom.Code(err), err, "edit %d (%s)", i, e.Op)
			}
			if ya, yb = weightRows(weight, cur.W, cur.H); ya == yb {
				pool.put(weight)
				continue
			}
		}
		in := cur
		if entry.band && (ya > 0 || yb < cur.H) {
			// A band operation renders rows as the whole image would: render only
			// those the mask reaches, placed on the frame.
			in = &Image{W: cur.W, H: yb - ya, Pix: cur.Pix[3*ya*cur.W : 3*yb*cur.W]}
			f := fr
			if f.w == 0 {
				f = wholeFrame(cur)
			}
			rc.frame = frame{f.y0 + ya, f.w, f.h}
		}
		if weight != nil && localOps[e.Op] {
			xa, xb := weightCols(weight, cur.W, ya, yb)
			rc.region = &[4]int{xa, ya, xb, yb}
		}
		rc.flip = held
		var postN int
		if entry.stage == "geometry" && weight == nil {
			var err error
			if rc.post, postN, err = postRows(edits, order[k+1:], occ, opt, fr, pool, cur); err != nil {
				return nil, err
			}
		}
		out, err := entry.run(rc, in, e.Args)
		if rc.postTaken {
			skip = postN
		}
		if err == nil && held != nil && !held.taken {
			// The edit did not warp the image (a quarter turn, no rotation): flip
			// it now and render the edit again, on the flipped image.
			if out != in {
				pool.put(out.Pix)
			}
			flipped := flipSpec(cur.W, cur.H, held.hor, held.ver).whole(rc, cur)
			if cur != src || own {
				pool.put(cur.Pix)
			}
			cur, in, rc.flip = flipped, flipped, nil
			out, err = entry.run(rc, in, e.Args)
		}
		held = nil
		if err != nil {
			return nil, darkroom.Wrap(darkroom.Code(err), err, "edit %d (%s)", i, e.Op)
		}
		if out == in {
			pool.put(weight)
			continue
		}
		if r := rc.region; r != nil {
			// The rectangle the mask reaches, blended into the image in place when
			// it is the render's own, or else into a copy.
			full := cur
			if cur == src && !own {
				full = rc.image(cur.W, cur.H)
				copy(full.Pix, cur.Pix)
			}
			blendRect(full, out, cur, weight, r)
			pool.put(out.Pix)
			pool.put(weight)
			cur = full
			continue
		}
		if in == cur {
			ya, yb = 0, cur.H // rows without weight must be blended back too
		} else {
			// Whole rows around the ones rendered are the input's.
			full := rc.image(cur.W, cur.H)
			copy(full.Pix, cur.Pix[:3*ya*cur.W])
			copy(full.Pix[3*ya*cur.W:], out.Pix)
			copy(full.Pix[3*yb*cur.W:], cur.Pix[3*yb*cur.W:])
			pool.put(out.Pix)
			out = full
		}
		if weight != nil {
			blend(out, cur, weight, ya, yb)
			pool.put(weight)
		}
		if cur != src || own {
			pool.put(cur.Pix)
		}
		cur = out
	}
	return chain.run(cur, src, own, pool), nil
}

// occurrences numbers each edit among the edits of the same operation, in render
// order (the stable stage sort keeps the list's order within a stage, and edits of
// one operation share its stage, so list order is render order): the second noise
// edit draws from a different stream than the first, however the render is split.
func occurrences(edits []Edit) []int {
	occ := make([]int, len(edits))
	seen := map[string]int{}
	for i, e := range edits {
		occ[i] = seen[e.Op]
		seen[e.Op]++
	}
	return occ
}

// bandEdit reports whether an edit can be rendered band by band: it does nothing, or
// it is a band operation whose mask does not reach across rows (a feathered polygon
// is blurred).
func bandEdit(e Edit) bool {
	if e.Strength == 0 {
		return true
	}
	if entry, ok := catalog[e.Op]; !ok || !entry.band {
		return false
	}
	return e.Mask == nil || e.Mask.Shape == nil || e.Mask.Shape.Kind != "polygon" || !(e.Mask.Shape.Feather > 0)
}

func checkImage(m *Image) error {
	if m == nil {
		return darkroom.Errorf(darkroom.RenderError, "render: no source image")
	}
	if m.W <= 0 || m.H <= 0 || len(m.Pix) != 3*m.W*m.H {
		return darkroom.Errorf(darkroom.RenderError, "render: malformed image %dx%d with %d values", m.W, m.H, len(m.Pix))
	}
	return nil
}

// blend replaces rows [y0, y1) of out with in + (out - in) * weight, pixel by pixel.
// A weight of exactly 0 or 1 copies the corresponding pixel unrounded.
func blend(out, in *Image, weight []float32, y0, y1 int) {
	parallelRows(y1-y0, func(lo, hi int) {
		for p := (y0 + lo) * out.W; p < (y0+hi)*out.W; p++ {
			w := weight[p]
			i := 3 * p
			switch {
			case w <= 0:
				out.Pix[i], out.Pix[i+1], out.Pix[i+2] = in.Pix[i], in.Pix[i+1], in.Pix[i+2]
			case w < 1:
				out.Pix[i] = in.Pix[i] + (out.Pix[i]-in.Pix[i])*w
				out.Pix[i+1] = in.Pix[i+1] + (out.Pix[i+1]-in.Pix[i+1])*w
				out.Pix[i+2] = in.Pix[i+2] + (out.Pix[i+2]-in.Pix[i+2])*w
			}
		}
	})
}

// blendRect blends part, the operation's result over the rectangle r of in, into
// out (a copy of in, or in itself) as blend does: in + (part - in) * weight, pixel
// by pixel.
func blendRect(out, part, in *Image, weight []float32, r *[4]int) {
	x0, y0, x1, y1 := r[0], r[1], r[2], r[3]
	rw := x1 - x0
	parallelRows(y1-y0, func(lo, hi int) {
		for y := y0 + lo; y < y0+hi; y++ {
			for x := x0; x < x1; x++ {
				p := y*out.W + x
				w := weight[p]
				i, j := 3*p, 3*((y-y0)*rw+x-x0)
				switch {
				case w <= 0:
				case w < 1:
					out.Pix[i] = in.Pix[i] + (part.Pix[j]-in.Pix[i])*w
					out.Pix[i+1] = in.Pix[i+1] + (part.Pix[j+1]-in.Pix[i+1])*w
					out.Pix[i+2] = in.Pix[i+2] + (part.Pix[j+2]-in.Pix[i+2])*w
				default:
					out.Pix[i], out.Pix[i+1], out.Pix[i+2] = part.Pix[j], part.Pix[j+1], part.Pix[j+2]
				}
			}
		}
	})
}

// weightCols returns the columns [x0, x1) outside which every weight of rows
// [y0, y1) is 0 (x0 == x1 when all are).
func weightCols(weight []float32, w, y0, y1 int) (x0, x1 int) {
	x0, x1 = w, 0
	for y := y0; y < y1; y++ {
		row := weight[y*w : (y+1)*w]
		for x := 0; x < x0; x++ {
			if row[x] > 0 {
				x0 = x
				break
			}
		}
		for x := w - 1; x >= x1; x-- {
			if row[x] > 0 {
				x1 = x + 1
				break
			}
		}
	}
	return x0, max(x0, x1)
}

// weightRows returns the rows [y0, y1) outside which every weight is 0 (y0 == y1
// when all are).
func weightRows(weight []float32, w, h int) (y0, y1 int) {
	used := func(y int) bool {
		for _, v := range weight[y*w : (y+1)*w] {
			if v > 0 {
				return true
			}
		}
		return false
	}
	for y0 < h && !used(y0) {
		y0++
	}
	y1 = h
	for y1 > y0 && !used(y1-1) {
		y1--
	}
	return y0, y1
}
