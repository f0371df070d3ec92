package engine

import (
	"math"

	"darkroom"
)

// A third set of albumentations transforms: plasma (PlasmaBrightnessContrast and
// PlasmaShadow), grid_dropout, scale (RandomScale), zoom_blur, random_tone_curve
// (RandomToneCurve) and fancy_pca (FancyPCA).

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
	v := nonNeg(fromDisp(float32(fill)))
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

// maxScaledPixels bounds what scale may make: 4x of a large photo would be huge.
const maxScaledPixels = 200_000_000

// opScale resizes the image by a factor (albumentations RandomScale, whose random
// factor is here the value a sampler draws), with the Lanczos filter of Resize.
//
// Arguments: factor in [0.25, 4]; 1 leaves the image unchanged. Sizes round to whole
// pixels, at least one. A result above 200 megapixels is refused (limit_exceeded).
// Example: {factor: 0.5}.
func opScale(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	f := r.num("factor")
	if r.err != nil {
		return nil, r.err
	}
	w := max(1, int(math.Round(f*float64(src.W))))
	h := max(1, int(math.Round(f*float64(src.H))))
	if w == src.W && h == src.H {
		return src, nil
	}
	if int64(w)*int64(h) > maxScaledPixels {
		return nil, errScaleTooLarge(w, h)
	}
	return Resize(src, w, h), nil
}

// zoomSamples is how many scaled copies zoom_blur averages.
const zoomSamples = 16

// opZoomBlur blurs radially from the centre, as when zooming during the exposure
// (albumentations ZoomBlur).
//
// Arguments: amount in [0, 0.3]: the average of the image scaled about its centre by
// every factor from 1 to 1 + amount (16 copies, bilinear); 0 leaves it unchanged.
// Example: {amount: 0.1}.
func opZoomBlur(rc *runCtx, src *Image, a Args) (*Image, error) {
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
				var sr, sg, sb float32
				for k := range zoomSamples {
					z := 1 / (1 + amount*float64(k)/(zoomSamples-1))
					r, g, b := sampleLinear(src, px*z+cx-0.5, py*z+cy-0.5)
					sr, sg, sb = sr+r, sg+g, sb+b
				}
				i := 3 * (y*w + x)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = sr/zoomSamples, sg/zoomSamples, sb/zoomSamples
			}
		}
	})
	return dst, nil
}

// opRandomToneCurve applies a seeded random S-shaped or inverse tone curve
// (albumentations RandomToneCurve).
//
// Arguments: scale in [0, 0.5], the deviation of the curve's two inner control points:
// a cubic Bezier from (0, 0) to (1, 1) through (0.25, 0.25 + a) and (0.75, 0.75 + b),
// a and b normal deviates of that deviation from the seed, applied to display values
// with the curve's parameter as the input, as albumentations does; 0 leaves the image
// unchanged. Example: {scale: 0.1}.
func opRandomToneCurve(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	scale := r.num("scale")
	if r.err != nil {
		return nil, r.err
	}
	if scale == 0 {
		return src, nil
	}
	bits := rnd(rc.key, 0, 0, 0)
	p1 := 0.25 + float64(normal16(bits))*scale
	p2 := 0.75 + float64(normal16(bits>>16))*scale
	curve := func(t float64) float64 {
		u := 1 - t
		return 3*u*u*t*p1 + 3*u*t*t*p2 + t*t*t
	}
	lut := newFnLUT(func(v float64) float64 {
		d := encodeExt(v)
		if d <= 0 || d >= 1 {
			return v // the curve is fixed at black and white; keep what lies beyond
		}
		return decodeExt(min(max(curve(d), 0), 1))
	})
	return mapChannels(rc, src, lut, 7), nil
}

// opFancyPCA shifts colours along the image's own principal colour axes (albumentations
// FancyPCA, after AlexNet's "fancy PCA" lighting augmentation).
//
// Arguments: alpha in [0, 1], the deviation of the seeded weights: the display RGB
// covariance of the image has eigenvalues l_i and eigenvectors p_i, and every pixel
// gets sum_i w_i l_i p_i added with w_i normal deviates of deviation alpha (the same
// for all pixels); 0 leaves the image unchanged. albumentations' default is 0.1.
// Example: {alpha: 0.5}.
func opFancyPCA(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	alpha := r.num("alpha")
	if r.err != nil {
		return nil, r.err
	}
	if alpha == 0 {
		return src, nil
	}
	n := src.W * src.H
	var mean [3]float64
	var cov [3][3]float64
	for p := range n {
		var c [3]float64
		for j := range 3 {
			c[j] = float64(toDisp(src.Pix[3*p+j]))
			mean[j] += c[j]
		}
		for i := range 3 {
			for j := range 3 {
				cov[i][j] += c[i] * c[j]
			}
		}
	}
	for i := range 3 {
		mean[i] /= float64(n)
	}
	for i := range 3 {
		for j := range 3 {
			cov[i][j] = cov[i][j]/float64(n) - mean[i]*mean[j]
		}
	}
	vals, vecs := eigenSym3(cov)
	bits := rnd(rc.key, 0, 0, 0)
	var shift [3]float32
	for k := range 3 {
		wk := float64(normal16(bits>>(16*k))) * alpha * vals[k]
		for j := range 3 {
			shift[j] += float32(wk * vecs[j][k])
		}
	}
	return dispMap(rc, src, func(_ int, c *[3]float32) {
		c[0], c[1], c[2] = c[0]+shift[0], c[1]+shift[1], c[2]+shift[2]
	}), nil
}

