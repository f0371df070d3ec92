package jpegenc

import (
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

const largePhoto = "../../../shared/testdata/photos/large-24mp.jpg"

var (
	largeOnce sync.Once
	largeImg  *image.YCbCr
	largeErr  error
)

// loadLarge decodes the shared 24-megapixel photograph (6000x4000, 4:2:0)
// once, or skips b when it is absent.
func loadLarge(b *testing.B) *image.YCbCr {
	b.Helper()
	largeOnce.Do(func() {
		f, err := os.Open(largePhoto)
		if err != nil {
			largeErr = err
			return
		}
		defer f.Close()
		m, err := jpeg.Decode(f)
		if err != nil {
			largeErr = err
			return
		}
		y, ok := m.(*image.YCbCr)
		if !ok || y.SubsampleRatio != image.YCbCrSubsampleRatio420 {
			largeErr = os.ErrInvalid
			return
		}
		largeImg = y
	})
	if largeErr != nil {
		b.Skipf("%s: %v", largePhoto, largeErr)
	}
	return largeImg
}

// downscale420 returns a w x h 4:2:0 copy of m, each output sample the
// rounded mean of the box of input samples it covers in its plane.
func downscale420(m *image.YCbCr, w, h int) *image.YCbCr {
	out := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	sw, sh := m.Rect.Dx(), m.Rect.Dy()
	box := func(dst []byte, dstStride, dw, dh int, src []byte, srcStride, sw, sh int) {
		for y := range dh {
			y0, y1 := y*sh/dh, max((y+1)*sh/dh, y*sh/dh+1)
			for x := range dw {
				x0, x1 := x*sw/dw, max((x+1)*sw/dw, x*sw/dw+1)
				sum, n := 0, 0
				for sy := y0; sy < y1; sy++ {
					for sx := x0; sx < x1; sx++ {
						sum += int(src[sy*srcStride+sx])
						n++
					}
				}
				dst[y*dstStride+x] = byte((sum + n/2) / n)
			}
		}
	}
	box(out.Y, out.YStride, w, h, m.Y, m.YStride, sw, sh)
	cw, ch := (w+1)/2, (h+1)/2
	scw, sch := (sw+1)/2, (sh+1)/2
	box(out.Cb, out.CStride, cw, ch, m.Cb, m.CStride, scw, sch)
	box(out.Cr, out.CStride, cw, ch, m.Cr, m.CStride, scw, sch)
	return out
}

func BenchmarkEncode(b *testing.B) {
	const quality = 90
	run := func(b *testing.B, m *image.YCbCr, enc func(io.Writer, *image.YCbCr) error) {
		b.ReportAllocs()
		b.SetBytes(int64(m.Rect.Dx() * m.Rect.Dy()))
		for b.Loop() {
			if err := enc(io.Discard, m); err != nil {
				b.Fatal(err)
			}
		}
	}
	std := func(w io.Writer, m *image.YCbCr) error {
		return jpeg.Encode(w, m, &jpeg.Options{Quality: quality})
	}
	fast := func(w io.Writer, m *image.YCbCr) error {
		return Encode(w, m, quality)
	}
	b.Run("std", func(b *testing.B) { run(b, loadLarge(b), std) })
	b.Run("fast", func(b *testing.B) { run(b, loadLarge(b), fast) })
	var small *image.YCbCr
	smallImg := func(b *testing.B) *image.YCbCr {
		if small == nil {
			small = downscale420(loadLarge(b), 1024, 683)
		}
		return small
	}
	b.Run("1024x683/std", func(b *testing.B) { run(b, smallImg(b), std) })
	b.Run("1024x683/fast", func(b *testing.B) { run(b, smallImg(b), fast) })
}

// BenchmarkEncode1024 encodes a 1024x1024 photograph (the centre square of
// the shared photo, downscaled) at the qualities augmentation uses most.
func BenchmarkEncode1024(b *testing.B) {
	var sq *image.YCbCr
	square := func(b *testing.B) *image.YCbCr {
		if sq == nil {
			m := loadLarge(b)
			side := min(m.Rect.Dx(), m.Rect.Dy()) &^ 1
			x0 := (m.Rect.Min.X + m.Rect.Max.X - side) / 2 &^ 1
			y0 := (m.Rect.Min.Y + m.Rect.Max.Y - side) / 2 &^ 1
			c := m.SubImage(image.Rect(x0, y0, x0+side, y0+side)).(*image.YCbCr)
			sq = downscale420(c, 1024, 1024)
		}
		return sq
	}
	for _, q := range []int{90, 95} {
		for _, avx2 := range fdctPaths() {
			fdct := "go"
			if avx2 {
				fdct = "avx2"
			}
			b.Run(fmt.Sprintf("q%d/%s", q, fdct), func(b *testing.B) {
				m := square(b)
				b.ReportAllocs()
				b.SetBytes(int64(m.Rect.Dx() * m.Rect.Dy()))
				for b.Loop() {
					if err := encodeWith(avx2, io.Discard, m, q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFDCT measures the FDCT and quantizer of one block, with each
// implementation this machine runs, on 64 different blocks of a smooth
// image (so that branches and caches see varied data).
func BenchmarkFDCT(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := image.NewYCbCr(image.Rect(0, 0, 64, 64), image.YCbCrSubsampleRatio420)
	fillSmooth(m, rng)
	var zq [blockSize]byte
	for i := range zq {
		zq[i] = byte(1 + i%7)
	}
	var qt quantTable
	qt.init(&zq)
	for _, impl := range fdctImpls() {
		b.Run(impl.name, func(b *testing.B) {
			var blk block
			var sink uint64
			i := 0
			for b.Loop() {
				off := (i&7)*8 + (i>>3&7)*8*m.YStride
				sink += impl.f(&blk, m.Y, off, m.YStride, &qt)
				i++
			}
			if sink == 0 {
				b.Fatal("all blocks quantized to zero")
			}
		})
	}
}
