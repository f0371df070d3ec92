package engine

import (
	"math"
	"slices"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Tone: tone, contrast, curve, clahe, dehaze. Perceptual curves work on display values
// (extended sRGB, see encodeExt), where equal steps look equal; tone, clahe and dehaze
// change a pixel's luminance and keep its colour (relum), so they brighten or darken
// without shifting hue.

// Tone-range shapes on display luminance L (0 black, 1 white, above 1 for light that
// exposure pushed over white): each range's weight and the largest change in L that an
// argument of ±1 makes there.
const (
	blacksTop     = 0.25 // blacks act below this L
	blacksAmp     = 0.10
	shadowsTop    = 0.55 // shadows: a bump over [0, shadowsTop]
	shadowsAmp    = 0.15
	highlightsLo  = 0.40 // highlights: a bump over [highlightsLo, highlightsHi]
	highlightsHi  = 1.20
	highlightsAmp = 0.15
	whitesLo      = 0.65 // whites: a ramp from whitesLo to 1, constant above
	whitesAmp     = 0.15
)

// opTone moves four tonal ranges up or down.
//
// Arguments: highlights, shadows, whites, blacks, each in [-1, 1]. The change is a curve
// on display luminance L: blacks shift L by up to ±0.10 at black, fading out at L 0.25
// (so negative crushes the darkest tones and positive lifts the black point); shadows
// add a smooth bump of up to ±0.15 peaking at L 0.275; highlights a bump of up to ±0.15
// peaking at L 0.8 and reaching past white, so negative recovers values that exposure
// pushed over 1; whites shift everything above L 0.65 by up to ±0.15. The curve is made
// non-decreasing, so no combination inverts tones. The new luminance is applied with the
// pixel's colour kept. Example: {highlights: -0.6, shadows: 0.4, whites: 0, blacks: -0.1}
// is the classic "recover the sky, open the foreground".
func opTone(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	hl, sh, wh, bl := r.num("highlights"), r.num("shadows"), r.num("whites"), r.num("blacks")
	if r.err != nil {
		return nil, r.err
	}
	if hl == 0 && sh == 0 && wh == 0 && bl == 0 {
		return src, nil
	}
	curve := toneCurve(hl, sh, wh, bl)
	lut := cachedLUT("tone", [4]float64{hl, sh, wh, bl}, func(y float64) float64 {
		return decodeExt(max(curve(encodeExt(y)), 0))
	})
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			y := luma(r, g, b)
			d[i], d[i+1], d[i+2] = relum(r, g, b, y, lut.at(y))
		}
	}), nil
}

// toneCurve returns opTone's curve on display luminance.
func toneCurve(hl, sh, wh, bl float64) func(float64) float64 {
	const (
		lmax  = 3.0
		steps = 3072
	)
	raw := func(l float64) float64 {
		d := 0.0
		if l < blacksTop {
			t := 1 - l/blacksTop
			d += bl * blacksAmp * t * t
		}
		if l < shadowsTop {
			s := math.Sin(math.Pi * l / shadowsTop)
			d += sh * shadowsAmp * s * s
		}
		if l > highlightsLo && l < highlightsHi {
			s := math.Sin(math.Pi * (l - highlightsLo) / (highlightsHi - highlightsLo))
			d += hl * highlightsAmp * s * s
		}
		t := min(max((l-whitesLo)/(1-whitesLo), 0), 1)
		d += wh * whitesAmp * t * t * (3 - 2*t)
		return l + d
	}
	tab := make([]float64, steps+1)
	for i := range tab {
		tab[i] = raw(float64(i) * lmax / steps)
		if i > 0 {
			tab[i] = max(tab[i], tab[i-1]) // never invert tones
		}
	}
	return func(l float64) float64 {
		switch {
		case l < 0:
			return tab[0] + l
		case l >= lmax:
			return tab[steps] + l - lmax
		}
		x := l * steps / lmax
		i := int(x)
		return tab[i] + (tab[i+1]-tab[i])*(x-float64(i))
	}
}

// middleGrey is 18% linear grey as a display value, the pivot of contrast.
var middleGrey = float32(encodeExt(0.18))

