package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkApplyPerRegion is one whole apply_per_region call of two regions (a
// named mask and a drawn one) through Invoke: the one check, the entries and the
// commit. The values alternate so each call commits.
func BenchmarkApplyPerRegion(b *testing.B) {
	s := editServer(b)
	id := "harbour"
	addImage(b, s, id, testPhoto(b, 64, 48))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		raw := json.RawMessage(fmt.Sprintf(`{"image_id": %q, "primitive_name": "exposure", "regions": [
			{"mask_spec": {"name": "sky_gradient"}, "value": %g},
			{"mask_spec": {"shape": {"kind": "ellipse", "center": [0.5, 0.5], "radius_x": 0.2, "radius_y": 0.1}}, "value": 0.4, "strength": 0.5}]}`,
			id, -0.5+float64(i%2)*0.1))
		if env, _ := s.Invoke(context.Background(), "apply_per_region", raw); !env.Success {
			b.Fatalf("%+v", env.Error)
		}
	}
}
