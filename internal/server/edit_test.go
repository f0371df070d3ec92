package server

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// stateView is a state entry as the tests compare it: the mask decoded so key order
// does not matter.
type stateView struct {
	Primitive string
	Layer     string
	Values    map[string]float64
	Mask      map[string]any
	Strength  float64
}

func viewEntries(t testing.TB, st history.State) []stateView {
	t.Helper()
	out := []stateView{}
	for _, e := range st.Entries {
		v := stateView{Primitive: e.Primitive, Layer: e.Layer, Values: e.Values, Strength: e.Strength}
		if len(e.Mask) > 0 {
			if err := json.Unmarshal(e.Mask, &v.Mask); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, v)
	}
	return out
}

var skyMask = map[string]any{"name": "sky_gradient", "invert": false}

func TestApplyPrimitive(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	drawn := map[string]any{"shape": map[string]any{"kind": "ellipse", "center": []any{0.5, 0.5}, "radius_x": 0.2, "radius_y": 0.1}}
	drawnFilled := map[string]any{"invert": false, "shape": map[string]any{"kind": "ellipse", "center": []any{0.5, 0.5}, "radius_x": 0.2, "radius_y": 0.1, "rotation": 0.0, "feather": 0.05}}
	steps := []struct {
		name string
		args map[string]any
		want []stateView
	}{
		{"scalar value", map[string]any{"primitive_name": "exposure", "value": 0.7},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": 0.7}, nil, 1}}},
		{"same primitive replaces in place", map[string]any{"primitive_name": "exposure", "value": -0.3, "strength": 0.5},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": -0.3}, nil, 0.5}}},
		{"object value, omitted parameter at its default", map[string]any{"primitive_name": "white_balance", "value": map[string]any{"temperature": 800}},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": -0.3}, nil, 0.5}, {"white_balance", "L1", map[string]float64{"temperature": 800, "tint": 0}, nil, 1}}},
		{"named mask is a second entry", map[string]any{"primitive_name": "exposure", "value": -0.5, "mask_spec": map[string]any{"name": "sky_gradient"}},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": -0.3}, nil, 0.5}, {"white_balance", "L1", map[string]float64{"temperature": 800, "tint": 0}, nil, 1},
				{"exposure", "L1", map[string]float64{"ev": -0.5}, skyMask, 1}}},
		{"mask without value: defaults", map[string]any{"primitive_name": "clarity", "mask_spec": drawn},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": -0.3}, nil, 0.5}, {"white_balance", "L1", map[string]float64{"temperature": 800, "tint": 0}, nil, 1},
				{"exposure", "L1", map[string]float64{"ev": -0.5}, skyMask, 1}, {"clarity", "L1", map[string]float64{"amount": 0}, drawnFilled, 1}}},
		{"no value for an entry without parameters; default mask", map[string]any{"primitive_name": "dramatic_sky", "value": nil},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": -0.3}, nil, 0.5}, {"white_balance", "L1", map[string]float64{"temperature": 800, "tint": 0}, nil, 1},
				{"exposure", "L1", map[string]float64{"ev": -0.5}, skyMask, 1}, {"clarity", "L1", map[string]float64{"amount": 0}, drawnFilled, 1},
				{"dramatic_sky", "L2", map[string]float64{}, skyMask, 1}}},
		{"the default mask given explicitly is the same entry", map[string]any{"primitive_name": "dramatic_sky", "mask_spec": map[string]any{"name": "sky_gradient"}, "strength": 0.6},
			[]stateView{{"exposure", "L1", map[string]float64{"ev": -0.3}, nil, 0.5}, {"white_balance", "L1", map[string]float64{"temperature": 800, "tint": 0}, nil, 1},
				{"exposure", "L1", map[string]float64{"ev": -0.5}, skyMask, 1}, {"clarity", "L1", map[string]float64{"amount": 0}, drawnFilled, 1},
				{"dramatic_sky", "L2", map[string]float64{}, skyMask, 0.6}}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			f := f.sub(t)
			st.args["image_id"] = "cup"
			d := f.ok("apply_primitive", st.args)
			if diff := cmp.Diff(st.want, viewEntries(t, f.state("cup"))); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if d["snapshot_hash"] != f.head("cup") || d["image_id"] != "cup" {
				t.Errorf("mutation %v does not describe HEAD %s", d, f.head("cup"))
			}
		})
	}
	// Applying the same again changes nothing: the same state, the same hash.
	before := f.head("cup")
	d := f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": -0.3, "strength": 0.5})
	if d["snapshot_hash"] != before {
		t.Errorf("re-applying an entry changed the snapshot %s -> %s", before, d["snapshot_hash"])
	}
	sa := d["state_after"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"head": before, "branch": "main", "detached": false, "entry_count": 5.0,
		"layers": []any{"L1", "L2"}, "masks": []any{"drawn", "sky_gradient"}}, sa); diff != "" {
		t.Errorf("state_after (-want +got):\n%s", diff)
	}
}

