package augment

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

func albuMap(t testing.TB) *AlbuMap {
	t.Helper()
	return augmenter(t).Albumentations
}

func importFile(t *testing.T, name string, w, h int) *Imported {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "albumentations", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".yaml") {
		if data, err = contract.YAMLToJSON(name, data); err != nil {
			t.Fatal(err)
		}
	}
	imp, err := albuMap(t).Import(data, augmenter(t).Vocab, w, h)
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return imp
}

// leaves lists the class names of a serialised pipeline's transforms, containers
// left out.
func leaves(t *testing.T, m *AlbuMap, tr map[string]any) []string {
	var out []string
	for _, k := range children(tr) {
		c := k.(map[string]any)
		if _, ok := m.Containers[className(c)]; ok {
			out = append(out, leaves(t, m, c)...)
			continue
		}
		out = append(out, className(c))
	}
	return out
}

// TestImportAlbumentations131 reads the pipelines the real albumentations 1.3.1 wrote
// (scripts/albumentations/make_testdata.py): every transform becomes a step or is
// named in Skipped, and the pipeline runs.
func TestImportAlbumentations131(t *testing.T) {
	a, m := augmenter(t), albuMap(t)
	for _, name := range []string{"classification.json", "classification.yaml", "detection.json", "every-1.json", "every-2.json"} {
		t.Run(name, func(t *testing.T) {
			imp := importFile(t, name, 600, 400)
			data, _ := os.ReadFile(filepath.Join("testdata", "albumentations", strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".json")+".json"))
			var top map[string]any
			if err := json.Unmarshal(data, &top); err != nil {
				t.Fatal(err)
			}
			classes := leaves(t, m, top["transform"].(map[string]any))
			made := map[string]bool{}
			for _, s := range imp.Pipeline {
				made[s.Entry] = true
			}
			skipped := map[string]bool{}
			for _, s := range imp.Skipped {
				skipped[s.Entry] = true
			}
			for _, cls := range classes {
				rs, mapped := m.Transforms[cls]
				switch {
				case mapped && made[rs[0].Steps[0].Entry] || mapped && len(rs) > 1:
				case skipped[cls]:
				default:
					t.Errorf("%s: neither a step nor reported as skipped", cls)
				}
			}
			if _, err := a.Run(testImage(600, 400), imp.Pipeline, 7, 4, nil); err != nil {
				t.Fatalf("run: %v", err)
			}
		})
	}
	// The classification pipeline, read as albumentations means it.
	imp := importFile(t, "classification.json", 1000, 500)
	g := &Group{ID: 0, Kind: "one_of", P: 0.5, N: 1, Replace: true}
	want := Pipeline{
		{Entry: "flip_horizontal", P: 0.5},
		{Entry: "shift_scale_rotate", P: 0.7, Params: map[string]Value{"angle": {-15, 15}}},
		// Members keep albumentations' default p 0.5: equal weights.
		// blur_limit 5: box kernels 3..5 px, half-widths 1..2 px of a 1000 px edge.
		{Entry: "blur", P: 0.5, Group: g, Params: map[string]Value{"radius": {0.001, 0.002}}},
		// blur_limit 3..7 with sigma 0: OpenCV's sigma 0.15 k + 0.35, 0.8..1.4 px.
		{Entry: "gaussian_blur", P: 0.5, Group: g, Params: map[string]Value{"radius": {0.0008, 0.0014}}},
		// var_limit 10..50 grey levels squared: sigma sqrt(var)/255.
		{Entry: "gaussian_noise", P: 0.5, Group: g, Params: map[string]Value{"sigma": {0.012401089, 0.027729678}}},
		// contrast_limit=0: no gain.
		{Entry: "random_brightness", P: 0.5, Params: map[string]Value{"brightness": {-0.2, 0.2}, "gain": {}}},
		// OpenCV's hue unit is 2 degrees; sat_shift_limit=0 and val_shift_limit=0 are
		// the range 0..0, as albumentations reads them.
		{Entry: "hue_saturation_value", P: 0.3, Params: map[string]Value{"hue": {-20, 20}, "saturation": {}, "value": {}}},
		// blur_limit 5: median squares of 3..5 px, half sides 1..2 px of a 1000 px edge.
		{Entry: "median_blur", P: 0.1, Params: map[string]Value{"radius": {0.001, 0.002}}},
	}
	if diff := cmp.Diff(want, imp.Pipeline); diff != "" {
		t.Errorf("classification.json (-want +got):\n%s", diff)
	}
	var wantSkipped []string
	var got []string
	for _, s := range imp.Skipped {
		got = append(got, s.Entry+": "+s.Reason)
	}
	if diff := cmp.Diff(wantSkipped, got); diff != "" {
		t.Errorf("classification.json skipped (-want +got):\n%s", diff)
	}
	det := importFile(t, "detection.json", 600, 400)
	if det.BoxFormat != "pascal_voc" || det.MinVisibility == nil || *det.MinVisibility != 0.3 || det.KeypointFormat != "xy" {
		t.Errorf("detection.json: bbox_params read as %q min_visibility %v, keypoints %q", det.BoxFormat, det.MinVisibility, det.KeypointFormat)
	}
}

