package contract

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMaskDefaultsCompleteAsTheCheck: a drawn mask completed in plain Go with the
// contract's mask defaults is what the contract's check of #MaskRef makes of it,
// for every shape kind: the domain completes the masks it draws (apply_spot's)
// without evaluating CUE, and they record and compare as a checked mask does.
func TestMaskDefaultsCompleteAsTheCheck(t *testing.T) {
	c := loadTestContract(t)
	d, err := c.MaskDefaults()
	if err != nil {
		t.Fatal(err)
	}
	shapes := []map[string]any{
		{"kind": "ellipse", "center": []any{0.5, 0.4}, "radius_x": 0.02, "radius_y": 0.02, "feather": 0.006},
		{"kind": "ellipse", "center": []any{0.1, 0.9}, "radius_x": 0.2, "radius_y": 0.1},
		{"kind": "gradient", "start": []any{0.5, 0.0}, "end": []any{0.5, 0.6}},
		{"kind": "rectangle", "x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4},
		{"kind": "polygon", "points": []any{[]any{0.1, 0.1}, []any{0.9, 0.1}, []any{0.5, 0.9}}},
	}
	if len(d.Shape) != 4 {
		t.Errorf("defaults for %d shape kinds, want the contract's 4: %v", len(d.Shape), d.Shape)
	}
	for _, shape := range shapes {
		spec := map[string]any{"shape": shape}
		raw, _ := json.Marshal(spec)
		want, err := c.CheckValue(c.Lookup("#MaskRef"), "mask_spec", raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got := d.Complete(spec)
		// Compare as JSON values, as the state records them.
		gb, _ := json.Marshal(got)
		var g map[string]any
		json.Unmarshal(gb, &g)
		if !reflect.DeepEqual(g, want) {
			t.Errorf("%s: completed to %v, the check makes %v", raw, g, want)
		}
	}
}
