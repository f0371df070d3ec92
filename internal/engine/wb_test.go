package engine

import (
	"math"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// A grey seen through the inverse of white_balance(t, tint) is recovered as (t, tint):
// the solver inverts exactly what renders.
func TestNeutralWhiteBalanceRecoversCast(t *testing.T) {
	for _, tc := range []struct{ temp, tint float64 }{
		{0, 0}, {800, 0.1}, {-2500, -0.3}, {3500, 0.6}, {-4000, 1}, {1234.5, -0.777},
	} {
		g := whiteBalanceGains(tc.temp, tc.tint)
		const grey = 0.18
		temp, tint, res, err := NeutralWhiteBalance(grey/g[0], grey/g[1], grey/g[2])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(temp-tc.temp) > 1 || math.Abs(tint-tc.tint) > 1e-3 || res > 1e-4 {
			t.Errorf("cast of white_balance(%v, %v) inverted: solved (%v, %v), residual %v", tc.temp, tc.tint, temp, tint, res)
		}
	}
}

// A grey patch tinted by white_balance(t0, tint0) is made neutral again by the
// solution, checked by rendering the operation on the patch.
func TestNeutralWhiteBalanceNeutralizesTintedGrey(t *testing.T) {
	for _, tc := range []struct{ temp, tint float64 }{
		{1500, 0.2}, {-1200, -0.4}, {2500, -0.5}, {-800, 0.3}, {4000, 1},
	} {
		patch := opFlat(1, 1, 0.2, 0.2, 0.2)
		tinted := opRender(t, patch, 1, opEdit("white_balance", Args{"temperature": tc.temp, "tint": tc.tint}))
		temp, tint, res, err := NeutralWhiteBalance(float64(tinted.Pix[0]), float64(tinted.Pix[1]), float64(tinted.Pix[2]))
		if err != nil {
			t.Fatal(err)
		}
		out := opRender(t, tinted, 1, opEdit("white_balance", Args{"temperature": temp, "tint": tint}))
		r, g, b := float64(out.Pix[0]), float64(out.Pix[1]), float64(out.Pix[2])
		if math.Abs(r/g-1) > 1e-3 || math.Abs(b/g-1) > 1e-3 || res > 1e-3 {
			t.Errorf("grey tinted by white_balance(%v, %v): solution (%v, %v) renders (%v, %v, %v), residual %v", tc.temp, tc.tint, temp, tint, r, g, b, res)
		}
	}
}

// A saturated colour is not a cast: the best white balance leaves it clearly coloured,
// and the residual says so. Channels that are not positive are refused.
func TestNeutralWhiteBalanceRefuses(t *testing.T) {
	// Cooling to a 3500 K assumption makes a cast stronger than warming to 10500 K
	// undoes: out of reach.
	blue := opRender(t, opFlat(1, 1, 0.2, 0.2, 0.2), 1, opEdit("white_balance", Args{"temperature": -3000.0, "tint": 0.0}))
	if _, _, res, err := NeutralWhiteBalance(float64(blue.Pix[0]), float64(blue.Pix[1]), float64(blue.Pix[2])); err != nil || res < 0.05 {
		t.Errorf("grey cooled by 3000 K: residual %v, error %v; want one that says the cast is out of reach", res, err)
	}
	if _, _, res, err := NeutralWhiteBalance(0.5, 0.04, 0.04); err != nil || res < 0.5 {
		t.Errorf("saturated red: residual %v, error %v; want a large residual", res, err)
	}
	for _, c := range [][3]float64{{0, 0.1, 0.1}, {0.1, -1, 0.1}, {0.1, 0.1, math.NaN()}, {math.Inf(1), 0.1, 0.1}} {
		if _, _, _, err := NeutralWhiteBalance(c[0], c[1], c[2]); darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("patch %v: error %v, want invalid_input", c, err)
		}
	}
}
