package engine

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

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

// stages is the catalog's fixed render order (contracts/operations.cue, stages).
var stages = []string{"geometry", "light", "tone", "color", "detail", "effects"}

// opFunc applies one operation to src with validated, complete arguments. It returns
// src itself when the arguments are neutral (so nothing is copied or rounded), and
// otherwise a new image, which for every stage but geometry has src's dimensions.
// It never modifies src.
type opFunc func(rc *runCtx, src *Image, a Args) (*Image, error)

type opEntry struct {
	stage string
	run   opFunc
	// band says the operation renders any band of whole rows exactly as it renders
	// those rows of the whole image: it works pixel by pixel, and whatever it takes
	// from the pixel's position or the image's size it takes from runCtx.frame. An
	// export whose edits are all band operations streams: it never holds the
	// full-size float image (see Export).
	band bool
}

// catalog maps every operation of contracts/operations.cue to its stage and its
// implementation. Argument names, ranges and defaults live only in the CUE catalog; a
// test in another package checks that these names and stages match it. Geometry
// operations are the ones the catalog marks maskable: false.
var catalog = map[string]opEntry{
	"crop":        {"geometry", opCrop, false},
	"random_crop": {"geometry", opRandomCrop, false},
	"rotate":      {"geometry", opRotate, false},
	"flip":        {"geometry", opFlip, false},

	"rotate90":        {"geometry", opRotate90, false},
	"transpose":       {"geometry", opTranspose, false},
	"center_crop":     {"geometry", opCenterCrop, false},
	"pad":             {"geometry", opPad, false},
	"affine":          {"geometry", opAffine, false},
	"perspective":     {"geometry", opPerspective, false},
	"elastic":         {"geometry", opElastic, false},
	"grid_distortion": {"geometry", opGridDistortion, false},
	"lens_distortion": {"geometry", opLensDistortion, false},
	"grid_shuffle":    {"geometry", opGridShuffle, false},
	"scale":           {"geometry", opScale, false},
	"border_crop":     {"geometry", opBorderCrop, false},
	"crop_and_pad":    {"geometry", opCropAndPad, false},

	"exposure":      {"light", opExposure, true},
	"white_balance": {"light", opWhiteBalance, true},

	"tone":              {"tone", opTone, true},
	"contrast":          {"tone", opContrast, true},
	"curve":             {"tone", opCurve, true},
	"clahe":             {"tone", opCLAHE, false},
	"dehaze":            {"tone", opDehaze, false},
	"gamma":             {"tone", opGamma, true},
	"posterize":         {"tone", opPosterize, true},
	"equalize":          {"tone", opEqualize, false},
	"auto_contrast":     {"tone", opAutoContrast, false},
	"random_tone_curve": {"tone", opRandomToneCurve, true},

	"saturation":      {"color", opSaturation, true},
	"vibrance":        {"color", opVibrance, true},
	"hue_shift":       {"color", opHueShift, true},
	"hsl":             {"color", opHSL, true},
	"color_balance":   {"color", opColorBalance, true},
	"black_and_white": {"color", opBlackAndWhite, true},
	"split_tone":      {"color", opSplitTone, true},
	"rgb_shift":       {"color", opRGBShift, true},
	"channel_shuffle": {"color", opChannelShuffle, true},
	"sepia":           {"color", opSepia, true},
	"channel_dropout": {"color", opChannelDropout, true},
	"fancy_pca":       {"color", opFancyPCA, false},

	"clarity":              {"detail", opClarity, false},
	"sharpen":              {"detail", opSharpen, false},
	"denoise":              {"detail", opDenoise, false},
	"blur":                 {"detail", opBlur, false},
	"spot":                 {"detail", opSpot, false},
	"emboss":               {"detail", opEmboss, false},
	"downscale":            {"detail", opDownscale, false},
	"morphology":           {"detail", opMorphology, false},
	"chromatic_aberration": {"detail", opChromaticAberration, false},
	"zoom_blur":            {"detail", opZoomBlur, false},
	"glass_blur":           {"detail", opGlassBlur, false},

	"vignette": {"effects", opVignette, true},
	"grain":    {"effects", opGrain, false},
	"noise":    {"effects", opNoise, true},
	"cutout":   {"effects", opCutout, false},

	"multiplicative_noise": {"effects", opMultiplicativeNoise, true},
	"iso_noise":            {"effects", opISONoise, false},
	"fog":                  {"effects", opFog, true},
	"shadow":               {"effects", opShadow, true},
	"rain":                 {"effects", opRain, false},
	"snow":                 {"effects", opSnow, true},
	"shot_noise":           {"effects", opShotNoise, true},
	"salt_and_pepper":      {"effects", opSaltAndPepper, true},
	"pixel_dropout":        {"effects", opPixelDropout, true},
	"grid_dropout":         {"effects", opGridDropout, true},
	"plasma":               {"effects", opPlasma, true},
	"xy_masking":           {"effects", opXYMasking, true},
	"jpeg_compression":     {"effects", opJPEGCompression, false},
}

