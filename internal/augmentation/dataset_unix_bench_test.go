//go:build unix

package augmentation

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// BenchmarkDatasetJob is what augment-dataset pays per image, file system aside:
// decode a JPEG of the sample photo at 1024 px, draw and render the 4-transform
// pipeline scripts/bench-augment.sh runs against OpenCV (flip, rotate 10 degrees,
// brightness/contrast, gaussian blur), encode JPEG. Run with -cpu 1 for the CPU
// time of one image: the engine's own parallelism then adds nothing.
func BenchmarkDatasetJob(b *testing.B) {
	s := testEditor(b)
	facts, err := AugmentFacts(s.Facts)
	if err != nil {
		b.Fatal(err)
	}
	aug := augment.New(s.Vocab, facts)
	src, err := engine.Decode(darkroom.SamplePhoto, engine.DecodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	// The sample is 600 px wide: scaled up to the 1024 px of the peers' images.
	w, h := engine.FitLongEdge(src.Image.W, src.Image.H, 1024)
	img := engine.Resize(src.Image, w, h)
	var in bytes.Buffer
	if err := engine.Encode(&in, img, engine.EncodeOptions{Format: "jpeg", Quality: 95}); err != nil {
		b.Fatal(err)
	}
	p := augment.Pipeline{
		{Entry: "flip_horizontal", P: 1},
		{Entry: "rotate", P: 1, Params: map[string]augment.Value{"angle": augment.Fixed(10)}},
		{Entry: "brightness_contrast", P: 1, Params: map[string]augment.Value{"brightness": augment.Fixed(0.26), "contrast": augment.Fixed(0.2)}},
		{Entry: "gaussian_blur", P: 1, Params: map[string]augment.Value{"radius": augment.Fixed(0.00146)}},
	}
	f := datasetAugment(aug, p, nil, "jpeg", false)
	b.SetBytes(int64(3 * img.W * img.H))
	b.ResetTimer()
	cpu0 := processCPU()
	// The runner hands each job a reused buffer for its output (Job.Out).
	out := make([]byte, 0, in.Len())
	for i := range b.N {
		res, err := f(context.Background(), dataset.Job{Source: "a.jpg", Image: in.Bytes(), Seed: uint64(i), Out: out[:0]})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Image) == 0 {
			b.Fatal("no image")
		}
		out = res.Image
	}
	// CPU time per image, which other work on a shared machine disturbs far less
	// than the wall time: the figure to hold against a peer's process time.
	if cpu := processCPU(); cpu > 0 {
		b.ReportMetric(float64(cpu-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// processCPU is the CPU time (user and system) of the test process, on every thread;
// 0 where the platform does not say.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
