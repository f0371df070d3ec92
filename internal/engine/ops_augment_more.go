package engine

import (
	"math"
	"slices"
)

// More albumentations transforms: pixel-level dropout and noise (salt_and_pepper,
// pixel_dropout, channel_dropout, shot_noise), auto_contrast, snow, morphology,
// chromatic_aberration, and two geometry operations (lens_distortion, grid_shuffle).

// opSaltAndPepper sets seeded random pixels to white or black (albumentations
// SaltAndPepper).
//
// Arguments: amount in [0, 0.5], the fraction of pixels hit (0 none); salt in [0, 1],
// the fraction of those that turn white (the rest black). Each pixel is hit or not on
// its own, all three channels together. Example: {amount: 0.05, salt: 0.5}.
func opSaltAndPepper(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, salt := r.num("amount"), r.num("salt")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	key, w, y0 := rc.key, src.W, rc.frameOf(src).y0
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				bits := rnd(key, x, y0+y, 0)
				if uniform(bits) >= amount {
					continue
				}
				v := float32(0)
				if uniform(mix64(bits)) < salt {
					v = 1
				}
				i := 3 * (y*w + x)
				pix[i], pix[i+1], pix[i+2] = v, v, v
			}
		}
	})
	return dst, nil
}

// opPixelDropout replaces seeded random pixels with a fixed value (albumentations
// PixelDropout).
//
// Arguments: probability in [0, 0.5], the chance of each pixel (or each channel of each
// pixel, with per_channel) being dropped; fill in [0, 1], the display value it gets
// (albumentations' default 0, black). Example: {probability: 0.05}.
func opPixelDropout(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	prob, fill, perCh := r.num("probability"), r.num("fill"), r.flag("per_channel")
	if r.err != nil {
		return nil, r.err
	}
	if prob == 0 {
		return src, nil
	}
	v := nonNeg(fromDisp(float32(fill)))
	key, w, y0 := rc.key, src.W, rc.frameOf(src).y0
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				i := 3 * (y*w + x)
				if !perCh {
					if uniform(rnd(key, x, y0+y, 0)) < prob {
						pix[i], pix[i+1], pix[i+2] = v, v, v
					}
					continue
				}
				for c := range 3 {
					if uniform(rnd(key, x, y0+y, c+1)) < prob {
						pix[i+c] = v
					}
				}
			}
		}
	})
	return dst, nil
}

// opChannelDropout fills one colour channel with a fixed value (albumentations
// ChannelDropout).
//
// Arguments: channel, none (unchanged), red, green, blue, or random (one of the three
// drawn from the seed); fill in [0, 1], the display value the channel gets
// (albumentations' default 0). Example: {channel: "random"}.
func opChannelDropout(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	ch := r.enum("channel", "none", "red", "green", "blue", "random")
	fill := r.num("fill")
	if r.err != nil {
		return nil, r.err
	}
	if ch == "none" {
		return src, nil
	}
	c := slices.Index([]string{"red", "green", "blue"}, ch)
	if ch == "random" {
		c = min(int(uniform(rnd(rc.key, 0, 0, 0))*3), 2)
	}
	v := nonNeg(fromDisp(float32(fill)))
	return mapRows(rc, src, func(d, s []float32) {
		copy(d, s)
		for i := c; i < len(d); i += 3 {
			d[i] = v
		}
	}), nil
}

// opShotNoise adds photon (Poisson) noise in linear light (albumentations ShotNoise):
// brighter pixels get more noise in absolute terms, less relative to their value.
//
// Arguments: scale in [0, 0.1], the light of one photon as a fraction of white (0 none;
// albumentations' default range 0.1..0.3 is on its own scale, about 0.001..0.01 here):
// each linear value v becomes a Poisson count of mean v/scale, times scale, drawn here
// as its normal approximation (mean v, deviation sqrt(v*scale)) and cut at 0. Example:
// {scale: 0.005}.
func opShotNoise(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	scale := r.num("scale")
	if r.err != nil {
		return nil, r.err
	}
	if scale == 0 {
		return src, nil
	}
	s := float32(scale)
	key, w, y0 := rc.key, src.W, rc.frameOf(src).y0
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				i := 3 * (y*w + x)
				bits := rnd(key, x, y0+y, 0)
				for c := range 3 {
					v := src.Pix[i+c]
					sd := float32(math.Sqrt(float64(nonNeg(v) * s)))
					dst.Pix[i+c] = nonNeg(v + sd*normal16(bits>>(16*c)))
				}
			}
		}
	})
	return dst, nil
}

