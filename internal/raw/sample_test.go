package raw

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// sampleSynth is how samples/coffee.dng is made from samples/coffee.png: an RGGB
// mosaic in 256-pixel lossless JPEG tiles, 14 bits, a masked border, a camera-like
// colour matrix and a daylight white balance.
func sampleSynth() Synth {
	s := baseSynth()
	s.Bits, s.White, s.Black = 14, 16000, []float64{600}
	s.LJ92, s.Tile, s.Margin = true, 256, 8
	s.Make, s.Model, s.ISO, s.ExposureTime = "darkroom", "synthesized DNG", 100, 1.0/125
	return s
}

// TestSampleDNG keeps samples/coffee.dng what sampleSynth makes of coffee.png
// (DARKROOM_UPDATE=1 rewrites it) and small enough to ship.
func TestSampleDNG(t *testing.T) {
	pix, w, h := photo(t, "coffee.png", 1<<20, 1<<20)
	s := sampleSynth()
	b, err := s.Encode(pix, w, h)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "samples", "coffee.dng")
	if os.Getenv("DARKROOM_UPDATE") == "1" {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b) {
		t.Errorf("samples/coffee.dng is not what sampleSynth makes of coffee.png (DARKROOM_UPDATE=1 rewrites it)")
	}
	if len(b) > 2<<20 {
		t.Errorf("the sample is %d bytes, want < 2 MiB", len(b))
	}
	f, img := decodeBytes(t, b, Options{})
	if img.W != w || img.H != h || f.Meta.Model != "synthesized DNG" {
		t.Errorf("sample decodes to %dx%d %+v", img.W, img.H, f.Meta)
	}
}
