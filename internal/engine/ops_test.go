package engine

import (
	"maps"
	"math"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Each operation at a non-neutral value changes the image the way a photographer would
// expect: one or more checks per operation, on real photos or on synthetic images
// where a real photo could not tell.

// opMeanWhere is the mean of f over the pixels of m whose display luma in src satisfies
// sel.
func opMeanWhere(src, m *Image, sel func(l float64) bool, f func(r, g, b float64) float64) float64 {
	l := opLuma(src)
	var s float64
	var n int
	for p := range l {
		if sel(l[p]) {
			s += f(float64(m.Pix[3*p]), float64(m.Pix[3*p+1]), float64(m.Pix[3*p+2]))
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

func opLumaOf(r, g, b float64) float64 {
	return float64(toDisp(luma(float32(r), float32(g), float32(b))))
}

func opChroma(r, g, b float64) float64 {
	d := func(v float64) float64 { return float64(clamp01(toDisp(float32(v)))) }
	return max(d(r), d(g), d(b)) - min(d(r), d(g), d(b))
}

// opBandEnergy is the mean squared difference between display luma and its box mean
// over radius r: the energy of detail finer than r.
func opBandEnergy(m *Image, r int) float64 {
	l := opLuma(m)
	f := make([]float32, len(l))
	for i, v := range l {
		f[i] = float32(v)
	}
	b, tmp := make([]float32, len(f)), make([]float32, len(f))
	boxBlur(b, f, tmp, m.W, m.H, 1, r)
	var s float64
	for i := range f {
		d := float64(f[i] - b[i])
		s += d * d
	}
	return s / float64(len(f))
}

func opExpect(t *testing.T, cond bool, format string, a ...any) {
	t.Helper()
	if !cond {
		t.Errorf(format, a...)
	}
}

func TestOpsChangeInExpectedDirection(t *testing.T) {
	coffee := opPhoto(t, "coffee")
	chelsea := opPhoto(t, "chelsea")
	astronaut := opPhoto(t, "astronaut")
	render := func(t *testing.T, src *Image, op string, set map[string]any) *Image {
		t.Helper()
		return opRender(t, src, 11, opEdit(op, opArgs(t, op, set)))
	}
	dark := func(l float64) bool { return l < 0.25 }
	bright := func(l float64) bool { return l > 0.65 && l < 0.97 }
	all := func(float64) bool { return true }
	ratio := func(a, b int) func(r, g, bl float64) float64 {
		return func(r, g, bl float64) float64 { c := []float64{r, g, bl}; return c[a] / (c[b] + 1e-4) }
	}
	_, coffeeStd := opStats(opLuma(coffee))

	tests := map[string]func(t *testing.T){
		"random_crop": func(t *testing.T) {
			out := render(t, coffee, "random_crop", map[string]any{"scale": 0.25})
			opExpect(t, out.W == 300 && out.H == 200, "scale 0.25 of 600x400: %dx%d, want 300x200", out.W, out.H)
			found := false
			for y0 := 0; y0+out.H <= coffee.H && !found; y0++ {
				for x0 := 0; x0+out.W <= coffee.W && !found; x0++ {
					found = opSubEqual(coffee, out, x0, y0)
				}
			}
			opExpect(t, found, "the crop is not a part of the source")
			kept := render(t, coffee, "random_crop", map[string]any{"scale": 0.25, "keep_size": true})
			opExpect(t, kept.W == coffee.W && kept.H == coffee.H, "keep_size: %dx%d, want the source's 600x400", kept.W, kept.H)
			// albumentations' RandomCrop(height=224, width=256): the size in
			// pixels from fractions of the width and height, whatever the scale.
			sized := render(t, coffee, "random_crop", map[string]any{"scale": 0.25, "width": 256.0 / 600, "height": 224.0 / 400})
			opExpect(t, sized.W == 256 && sized.H == 224, "width 256/600, height 224/400: %dx%d, want 256x224", sized.W, sized.H)
			found = false
			for y0 := 0; y0+sized.H <= coffee.H && !found; y0++ {
				for x0 := 0; x0+sized.W <= coffee.W && !found; x0++ {
					found = opSubEqual(coffee, sized, x0, y0)
				}
			}
			opExpect(t, found, "the sized crop is not a part of the source")
			// RandomResizedCrop(height=224, width=224): resized to out_width x out_height.
			out224 := render(t, coffee, "random_crop", map[string]any{"scale": 0.5, "keep_size": true, "out_width": 224.0 / 600, "out_height": 224.0 / 400})
			opExpect(t, out224.W == 224 && out224.H == 224, "out 224/600 x 224/400: %dx%d, want 224x224", out224.W, out224.H)
			// albumentations' RandomSizedCrop(min_max_height=(250, 250), height=128,
			// width=96, w2h_ratio=1.33): a crop 250 px high and int(250 * 1.33) = 332
			// wide, resized to 96x128; without keep_size the crop itself, a part of
			// the source.
			rsc := map[string]any{"height": 250.0 / 400, "aspect": 1.33, "keep_size": true, "out_width": 96.0 / 600, "out_height": 128.0 / 400}
			sizedOut := render(t, coffee, "random_crop", rsc)
			opExpect(t, sizedOut.W == 96 && sizedOut.H == 128, "RandomSizedCrop to 96x128: %dx%d", sizedOut.W, sizedOut.H)
			rsc["keep_size"] = false
			raw := render(t, coffee, "random_crop", rsc)
			opExpect(t, raw.W == 332 && raw.H == 250, "height 250/400 at aspect 1.33: %dx%d, want 332x250", raw.W, raw.H)
			found = false
			for y0 := 0; y0+raw.H <= coffee.H && !found; y0++ {
				for x0 := 0; x0+raw.W <= coffee.W && !found; x0++ {
					found = opSubEqual(coffee, raw, x0, y0)
				}
			}
			opExpect(t, found, "the RandomSizedCrop crop is not a part of the source")
			// A crop wider than the image is refused, as albumentations refuses it.
			_, err := Render(coffee, []Edit{opEdit("random_crop", opArgs(t, "random_crop", map[string]any{"height": 1.0, "aspect": 2.0}))}, RenderOptions{})
			opExpect(t, darkroom.Code(err) == darkroom.InvalidInput, "a 800 px wide crop of a 600 px wide image: %v, want invalid_input", err)
		},
		"scale factor_y": func(t *testing.T) {
			// albumentations' Resize(height=300, width=320) of 600x400.
			out := render(t, coffee, "scale", map[string]any{"factor": 320.0 / 600, "factor_y": 300.0 / 400, "round": true})
			opExpect(t, out.W == 320 && out.H == 300, "factor 320/600, factor_y 300/400: %dx%d, want 320x300", out.W, out.H)
			same := render(t, coffee, "scale", map[string]any{"factor": 0.5, "factor_y": 0.0})
			opExpect(t, same.W == 300 && same.H == 200, "factor_y 0 is factor's: %dx%d, want 300x200", same.W, same.H)
		},
		"rotate": func(t *testing.T) {
			out := render(t, coffee, "rotate", map[string]any{"angle": 12.0})
			opExpect(t, out.W == coffee.W && out.H == coffee.H, "rotate 12 keeps the canvas: %dx%d", out.W, out.H)
			opExpect(t, out.Pix[0] == 0 && out.Pix[1] == 0 && out.Pix[2] == 0, "rotate 12: top left corner is not black")
			c, oc := 3*(200*600+300), 3*(200*600+300)
			opExpect(t, math.Abs(float64(out.Pix[oc]-coffee.Pix[c])) < 0.05, "rotate 12 moved the centre")
			ac := render(t, coffee, "rotate", map[string]any{"angle": 12.0, "auto_crop": true})
			opExpect(t, ac.W < coffee.W && ac.H < coffee.H, "auto_crop: %dx%d is not smaller than 600x400", ac.W, ac.H)
			opExpect(t, math.Abs(float64(ac.W)/float64(ac.H)-1.5) < 0.02, "auto_crop changed the aspect ratio: %dx%d", ac.W, ac.H)
			for _, p := range [][2]int{{0, 0}, {ac.W - 1, 0}, {0, ac.H - 1}, {ac.W - 1, ac.H - 1}} {
				i := 3 * (p[1]*ac.W + p[0])
				opExpect(t, ac.Pix[i]+ac.Pix[i+1]+ac.Pix[i+2] > 0.002, "auto_crop corner %v is black", p)
			}
			// A clockwise turn moves what was right of centre downwards.
			stripe := opFlat(101, 101, 0, 0, 0)
			for x := 60; x < 100; x++ {
				stripe.Pix[3*(50*101+x)] = 1
			}
			turned := render(t, stripe, "rotate", map[string]any{"angle": 30.0})
			below := turned.Pix[3*(70*101+84)] // 40 px along 30 degrees below the row
			above := turned.Pix[3*(30*101+84)]
			opExpect(t, below > 0.5 && above < 0.01, "rotate 30 is not clockwise: below %v, above %v", below, above)
		},
		"flip": func(t *testing.T) {
			out := render(t, chelsea, "flip", map[string]any{"horizontal": true})
			opExpect(t, opSubEqual(opMirror(chelsea), out, 0, 0), "horizontal flip is not a mirror image")
		},
		"white_balance": func(t *testing.T) {
			base := opMeanWhere(coffee, coffee, all, ratio(0, 2))
			warm := opMeanWhere(coffee, render(t, coffee, "white_balance", map[string]any{"temperature": 1500.0}), all, ratio(0, 2))
			cool := opMeanWhere(coffee, render(t, coffee, "white_balance", map[string]any{"temperature": -1500.0}), all, ratio(0, 2))
			opExpect(t, warm > base*1.1 && cool < base/1.1, "R/B: warm %v, base %v, cool %v", warm, base, cool)
			gOf := func(r, g, b float64) float64 { return g / (r + b + 1e-4) }
			mag := opMeanWhere(coffee, render(t, coffee, "white_balance", map[string]any{"tint": 0.5}), all, gOf)
			opExpect(t, mag < opMeanWhere(coffee, coffee, all, gOf), "tint +0.5 did not move towards magenta")
			grey := opFlat(4, 4, 0.2, 0.2, 0.2)
			g := render(t, grey, "white_balance", map[string]any{"temperature": 3000.0, "tint": -0.4})
			opExpect(t, math.Abs(float64(luma(g.Pix[0], g.Pix[1], g.Pix[2]))-0.2) < 1e-5, "white balance changed a grey's luminance")
		},
		"tone": func(t *testing.T) {
			lum := func(r, g, b float64) float64 { return opLumaOf(r, g, b) }
			for _, tc := range []struct {
				arg  string
				v    float64
				sel  func(float64) bool
				up   bool
				name string
			}{
				{"shadows", 1, func(l float64) bool { return l > 0.1 && l < 0.4 }, true, "shadows +1 lifts dark tones"},
				{"shadows", -1, func(l float64) bool { return l > 0.1 && l < 0.4 }, false, "shadows -1 darkens dark tones"},
				{"highlights", -1, bright, false, "highlights -1 darkens bright tones"},
				{"highlights", 1, func(l float64) bool { return l > 0.6 && l < 0.9 }, true, "highlights +1 brightens bright tones"},
				{"whites", 1, func(l float64) bool { return l > 0.75 && l < 0.9 }, true, "whites +1 brightens the brightest"},
				{"blacks", -1, func(l float64) bool { return l > 0.02 && l < 0.15 }, false, "blacks -1 deepens the darkest"},
			} {
				before := opMeanWhere(coffee, coffee, tc.sel, lum)
				after := opMeanWhere(coffee, render(t, coffee, "tone", map[string]any{tc.arg: tc.v}), tc.sel, lum)
				opExpect(t, (after > before+0.01) == tc.up && math.Abs(after-before) > 0.01, "%s: mean luma %v -> %v", tc.name, before, after)
			}
			// Shadows leave highlights nearly alone and the other way round.
			sh := render(t, coffee, "tone", map[string]any{"shadows": 1.0})
			opExpect(t, math.Abs(opMeanWhere(coffee, sh, func(l float64) bool { return l > 0.8 }, lum)-opMeanWhere(coffee, coffee, func(l float64) bool { return l > 0.8 }, lum)) < 0.005,
				"shadows +1 moved the highlights")
			// Highlights -1 recovers detail that exposure pushed over white.
			over := opRender(t, coffee, 0, opEdit("exposure", Args{"ev": 1.5}), opEdit("tone", opArgs(t, "tone", map[string]any{"highlights": -1.0, "whites": -1.0})))
			clipped := 0
			for _, v := range over.Pix {
				if v >= 1 {
					clipped++
				}
			}
			plain := opRender(t, coffee, 0, opEdit("exposure", Args{"ev": 1.5}))
			plainClipped := 0
			for _, v := range plain.Pix {
				if v >= 1 {
					plainClipped++
				}
			}
			opExpect(t, clipped < plainClipped/2, "highlight recovery: %d clipped values, %d without it", clipped, plainClipped)
		},
		"tone curve never inverts": func(t *testing.T) {
			for _, v := range [][4]float64{{1, -1, 1, 1}, {-1, 1, -1, -1}, {1, 1, 1, 1}, {-1, -1, -1, -1}, {0, -1, 0, 1}} {
				c := toneCurve(v[0], v[1], v[2], v[3])
				prev := math.Inf(-1)
				for i := 0; i <= 4000; i++ {
					y := c(float64(i) / 1000)
					if y < prev {
						t.Errorf("tone curve %v decreases at %v", v, float64(i)/1000)
						break
					}
					prev = y
				}
			}
		},
		"contrast": func(t *testing.T) {
			_, s := opStats(opLuma(render(t, coffee, "contrast", map[string]any{"amount": 0.5})))
			opExpect(t, s > coffeeStd*1.1, "contrast +0.5: luma deviation %v, was %v", s, coffeeStd)
			_, s = opStats(opLuma(render(t, coffee, "contrast", map[string]any{"amount": -0.5})))
			opExpect(t, s < coffeeStd*0.9, "contrast -0.5: luma deviation %v, was %v", s, coffeeStd)
			flat := render(t, coffee, "contrast", map[string]any{"amount": -1.0})
			for i, v := range flat.Pix {
				if v != 0.18 {
					t.Errorf("contrast -1 leaves %v at %d, want middle grey 0.18 everywhere", v, i)
					break
				}
			}
		},
		"curve": func(t *testing.T) {
			s := map[string]any{"points": [][2]float64{{0, 0}, {0.3, 0.2}, {0.7, 0.8}, {1, 1}}}
			_, sd := opStats(opLuma(render(t, coffee, "curve", s)))
			opExpect(t, sd > coffeeStd*1.05, "an S curve did not add contrast: %v vs %v", sd, coffeeStd)
			lift := render(t, coffee, "curve", map[string]any{"points": [][2]float64{{0, 0}, {0.5, 0.7}, {1, 1}}, "channel": "red"})
			same := true
			for i := range lift.Pix {
				if i%3 != 0 && lift.Pix[i] != coffee.Pix[i] {
					same = false
				}
			}
			opExpect(t, same, "a red curve changed green or blue")
			opExpect(t, opMeanWhere(coffee, lift, all, func(r, g, b float64) float64 { return r }) > opMeanWhere(coffee, coffee, all, func(r, g, b float64) float64 { return r }),
				"a lifting red curve did not raise red")
		},
		"clahe": func(t *testing.T) {
			flat := opRender(t, chelsea, 0, opEdit("contrast", opArgs(t, "contrast", map[string]any{"amount": -0.6})))
			_, before := opStats(opLuma(flat))
			out := opRender(t, chelsea, 0, opEdit("contrast", opArgs(t, "contrast", map[string]any{"amount": -0.6})), opSample(t, "clahe"))
			_, after := opStats(opLuma(out))
			opExpect(t, after > before*1.3, "clahe on a flat image: luma deviation %v -> %v", before, after)
		},
		"dehaze": func(t *testing.T) {
			hazy := coffee.Clone()
			for i, v := range hazy.Pix {
				hazy.Pix[i] = 0.5*v + 0.35
			}
			darkCh := func(m *Image) float64 {
				var s float64
				for p := range m.W * m.H {
					s += float64(min(m.Pix[3*p], m.Pix[3*p+1], m.Pix[3*p+2]))
				}
				return s / float64(m.W*m.H)
			}
			_, sd0 := opStats(opLuma(hazy))
			clear := render(t, hazy, "dehaze", map[string]any{"amount": 0.8})
			_, sd1 := opStats(opLuma(clear))
			opExpect(t, darkCh(clear) < darkCh(hazy)*0.7 && sd1 > sd0*1.2, "dehaze +0.8: dark channel %v -> %v, deviation %v -> %v", darkCh(hazy), darkCh(clear), sd0, sd1)
			fog := render(t, coffee, "dehaze", map[string]any{"amount": -0.8})
			_, sd2 := opStats(opLuma(fog))
			opExpect(t, darkCh(fog) > darkCh(coffee)*1.5 && sd2 < coffeeStd*0.8, "dehaze -0.8 did not add haze")
		},
		"saturation": func(t *testing.T) {
			grey := render(t, coffee, "saturation", map[string]any{"amount": -1.0})
			for p := range grey.W * grey.H {
				if grey.Pix[3*p] != grey.Pix[3*p+1] || grey.Pix[3*p] != grey.Pix[3*p+2] {
					t.Errorf("saturation -1: pixel %d is %v, not grey", p, grey.Pix[3*p:3*p+3])
					break
				}
			}
			more := render(t, coffee, "saturation", map[string]any{"amount": 0.5})
			opExpect(t, opMeanWhere(coffee, more, all, opChroma) > opMeanWhere(coffee, coffee, all, opChroma)*1.1, "saturation +0.5 did not add chroma")
			for p := range more.W * more.H {
				a, b := luma(coffee.Pix[3*p], coffee.Pix[3*p+1], coffee.Pix[3*p+2]), luma(more.Pix[3*p], more.Pix[3*p+1], more.Pix[3*p+2])
				if math.Abs(float64(a-b)) > 1e-5 || min(more.Pix[3*p], more.Pix[3*p+1], more.Pix[3*p+2]) < 0 {
					t.Errorf("saturation changed pixel %d's luminance %v -> %v or made it negative", p, a, b)
					break
				}
			}
		},
		"vibrance": func(t *testing.T) {
			m := NewImage(3, 1)
			copy(m.Pix, []float32{0.2, 0.25, 0.3, 0.05, 0.1, 0.6, 0.3, 0.25, 0.2}) // muted blue, vivid blue, muted orange
			out := render(t, m, "vibrance", map[string]any{"amount": 1.0})
			gain := func(p int) float64 {
				return opChroma(float64(out.Pix[3*p]), float64(out.Pix[3*p+1]), float64(out.Pix[3*p+2])) /
					opChroma(float64(m.Pix[3*p]), float64(m.Pix[3*p+1]), float64(m.Pix[3*p+2]))
			}
			opExpect(t, gain(0) > gain(1)*1.2, "vibrance: muted chroma x%v, vivid x%v", gain(0), gain(1))
			opExpect(t, gain(2) < gain(0), "vibrance did not spare the skin-like orange: x%v vs blue x%v", gain(2), gain(0))
		},
		"hue_shift": func(t *testing.T) {
			m := opFlat(2, 1, 0.6, 0.02, 0.02)
			m.Pix[3], m.Pix[4], m.Pix[5] = 0.3, 0.3, 0.3
			out := render(t, m, "hue_shift", map[string]any{"degrees": 120.0})
			opExpect(t, out.Pix[1] > 0.5 && out.Pix[0] < 0.05 && out.Pix[2] < 0.05, "hue_shift 120 of red: %v, want green", out.Pix[:3])
			opExpect(t, out.Pix[3] == 0.3 && out.Pix[4] == 0.3 && out.Pix[5] == 0.3, "hue_shift changed a grey: %v", out.Pix[3:])
		},
		"hsl": func(t *testing.T) {
			m := NewImage(3, 1)
			copy(m.Pix, []float32{0.7, 0.03, 0.03, 0.02, 0.05, 0.7, 0.4, 0.4, 0.4}) // red, blue, grey
			out := render(t, m, "hsl", map[string]any{"band": "red", "saturation": -1.0})
			opExpect(t, math.Abs(float64(out.Pix[0]-out.Pix[1])) < 1e-6 && math.Abs(float64(out.Pix[0]-out.Pix[2])) < 1e-6, "hsl red -1 saturation: %v is not grey", out.Pix[:3])
			opSameFloats(t, "blue and grey under a red band edit", &Image{W: 2, H: 1, Pix: m.Pix[3:]}, &Image{W: 2, H: 1, Pix: out.Pix[3:]})
			blue := opFlat(1, 1, 0, 0, 0.5)
			lit := render(t, blue, "hsl", map[string]any{"band": "blue", "lightness": 1.0})
			opExpect(t, lit.Pix[2] == 1, "hsl blue lightness +1 of pure blue: %v, want doubled", lit.Pix)
			turned := render(t, opFlat(1, 1, 0.7, 0.03, 0.03), "hsl", map[string]any{"band": "red", "hue": 1.0})
			h, _ := hueChroma(toDisp(turned.Pix[0]), toDisp(turned.Pix[1]), toDisp(turned.Pix[2]))
			opExpect(t, math.Abs(float64(h)-30) < 0.5, "hsl red hue +1 turned red to %v degrees, want 30", h)
		},
		"color_balance": func(t *testing.T) {
			out := render(t, astronaut, "color_balance", map[string]any{"shadows_blue": 1.0})
			bDark := opMeanWhere(astronaut, out, dark, ratio(2, 0)) / opMeanWhere(astronaut, astronaut, dark, ratio(2, 0))
			bBright := opMeanWhere(astronaut, out, bright, ratio(2, 0)) / opMeanWhere(astronaut, astronaut, bright, ratio(2, 0))
			opExpect(t, bDark > 1.2 && bDark > bBright*1.1, "shadows_blue +1: B/R x%v in shadows, x%v in highlights", bDark, bBright)
			out = render(t, astronaut, "color_balance", map[string]any{"highlights_red": -1.0})
			opExpect(t, opMeanWhere(astronaut, out, bright, ratio(0, 1)) < opMeanWhere(astronaut, astronaut, bright, ratio(0, 1)), "highlights_red -1 did not move highlights towards cyan")
		},
		"black_and_white": func(t *testing.T) {
			out := render(t, coffee, "black_and_white", map[string]any{"amount": 1.0})
			for p := range out.W * out.H {
				r, g, b := coffee.Pix[3*p], coffee.Pix[3*p+1], coffee.Pix[3*p+2]
				want := max(float32(0.2126)*r+float32(0.7152)*g+float32(0.0722)*b, 0)
				if out.Pix[3*p] != want || out.Pix[3*p+1] != want || out.Pix[3*p+2] != want {
					t.Errorf("black_and_white at the default mix: pixel %d is %v, want grey %v", p, out.Pix[3*p:3*p+3], want)
					break
				}
			}
			red := render(t, coffee, "black_and_white", map[string]any{"amount": 1.0, "red": 1.0, "green": 0.0, "blue": 0.0})
			opExpect(t, red.Pix[0] == coffee.Pix[0] && red.Pix[1] == coffee.Pix[0], "a pure red mix is not the red channel")
		},
		"split_tone": func(t *testing.T) {
			out := render(t, astronaut, "split_tone", map[string]any{"highlights_hue": 60.0, "highlights_saturation": 1.0, "shadows_hue": 240.0, "shadows_saturation": 1.0})
			yellow := func(r, g, b float64) float64 { return (opLumaOf(r, 0, 0)+opLumaOf(0, g, 0))/2 - opLumaOf(0, 0, b) }
			opExpect(t, opMeanWhere(astronaut, out, bright, yellow) > opMeanWhere(astronaut, astronaut, bright, yellow)+0.01, "yellow highlight tint did not yellow the highlights")
			opExpect(t, opMeanWhere(astronaut, out, func(l float64) bool { return l > 0.1 && l < 0.3 }, yellow) <
				opMeanWhere(astronaut, astronaut, func(l float64) bool { return l > 0.1 && l < 0.3 }, yellow)-0.01, "blue shadow tint did not blue the shadows")
		},
		"clarity": func(t *testing.T) {
			r := int(0.03 * 600)
			before := opBandEnergy(coffee, r)
			up := opBandEnergy(render(t, coffee, "clarity", map[string]any{"amount": 1.0, "radius": 0.03}), r)
			down := opBandEnergy(render(t, coffee, "clarity", map[string]any{"amount": -1.0, "radius": 0.03}), r)
			opExpect(t, up > before*1.2 && down < before*0.8, "clarity: local contrast %v, +1 %v, -1 %v", before, up, down)
		},
		"sharpen": func(t *testing.T) {
			before := opHighFreq(chelsea)
			after := opHighFreq(render(t, chelsea, "sharpen", map[string]any{"amount": 2.0, "radius": 0.002}))
			opExpect(t, after > before*1.5, "sharpen: fine detail energy %v -> %v", before, after)
			held := opHighFreq(render(t, chelsea, "sharpen", map[string]any{"amount": 2.0, "radius": 0.002, "threshold": 0.5}))
			opExpect(t, held < before*1.01, "sharpen with threshold 0.5 still sharpened: %v -> %v", before, held)
		},
		"denoise": func(t *testing.T) {
			noisy := opRender(t, chelsea, 3, opEdit("noise", Args{"sigma": 0.05, "monochrome": false}))
			clean := render(t, noisy, "denoise", map[string]any{"amount": 1.0, "radius": 0.004})
			mse := func(m *Image) float64 {
				a, b := opLuma(m), opLuma(chelsea)
				var s float64
				for i := range a {
					s += (a[i] - b[i]) * (a[i] - b[i])
				}
				return s / float64(len(a))
			}
			opExpect(t, mse(clean) < mse(noisy)*0.5, "denoise: error to the clean photo %v -> %v", mse(noisy), mse(clean))
			opExpect(t, opHighFreq(clean) < opHighFreq(noisy)*0.5, "denoise left the fine noise")
		},
		"spot": func(t *testing.T) {
			// Clone 30 px to the right (0.05 of 600): each pixel shows the one 30 px to
			// its right. Heal keeps the coarse brightness where it was.
			out := render(t, coffee, "spot", map[string]any{"kind": "clone", "dx": 0.05})
			opExpect(t, opSubEqual(out, opSub(coffee, 30, 0, coffee.W-30, coffee.H), 0, 0), "clone dx 0.05 is not the image shifted 30 px left")
			healed := render(t, coffee, "spot", map[string]any{"kind": "heal", "dx": 0.05})
			hd, cd := opBlockRMS(coffee, healed, 100), opBlockRMS(coffee, out, 100)
			opExpect(t, hd < cd/2, "heal moved the coarse brightness nearly as much as clone: 100 px block difference %v, clone %v", hd, cd)
		},
		"blur": func(t *testing.T) {
			before := opHighFreq(chelsea)
			for _, kind := range []string{"gaussian", "box", "motion"} {
				after := opHighFreq(render(t, chelsea, "blur", map[string]any{"kind": kind, "radius": 0.01}))
				opExpect(t, after < before*0.5, "blur %s: fine detail energy %v -> %v", kind, before, after)
			}
			// A horizontal motion blur smooths along rows, not along columns.
			grad := func(m *Image, dx, dy int) float64 {
				l := opLuma(m)
				var s float64
				for y := 0; y+dy < m.H; y++ {
					for x := 0; x+dx < m.W; x++ {
						d := l[(y+dy)*m.W+x+dx] - l[y*m.W+x]
						s += d * d
					}
				}
				return s
			}
			for _, tc := range []struct{ angle, ratio float64 }{{0, grad(chelsea, 1, 0) / grad(chelsea, 0, 1)}, {90, grad(chelsea, 0, 1) / grad(chelsea, 1, 0)}} {
				m := render(t, chelsea, "blur", map[string]any{"kind": "motion", "radius": 0.02, "angle": tc.angle})
				along, across := grad(m, 1, 0), grad(m, 0, 1)
				if tc.angle == 90 {
					along, across = across, along
				}
				opExpect(t, along/across < tc.ratio*0.3, "motion blur at %v degrees: along/across energy %v, was %v", tc.angle, along/across, tc.ratio)
			}
		},
		"vignette": func(t *testing.T) {
			corner := func(m *Image) float64 {
				return (opLumaOf(float64(m.Pix[0]), float64(m.Pix[1]), float64(m.Pix[2])) +
					opLumaOf(float64(m.Pix[len(m.Pix)-3]), float64(m.Pix[len(m.Pix)-2]), float64(m.Pix[len(m.Pix)-1])))
			}
			grey := opFlat(300, 200, 0.2, 0.2, 0.2)
			dark := render(t, grey, "vignette", map[string]any{"amount": -1.0})
			c := 3 * (100*300 + 150)
			opExpect(t, dark.Pix[c] == 0.2, "vignette -1 changed the centre: %v", dark.Pix[c])
			opExpect(t, corner(dark) < corner(grey)*0.2, "vignette -1: corners %v, were %v", corner(dark), corner(grey))
			light := render(t, grey, "vignette", map[string]any{"amount": 1.0})
			opExpect(t, corner(light) > corner(grey)*1.5 && light.Pix[c] == 0.2, "vignette +1 did not lighten only the corners")
		},
		"grain": func(t *testing.T) {
			out := render(t, coffee, "grain", map[string]any{"amount": 1.0})
			opExpect(t, opHighFreq(out) > opHighFreq(coffee)*1.5, "grain added no fine texture")
			m0, _ := opStats(opLuma(coffee))
			m1, _ := opStats(opLuma(out))
			opExpect(t, math.Abs(m1-m0) < 0.005, "grain changed the mean luma %v -> %v", m0, m1)
		},
		"noise": func(t *testing.T) {
			mid := float32(fromDisp(0.5))
			grey := opFlat(200, 200, mid, mid, mid)
			for _, mono := range []bool{false, true} {
				out := render(t, grey, "noise", map[string]any{"sigma": 0.1, "monochrome": mono})
				var d []float64
				monoSame := true
				for p := range out.W * out.H {
					d = append(d, float64(toDisp(out.Pix[3*p]))-0.5)
					monoSame = monoSame && out.Pix[3*p] == out.Pix[3*p+1] && out.Pix[3*p] == out.Pix[3*p+2]
				}
				mean, sd := opStats(d)
				opExpect(t, math.Abs(sd-0.1) < 0.01 && math.Abs(mean) < 0.005, "noise sigma 0.1 (monochrome %v): mean %v, deviation %v", mono, mean, sd)
				opExpect(t, monoSame == mono, "noise monochrome %v: channels equal is %v", mono, monoSame)
			}
		},
		"cutout": func(t *testing.T) {
			out := render(t, coffee, "cutout", map[string]any{"holes": 3.0, "size": 0.1, "fill": 0.5})
			v := fromDisp(0.5)
			n := 0
			for p := range out.W * out.H {
				if out.Pix[3*p] == v && out.Pix[3*p+1] == v && out.Pix[3*p+2] == v {
					n++
				}
			}
			opExpect(t, n >= 60*60 && n <= 3*60*60, "cutout of 3 holes of 60 px filled %d pixels", n)
		},
	}
	maps.Copy(tests, augmentDirectionTests())
	maps.Copy(tests, augmentFx2DirectionTests())
	for _, op := range Operations() {
		if _, ok := tests[op]; !ok && op != "crop" && op != "exposure" {
			t.Errorf("no direction test for %s", op)
		}
	}
	for name, fn := range tests {
		t.Run(name, fn)
	}
}

// opSubEqual reports whether sub equals the part of m at (x0, y0).
func opSubEqual(m, sub *Image, x0, y0 int) bool {
	for y := range sub.H {
		a := m.Pix[3*((y0+y)*m.W+x0) : 3*((y0+y)*m.W+x0+sub.W)]
		b := sub.Pix[3*y*sub.W : 3*(y+1)*sub.W]
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
	}
	return true
}

func opMirror(m *Image) *Image {
	out := NewImage(m.W, m.H)
	for y := range m.H {
		for x := range m.W {
			copy(out.Pix[3*(y*m.W+m.W-1-x):3*(y*m.W+m.W-x)], m.Pix[3*(y*m.W+x):3*(y*m.W+x+1)])
		}
	}
	return out
}
