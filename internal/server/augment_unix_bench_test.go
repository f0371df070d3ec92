//go:build unix

package server

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"
)

// BenchmarkAugmentImage8 is one augment_image of 8 variants through the server,
// from the arguments to the written session: the call's check, the pipeline's
// check, 8 variants rendered and encoded. The pipeline draws from ranges, so every
// variant resolves new values; "loadtest" is scripts/loadtest's call. cpu-s/op is the process's CPU time per call (all
// cores): compare it across builds in the same run.
func BenchmarkAugmentImage8(b *testing.B) {
	for _, c := range []struct {
		name string
		w, h int
		args string
	}{
		// scripts/loadtest's augment_image: a prompt, on an image of the sample's size.
		// The same on a thumbnail: what the call costs beside its pixels.
		{"thumbnail", 64, 48, `"prompt": "slight blur and rotate between -10 and 10 degrees"`},
		{"loadtest", 600, 400, `"prompt": "slight blur and rotate between -10 and 10 degrees"`},
		{"pipeline", 1024, 683, `"pipeline": [
			{"entry": "flip_horizontal", "p": 0.5},
			{"entry": "rotate", "params": {"angle": [-10, 10]}, "p": 0.8},
			{"entry": "brightness_contrast", "params": {"brightness": [-0.2, 0.2], "contrast": [-0.2, 0.2]}, "p": 0.8},
			{"entry": "gaussian_blur", "params": {"radius": [0.001, 0.002]}, "p": 0.5},
			{"entry": "exposure", "params": {"ev": [-0.5, 0.5]}, "p": 0.5}]`},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := editServer(b)
			addImage(b, s, "harbour", testPhoto(b, c.w, c.h))
			raw := json.RawMessage(`{"image_id": "harbour", "seed": 7, "count": 8, "options": {"return_images": 0}, ` + c.args + `}`)
			if env, _ := s.Invoke(context.Background(), "augment_image", raw); !env.Success {
				b.Fatalf("augment_image: %+v", env.Error)
			}
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if env, _ := s.Invoke(context.Background(), "augment_image", raw); !env.Success {
					b.Fatal(env.Error)
				}
			}
			b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
