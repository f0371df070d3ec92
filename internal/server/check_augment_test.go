package server

import (
	"path/filepath"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// TestAugmentEvaluatesOnce: CUE judges an augment_image once, at the boundary,
// however many variants it makes and however its pipeline is given (a prompt, a
// preset, steps of darkroom's own with values and ranges, groups, an
// albumentations pipeline): below the adapter the steps are typed values and no
// variant or step is evaluated again. augment_dataset likewise, per call and not
// per image.
func TestAugmentEvaluatesOnce(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	own := []any{
		map[string]any{"entry": "exposure", "params": map[string]any{"ev": []any{-0.5, 0.5}}, "p": 0.9},
		map[string]any{"entry": "flip_horizontal", "p": 0.5, "group": map[string]any{"kind": "one_of", "id": 1}},
		map[string]any{"entry": "rotate", "params": map[string]any{"angle": []any{-10, 10}}, "group": map[string]any{"kind": "one_of", "id": 1}},
		map[string]any{"entry": "vignette"},
	}
	albu := map[string]any{"__version__": "1.3.1", "transform": map[string]any{"__class_fullname__": "Compose", "p": 1.0, "transforms": []any{
		map[string]any{"__class_fullname__": "HorizontalFlip", "p": 0.5},
		map[string]any{"__class_fullname__": "Rotate", "p": 0.7, "limit": []any{-15, 15}},
		map[string]any{"__class_fullname__": "OneOf", "p": 0.5, "transforms": []any{
			map[string]any{"__class_fullname__": "Blur", "p": 0.5, "blur_limit": []any{3, 5}},
			map[string]any{"__class_fullname__": "GaussNoise", "p": 0.5, "var_limit": []any{10.0, 50.0}},
		}},
	}}}
	for _, count := range []int{1, 8} {
		for name, args := range map[string]map[string]any{
			"prompt":         {"prompt": "flip horizontally, rotate up to 10 degrees and add some noise"},
			"preset":         {"preset": "classification_light"},
			"pipeline":       {"pipeline": own},
			"albumentations": {"pipeline": albu},
		} {
			args["image_id"], args["seed"], args["count"] = "cup", 7, count
			args["options"] = map[string]any{"return_images": 0}
			before := contract.Evaluations()
			f.ok("augment_image", args)
			if n := contract.Evaluations() - before; n != 1 {
				t.Errorf("augment_image count %d from a %s: %d CUE evaluations, want 1", count, name, n)
			}
		}
	}
	for name, args := range map[string]map[string]any{
		"prompt":   {"prompt": "flip horizontally and rotate up to 10 degrees"},
		"pipeline": {"pipeline": own},
	} {
		args["input"], args["output"], args["variants"] = f.photos, filepath.Join("sets", name), 2
		before := contract.Evaluations()
		f.ok("augment_dataset", args)
		if n := contract.Evaluations() - before; n != 1 {
			t.Errorf("augment_dataset from a %s: %d CUE evaluations, want 1", name, n)
		}
	}
}
