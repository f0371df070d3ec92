package engine

import (
	"math"
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
	}
}
