package engine

import (
	"math"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Ranges of the white_balance operation's arguments (contracts/operations.cue), which
// NeutralWhiteBalance searches.
const (
	wbMaxTemperature = 4000
	wbMaxTint        = 1
)

// NeutralWhiteBalance returns the white_balance arguments that turn a patch of linear
// RGB colour (r, g, b) neutral grey: temperature in [-4000, 4000] kelvin and tint in
// [-1, 1]. It evaluates the white_balance operation itself, rendered on a one-pixel
// image, so the answer is the exact inverse of what renders: a coarse grid over the
// whole range, then a pattern search refined to a hundredth of a kelvin. residual is
// what is left of the cast, sqrt(ln(R/G)^2 + ln(B/G)^2) of the corrected patch: about
// zero when white balance can neutralize it, larger when the patch is too coloured
// (a cast no temperature and tint can undo, or a colour that is not a cast at all).
// Returns invalid_input when a channel is not a positive finite number.
func NeutralWhiteBalance(r, g, b float64) (temperature, tint, residual float64, err error) {
	for _, v := range []float64{r, g, b} {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, 0, 0, darkroom.Errorf(darkroom.InvalidInput, "neutral white balance: patch colour (%v, %v, %v) needs three positive finite channels", r, g, b)
		}
	}
	patch := &Image{W: 1, H: 1, Pix: []float32{float32(r), float32(g), float32(b)}}
	cast := func(t, ti float64) float64 {
		out, err := Render(patch, []Edit{{Op: "white_balance", Args: Args{"temperature": t, "tint": ti}, Strength: 1}}, RenderOptions{})
		if err != nil {
			return math.Inf(1)
		}
		R, G, B := float64(out.Pix[0]), float64(out.Pix[1]), float64(out.Pix[2])
		if !(R > 0 && G > 0 && B > 0) {
			return math.Inf(1)
		}
		lr, lb := math.Log(R/G), math.Log(B/G)
		return lr*lr + lb*lb
	}

	best := math.Inf(1)
	for t := -wbMaxTemperature; t <= wbMaxTemperature; t += 200 {
		for i := -10; i <= 10; i++ {
			ti := float64(i) / 10 * wbMaxTint
			if e := cast(float64(t), ti); e < best {
				best, temperature, tint = e, float64(t), ti
			}
		}
	}
	// Pattern search: try the eight neighbours at the current steps, move to the best,
	// halve the steps when none is better.
	st, sti := 100.0, 0.05
	for range 10000 {
		if st < 0.01 && sti < 1e-6 {
			break
		}
		bt, bti, moved := temperature, tint, false
		for _, d := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			t := min(max(temperature+d[0]*st, -wbMaxTemperature), wbMaxTemperature)
			ti := min(max(tint+d[1]*sti, -wbMaxTint), wbMaxTint)
			if e := cast(t, ti); e < best {
				best, bt, bti, moved = e, t, ti, true
			}
		}
		if moved {
			temperature, tint = bt, bti
			continue
		}
		st, sti = st/2, sti/2
	}
	return temperature, tint, math.Sqrt(best), nil
}
