package engine

import "math"

// Color: saturation, vibrance, hue_shift, hsl, color_balance, black_and_white,
// split_tone. Changes of colourfulness scale a pixel's distance from its own grey (its
// Rec. 709 luminance) in linear light, so they never change luminance; hues are measured
// and rotated on display values, as in a photo editor's HSL panel.

// saturate scales the chroma of a linear pixel by k around its luminance. When k > 1
// would push a channel below 0 (out of gamut), k is reduced for that pixel to just reach
// 0, which keeps its hue and luminance instead of clipping one channel.
func saturate(r, g, b, k float32) (float32, float32, float32) {
	y := luma(r, g, b)
	if !(y > 0) {
		return r, g, b
	}
	if k > 1 {
		if mn := min3(r, g, b); mn < y {
			if l := y / (y - mn); l < k {
				k = l
			}
		}
	}
	// Rounding can leave the channel that the limit brought to 0 a hair below it.
	return nonNeg(y + (r-y)*k), nonNeg(y + (g-y)*k), nonNeg(y + (b-y)*k)
}

// opSaturation scales colourfulness uniformly.
//
// Arguments: amount in [-1, 1]; chroma is multiplied by 1 + amount around each pixel's
// luminance, so -1 gives exact greys (R = G = B = luminance) and +1 doubles chroma
// (limited per pixel at the gamut edge). Example: {amount: -0.3} for a muted look.
func opSaturation(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	k := float32(1 + amount)
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			d[i], d[i+1], d[i+2] = saturate(r, g, b, k)
		}
	}), nil
}

// Skin tones sit around this hue (display HSV, degrees); vibrance spares them.
const (
	skinHue   = 25
	skinWidth = 25
)

// opVibrance raises the saturation of muted colours more than that of vivid ones.
//
// Arguments: amount in [-1, 1]. Each pixel's chroma is scaled by 1 + amount*(1 - s),
// where s is its HSV saturation on display values, so greys and pastels move most and
// already vivid colours hardly at all. Raising vibrance spares skin: hues within 25° of
// orange-red (25°) get up to 70% less. Negative amounts mute the weak colours first.
// Example: {amount: 0.4} livens a landscape without cooking faces.
func opVibrance(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	amt := float32(amount)
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			rd, gd, bd := dispRGB(r, g, b)
			mx := max3(rd, gd, bd)
			if !(mx > 0) {
				d[i], d[i+1], d[i+2] = r, g, b
				continue
			}
			h, c := hueChroma(rd, gd, bd)
			k := amt * (1 - c/mx)
			if amt > 0 {
				d := float32(math.Abs(float64(h - skinHue)))
				d = min(d, 360-d)
				k *= 1 - 0.7*clamp01(1-d/skinWidth)
			}
			d[i], d[i+1], d[i+2] = saturate(r, g, b, 1+k)
		}
	}), nil
}

// opHueShift rotates every hue.
//
// Arguments: degrees in [-180, 180]. The rotation is HSV's on display values: it keeps
// each pixel's largest and smallest channel (so its value and saturation) and turns the
// hue, so 120 takes red to green and green to blue; greys are unchanged. Example:
// {degrees: -15} pulls oranges towards red.
func opHueShift(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	deg := r.num("degrees")
	if r.err != nil {
		return nil, r.err
	}
	if deg == 0 {
		return src, nil
	}
	shift := float32(deg)
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			rd, gd, bd := toDisp(r), toDisp(g), toDisp(b)
			h, c := hueChroma(rd, gd, bd)
			if !(c > 0) {
				d[i], d[i+1], d[i+2] = r, g, b
				continue
			}
			rd, gd, bd = withHue(h+shift, max3(rd, gd, bd), min3(rd, gd, bd))
			d[i], d[i+1], d[i+2] = fromDisp(rd), fromDisp(gd), fromDisp(bd)
		}
	}), nil
}

// hslBands maps the hsl operation's band names to indices of hslCentres, their centres
// in display HSV hue degrees.
var hslBands = map[string]int{
	"red": 0, "orange": 1, "yellow": 2, "green": 3, "aqua": 4, "blue": 5, "purple": 6, "magenta": 7,
}

var hslCentres = [8]float32{0, 30, 60, 120, 180, 240, 270, 300}

