package engine

import "math"

// Retouching: healing and cloning from an offset source. The edit's mask (an ellipse
// around the blemish, for apply_spot) limits it to the spot, and the mask's feather
// blends the repair into its surroundings; the render computes only the rectangle
// the mask reaches (see localOps).

// opSpot repairs a spot from a source at an offset.
//
// Arguments: kind, heal or clone; dx and dy in [-1, 1], the offset from the spot to
// its source as fractions of the long edge (positive right and down), so a spot at
// (x, y) is filled from (x + dx, y + dy) at any resolution. clone copies the source as
// it is: each pixel takes the value at its offset position, bilinearly interpolated,
// the border repeated past the edges. heal takes only the source's texture and keeps
// the spot's own brightness and colour: out = S(p+d) - B(p+d) + B(p), where B is the
// image blurred by a gaussian whose sigma is half the offset's length, so detail finer
// than that comes from the source and everything coarser from around the spot (with
// the source 2.5 radii away, as apply_spot picks it, sigma is 1.25 radii: a blemish
// inside the spot leaves about a tenth of its contrast in B). Heal never goes below
// black. dx = dy = 0 returns the input, and heal tends to it as the offset shrinks.
// Example: {kind: "heal", dx: 0.03, dy: 0}.
func opSpot(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	kind := r.enum("kind", "heal", "clone")
	dx, dy := r.num("dx"), r.num("dy")
	if r.err != nil {
		return nil, r.err
	}
	if dx == 0 && dy == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	ox, oy := dx*rc.long(src), dy*rc.long(src)
	if r := rc.region; r != nil {
		fr := rc.frameOf(src)
		return spotRect(rc, src, fr, kind, ox, oy, r[0], r[1]+fr.y0, r[2], r[3]+fr.y0), nil
	}
	dst := rc.image(w, h)
	if kind == "clone" {
		shiftAdd(dst.Pix, src.Pix, nil, w, h, ox, oy)
		return dst, nil
	}
	sigma := min(math.Hypot(ox, oy)/2, maxFilterRadius)
	base, detail := rc.floats(3*w*h), rc.floats(3*w*h)
	gaussianLarge(rc, base, src.Pix, w, h, 3, sigma)
	parallelRows(h, func(lo, hi int) {
		for i := 3 * lo * w; i < 3*hi*w; i++ {
			detail[i] = src.Pix[i] - base[i]
		}
	})
	shiftAdd(dst.Pix, detail, base, w, h, ox, oy)
	parallelRows(h, func(lo, hi int) {
		for i := 3 * lo * w; i < 3*hi*w; i++ {
			dst.Pix[i] = max(dst.Pix[i], 0)
		}
	})
	rc.release(base, detail)
	return dst, nil
}

// spotRect is opSpot over the rectangle [x0, x1) x [y0, y1) of the frame fr (what
// its mask reaches), returned as an image of that size; src holds the frame's rows
// from fr.y0. It reads the rectangle, its source at the offset and the blur's reach
// around them, so a spot costs in proportion to its area, not the frame's. The pixels
// are exactly opSpot's. On a band of a streamed render (fr.y0 > 0 or src shorter
// than the frame), rows whose source or blur lies outside src keep src's pixels:
// the band's plan gives every row it keeps what it reads (see streamSpot), and
// rc.pre, when set, is the blurred block grid of the rows the spot reaches.
func spotRect(rc *runCtx, src *Image, fr frame, kind string, ox, oy float64, x0, y0, x1, y1 int) *Image {
	w, h := fr.w, fr.h
	rw, rh := x1-x0, y1-y0
	dst := rc.image(rw, rh)
	sigma := min(math.Hypot(ox, oy)/2, maxFilterRadius)
	g, _ := rc.pre.(*spotGrid)
	reach := 0
	if kind == "heal" && g == nil {
		reach = spotReach(sigma, w, h)
	}
	// tap returns the source rows [lo, hi) that rows [a, b) read.
	tap := func(a, b int, off float64, n int) (int, int) {
		lo := min(max(int(math.Floor(float64(a)+off)), 0), n-1)
		hi := min(max(int(math.Floor(float64(b-1)+off))+1, 0), n-1)
		return lo, hi + 1
	}
	// The rows whose reads src holds (all of them on the whole image).
	have := func(y int) bool {
		lo, hi := tap(y, y+1, oy, h)
		return max(0, min(y, lo)-reach) >= fr.y0 && min(h, max(y+1, hi)+reach) <= fr.y0+src.H
	}
	ya, yb := y0, y1
	for ya < yb && !have(ya) {
		ya++
	}
	for yb > ya && !have(yb-1) {
		yb--
	}
	for y := y0; y < y1; y++ {
		if y < ya || y >= yb {
			copy(dst.Pix[3*(y-y0)*rw:3*(y-y0+1)*rw], src.Pix[3*((y-fr.y0)*w+x0):3*((y-fr.y0)*w+x1)])
		}
	}
	if ya == yb {
		return dst
	}
	part := dst.Pix[3*(ya-y0)*rw : 3*(yb-y0)*rw]
	if kind == "clone" {
		shiftAddRect(part, src.Pix, nil, w, h, ox, oy, x0, ya, x1, yb, 0, fr.y0, w)
		return dst
	}
	// U covers the rows computed and the taps of their source.
	tx0, tx1 := tap(x0, x1, ox, w)
	ty0, ty1 := tap(ya, yb, oy, h)
	ux0, uy0, ux1, uy1 := min(x0, tx0), min(ya, ty0), max(x1, tx1), max(yb, ty1)
	uw := ux1 - ux0
	var base []float32
	if g != nil {
		base = rc.floats(3 * uw * (uy1 - uy0))
		windowGrid(g.pix, ux0, uw, g.cw, g.ch, 0, g.by0, g.cw, g.ph, 3, g.sub).rows(base, uy0, uy1-uy0)
	} else {
		base = gaussianRect(rc, src.Pix, w, h, fr.y0, 3, sigma, ux0, uy0, ux1, uy1)
	}
	detail := rc.floats(len(base))
	parallelRows(uy1-uy0, func(lo, hi int) {
		for y := uy0 + lo; y < uy0+hi; y++ {
			s := src.Pix[3*((y-fr.y0)*w+ux0) : 3*((y-fr.y0)*w+ux1)]
			b := base[3*(y-uy0)*uw : 3*(y-uy0+1)*uw]
			d := detail[3*(y-uy0)*uw : 3*(y-uy0+1)*uw]
			for i := range d {
				d[i] = s[i] - b[i]
			}
		}
	})
	// base over the rows computed, the term added.
	add := rc.floats(3 * rw * (yb - ya))
	for y := ya; y < yb; y++ {
		copy(add[3*(y-ya)*rw:3*(y-ya+1)*rw], base[3*((y-uy0)*uw+x0-ux0):])
	}
	shiftAddRect(part, detail, add, w, h, ox, oy, x0, ya, x1, yb, ux0, uy0, uw)
	for i, v := range part {
		part[i] = max(v, 0)
	}
	rc.release(base, detail, add)
	return dst
}