// rowOps are the operations whose run returns src, or mapRows' result with a
// function that computes each pixel from the same pixel alone, reading it before
// writing it, and that take nothing from its position. An unmasked run of them
// renders as one pass (see rowChain). TestRowChain holds each to that.
var rowOps = map[string]bool{
	"exposure": true, "tone": true, "contrast": true, "curve": true, "gamma": true, "random_tone_curve": true,
}

// rowChain holds the row functions of consecutive unmasked row operations, to run
// in one pass: each block of rows goes through all of them while it is in cache,
// where one pass per operation would stream the whole image through memory each
// time and allocate an image for each. Every value goes through the same
// arithmetic in the same order, so the pixels are the same.
type rowChain struct{ fns []func(d, s []float32) }

// chainBlock is about how many bytes of rows a block holds: within a core's L2.
const chainBlock = 192 << 10

// run applies the pending functions to cur and returns the result: cur itself,
// changed in place, when the render owns it (it is not src, or own), else a new
// image from pool.
func (c *rowChain) run(cur, src *Image, own bool, pool *bufPool) *Image {
	if len(c.fns) == 0 {
		return cur
	}
	fns := c.fns
	c.fns = nil
	out := cur
	if cur == src && !own {
		out = &Image{W: cur.W, H: cur.H, Pix: pool.get(len(cur.Pix))}
	}
	row := 3 * cur.W
	step := max(1, chainBlock/(4*row))
	parallelRows(cur.H, func(lo, hi int) {
		for y := lo; y < hi; y += step {
			e := min(y+step, hi)
			d := out.Pix[y*row : e*row]
			fns[0](d, cur.Pix[y*row:e*row])
			for _, f := range fns[1:] {
				f(d, d)
			}
		}
	})
	return out
}

// postRows returns the row functions of the unmasked row operations at the start
// of rest (render order) and how many edits they span, for the geometry operation
// before them to run on its rows (runCtx.post); none when rest does not start with
// one. A row operation hands its function over without reading its image (the
// rowOps protocol), so cur, the image before the geometry, serves.
func postRows(edits []Edit, rest []int, occ []int, opt RenderOptions, fr frame, pool *bufPool, cur *Image) ([]func(d, s []float32), int, error) {
	var c rowChain
	n := 0
	for _, j := range rest {
		e := edits[j]
		if e.Strength != 0 && !chainable(e, opt.pre[j]) {
			break
		}
		n++
		if e.Strength == 0 {
			continue
		}
		rc := &runCtx{key: editKey(opt.Seed, e.Op, occ[j]), pool: pool, frame: fr, bilinear: opt.Interpolation == "linear"}
		if err := chainRowOp(rc, &c, e, j, cur); err != nil {
			return nil, 0, err
		}
	}
	if len(c.fns) == 0 {
		return nil, 0, nil
	}
	return c.fns, n, nil
}

// chainable reports whether edit e (pre, its precomputed pass) runs as part of a
// rowChain: an unmasked row operation at full strength.
func chainable(e Edit, pre any) bool {
	return rowOps[e.Op] && e.Mask == nil && e.Strength == 1 && pre == nil
}

// chainRowOp has the row operation e (edit i) hand its function to c instead of
// rendering; cur is the image it would render.
func chainRowOp(rc *runCtx, c *rowChain, e Edit, i int, cur *Image) error {
	rc.chain = c
	out, err := catalog[e.Op].run(rc, cur, e.Args)
	if err != nil {
		return darkroom.Wrap(darkroom.Code(err), err, "edit %d (%s)", i, e.Op)
	}
	if out != cur {
		return darkroom.Errorf(darkroom.InternalError, "edit %d (%s): a row operation rendered an image of its own", i, e.Op)
	}
	return nil
}

