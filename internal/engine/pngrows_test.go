package engine

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pngVariants are PNGs of every layout pngStream reads and some it leaves to
// image/png: noisy pixels, so that image/png's encoder picks every filter type.
func pngVariants(t *testing.T) map[string][]byte {
	t.Helper()
	const w, h = 701, 333
	rng := rand.New(rand.NewPCG(1, 2))
	rect := image.Rect(0, 0, w, h)
	imgs := map[string]image.Image{
		"gray8":   image.NewGray(rect),
		"gray16":  image.NewGray16(rect),
		"rgb8":    image.NewRGBA(rect),
		"rgba8":   image.NewNRGBA(rect),
		"rgb16":   image.NewRGBA64(rect),
		"rgba16":  image.NewNRGBA64(rect),
		"palette": image.NewPaletted(rect, color.Palette{color.Black, color.White, color.NRGBA{200, 10, 10, 128}}),
	}
	for _, m := range imgs {
		for y := range h {
			for x := range w {
				// Smooth with noise: every filter wins somewhere.
				v := uint16(x*90+y*40) + uint16(rng.IntN(2048))
				a := uint16(0xffff)
				if x%7 == 0 {
					a = uint16(rng.IntN(0x10000))
				}
				switch m := m.(type) {
				case *image.Gray:
					m.SetGray(x, y, color.Gray{uint8(v >> 8)})
				case *image.Gray16:
					m.SetGray16(x, y, color.Gray16{v})
				case *image.RGBA:
					m.SetRGBA(x, y, color.RGBA{uint8(v >> 8), uint8(v), uint8(x), 0xff})
				case *image.NRGBA:
					m.SetNRGBA(x, y, color.NRGBA{uint8(v >> 8), uint8(v), uint8(x), uint8(a >> 8)})
				case *image.RGBA64:
					m.SetRGBA64(x, y, color.RGBA64{v, v ^ 0x5555, uint16(x * 93), 0xffff})
				case *image.NRGBA64:
					m.SetNRGBA64(x, y, color.NRGBA64{v, v ^ 0x5555, uint16(x * 93), a})
				case *image.Paletted:
					m.SetColorIndex(x, y, uint8(v>>8)%3)
				}
			}
		}
	}
	out := map[string][]byte{}
	for name, m := range imgs {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		out[name] = b.Bytes()
	}
	// Grey with alpha (colour type 4), which image/png never writes: rows by hand.
	for _, depth := range []int{8, 16} {
		raw := make([]byte, 0, h*(1+w*2*depth/8))
		for y := range h {
			raw = append(raw, 0)
			for x := range w {
				for range 2 * depth / 8 {
					raw = append(raw, byte(x*y+rng.IntN(9)))
				}
			}
		}
		out["grayalpha"+string(rune('0'+depth/8))] = rawPNG(w, h, depth, 4, raw)
	}
	// An opaque RGB image with a tRNS chunk: image/png makes it NRGBA.
	rgb := out["rgb8"]
	at := bytes.Index(rgb, []byte("IDAT")) - 4
	out["rgb8-trns"] = append(append(append([]byte{}, rgb[:at]...), chunkBytes("tRNS", []byte{0, 1, 0, 2, 0, 3})...), rgb[at:]...)
	// Broken files: a flipped bit inside the image data, and a file cut short.
	bad := bytes.Clone(out["rgb8"])
	bad[bytes.Index(bad, []byte("IDAT"))+200] ^= 0x10
	out["rgb8-crc"] = bad
	out["rgb8-cut"] = out["rgb8"][:len(out["rgb8"])*2/3]
	return out
}

func chunkBytes(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// rawPNG wraps unfiltered-or-filtered rows (each with its filter byte) as a PNG.
func rawPNG(w, h, depth, ct int, rows []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(rows)
	zw.Close()
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = byte(depth), byte(ct)
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, chunkBytes("IHDR", ihdr)...)
	b = append(b, chunkBytes("IDAT", z.Bytes())...)
	return append(b, chunkBytes("IEND", nil)...)
}

// A proxy read row by row is the proxy read through image/png, pixel for pixel, for
// every layout; files it does not read, or cannot read to their end, get image/png's
// verdict.
func TestPNGRowsMatchImagePNG(t *testing.T) {
	files := pngVariants(t)
	for _, name := range []string{"corrupt.png", "truncated.png", "orient8.png", "nrgba8.png", "rgba16.png", "gray16.png", "prophoto.png"} {
		b, err := os.ReadFile("testdata/io/" + name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	decodeWith := func(stream bool, data []byte, long int) (*Source, error) {
		defer func(old bool) { streamPNG = old }(streamPNG)
		streamPNG = stream
		return Decode(data, DecodeOptions{MaxLongEdge: long})
	}
	streamed := map[string]bool{"gray8": true, "gray16": true, "rgb8": true, "rgba8": true, "rgb16": true,
		"rgba16": true, "grayalpha1": true, "grayalpha2": true}
	for name, data := range files {
		for _, long := range []int{100, 333, 64, 32} {
			want, werr := decodeWith(false, data, long)
			before := pngStreams.Load()
			got, gerr := decodeWith(true, data, long)
			// The fixtures are 112x75: only a long edge of 32 shrinks them enough.
			fixture := map[string]bool{"orient8.png": true, "prophoto.png": true, "nrgba8.png": true, "rgba16.png": true, "gray16.png": true}
			if was := pngStreams.Load() > before; was != (streamed[name] && long < 333 || fixture[name] && long == 32) {
				t.Errorf("%s at %d: read row by row %v, want %v", name, long, was, !was)
			}
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%s at %d: error %v, image/png says %v", name, long, gerr, werr)
				continue
			}
			if werr != nil {
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s at %d: proxy differs from image/png's (-want +got):\n%.2000s", name, long, diff)
			}
		}
	}
}
