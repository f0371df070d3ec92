package augment

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A call pasted from a training script reads as the transform A.to_dict would write:
// positional arguments named by the constructor's order, tuples as lists, OpenCV's
// constants as their numbers, p apart; anything that is not a call of literals is
// refused, so the prompt's own reading stands.
func TestParseCall(t *testing.T) {
	m := albuMap(t)
	p := func(v float64) *float64 { return &v }
	good := []struct {
		src  string
		want Call
	}{
		{"A.Rotate(limit=15, p=0.7)", Call{Class: "Rotate", Args: map[string]any{"limit": 15.0}, P: p(0.7)}},
		{"albumentations.RandomResizedCrop(224, 224, scale=(0.5, 1.0))", Call{Class: "RandomResizedCrop", Args: map[string]any{"height": 224.0, "width": 224.0, "scale": []any{0.5, 1.0}}}},
		{"RGBShift(15,15,15)", Call{Class: "RGBShift", Args: map[string]any{"r_shift_limit": 15.0, "g_shift_limit": 15.0, "b_shift_limit": 15.0}}},
		{"A.ShiftScaleRotate(border_mode=cv2.BORDER_CONSTANT, value=None, interpolation=cv2.INTER_CUBIC,)", Call{Class: "ShiftScaleRotate", Args: map[string]any{"border_mode": 0.0, "value": nil, "interpolation": 2.0}}},
		{"A.Affine(shear={'x': (-10, 10), \"y\": [0, 0]}, fit_output=True, p=.5)", Call{Class: "Affine", Args: map[string]any{"shear": map[string]any{"x": []any{-10.0, 10.0}, "y": []any{0.0, 0.0}}, "fit_output": true}, P: p(0.5)}},
		{"A.GaussNoise(var_limit=(1e1, 5_0))", Call{Class: "GaussNoise", Args: map[string]any{"var_limit": []any{10.0, 50.0}}}},
		{"A.HorizontalFlip()", Call{Class: "HorizontalFlip", Args: map[string]any{}}},
	}
	for _, g := range good {
		c, err := m.ParseCall(g.src)
		if err != nil {
			t.Errorf("%s: %v", g.src, err)
			continue
		}
		if diff := cmp.Diff(g.want, *c); diff != "" {
			t.Errorf("%s (-want +got):\n%s", g.src, diff)
		}
	}
	for _, src := range []string{
		"A.Rotate(limit=angle)",                  // a variable
		"A.Rotate(limit=15 * 2)",                 // an expression
		"A.OneOf([A.Blur()])",                    // a call inside
		"A.HorizontalFlip(0.5, 1, 2)",            // positional arguments it has no names for
		"A.Rotate(limit=15",                      // unclosed
		"A.Rotate(limit=15) and more",            // text after it
		"rotate(15)",                             // not a class
		"A.Rotate(p='often')",                    // p that is no number
		"A.CoarseDropout(fill_value=cv2.FILLED)", // a constant it does not know
	} {
		if c, err := m.ParseCall(src); err == nil {
			t.Errorf("%s: read as %+v, want refused", src, c)
		}
	}
}