// localOps are the operations that, given runCtx.region, render only that rectangle
// of the image: a masked edit of one of them costs in proportion to what its mask
// reaches, not to the frame.
var localOps = map[string]bool{"spot": true}

// OpStage reports the stage of the named operation, and false for an unknown name.
func OpStage(op string) (stage string, ok bool) {
	e, ok := catalog[op]
	return e.stage, ok
}

// Operations returns the names of every operation the engine implements, sorted.
func Operations() []string {
	names := make([]string, 0, len(catalog))
	for n := range catalog {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func stageIndex(stage string) int { return slices.Index(stages, stage) }

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

// runCtx is what an operation gets besides its arguments: its random stream, the
// render's buffer pool and the frame its image is part of.
type runCtx struct {
	key   uint64
	pool  *bufPool
	frame frame
	// pre, when set, is what the first pass of a streamed render computed for this
	// edit over the whole image (a blurred block grid, filter coefficients); the
	// operation then renders its band from it instead of from its own rows.
	pre any
	// opName and plan serve the planning of a streamed render's geometry (see
	// streamGeometry).
	opName string
	plan   *geomPlan
	// region, for an operation of localOps, is the rectangle [x0, y0, x1, y1) of
	// the image its mask reaches: it returns an image of that rectangle only.
	region *[4]int
	// bilinear makes warps sample bilinearly (RenderOptions.Interpolation).
	bilinear bool
	// chain, when set, takes a row operation's function (mapRows) to run later
	// with the others of its run, instead of rendering it now.
	chain *rowChain
	// flip, when set, is a flip of the whole image not yet rendered: a bilinear
	// affine warp of that image takes it (see warpOf) and samples it mirrored.
	flip *heldFlip
	// post, when set, are the row functions of the row operations right after a
	// geometry operation; a warp takes them (postTaken) and runs them on its rows
	// as it samples them, so they need no pass of their own.
	post      []func(d, s []float32)
	postTaken bool
}

// heldFlip is a flip renderFrameOwn holds back for the warp after it: flipping
// reads and writes every pixel, and the warp can read them mirrored instead.
type heldFlip struct {
	img      *Image // the image the flip applies to
	hor, ver bool
	taken    bool // a warp sampled img mirrored
}

// flipConsumers are the operations that render through warpOf with an affine map,
// each with what says whether its arguments warp (a rotation by a multiple of 90
// degrees turns the image instead); a flip just before one that will waits for it
// (see holdFlip).
var flipConsumers = map[string]func(Args) bool{
	"rotate": func(a Args) bool {
		r := args{a: a}
		angle := r.num("angle")
		return r.err == nil && !quarterTurn(angle)
	},
	"affine": func(Args) bool { return true },
}

// holdFlip returns the flip edit e as a held flip of cur when the next edit to
// run (rest, in render order) can take it: a whole-image render, an unmasked flip,
// a bilinear render on a CPU whose AVX2 warp loop reads mirrored, and an affine
// warp next. Otherwise nil, and the flip renders as usual.
func holdFlip(e Edit, edits []Edit, rest []int, rc *runCtx, cur *Image) *heldFlip {
	if !holdableFlip(e) || rc.frame != (frame{}) || rc.pre != nil || !rc.bilinear || !useAVX2 {
		return nil
	}
	r := args{a: e.Args}
	hor, ver := r.flag("horizontal"), r.flag("vertical")
	if r.err != nil || !hor && !ver {
		return nil
	}
	for _, j := range rest {
		if n := edits[j]; n.Strength != 0 {
			if !takesFlip(n) {
				return nil
			}
			return &heldFlip{img: cur, hor: hor, ver: ver}
		}
	}
	return nil
}

// takesFlip reports whether e's warp reads a held flip of its input, given a
// bilinear render on a CPU with the AVX2 warp loop.
func takesFlip(e Edit) bool {
	warps := flipConsumers[e.Op]
	return warps != nil && warps(e.Args)
}

// holdableFlip reports whether e is a flip a warp after it may take (flipTaken):
// unmasked, at full strength.
func holdableFlip(e Edit) bool { return e.Op == "flip" && e.Mask == nil && e.Strength == 1 }

// flipTaken reports whether an unmasked flip rendered with opt in one Render just
// before e costs nothing: e's warp then reads its input mirrored instead of a
// flipped copy (the pixels are the same either way). RenderSteps renders a step of
// such flips together with the step whose first edit is e.
func flipTaken(e Edit, opt RenderOptions) bool {
	return useAVX2 && opt.Interpolation == "linear" && e.Strength != 0 && takesFlip(e)
}

// frame places the image an operation sees in the whole picture: a band of rows of an
// export rendered strip by strip is rows y0 to y0+H of a w x h frame. The zero frame
// means the image is the whole picture. Band operations
// measure positions (vignette, masks, seeded noise) and sizes on the frame, so a band
// renders exactly the rows the whole image would.
type frame struct{ y0, w, h int }

func wholeFrame(m *Image) frame { return frame{0, m.W, m.H} }

// frameOf returns the frame src is part of.
func (rc *runCtx) frameOf(src *Image) frame {
	if rc == nil || rc.frame.w == 0 {
		return wholeFrame(src)
	}
	return rc.frame
}

// long returns the long edge of the frame src is part of: radii given as fractions
// of the long edge measure the same pixels on a band as on the whole image.
func (rc *runCtx) long(src *Image) float64 {
	f := rc.frameOf(src)
	return float64(max(f.w, f.h))
}

// image returns a w x h image whose pixels the caller must overwrite entirely.
func (rc *runCtx) image(w, h int) *Image {
	return &Image{W: w, H: h, Pix: rc.floats(3 * w * h)}
}

// floats returns scratch of n values with arbitrary contents.
func (rc *runCtx) floats(n int) []float32 {
	if rc == nil || rc.pool == nil {
		return make([]float32, n)
	}
	return rc.pool.get(n)
}

// release hands scratch back for reuse by later operations of the same render.
func (rc *runCtx) release(bufs ...[]float32) {
	if rc == nil || rc.pool == nil {
		return
	}
	for _, b := range bufs {
		rc.pool.put(b)
	}
}

// bufPool recycles the float buffers of one render: a preview of five operations would
// otherwise allocate (and zero) several image-sized buffers per operation.
type bufPool struct{ free [][]float32 }

func (p *bufPool) get(n int) []float32 {
	if i := smallestFit(p.free, n); i >= 0 {
		b := p.free[i]
		p.free = slices.Delete(p.free, i, i+1)
		return b[:n]
	}
	return spare.get(n)
}

func smallestFit(bufs [][]float32, n int) int {
	best := -1
	for i, b := range bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(bufs[best])) {
			best = i
		}
	}
	return best
}

