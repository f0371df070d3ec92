package jpegdec

import (
	"bytes"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"slices"
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

// bench1024 returns a 1024x1024 quality-95 4:2:0 JPEG (image/jpeg's
// encoder) of the middle of the benchmark photo decoded at half size: the
// size of a typical augmentation input.
func bench1024(tb testing.TB) []byte {
	tb.Helper()
	m, err := Decode(bytes.NewReader(readLarge(tb)), Options{Scale: 2})
	if err != nil {
		tb.Fatal(err)
	}
	r := m.Bounds()
	x0, y0 := r.Min.X+(r.Dx()-1024)/2, r.Min.Y+(r.Dy()-1024)/2
	sub := m.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(x0, y0, x0+1024, y0+1024))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, sub, &jpeg.Options{Quality: 95}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkDecode1024 decodes a 1024x1024 quality-95 JPEG at scale 1 with
// image/jpeg and with this package, with and without the SIMD inverse DCT.
// Run it with -cpu 1 to measure the CPU time of one decode.
func BenchmarkDecode1024(b *testing.B) {
	data := bench1024(b)
	b.Run("std", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, simd := range []bool{true, false} {
		name := "jpegdec"
		if !simd {
			name = "jpegdec-go"
		}
		b.Run(name, func(b *testing.B) {
			if simd && !haveSIMD {
				b.Skip("no SIMD inverse DCT on this CPU or architecture")
			}
			b.SetBytes(int64(len(data)))
			withSIMD(simd, func() {
				for b.Loop() {
					if _, err := Decode(bytes.NewReader(data), Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkReconstruct times reconstructBatch (dequantizing, inverse DCT
// and store) at scale 1 on a batch of 1024 synthetic luma blocks with 0 to
// 40 AC coefficients, with and without the SIMD inverse DCT.
func BenchmarkReconstruct(b *testing.B) {
	_, d, err := decodeWith(bench1024(b), 1, defaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	bt := newBatch(1024)
	for i := range bt.hdr {
		n := rng.IntN(41)
		zs := rng.Perm(63)[:n]
		slices.Sort(zs)
		for _, z := range zs {
			bt.ent[bt.ne] = (rng.Int32N(129)-64)<<8 | int32(z+1)
			if bt.ent[bt.ne]>>8 == 0 {
				bt.ent[bt.ne] |= 1 << 8
			}
			bt.ne++
		}
		bt.hdr[i] = blockHdr{dc: rng.Int32N(256) - 128, bx: uint16(i % 128), by: uint16(i / 128), n: uint8(n)}
		bt.nh++
	}
	for _, simd := range []bool{true, false} {
		name := "simd"
		if !simd {
			name = "go"
		}
		b.Run(name, func(b *testing.B) {
			if simd && !haveSIMD {
				b.Skip("no SIMD inverse DCT on this CPU or architecture")
			}
			withSIMD(simd, func() {
				for b.Loop() {
					d.reconstructBatch(bt)
				}
			})
		})
	}
}