func TestApplyPrimitiveErrors(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"out of range", map[string]any{"primitive_name": "exposure", "value": 9}, darkroom.InvalidInput, "exposure: ev: 9 is outside [-4, 4]"},
		{"object for a scalar entry, out of range", map[string]any{"primitive_name": "exposure", "value": map[string]any{"ev": 5}}, darkroom.InvalidInput, "exposure: ev: 5 is outside [-4, 4]"},
		{"object for a scalar entry, unknown parameter", map[string]any{"primitive_name": "exposure", "value": map[string]any{"stops": 1}}, darkroom.InvalidInput, "stops: field not allowed"},
		{"scalar for an object entry", map[string]any{"primitive_name": "white_balance", "value": 100}, darkroom.InvalidInput, "takes an object"},
		// A value of the wrong type names the parameter to fix and its range, not value.
		{"word for a number", map[string]any{"primitive_name": "exposure", "value": "bright"}, darkroom.InvalidInput, `exposure: ev: got string "bright", want a number in [-4, 4]`},
		{"word for a number in an object", map[string]any{"primitive_name": "white_balance", "value": map[string]any{"tint": "green"}}, darkroom.InvalidInput, `white_balance: tint: got string "green", want a number in [`},
		{"unknown parameter", map[string]any{"primitive_name": "white_balance", "value": map[string]any{"kelvin": 100}}, darkroom.InvalidInput, "kelvin"},
		{"value for an entry without parameters", map[string]any{"primitive_name": "film_noir", "value": 1}, darkroom.InvalidInput, "takes no value"},
		{"strength above 1", map[string]any{"primitive_name": "exposure", "strength": 1.5}, darkroom.InvalidInput, "strength"},
		{"bad mask shape", map[string]any{"primitive_name": "exposure", "mask_spec": map[string]any{"shape": map[string]any{"kind": "ellipse"}}}, darkroom.InvalidInput, "center"},
		{"unknown primitive, close names", map[string]any{"primitive_name": "exposur"}, darkroom.NotFound, "did you mean exposure"},
		{"unknown primitive by alias", map[string]any{"primitive_name": "ev"}, darkroom.NotFound, "exposure"},
		{"unknown image", map[string]any{"image_id": "nope", "primitive_name": "exposure"}, darkroom.NotFound, "nope"},
		{"unknown named mask", map[string]any{"primitive_name": "exposure", "mask_spec": map[string]any{"name": "sky"}}, darkroom.MaskingError, "no mask named"},
		{"name and shape", map[string]any{"primitive_name": "exposure", "mask_spec": map[string]any{"name": "sky_gradient",
			"shape": map[string]any{"kind": "gradient", "start": []any{0, 0}, "end": []any{0, 1}}}}, darkroom.MaskingError, "not both"},
		{"mask on geometry", map[string]any{"primitive_name": "crop", "value": map[string]any{"left": 0.1}, "mask_spec": map[string]any{"name": "sky_gradient"}}, darkroom.MaskingError, "cannot be masked"},
	}
	base := f.head("cup")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			if _, ok := tc.args["image_id"]; !ok {
				tc.args["image_id"] = "cup"
			}
			e := f.fail("apply_primitive", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
		})
	}
	if h := f.head("cup"); h != base {
		t.Errorf("failed calls moved HEAD %s -> %s", base, h)
	}
	e := f.fail("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposre"}, darkroom.NotFound)
	if diff := cmp.Diff([]any{"exposure"}, e["details"].(map[string]any)["suggestions"]); diff != "" {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}
}

