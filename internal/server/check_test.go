package server

import (
	"encoding/json"
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

// TestAbsentMaskStaysAbsent: the check comes back with the call's mask_spec as it
// was given: absent when the call gave none (or null) and the entry has no default
// mask (the check evaluates no mask shape then), the default mask when the entry
// has one; a mask given is still judged, and a region still must name one.
func TestAbsentMaskStaysAbsent(t *testing.T) {
	f := newEdFixture(t)
	tool, _ := f.s.Contract.Tool("apply_primitive")
	for _, tt := range []struct {
		args string
		want string // the named mask checked; "" for no mask_spec
		ok   bool
	}{
		{`{"image_id": "cup", "primitive_name": "exposure", "value": 0.5}`, "", true},
		{`{"image_id": "cup", "primitive_name": "exposure", "value": 0.5, "mask_spec": null}`, "", true},
		{`{"image_id": "cup", "primitive_name": "dramatic_sky"}`, "sky_gradient", true},
		{`{"image_id": "cup", "primitive_name": "exposure", "mask_spec": {"name": "sky_gradient"}}`, "sky_gradient", true},
		{`{"image_id": "cup", "primitive_name": "exposure", "mask_spec": {"shape": {"kind": "ellipse"}}}`, "", false},
		{`{"image_id": "cup", "primitive_name": "exposure", "mask_spec": 3}`, "", false},
	} {
		args, err := f.s.check(tool, json.RawMessage(tt.args))
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok %v", tt.args, err, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		got, given := args["mask_spec"]
		m, _ := got.(map[string]any)
		if name, _ := m["name"].(string); given != (tt.want != "") || name != tt.want {
			t.Errorf("%s: mask_spec %v (given %v), want the mask %q", tt.args, got, given, tt.want)
		}
	}
	regions, _ := f.s.Contract.Tool("apply_per_region")
	if _, err := f.s.check(regions, json.RawMessage(`{"image_id": "cup", "primitive_name": "exposure", "regions": [{"value": 0.5}]}`)); err == nil || !strings.Contains(err.Error(), "mask_spec") {
		t.Errorf("a region without mask_spec: %v, want it refused naming mask_spec", err)
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