// opAutoContrast stretches each channel to the full range (albumentations
// AutoContrast).
//
// Arguments: amount in [0, 1], the blend of the stretched result; cutoff in [0, 0.2],
// the fraction of each channel's darkest and brightest values ignored when finding its
// range (albumentations' cutoff, as a fraction instead of a percentage). Each channel's
// display values are mapped linearly so that its range becomes 0..1; a flat channel is
// left alone. Example: {amount: 1, cutoff: 0.01}.
func opAutoContrast(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, cutoff := r.num("amount"), r.num("cutoff")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	n := src.W * src.H
	var hist [3][256]int
	for p := range n {
		for c := range 3 {
			hist[c][int(clamp01(toDisp(src.Pix[3*p+c]))*255+0.5)]++
		}
	}
	var lo, hi [3]float32
	skip := int(cutoff * float64(n))
	for c := range 3 {
		l, h, cum := 0, 255, 0
		for ; l < 255; l++ {
			if cum += hist[c][l]; cum > skip {
				break
			}
		}
		for cum = 0; h > 0; h-- {
			if cum += hist[c][h]; cum > skip {
				break
			}
		}
		lo[c], hi[c] = float32(l)/255, float32(h)/255
	}
	k := float32(amount)
	return dispMap(rc, src, func(_ int, v *[3]float32) {
		for c := range 3 {
			if hi[c] <= lo[c] {
				continue
			}
			s := (v[c] - lo[c]) / (hi[c] - lo[c])
			v[c] += (clamp01(s) - v[c]) * k
		}
	}), nil
}

// opSnow whitens the lighter parts of the scene as if covered in snow (albumentations
// RandomSnow, its bleach method).
//
// Arguments: amount in [0, 1], how much of the scene is snow: pixels whose display
// HLS lightness is below amount/2 + 1/3 (albumentations' snow_point threshold) have
// their lightness multiplied by brightness; 0 leaves the image unchanged. brightness in
// [1, 4] (albumentations' brightness_coeff, default 2.5). Example: {amount: 0.3}.
func opSnow(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, bright := r.num("amount"), r.num("brightness")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	th := float32(amount/2 + 1.0/3)
	b := float32(bright)
	return dispMap(rc, src, func(_ int, c *[3]float32) {
		// Pixels above the threshold keep their display values clamped to [0, 1].
		c[0], c[1], c[2] = clamp01(c[0]), clamp01(c[1]), clamp01(c[2])
		if (max3(c[0], c[1], c[2])+min3(c[0], c[1], c[2]))/2 >= th {
			return
		}
		h, l, s := toHLS(c[0], c[1], c[2])
		c[0], c[1], c[2] = fromHLS(h, min(l*b, 1), s)
	}), nil
}

// opMorphology erodes or dilates the image (albumentations Morphological): each
// channel becomes the minimum (erode, darker areas grow) or maximum (dilate, lighter
// areas grow) over a square around each pixel.
//
// Arguments: operation, none (unchanged), erode or dilate; size in [0.0005, 0.02], the
// square's half side as a fraction of the long edge (at least a pixel). Example:
// {operation: "dilate", size: 0.003}.
func opMorphology(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	op := r.enum("operation", "none", "erode", "dilate")
	size := r.num("size")
	if r.err != nil {
		return nil, r.err
	}
	if op == "none" {
		return src, nil
	}
	rad := max(1, int(math.Round(size*longEdge(src))))
	w, h, n := src.W, src.H, src.W*src.H
	plane, out := rc.floats(n), rc.floats(n)
	dst := rc.image(w, h)
	sign := float32(1)
	if op == "dilate" {
		sign = -1
	}
	for c := range 3 {
		for p := range n {
			plane[p] = sign * src.Pix[3*p+c]
		}
		minFilter(rc, out, plane, w, h, rad)
		for p := range n {
			dst.Pix[3*p+c] = sign * out[p]
		}
	}
	rc.release(plane, out)
	return dst, nil
}

