package augment

import (
	"bytes"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// BenchmarkVariant4 is one variant of the 4-transform pipeline scripts/bench-augment.sh
// runs against OpenCV and ImageMagick (flip, rotate 10 degrees, brightness/contrast,
// a gaussian blur of about 1.5 px sigma), on the sample photo at 1024 px, encoded as
// JPEG: the per-image cost of augment_dataset without the file system.
func BenchmarkVariant4(b *testing.B) {
	a := augmenter(b)
	src := benchPhoto(b, 1024)
	p := Pipeline{
		{Entry: "flip_horizontal", P: 1},
		{Entry: "rotate", P: 1, Params: map[string]Value{"angle": Fixed(10)}},
		{Entry: "brightness_contrast", P: 1, Params: map[string]Value{"brightness": Fixed(0.26), "contrast": Fixed(0.2)}},
		{Entry: "gaussian_blur", P: 1, Params: map[string]Value{"radius": Fixed(0.00146)}},
	}
	b.ResetTimer()
	for i := range b.N {
		v, err := a.Variant(src, p, 1, i, nil)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, v.Image, "jpeg", 90); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPhoto is the sample photo with its long edge at long pixels.
func benchPhoto(b *testing.B, long int) *engine.Image {
	b.Helper()
	src, err := engine.Decode(darkroom.SamplePhoto, engine.DecodeOptions{MaxLongEdge: long})
	if err != nil {
		b.Fatal(err)
	}
	if max(src.Image.W, src.Image.H) >= long {
		return src.Image
	}
	w, h := engine.FitLongEdge(src.Image.W, src.Image.H, long)
	return engine.Resize(src.Image, w, h)
}
