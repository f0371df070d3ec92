//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// BenchmarkApplyPerRegion is one whole apply_per_region call of two regions (a
// named mask and a drawn one) through Invoke: the one check, the entries and the
// commit. The values alternate so each call commits. cpu-ns/op is the CPU it
// costs, CUE evaluations/op how often CUE judged it.
func BenchmarkApplyPerRegion(b *testing.B) {
	s := editServer(b)
	id := "harbour"
	addImage(b, s, id, testPhoto(b, 64, 48))
	b.ReportAllocs()
	before, cpu := contract.Evaluations(), cpuTime()
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
	b.ReportMetric(float64(contract.Evaluations()-before)/float64(i), "evaluations/op")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(i), "cpu-ns/op")
}

// cpuTime is the process's CPU time (user and system) in nanoseconds: the wall
// time of a call that commits is mostly the disk's.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