// eigenSym3 returns the eigenvalues of the symmetric matrix m and its eigenvectors as
// the columns of the second result, by cyclic Jacobi rotations.
func eigenSym3(m [3][3]float64) ([3]float64, [3][3]float64) {
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for range 50 {
		off := m[0][1]*m[0][1] + m[0][2]*m[0][2] + m[1][2]*m[1][2]
		if off < 1e-30 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			if math.Abs(m[p][q]) < 1e-300 {
				continue
			}
			theta := (m[q][q] - m[p][p]) / (2 * m[p][q])
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			for k := range 3 { // m = J^T m J
				mkp, mkq := m[k][p], m[k][q]
				m[k][p], m[k][q] = c*mkp-s*mkq, s*mkp+c*mkq
			}
			for k := range 3 {
				mpk, mqk := m[p][k], m[q][k]
				m[p][k], m[q][k] = c*mpk-s*mqk, s*mpk+c*mqk
			}
			for k := range 3 {
				vkp, vkq := v[k][p], v[k][q]
				v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
			}
		}
	}
	return [3]float64{m[0][0], m[1][1], m[2][2]}, v
}

func errScaleTooLarge(w, h int) error {
	return darkroom.Errorf(darkroom.LimitExceeded, "scale: the result %dx%d is over %d pixels", w, h, maxScaledPixels)
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
	v := nonNeg(fromDisp(float32(fill)))
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

// opBorderCrop cuts seeded random amounts from each border (albumentations
// RandomCropFromBorders).
//
// Arguments: limit in [0, 0.45]: each side loses a fraction of the width (left,
// right) or height (top, bottom) drawn uniformly from [0, limit]; 0 leaves the image
// unchanged. Amounts round to whole pixels; at least one pixel stays. Example:
// {limit: 0.2}.
func opBorderCrop(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	limit := r.num("limit")
	if r.err != nil {
		return nil, r.err
	}
	if limit == 0 {
		return src, nil
	}
	cut := func(c int, n int) int { return int(math.Round(uniform(rnd(rc.key, 0, 0, c)) * limit * float64(n))) }
	x0, x1 := cut(0, src.W), src.W-cut(1, src.W)
	y0, y1 := cut(2, src.H), src.H-cut(3, src.H)
	if x1 <= x0 {
		x0, x1 = min(x0, src.W-1), min(x0, src.W-1)+1
	}
	if y1 <= y0 {
		y0, y1 = min(y0, src.H-1), min(y0, src.H-1)+1
	}
	if x0 == 0 && y0 == 0 && x1 == src.W && y1 == src.H {
		return src, nil
	}
	return subImage(rc, src, x0, y0, x1-x0, y1-y0), nil
}

// opGlassBlur blurs the image as if seen through frosted glass (albumentations
// GlassBlur): a gaussian blur, every pixel replaced by a seeded random neighbour
// within a distance, and a second gaussian blur.
//
// Arguments: sigma in [0, 0.01], the gaussian's sigma as a fraction of the long edge
// (0 skips the blurs); delta in [0, 0.02], the largest displacement as a fraction of
// the long edge (0 leaves the image unchanged; at least a pixel otherwise). Example:
// {sigma: 0.001, delta: 0.005}.
func opGlassBlur(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	sigma, delta := r.num("sigma"), r.num("delta")
	if r.err != nil {
		return nil, r.err
	}
	if delta == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	long := longEdge(src)
	sg := min(sigma*long, maxFilterRadius)
	d := max(1, int(math.Round(delta*long)))
	tmp := rc.floats(len(src.Pix))
	blurred := rc.image(w, h)
	if sg > 0 {
		gaussian(blurred.Pix, src.Pix, tmp, w, h, 3, sg)
	} else {
		copy(blurred.Pix, src.Pix)
	}
	dst := rc.image(w, h)
	key := rc.key
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				bits := rnd(key, x, y, 0)
				dx := int(uniform(bits)*float64(2*d+1)) - d
				dy := int(uniform(mix64(bits))*float64(2*d+1)) - d
				sx, sy := min(max(x+dx, 0), w-1), min(max(y+dy, 0), h-1)
				i, j := 3*(y*w+x), 3*(sy*w+sx)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = blurred.Pix[j], blurred.Pix[j+1], blurred.Pix[j+2]
			}
		}
	})
	if sg > 0 {
		gaussian(dst.Pix, dst.Pix, tmp, w, h, 3, sg)
	}
	rc.release(tmp, blurred.Pix)
	return dst, nil
}

// opCropAndPad crops (negative percent) or pads (positive) every side by a fraction of
// its dimension (albumentations CropAndPad with one value for all sides), and with
// keep_size resizes the result back to the source's size (Lanczos).
//
// Arguments: percent in [-0.3, 0.3], a fraction of the width for the left and right
// sides and of the height for the top and bottom, rounded to whole pixels; mode, the
// padded border: constant (the fill grey), reflect or edge; fill in [0, 1], the display
// value of a constant border; keep_size. 0 leaves the image unchanged. Example:
// {percent: 0.1, mode: "reflect"}.
func opCropAndPad(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	pct, fill, keep := r.num("percent"), r.num("fill"), r.flag("keep_size")
	mode := r.enum("mode", "constant", "reflect", "edge")
	if r.err != nil {
		return nil, r.err
	}
	dx := int(math.Round(pct * float64(src.W)))
	dy := int(math.Round(pct * float64(src.H)))
	if dx == 0 && dy == 0 {
		return src, nil
	}
	w, h := max(1, src.W+2*dx), max(1, src.H+2*dy)
	out := padBorder(rc, src, w, h, dx, dy, mode, fill)
	if !keep || (w == src.W && h == src.H) {
		return out, nil
	}
	back := Resize(out, src.W, src.H)
	rc.release(out.Pix)
	return back, nil
}
