package augment

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// BenchmarkRun8 is augment_image's render of 8 variants of a realistic pipeline
// (flip, rotate, brightness/contrast, blur, noise, values drawn from ranges) on a
// 12 MP photo (the shared 24 MP test photo at a 4240 px long edge), without encoding:
// what the order a pipeline renders in costs. It skips when the shared photos are
// not beside the repository.
func BenchmarkRun8(b *testing.B) {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "photos", "large-24mp.jpg")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("shared test photo not found: %v", err)
	}
	dec, err := engine.Decode(data, engine.DecodeOptions{MaxLongEdge: 4240})
	if err != nil {
		b.Fatal(err)
	}
	src := dec.Image
	if max(src.W, src.H) < 4240 {
		w, h := engine.FitLongEdge(src.W, src.H, 4240)
		src = engine.Resize(src, w, h)
	}
	a := augmenter(b)
	p := Pipeline{
		{Entry: "flip_horizontal", P: 0.5},
		{Entry: "rotate", P: 1, Params: map[string]Value{"angle": Value{-15, 15}}},
		{Entry: "brightness_contrast", P: 1, Params: map[string]Value{"brightness": Value{-0.5, 0.5}, "contrast": Value{-0.2, 0.2}}},
		{Entry: "gaussian_blur", P: 0.8, Params: map[string]Value{"radius": Value{0.0005, 0.002}}},
		{Entry: "gaussian_noise", P: 0.8, Params: map[string]Value{"sigma": Value{0.01, 0.03}}},
	}
	b.ReportMetric(float64(src.W*src.H)/1e6, "MP")
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		vs, err := a.Run(src, p, uint64(i), 8, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range vs {
			if len(v.Skipped) > 0 {
				b.Fatalf("variant %d skipped %v", v.Index, v.Skipped)
			}
			engine.Recycle(v.Image)
		}
	}
	b.StopTimer()
	// CPU seconds per run beside the wall time: on a loaded machine they say more.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
