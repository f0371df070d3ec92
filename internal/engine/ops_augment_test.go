package engine

import (
	"math"
	"slices"
	"testing"
)

// Direction tests of the augmentation operations: each does what albumentations' transform
// of the same name does, checked on synthetic images where exact values can be known and
// on photos where only a direction can. TestOpsChangeInExpectedDirection runs them.

func augmentDirectionTests() map[string]func(t *testing.T) {
	render := func(t *testing.T, src *Image, op string, seed uint64, set map[string]any) *Image {
		t.Helper()
		return opRender(t, src, seed, opEdit(op, opArgs(t, op, set)))
	}
	disp := func(m *Image, p, c int) float64 { return float64(toDisp(m.Pix[3*p+c])) }
	mid := fromDisp(0.5)
	return map[string]func(t *testing.T){
		"rgb_shift": func(t *testing.T) {
			out := render(t, opFlat(4, 4, mid, mid, mid), "rgb_shift", 0, map[string]any{"red": 0.1, "blue": -0.2})
			got := [3]float64{disp(out, 5, 0), disp(out, 5, 1), disp(out, 5, 2)}
			want := [3]float64{0.6, 0.5, 0.3}
			for c := range 3 {
				opExpect(t, math.Abs(got[c]-want[c]) < 2e-3, "rgb_shift red +0.1 blue -0.2 of grey 0.5: %v, want %v", got, want)
			}
			dark := render(t, opFlat(2, 2, 0.001, 0.001, 0.001), "rgb_shift", 0, map[string]any{"green": -0.5})
			opExpect(t, dark.Pix[1] == 0, "rgb_shift made light negative: %v", dark.Pix[1])
		},
		"channel_shuffle": func(t *testing.T) {
			m := opFlat(3, 2, 0.1, 0.4, 0.7)
			out := render(t, m, "channel_shuffle", 0, map[string]any{"order": "bgr"})
			opExpect(t, slices.Equal(out.Pix[:3], []float32{0.7, 0.4, 0.1}), "bgr: %v", out.Pix[:3])
			out = render(t, m, "channel_shuffle", 0, map[string]any{"order": "gbr"})
			opExpect(t, slices.Equal(out.Pix[:3], []float32{0.4, 0.7, 0.1}), "gbr: %v", out.Pix[:3])
			seen := map[[3]float32]bool{}
			for seed := range uint64(24) {
				r := render(t, m, "channel_shuffle", seed, map[string]any{"order": "random"})
				k := [3]float32{r.Pix[0], r.Pix[1], r.Pix[2]}
				opExpect(t, k != [3]float32{0.1, 0.4, 0.7}, "random order kept rgb with seed %d", seed)
				seen[k] = true
			}
			opExpect(t, len(seen) == 5, "24 seeds drew %d of the 5 shuffled orders", len(seen))
		},
		"sepia": func(t *testing.T) {
			out := render(t, opFlat(2, 2, mid, mid, mid), "sepia", 0, map[string]any{"amount": 1.0})
			r, g, b := disp(out, 0, 0), disp(out, 0, 1), disp(out, 0, 2)
			opExpect(t, math.Abs(r-0.5*1.351) < 2e-3 && math.Abs(g-0.5*1.203) < 2e-3 && math.Abs(b-0.5*0.937) < 2e-3,
				"sepia of grey 0.5: %v %v %v, want the matrix's row sums times 0.5", r, g, b)
			half := render(t, opFlat(2, 2, mid, mid, mid), "sepia", 0, map[string]any{"amount": 0.5})
			opExpect(t, math.Abs(disp(half, 0, 2)-0.5*(1+0.937)/2) < 2e-3, "sepia 0.5 is not half way: blue %v", disp(half, 0, 2))
		},
		"posterize": func(t *testing.T) {
			out := render(t, opPhoto(t, "coffee"), "posterize", 0, map[string]any{"bits": 2.0})
			levels := map[int]bool{}
			for i := range out.Pix {
				v := disp(out, i/3, i%3) * 255
				levels[int(math.Round(v))] = true
				if math.Abs(v-math.Round(v/64)*64) > 0.5 {
					t.Fatalf("posterize 2 bits: display level %v is not a multiple of 64", v)
				}
			}
			opExpect(t, len(levels) <= 4 && len(levels) >= 3, "posterize 2 bits left %d levels", len(levels))
		},
		"equalize": func(t *testing.T) {
			flat := opRender(t, opPhoto(t, "chelsea"), 0, opEdit("contrast", opArgs(t, "contrast", map[string]any{"amount": -0.7})))
			_, before := opStats(opLuma(flat))
			for _, by := range []bool{true, false} {
				out := render(t, flat, "equalize", 0, map[string]any{"amount": 1.0, "by_channels": by})
				_, after := opStats(opLuma(out))
				opExpect(t, after > before*2, "equalize (by_channels %v) of a flat image: luma deviation %v -> %v", by, before, after)
			}
			// Equalizing the luma spreads it evenly: about half the pixels below the middle.
			out := render(t, flat, "equalize", 0, map[string]any{"amount": 1.0, "by_channels": false})
			below := 0
			for p := range out.W * out.H {
				if 0.299*disp(out, p, 0)+0.587*disp(out, p, 1)+0.114*disp(out, p, 2) < 0.5 {
					below++
				}
			}
			frac := float64(below) / float64(out.W*out.H)
			opExpect(t, math.Abs(frac-0.5) < 0.05, "after luma equalization %v of the pixels are below mid grey", frac)
		},
		"gamma": func(t *testing.T) {
			m := NewImage(3, 1)
			copy(m.Pix, []float32{0, 0, 0, mid, mid, mid, 1, 1, 1})
			out := render(t, m, "gamma", 0, map[string]any{"gamma": 2.0})
			opExpect(t, out.Pix[0] == 0 && math.Abs(float64(out.Pix[6])-1) < 1e-4, "gamma moved black or white: %v", out.Pix)
			opExpect(t, math.Abs(disp(out, 1, 0)-0.25) < 2e-3, "gamma 2 of display 0.5: %v, want 0.25", disp(out, 1, 0))
			light := render(t, m, "gamma", 0, map[string]any{"gamma": 0.5})
			opExpect(t, math.Abs(disp(light, 1, 0)-math.Sqrt(0.5)) < 2e-3, "gamma 0.5 of display 0.5: %v", disp(light, 1, 0))
		},
		"multiplicative_noise": func(t *testing.T) {
			src := opFlat(100, 100, mid, mid, mid)
			whole := render(t, src, "multiplicative_noise", 3, map[string]any{"spread": 0.2})
			opExpect(t, slices.Equal(whole.Pix, slices.Repeat(whole.Pix[:3], 100*100)) && whole.Pix[0] != mid,
				"one factor for the whole image must change every pixel alike")
			// albumentations' multiplier (lo, hi) is center (lo+hi)/2, spread (hi-lo)/2:
			// per pixel and per channel, the factors are uniform on [lo, hi].
			for _, rg := range [][2]float64{{0.8, 1.2}, {0.9, 1.3}, {0.5, 0.7}} {
				c, s := (rg[0]+rg[1])/2, (rg[1]-rg[0])/2
				out := render(t, src, "multiplicative_noise", 3, map[string]any{"center": c, "spread": s, "elementwise": 1, "per_channel": 1})
				var f []float64
				var chanDiff int
				for i := range out.Pix {
					f = append(f, disp(out, i/3, i%3)/0.5)
					if i%3 == 1 && out.Pix[i] != out.Pix[i-1] {
						chanDiff++
					}
				}
				mean, sd := opStats(f)
				lo, hi := slices.Min(f), slices.Max(f)
				opExpect(t, math.Abs(mean-c) < 0.01 && math.Abs(sd-s/math.Sqrt(3)) < 0.01 && lo >= rg[0]-1e-3 && hi <= rg[1]+1e-3,
					"elementwise factors: mean %v, deviation %v, range [%v, %v]; want uniform on %v", mean, sd, lo, hi, rg)
				opExpect(t, chanDiff > 9000, "per_channel: only %d of 10000 pixels have channels apart", chanDiff)
			}
			// Elementwise, not per channel: a grey stays grey, pixels differ.
			mono := render(t, src, "multiplicative_noise", 3, map[string]any{"center": 1.1, "spread": 0.2, "elementwise": 1})
			var px []float64
			for p := range 100 * 100 {
				opExpect(t, mono.Pix[3*p] == mono.Pix[3*p+1] && mono.Pix[3*p] == mono.Pix[3*p+2], "elementwise without per_channel split the channels at %d", p)
				px = append(px, disp(mono, p, 0)/0.5)
			}
			mean, _ := opStats(px)
			opExpect(t, math.Abs(mean-1.1) < 0.01, "elementwise around 1.1: mean factor %v", mean)
			// One factor per channel for the whole image: three values in all.
			perImage := render(t, src, "multiplicative_noise", 3, map[string]any{"center": 0.8, "spread": 0.1, "per_channel": 1})
			opExpect(t, slices.Equal(perImage.Pix, slices.Repeat(perImage.Pix[:3], 100*100)) && perImage.Pix[0] != perImage.Pix[1],
				"per_channel without elementwise: one factor per channel, %v", perImage.Pix[:3])
			for ch := range 3 {
				f := disp(perImage, 0, ch) / 0.5
				opExpect(t, f >= 0.7-1e-3 && f <= 0.9+1e-3, "channel %d factor %v outside [0.7, 0.9]", ch, f)
			}
			// A multiplier range of one value multiplies by it.
			fixed := render(t, src, "multiplicative_noise", 3, map[string]any{"center": 1.5, "spread": 0.0})
			opExpect(t, math.Abs(disp(fixed, 0, 0)-0.75) < 2e-3, "multiplier 1.5 of 0.5: %v", disp(fixed, 0, 0))
		},
		"iso_noise": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			out := render(t, coffee, "iso_noise", 5, map[string]any{"intensity": 0.5})
			m0, _ := opStats(opLuma(coffee))
			m1, _ := opStats(opLuma(out))
			opExpect(t, m1 > m0+0.01, "ISO noise did not lift the image as albumentations' does: mean luma %v -> %v", m0, m1)
			var d []float64
			l0, l1 := opLuma(coffee), opLuma(out)
			for i := range l0 {
				d = append(d, l1[i]-l0[i])
			}
			_, sd := opStats(d)
			opExpect(t, sd > 0.01, "ISO noise varies by pixel with a deviation of only %v", sd)
			grey := opFlat(50, 50, 0.1, 0.1, 0.1)
			g := render(t, grey, "iso_noise", 5, map[string]any{"intensity": 1.0, "color_shift": 0.2})
			for p := range g.W * g.H {
				if math.Abs(float64(g.Pix[3*p]-g.Pix[3*p+1])) > 1e-5 || math.Abs(float64(g.Pix[3*p]-g.Pix[3*p+2])) > 1e-5 {
					t.Fatalf("ISO noise coloured a grey pixel: %v", g.Pix[3*p:3*p+3])
				}
			}
		},
		"emboss": func(t *testing.T) {
			flat := opFlat(20, 20, mid, mid, mid)
			out := render(t, flat, "emboss", 0, map[string]any{"alpha": 1.0, "strength": 1.0})
			for i, v := range out.Pix {
				if math.Abs(float64(v-mid)) > 1e-5 {
					t.Fatalf("emboss changed a flat image at %d: %v", i, v)
				}
			}
			chelsea := opPhoto(t, "chelsea")
			opExpect(t, opHighFreq(render(t, chelsea, "emboss", 0, map[string]any{"alpha": 1.0, "strength": 1.0})) > opHighFreq(chelsea)*2, "emboss added no relief")
		},
		"downscale": func(t *testing.T) {
			coffee := opPhoto(t, "coffee") // 600x400: a quarter is 150x100, blocks of 4x4
			out := render(t, coffee, "downscale", 0, map[string]any{"scale": 0.25})
			for y := 0; y < out.H; y++ {
				for x := 0; x < out.W; x++ {
					a, b := 3*(y*out.W+x), 3*((y/4*4)*out.W+x/4*4)
					if out.Pix[a] != out.Pix[b] {
						t.Fatalf("downscale 0.25 nearest: pixel (%d, %d) differs from its 4x4 block", x, y)
					}
				}
			}
			for _, interp := range []string{"linear", "lanczos"} {
				soft := render(t, coffee, "downscale", 0, map[string]any{"scale": 0.25, "interpolation": interp})
				opExpect(t, opHighFreq(soft) < opHighFreq(coffee)*0.5, "downscale %s kept the fine detail", interp)
			}
		},
		"jpeg_compression": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			mse := func(m *Image) float64 {
				var s float64
				for i := range m.Pix {
					d := float64(toDisp(m.Pix[i]) - toDisp(coffee.Pix[i]))
					s += d * d
				}
				return s / float64(len(m.Pix))
			}
			q10 := mse(render(t, coffee, "jpeg_compression", 0, map[string]any{"quality": 10.0}))
			q50 := mse(render(t, coffee, "jpeg_compression", 0, map[string]any{"quality": 50.0}))
			q95 := mse(render(t, coffee, "jpeg_compression", 0, map[string]any{"quality": 95.0}))
			opExpect(t, q10 > q50*2 && q50 > q95*2 && q95 > 0, "JPEG error by quality 10, 50, 95: %v, %v, %v", q10, q50, q95)
		},
		"fog": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			out := render(t, coffee, "fog", 2, map[string]any{"density": 0.6})
			m0, s0 := opStats(opLuma(coffee))
			m1, s1 := opStats(opLuma(out))
			opExpect(t, s1 < s0*0.7 && math.Abs(m1-fogLevel) < math.Abs(m0-fogLevel)*0.7,
				"fog 0.6: luma %v±%v -> %v±%v, want flatter and nearer the fog's grey", m0, s0, m1, s1)
			a, b := render(t, coffee, "fog", 2, map[string]any{"density": 0.6}), render(t, coffee, "fog", 3, map[string]any{"density": 0.6})
			opExpect(t, !slices.Equal(a.Pix, b.Pix), "fog is the same for two seeds")
		},
		"shadow": func(t *testing.T) {
			src := opFlat(200, 100, mid, mid, mid)
			out := render(t, src, "shadow", 4, map[string]any{"count": 3.0, "intensity": 0.5})
			dark := 0
			for p := range out.W * out.H {
				v := disp(out, p, 0)
				switch {
				case p/out.W < 50 && out.Pix[3*p] != mid:
					t.Fatalf("shadow fell on the top half at row %d", p/out.W)
				case math.Abs(v-0.25) < 2e-3:
					dark++
				case math.Abs(v-0.5) > 2e-3:
					t.Fatalf("shadow value %v is neither lit 0.5 nor shaded 0.25", v)
				}
			}
			opExpect(t, dark > 100, "3 shadows darkened only %d pixels", dark)
		},
		"rain": func(t *testing.T) {
			black := opFlat(300, 200, 0, 0, 0)
			lit := func(m *Image) int {
				n := 0
				for p := range m.W * m.H {
					if disp(m, p, 0) > 0.3 {
						n++
					}
				}
				return n
			}
			light := lit(render(t, black, "rain", 1, map[string]any{"amount": 0.2}))
			heavy := lit(render(t, black, "rain", 1, map[string]any{"amount": 0.8}))
			opExpect(t, light > 200 && heavy > light*3, "rain on black: %d lit pixels at 0.2, %d at 0.8", light, heavy)
			grey := render(t, opFlat(300, 200, mid, mid, mid), "rain", 1, map[string]any{"amount": 0.01, "brightness": 0.6})
			opExpect(t, math.Abs(disp(grey, 0, 0)-0.3) < 2e-3 || math.Abs(disp(grey, 300*200-1, 0)-0.3) < 2e-3, "rain did not dim the scene to 0.6")
		},
		"rotate90": func(t *testing.T) {
			chelsea := opPhoto(t, "chelsea")
			for turns, angle := range []float64{0, 90, 180, -90} {
				got := render(t, chelsea, "rotate90", 0, map[string]any{"turns": float64(turns)})
				opSameFloats(t, "rotate90 vs rotate", opRender(t, chelsea, 0, opEdit("rotate", Args{"angle": angle, "auto_crop": false})), got)
			}
		},
		"transpose": func(t *testing.T) {
			chelsea := opPhoto(t, "chelsea")
			out := render(t, chelsea, "transpose", 0, map[string]any{"diagonal": "main"})
			opExpect(t, out.W == chelsea.H && out.H == chelsea.W, "transpose: %dx%d", out.W, out.H)
			for _, p := range [][2]int{{0, 0}, {17, 5}, {chelsea.W - 1, chelsea.H - 1}, {chelsea.W - 1, 0}} {
				x, y := p[0], p[1]
				opExpect(t, slices.Equal(chelsea.Pix[3*(y*chelsea.W+x):3*(y*chelsea.W+x)+3], out.Pix[3*(x*out.W+y):3*(x*out.W+y)+3]),
					"transpose: source (%d, %d) is not at (%d, %d)", x, y, y, x)
			}
			opSameFloats(t, "transpose twice", chelsea, opRender(t, chelsea, 0, opSample(t, "transpose"), opSample(t, "transpose")))
			anti := render(t, chelsea, "transpose", 0, map[string]any{"diagonal": "anti"})
			opSameFloats(t, "anti-transpose is a transpose turned 180", opRender(t, out, 0, opEdit("rotate", Args{"angle": 180.0, "auto_crop": false})), anti)
		},
		"center_crop": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			out := render(t, coffee, "center_crop", 0, map[string]any{"width": 0.5, "height": 0.25})
			opExpect(t, out.W == 300 && out.H == 100, "center crop 0.5 x 0.25 of 600x400: %dx%d", out.W, out.H)
			opExpect(t, opSubEqual(coffee, out, 150, 150), "center crop is not the middle of the image")
		},
		"pad": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			sq := render(t, coffee, "pad", 0, map[string]any{"width": 1.0, "height": 1.0, "fill": 1.0})
			opExpect(t, sq.W == 600 && sq.H == 600 && opSubEqual(sq, coffee, 0, 100), "pad to square: %dx%d, or the image is not centred", sq.W, sq.H)
			opExpect(t, sq.Pix[0] == 1 && sq.Pix[len(sq.Pix)-1] == 1, "constant border is not the white fill")
			r := render(t, coffee, "pad", 0, map[string]any{"width": 1.0, "height": 1.0, "mode": "reflect"})
			// reflect_101: the row above the image is its second row, mirrored.
			opExpect(t, slices.Equal(r.Pix[3*99*600:3*100*600], coffee.Pix[3*600:3*2*600]), "reflect border is not the mirrored second row")
			e := render(t, coffee, "pad", 0, map[string]any{"width": 1.0, "height": 1.0, "mode": "edge"})
			opExpect(t, slices.Equal(e.Pix[:3*600], coffee.Pix[:3*600]), "edge border is not the repeated first row")
			opSameFloats(t, "pad to a smaller size", coffee, render(t, coffee, "pad", 0, map[string]any{"width": 0.5, "height": 0.5}))
		},
		"affine": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			// A shift of whole pixels samples pixel centres: the image moves exactly.
			out := render(t, coffee, "affine", 0, map[string]any{"translate_x": 0.1, "translate_y": -0.05})
			opExpect(t, opSubEqual(out, opSub(coffee, 0, 20, 540, 380), 60, 0), "translate 0.1, -0.05 is not a shift of 60 px right and 20 px up")
			opExpect(t, out.Pix[0] == 0, "constant mode left the uncovered corner %v, want black", out.Pix[0])
			rot := render(t, coffee, "affine", 0, map[string]any{"angle": 12.0})
			want := opRender(t, coffee, 0, opEdit("rotate", Args{"angle": 12.0, "auto_crop": false}))
			maxd := 0.0
			for i := range rot.Pix {
				maxd = max(maxd, math.Abs(float64(rot.Pix[i]-want.Pix[i])))
			}
			opExpect(t, maxd < 1e-4, "affine angle 12 differs from rotate 12 by %v", maxd)
			zoom := render(t, coffee, "affine", 0, map[string]any{"scale": 2.0, "mode": "reflect"})
			opExpect(t, opHighFreq(zoom) < opHighFreq(coffee)*0.6, "scale 2 did not zoom in")
			refl := render(t, coffee, "affine", 0, map[string]any{"translate_x": 0.1, "mode": "reflect"})
			opExpect(t, refl.Pix[0] > 0 || refl.Pix[1] > 0, "reflect mode left the uncovered area black")
		},
		"perspective": func(t *testing.T) {
			quad := [4][2]float64{{10, 20}, {90, 5}, {80, 70}, {15, 60}}
			m := homography(quad)
			for i, uv := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				z := m[6]*uv[0] + m[7]*uv[1] + m[8]
				x, y := (m[0]*uv[0]+m[1]*uv[1]+m[2])/z, (m[3]*uv[0]+m[4]*uv[1]+m[5])/z
				opExpect(t, math.Hypot(x-quad[i][0], y-quad[i][1]) < 1e-9, "homography takes corner %v to (%v, %v), want %v", uv, x, y, quad[i])
			}
			augmentResolutionIndependent(t, "perspective", map[string]any{"scale": 0.1})
		},
		"elastic": func(t *testing.T) {
			chelsea := opPhoto(t, "chelsea")
			out := render(t, chelsea, "elastic", 1, map[string]any{"alpha": 0.02})
			opExpect(t, !slices.Equal(out.Pix, chelsea.Pix), "elastic changed nothing")
			augmentResolutionIndependent(t, "elastic", map[string]any{"alpha": 0.03, "sigma": 0.1})
		},
		"grid_distortion": func(t *testing.T) {
			// Borders stay: a frame of one colour around the image is still there.
			m := opFlat(200, 100, 0.5, 0.5, 0.5)
			for x := range 200 {
				for _, y := range []int{0, 1, 98, 99} {
					m.Pix[3*(y*200+x)] = 0
				}
			}
			out := render(t, m, "grid_distortion", 1, map[string]any{"distort": 0.5})
			opExpect(t, out.Pix[3*100] < 0.01 && out.Pix[3*(99*200+100)] < 0.01, "the top and bottom border moved")
			augmentResolutionIndependent(t, "grid_distortion", map[string]any{"distort": 0.4})
		},
		"lens_distortion": func(t *testing.T) {
			// A vertical line near the left edge bows: barrel (positive k) pushes its
			// middle out to the left of its ends, pincushion pulls it in.
			m := opFlat(201, 201, 0, 0, 0)
			for y := range 201 {
				m.Pix[3*(y*201+50)] = 1
			}
			at := func(img *Image, y int) float64 { // the line's x on row y, by centroid
				var s, n float64
				for x := range 100 {
					v := float64(img.Pix[3*(y*201+x)])
					s += v * float64(x)
					n += v
				}
				return s / n
			}
			barrel := render(t, m, "lens_distortion", 0, map[string]any{"k": 0.3})
			pin := render(t, m, "lens_distortion", 0, map[string]any{"k": -0.3})
			opExpect(t, at(barrel, 100) < at(barrel, 30)-2, "barrel: the line at the middle (%v) does not bow out past its ends (%v)", at(barrel, 100), at(barrel, 30))
			opExpect(t, at(pin, 100) > at(pin, 30)+2, "pincushion: the line at the middle (%v) does not bow in from its ends (%v)", at(pin, 100), at(pin, 30))
		},
		"grid_shuffle": func(t *testing.T) {
			coffee := opPhoto(t, "coffee") // 600x400 in 3x3 cells of 200x133 or 134
			shuffled := 0
			for seed := range uint64(4) {
				out := render(t, coffee, "grid_shuffle", seed, map[string]any{"cells": 2.0})
				moved := 0
				for j := range 2 {
					for i := range 2 {
						cell := opSub(out, i*300, j*200, 300, 200)
						found := false
						for jj := range 2 {
							for ii := range 2 {
								if opSubEqual(coffee, cell, ii*300, jj*200) {
									found = true
									if ii != i || jj != j {
										moved++
									}
								}
							}
						}
						opExpect(t, found, "seed %d: cell (%d, %d) is not a cell of the source", seed, i, j)
					}
				}
				if moved > 0 {
					shuffled++
				}
			}
			opExpect(t, shuffled >= 3, "only %d of 4 seeds shuffled the cells", shuffled)
		},
		"auto_contrast": func(t *testing.T) {
			m := NewImage(3, 1)
			copy(m.Pix, []float32{fromDisp(0.2), fromDisp(0.3), fromDisp(0.4), fromDisp(0.4), fromDisp(0.5), fromDisp(0.6), fromDisp(0.6), fromDisp(0.7), fromDisp(0.8)})
			out := render(t, m, "auto_contrast", 0, map[string]any{"amount": 1.0})
			for c := range 3 {
				lo, mid, hi := disp(out, 0, c), disp(out, 1, c), disp(out, 2, c)
				// The range is measured on 256 levels, so the ends land within a level.
				opExpect(t, lo < 0.006 && hi > 0.994 && math.Abs(mid-0.5) < 0.01, "channel %d stretched to %v %v %v, want 0, 0.5, 1", c, lo, mid, hi)
			}
		},
		"contrast_mean": func(t *testing.T) {
			// Two pixels of grey 0.2 and 0.6 (display): the mean grey is 0.4 (on the
			// 256 levels albumentations counts), so a factor 1.5 gives 0.1 and 0.7, and
			// -1 a flat field of the mean.
			m := NewImage(2, 1)
			for c := range 3 {
				m.Pix[c], m.Pix[3+c] = fromDisp(51.0/255), fromDisp(153.0/255)
			}
			out := render(t, m, "contrast_mean", 0, map[string]any{"amount": 0.5})
			flat := render(t, m, "contrast_mean", 0, map[string]any{"amount": -1.0})
			for c := range 3 {
				lo, hi := disp(out, 0, c), disp(out, 1, c)
				opExpect(t, math.Abs(lo-25.5/255) < 1e-5 && math.Abs(hi-178.5/255) < 1e-5, "channel %d at factor 1.5: %v %v, want 0.1 and 0.7", c, lo, hi)
				opExpect(t, math.Abs(disp(flat, 0, c)-0.4) < 1e-5 && math.Abs(disp(flat, 1, c)-0.4) < 1e-5, "channel %d at factor 0 is not the mean grey", c)
			}
			// The mean is the luma's: a red and a blue pixel weigh 0.299 and 0.114.
			rb := NewImage(2, 1)
			rb.Pix[0], rb.Pix[5] = 1, 1
			flat = render(t, rb, "contrast_mean", 0, map[string]any{"amount": -1.0})
			opExpect(t, math.Abs(disp(flat, 0, 1)-(0.299+0.114)/2) < 1e-5, "mean grey of red and blue: %v", disp(flat, 0, 1))
		},
		"channel_dropout": func(t *testing.T) {
			m := opFlat(2, 2, 0.1, 0.4, 0.7)
			out := render(t, m, "channel_dropout", 0, map[string]any{"channel": "green"})
			opExpect(t, slices.Equal(out.Pix[:3], []float32{0.1, 0, 0.7}), "drop green: %v", out.Pix[:3])
			seen := map[int]bool{}
			for seed := range uint64(20) {
				r := render(t, m, "channel_dropout", seed, map[string]any{"channel": "random", "fill": 1.0})
				for c := range 3 {
					if r.Pix[c] == 1 {
						seen[c] = true
					}
				}
			}
			opExpect(t, len(seen) == 3, "20 seeds dropped only channels %v", seen)
		},
		"morphology": func(t *testing.T) {
			m := opFlat(41, 41, 0, 0, 0)
			m.Pix[3*(20*41+20)] = 1
			d := render(t, m, "morphology", 0, map[string]any{"operation": "dilate", "size": 0.05}) // 2 px
			lit := 0
			for p := range 41 * 41 {
				if d.Pix[3*p] == 1 {
					lit++
				}
			}
			opExpect(t, lit == 25, "dilate by 2 px of one white pixel lit %d pixels, want a 5x5 square", lit)
			e := render(t, d, "morphology", 0, map[string]any{"operation": "erode", "size": 0.05})
			opSameFloats(t, "erode after dilate of a point", m, e)
		},
		"chromatic_aberration": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			out := render(t, coffee, "chromatic_aberration", 0, map[string]any{"amount": 0.01})
			c := 3 * (200*600 + 300)
			opExpect(t, math.Abs(float64(out.Pix[c]-coffee.Pix[c])) < 0.01, "aberration moved the centre")
			greenSame := true
			for i := 1; i < len(out.Pix); i += 3 {
				greenSame = greenSame && out.Pix[i] == coffee.Pix[i]
			}
			opExpect(t, greenSame, "aberration changed green")
			opExpect(t, !slices.Equal(out.Pix, coffee.Pix), "aberration changed nothing")
		},
		"snow": func(t *testing.T) {
			m := NewImage(2, 1)
			copy(m.Pix, []float32{fromDisp(0.2), fromDisp(0.2), fromDisp(0.2), fromDisp(0.9), fromDisp(0.9), fromDisp(0.9)})
			out := render(t, m, "snow", 0, map[string]any{"amount": 0.5, "brightness": 2.0})
			opExpect(t, math.Abs(disp(out, 0, 0)-0.4) < 2e-3, "snow: grey 0.2 under the threshold became %v, want 0.4", disp(out, 0, 0))
			opExpect(t, math.Abs(disp(out, 1, 0)-0.9) < 2e-3, "snow: grey 0.9 over the threshold became %v", disp(out, 1, 0))
		},
		"shot_noise": func(t *testing.T) {
			for _, v := range []float32{0.05, 0.5} {
				out := render(t, opFlat(100, 100, v, v, v), "shot_noise", 1, map[string]any{"scale": 0.01})
				var d []float64
				for _, x := range out.Pix {
					d = append(d, float64(x))
				}
				mean, sd := opStats(d)
				want := math.Sqrt(float64(v) * 0.01)
				opExpect(t, math.Abs(mean-float64(v)) < 0.002 && math.Abs(sd-want) < want*0.1, "shot noise on %v: mean %v, deviation %v, want %v", v, mean, sd, want)
			}
		},
		"salt_and_pepper": func(t *testing.T) {
			out := render(t, opFlat(100, 100, mid, mid, mid), "salt_and_pepper", 1, map[string]any{"amount": 0.1, "salt": 0.25})
			salt, pepper := 0, 0
			for p := range 100 * 100 {
				switch out.Pix[3*p] {
				case 1:
					salt++
				case 0:
					pepper++
				}
			}
			opExpect(t, math.Abs(float64(salt+pepper)-1000) < 120 && math.Abs(float64(salt)-250) < 60, "salt and pepper 0.1 with 25%% salt: %d salt, %d pepper", salt, pepper)
		},
		"pixel_dropout": func(t *testing.T) {
			out := render(t, opFlat(100, 100, mid, mid, mid), "pixel_dropout", 1, map[string]any{"probability": 0.2})
			dropped := 0
			for p := range 100 * 100 {
				if out.Pix[3*p] == 0 {
					dropped++
					opExpect(t, out.Pix[3*p+1] == 0 && out.Pix[3*p+2] == 0, "a dropped pixel kept a channel")
				}
			}
			opExpect(t, math.Abs(float64(dropped)-2000) < 200, "dropout 0.2 dropped %d of 10000", dropped)
		},
		"scale": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			half := render(t, coffee, "scale", 0, map[string]any{"factor": 0.5})
			opExpect(t, half.W == 300 && half.H == 200, "scale 0.5 of 600x400: %dx%d", half.W, half.H)
			opSameFloats(t, "scale is Resize", Resize(coffee, 300, 200), half)
			big := render(t, coffee, "scale", 0, map[string]any{"factor": 1.5})
			opExpect(t, big.W == 900 && big.H == 600, "scale 1.5 of 600x400: %dx%d", big.W, big.H)
			// albumentations' RandomScale truncates (int(451 * 0.5) = 225); a size one
			// pixel off would make every box and the parity table disagree.
			odd := render(t, NewImage(451, 301), "scale", 0, map[string]any{"factor": 0.5})
			opExpect(t, odd.W == 225 && odd.H == 150, "scale 0.5 of 451x301: %dx%d, albumentations makes 225x150", odd.W, odd.H)
			// LongestMaxSize and SmallestMaxSize round instead (round(300 * 225/451) = 150).
			rounded := render(t, NewImage(451, 300), "scale", 0, map[string]any{"factor": 225.0 / 451, "round": true})
			opExpect(t, rounded.W == 225 && rounded.H == 150, "scale 225/451 of 451x300 rounded: %dx%d, albumentations LongestMaxSize makes 225x150", rounded.W, rounded.H)
			ms, err := GeometryMaps(451, 301, []Edit{{Op: "scale", Args: Args{"factor": 0.5}, Strength: 1}}, RenderOptions{})
			opExpect(t, err == nil && len(ms) == 1 && ms[0].OutW == 225 && ms[0].OutH == 150, "scale's geometry map of 451x301: %+v (%v)", ms, err)
		},
		"random_tone_curve": func(t *testing.T) {
			m := NewImage(3, 1)
			copy(m.Pix, []float32{0, 0, 0, fromDisp(0.5), fromDisp(0.5), fromDisp(0.5), 1, 1, 1})
			changed := 0
			for seed := range uint64(6) {
				out := render(t, m, "random_tone_curve", seed, map[string]any{"scale": 0.2})
				opExpect(t, out.Pix[0] == 0 && out.Pix[6] == 1, "seed %d: the curve moved black or white: %v", seed, out.Pix)
				if math.Abs(disp(out, 1, 0)-0.5) > 0.01 {
					changed++
				}
			}
			opExpect(t, changed >= 4, "only %d of 6 seeds moved middle grey", changed)
		},
		"fancy_pca": func(t *testing.T) {
			// An image whose colours vary along one axis only (red-blue) is shifted along
			// that axis: green, which does not vary, stays.
			m := NewImage(100, 1)
			for x := range 100 {
				v := float32(x) / 99
				m.Pix[3*x], m.Pix[3*x+1], m.Pix[3*x+2] = fromDisp(0.2+0.6*v), fromDisp(0.5), fromDisp(0.8-0.6*v)
			}
			moved := false
			for seed := range uint64(4) {
				out := render(t, m, "fancy_pca", seed, map[string]any{"alpha": 1.0})
				dr, dg, db := disp(out, 50, 0)-disp(m, 50, 0), disp(out, 50, 1)-disp(m, 50, 1), disp(out, 50, 2)-disp(m, 50, 2)
				opExpect(t, math.Abs(dg) < 2e-3 && math.Abs(dr+db) < 2e-3, "seed %d: shift (%v, %v, %v) is not along red-blue", seed, dr, dg, db)
				moved = moved || math.Abs(dr) > 0.005
			}
			opExpect(t, moved, "fancy PCA shifted nothing in 4 seeds")
			vals, vecs := eigenSym3([3][3]float64{{2, 1, 0}, {1, 2, 0}, {0, 0, 5}})
			for k := range 3 {
				var mv [3]float64
				m := [3][3]float64{{2, 1, 0}, {1, 2, 0}, {0, 0, 5}}
				for i := range 3 {
					for j := range 3 {
						mv[i] += m[i][j] * vecs[j][k]
					}
				}
				for i := range 3 {
					opExpect(t, math.Abs(mv[i]-vals[k]*vecs[i][k]) < 1e-9, "eigenpair %d is not one: %v", k, vals)
				}
			}
		},
		"zoom_blur": func(t *testing.T) {
			chelsea := opPhoto(t, "chelsea")
			out := render(t, chelsea, "zoom_blur", 0, map[string]any{"amount": 0.1})
			c := 3 * ((chelsea.H/2)*chelsea.W + chelsea.W/2)
			opExpect(t, math.Abs(float64(out.Pix[c]-chelsea.Pix[c])) < 0.02, "zoom blur moved the centre")
			opExpect(t, opHighFreq(out) < opHighFreq(chelsea)*0.6, "zoom blur kept the detail")
		},
		"median_blur": func(t *testing.T) {
			// Every window against a sort of its values, edges repeated as OpenCV's
			// border does: exact for 3x3 on any floats, and exact for larger squares
			// on an 8-bit source (the histogram's 16-bit levels keep its levels apart).
			src := opShrink(opPhoto(t, "chelsea"), 5) // 90x60
			for p := range src.Pix {
				src.Pix[p] = fromDisp(float32(math.Round(float64(toDisp(src.Pix[p]))*255)) / 255)
			}
			for _, rad := range []int{1, 2, 3} {
				out := render(t, src, "median_blur", 0, map[string]any{"radius": float64(rad) / 90})
				opExpect(t, slices.Equal(out.Pix, opMedianReference(src, rad)), "median of radius %d px differs from a sort of each window", rad)
			}
			// Out-of-gamut values too: below zero, the keys the 3x3 median orders by
			// count the other way.
			noisy := opShrink(opPhoto(t, "chelsea"), 5)
			for p := range noisy.Pix {
				noisy.Pix[p] += float32(p%7)*1e-3 - float32(p%5)*0.3
			}
			out := render(t, noisy, "median_blur", 0, map[string]any{"radius": 1.0 / 90})
			opExpect(t, slices.Equal(out.Pix, opMedianReference(noisy, 1)), "3x3 median of floats is not exact")
			// Salt and pepper on grey: a 3x3 median brings back the grey.
			specks := opFlat(40, 30, mid, mid, mid)
			for p := 0; p < 40*30; p += 37 {
				v := float32(p % 2)
				specks.Pix[3*p], specks.Pix[3*p+1], specks.Pix[3*p+2] = v, v, v
			}
			clean := render(t, specks, "median_blur", 0, map[string]any{"radius": 1.0 / 40})
			opExpect(t, slices.Equal(clean.Pix, opFlat(40, 30, mid, mid, mid).Pix), "a 3x3 median left specks on grey")
		},
		"defocus": func(t *testing.T) {
			// Without the alias blur: the mean over the disc x² + y² <= r² (edges
			// repeated), as albumentations' kernel holds it, r = 3 px of 90.
			src := opShrink(opPhoto(t, "chelsea"), 5) // 90x60
			out := render(t, src, "defocus", 0, map[string]any{"radius": 3.0 / 90, "alias_blur": 0.0})
			worst := 0.0
			for y := range src.H {
				for x := range src.W {
					for c := range 3 {
						var s float64
						n := 0
						for dy := -3; dy <= 3; dy++ {
							for dx := -3; dx <= 3; dx++ {
								if dx*dx+dy*dy <= 9 {
									sx, sy := min(max(x+dx, 0), src.W-1), min(max(y+dy, 0), src.H-1)
									s += float64(src.Pix[3*(sy*src.W+sx)+c])
									n++
								}
							}
						}
						worst = max(worst, math.Abs(s/float64(n)-float64(out.Pix[3*(y*src.W+x)+c])))
					}
				}
			}
			opExpect(t, worst < 1e-5, "defocus of 3 px differs from the disc's mean by %v", worst)
			// A point of light becomes a disc: flat inside, nothing beyond.
			dot := opFlat(41, 41, 0, 0, 0)
			dot.Pix[3*(20*41+20)] = 1
			spot := render(t, dot, "defocus", 0, map[string]any{"radius": 5.0 / 41, "alias_blur": 0.0})
			opExpect(t, spot.Pix[3*(20*41+20)] == spot.Pix[3*(20*41+25)] && spot.Pix[3*(20*41+20)] > 0 && spot.Pix[3*(20*41+26)] == 0 && spot.Pix[3*(24*41+24)] == 0,
				"a point defocused by 5 px is not a flat disc: centre %v, edge %v, beyond %v, corner %v",
				spot.Pix[3*(20*41+20)], spot.Pix[3*(20*41+25)], spot.Pix[3*(20*41+26)], spot.Pix[3*(24*41+24)])
			soft := render(t, dot, "defocus", 0, map[string]any{"radius": 5.0 / 41, "alias_blur": 1.0 / 41 * 0.08})
			opExpect(t, soft.Pix[3*(20*41+26)] > 0, "the alias blur did not soften the disc's edge")
		},
		"sharpen_kernel": func(t *testing.T) {
			// albumentations' kernel on display values, by hand: a bright pixel on grey.
			m := opFlat(5, 5, mid, mid, mid)
			m.Pix[3*12] = fromDisp(0.7)
			out := render(t, m, "sharpen_kernel", 0, map[string]any{"alpha": 0.5, "lightness": 1.0, "size": 0.0005})
			// Centre: (1 - 0.5) 0.7 + 0.5 ((8 + 1) 0.7 - 8 0.5) = 1.5; its neighbour:
			// 0.5 0.5 + 0.5 ((8 + 1) 0.5 - 7 0.5 - 0.7) = 0.4; a flat pixel stays.
			for _, c := range []struct {
				p    int
				want float64
			}{{12, 1.5}, {13, 0.4}, {0, 0.5}} {
				opExpect(t, math.Abs(disp(out, c.p, 0)-c.want) < 1e-4, "pixel %d: %v, want %v", c.p, disp(out, c.p, 0), c.want)
			}
			// lightness 0.5 at alpha 0.5: the kernel sums to 0.75, grey darkens to 0.375.
			dark := render(t, opFlat(4, 4, mid, mid, mid), "sharpen_kernel", 0, map[string]any{"alpha": 0.5, "lightness": 0.5})
			opExpect(t, math.Abs(disp(dark, 5, 1)-0.375) < 1e-4, "lightness 0.5 gave %v, want 0.375", disp(dark, 5, 1))
		},
		"solarize": func(t *testing.T) {
			// albumentations' table on 8-bit levels: i < 128 stays, i >= 128 is 255 - i
			// (the level at the threshold is inverted).
			m := NewImage(256, 1)
			for i := range 256 {
				v := fromDisp(float32(i) / 255)
				m.Pix[3*i], m.Pix[3*i+1], m.Pix[3*i+2] = v, v, v
			}
			out := render(t, m, "solarize", 0, map[string]any{"threshold": 128.0 / 255, "amount": 1.0})
			for i := range 256 {
				want := i
				if i >= 128 {
					want = 255 - i
				}
				got := disp(out, i, 1) * 255
				opExpect(t, math.Abs(got-float64(want)) < 0.01, "level %d solarized at 128 is %v, want %d", i, got, want)
			}
			// A value exactly at the threshold is inverted.
			at := fromDisp(0.6)
			flip := render(t, opFlat(2, 2, at, at, at), "solarize", 0, map[string]any{"threshold": float64(toDisp(at)), "amount": 1.0})
			opExpect(t, math.Abs(disp(flip, 0, 0)-0.4) < 1e-3, "a value at the threshold 0.6 became %v, want 0.4", disp(flip, 0, 0))
			half := render(t, m, "solarize", 0, map[string]any{"threshold": 0.5, "amount": 0.5})
			opExpect(t, half.Pix[3*255] > 0.45 && half.Pix[3*255] < 0.55, "half a solarize of white is %v in linear light, want 0.5", half.Pix[3*255])
		},
		"grid_dropout": func(t *testing.T) {
			src := opFlat(200, 100, mid, mid, mid)
			out := render(t, src, "grid_dropout", 1, map[string]any{"ratio": 0.5, "cells": 10.0})
			dropped := 0
			for p := range 200 * 100 {
				if out.Pix[3*p] == 0 {
					dropped++
				}
			}
			// Squares of half a 20 px cell: a quarter of the area.
			opExpect(t, math.Abs(float64(dropped)-5000) < 400, "grid dropout 0.5 dropped %d of 20000 pixels, want about 5000", dropped)
		},
		"plasma": func(t *testing.T) {
			src := opFlat(200, 200, mid, mid, mid)
			b := render(t, src, "plasma", 1, map[string]any{"brightness": 0.3})
			var d []float64
			for p := range 200 * 200 {
				d = append(d, disp(b, p, 0))
			}
			_, sd := opStats(d)
			opExpect(t, sd > 0.03, "plasma brightness varies with a deviation of only %v", sd)
			sh := render(t, src, "plasma", 1, map[string]any{"shadow": 0.8})
			for p := range 200 * 200 {
				if disp(sh, p, 0) > 0.5+1e-3 {
					t.Fatalf("plasma shadow brightened a pixel to %v", disp(sh, p, 0))
				}
			}
		},
		"xy_masking": func(t *testing.T) {
			src := opFlat(200, 100, mid, mid, mid)
			out := render(t, src, "xy_masking", 1, map[string]any{"vertical": 1.0, "horizontal": 1.0, "width": 0.05})
			var fullCols, fullRows int
			for x := range 200 {
				all := true
				for y := range 100 {
					all = all && out.Pix[3*(y*200+x)] == 0
				}
				if all {
					fullCols++
				}
			}
			for y := range 100 {
				all := true
				for x := range 200 {
					all = all && out.Pix[3*(y*200+x)] == 0
				}
				if all {
					fullRows++
				}
			}
			opExpect(t, fullCols == 10 && fullRows == 10, "one stripe each way of 10 px: %d black columns, %d black rows", fullCols, fullRows)
		},
		"border_crop": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			sizes := map[[2]int]bool{}
			for seed := range uint64(5) {
				out := render(t, coffee, "border_crop", seed, map[string]any{"limit": 0.2})
				opExpect(t, out.W >= 360 && out.W <= 600 && out.H >= 240 && out.H <= 400, "border crop 0.2 of 600x400: %dx%d", out.W, out.H)
				found := false
				for y0 := 0; y0 <= 80 && !found; y0++ {
					for x0 := 0; x0 <= 120 && !found; x0++ {
						found = y0+out.H <= coffee.H && x0+out.W <= coffee.W && opSubEqual(coffee, out, x0, y0)
					}
				}
				opExpect(t, found, "seed %d: the crop is not a part of the source within the limit", seed)
				sizes[[2]int{out.W, out.H}] = true
			}
			opExpect(t, len(sizes) >= 4, "5 seeds gave only %d sizes", len(sizes))
		},
		"glass_blur": func(t *testing.T) {
			chelsea := opPhoto(t, "chelsea")
			out := render(t, chelsea, "glass_blur", 1, map[string]any{"sigma": 0.0, "delta": 0.01})
			// Without the blurs every pixel is a source pixel from within the distance.
			d := int(math.Round(0.01 * float64(max(chelsea.W, chelsea.H))))
			y, x := chelsea.H/2, chelsea.W/2
			found := false
			for dy := -d; dy <= d && !found; dy++ {
				for dx := -d; dx <= d && !found; dx++ {
					j, i := 3*((y+dy)*chelsea.W+x+dx), 3*(y*chelsea.W+x)
					found = slices.Equal(chelsea.Pix[j:j+3], out.Pix[i:i+3])
				}
			}
			opExpect(t, found, "a glass-blurred pixel is not a neighbour within %d px", d)
			soft := render(t, chelsea, "glass_blur", 1, map[string]any{"sigma": 0.002, "delta": 0.01})
			opExpect(t, opHighFreq(soft) < opHighFreq(chelsea)*0.6, "glass blur kept the detail")
		},
		"crop_and_pad": func(t *testing.T) {
			coffee := opPhoto(t, "coffee")
			padded := render(t, coffee, "crop_and_pad", 0, map[string]any{"percent": 0.1, "keep_size": false, "fill": 1.0})
			opExpect(t, padded.W == 720 && padded.H == 480 && opSubEqual(padded, coffee, 60, 40) && padded.Pix[0] == 1,
				"pad 0.1 of 600x400: %dx%d, or the image is not centred in white", padded.W, padded.H)
			cropped := render(t, coffee, "crop_and_pad", 0, map[string]any{"percent": -0.1, "keep_size": false})
			opExpect(t, cropped.W == 480 && cropped.H == 320 && opSubEqual(coffee, cropped, 60, 40), "crop 0.1 of 600x400: %dx%d, or not the centre", cropped.W, cropped.H)
			kept := render(t, coffee, "crop_and_pad", 0, map[string]any{"percent": -0.1})
			opSameFloats(t, "crop keep_size is the crop resized", Resize(cropped, 600, 400), kept)
		},
	}
}

