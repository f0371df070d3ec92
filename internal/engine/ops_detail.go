package engine

import (
	"math"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Detail: clarity, sharpen, denoise, blur. Radii are fractions of the long edge, so the
// same arguments look the same on a preview and on the full-size export; every filter
// costs O(pixels) whatever the radius.

// lumaPlane returns the display luma (extended sRGB of the Rec. 709 luminance) of every
// pixel, the channel that clarity and sharpen work on: detail added to luma sharpens
// without colour fringes.
func lumaPlane(rc *runCtx, src *Image) []float32 {
	l := rc.floats(src.W * src.H)
	parallelRows(src.H, func(lo, hi int) {
		for p := lo * src.W; p < hi*src.W; p++ {
			l[p] = toDisp(luma(src.Pix[3*p], src.Pix[3*p+1], src.Pix[3*p+2]))
		}
	})
	return l
}

// applyLuma returns src with each pixel's display luma changed by fn(p, l), colour
// kept.
func applyLuma(rc *runCtx, src *Image, l []float32, fn func(p int, l float32) float32) *Image {
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		for p := lo * src.W; p < hi*src.W; p++ {
			i := 3 * p
			r, g, b := src.Pix[i], src.Pix[i+1], src.Pix[i+2]
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = relum(r, g, b, luma(r, g, b), fromDisp(fn(p, l[p])))
		}
	})
	return dst
}

// opClarity adds or removes local contrast in the midtones.
//
// Arguments: amount in [-1, 1]; radius in [0.002, 0.1], a fraction of the long edge
// (the gaussian's sigma). It is a large-radius unsharp mask on display luma: the
// difference between a pixel and its blurred surroundings is added amount times,
// weighted by 4L(1-L) so midtones get it all and black and white none (which keeps
// halos off skies and shadows). +1 doubles midtone local contrast; -1 removes it,
// a soft-focus look. Example: {amount: 0.3, radius: 0.02}.
func opClarity(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, radius := r.num("amount"), r.num("radius")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	l := lumaPlane(rc, src)
	blurred := rc.floats(len(l))
	if g, ok := rc.pre.(*blockGrid); ok {
		// A band of a streamed render: the blurred grid of the whole frame is known.
		g.rows(blurred, rc.frameOf(src).y0, src.H)
	} else {
		gaussianLarge(rc, blurred, l, src.W, src.H, 1, clarityPx(radius, rc.long(src)))
	}
	amt := float32(amount)
	dst := applyLuma(rc, src, l, func(p int, l float32) float32 {
		c := clamp01(l)
		return l + amt*(l-blurred[p])*4*c*(1-c)
	})
	rc.release(l, blurred)
	return dst, nil
}

// clarityPx is clarity's sigma in pixels on a frame of long edge long.
func clarityPx(radius, long float64) float64 { return min(radius*long, maxFilterRadius) }

// opSharpen sharpens fine detail with an unsharp mask on display luma.
//
// Arguments: amount in [0, 3], how many times the detail is added; radius in
// [0.0002, 0.01], a fraction of the long edge (the gaussian's sigma: 0.001 is one pixel
// at 1000 px); threshold in [0, 0.5] display levels: detail smaller than the threshold
// is left alone and larger detail fades in up to twice the threshold, which keeps
// noise in smooth areas from being sharpened. Example: {amount: 0.8, radius: 0.001,
// threshold: 0.02}.
func opSharpen(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, radius, threshold := r.num("amount"), r.num("radius"), r.num("threshold")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	n := src.W * src.H
	l := lumaPlane(rc, src)
	blurred, sigma := rc.floats(n), radius*rc.long(src)
	var tmp []float32
	if gaussianNeedsTmp(blurred, l, sigma) {
		tmp = rc.floats(n)
	}
	gaussian(blurred, l, tmp, src.W, src.H, 1, sigma)
	amt, thr := float32(amount), float32(threshold)
	dst := applyLuma(rc, src, l, func(p int, l float32) float32 {
		d := l - blurred[p]
		if thr > 0 {
			ad := float32(math.Abs(float64(d)))
			d *= clamp01((ad - thr) / thr)
		}
		return l + amt*d
	})
	rc.release(l, blurred, tmp)
	return dst, nil
}