// opContrast applies an S-curve around middle grey to each channel.
//
// Arguments: amount in [-1, 1]. On display values d in [0, 1] with pivot p (18% grey,
// d ≈ 0.46), the curve is p*(d/p)^g below p and 1-(1-p)*((1-d)/(1-p))^g above, with
// g = 1 + amount: the slope at middle grey is 1 + amount, black and white stay put, and
// -1 flattens everything to middle grey. Values over white (above 1) pass unchanged, so
// a later tone edit can still recover them. Per channel, like a photographer's contrast
// slider or a film curve, so added contrast also deepens colour a little.
// Example: {amount: 0.3}.
func opContrast(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	gamma := 1 + amount
	p := float64(middleGrey)
	lut := cachedLUT("contrast", [4]float64{amount}, func(v float64) float64 {
		if gamma <= 0 {
			return 0.18
		}
		if v > 1 {
			return v
		}
		d := max(encodeExt(v), 0)
		if d < p {
			d = p * math.Pow(d/p, gamma)
		} else {
			d = 1 - (1-p)*math.Pow((1-d)/(1-p), gamma)
		}
		return decodeExt(d)
	})
	return mapChannels(rc, src, lut, 7), nil
}

// opCurve maps display values through a tone curve.
//
// Arguments: points, 2 to 16 (input, output) pairs in [0, 1] with strictly increasing
// inputs; channel, one of rgb (the same curve on all three), red, green or blue.
// The curve interpolates the points with a monotone cubic (Fritsch-Carlson), so it never
// overshoots between them, and is flat before the first point and after the last, as in
// a photo editor: points [[0, 0.1], [1, 0.9]] fade blacks and whites. Values over white
// take the curve's end value. Example: {points: [[0, 0], [0.25, 0.2], [0.75, 0.8],
// [1, 1]], channel: "rgb"} is a gentle S.
func opCurve(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	pts := r.points("points")
	ch := r.enum("channel", "rgb", "red", "green", "blue")
	if r.err != nil {
		return nil, r.err
	}
	if len(pts) < 2 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "curve: %d points, need at least 2", len(pts))
	}
	identity := pts[0][0] == 0 && pts[len(pts)-1][0] == 1
	for i, p := range pts {
		if i > 0 && !(p[0] > pts[i-1][0]) {
			return nil, darkroom.Errorf(darkroom.InvalidInput, "curve: point %d input %v does not increase", i, p[0])
		}
		identity = identity && p[0] == p[1]
	}
	if identity {
		return src, nil
	}
	curve := monotoneCubic(pts)
	lut := newFnLUT(func(v float64) float64 { return decodeExt(curve(encodeExt(v))) })
	mask := map[string]int{"rgb": 7, "red": 1, "green": 2, "blue": 4}[ch]
	return mapChannels(rc, src, lut, mask), nil
}

// monotoneCubic returns the Fritsch-Carlson monotone cubic through pts (inputs strictly
// increasing), constant outside them.
func monotoneCubic(pts [][2]float64) func(float64) float64 {
	n := len(pts)
	xs, ys := make([]float64, n), make([]float64, n)
	for i, p := range pts {
		xs[i], ys[i] = p[0], p[1]
	}
	d := make([]float64, n-1)
	for i := range d {
		d[i] = (ys[i+1] - ys[i]) / (xs[i+1] - xs[i])
	}
	m := make([]float64, n)
	m[0], m[n-1] = d[0], d[n-2]
	for i := 1; i < n-1; i++ {
		if d[i-1]*d[i] > 0 {
			m[i] = (d[i-1] + d[i]) / 2
		}
	}
	for i := range d {
		if d[i] == 0 {
			m[i], m[i+1] = 0, 0
			continue
		}
		al, be := m[i]/d[i], m[i+1]/d[i]
		if s := al*al + be*be; s > 9 {
			t := 3 / math.Sqrt(s)
			m[i], m[i+1] = t*al*d[i], t*be*d[i]
		}
	}
	return func(x float64) float64 {
		if x <= xs[0] {
			return ys[0]
		}
		if x >= xs[n-1] {
			return ys[n-1]
		}
		i, _ := slices.BinarySearch(xs, x)
		i = max(i-1, 0)
		h := xs[i+1] - xs[i]
		t := (x - xs[i]) / h
		t2, t3 := t*t, t*t*t
		return (2*t3-3*t2+1)*ys[i] + (t3-2*t2+t)*h*m[i] + (-2*t3+3*t2)*ys[i+1] + (t3-t2)*h*m[i+1]
	}
}