// bandWeight is how much hue h belongs to band i: 1 at its centre, falling smoothly to 0
// at the neighbouring centres. The eight weights of any hue add up to 1.
func bandWeight(i int, h float32) float32 {
	c := hslCentres[i]
	d := h - c
	if d > 180 {
		d -= 360
	} else if d <= -180 {
		d += 360
	}
	var span float32
	if d >= 0 {
		span = hslCentres[(i+1)%8] - c
	} else {
		span = c - hslCentres[(i+7)%8]
		d = -d
	}
	if span <= 0 {
		span += 360
	}
	return smoothstep(1 - d/span)
}

// opHSL adjusts one colour band.
//
// Arguments: band, one of red (0°), orange (30°), yellow (60°), green (120°), aqua
// (180°), blue (240°), purple (270°), magenta (300°); hue, saturation, lightness, each
// in [-1, 1]. A pixel belongs to the band by its display hue, fully at the band's centre
// and fading smoothly to nothing at the neighbouring bands' centres (and fading out
// towards grey, which has no hue). Within that weight w: hue turns by up to ±30°,
// saturation scales chroma by 1 + saturation*w (so -1 greys the band), lightness
// multiplies linear light by 2^(lightness*w), at most a stop either way, keeping hue and
// saturation. Example: {band: "blue", hue: 0, saturation: -0.2, lightness: -0.4} deepens
// a sky.
func opHSL(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	band := r.enum("band", "red", "orange", "yellow", "green", "aqua", "blue", "purple", "magenta")
	dh, ds, dl := r.num("hue"), r.num("saturation"), r.num("lightness")
	if r.err != nil {
		return nil, r.err
	}
	if dh == 0 && ds == 0 && dl == 0 {
		return src, nil
	}
	bi := hslBands[band]
	fh, fs, fl := float32(dh*30), float32(ds), float32(dl)
	// The lightness gain 2^(lightness*w) for weights w in steps of 1/gainSteps, where no
	// one can see a step: it saves an exp2 per pixel.
	const gainSteps = 1024
	var gain [gainSteps + 1]float32
	for i := range gain {
		gain[i] = float32(math.Exp2(dl * float64(i) / gainSteps))
	}
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			rd, gd, bd := toDisp(r), toDisp(g), toDisp(b)
			h, _ := hueChroma(rd, gd, bd)
			c := max3(clamp01(rd), clamp01(gd), clamp01(bd)) - min3(clamp01(rd), clamp01(gd), clamp01(bd))
			w := bandWeight(bi, h) * clamp01(c/hueChromaFade)
			if w == 0 {
				d[i], d[i+1], d[i+2] = r, g, b
				continue
			}
			if fh != 0 {
				rd, gd, bd = withHue(h+fh*w, max3(rd, gd, bd), min3(rd, gd, bd))
				r, g, b = fromDisp(rd), fromDisp(gd), fromDisp(bd)
			}
			if fs != 0 {
				r, g, b = saturate(r, g, b, 1+fs*w)
			}
			if fl != 0 {
				k := gain[int(w*gainSteps)]
				r, g, b = r*k, g*k, b*k
			}
			d[i], d[i+1], d[i+2] = r, g, b
		}
	}), nil
}

// colorBalanceStep is the display-value shift of an argument of 1.
const colorBalanceStep = 0.15

// opColorBalance tints shadows, midtones and highlights separately.
//
// Arguments: shadows_red, shadows_green, shadows_blue, midtones_…, highlights_…, each
// in [-1, 1]: positive pushes towards red, green or blue, negative towards cyan, magenta
// or yellow. Each range's three values form a display-value shift of up to 0.15 per
// channel, with its luma part removed so it changes colour, not brightness; the shift is
// weighted by the pixel's display luma L as (1-L)² for shadows, 2L(1-L) for midtones and
// L² for highlights, weights that always add up to 1 (so equal settings for the three
// ranges tint evenly). Example: {shadows_blue: 0.3, highlights_red: 0.2, others 0} is a
// teal-and-orange grade.
func opColorBalance(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	var zone [3][3]float32
	nonzero := false
	for z, name := range []string{"shadows", "midtones", "highlights"} {
		for c, col := range []string{"red", "green", "blue"} {
			v := r.num(name + "_" + col)
			nonzero = nonzero || v != 0
			zone[z][c] = float32(v) * colorBalanceStep
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if !nonzero {
		return src, nil
	}
	for z := range zone {
		y := luma(zone[z][0], zone[z][1], zone[z][2])
		for c := range 3 {
			zone[z][c] -= y
		}
	}
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			rd, gd, bd := toDisp(r), toDisp(g), toDisp(b)
			l := clamp01(luma(rd, gd, bd))
			ws, wm, wh := (1-l)*(1-l), 2*l*(1-l), l*l
			rd += ws*zone[0][0] + wm*zone[1][0] + wh*zone[2][0]
			gd += ws*zone[0][1] + wm*zone[1][1] + wh*zone[2][1]
			bd += ws*zone[0][2] + wm*zone[1][2] + wh*zone[2][2]
			d[i], d[i+1], d[i+2] = nonNeg(fromDisp(rd)), nonNeg(fromDisp(gd)), nonNeg(fromDisp(bd))
		}
	}), nil
}

