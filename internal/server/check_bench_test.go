package server

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkCheckApplyPrimitive is an apply_primitive's check alone: its value and
// a named mask checked and the entry expanded, on an image that does not exist, so
// the call ends (not_found) where the commit would start. RunParallel shows what the
// evaluators beyond the contract's own give to concurrent calls.
func BenchmarkCheckApplyPrimitive(b *testing.B) {
	s := editServer(b)
	raw := json.RawMessage(`{"image_id": "nosuch", "primitive_name": "exposure", "value": 0.5, "mask_spec": {"name": "sky_gradient"}}`)
	if env, _ := s.Invoke(context.Background(), "apply_primitive", raw); env.Error == nil || env.Error.Code != "not_found" {
		b.Fatalf("want not_found, got %+v", env)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.Invoke(context.Background(), "apply_primitive", raw)
		}
	})
}
