package server

import (
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// TestApplyPrimitiveEvaluatesOnce: CUE judges an apply_primitive once, at the
// boundary, whatever the entry's shape (one parameter, several, none, a default
// mask, a drawn mask): the value, mask and strength come out of that one check and
// nothing below evaluates them again.
func TestApplyPrimitiveEvaluatesOnce(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	drawn := map[string]any{"shape": map[string]any{"kind": "ellipse", "center": []any{0.5, 0.5}, "radius_x": 0.2, "radius_y": 0.1}}
	for _, args := range []map[string]any{
		{"primitive_name": "exposure", "value": 0.7},
		{"primitive_name": "exposure"},
		{"primitive_name": "exposure", "value": -0.5, "mask_spec": map[string]any{"name": "sky_gradient"}},
		{"primitive_name": "exposure", "value": 0.2, "mask_spec": drawn, "strength": 0.5},
		{"primitive_name": "white_balance", "value": map[string]any{"temperature": 800}},
		{"primitive_name": "dramatic_sky"},
		{"primitive_name": "film_noir", "mask_spec": drawn},
	} {
		args["image_id"] = "cup"
		before := contract.Evaluations()
		f.ok("apply_primitive", args)
		if n := contract.Evaluations() - before; n != 1 {
			t.Errorf("apply_primitive %v: %d CUE evaluations, want 1", args, n)
		}
	}
}

// TestApplyPerRegionValueShapes: a region's value is judged with its entry's
// #values in the call's one check, in ADR-079's shapes (a number for one parameter,
// an object for several, nothing for none), and a refusal names the region.
func TestApplyPerRegionValueShapes(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	sky := map[string]any{"name": "sky_gradient"}
	region := func(name string, value any) map[string]any {
		r := map[string]any{"primitive_name": name, "mask_spec": sky}
		if value != nil {
			r["value"] = value
		}
		return map[string]any{"image_id": "cup", "regions": []any{r}}
	}
	f.ok("apply_per_region", region("exposure", 0.5))
	f.ok("apply_per_region", region("white_balance", map[string]any{"temperature": 500}))
	for _, tt := range []struct {
		name  string
		value any
	}{
		{"exposure", map[string]any{"ev": 0.5}},
		{"exposure", 9.0},
		{"white_balance", 500.0},
		{"dramatic_sky", 0.5},
	} {
		e := f.fail("apply_per_region", region(tt.name, tt.value), "invalid_input")
		if msg, _ := e["message"].(string); !strings.HasPrefix(msg, "regions.0") {
			t.Errorf("%s %v: %q does not name the region", tt.name, tt.value, msg)
		}
	}
}