// recycle hands the pool's free buffers to the next render (see spare).
func (p *bufPool) recycle() {
	for _, b := range p.free {
		spare.put(b)
	}
	p.free = nil
}

// spare keeps buffers that renders and callers (Recycle) dropped, for the next
// render or decode to take instead of allocating and zeroing its own: an agent's
// previews, or the workers of a dataset run (each holds a source, a step's input and
// output and a blur's scratch), then allocate almost nothing, and the collector
// seldom has to mark the contract's large heap. It holds at most spareBytesPerCore
// per core, in buffers of at most spareMax values, and empties itself after
// spareIdle without use, so an idle server does not keep images alive for nothing.
var spare = &sparePool{}

const (
	spareBytesPerCore = 64 << 20
	spareMax          = 4 << 20 // values: a 1024 px image's 3.1M, an export band's 1M
)

// spareIdle is how long the spare buffers outlive their last use.
var spareIdle = 2 * time.Second

type sparePool struct {
	mu    sync.Mutex
	bufs  [][]float32
	bytes int
	used  time.Time   // the last get or put
	timer *time.Timer // pending drain, nil when none
}

func (s *sparePool) get(n int) []float32 {
	if n <= spareMax {
		s.mu.Lock()
		s.used = time.Now()
		if i := smallestFit(s.bufs, n); i >= 0 {
			b := s.bufs[i]
			s.bufs = slices.Delete(s.bufs, i, i+1)
			s.bytes -= 4 * cap(b)
			s.mu.Unlock()
			return b[:n]
		}
		s.mu.Unlock()
	}
	return newPix(n)
}

