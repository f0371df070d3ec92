package engine

import (
	"math"
	"testing"
)

// Linear interpolation reads between two pixels in proportion to the distance: a
// shift by half a pixel gives each pixel the mean of two neighbours, where the cubic
// kernel, on a curved ramp, does not.
func TestLinearInterpolationIsBilinear(t *testing.T) {
	const w, h = 64, 6
	src := NewImage(w, h)
	v := func(x int) float32 { return float32(x*x) / (w * w) }
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			src.Pix[i], src.Pix[i+1], src.Pix[i+2] = v(x), v(x)/2, v(w-1-x)
		}
	}
	shift := []Edit{opEdit("affine", opArgs(t, "affine", map[string]any{"translate_x": 0.5 / w, "mode": "edge"}))}
	lin, err := Render(src, shift, RenderOptions{Interpolation: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	cub, err := Render(src, shift, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cubicDiffers := false
	for y := range h {
		for x := 2; x < w-2; x++ {
			i := 3 * (y*w + x)
			want := [3]float32{(v(x-1) + v(x)) / 2, (v(x-1) + v(x)) / 4, (v(w-x) + v(w-1-x)) / 2}
			for c := range 3 {
				if d := math.Abs(float64(lin.Pix[i+c] - want[c])); d > 1e-6 {
					t.Fatalf("linear: pixel (%d, %d) channel %d is %v, want the neighbours' mean %v", x, y, c, lin.Pix[i+c], want[c])
				}
				cubicDiffers = cubicDiffers || math.Abs(float64(cub.Pix[i+c]-want[c])) > 1e-5
			}
		}
	}
	if !cubicDiffers {
		t.Error("the cubic render equals the linear one: the option changed nothing")
	}
}

// Every warp renders band by band as the whole image does under linear
// interpolation too, and an unknown interpolation is refused.
func TestBandsMatchWholeLinear(t *testing.T) {
	src := opPhoto(t, "coffee")
	opt := RenderOptions{Seed: 4, Interpolation: "linear"}
	checkWith(t, src, []Edit{opSample(t, "flip"), opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 10.0})), opSample(t, "blur")}, opt)
	checkWith(t, src, []Edit{opSample(t, "affine"), opSample(t, "perspective")}, opt)
	if _, err := Render(src, []Edit{opSample(t, "rotate")}, RenderOptions{Interpolation: "lanczos"}); err == nil {
		t.Error("interpolation lanczos was accepted")
	}
}
