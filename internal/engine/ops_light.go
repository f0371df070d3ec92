package engine

import "math"

// Light: exposure and white balance, both plain per-channel gains on linear light, which
// is what a change of exposure time or of the light's colour does to a sensor.

// opExposure scales linear light by 2^ev.
//
// Arguments: ev in [-5, 5] stops. +1 EV doubles every linear value exactly (2^ev is
// exact for whole stops); values above 1 are kept, so a later tone edit can still
// recover them. Example: {ev: 0.7}.
func opExposure(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	ev := r.num("ev")
	if r.err != nil {
		return nil, r.err
	}
	if ev == 0 {
		return src, nil
	}
	k := float32(math.Exp2(ev))
	return mapRows(rc, src, func(d, s []float32) { scaleValues(d, s, k) }), nil
}

// scaleValues writes s[i]*k to d[i] (d may be s); eight at a time where the CPU
// has AVX, to the same values.
func scaleValues(d, s []float32, k float32) {
	d = d[:len(s)]
	if useAVX && len(s) >= 8 {
		m := len(s) &^ 7
		scaleAVX(&d[0], &s[0], m, k)
		d, s = d[m:], s[m:]
	}
	for i, v := range s {
		d[i] = v * k
	}
}

// opWhiteBalance shifts the colour of the light.
//
// Arguments: temperature in [-4000, 4000] kelvin, tint in [-1, 1].
// The photo is taken as shot under 6500 K daylight; temperature T re-balances it as if
// the light had been 6500+T K, that is it multiplies each channel by
// white(6500 K) / white(6500+T K), where white(K) is the linear sRGB colour of a
// blackbody at K (Kim et al.'s Planckian locus). Positive T therefore warms (boosts
// red, cuts blue) the way a photographer's temperature slider does, and -4000 (a
// 2500 K tungsten assumption) turns a daylight photo strongly blue. Tint multiplies
// green by 2^(-tint/2): positive is magenta, negative green. The gains are scaled so
// that a grey keeps its luminance, so white balance does not change brightness.
// Example: {temperature: 800, tint: 0.1} warms a shade-blue portrait.
func opWhiteBalance(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	temp, tint := r.num("temperature"), r.num("tint")
	if r.err != nil {
		return nil, r.err
	}
	if temp == 0 && tint == 0 {
		return src, nil
	}
	g := whiteBalanceGains(temp, tint)
	gr, gg, gb := float32(g[0]), float32(g[1]), float32(g[2])
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		s := src.Pix[3*lo*src.W : 3*hi*src.W]
		d := dst.Pix[3*lo*src.W : 3*hi*src.W]
		for i := 0; i+2 < len(s); i += 3 {
			d[i], d[i+1], d[i+2] = s[i]*gr, s[i+1]*gg, s[i+2]*gb
		}
	})
	return dst, nil
}

// whiteBalanceGains returns the channel gains of opWhiteBalance.
func whiteBalanceGains(temp, tint float64) [3]float64 {
	ref := planckRGB(6500)
	shot := planckRGB(min(max(6500+temp, 2000), 25000))
	var g [3]float64
	for c := range g {
		g[c] = ref[c] / shot[c]
	}
	g[1] *= math.Exp2(-tint / 2)
	y := lumR*g[0] + lumG*g[1] + lumB*g[2]
	for c := range g {
		g[c] /= y
	}
	return g
}

// planckRGB returns the linear sRGB colour (luminance 1) of a blackbody at k kelvin,
// k in [2000, 25000] (below 2000 K its blue turns negative), from the cubic spline fit of Kim et al. (2002).
func planckRGB(k float64) [3]float64 {
	k2, k3 := k*k, k*k*k
	var x float64
	if k <= 4000 {
		x = -0.2661239e9/k3 - 0.2343589e6/k2 + 0.8776956e3/k + 0.179910
	} else {
		x = -3.0258469e9/k3 + 2.1070379e6/k2 + 0.2226347e3/k + 0.240390
	}
	x2, x3 := x*x, x*x*x
	var y float64
	switch {
	case k <= 2222:
		y = -1.1063814*x3 - 1.34811020*x2 + 2.18555832*x - 0.20219683
	case k <= 4000:
		y = -0.9549476*x3 - 1.37418593*x2 + 2.09137015*x - 0.16748867
	default:
		y = 3.0817580*x3 - 5.87338670*x2 + 3.75112997*x - 0.37001483
	}
	X, Y, Z := x/y, 1.0, (1-x-y)/y
	return [3]float64{
		3.2404542*X - 1.5371385*Y - 0.4985314*Z,
		-0.9692660*X + 1.8760108*Y + 0.0415560*Z,
		0.0556434*X - 0.2040259*Y + 1.0572252*Z,
	}
}