// opBlackAndWhite converts to monochrome through a channel mix.
//
// Arguments: amount in [0, 1], the blend towards monochrome; red, green, blue in
// [-2, 2], the weights of the linear channels in the grey value (the defaults are the
// Rec. 709 luminance weights; they are used as given, not normalized, so weights adding
// up to more than 1 also brighten). A negative mix is clipped to black. Example:
// {amount: 1, red: 0.6, green: 0.35, blue: 0.05} is the "red filter" look that darkens
// blue skies.
func opBlackAndWhite(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, wr, wg, wb := r.num("amount"), r.num("red"), r.num("green"), r.num("blue")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	k, fr, fg, fb := float32(amount), float32(wr), float32(wg), float32(wb)
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			m := nonNeg(fr*r + fg*g + fb*b)
			if k == 1 {
				d[i], d[i+1], d[i+2] = m, m, m
				continue
			}
			d[i], d[i+1], d[i+2] = r+(m-r)*k, g+(m-g)*k, b+(m-b)*k
		}
	}), nil
}

// splitToneStep is the largest display-value shift of a tint at saturation 1.
const splitToneStep = 0.25

// opSplitTone tints highlights and shadows with two hues.
//
// Arguments: highlights_hue, shadows_hue in [0, 360] degrees; highlights_saturation,
// shadows_saturation in [0, 1], the tints' strengths; balance in [-1, 1]. Each tint is
// the fully saturated colour of its hue with its luma removed, added to display values
// with a strength of up to 0.25. The split between the two is a smooth step over display
// luma centred on 0.5 - 0.4*balance: positive balance moves the split down, so more of
// the image takes the highlight tint (as Lightroom's balance slider does), negative up. Pure black and
// pure white stay neutral. Example: {highlights_hue: 45, highlights_saturation: 0.3,
// shadows_hue: 210, shadows_saturation: 0.3, balance: 0}.
func opSplitTone(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	hh, hs := r.num("highlights_hue"), r.num("highlights_saturation")
	sh, ss := r.num("shadows_hue"), r.num("shadows_saturation")
	balance := r.num("balance")
	if r.err != nil {
		return nil, r.err
	}
	if hs == 0 && ss == 0 {
		return src, nil
	}
	tint := func(hue, sat float64) [3]float32 {
		r, g, b := withHue(float32(hue), 1, 0)
		y := luma(r, g, b)
		k := float32(sat) * splitToneStep
		return [3]float32{(r - y) * k, (g - y) * k, (b - y) * k}
	}
	th, ts := tint(hh, hs), tint(sh, ss)
	pivot := float32(0.5 - 0.4*balance)
	const width = 0.6
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			r, g, b := s[i], s[i+1], s[i+2]
			rd, gd, bd := toDisp(r), toDisp(g), toDisp(b)
			l := clamp01(luma(rd, gd, bd))
			wh := smoothstep((l - pivot + width/2) / width)
			ws := (1 - wh) * min(5*l, 1)
			wh *= min(5*(1-l), 1)
			rd += wh*th[0] + ws*ts[0]
			gd += wh*th[1] + ws*ts[1]
			bd += wh*th[2] + ws*ts[2]
			d[i], d[i+1], d[i+2] = nonNeg(fromDisp(rd)), nonNeg(fromDisp(gd)), nonNeg(fromDisp(bd))
		}
	}), nil
}
