package engine

import (
	"math"
	"slices"
)

// Augmentation operations of the tone and color stages added after the first set
// (ops_augment.go): auto_contrast and random_tone_curve (albumentations AutoContrast,
// RandomToneCurve), channel_dropout and fancy_pca (ChannelDropout, FancyPCA).

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
	bounds, ok := rc.pre.(*[2][3]float32)
	if !ok {
		hist := dispHistograms(src)
		fr := rc.frameOf(src)
		bounds = autoContrastBounds(&hist, fr.w*fr.h, cutoff)
	}
	lo, hi := bounds[0], bounds[1]
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

// opContrastMean scales display values about the image's mean grey (albumentations
// and torchvision ColorJitter's contrast): d * f + m * (1 - f), f = 1 + amount,
// clipped to 0..1, m the mean of the luma 0.299 R + 0.587 G + 0.114 B (OpenCV's
// RGB2GRAY, whose mean albumentations takes) over the frame.
//
// Arguments: amount in [-1, 1], the factor minus 1; 0 leaves the image unchanged.
// Example: {amount: 0.3}.
func opContrastMean(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	m, ok := rc.pre.(float32)
	if !ok {
		hist := dispHistograms(src)
		fr := rc.frameOf(src)
		m = meanGrey(&hist, fr.w*fr.h)
	}
	f := float32(1 + amount)
	return dispMap(rc, src, func(_ int, v *[3]float32) {
		for c := range 3 {
			v[c] = clamp01(v[c]*f + m*(1-f))
		}
	}), nil
}

// meanGrey is the mean luma of n pixels from their display histograms, on 0..1.
func meanGrey(hist *[3][256]int, n int) float32 {
	if n == 0 {
		return 0
	}
	var sum [3]float64
	for c := range 3 {
		for l, k := range hist[c] {
			sum[c] += float64(l * k)
		}
	}
	return float32((0.299*sum[0] + 0.587*sum[1] + 0.114*sum[2]) / float64(n) / 255)
}

// autoContrastBounds returns the display levels below and above which the cutoff
// fraction of n pixels lies, per channel.
func autoContrastBounds(hist *[3][256]int, n int, cutoff float64) *[2][3]float32 {
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
	return &[2][3]float32{lo, hi}
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
	v := fillLevel(fill)
	return mapRows(rc, src, func(d, s []float32) {
		copy(d, s)
		for i := c; i < len(d); i += 3 {
			d[i] = v
		}
	}), nil
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