// TestImportUnits pins each reading's units: a row is one transform as albumentations
// writes it and the step darkroom makes, on a 1000 x 500 image.
func TestImportUnits(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	for _, tc := range []struct {
		name, transform string
		want            Step
	}{
		{"a scalar limit is plus or minus, counter-clockwise", `{"__class_fullname__": "Rotate", "limit": 15, "p": 1}`,
			Step{Entry: "shift_scale_rotate", P: 1, Params: map[string]Value{"angle": {-15, 15}}}},
		{"a positive range turns clockwise in darkroom's sign", `{"__class_fullname__": "Rotate", "limit": [5, 10], "border_mode": 0}`,
			Step{Entry: "rotate", P: 0.5, Params: map[string]Value{"angle": {-10, -5}}}},
		{"always_apply is p 1", `{"__class_fullname__": "VerticalFlip", "always_apply": true, "p": 0.1}`,
			Step{Entry: "flip_vertical", P: 1}},
		{"blur_limit 7 is kernels 3 to 7", `{"__class_fullname__": "Blur", "blur_limit": 7, "p": 1}`,
			Step{Entry: "blur", P: 1, Params: map[string]Value{"radius": {0.001, 0.003}}}},
		{"sigma_limit wins over blur_limit", `{"__class_fullname__": "GaussianBlur", "blur_limit": [3, 7], "sigma_limit": [2, 2], "p": 1}`,
			Step{Entry: "gaussian_blur", P: 1, Params: map[string]Value{"radius": Fixed(0.002)}}},
		{"1.x var_limit scalar is 0..var", `{"__class_fullname__": "GaussNoise", "var_limit": 100, "p": 1}`,
			Step{Entry: "gaussian_noise", P: 1, Params: map[string]Value{"sigma": {0, 0.039215686}}}},
		{"2.x std_range is a fraction already", `{"__class_fullname__": "GaussNoise", "std_range": [0.1, 0.2], "p": 1}`,
			Step{Entry: "gaussian_noise", P: 1, Params: map[string]Value{"sigma": {0.1, 0.2}}}},
		{"1.x quality_lower and quality_upper", `{"__class_fullname__": "ImageCompression", "quality_lower": 40, "quality_upper": 60, "p": 1}`,
			Step{Entry: "image_compression", P: 1, Params: map[string]Value{"quality": {40, 60}}}},
		{"2.x quality_range", `{"__class_fullname__": "ImageCompression", "quality_range": [40, 60], "p": 1}`,
			Step{Entry: "image_compression", P: 1, Params: map[string]Value{"quality": {40, 60}}}},
		{"1.x max_holes with min_holes null", `{"__class_fullname__": "CoarseDropout", "max_holes": 6, "min_holes": null, "max_height": 50, "p": 1}`,
			Step{Entry: "cutout", P: 1, Params: map[string]Value{"holes": Fixed(6), "size": Fixed(0.05), "fill": Fixed(0)}}},
		{"2.x num_holes_range", `{"__class_fullname__": "CoarseDropout", "num_holes_range": [2, 5], "hole_height_range": [20, 40], "p": 1}`,
			Step{Entry: "cutout", P: 1, Params: map[string]Value{"holes": {2, 5}, "size": {0.02, 0.04}, "fill": Fixed(0)}}},
		{"2.x hole sizes below 1 are fractions of the height, fill is 2.x's fill_value", `{"__class_fullname__": "CoarseDropout", "num_holes_range": [1, 3], "hole_height_range": [0.1, 0.2], "hole_width_range": [0.1, 0.2], "fill": 255, "p": 1}`,
			Step{Entry: "cutout", P: 1, Params: map[string]Value{"holes": {1, 3}, "size": {0.05, 0.1}, "fill": Fixed(1)}}},
		{"ColorJitter's scalar factor is 1 ± x, contrast about the mean", `{"__class_fullname__": "ColorJitter", "brightness": 0, "contrast": 0.3, "saturation": [0.5, 1.5], "hue": 0, "p": 1}`,
			Step{Entry: "color_jitter", P: 1, Params: map[string]Value{"brightness": Fixed(0), "contrast": {-0.3, 0.3}, "saturation": {-0.5, 0.5}, "hue": Fixed(0)}}},
		{"a crop in pixels is a fraction of each side", `{"__class_fullname__": "CenterCrop", "height": 250, "width": 800, "p": 1}`,
			Step{Entry: "center_crop", P: 1, Params: map[string]Value{"height": Fixed(0.5), "width": Fixed(0.8)}}},
		{"scale_limit is around 1", `{"__class_fullname__": "RandomScale", "scale_limit": [-0.2, 0.3], "p": 1}`,
			Step{Entry: "random_scale", P: 1, Params: map[string]Value{"factor": {0.8, 1.3}}}},
		{"gamma_limit is in percent", `{"__class_fullname__": "RandomGamma", "gamma_limit": [80, 120], "p": 1}`,
			Step{Entry: "random_gamma", P: 1, Params: map[string]Value{"gamma": {0.8, 1.2}}}},
		{"RGB shifts are grey levels", `{"__class_fullname__": "RGBShift", "r_shift_limit": 51, "g_shift_limit": 0, "b_shift_limit": [0, 0], "p": 1}`,
			Step{Entry: "rgb_shift", P: 1, Params: map[string]Value{"red": {-0.2, 0.2}, "green": Fixed(0), "blue": Fixed(0)}}},
		{"RandomCrop's height and width are fractions of each side", `{"__class_fullname__": "RandomCrop", "height": 250, "width": 800, "p": 1}`,
			Step{Entry: "random_crop", P: 1, Params: map[string]Value{"height": Fixed(0.5), "width": Fixed(0.8)}}},
		{"Resize's height and width are ratios of each side", `{"__class_fullname__": "Resize", "height": 224, "width": 224, "p": 1}`,
			Step{Entry: "resize", P: 1, Params: map[string]Value{"height": Fixed(0.448), "width": Fixed(0.224)}}},
		{"RandomResizedCrop's size is its output's", `{"__class_fullname__": "RandomResizedCrop", "height": 250, "width": 250, "scale": [0.5, 1], "p": 1}`,
			Step{Entry: "random_resized_crop", P: 1, Params: map[string]Value{"scale": {0.5, 1}, "height": Fixed(0.5), "width": Fixed(0.25)}}},
		{"2.x RandomResizedCrop size is [height, width]", `{"__class_fullname__": "RandomResizedCrop", "size": [250, 500], "p": 1}`,
			Step{Entry: "random_resized_crop", P: 1, Params: map[string]Value{"scale": {0.08, 1}, "height": Fixed(0.5), "width": Fixed(0.5)}}},
		{"PadIfNeeded border_mode 0 fills with value's grey", `{"__class_fullname__": "PadIfNeeded", "min_height": 1200, "min_width": 1200, "border_mode": 0, "value": [114, 114, 114], "p": 1}`,
			Step{Entry: "pad_constant", P: 1, Params: map[string]Value{"height": Fixed(1.2), "width": Fixed(1.2), "fill": Fixed(0.447058824)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [` + tc.transform + `]}}`
			imp, err := m.Import([]byte(raw), voc, 1000, 500)
			if err != nil {
				t.Fatal(err)
			}
			if len(imp.Pipeline) != 1 {
				t.Fatalf("%d steps, skipped %v", len(imp.Pipeline), imp.Skipped)
			}
			if diff := cmp.Diff(tc.want, imp.Pipeline[0]); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestImport2xDefaults: the parameters albumentations 2.x writes at their defaults
// (fill, fill_mask, rotate_method, Sharpen's method) ask for nothing darkroom does not
// do, so a 2.x pipeline of these reports nothing skipped; its renamed parameters are
// read (Solarize's threshold_range is a fraction already).
func TestImport2xDefaults(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	raw := `{"__version__": "2.0.5", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [
		{"__class_fullname__": "Rotate", "p": 0.5, "limit": [-30, 30], "border_mode": 4, "fill": 0, "fill_mask": 0, "rotate_method": "largest_box", "crop_border": false},
		{"__class_fullname__": "Rotate", "p": 0.5, "limit": [-30, 30], "border_mode": 0, "fill": 0, "fill_mask": 0, "rotate_method": "largest_box", "crop_border": false},
		{"__class_fullname__": "ShiftScaleRotate", "p": 0.5, "shift_limit_x": [-0.06, 0.06], "shift_limit_y": [-0.06, 0.06], "scale_limit": [-0.1, 0.1], "rotate_limit": [-45, 45], "border_mode": 4, "fill": 0, "fill_mask": 0, "rotate_method": "largest_box"},
		{"__class_fullname__": "SafeRotate", "p": 0.5, "limit": [-15, 15], "border_mode": 4, "fill": 0, "fill_mask": 0, "rotate_method": "largest_box"},
		{"__class_fullname__": "Sharpen", "p": 0.5, "alpha": [0.2, 0.5], "lightness": [0.5, 1.0], "method": "kernel", "kernel_size": 5, "sigma": 1.0},
		{"__class_fullname__": "Solarize", "p": 1, "threshold_range": [0.5, 0.5]}
	]}}`
	imp, err := m.Import([]byte(raw), voc, 400, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Skipped) != 0 || len(imp.Pipeline) != 6 {
		t.Fatalf("%d steps, skipped %v", len(imp.Pipeline), imp.Skipped)
	}
	want := Step{Entry: "solarize", P: 1, Params: map[string]Value{"amount": Fixed(1), "threshold": Fixed(0.5)}}
	if diff := cmp.Diff(want, imp.Pipeline[5]); diff != "" {
		t.Errorf("Solarize (-want +got):\n%s", diff)
	}
}

// TestImportSkipped: what darkroom cannot do is named with its class and why.
func TestImportSkipped(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [
		{"__class_fullname__": "Superpixels", "p": 0.5},
		{"__class_fullname__": "MadeUpTransform", "p": 0.5},
		{"__class_fullname__": "Rotate", "limit": 10, "border_mode": 1, "p": 0.5},
		{"__class_fullname__": "HorizontalFlip", "p": 0.5, "frobnicate": 3},
		{"__class_fullname__": "Blur", "blur_limit": [301, 301], "p": 0.5},
		{"__class_fullname__": "CoarseDropout", "max_holes": 4, "max_height": 30, "max_width": 30, "min_holes": 4, "min_height": 30, "min_width": 30, "p": 0.5},
		{"__class_fullname__": "CoarseDropout", "max_holes": 4, "max_height": 30, "max_width": 60, "p": 0.5}
	], "bbox_params": {"format": "coco", "min_area": 10, "min_visibility": 0}}}`
	imp, err := m.Import([]byte(raw), voc, 400, 300)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range imp.Skipped {
		got = append(got, s.Entry+": "+s.Reason)
	}
	want := []string{
		"bbox_params: min_area 10: darkroom drops boxes by min_visibility only",
		"Superpixels: darkroom has no superpixel segmentation",
		"MadeUpTransform: darkroom has no counterpart for this albumentations transform",
		"Rotate: parameter border_mode=1: darkroom does only 4",
		"HorizontalFlip: parameter frobnicate=3: darkroom does not read it",
		"Blur: radius 0.375 (from blur_limit) is outside darkroom's blur range [0, 0.05] at 400x300",
		// Square holes are darkroom's: only a width unlike the height is said.
		"CoarseDropout: parameter max_width=60: darkroom's holes are squares of side max_height",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if n := len(imp.Pipeline); n != 4 {
		t.Errorf("%d steps, want Rotate, HorizontalFlip and the two CoarseDropouts", n)
	}
	// Nothing darkroom can do is an error naming every transform.
	_, err = m.Import([]byte(`{"transform": {"__class_fullname__": "Compose", "transforms": [{"__class_fullname__": "Normalize"}]}}`), voc, 10, 10)
	if err == nil || !strings.Contains(err.Error(), "Normalize (darkroom writes image files") {
		t.Errorf("a pipeline of Normalize only: %v", err)
	}
}

// TestGroupFiring: containers fire as albumentations' do, from the seed.
func TestGroupFiring(t *testing.T) {
	step := func(e string, p float64, g *Group) Step { return Step{Entry: e, P: p, Group: g} }
	for _, tc := range []struct {
		name    string
		p       Pipeline
		members int
		check   func(fired []bool) string
		rate    float64 // the share of variants in which any member fires
	}{
		{"one_of", Pipeline{step("a", 1, &Group{Kind: "one_of", P: 0.6}), step("b", 3, &Group{Kind: "one_of", P: 0.6})}, 2,
			func(f []bool) string { return exactly(f, 0, 1) }, 0.6},
		{"some_of without replacement", Pipeline{
			step("a", 1, &Group{Kind: "some_of", P: 1, N: 2}), step("b", 1, &Group{Kind: "some_of", P: 1, N: 2}),
			step("c", 1, &Group{Kind: "some_of", P: 1, N: 2})}, 3,
			func(f []bool) string { return exactly(f, 2, 2) }, 1},
		{"one_or_other", Pipeline{step("a", 1, &Group{Kind: "one_or_other", P: 0.3}), step("b", 1, &Group{Kind: "one_or_other", P: 0.3})}, 2,
			func(f []bool) string { return exactly(f, 1, 1) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			any, first := 0, 0
			const n = 4000
			for v := range n {
				f := fired(tc.p.firing(11, v), len(tc.p))
				if msg := tc.check(f); msg != "" {
					t.Fatalf("variant %d: %v: %s", v, f, msg)
				}
				if slices.Contains(f, true) {
					any++
				}
				if f[0] {
					first++
				}
				if !slices.Equal(f, fired(tc.p.firing(11, v), len(tc.p))) {
					t.Fatalf("variant %d: draws differ between calls", v)
				}
			}
			if r := float64(any) / n; r < tc.rate-0.03 || r > tc.rate+0.03 {
				t.Errorf("fired in %.3f of variants, want %.2f", r, tc.rate)
			}
			switch tc.name {
			case "one_of": // a has weight 1 of 4
				if r := float64(first) / float64(any); r < 0.22 || r > 0.28 {
					t.Errorf("a chosen in %.3f of firings, want 0.25", r)
				}
			case "one_or_other":
				if r := float64(first) / n; r < 0.27 || r > 0.33 {
					t.Errorf("the first chosen in %.3f, want 0.3", r)
				}
			}
		})
	}
}

// fired says which steps fired at least once.
func fired(evs []event, n int) []bool {
	out := make([]bool, n)
	for _, e := range evs {
		out[e.t] = out[e.t] || e.fired
	}
	return out
}

func exactly(f []bool, lo, hi int) string {
	n := 0
	for _, x := range f {
		if x {
			n++
		}
	}
	if n < lo || n > hi {
		return "wrong number of members fired"
	}
	return ""
}

// TestExportRoundTrip: albumentations.json read back gives the pipeline it was
// written from, and a step without an albumentations counterpart is listed.
func TestExportRoundTrip(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	imp := importFile(t, "classification.json", 1000, 500)
	out, skipped, err := m.Export(imp.Pipeline, voc, 1000, 500, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	back, err := m.Import(out, voc, 1000, 500)
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, out)
	}
	// Parameters written at darkroom's defaults (albumentations' differ) come back
	// given explicitly: the same pipeline.
	dropWrittenDefaults(voc, imp.Pipeline, back.Pipeline)
	if diff := cmp.Diff(imp.Pipeline, back.Pipeline); diff != "" {
		t.Errorf("read back (-written +read):\n%s\n%s", diff, out)
	}
	if len(back.Skipped) != 0 {
		t.Errorf("read back skipped %v", back.Skipped)
	}
	p := Pipeline{{Entry: "vignette", P: 1, Params: map[string]Value{"amount": Fixed(-0.4)}}, {Entry: "flip_vertical", P: 0.5}}
	out, skipped, err = m.Export(p, voc, 100, 100, ExportOptions{BoxFormat: "coco", MinVisibility: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || skipped[0].Entry != "vignette" || skipped[0].Step != 0 {
		t.Errorf("skipped %v, want the vignette", skipped)
	}
	var doc struct {
		Skipped   []ExportSkipped `json:"darkroom_skipped"`
		Transform struct {
			Transforms []map[string]any `json:"transforms"`
			BboxParams map[string]any   `json:"bbox_params"`
		} `json:"transform"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Skipped) != 1 || len(doc.Transform.Transforms) != 1 || doc.Transform.Transforms[0]["__class_fullname__"] != "VerticalFlip" ||
		doc.Transform.BboxParams["format"] != "coco" || doc.Transform.BboxParams["min_visibility"] != 0.2 {
		t.Errorf("albumentations.json:\n%s", out)
	}
}

// TestExportColorJitterUnset: a factor darkroom leaves at 1 is written as the range
// [1, 1]: albumentations reads a lone 1 as 1 ± 1, brightness from black to twice.
func TestExportColorJitterUnset(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	p := Pipeline{{Entry: "color_jitter", P: 1, Params: map[string]Value{"saturation": {-0.3, 0.3}}}}
	out, skipped, err := m.Export(p, voc, 1000, 500, ExportOptions{})
	if err != nil || len(skipped) != 0 {
		t.Fatalf("export: %v, skipped %v", err, skipped)
	}
	ts := exportedTransforms(t, out)
	got := []any{ts[0]["brightness"], ts[0]["contrast"], ts[0]["saturation"]}
	want := []any{[]any{1.0, 1.0}, []any{1.0, 1.0}, []any{0.7, 1.3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ColorJitter written (-want +got):\n%s\n%s", diff, out)
	}
}

// exportedTransforms is the list of transforms an albumentations.json holds.
func exportedTransforms(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var doc struct {
		Transform struct {
			Transforms []map[string]any `json:"transforms"`
		} `json:"transform"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Transform.Transforms
}

// dropWrittenDefaults removes from read the parameters an export wrote at darkroom's
// defaults (albumentations' differ, so they are written) that written did not give:
// read back, the pipeline is then compared step for step with the one written.
func dropWrittenDefaults(voc *vocab.Vocabulary, written, read []Step) {
	for i, st := range read {
		e, _ := voc.Entry(st.Entry)
		for k, v := range st.Params {
			if _, given := written[i].Params[k]; !given && v == Fixed(e.Parameters[k].Default) {
				delete(st.Params, k)
			}
		}
	}
}

// TestReadingsAgreeWithPromptNames holds the two readers of albumentations' parameter
// names to one meaning: where an entry parameter also answers to an albumentations name
// in a prompt (vocabulary `also`, e.g. hue_saturation_value.saturation's
// sat_shift_limit), a pipeline's class that becomes that entry reads the name with the
// same scale, and does not list it as unread.
func TestReadingsAgreeWithPromptNames(t *testing.T) {
	a, m := augmenter(t), albuMap(t)
	entries := map[string]*vocab.Entry{}
	for _, e := range a.Vocab.Entries {
		entries[e.Name] = e
	}
	// also finds the prompt's reading of albumentations name n for entry e.
	also := func(e *vocab.Entry, n string) (string, *vocab.ParameterName) {
		for pn, p := range e.Parameters {
			for i, x := range p.Also {
				if x.Name == n {
					return pn, &p.Also[i]
				}
			}
		}
		return "", nil
	}
	checked := 0
	for cls, readings := range m.Transforms {
		for _, r := range readings {
			for _, s := range r.Steps {
				e := entries[s.Entry]
				if e == nil {
					t.Fatalf("%s: entry %q not in the vocabulary", cls, s.Entry)
				}
				for pn, p := range s.Params {
					for _, src := range p.From {
						q, x := also(e, src.Name)
						if x == nil || x.As != "limit" || x.Scale == 0 || src.Per != "none" || src.Fn != "identity" {
							continue
						}
						checked++
						if q != pn || math.Abs(src.Scale-x.Scale) > 1e-9*math.Abs(x.Scale) {
							t.Errorf("%s.%s: the pipeline reads it as %s.%s x %v, a prompt as %s.%s x %v", cls, src.Name, s.Entry, pn, src.Scale, s.Entry, q, x.Scale)
						}
					}
				}
				for n := range r.Unread {
					if q, x := also(e, n); x != nil && x.As == "limit" {
						t.Errorf("%s.%s: listed unread in a pipeline, read by a prompt as %s.%s", cls, n, s.Entry, q)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no albumentations name is read by both a pipeline and a prompt")
	}
}

// TestImportPixelSizesOfTheFrame: a size in pixels is of the image the transforms
// before it leave, as albumentations applies each to what the one before gave: a
// letterbox's PadIfNeeded pads the image LongestMaxSize made, a RandomCrop after a
// PadIfNeeded crops the padded one; written back, the same pixels come out.
func TestImportPixelSizesOfTheFrame(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [
		{"__class_fullname__": "LongestMaxSize", "max_size": 640, "p": 1},
		{"__class_fullname__": "PadIfNeeded", "min_height": 640, "min_width": 640, "border_mode": 0, "value": [114, 114, 114], "p": 1},
		{"__class_fullname__": "RandomCrop", "height": 512, "width": 384, "p": 1},
		{"__class_fullname__": "HorizontalFlip", "p": 0.5},
		{"__class_fullname__": "Resize", "height": 256, "width": 192, "p": 1}]}}`
	imp, err := m.Import([]byte(raw), voc, 1000, 500)
	if err != nil {
		t.Fatal(err)
	}
	want := Pipeline{
		{Entry: "resize_max_size", P: 1, Params: map[string]Value{"factor": Fixed(0.64)}},
		// 640x320 after the resize: a square of its long edge.
		{Entry: "pad_constant", P: 1, Params: map[string]Value{"height": Fixed(1), "width": Fixed(1), "fill": Fixed(0.447058824)}},
		{Entry: "random_crop", P: 1, Params: map[string]Value{"height": Fixed(0.8), "width": Fixed(0.6)}},
		{Entry: "flip_horizontal", P: 0.5},
		{Entry: "resize", P: 1, Params: map[string]Value{"height": Fixed(0.5), "width": Fixed(0.5)}},
	}
	if diff := cmp.Diff(want, imp.Pipeline); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(imp.Skipped) != 0 {
		t.Errorf("skipped %v", imp.Skipped)
	}
	out, skipped, err := m.Export(imp.Pipeline, voc, 1000, 500, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := exportedTransforms(t, out)
	// resize_max_size has no writer (LongestMaxSize and SmallestMaxSize are one
	// entry); the rest come back in albumentations' pixels.
	if len(skipped) != 1 || skipped[0].Entry != "resize_max_size" || len(ts) != 4 {
		t.Fatalf("skipped %v, written:\n%s", skipped, out)
	}
	got := []any{ts[0]["__class_fullname__"], ts[0]["min_height"], ts[0]["min_width"], ts[0]["border_mode"], ts[0]["value"],
		ts[1]["__class_fullname__"], ts[1]["height"], ts[1]["width"], ts[3]["__class_fullname__"], ts[3]["height"], ts[3]["width"]}
	wantOut := []any{"PadIfNeeded", 640.0, 640.0, 0.0, []any{114.0, 114.0, 114.0}, "RandomCrop", 512.0, 384.0, "Resize", 256.0, 192.0}
	if diff := cmp.Diff(wantOut, got); diff != "" {
		t.Errorf("written (-want +got):\n%s\n%s", diff, out)
	}
}