func (s *sparePool) put(b []float32) {
	if cap(b) == 0 || cap(b) > spareMax {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used = time.Now()
	if s.bytes+4*cap(b) <= spareBytesPerCore*runtime.GOMAXPROCS(0) {
		s.bufs = append(s.bufs, b)
		s.bytes += 4 * cap(b)
		if s.timer == nil {
			s.timer = time.AfterFunc(spareIdle, s.drainIdle)
		}
	}
}

// drainIdle empties the pool if nothing took or gave a buffer for spareIdle, and
// looks again later otherwise.
func (s *sparePool) drainIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idle := time.Since(s.used); idle < spareIdle {
		s.timer = time.AfterFunc(spareIdle-idle, s.drainIdle)
		return
	}
	clear(s.bufs)
	s.bufs, s.bytes, s.timer = s.bufs[:0], 0, nil
}

func (p *bufPool) put(b []float32) {
	if cap(b) > 0 {
		p.free = append(p.free, b)
	}
}

// args reads an operation's arguments, keeping the first error so an operation can read
// them all and check once. Numbers must be finite: the contract layer admits no NaN,
// and the engine does not trust that blindly.
type args struct {
	a   Args
	err error
}

func (r *args) num(name string) float64 {
	v, err := r.a.Float(name)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not a finite number", name, v)
	}
	r.keep(err)
	return v
}

func (r *args) integer(name string) int {
	v, err := r.a.Int(name)
	r.keep(err)
	return v
}

func (r *args) flag(name string) bool {
	v, err := r.a.Bool(name)
	r.keep(err)
	return v
}

func (r *args) enum(name string, values ...string) string {
	v, err := r.a.String(name)
	if err == nil && !slices.Contains(values, v) {
		err = darkroom.Errorf(darkroom.InvalidInput, "argument %s: %q is not one of %v", name, v, values)
	}
	r.keep(err)
	return v
}

func (r *args) points(name string) [][2]float64 {
	v, err := r.a.Points(name)
	if err == nil {
		for i, p := range v {
			if math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[0], 0) || math.IsInf(p[1], 0) {
				err = darkroom.Errorf(darkroom.InvalidInput, "argument %s[%d]: not a finite point", name, i)
				break
			}
		}
	}
	r.keep(err)
	return v
}

func (r *args) keep(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

// longEdge is the length in pixels that fractions of the long edge refer to.
func longEdge(m *Image) float64 { return float64(max(m.W, m.H)) }

// mapRows returns a new image made by fn, which gets ranges of whole rows of src and
// writes the same ranges of the result (linear RGB, three values per pixel), the rows
// split across cores. Operations loop over pixels inside fn, so per-pixel helpers are
// inlined instead of being called through a function value.
func mapRows(rc *runCtx, src *Image, fn func(dst, src []float32)) *Image {
	if rc.chain != nil {
		rc.chain.fns = append(rc.chain.fns, fn)
		return src
	}
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		fn(dst.Pix[3*lo*src.W:3*hi*src.W], src.Pix[3*lo*src.W:3*hi*src.W])
	})
	return dst
}

// copyRows returns a copy of src that fn changes in place: fn gets the result's pixels
// (the whole image, three values per pixel) and a range of whole rows [lo, hi) that are
// already copied from src, the rows split across cores. For operations that change only
// some pixels and leave the others bit for bit.
func copyRows(rc *runCtx, src *Image, fn func(pix []float32, lo, hi int)) *Image {
	w := src.W
	dst := rc.image(w, src.H)
	parallelRows(src.H, func(lo, hi int) {
		copy(dst.Pix[3*lo*w:3*hi*w], src.Pix[3*lo*w:3*hi*w])
		fn(dst.Pix, lo, hi)
	})
	return dst
}

// mapChannels returns a new image with lut applied to the channels selected by mask
// (bit 0 red, 1 green, 2 blue); the others are copied.
func mapChannels(rc *runCtx, src *Image, lut *fnLUT, mask int) *Image {
	on := [3]bool{mask&1 != 0, mask&2 != 0, mask&4 != 0}
	return mapRows(rc, src, func(d, s []float32) {
		if on == [3]bool{true, true, true} {
			lut.apply(d, s)
			return
		}
		copy(d, s)
		for c, ok := range on {
			if !ok {
				continue
			}
			for i := c; i < len(s); i += 3 {
				d[i] = lut.at(s[i])
			}
		}
	})
}