func TestApplyPerRegion(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	fg := map[string]any{"name": "foreground_gradient", "invert": false}
	d := f.ok("apply_per_region", map[string]any{"image_id": "cup", "primitive_name": "exposure", "regions": []any{
		map[string]any{"mask_spec": map[string]any{"name": "sky_gradient"}, "value": -0.5},
		map[string]any{"mask_spec": map[string]any{"name": "foreground_gradient"}, "value": 0.3, "strength": 0.8},
	}})
	want := []stateView{
		{"exposure", "L1", map[string]float64{"ev": -0.5}, skyMask, 1},
		{"exposure", "L1", map[string]float64{"ev": 0.3}, fg, 0.8},
	}
	if diff := cmp.Diff(want, viewEntries(t, f.state("cup"))); diff != "" {
		t.Errorf("single-operation shape (-want +got):\n%s", diff)
	}
	if d["snapshot_hash"] != f.head("cup") {
		t.Errorf("mutation does not describe HEAD")
	}
	log, err := f.s.Workspace.History.Log("cup", 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(log); n != 3 { // init, tag baseline, one commit for both regions
		t.Errorf("log has %d operations, want 3 (one snapshot for all regions)", n)
	}

	// Mixed shape: each region names its primitive; a top-level one fills the gaps.
	f.ok("apply_per_region", map[string]any{"image_id": "cup", "primitive_name": "saturation", "regions": []any{
		map[string]any{"primitive_name": "highlights", "mask_spec": map[string]any{"name": "sky_gradient"}, "value": -0.4},
		map[string]any{"mask_spec": map[string]any{"name": "skin_tones"}, "value": -0.2},
		map[string]any{"primitive_name": "exposure", "mask_spec": map[string]any{"name": "sky_gradient"}, "value": -0.7},
	}})
	skin := map[string]any{"name": "skin_tones", "invert": false}
	want = []stateView{
		{"exposure", "L1", map[string]float64{"ev": -0.7}, skyMask, 1},
		{"exposure", "L1", map[string]float64{"ev": 0.3}, fg, 0.8},
		{"highlights", "L1", map[string]float64{"amount": -0.4}, skyMask, 1},
		{"saturation", "L1", map[string]float64{"amount": -0.2}, skin, 1},
	}
	if diff := cmp.Diff(want, viewEntries(t, f.state("cup"))); diff != "" {
		t.Errorf("mixed shape (-want +got):\n%s", diff)
	}
}

func TestApplyPerRegionErrors(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	sky := map[string]any{"mask_spec": map[string]any{"name": "sky_gradient"}}
	region := func(kv ...any) map[string]any {
		r := map[string]any{"mask_spec": map[string]any{"name": "foreground_gradient"}}
		for i := 0; i+1 < len(kv); i += 2 {
			r[kv[i].(string)] = kv[i+1]
		}
		return r
	}
	var many []any
	for i := range 17 {
		many = append(many, map[string]any{"mask_spec": map[string]any{"shape": map[string]any{"kind": "ellipse", "center": []any{0.05 * float64(i), 0.5}, "radius_x": 0.01, "radius_y": 0.01}}})
	}
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"region without a primitive", map[string]any{"regions": []any{region("primitive_name", "exposure"), region()}}, darkroom.InvalidInput, "regions.1.primitive_name"},
		{"no regions", map[string]any{"primitive_name": "exposure", "regions": []any{}}, darkroom.InvalidInput, "regions"},
		{"17 regions", map[string]any{"primitive_name": "exposure", "regions": many}, darkroom.InvalidInput, "regions"},
		{"a bad value in the second region", map[string]any{"primitive_name": "exposure", "regions": []any{sky, region("value", 7)}}, darkroom.InvalidInput, "regions.1"},
		{"a region without mask_spec", map[string]any{"primitive_name": "exposure", "regions": []any{map[string]any{"value": 1}}}, darkroom.InvalidInput, "mask_spec"},
		{"the same region twice", map[string]any{"primitive_name": "exposure", "regions": []any{sky, sky}}, darkroom.InvalidInput, "already an earlier region"},
		{"unknown primitive", map[string]any{"regions": []any{region("primitive_name", "exposur")}}, darkroom.NotFound, "regions.0.primitive_name"},
		// The check cannot name every entry, so the first region comes unchecked to
		// the editor, which asks the boundary (edit.Judge): its value is refused
		// before the unknown name is.
		{"a bad value before an unknown primitive", map[string]any{"primitive_name": "exposure", "regions": []any{region("value", 9), region("primitive_name", "contrst", "mask_spec", map[string]any{"name": "center_spot"})}}, darkroom.InvalidInput, "regions.0: exposure: ev: 9 is outside [-4, 4]"},
		{"a good region before an unknown primitive", map[string]any{"primitive_name": "exposure", "regions": []any{region("value", 1), region("primitive_name", "contrst", "mask_spec", map[string]any{"name": "center_spot"})}}, darkroom.NotFound, "regions.1.primitive_name"},
		{"unknown image", map[string]any{"image_id": "nope", "primitive_name": "exposure", "regions": []any{sky}}, darkroom.NotFound, "nope"},
		{"unknown mask", map[string]any{"primitive_name": "exposure", "regions": []any{sky, map[string]any{"mask_spec": map[string]any{"name": "moon"}}}}, darkroom.MaskingError, "regions.1"},
		{"mask on geometry", map[string]any{"primitive_name": "exposure", "regions": []any{sky, region("primitive_name", "rotate", "value", 10)}}, darkroom.MaskingError, "regions.1.mask_spec"},
	}
	base := f.head("cup")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			if _, ok := tc.args["image_id"]; !ok {
				tc.args["image_id"] = "cup"
			}
			e := f.fail("apply_per_region", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
			// Atomic: nothing of a failing call is committed.
			if h := f.head("cup"); h != base {
				t.Errorf("a failed call moved HEAD %s -> %s", base, h)
			}
		})
	}

	// A state at the store's entry limit: one more region is limit_exceeded.
	var st history.State
	for i := range history.MaxEntries - 1 {
		st.Set(history.Entry{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": 0},
			Mask: json.RawMessage(fmt.Sprintf(`{"shape":{"kind":"ellipse","center":[%g,0.5],"radius_x":0.01,"radius_y":0.01,"rotation":0,"feather":0.05},"invert":false}`, float64(i)/1000)), Strength: 1})
	}
	if _, err := f.s.Workspace.History.Commit("cup", st, "fill"); err != nil {
		t.Fatal(err)
	}
	full := f.head("cup")
	f.fail("apply_per_region", map[string]any{"image_id": "cup", "primitive_name": "contrast", "regions": []any{sky, region()}}, darkroom.LimitExceeded)
	if h := f.head("cup"); h != full {
		t.Errorf("a call over the limit moved HEAD")
	}
}