// denoiseSigma is the display-level noise that denoise at amount 1 smooths away.
const denoiseSigma = 0.06

// opDenoise reduces noise while keeping edges.
//
// Arguments: amount in [0, 1]; radius in [0.0002, 0.01], a fraction of the long edge
// (the filter window's half-width, at least a pixel). It is a guided filter (He et al.)
// on display values, steered by display luma: within each window the colour is
// modelled as a linear function of luma, so flat areas are smoothed while edges, which
// show in luma, are kept, and chroma noise is cleaned along with luma noise. Amount sets
// the noise level treated as flat (up to a display sigma of 0.06) and the blend with the
// original. Example: {amount: 0.5, radius: 0.002}.
func opDenoise(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, radius := r.num("amount"), r.num("radius")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h, n := src.W, src.H, src.W*src.H
	rad := denoiseRadius(radius, rc.long(src))
	disp, guide, q := rc.floats(3*n), rc.floats(n), rc.floats(3*n)
	denoisePlanes(src, disp, guide)
	eps := float32(denoiseSigma * amount)
	if g, ok := rc.pre.(*[2]*blockGrid); ok {
		// A band of a streamed render: the coefficients of the whole frame are known.
		applyGrids(q, guide, g[0], g[1], rc.frameOf(src).y0, h)
	} else {
		// Past a few pixels of radius the coefficients are smooth enough to compute
		// on block averages, which keeps a full-size export as fast per pixel as a
		// preview.
		guidedFilter(rc, q, guide, disp, w, h, 3, rad, eps*eps, denoiseSub(rad))
	}
	amt := float32(amount)
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for i := 3 * lo * w; i < 3*hi*w; i++ {
			dst.Pix[i] = max(fromDisp(disp[i]+(q[i]-disp[i])*amt), 0)
		}
	})
	rc.release(disp, guide, q)
	return dst, nil
}

// denoiseRadius is denoise's window half-width in pixels on a frame of long edge long.
func denoiseRadius(radius, long float64) int {
	return min(max(1, int(math.Round(radius*long))), maxFilterRadius)
}

// denoiseSub is the block size denoise's guided filter computes its coefficients on.
func denoiseSub(rad int) int { return max(1, rad/2) }

// denoisePlanes writes src's display values to disp and their luma to guide.
func denoisePlanes(src *Image, disp, guide []float32) {
	w := src.W
	parallelRows(src.H, func(lo, hi int) {
		for p := lo * w; p < hi*w; p++ {
			i := 3 * p
			rd, gd, bd := toDisp(src.Pix[i]), toDisp(src.Pix[i+1]), toDisp(src.Pix[i+2])
			disp[i], disp[i+1], disp[i+2] = rd, gd, bd
			guide[p] = luma(rd, gd, bd)
		}
	})
}