// opCLAHE equalizes lightness tile by tile with a clipped histogram.
//
// Arguments: amount in [0, 1], the blend of the equalized lightness; clip_limit in
// [1, 16], the most any histogram bin may hold relative to a flat histogram (1 changes
// nothing, larger allows more contrast); tiles in [2, 32], the number of tiles along the
// long edge (the short edge gets as many as keep them square). Lightness is display
// luminance; each tile's 256-bin histogram is clipped, the excess spread evenly, and the
// resulting mappings are interpolated bilinearly between tile centres so no seams show.
// The new lightness is applied with each pixel's colour kept. Example: {amount: 0.5,
// clip_limit: 2, tiles: 8}.
func opCLAHE(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, clip, tiles := r.num("amount"), r.num("clip_limit"), r.integer("tiles")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	if tiles < 1 || !(clip > 0) {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "clahe: tiles %d and clip_limit %v must be positive", tiles, clip)
	}
	fr := rc.frameOf(src)
	nx, ny := claheTiles(fr.w, fr.h, tiles)
	w, h := src.W, src.H
	light := claheLight(rc, src)
	maps, ok := rc.pre.([][claheBins]float32)
	if !ok {
		hist := make([]float64, nx*ny*claheBins)
		claheCount(hist, light, w, 0, h, h, nx, ny)
		maps = claheMaps(hist, w, h, nx, ny, clip)
	}
	// Per column: the two tiles whose centres surround it and the weight of the second.
	tx0, tx1, ax := tileInterp(w, nx)
	dst := rc.image(w, h)
	amt := float32(amount)
	const bins = claheBins
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			ty0, ty1, ay := tileInterp1(fr.y0+y, fr.h, ny)
			for x := range w {
				p := y*w + x
				l := light[p]
				lc := clamp01(l)
				bp := lc*bins - 0.5
				b0 := min(max(int(bp), 0), bins-1)
				b1 := min(b0+1, bins-1)
				bf := clamp01(bp - float32(b0))
				at := func(t int) float32 {
					m := &maps[t]
					return m[b0] + (m[b1]-m[b0])*bf
				}
				top := at(ty0*nx+tx0[x]) + (at(ty0*nx+tx1[x])-at(ty0*nx+tx0[x]))*ax[x]
				bot := at(ty1*nx+tx0[x]) + (at(ty1*nx+tx1[x])-at(ty1*nx+tx0[x]))*ax[x]
				eq := top + (bot-top)*ay
				i := 3 * p
				rr, gg, bb := src.Pix[i], src.Pix[i+1], src.Pix[i+2]
				yl := luma(rr, gg, bb)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = relum(rr, gg, bb, yl, fromDisp(l+amt*(eq-lc)))
			}
		}
	})
	rc.release(light)
	return dst, nil
}

// claheBins is the number of levels of CLAHE's histograms.
const claheBins = 256

// claheTiles is the grid of tiles CLAHE cuts a w x h frame into.
func claheTiles(w, h, tiles int) (nx, ny int) {
	nx, ny = tiles, tiles
	if w >= h {
		ny = max(1, int(math.Round(float64(tiles)*float64(h)/float64(w))))
	} else {
		nx = max(1, int(math.Round(float64(tiles)*float64(w)/float64(h))))
	}
	return min(nx, w), min(ny, h)
}

// claheLight returns the display luma CLAHE equalizes, pixel by pixel.
func claheLight(rc *runCtx, src *Image) []float32 {
	light := rc.floats(src.W * src.H)
	parallelRows(src.H, func(lo, hi int) {
		for p := lo * src.W; p < hi*src.W; p++ {
			light[p] = toDisp(luma(src.Pix[3*p], src.Pix[3*p+1], src.Pix[3*p+2]))
		}
	})
	return light
}

