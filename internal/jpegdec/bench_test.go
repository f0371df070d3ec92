package jpegdec

import (
	"bytes"
	"image/jpeg"
	"os"
	"testing"
)

func readLarge(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(largePhoto)
	if err != nil {
		tb.Skipf("benchmark photo not available: %v", err)
	}
	return b
}

// BenchmarkDecode decodes the 24-megapixel benchmark photo with image/jpeg
// and with this package at each scale.
func BenchmarkDecode(b *testing.B) {
	data := readLarge(b)
	b.Run("std", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, s := range []struct {
		name  string
		scale int
	}{{"scale1", 1}, {"scale2", 2}, {"scale4", 4}, {"scale8", 8}} {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Decode(bytes.NewReader(data), Options{Scale: s.scale}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeProgressive decodes a 640x427 progressive fixture.
func BenchmarkDecodeProgressive(b *testing.B) {
	data, err := os.ReadFile("testdata/rocket-progressive.jpg")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("std", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, s := range []struct {
		name  string
		scale int
	}{{"scale1", 1}, {"scale8", 8}} {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(bytes.NewReader(data), Options{Scale: s.scale}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