// opBlur blurs the image.
//
// Arguments: kind, one of gaussian, box or motion; radius in [0, 0.1], a fraction of
// the long edge (0 is no blur): the sigma of a gaussian, the half-width of a box, half
// the length of a motion streak; angle in [-180, 180] degrees counter-clockwise from
// horizontal, the direction of a motion blur. Blurring is in linear light, so bright
// points spread the way out-of-focus light does. Every kind costs O(pixels) at any
// radius: a gaussian is three box passes of the same variance (an exact kernel below
// 1.5 px, a copy averaged down past 8 px), a box is a running sum, and motion shears the
// image so the streak runs along rows, blurs them with a box and shears back.
// Example: {kind: "motion", radius: 0.02, angle: 30}.
func opBlur(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	kind := r.enum("kind", "gaussian", "box", "motion")
	radius, angle := r.num("radius"), r.num("angle")
	if r.err != nil {
		return nil, r.err
	}
	if radius == 0 {
		return src, nil
	}
	if radius < 0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "blur: radius %v is negative", radius)
	}
	px := min(radius*rc.long(src), maxFilterRadius)
	w, h := src.W, src.H
	switch kind {
	case "gaussian":
		dst := rc.image(w, h)
		if g, ok := rc.pre.(*blockGrid); ok {
			g.rows(dst.Pix, rc.frameOf(src).y0, h)
			return dst, nil
		}
		gaussianLarge(rc, dst.Pix, src.Pix, w, h, 3, px)
		return dst, nil
	case "box":
		dst, tmp := rc.image(w, h), rc.floats(3*w*h)
		boxBlur(dst.Pix, src.Pix, tmp, w, h, 3, int(math.Round(px)))
		rc.release(tmp)
		return dst, nil
	default:
		return motionBlur(rc, src, px, angle), nil
	}
}

// motionBlur smears src along the direction angle (degrees counter-clockwise from
// horizontal) over ±half pixels with a uniform weight.
func motionBlur(rc *runCtx, src *Image, half, angle float64) *Image {
	sin, cos := math.Sincos(angle * math.Pi / 180)
	dx, dy := cos, -sin // image rows grow downwards
	if math.Abs(dx) >= math.Abs(dy) {
		return shearBlur(rc, src, dy/dx, half*math.Abs(dx))
	}
	// Mostly vertical: transpose so the streak runs mostly along rows.
	t := rc.image(src.H, src.W)
	transpose(t.Pix, src.Pix, src.W, src.H, 3)
	b := shearBlur(rc, t, dx/dy, half*math.Abs(dy))
	rc.release(t.Pix)
	out := rc.image(src.W, src.H)
	transpose(out.Pix, b.Pix, b.W, b.H, 3)
	rc.release(b.Pix)
	return out
}

// shearBlur blurs src along lines y = y0 + slope*x (|slope| <= 1) with a box of
// half-width hx pixels measured along x: it shears each column by -slope*x so the lines
// become rows (linear interpolation, edges repeated), blurs the rows with a box of that
// real width, and shears back.
func shearBlur(rc *runCtx, src *Image, slope, hx float64) *Image {
	w, h := src.W, src.H
	off := math.Ceil(max(0, float64(w-1)*slope))
	low := math.Floor(min(0, float64(w-1)*slope))
	hs := h + int(off-low) + 1
	sheared := rc.floats(3 * w * hs)
	// Row j of the sheared plane holds, at column x, the source at y = j - off + slope*x.
	parallelRows(hs, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			row := sheared[3*j*w : 3*(j+1)*w]
			for x := range w {
				y := float64(j) - off + slope*float64(x)
				y0 := math.Floor(y)
				f := float32(y - y0)
				a := min(max(int(y0), 0), h-1)
				b := min(max(int(y0)+1, 0), h-1)
				pa, pb := src.Pix[3*(a*w+x):], src.Pix[3*(b*w+x):]
				for c := range 3 {
					row[3*x+c] = pa[c] + (pb[c]-pa[c])*f
				}
			}
		}
	})
	blurred := rc.floats(3 * w * hs)
	r := min(int(hx), maxFilterRadius)
	boxH(blurred, sheared, w, hs, 3, r, min(hx-float64(r), 0.999999))
	rc.release(sheared)
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				j := float64(y) + off - slope*float64(x)
				j0 := math.Floor(j)
				f := float32(j - j0)
				a := min(max(int(j0), 0), hs-1)
				b := min(max(int(j0)+1, 0), hs-1)
				pa, pb := blurred[3*(a*w+x):], blurred[3*(b*w+x):]
				d := dst.Pix[3*(y*w+x):]
				for c := range 3 {
					d[c] = pa[c] + (pb[c]-pa[c])*f
				}
			}
		}
	})
	rc.release(blurred)
	return dst
}
