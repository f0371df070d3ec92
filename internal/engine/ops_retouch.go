package engine

import "math"

// Retouching: healing and cloning from an offset source. The operation works on the
// whole frame; the edit's mask (an ellipse around the blemish, for apply_spot) limits
// it to the spot, and the mask's feather blends the repair into its surroundings.

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
	ox, oy := dx*longEdge(src), dy*longEdge(src)
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

// shiftAdd writes to dst the w x h RGB plane src sampled at an offset of (ox, oy)
// pixels, bilinearly, the border repeated; plus add, pixel for pixel, when it is not
// nil. A whole-pixel offset copies values exactly.
func shiftAdd(dst, src, add []float32, w, h int, ox, oy float64) {
	x0, x1, fx := shiftTaps(w, ox)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			ys := float64(y) + oy
			yf := math.Floor(ys)
			fy := float32(ys - yf)
			ya := min(max(int(yf), 0), h-1)
			yb := min(max(int(yf)+1, 0), h-1)
			ra, rb := src[3*ya*w:3*(ya+1)*w], src[3*yb*w:3*(yb+1)*w]
			out := dst[3*y*w : 3*(y+1)*w]
			for x := range w {
				a, b, f := 3*x0[x], 3*x1[x], fx[x]
				for c := range 3 {
					top := ra[a+c] + (ra[b+c]-ra[a+c])*f
					bot := rb[a+c] + (rb[b+c]-rb[a+c])*f
					out[3*x+c] = top + (bot-top)*fy
				}
			}
			if add != nil {
				row := add[3*y*w : 3*(y+1)*w]
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
