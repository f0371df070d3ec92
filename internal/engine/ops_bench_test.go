package engine

import (
	"sync"
	"testing"
)

// Per-operation benchmarks at preview size (1024x683, the long edge of a preview of a
// 3:2 photo), each a full Render of one edit at its sample arguments, so they include
// the output allocation a render makes.

var (
	opBenchOnce sync.Once
	opBenchImg  *Image
)

func opPreviewImage(b *testing.B) *Image {
	opBenchOnce.Do(func() { opBenchImg = Resize(opPhoto(b, "coffee"), 1024, 683) })
	return opBenchImg
}

func BenchmarkOps(b *testing.B) {
	src := opPreviewImage(b)
	for _, op := range Operations() {
		b.Run(op, func(b *testing.B) {
			edits := []Edit{opSample(b, op)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(src, edits, RenderOptions{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMask(b *testing.B) {
	src := opPreviewImage(b)
	masks := map[string]*Mask{
		"gradient":  {Shape: &Shape{Kind: "gradient", Start: [2]float64{0.5, 0}, End: [2]float64{0.5, 0.6}}},
		"ellipse":   {Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.3, RadiusY: 0.2, Rotation: 20, Feather: 0.05}},
		"rectangle": {Shape: &Shape{Kind: "rectangle", X: 0.2, Y: 0.2, Width: 0.5, Height: 0.4, Rotation: 10, Feather: 0.05}},
		"polygon":   {Shape: &Shape{Kind: "polygon", Points: [][2]float64{{0.1, 0.1}, {0.9, 0.2}, {0.7, 0.9}, {0.2, 0.8}}, Feather: 0.05}},
		"hue range": {Ranges: []RangeFilter{{Channel: "hue", Min: 330, Max: 40, Feather: 20}}},
	}
	dst := make([]float32, src.W*src.H)
	for name, m := range masks {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := maskWeights(dst, src, m, 1, frame{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderPreviewFiveOps is the agent's main loop at preview size: five
// operations, one of them masked.
func BenchmarkRenderPreviewFiveOps(b *testing.B) {
	src := opPreviewImage(b)
	sat := opSample(b, "saturation")
	sat.Mask = &Mask{Shape: &Shape{Kind: "gradient", Start: [2]float64{0.5, 0}, End: [2]float64{0.5, 0.6}}}
	edits := []Edit{
		opEdit("exposure", Args{"ev": 0.3}),
		opSample(b, "white_balance"),
		opSample(b, "tone"),
		sat,
		opSample(b, "vignette"),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(src, edits, RenderOptions{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
