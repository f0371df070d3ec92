package augment

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// TestWeatherGeometryRoundTrip: SafeRotate and RandomSunFlare, as albumentations 1.3.1
// writes them, read with albumentations' meaning (angles counter-clockwise, pixels of
// the image, colours on 0-255, a tuple element by element) and written back as the
// same parameters, tuples as tuples.
func TestWeatherGeometryRoundTrip(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	for _, tc := range []struct {
		name, transform string
		want            Step
		// back are parameters albumentations.json must write, as JSON.
		back map[string]string
	}{
		{"SafeRotate's limit is counter-clockwise, its border mirrored by default", `{"__class_fullname__": "SafeRotate", "limit": [10, 30], "p": 0.5}`,
			Step{Entry: "safe_rotate", P: 0.5, Params: map[string]Value{"angle": {-30, -10}}},
			map[string]string{"__class_fullname__": `"SafeRotate"`, "limit": `[10,30]`}},
		{"SafeRotate with border_mode 0 is on black", `{"__class_fullname__": "SafeRotate", "limit": 45, "border_mode": 0, "value": 0, "p": 1}`,
			Step{Entry: "safe_rotate_constant", P: 1, Params: map[string]Value{"angle": {-45, 45}}},
			map[string]string{"__class_fullname__": `"SafeRotate"`, "limit": `[-45,45]`, "border_mode": `0`}},
		{"RandomSunFlare in pixels, turns and 0-255", `{"__class_fullname__": "RandomSunFlare", "flare_roi": [0.1, 0.2, 0.9, 0.6], "angle_lower": 0.25, "angle_upper": 0.5,
			"num_flare_circles_lower": 3, "num_flare_circles_upper": 7, "src_radius": 250, "src_color": [255, 204, 102], "p": 0.3}`,
			Step{Entry: "random_sun_flare", P: 0.3, Params: map[string]Value{"radius": Fixed(0.25), "circles": {3, 7}, "angle": {90, 180},
				"roi_left": Fixed(0.1), "roi_top": Fixed(0.2), "roi_right": Fixed(0.9), "roi_bottom": Fixed(0.6),
				"red": Fixed(1), "green": Fixed(0.8), "blue": Fixed(0.4)}},
			map[string]string{"__class_fullname__": `"RandomSunFlare"`, "flare_roi": `[0.1,0.2,0.9,0.6]`, "src_color": `[255,204,102]`, "src_radius": `250`,
				"angle_lower": `0.25`, "angle_upper": `0.5`, "num_flare_circles_lower": `3`, "num_flare_circles_upper": `7`}},
		{"Spatter's intensity is rain's amount", `{"__class_fullname__": "Spatter", "intensity": [0.4, 0.6], "mode": "rain", "p": 0.5}`,
			Step{Entry: "spatter", P: 0.5, Params: map[string]Value{"amount": {0.4, 0.6}}},
			map[string]string{"__class_fullname__": `"Spatter"`, "intensity": `[0.4,0.6]`, "mode": `"rain"`}},
		{"Spatter's mud is opaque", `{"__class_fullname__": "Spatter", "mode": "mud", "p": 0.2}`,
			Step{Entry: "spatter_mud", P: 0.2, Params: map[string]Value{"amount": Fixed(1)}},
			map[string]string{"__class_fullname__": `"Spatter"`, "mode": `"mud"`}},
		{"RandomGravel's region is a tuple", `{"__class_fullname__": "RandomGravel", "gravel_roi": [0.2, 0.5, 0.8, 1], "number_of_patches": 3, "p": 0.4}`,
			Step{Entry: "random_gravel", P: 0.4, Params: map[string]Value{"patches": Fixed(3), "roi_left": Fixed(0.2), "roi_top": Fixed(0.5), "roi_right": Fixed(0.8), "roi_bottom": Fixed(1)}},
			map[string]string{"__class_fullname__": `"RandomGravel"`, "gravel_roi": `[0.2,0.5,0.8,1]`, "number_of_patches": `3`}},
	} {
		t.Run(tc.name, func(t *testing.T) { roundTripOne(t, m, voc, tc.transform, tc.want, tc.back) })
	}
	// A radius darkroom draws from a range is one number in albumentations 1.3.1:
	// written as the middle, and said.
	p := Pipeline{{Entry: "random_sun_flare", P: 1, Params: map[string]Value{"radius": {0.3, 0.5}}}}
	out, skipped, err := m.Export(p, voc, 1000, 500, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := exportedTransforms(t, out)
	if len(skipped) != 1 || skipped[0].Entry != "random_sun_flare" || ts[0]["src_radius"] != float64(400) {
		t.Errorf("a drawn radius: skipped %v, written %v", skipped, ts[0]["src_radius"])
	}
}

// roundTripOne reads one albumentations transform (as 1.3.1 writes it in a Compose)
// on a 1000 x 500 image, checks the one step it becomes against want, writes it back
// and checks each parameter of back (as compact JSON) in albumentations.json.
func roundTripOne(t *testing.T, m *AlbuMap, voc *vocab.Vocabulary, transform string, want Step, back map[string]string) {
	t.Helper()
	raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [` + transform + `]}}`
	imp, err := m.Import([]byte(raw), voc, 1000, 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Pipeline) != 1 || len(imp.Skipped) != 0 {
		t.Fatalf("%d steps, skipped %v", len(imp.Pipeline), imp.Skipped)
	}
	if diff := cmp.Diff(want, imp.Pipeline[0]); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	out, skipped, err := m.Export(imp.Pipeline, voc, 1000, 500, ExportOptions{})
	if err != nil || len(skipped) != 0 {
		t.Fatalf("export: %v, skipped %v\n%s", err, skipped, out)
	}
	var doc struct {
		Transform struct {
			Transforms []map[string]json.RawMessage `json:"transforms"`
		} `json:"transform"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Transform.Transforms) != 1 {
		t.Fatalf("albumentations.json: %v\n%s", err, out)
	}
	for k, w := range back {
		var got bytes.Buffer
		if err := json.Compact(&got, doc.Transform.Transforms[0][k]); err != nil || got.String() != w {
			t.Errorf("written %s = %s, want %s", k, got.String(), w)
		}
	}
}