// spotEntry returns the state's spot entries as (primitive, dx, dy, strength, mask).
func spotEntries(t testing.TB, st history.State) []stateView {
	var out []stateView
	for _, e := range viewEntries(t, st) {
		if strings.HasSuffix(e.Primitive, "_spot") {
			out = append(out, e)
		}
	}
	return out
}

func spotMask(x, y, r, border float64) map[string]any {
	return map[string]any{"invert": false, "shape": map[string]any{"kind": "ellipse", "center": []any{x, y},
		"radius_x": r, "radius_y": r, "rotation": 0.0, "feather": border * r}}
}

func TestApplySpot(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup") // 600x400: x fractions of 600, lengths of 600
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	steps := []struct {
		name string
		args map[string]any
		want []stateView
	}{
		{"default source to the right", map[string]any{"kind": "heal", "x": 0.3, "y": 0.5, "radius": 0.02},
			[]stateView{{"heal_spot", "L1", map[string]float64{"dx": 0.05, "dy": 0}, spotMask(0.3, 0.5, 0.02, 0.3), 1}}},
		{"a heal at the same place is replaced", map[string]any{"kind": "heal", "x": 0.3, "y": 0.5, "radius": 0.02, "opacity": 0.5},
			[]stateView{{"heal_spot", "L1", map[string]float64{"dx": 0.05, "dy": 0}, spotMask(0.3, 0.5, 0.02, 0.3), 0.5}}},
		{"a clone at the same place is its own entry; source given", map[string]any{"kind": "clone", "x": 0.3, "y": 0.5, "radius": 0.02, "source_x": 0.2, "source_y": 0.8, "border": 0},
			[]stateView{{"heal_spot", "L1", map[string]float64{"dx": 0.05, "dy": 0}, spotMask(0.3, 0.5, 0.02, 0.3), 0.5},
				{"clone_spot", "L1", map[string]float64{"dx": -0.1, "dy": 0.2}, spotMask(0.3, 0.5, 0.02, 0), 1}}},
		{"near the right edge the source is to the left", map[string]any{"kind": "heal", "x": 0.97, "y": 0.5, "radius": 0.02},
			[]stateView{{"heal_spot", "L1", map[string]float64{"dx": 0.05, "dy": 0}, spotMask(0.3, 0.5, 0.02, 0.3), 0.5},
				{"clone_spot", "L1", map[string]float64{"dx": -0.1, "dy": 0.2}, spotMask(0.3, 0.5, 0.02, 0), 1},
				{"heal_spot", "L1", map[string]float64{"dx": -0.05, "dy": 0}, spotMask(0.97, 0.5, 0.02, 0.3), 1}}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			f := f.sub(t)
			st.args["image_id"] = "cup"
			f.ok("apply_spot", st.args)
			if diff := cmp.Diff(st.want, spotEntries(t, f.state("cup")), approx); diff != "" {
				t.Errorf("spots (-want +got):\n%s", diff)
			}
		})
	}

	// After a crop the spot's coordinates are fractions of the cropped frame: a
	// 300x400 frame (left and right 0.25 off) makes x offsets half as long in
	// fractions of the (now vertical) long edge 400.
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "crop", "value": map[string]any{"left": 0.25, "right": 0.25}})
	f.ok("apply_spot", map[string]any{"image_id": "cup", "kind": "clone", "x": 0.5, "y": 0.5, "radius": 0.01, "source_x": 0.7, "source_y": 0.6})
	got := spotEntries(t, f.state("cup"))
	if diff := cmp.Diff(map[string]float64{"dx": 0.2 * 300 / 400, "dy": 0.1}, got[len(got)-1].Values, approx); diff != "" {
		t.Errorf("offset in a cropped frame (-want +got):\n%s", diff)
	}

	// The spot renders: a healed dark blemish is no longer dark.
	f2 := newEdFixture(t)
	img := flatPhoto(200, 100, 0.3, 0.3, 0.3)
	for y := 45; y < 55; y++ {
		for x := 95; x < 105; x++ {
			i := 3 * (y*200 + x)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = 0.01, 0.01, 0.01
		}
	}
	f2.writePhoto("blemish.png", img)
	f2.ingest("blemish.png", "b")
	f2.ok("apply_spot", map[string]any{"image_id": "b", "kind": "heal", "x": 0.5, "y": 0.5, "radius": 0.06})
	out := f2.render("b")
	if c := out.Pix[3*(50*200+100)]; math.Abs(float64(c)-0.3) > 0.03 {
		t.Errorf("the healed spot's centre is %v, want about the surroundings' 0.3", c)
	}
}

