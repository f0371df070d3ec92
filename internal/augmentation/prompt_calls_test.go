package augmentation

import (
	"math"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/prompt"
)

// An albumentations call pasted into a prompt means what it means in a training
// script: the parameters it writes and the defaults it leaves, in albumentations'
// units, as a pipeline file with the same transform is read; the words around it
// still give its p.
func TestPromptCallsReadAsPipelines(t *testing.T) {
	s := testEditor(t)
	type want struct {
		entry  string
		values map[string]float64
		ranges map[string][2]float64
		p      float64
	}
	cases := []struct {
		prompt string
		want   []want
	}{
		// clip_limit=2 is the range 1..2 (albumentations' one_to); the tile grid is read.
		{"A.CLAHE(clip_limit=2, tile_grid_size=(4, 4), p=0.3)",
			[]want{{"clahe", map[string]float64{"amount": 1, "tiles": 4}, map[string][2]float64{"clip_limit": {1, 2}}, 0.3}}},
		// Inside a Compose, with the defaults albumentations fills: sat_shift_limit 30
		// and val_shift_limit 20 in OpenCV's units.
		{"A.Compose([A.HueSaturationValue(hue_shift_limit=10, p=0.3)])",
			[]want{{"hue_saturation_value", map[string]float64{}, map[string][2]float64{"hue": {-20, 20}, "saturation": {-30.0 / 128, 30.0 / 128}, "value": {-20 * 0.011271055006, 20 * 0.011271055006}}, 0.3}}},
		// A fixed size in pixels of a 1024x768 image; the words say p.
		{"A.LongestMaxSize(max_size=640) on every image",
			[]want{{"resize_max_size", map[string]float64{"factor": 0.625}, map[string][2]float64{}, 1}}},
		// A constant border is the affine entry, as in a pipeline; angles turn
		// counter-clockwise in albumentations (a symmetric range stays one).
		{"A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=15, border_mode=cv2.BORDER_CONSTANT, p=0.7)",
			[]want{{"affine", map[string]float64{}, map[string][2]float64{"angle": {-15, 15}, "scale": {0.9, 1.1}, "translate_x": {-0.05, 0.05}, "translate_y": {-0.05, 0.05}}, 0.7}}},
		{"A.Rotate(limit=(10, 30), border_mode=0, p=1)",
			[]want{{"rotate", map[string]float64{}, map[string][2]float64{"angle": {-30, -10}}, 1}}},
		// Positional arguments by the constructor's order; "each" gives both p.
		{"A.ISONoise() and RGBShift(15, 15, 15), prob 0.3 each",
			[]want{
				{"iso_noise", map[string]float64{}, map[string][2]float64{"color_shift": {0.01, 0.05}, "intensity": {0.1, 0.5}}, 0.3},
				{"rgb_shift", map[string]float64{}, map[string][2]float64{"red": {-15.0 / 255, 15.0 / 255}, "green": {-15.0 / 255, 15.0 / 255}, "blue": {-15.0 / 255, 15.0 / 255}}, 0.3},
			}},
		// A.Sharpen is albumentations' 3x3 kernel, not the unsharp mask its name shares
		// a word with; a scalar alpha is 0..alpha (to_tuple(alpha, 0)).
		{"A.Sharpen(alpha=0.4, p=0.5)",
			[]want{{"sharpen_kernel", map[string]float64{}, map[string][2]float64{"alpha": {0, 0.4}, "lightness": {0.5, 1}}, 0.5}}},
		{"A.UnsharpMask(p=0.2)",
			[]want{{"sharpen", map[string]float64{"threshold": 10.0 / 255}, map[string][2]float64{"amount": {0.2, 0.5}}, 0.2}}},
		// blur_limit 5 is median kernels 3..5: half sides of 1..2 px of the long edge.
		{"A.MedianBlur(blur_limit=5, p=0.3)",
			[]want{{"median_blur", map[string]float64{}, map[string][2]float64{"radius": {1.0 / 1024, 2.0 / 1024}}, 0.3}}},
		// Defocus's radius is pixels (a scalar r is 1..r), alias_blur a sigma in pixels.
		{"A.Defocus(radius=(3, 6), alias_blur=0.2)",
			[]want{{"defocus", map[string]float64{}, map[string][2]float64{"radius": {3.0 / 1024, 6.0 / 1024}, "alias_blur": {0, 0.2 / 1024}}, 0.5}}},
		// Solarize's threshold is a level on 0..255; a scalar is that one value.
		{"A.Solarize(threshold=200, p=0.2)",
			[]want{{"solarize", map[string]float64{"amount": 1, "threshold": 200.0 / 255}, map[string][2]float64{}, 0.2}}},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	for _, c := range cases {
		r := s.PromptParser().Parse(c.prompt, prompt.Options{Width: 1024, Height: 768})
		if len(r.Transforms) != len(c.want) {
			t.Errorf("%s: %d transforms, want %d: %+v", c.prompt, len(r.Transforms), len(c.want), r.Transforms)
			continue
		}
		for _, e := range r.Errors {
			t.Errorf("%s: %s", c.prompt, e.Message)
		}
		for i, w := range c.want {
			got := r.Transforms[i]
			ok := got.Entry == w.entry && near(got.P, w.p) && len(got.Values) == len(w.values) && len(got.Ranges) == len(w.ranges)
			for k, v := range w.values {
				ok = ok && near(got.Values[k], v)
			}
			for k, v := range w.ranges {
				g, has := got.Ranges[k]
				ok = ok && has && near(g[0], v[0]) && near(g[1], v[1])
			}
			if !ok {
				t.Errorf("%s: step %d is %s %v %v p %v, want %s %v %v p %v", c.prompt, i, got.Entry, got.Values, got.Ranges, got.P, w.entry, w.values, w.ranges, w.p)
			}
		}
	}
	// Words around a call that nothing reads are still said: only what the words'
	// reading said of the call's own arguments gives way to the pipeline's reading.
	r0 := s.PromptParser().Parse("zorblax A.CLAHE(clip_limit=2, tile_grid_size=(4, 4))", prompt.Options{Width: 1024, Height: 768})
	said := false
	for _, u := range r0.Unread() {
		said = said || strings.Contains(u.Phrase, "zorblax")
	}
	if len(r0.Transforms) != 1 || !said {
		t.Errorf("zorblax A.CLAHE(...): %+v, unread %+v; want zorblax listed", r0.Transforms, r0.Unread())
	}
	for _, u := range r0.Unread() {
		if strings.Contains(u.Phrase, "grid") {
			t.Errorf("zorblax A.CLAHE(...): the call's own tile_grid_size still listed unread: %+v", u)
		}
	}
	// A call whose pipeline reading leaves part of it undone keeps the prompt's own
	// reading, which says what it did not read: darkroom's rotations reflect or fill
	// with a constant, not replicate (border_mode=1).
	r := s.PromptParser().Parse("A.Rotate(limit=15, border_mode=1)", prompt.Options{Width: 1024, Height: 768})
	if len(r.Transforms) != 1 || len(r.Unread()) == 0 {
		t.Errorf("Rotate(border_mode=1): %+v, unread %+v; want the prompt's reading with border_mode unread", r.Transforms, r.Unread())
	}
	// RandomBrightnessContrast's defaults, as a pipeline reads them: brightness ±0.2
	// added, contrast ±0.2 as a gain of 2.2 log2(1 ± 0.2) stops.
	r = s.PromptParser().Parse("A.RandomBrightnessContrast(p=0.3)", prompt.Options{Width: 1024, Height: 768})
	if len(r.Transforms) != 1 || r.Transforms[0].Entry != "random_brightness" ||
		!near(r.Transforms[0].Ranges["gain"][0], 2.2*math.Log2(0.8)) || !near(r.Transforms[0].Ranges["gain"][1], 2.2*math.Log2(1.2)) {
		t.Errorf("RandomBrightnessContrast(p=0.3): %+v", r.Transforms)
	}
}