// spotReach is the rows a heal's blur of sigma reads around what it computes on a
// w x h frame, when it blurs at full size (largeSub 0).
func spotReach(sigma float64, w, h int) int {
	if largeSub(sigma, w, h) > 0 {
		return 0
	}
	return gaussHalo(sigma)
}

// spotGrid is the first pass of a heal on a band: the blurred block averages of the
// block rows [by0, by0+ph) of a frame of cw x ch blocks of sub pixels.
type spotGrid struct {
	pix             []float32
	cw, ch, by0, ph int
	sub             int
}

// shiftAdd writes to dst the w x h RGB plane src sampled at an offset of (ox, oy)
// pixels, bilinearly, the border repeated; plus add, pixel for pixel, when it is not
// nil. A whole-pixel offset copies values exactly.
func shiftAdd(dst, src, add []float32, w, h int, ox, oy float64) {
	shiftAddRect(dst, src, add, w, h, ox, oy, 0, 0, w, h, 0, 0, w)
}

// shiftAddRect is shiftAdd over the rectangle [x0, x1) x [y0, y1) of the plane: dst
// and add hold that rectangle (rows of x1-x0 pixels), and src holds the rectangle of
// the plane from (sx0, sy0), rows of sw pixels, that the taps read.
func shiftAddRect(dst, src, add []float32, w, h int, ox, oy float64, x0, y0, x1, y1, sx0, sy0, sw int) {
	i0, i1, fx := shiftTaps(w, ox)
	rw := x1 - x0
	parallelRows(y1-y0, func(lo, hi int) {
		for y := y0 + lo; y < y0+hi; y++ {
			ys := float64(y) + oy
			yf := math.Floor(ys)
			fy := float32(ys - yf)
			ya := min(max(int(yf), 0), h-1)
			yb := min(max(int(yf)+1, 0), h-1)
			ra, rb := src[3*(ya-sy0)*sw:3*(ya-sy0+1)*sw], src[3*(yb-sy0)*sw:3*(yb-sy0+1)*sw]
			out := dst[3*(y-y0)*rw : 3*(y-y0+1)*rw]
			for x := x0; x < x1; x++ {
				a, b, f := 3*(i0[x]-sx0), 3*(i1[x]-sx0), fx[x]
				o := 3 * (x - x0)
				for c := range 3 {
					top := ra[a+c] + (ra[b+c]-ra[a+c])*f
					bot := rb[a+c] + (rb[b+c]-rb[a+c])*f
					out[o+c] = top + (bot-top)*fy
				}
			}
			if add != nil {
				row := add[3*(y-y0)*rw : 3*(y-y0+1)*rw]
				for i := range out {
					out[i] += row[i]
				}
			}
		}
	})
}

// shiftTaps returns, for each of n positions shifted by off, the two clamped source
// indices to interpolate between and the weight of the second.
func shiftTaps(n int, off float64) (i0, i1 []int, f []float32) {
	i0, i1, f = make([]int, n), make([]int, n), make([]float32, n)
	for i := range n {
		s := float64(i) + off
		fl := math.Floor(s)
		f[i] = float32(s - fl)
		i0[i] = min(max(int(fl), 0), n-1)
		i1[i] = min(max(int(fl)+1, 0), n-1)
	}
	return i0, i1, f
}