// render renders an image's HEAD at its full size through the previewer.
func (f *edFixture) render(id string) *engine.Image {
	f.t.Helper()
	meta, load, err := f.s.Workspace.Source(id)
	if err != nil {
		f.t.Fatal(err)
	}
	edits, err := f.s.Edits(f.state(id))
	if err != nil {
		f.t.Fatal(err)
	}
	img, err := f.s.Workspace.Previews.Preview(engine.PreviewRequest{Key: meta.SHA256, Load: load, Edits: edits, LongEdge: max(meta.Width, meta.Height)})
	if err != nil {
		f.t.Fatal(err)
	}
	return img
}

func TestApplySpotErrors(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"source_x alone", map[string]any{"image_id": "cup", "kind": "heal", "x": 0.5, "y": 0.5, "radius": 0.02, "source_x": 0.2}, darkroom.InvalidInput, "go together"},
		{"source on the spot", map[string]any{"image_id": "cup", "kind": "clone", "x": 0.5, "y": 0.5, "radius": 0.02, "source_x": 0.5, "source_y": 0.5}, darkroom.InvalidInput, "the spot itself"},
		{"zero radius", map[string]any{"image_id": "cup", "kind": "heal", "x": 0.5, "y": 0.5, "radius": 0}, darkroom.InvalidInput, "radius"},
		{"unknown kind", map[string]any{"image_id": "cup", "kind": "blur", "x": 0.5, "y": 0.5, "radius": 0.02}, darkroom.InvalidInput, "kind"},
		{"outside the frame", map[string]any{"image_id": "cup", "kind": "heal", "x": 1.2, "y": 0.5, "radius": 0.02}, darkroom.InvalidInput, "x"},
		{"unknown image", map[string]any{"image_id": "nope", "kind": "heal", "x": 0.5, "y": 0.5, "radius": 0.02}, darkroom.NotFound, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			e := f.fail("apply_spot", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
		})
	}
}

func TestSpotSource(t *testing.T) {
	tests := []struct {
		name         string
		x, y, r      float64
		w, h         int
		wantX, wantY float64
	}{
		{"right", 0.5, 0.5, 0.02, 600, 400, 0.5 + 0.05, 0.5},
		{"left near the right edge", 0.95, 0.5, 0.02, 600, 400, 0.95 - 0.05, 0.5},
		{"below at the top of a narrow frame", 0.5, 0.05, 0.02, 60, 600, 0.5, 0.05 + 0.05},
		{"deepest inside when nothing fits", 0.5, 0.5, 0.25, 100, 100, 0.5 + 0.625/math.Sqrt2, 0.5 + 0.625/math.Sqrt2},
	}
	for _, tc := range tests {
		x, y := edit.SpotSource(tc.x, tc.y, tc.r, tc.w, tc.h)
		if math.Abs(x-tc.wantX) > 1e-9 || math.Abs(y-tc.wantY) > 1e-9 {
			t.Errorf("%s: source (%v, %v), want (%v, %v)", tc.name, x, y, tc.wantX, tc.wantY)
		}
	}
}

