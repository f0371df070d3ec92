package server

import (
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

func TestZZCountTmp(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.7}},
		{"apply_per_region", map[string]any{"image_id": "cup", "primitive_name": "exposure", "regions": []any{map[string]any{"mask_spec": map[string]any{"name": "sky_gradient"}, "value": -0.5}, map[string]any{"mask_spec": map[string]any{"name": "foreground_gradient"}, "value": 0.3}}}},
		{"get_state", map[string]any{"image_id": "cup"}},
		{"augment_image", map[string]any{"image_id": "cup", "prompt": "slight blur and rotate between -10 and 10 degrees", "seed": 1, "count": 1, "options": map[string]any{"return_images": 0}}},
		{"augment_image", map[string]any{"image_id": "cup", "prompt": "slight blur and rotate between -10 and 10 degrees", "seed": 1, "count": 8, "options": map[string]any{"return_images": 0}}},
	} {
		before := contract.Evaluations()
		f.call(c.tool, c.args)
		t.Logf("%s: %d", c.tool, contract.Evaluations()-before)
	}
}
