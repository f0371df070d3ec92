package engine

import "math"

// Effects: vignette, grain, noise, cutout. The random ones draw from the render's seed
// through a counter-based hash of (seed, operation, occurrence, pixel, channel), so the
// same seed gives the same bytes on any number of cores.

// opVignette darkens or lightens towards the corners.
//
// Arguments: amount in [-1, 1]; midpoint in [0, 1], where the falloff is centred, from
// the centre (0) to the corners (1); feather in [0, 1], the width of the falloff on the
// same scale (0 is a hard, antialiased edge). Distance is elliptical, following the
// frame's aspect ratio, 0 at the centre and 1 at the corners, so the vignette fits any
// frame and any resolution. With weight v (0 inside, 1 outside, a smooth step between):
// negative amounts multiply linear light by 1 + amount*v (-1 turns the corners black),
// positive ones move it towards white by amount*v. Example: {amount: -0.4, midpoint:
// 0.5, feather: 0.5}.
func opVignette(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, mid, feather := r.num("amount"), r.num("midpoint"), r.num("feather")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	fr := rc.frameOf(src)
	// At least a pixel wide at the long edge, to antialias a hard edge.
	width := float32(max(feather, 2/float64(max(fr.w, fr.h))))
	lo := float32(mid) - width/2
	amt := float32(amount)
	sx, sy := 2/float64(fr.w), 2/float64(fr.h)
	// Inside lo the weight is 0 and the pixels are copied; past lo+width it is 1;
	// only the ramp between needs the square root. Bounds are compared on squared
	// distances with a margin, so rounding cannot move a pixel across them.
	inner, outer := -1.0, math.Inf(1)
	if l := float64(lo); l > 0 {
		inner = l * l * (1 - 1e-6)
	}
	if hi := float64(lo + width); hi > 0 {
		outer = hi * hi * (1 + 1e-6)
	}
	// Half the squared horizontal distance of each column, once per call.
	dx2 := rc.floats(w)
	for x := range w {
		dx := (float64(x)+0.5)*sx - 1
		dx2[x] = float32(dx * dx / 2)
	}
	dst := rc.image(w, h)
	parallelRows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			dy := (float64(fr.y0+y)+0.5)*sy - 1
			dy2 := dy * dy / 2
			s, d := src.Pix[3*y*w:3*(y+1)*w], dst.Pix[3*y*w:3*(y+1)*w]
			for x, hx := range dx2[:w] {
				p, q := s[3*x:3*x+3:3*x+3], d[3*x:3*x+3:3*x+3]
				r2 := float64(hx) + dy2
				if r2 < inner {
					q[0], q[1], q[2] = p[0], p[1], p[2]
					continue
				}
				v := float32(1)
				if r2 <= outer {
					v = smoothstep((float32(math.Sqrt(r2)) - lo) / width)
				}
				if amt < 0 {
					k := 1 + amt*v
					q[0], q[1], q[2] = p[0]*k, p[1]*k, p[2]*k
					continue
				}
				k := amt * v
				for c := range 3 {
					if v := p[c]; v < 1 {
						q[c] = v + (1-v)*k
					} else {
						q[c] = v
					}
				}
			}
		}
	})
	rc.release(dx2)
	return dst, nil
}

// grainStep is the display-luma standard deviation of grain at amount 1 in the midtones.
const grainStep = 0.08