// grayCardPhoto is a 200x100 photo: a mid-grey card on the left and a saturated red
// patch, a near-black patch and a white patch on the right, all seen through the
// cast of white_balance(temp, tint).
func grayCardPhoto(t testing.TB, temp, tint float64) *engine.Image {
	t.Helper()
	img := flatPhoto(200, 100, 0.18, 0.18, 0.18)
	paint := func(x0, x1 int, r, g, b float32) {
		for y := 20; y < 80; y++ {
			for x := x0; x < x1; x++ {
				i := 3 * (y*200 + x)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = r, g, b
			}
		}
	}
	paint(110, 130, 0.6, 0.02, 0.02)
	paint(140, 160, 0.004, 0.004, 0.004)
	paint(170, 190, 1, 1, 1)
	out, err := engine.Render(img, []engine.Edit{{Op: "white_balance", Args: engine.Args{"temperature": temp, "tint": tint}, Strength: 1}}, engine.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWBFromGrayCard(t *testing.T) {
	for _, cast := range []struct{ temp, tint float64 }{{1500, 0.2}, {-1000, -0.3}} {
		t.Run(fmt.Sprintf("cast %v %v", cast.temp, cast.tint), func(t *testing.T) {
			f := newEdFixture(t)
			f.writePhoto("card.png", grayCardPhoto(t, cast.temp, cast.tint))
			f.ingest("card.png", "card")
			// An existing whole-image white balance is replaced, not stacked; an
			// exposure edit does not change the answer.
			f.ok("apply_primitive", map[string]any{"image_id": "card", "primitive_name": "white_balance", "value": map[string]any{"temperature": 2500}})
			f.ok("apply_primitive", map[string]any{"image_id": "card", "primitive_name": "exposure", "value": 0.5})
			d := f.ok("wb_from_gray_card", map[string]any{"image_id": "card", "x": 0.25, "y": 0.5, "sample_radius": 0.05})
			temp, tint := d["temperature"].(float64), d["tint"].(float64)
			// A warm cast needs cooling, a cool one warming.
			if math.Signbit(temp) == math.Signbit(cast.temp) {
				t.Errorf("cast %v: correction temperature %v has the same sign", cast.temp, temp)
			}
			var wb []stateView
			for _, e := range viewEntries(t, f.state("card")) {
				if e.Primitive == "white_balance" {
					wb = append(wb, e)
				}
			}
			if diff := cmp.Diff([]stateView{{"white_balance", "L1", map[string]float64{"temperature": temp, "tint": tint}, nil, 1}}, wb); diff != "" {
				t.Errorf("white_balance entries (-want +got):\n%s", diff)
			}
			// The card renders grey.
			out := f.render("card")
			p := out.Pix[3*(50*200+50):]
			if r, g, b := float64(p[0]), float64(p[1]), float64(p[2]); math.Abs(r/g-1) > 0.01 || math.Abs(b/g-1) > 0.01 {
				t.Errorf("the card renders (%v, %v, %v), not grey", r, g, b)
			}
		})
	}
}

func TestWBFromGrayCardErrors(t *testing.T) {
	f := newEdFixture(t)
	f.writePhoto("card.png", grayCardPhoto(t, 0, 0))
	f.ingest("card.png", "card")
	// A grey card under a cast stronger than the entry's range (±3000 K) allows.
	f.writePhoto("blue.png", grayCardPhoto(t, -1600, 0))
	f.ingest("blue.png", "blue")
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"saturated", map[string]any{"image_id": "card", "x": 0.6, "y": 0.5}, darkroom.InvalidInput, "strongly coloured"},
		{"too dark", map[string]any{"image_id": "card", "x": 0.75, "y": 0.5}, darkroom.InvalidInput, "too dark"},
		{"clipped", map[string]any{"image_id": "card", "x": 0.9, "y": 0.5}, darkroom.InvalidInput, "clipped"},
		{"cast too strong", map[string]any{"image_id": "blue", "x": 0.25, "y": 0.5}, darkroom.InvalidInput, "too strong"},
		{"sample radius over 0.1", map[string]any{"image_id": "card", "x": 0.25, "y": 0.5, "sample_radius": 0.2}, darkroom.InvalidInput, "sample_radius"},
		{"unknown image", map[string]any{"image_id": "nope", "x": 0.25, "y": 0.5}, darkroom.NotFound, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			before := f.head("card")
			e := f.fail("wb_from_gray_card", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
			if f.head("card") != before {
				t.Error("a failed call moved HEAD")
			}
		})
	}
	// A source copy that no longer decodes is a render_error (a fresh server, so
	// no proxy is cached).
	meta, _, err := f.s.Workspace.Source("card")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.s.Workspace.Root, filepath.FromSlash(meta.File)), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(f.s.Workspace.Root, []string{f.photos})
	if err != nil {
		t.Fatal(err)
	}
	f.s.Workspace = ws
	f.fail("wb_from_gray_card", map[string]any{"image_id": "card", "x": 0.25, "y": 0.5}, darkroom.RenderError)
}

func TestRemoveModule(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.5})
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": -0.5, "mask_spec": map[string]any{"name": "sky_gradient"}})
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "vignette", "value": map[string]any{"amount": -0.4}})
	d := f.ok("remove_module", map[string]any{"image_id": "cup", "module_name": "exposure"})
	want := []stateView{{"vignette", "L1", map[string]float64{"amount": -0.4, "midpoint": 0.5, "feather": 0.5}, nil, 1}}
	if diff := cmp.Diff(want, viewEntries(t, f.state("cup"))); diff != "" {
		t.Errorf("after removing exposure (-want +got):\n%s", diff)
	}
	if d["state_after"].(map[string]any)["entry_count"] != 1.0 {
		t.Errorf("state_after %v", d["state_after"])
	}
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"not applied", map[string]any{"image_id": "cup", "module_name": "exposure"}, darkroom.StateError, "not applied"},
		{"unknown primitive", map[string]any{"image_id": "cup", "module_name": "vignete"}, darkroom.NotFound, "did you mean vignette"},
		{"unknown image", map[string]any{"image_id": "nope", "module_name": "vignette"}, darkroom.NotFound, "nope"},
		{"bad name", map[string]any{"image_id": "cup", "module_name": "Vignette!"}, darkroom.InvalidInput, "module_name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			e := f.fail("remove_module", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
		})
	}
}

