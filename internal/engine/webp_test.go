package engine

import (
	"bytes"
	"image/png"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"

	"golang.org/x/image/webp"
)

// TestWebPMatchesPNG encodes a photo and a synthetic image as WebP, decodes the file
// with golang.org/x/image/webp and requires every pixel to equal the 8-bit PNG's: the
// encoder is lossless and quantises as PNG does.
func TestWebPMatchesPNG(t *testing.T) {
	ramp := geoRamp(97, 61)
	photo := opShrink(opPhoto(t, "coffee"), 8)
	for name, img := range map[string]*Image{"ramp": ramp, "photo": photo} {
		var wb, pb bytes.Buffer
		if err := EncodeWebP(&wb, img); err != nil {
			t.Fatalf("%s: encode webp: %v", name, err)
		}
		if err := Encode(&pb, img, EncodeOptions{Format: "png"}); err != nil {
			t.Fatalf("%s: encode png: %v", name, err)
		}
		got, err := webp.Decode(&wb)
		if err != nil {
			t.Fatalf("%s: decode webp: %v", name, err)
		}
		want, err := png.Decode(&pb)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("%s: webp is %v, png %v", name, got.Bounds(), want.Bounds())
		}
		diff := 0
		for y := range img.H {
			for x := range img.W {
				r1, g1, b1, a1 := got.At(x, y).RGBA()
				r2, g2, b2, _ := want.At(x, y).RGBA()
				if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 || a1 != 0xffff {
					if diff++; diff <= 3 {
						t.Errorf("%s: pixel (%d, %d) is %v in webp, %v in png", name, x, y, got.At(x, y), want.At(x, y))
					}
				}
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d pixels differ", name, diff)
		}
	}
}

func TestWebPRefusesOversize(t *testing.T) {
	img := &Image{W: maxWebPSide + 1, H: 1, Pix: make([]float32, 3*(maxWebPSide+1))}
	if err := EncodeWebP(&bytes.Buffer{}, img); err == nil || darkroom.Code(err) != darkroom.LimitExceeded {
		t.Fatalf("encode %dx1: %v, want limit_exceeded", img.W, err)
	}
}