// augmentResolutionIndependent checks that a seeded warp does the same to a photo and to
// the same photo at half the size (as the preview and the export of one edit must): the
// small render and the large one shrunk differ far less than either differs from the
// unwarped image.
func augmentResolutionIndependent(t *testing.T, op string, set map[string]any) {
	t.Helper()
	big := opPhoto(t, "coffee")
	small := opShrink(big, 2)
	e := opEdit(op, opArgs(t, op, set))
	a := opShrink(opRender(t, big, 8, e), 2)
	b := opRender(t, small, 8, e)
	d := func(x, y *Image) float64 {
		var s float64
		for i := range x.Pix {
			s += math.Abs(float64(toDisp(x.Pix[i]) - toDisp(y.Pix[i])))
		}
		return s / float64(len(x.Pix))
	}
	if same, moved := d(a, b), d(b, small); !(same < moved/4) {
		t.Errorf("%s at two resolutions differs by %v, the warp itself moves %v", op, same, moved)
	}
}

// opMedianReference is the median over squares of half side rad of each channel, by
// sorting every window (edges repeated): what median_blur must compute.
func opMedianReference(src *Image, rad int) []float32 {
	out := make([]float32, len(src.Pix))
	win := make([]float32, 0, (2*rad+1)*(2*rad+1))
	for y := range src.H {
		for x := range src.W {
			for c := range 3 {
				win = win[:0]
				for dy := -rad; dy <= rad; dy++ {
					for dx := -rad; dx <= rad; dx++ {
						sx, sy := min(max(x+dx, 0), src.W-1), min(max(y+dy, 0), src.H-1)
						win = append(win, src.Pix[3*(sy*src.W+sx)+c])
					}
				}
				slices.Sort(win)
				out[3*(y*src.W+x)+c] = win[len(win)/2]
			}
		}
	}
	return out
}