// opGrain adds film grain.
//
// Arguments: amount in [0, 1]; size in [0.0002, 0.01], a fraction of the long edge (the
// sigma of the gaussian that shapes each grain). Seeded white noise is blurred to the
// grain size and rescaled to unit deviation, so coarse grain is as strong as fine grain
// and a preview looks like the export; it is added to display luma with a deviation of
// up to 0.08 weighted by 4L(1-L), strongest in the midtones and none in pure black or
// white, and colour is kept. Example: {amount: 0.3, size: 0.001}.
func opGrain(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, size := r.num("amount"), r.num("size")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h, n := src.W, src.H, src.W*src.H
	sigma := grainSigma(size, rc.long(src))
	noise, tmp := rc.floats(n), rc.floats(n)
	key, y0 := rc.key, rc.frameOf(src).y0
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				// Seeded at the pixel's place in the frame, so a band draws
				// exactly the whole image's grain.
				noise[y*w+x] = normal16(rnd(key, x, y0+y, 0))
			}
		}
	})
	gaussian(noise, noise, tmp, w, h, 1, sigma)
	k := float32(amount*grainStep/math.Sqrt(gaussianNorm2(sigma))) * 4
	l := lumaPlane(rc, src)
	dst := applyLuma(rc, src, l, func(p int, l float32) float32 {
		c := clamp01(l)
		return l + k*noise[p]*c*(1-c)
	})
	rc.release(noise, tmp, l)
	return dst, nil
}

// grainSigma is the grain's blur in pixels on a frame of long edge long.
func grainSigma(size, long float64) float64 { return min(size*long, maxFilterRadius) }

// opNoise adds gaussian noise to every pixel (augmentation).
//
// Arguments: sigma in [0, 0.5], the standard deviation on display values (0 to 1);
// monochrome, the same noise on all three channels (luminance noise) instead of
// independent noise per channel. The noise is gaussian (cut off at 3.7 sigma) and
// added to display values, like sensor noise in a JPEG. Example: {sigma: 0.05, monochrome: false}.
func opNoise(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	sigma, mono := r.num("sigma"), r.flag("monochrome")
	if r.err != nil {
		return nil, r.err
	}
	if sigma == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	s := float32(sigma)
	key := rc.key
	y0 := rc.frameOf(src).y0
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				i := 3 * (y*w + x)
				var n [3]float32
				bits := rnd(key, x, y0+y, 0)
				n[0] = normal16(bits) * s
				if mono {
					n[1], n[2] = n[0], n[0]
				} else {
					n[1], n[2] = normal16(bits>>16)*s, normal16(bits>>32)*s
				}
				for c := range 3 {
					dst.Pix[i+c] = nonNeg(fromDisp(toDisp(src.Pix[i+c]) + n[c]))
				}
			}
		}
	})
	return dst, nil
}

// opCutout fills square holes at seeded random positions (coarse dropout).
//
// Arguments: holes in [0, 32]; size in [0.01, 0.5], the side of each hole as a fraction
// of the long edge (rounded to whole pixels, at least one); fill in [0, 1], the display
// value of the flat grey in the holes. Each hole lies entirely inside the image when it
// fits; holes may overlap. Example: {holes: 4, size: 0.1, fill: 0.5}.
func opCutout(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	holes, size, fill := r.integer("holes"), r.num("size"), r.num("fill")
	if r.err != nil {
		return nil, r.err
	}
	if holes <= 0 {
		return src, nil
	}
	// Holes are placed on the frame, so a band fills exactly the whole image's.
	fr := rc.frameOf(src)
	w, h, y0 := fr.w, fr.h, fr.y0
	side := max(1, int(math.Round(size*rc.long(src))))
	sw, sh := min(side, w), min(side, h)
	v := max(fromDisp(float32(fill)), 0)
	type rect struct{ x0, y0, x1, y1 int }
	// Holes are counted in the hundreds at most: a larger count cannot add anything
	// after the image is full, so it is bounded to keep the work bounded.
	holes = min(holes, 4096)
	rects := make([]rect, holes)
	for i := range rects {
		x0 := min(int(uniform(rnd(rc.key, i, 0, 0))*float64(w-sw+1)), w-sw)
		y0 := min(int(uniform(rnd(rc.key, i, 0, 1))*float64(h-sh+1)), h-sh)
		rects[i] = rect{x0, y0, x0 + sw, y0 + sh}
	}
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for _, q := range rects {
			for y := max(q.y0-y0, lo); y < min(q.y1-y0, hi); y++ {
				row := pix[3*(y*w+q.x0) : 3*(y*w+q.x1)]
				for i := range row {
					row[i] = v
				}
			}
		}
	})
	return dst, nil
}