func TestReset(t *testing.T) {
	f := newEdFixture(t)
	baseline := f.ingest("coffee.png", "cup")["snapshot_hash"]
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.5})
	f.ok("bind_layers", map[string]any{"image_id": "cup", "l2_template": "film_noir"})
	edited := f.head("cup")
	d := f.ok("reset", map[string]any{"image_id": "cup"})
	if d["snapshot_hash"] != baseline {
		t.Errorf("reset gives %v, want the baseline's hash %v", d["snapshot_hash"], baseline)
	}
	if diff := cmp.Diff(history.State{Entries: []history.Entry{}}, f.state("cup")); diff != "" {
		t.Errorf("state after reset (-want +got):\n%s", diff)
	}
	// A new snapshot on the branch: the edited one stays in the history.
	log, err := f.s.Workspace.History.Log("cup", 1)
	if err != nil {
		t.Fatal(err)
	}
	if log[0].Label != "reset" || log[0].Parent != edited || log[0].Ref != "refs/heads/main" {
		t.Errorf("last operation %+v, want a reset committed on main after %s", log[0], edited)
	}
	f.fail("reset", map[string]any{"image_id": "nope"}, darkroom.NotFound)
	f.fail("reset", map[string]any{"image_id": "no pe"}, darkroom.InvalidInput)
}

func TestPropagateState(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	f.ingest("chelsea.png", "cat")
	f.ingest("rocket-orient6.jpg", "rocket")
	for _, a := range []map[string]any{
		{"primitive_name": "exposure", "value": 0.4},
		{"primitive_name": "crop", "value": map[string]any{"left": 0.1}},
		{"primitive_name": "highlights", "value": -0.3, "mask_spec": map[string]any{"name": "sky_gradient"}},
	} {
		a["image_id"] = "cup"
		f.ok("apply_primitive", a)
	}
	f.ok("apply_spot", map[string]any{"image_id": "cup", "kind": "heal", "x": 0.4, "y": 0.4, "radius": 0.02})
	f.ok("bind_layers", map[string]any{"image_id": "cup", "l2_template": "golden_hour"})
	// The target keeps its own entries; a copied entry replaces its own equal one.
	f.ok("apply_primitive", map[string]any{"image_id": "cat", "primitive_name": "exposure", "value": -1})
	f.ok("apply_primitive", map[string]any{"image_id": "cat", "primitive_name": "vibrance", "value": 0.2})

	d := f.ok("propagate_state", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat", "rocket"}})
	if diff := cmp.Diff([]any{"exposure", "highlights", "golden_hour"}, d["copied"]); diff != "" {
		t.Errorf("copied (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"crop", "heal_spot"}, d["skipped"]); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	targets := d["targets"].([]any)
	if len(targets) != 2 || targets[0].(map[string]any)["image_id"] != "cat" || targets[1].(map[string]any)["snapshot_hash"] != f.head("rocket") {
		t.Errorf("targets %v", targets)
	}
	want := []stateView{
		{"exposure", "L1", map[string]float64{"ev": 0.4}, nil, 1},
		{"vibrance", "L1", map[string]float64{"amount": 0.2}, nil, 1},
		{"highlights", "L1", map[string]float64{"amount": -0.3}, skyMask, 1},
	}
	if diff := cmp.Diff(want, viewEntries(t, f.state("cat"))); diff != "" {
		t.Errorf("cat after propagation (-want +got):\n%s", diff)
	}
	if tpl, _ := edit.StateTemplates(f.state("rocket")); tpl.L2 != "golden_hour" {
		t.Errorf("rocket's templates %+v, want golden_hour copied", tpl)
	}

	// exclude_ops given: exactly those are skipped, framing-bound ones included.
	d = f.ok("propagate_state", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"rocket"}, "exclude_ops": []any{"exposure", "golden_hour"}})
	if diff := cmp.Diff(map[string]any{"copied": []any{"crop", "highlights", "heal_spot"}, "skipped": []any{"exposure", "golden_hour"}},
		map[string]any{"copied": d["copied"], "skipped": d["skipped"]}); diff != "" {
		t.Errorf("with exclude_ops (-want +got):\n%s", diff)
	}
	var got []string
	for _, e := range f.state("rocket").Entries {
		got = append(got, e.Primitive)
	}
	if diff := cmp.Diff([]string{"exposure", "highlights", "crop", "heal_spot"}, got); diff != "" {
		t.Errorf("rocket's entries (-want +got):\n%s", diff)
	}
}

func TestPropagateStateErrors(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	f.ingest("chelsea.png", "cat")
	f.ingest("rocket-orient6.jpg", "rocket")
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.4})
	// rocket is full: copying one more entry to it is over the store's limit.
	var st history.State
	for i := range history.MaxEntries {
		st.Set(history.Entry{Primitive: "contrast", Layer: "L1", Values: map[string]float64{"amount": 0},
			Mask: json.RawMessage(fmt.Sprintf(`{"shape":{"kind":"ellipse","center":[%g,0.5],"radius_x":0.01,"radius_y":0.01,"rotation":0,"feather":0.05},"invert":false}`, float64(i)/1000)), Strength: 1})
	}
	if _, err := f.s.Workspace.History.Commit("rocket", st, "fill"); err != nil {
		t.Fatal(err)
	}
	many := make([]any, 33)
	for i := range many {
		many[i] = fmt.Sprintf("img%d", i)
	}
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"target is the source", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat", "cup"}}, darkroom.InvalidInput, "target_image_ids.1"},
		{"a target twice", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat", "cat"}}, darkroom.InvalidInput, "already target_image_ids.0"},
		{"no targets", map[string]any{"source_image_id": "cup", "target_image_ids": []any{}}, darkroom.InvalidInput, "target_image_ids"},
		{"33 targets", map[string]any{"source_image_id": "cup", "target_image_ids": many}, darkroom.InvalidInput, "target_image_ids"},
		{"unknown source", map[string]any{"source_image_id": "nope", "target_image_ids": []any{"cat"}}, darkroom.NotFound, "nope"},
		{"unknown target after a good one", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat", "nope"}}, darkroom.NotFound, "nope"},
		{"unknown excluded primitive", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat"}, "exclude_ops": []any{"exposre"}}, darkroom.NotFound, "exclude_ops.0"},
		{"a target over the entry limit", map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat", "rocket"}}, darkroom.LimitExceeded, "target rocket"},
	}
	before := map[string]string{"cat": f.head("cat"), "rocket": f.head("rocket")}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			e := f.fail("propagate_state", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
			// Atomic: no target changed.
			for id, h := range before {
				if f.head(id) != h {
					t.Errorf("a failed call moved %s's HEAD", id)
				}
			}
		})
	}
}

