package engine

import (
	"math"
	"slices"
	"testing"
)

// Direction tests of the albumentations weather and geometry transforms added for
// issue 29 (SafeRotate, RandomSunFlare, Spatter, RandomGravel); TestOpsChangeInExpectedDirection
// runs them with the others.

func augmentFx2DirectionTests() map[string]func(t *testing.T) {
	render := func(t *testing.T, src *Image, op string, seed uint64, set map[string]any) *Image {
		t.Helper()
		return opRender(t, src, seed, opEdit(op, opArgs(t, op, set)))
	}
	return map[string]func(t *testing.T){
		"safe_rotate": func(t *testing.T) {
			// Four white marks at the corners of a black 120x80 image: a plain rotation
			// by 30 degrees cuts them off, a safe one keeps each of them in the frame.
			m := opFlat(120, 80, 0, 0, 0)
			marks := [4][2]int{{0, 0}, {116, 0}, {0, 76}, {116, 76}}
			for _, c := range marks {
				for y := c[1]; y < c[1]+4; y++ {
					for x := c[0]; x < c[0]+4; x++ {
						copy(m.Pix[3*(y*m.W+x):], []float32{1, 1, 1})
					}
				}
			}
			// The marks' light, summed: a resampling keeps it, scaled by the area the
			// safe rotation shrinks the image to.
			light := func(out *Image) float64 {
				var s float64
				for i := 0; i < len(out.Pix); i += 3 {
					s += float64(out.Pix[i])
				}
				return s
			}
			for _, angle := range []float64{30, -45, 100} {
				sin, cos := math.Sincos(angle * math.Pi / 180)
				area := 120 / math.Ceil(80*math.Abs(sin)+120*math.Abs(cos)) * 80 / math.Ceil(80*math.Abs(cos)+120*math.Abs(sin))
				got := light(render(t, m, "safe_rotate", 0, map[string]any{"angle": angle, "mode": "constant"}))
				opExpect(t, math.Abs(got-64*area) < 0.2*64*area, "safe_rotate %v kept %v of the marks' light, want %v: a corner is cut off", angle, got, 64*area)
			}
			plain := light(render(t, m, "rotate", 0, map[string]any{"angle": 30.0}))
			opExpect(t, plain < 0.5*64, "a plain rotation by 30 kept %v of the marks' 64: the test shows nothing", plain)

			// albumentations' geometry: the rotated corners span the canvas, to within
			// the pixel its rounding up leaves, and stay inside it.
			maps, err := GeometryMaps(600, 400, []Edit{opEdit("safe_rotate", opArgs(t, "safe_rotate", map[string]any{"angle": 30.0}))}, RenderOptions{})
			if err != nil || len(maps) != 1 {
				t.Fatalf("safe_rotate map: %v, %d maps", err, len(maps))
			}
			minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
			for _, c := range [4][2]float64{{0, 0}, {600, 0}, {0, 400}, {600, 400}} {
				x, y := maps[0].Forward(c[0], c[1])
				minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
			}
			opExpect(t, minX >= 0 && maxX <= 600 && minY >= 0 && maxY <= 400 && minX < 1 && maxX > 599 && minY < 1 && maxY > 399,
				"safe_rotate 30 of 600x400 takes the corners to x %v..%v, y %v..%v: not the canvas", minX, maxX, minY, maxY)
			// Clockwise, as darkroom's rotate: the top-left corner moves right along the top.
			x, y := maps[0].Forward(0, 0)
			opExpect(t, x > 100 && y < 1, "safe_rotate 30 clockwise took the top-left corner to (%v, %v)", x, y)
			// The border the shrunk image leaves is mirrored by default, black in constant mode.
			coffee := opPhoto(t, "coffee")
			refl := render(t, coffee, "safe_rotate", 0, map[string]any{"angle": 30.0})
			black := render(t, coffee, "safe_rotate", 0, map[string]any{"angle": 30.0, "mode": "constant"})
			opExpect(t, black.Pix[0] == 0 && black.Pix[1] == 0 && (refl.Pix[0] > 0 || refl.Pix[1] > 0),
				"the corner is %v in constant mode (want black) and %v mirrored (want the image)", black.Pix[:3], refl.Pix[:3])
			opExpect(t, black.W == 600 && black.H == 400, "safe_rotate changed the canvas to %dx%d", black.W, black.H)
		},
		"sun_flare": func(t *testing.T) {
			disp := func(m *Image, p, c int) float64 { return float64(toDisp(m.Pix[3*p+c])) }
			grey := fromDisp(0.4)
			flat := opFlat(200, 100, grey, grey, grey)
			// brightest returns the pixel nearest the source's colour (its centre).
			brightest := func(m *Image) (int, int) {
				best, bp := -1.0, 0
				for p := range m.W * m.H {
					if v := disp(m, p, 0) + disp(m, p, 1) + disp(m, p, 2); v > best {
						best, bp = v, p
					}
				}
				return bp % m.W, bp / m.W
			}
			centres := map[[2]int]bool{}
			for seed := range uint64(6) {
				out := render(t, flat, "sun_flare", seed, map[string]any{"radius": 0.3, "red": 1.0, "green": 0.5, "blue": 0.0})
				x, y := brightest(out)
				centres[[2]int{x, y}] = true
				p := y*200 + x
				opExpect(t, y < 51, "seed %d: the source's centre (%d, %d) is outside the default region, the top half", seed, x, y)
				opExpect(t, math.Abs(disp(out, p, 0)-1) < 0.01 && math.Abs(disp(out, p, 1)-0.5) < 0.01 && disp(out, p, 2) < 0.01,
					"seed %d: the source's centre is %v %v %v, want its colour 1 0.5 0", seed, disp(out, p, 0), disp(out, p, 1), disp(out, p, 2))
				// Without ghosts only the disc of the radius (60 px) changes, and it
				// brightens, most near the centre.
				var touched, far int
				for q := range 200 * 100 {
					d := math.Hypot(float64(q%200-x), float64(q/200-y))
					changed := math.Abs(disp(out, q, 0)-0.4) > 1e-4
					if changed {
						touched++
					}
					if changed && d > 62 {
						far++
					}
				}
				opExpect(t, far == 0 && touched > 1000, "seed %d: %d pixels changed, %d of them beyond the radius", seed, touched, far)
				near, mid := disp(out, y*200+min(x+10, 199), 0), disp(out, y*200+min(x+40, 199), 0)
				if x+40 < 200 {
					opExpect(t, near > mid && mid >= 0.4, "seed %d: red 10 px from the centre %v, 40 px %v: no fading glow", seed, near, mid)
				}
			}
			opExpect(t, len(centres) >= 5, "6 seeds put the source at %d places", len(centres))
			// A region in the bottom right quarter keeps the source there.
			for seed := range uint64(4) {
				out := render(t, flat, "sun_flare", seed, map[string]any{"radius": 0.2, "roi_left": 0.5, "roi_top": 0.5, "roi_bottom": 1.0})
				x, y := brightest(out)
				opExpect(t, x >= 99 && y >= 49, "seed %d: source at (%d, %d), outside the bottom right quarter", seed, x, y)
			}
			// Ghosts alone: faint discs that lighten a grey image a little, each at most
			// 0.2 of the way to a light colour.
			out := render(t, opFlat(400, 300, grey, grey, grey), "sun_flare", 3, map[string]any{"circles": 10.0})
			var sum float64
			touched := 0
			for p := range 400 * 300 {
				v := disp(out, p, 0)
				sum += v - 0.4
				if math.Abs(v-0.4) > 1e-4 {
					touched++
				}
				opExpect(t, v >= 0.4-1e-4, "a ghost darkened a grey pixel to %v", v)
			}
			opExpect(t, touched > 0 && sum/float64(400*300) < 0.1, "10 ghosts touched %d pixels, mean change %v", touched, sum/float64(400*300))
		},
		"spatter": func(t *testing.T) {
			disp := func(m *Image, p, c int) float64 { return float64(toDisp(m.Pix[3*p+c])) }
			grey := fromDisp(0.4)
			flat := opFlat(300, 200, grey, grey, grey)
			// changed returns the share of pixels changed and their mean change of red.
			changed := func(m *Image) (share, mean float64) {
				n := 0
				var sum float64
				for p := range m.W * m.H {
					if d := disp(m, p, 0) - 0.4; math.Abs(d) > 1e-4 {
						n++
						sum += d
					}
				}
				if n == 0 {
					return 0, 0
				}
				return float64(n) / float64(m.W*m.H), sum / float64(n)
			}
			for _, cov := range []float64{0.1, 0.25, 0.5} {
				rain := render(t, flat, "spatter", 2, map[string]any{"amount": 0.6, "coverage": cov})
				share, mean := changed(rain)
				opExpect(t, math.Abs(share-cov) < 0.05+0.15*cov && mean > 0, "rain at coverage %v wetted %v of the frame, mean change %v", cov, share, mean)
			}
			// Rain lightens towards its colour; more amount, brighter drops.
			_, weak := changed(render(t, flat, "spatter", 2, map[string]any{"amount": 0.3}))
			_, strong := changed(render(t, flat, "spatter", 2, map[string]any{"amount": 0.9}))
			opExpect(t, strong > weak*2.5 && weak > 0, "rain amount 0.3 brightens by %v, 0.9 by %v", weak, strong)
			// Mud: opaque dark brown cores on part of the wet share, never lighter.
			mud := render(t, flat, "spatter", 2, map[string]any{"amount": 1.0, "mode": "mud", "coverage": 0.3})
			share, mean := changed(mud)
			opExpect(t, share > 0.03 && share < 0.3 && mean < -0.2, "mud covered %v of the frame, mean change %v", share, mean)
			brown := 0
			for p := range 300 * 200 {
				if math.Abs(disp(mud, p, 0)-20.0/255) < 0.01 && math.Abs(disp(mud, p, 2)-63.0/255) < 0.01 {
					brown++
				}
			}
			opExpect(t, brown > 0, "no pixel of the mud is albumentations' mud colour")
			// Seeds place the splashes differently; the same seed repeats them.
			a, b := render(t, flat, "spatter", 2, map[string]any{"amount": 0.6}), render(t, flat, "spatter", 3, map[string]any{"amount": 0.6})
			opExpect(t, !slices.Equal(a.Pix, b.Pix) && slices.Equal(a.Pix, render(t, flat, "spatter", 2, map[string]any{"amount": 0.6}).Pix), "seeds do not place the drops")
			// The coverage holds at any resolution: the half-size render wets the same share.
			small := opFlat(150, 100, grey, grey, grey)
			s1, _ := changed(render(t, small, "spatter", 2, map[string]any{"amount": 0.6, "coverage": 0.3}))
			s2, _ := changed(render(t, flat, "spatter", 2, map[string]any{"amount": 0.6, "coverage": 0.3}))
			opExpect(t, math.Abs(s1-s2) < 0.04, "coverage 0.3 wets %v at 150x100 and %v at 300x200", s1, s2)
		},
		"gravel": func(t *testing.T) {
			// A saturated orange image: stones change lightness only, inside the region.
			m := opFlat(500, 300, fromDisp(0.8), fromDisp(0.4), fromDisp(0.1))
			hue := func(c []float32) float64 {
				r, g, b := float64(toDisp(c[0])), float64(toDisp(c[1])), float64(toDisp(c[2]))
				mx, mn := max(r, g, b), min(r, g, b)
				if mx-mn < 0.02 {
					return -1
				}
				return (g - b) / (mx - mn) // red is the largest here: the hue's place
			}
			want := hue(m.Pix[:3])
			out := render(t, m, "gravel", 4, map[string]any{"patches": 3.0, "roi_left": 0.2, "roi_top": 0.5, "roi_right": 0.8, "roi_bottom": 0.9})
			touched := 0
			levels := map[int]bool{}
			for p := range 500 * 300 {
				c := out.Pix[3*p : 3*p+3]
				if slices.Equal(c, m.Pix[3*p:3*p+3]) {
					continue
				}
				touched++
				x, y := p%500, p/500
				opExpect(t, x >= 99 && x <= 401 && y >= 149 && y <= 271, "a stone at (%d, %d), outside the region", x, y)
				if hv := hue(c); hv >= 0 {
					opExpect(t, math.Abs(hv-want) < 0.05, "a stone at (%d, %d) changed the hue: %v, want %v", x, y, hv, want)
				}
				d := toDisp(c[0])
				l := (max(d, toDisp(c[1]), toDisp(c[2])) + min(d, toDisp(c[1]), toDisp(c[2]))) / 2
				levels[int(l*20)] = true
			}
			// Three patches of up to 100 x 15 px at this size, a stone per 2.5 square
			// pixels of each, up to 9 pixels a stone: some hundreds of pixels, at many
			// lightness levels.
			opExpect(t, touched > 30 && touched < 3*100*15, "gravel touched %d pixels", touched)
			opExpect(t, len(levels) >= 8, "the stones have %d lightness levels of 20", len(levels))
			none := render(t, m, "gravel", 4, map[string]any{"patches": 0.0})
			opExpect(t, slices.Equal(none.Pix, m.Pix), "no patches changed the image")
		},
	}
}