// opChromaticAberration shifts the red and blue channels radially, as a lens that
// focuses colours at different sizes (albumentations ChromaticAberration).
//
// Arguments: amount in [-0.02, 0.02]: red is scaled about the centre by 1 + amount and
// blue by 1 - amount (positive gives red fringes outwards and blue inwards at the
// edges); 0 leaves the image unchanged. Green stays. Example: {amount: 0.005}.
func opChromaticAberration(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	cx, cy := float64(w)/2, float64(h)/2
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			py := float64(y) + 0.5 - cy
			for x := range w {
				px := float64(x) + 0.5 - cx
				i := 3 * (y*w + x)
				// The red channel magnified by 1 + amount shows the source at the
				// position divided by it.
				kr, kb := 1/(1+amount), 1/(1-amount)
				rr, _, _ := sampleLinear(src, px*kr+cx-0.5, py*kr+cy-0.5)
				_, _, bb := sampleLinear(src, px*kb+cx-0.5, py*kb+cy-0.5)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = rr, src.Pix[i+1], bb
			}
		}
	})
	return dst, nil
}

// opLensDistortion bends straight lines like a lens (albumentations
// OpticalDistortion's radial model): barrel for positive k, pincushion for negative.
//
// Arguments: k in [-0.5, 0.5]: an output point at distance d from the centre (d is a
// fraction of half the diagonal, 1 at the corners) shows the source at d * (1 + k d^2),
// so positive k shows more of the source towards the corners and straight lines bow
// outwards (barrel), negative k bows them inwards (pincushion); 0 leaves the image
// unchanged. Edges repeat. Example: {k: 0.2}.
func opLensDistortion(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	k := r.num("k")
	if r.err != nil {
		return nil, r.err
	}
	if k == 0 {
		return src, nil
	}
	cx, cy := float64(src.W)/2, float64(src.H)/2
	norm := 1 / math.Hypot(cx, cy)
	return warp(rc, src, src.W, src.H, "edge", func(x, y float64) (float64, float64) {
		dx, dy := x-cx, y-cy
		d2 := (dx*dx + dy*dy) * norm * norm
		f := 1 + k*d2
		return cx + dx*f, cy + dy*f
	}), nil
}

// opGridShuffle cuts the image into a grid of cells and shuffles them (albumentations
// RandomGridShuffle).
//
// Arguments: cells in [1, 8], the cells along each side (1 leaves the image
// unchanged); the permutation comes from the seed. Cell edges round to whole pixels,
// so cells of one row or column may differ by a pixel and only cells of equal size
// swap; with cells dividing the sides every cell may go anywhere. Example: {cells: 3}.
func opGridShuffle(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	cells := r.integer("cells")
	if r.err != nil {
		return nil, r.err
	}
	cells = min(cells, min(src.W, src.H))
	if cells <= 1 {
		return src, nil
	}
	xs, ys := make([]int, cells+1), make([]int, cells+1)
	for i := range xs {
		xs[i] = i * src.W / cells
		ys[i] = i * src.H / cells
	}
	type cell struct{ x, y int }
	// Group cells by size; shuffle within each group (Fisher-Yates from the seed).
	groups := map[[2]int][]cell{}
	var order [][2]int
	for j := range cells {
		for i := range cells {
			s := [2]int{xs[i+1] - xs[i], ys[j+1] - ys[j]}
			if _, ok := groups[s]; !ok {
				order = append(order, s)
			}
			groups[s] = append(groups[s], cell{i, j})
		}
	}
	from := map[cell]cell{}
	draw := 0
	for _, s := range order {
		g := groups[s]
		perm := slices.Clone(g)
		for i := len(perm) - 1; i > 0; i-- {
			j := int(uniform(rnd(rc.key, draw, 0, 0)) * float64(i+1))
			draw++
			perm[i], perm[min(j, i)] = perm[min(j, i)], perm[i]
		}
		for i, c := range g {
			from[c] = perm[i]
		}
	}
	dst := rc.image(src.W, src.H)
	for to, fr := range from {
		w := xs[to.x+1] - xs[to.x]
		for y := range ys[to.y+1] - ys[to.y] {
			d := dst.Pix[3*((ys[to.y]+y)*src.W+xs[to.x]):]
			s := src.Pix[3*((ys[fr.y]+y)*src.W+xs[fr.x]):]
			copy(d[:3*w], s[:3*w])
		}
	}
	return dst, nil
}
