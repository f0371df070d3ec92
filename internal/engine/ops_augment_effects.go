package engine

import "math"

// Augmentation operations of the effects stage added after the first set
// (ops_augment.go): pixel-level dropout and noise (salt_and_pepper, pixel_dropout,
// shot_noise), snow, plasma (PlasmaBrightnessContrast and PlasmaShadow), and the
// masks grid_dropout and xy_masking (albumentations GridDropout, XYMasking).

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
	v := fillLevel(fill)
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

// plasmaField is fractal value noise in [0, 1] at frame position (x, y): three octaves
// with cells of a quarter, an eighth and a sixteenth of the long edge.
func plasmaField(key uint64, x, y, long float64) float32 {
	return (0.57*valueNoise(key, 0, x, y, 0.25*long) + 0.29*valueNoise(key, 1, x, y, 0.125*long) +
		0.14*valueNoise(key, 2, x, y, 0.0625*long))
}

// opPlasma changes brightness and contrast, or casts shadow, by a smooth seeded
// fractal pattern (albumentations PlasmaBrightnessContrast and PlasmaShadow).
//
// Arguments: brightness and contrast in [-0.5, 0.5]; shadow in [0, 1]. With p the
// pattern in [-1, 1] and q = (p+1)/2 in [0, 1], each display value d becomes
// 0.5 + (d - 0.5)(1 + contrast*p) + brightness*p, then is multiplied by 1 - shadow*q;
// all 0 leaves the image unchanged. Example: {brightness: 0.3, contrast: 0.3}.
func opPlasma(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	bright, contrast, shadow := r.num("brightness"), r.num("contrast"), r.num("shadow")
	if r.err != nil {
		return nil, r.err
	}
	if bright == 0 && contrast == 0 && shadow == 0 {
		return src, nil
	}
	fr := rc.frameOf(src)
	long := float64(max(fr.w, fr.h))
	key, w := rc.key, src.W
	b, k, s := float32(bright), float32(contrast), float32(shadow)
	return dispMap(rc, src, func(p int, c *[3]float32) {
		q := plasmaField(key, float64(p%w)+0.5, float64(fr.y0+p/w)+0.5, long)
		pm := 2*q - 1
		g := 1 - s*q
		for j := range 3 {
			c[j] = (0.5 + (c[j]-0.5)*(1+k*pm) + b*pm) * g
		}
	}), nil
}

// opGridDropout drops squares on a regular grid (albumentations GridDropout).
//
// Arguments: ratio in [0, 0.9], the side of each square as a fraction of its cell (0
// none; albumentations' default 0.5); cells in [2, 32], the cells along the long edge;
// fill in [0, 1], the display value of the squares. The grid's offset is drawn from the
// seed. Example: {ratio: 0.4, cells: 8}.
func opGridDropout(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	ratio, cells, fill := r.num("ratio"), r.integer("cells"), r.num("fill")
	if r.err != nil {
		return nil, r.err
	}
	if ratio == 0 || cells <= 0 {
		return src, nil
	}
	fr := rc.frameOf(src)
	cell := float64(max(fr.w, fr.h)) / float64(cells)
	hole := ratio * cell
	ox, oy := uniform(rnd(rc.key, 0, 0, 0))*cell, uniform(rnd(rc.key, 0, 0, 1))*cell
	in := func(v, off float64) bool {
		t := math.Mod(v-off, cell)
		if t < 0 {
			t += cell
		}
		return t < hole
	}
	v := fillLevel(fill)
	w := src.W
	cols := make([]bool, w)
	for x := range cols {
		cols[x] = in(float64(x)+0.5, ox)
	}
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for y := lo; y < hi; y++ {
			if !in(float64(fr.y0+y)+0.5, oy) {
				continue
			}
			for x, hit := range cols {
				if hit {
					i := 3 * (y*w + x)
					pix[i], pix[i+1], pix[i+2] = v, v, v
				}
			}
		}
	})
	return dst, nil
}

// maxStripes bounds xy_masking's stripe counts (the catalog allows 8 each way).
const maxStripes = 64

// opXYMasking fills seeded random horizontal and vertical stripes with a flat value
// (albumentations XYMasking, the SpecAugment-style time and frequency masks).
//
// Arguments: vertical in [0, 8], the number of vertical stripes (full height); horizontal
// in [0, 8], the number of horizontal ones (full width); width in [0.01, 0.3], each
// stripe's width as a fraction of the long edge (at least a pixel); fill in [0, 1], the
// display value of the stripes. Positions come from the seed. Example: {vertical: 2,
// horizontal: 1, width: 0.05}.
func opXYMasking(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	nv, nh, width, fill := r.integer("vertical"), r.integer("horizontal"), r.num("width"), r.num("fill")
	if r.err != nil {
		return nil, r.err
	}
	nv, nh = min(max(nv, 0), maxStripes), min(max(nh, 0), maxStripes)
	if nv == 0 && nh == 0 {
		return src, nil
	}
	fr := rc.frameOf(src)
	side := max(1, int(math.Round(width*float64(max(fr.w, fr.h)))))
	w := src.W
	cols := make([]bool, w)
	for i := range nv {
		s := min(side, fr.w)
		x0 := min(int(uniform(rnd(rc.key, i, 0, 0))*float64(fr.w-s+1)), fr.w-s)
		for x := x0; x < x0+s; x++ {
			cols[x] = true
		}
	}
	rows := make([][2]int, nh)
	for i := range rows {
		s := min(side, fr.h)
		y0 := min(int(uniform(rnd(rc.key, i, 1, 0))*float64(fr.h-s+1)), fr.h-s)
		rows[i] = [2]int{y0, y0 + s}
	}
	v := fillLevel(fill)
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for y := lo; y < hi; y++ {
			fy := fr.y0 + y
			whole := false
			for _, r := range rows {
				whole = whole || (fy >= r[0] && fy < r[1])
			}
			for x, c := range cols {
				if whole || c {
					i := 3 * (y*w + x)
					pix[i], pix[i+1], pix[i+2] = v, v, v
				}
			}
		}
	})
	return dst, nil
}