// claheCount adds to hist (nx*ny histograms of claheBins) the levels of light, rows
// [y0, y0+n) of a w x h frame. Counts do not depend on how the rows are cut.
func claheCount(hist []float64, light []float32, w, y0, n, h, nx, ny int) {
	for y := y0; y < y0+n; y++ {
		ty := min(y*ny/h, ny-1)
		for ty > 0 && y < ty*h/ny {
			ty--
		}
		for ty < ny-1 && y >= (ty+1)*h/ny {
			ty++
		}
		row := light[(y-y0)*w : (y-y0+1)*w]
		for tx := range nx {
			x0, x1 := tx*w/nx, (tx+1)*w/nx
			hs := hist[(ty*nx+tx)*claheBins : (ty*nx+tx+1)*claheBins]
			for _, l := range row[x0:x1] {
				hs[min(int(clamp01(l)*claheBins), claheBins-1)]++
			}
		}
	}
}

// claheMaps turns the tiles' histograms into their clipped equalization maps.
func claheMaps(hist []float64, w, h, nx, ny int, clip float64) [][claheBins]float32 {
	const bins = claheBins
	maps := make([][bins]float32, nx*ny)
	for ty := range ny {
		y0, y1 := ty*h/ny, (ty+1)*h/ny
		for tx := range nx {
			x0, x1 := tx*w/nx, (tx+1)*w/nx
			hs := hist[(ty*nx+tx)*bins : (ty*nx+tx+1)*bins]
			total := float64((y1 - y0) * (x1 - x0))
			limit := clip * total / bins
			var excess float64
			for i, c := range hs {
				if c > limit {
					excess += c - limit
					hs[i] = limit
				}
			}
			m := &maps[ty*nx+tx]
			var cum float64
			for i, c := range hs {
				c += excess / bins
				m[i] = float32((cum + c/2) / total)
				cum += c
			}
		}
	}
	return maps
}

// tileInterp returns tileInterp1 for every position in [0, n).
func tileInterp(n, tiles int) (t0, t1 []int, frac []float32) {
	t0, t1, frac = make([]int, n), make([]int, n), make([]float32, n)
	for i := range n {
		t0[i], t1[i], frac[i] = tileInterp1(i, n, tiles)
	}
	return t0, t1, frac
}

// tileInterp1 returns the tiles whose centres surround pixel i of n split into tiles
// equal tiles, and the weight of the second.
func tileInterp1(i, n, tiles int) (int, int, float32) {
	f := (float64(i)+0.5)*float64(tiles)/float64(n) - 0.5
	if f <= 0 {
		return 0, 0, 0
	}
	t := int(f)
	if t >= tiles-1 {
		return tiles - 1, tiles - 1, 0
	}
	return t, t + 1, float32(f - float64(t))
}

// dehazeWorkEdge is the long edge, in pixels, at which dehaze estimates the haze. The
// haze varies slowly across a scene, so a small estimate loses nothing, and estimating
// at the same size whatever the image's size makes a preview and the export agree.
const dehazeWorkEdge = 512