// Twenty simultaneous edits of one image, each a different primitive: the history is
// linear (every commit's parent is the one before) and the final state has all twenty.
func TestConcurrentEditsOneImage(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	var names []string
	for _, e := range f.s.Vocab.Select(vocab.Filter{Layer: "L1"}) {
		if e.Category != "geometry" && len(e.Parameters) > 0 && len(names) < 20 {
			names = append(names, e.Name)
		}
	}
	if len(names) != 20 {
		t.Fatalf("only %d primitives to apply", len(names))
	}
	var wg sync.WaitGroup
	errs := make([]any, len(names))
	for i, name := range names {
		wg.Go(func() {
			raw := mustJSON(t, map[string]any{"image_id": "cup", "primitive_name": name})
			env, _ := f.s.Invoke(t.Context(), "apply_primitive", raw)
			if !env.Success {
				errs[i] = env.Error
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != nil {
			t.Errorf("%s: %+v", names[i], e)
		}
	}
	log, err := f.s.Workspace.History.Log("cup", 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(log) // oldest first
	if len(log) != 2+len(names) {
		t.Fatalf("log has %d operations, want the baseline's 2 and %d commits", len(log), len(names))
	}
	for i := 2; i < len(log); i++ {
		if log[i].Op != history.OpCommit || log[i].Parent != log[i-1].Hash {
			t.Errorf("operation %d %+v does not follow %s: the history is not linear", i, log[i], log[i-1].Hash)
		}
	}
	var got []string
	for _, e := range f.state("cup").Entries {
		got = append(got, e.Primitive)
	}
	slices.Sort(got)
	slices.Sort(names)
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("final state lost updates (-want +got):\n%s", diff)
	}
}

// The engine implements exactly the catalog's operations, each in the catalog's
// stage, and only geometry is not maskable (the engine refuses masks on geometry).
func TestCatalogMatchesEngine(t *testing.T) {
	c, _, _ := edContract(t)
	ops, err := c.Operations()
	if err != nil {
		t.Fatal(err)
	}
	catalog := map[string]string{}
	for _, op := range ops {
		catalog[op.Name] = op.Stage
		if op.Maskable == (op.Stage == "geometry") {
			t.Errorf("operation %s in stage %s: maskable %v", op.Name, op.Stage, op.Maskable)
		}
	}
	engineOps := map[string]string{}
	for _, name := range engine.Operations() {
		engineOps[name], _ = engine.OpStage(name)
	}
	if diff := cmp.Diff(catalog, engineOps); diff != "" {
		t.Errorf("operations: catalog (-) vs engine (+):\n%s", diff)
	}
}