// opDehaze removes or adds atmospheric haze.
//
// Arguments: amount in [-1, 1]. Haze follows I = J*t + A*(1-t): the scene J seen
// through a veil of airlight A with transmission t. The haze 1-t is estimated with the
// dark-channel prior (He, Sun and Tang, 2009: the minimum over a patch of 1.2% of the
// long edge of the channels relative to A, times 0.95) on a copy averaged down to about
// 512 px, and refined with a guided filter so it follows the full-size image's edges.
// A is the mean colour of the 0.1% haziest pixels. Positive amounts solve for J with
// that haze removed in proportion to amount; negative amounts veil the image by
// |amount| * (35% + half the estimated haze) towards A, so even a clear photo fogs.
// Works in linear light, where the haze model holds. Example: {amount: 0.4}.
func opDehaze(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h, n := src.W, src.H, src.W*src.H
	fr := rc.frameOf(src)
	st, ok := rc.pre.(*dehazeState)
	if !ok {
		sub := dehazeSub(fr)
		small, sw, sh := shrink(rc, src.Pix, w, h, 3, sub)
		st = dehazeEstimate(rc, small, sw, sh, sub)
		rc.release(small)
	}
	air := st.air
	full := rc.floats(n)
	parallelRows(h, func(lo, hi int) {
		for p := lo * w; p < hi*w; p++ {
			full[p] = clamp01(luma(src.Pix[3*p], src.Pix[3*p+1], src.Pix[3*p+2]))
		}
	})
	haze := rc.floats(n)
	applyCoeffsRows(haze, full, st.ca, st.cb, w, fr.y0, h, st.sw, st.sh, 1, st.sub)
	dst := rc.image(w, h)
	amt := float32(amount)
	parallelRows(h, func(lo, hi int) {
		for p := lo * w; p < hi*w; p++ {
			hz := clamp01(haze[p])
			for c := range 3 {
				i := 3*p + c
				v := src.Pix[i]
				if amt > 0 {
					t := max(1-amt*hz, 0.1)
					v = (v-air[c])/t + air[c]
				} else {
					k := -amt * (0.35 + 0.5*hz)
					v = v*(1-k) + air[c]*k
				}
				dst.Pix[i] = nonNeg(v)
			}
		}
	})
	rc.release(full, haze)
	if !ok {
		rc.release(st.ca, st.cb)
	}
	return dst, nil
}

// dehazeSub is the block size dehaze averages a frame down by.
func dehazeSub(fr frame) int {
	return max(1, int(math.Ceil(float64(max(fr.w, fr.h))/dehazeWorkEdge)))
}

// dehazeState is what dehaze estimates on the frame averaged down: the airlight and
// the guided filter's coefficients on the sw x sh blocks of sub pixels.
type dehazeState struct {
	air         [3]float32
	ca, cb      []float32
	sw, sh, sub int
}

// dehazeEstimate estimates the haze from small, the frame's sub x sub block averages.
func dehazeEstimate(rc *runCtx, small []float32, sw, sh, sub int) *dehazeState {
	const omega = 0.95
	sn := sw * sh
	patch := max(1, int(math.Round(0.012*float64(max(sw, sh)))))
	dark, guide := rc.floats(sn), rc.floats(sn)
	for p := range sn {
		dark[p] = clamp01(min(small[3*p], small[3*p+1], small[3*p+2]))
	}
	minFilter(rc, dark, dark, sw, sh, patch)
	air := airlight(small, dark)
	// The dark channel of the image relative to the airlight gives the haze.
	for p := range sn {
		i := 3 * p
		dark[p] = clamp01(min(small[i]/air[0], small[i+1]/air[1], small[i+2]/air[2]))
		guide[p] = clamp01(luma(small[i], small[i+1], small[i+2]))
	}
	minFilter(rc, dark, dark, sw, sh, patch)
	for p := range dark {
		dark[p] *= omega
	}
	ca, cb := guidedCoeffs(rc, guide, dark, sw, sh, 1, 4*patch, 1e-3)
	rc.release(dark, guide)
	return &dehazeState{air: air, ca: ca, cb: cb, sw: sw, sh: sh, sub: sub}
}

// airlight returns the mean colour of the 0.1% of pixels with the highest dark channel,
// each channel at least 0.05 so dividing by it stays tame.
func airlight(pix, dark []float32) [3]float32 {
	const bins = 4096
	var hist [bins]int
	for _, d := range dark {
		hist[min(int(d*bins), bins-1)]++
	}
	want := max(1, len(dark)/1000)
	cut, count := bins-1, 0
	for ; cut > 0; cut-- {
		count += hist[cut]
		if count >= want {
			break
		}
	}
	var sum [3]float64
	var k int
	for p, d := range dark {
		if min(int(d*bins), bins-1) >= cut {
			for c := range 3 {
				sum[c] += float64(clamp01(pix[3*p+c]))
			}
			k++
		}
	}
	var air [3]float32
	for c := range air {
		air[c] = max(float32(sum[c]/float64(max(k, 1))), 0.05)
	}
	return air
}
