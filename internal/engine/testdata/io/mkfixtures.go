//go:build ignore

// mkfixtures writes the Go-made decode fixtures in this directory from the photos in
// ../ . It uses only the standard library and golang.org/x/image encoders, never the
// engine's own, so that decoding them tests the engine against independent writers.
// Run it through mkfixtures.sh.
package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"log"
	"os"

	"golang.org/x/image/tiff"
)

func main() {
	src := decodePNG("../chelsea.png")
	small := shrink(src, 4) // 112x75

	write("small.png", encodePNG(small))
	write("rgb16.png", encodePNG(to16(small, false)))
	write("rgba16.png", encodePNG(to16(small, true)))
	write("nrgba8.png", encodePNG(withAlpha(small)))
	write("gray8.png", encodePNG(toGray(small)))
	write("gray16.png", encodePNG(toGray16(small)))
	write("rgb8.tif", encodeTIFF(small))
	write("rgb16.tif", encodeTIFF(to16(small, false)))
	var g bytes.Buffer
	check(gif.Encode(&g, small, nil))
	write("paletted.gif", g.Bytes())

	// A valid PNG signature and IHDR claiming 100000x100000 pixels, then IEND: what a
	// decompression bomb looks like to a decoder that trusts the header.
	var bomb bytes.Buffer
	bomb.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, 100000)
	ihdr = binary.BigEndian.AppendUint32(ihdr, 100000)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	chunk(&bomb, "IHDR", ihdr)
	chunk(&bomb, "IEND", nil)
	write("huge-header.png", bomb.Bytes())

	var sj bytes.Buffer
	check(jpeg.Encode(&sj, small, &jpeg.Options{Quality: 90}))
	write("small.jpg", sj.Bytes())
	// The first half of small.jpg: cut in the middle of the scan.
	write("truncated.jpg", sj.Bytes()[:sj.Len()/2])
	// small.jpg's headers with the frame (SOF0) patched to 65000x65000, cut a few
	// bytes into the scan: a decoder that checks the header never gets further.
	huge := bytes.Clone(sj.Bytes())
	i := bytes.Index(huge, []byte{0xFF, 0xC0})
	sos := bytes.Index(huge, []byte{0xFF, 0xDA})
	if i < 0 || sos < 0 {
		log.Fatal("small.jpg has no SOF0 or SOS")
	}
	binary.BigEndian.PutUint16(huge[i+5:], 65000)
	binary.BigEndian.PutUint16(huge[i+7:], 65000)
	write("huge-header.jpg", huge[:sos+32])

	sp := encodePNG(small)
	write("truncated.png", sp[:len(sp)*6/10])
	// small.png with 16 bytes of its image data flipped: the chunk checksum fails.
	corrupt := bytes.Clone(sp)
	j := bytes.Index(corrupt, []byte("IDAT")) + 4 + 100
	for k := j; k < j+16; k++ {
		corrupt[k] ^= 0x5A
	}
	write("corrupt.png", corrupt)
}

func chunk(b *bytes.Buffer, typ string, data []byte) {
	binary.Write(b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	binary.Write(b, binary.BigEndian, crc.Sum32())
}

// shrink averages f x f blocks (in 8-bit sRGB: good enough for a fixture).
func shrink(m image.Image, f int) *image.NRGBA {
	b := m.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx()/f, b.Dy()/f))
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			var s [3]uint32
			for dy := range f {
				for dx := range f {
					r, g, bl, _ := m.At(b.Min.X+x*f+dx, b.Min.Y+y*f+dy).RGBA()
					s[0] += r >> 8
					s[1] += g >> 8
					s[2] += bl >> 8
				}
			}
			n := uint32(f * f)
			out.SetNRGBA(x, y, color.NRGBA{uint8(s[0] / n), uint8(s[1] / n), uint8(s[2] / n), 255})
		}
	}
	return out
}

// to16 widens to 16 bits with low bytes that differ from the high ones, so a decoder
// that drops them shows; with alpha, the right half is half transparent.
func to16(m *image.NRGBA, alpha bool) *image.NRGBA64 {
	out := image.NewNRGBA64(m.Rect)
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			c := m.NRGBAAt(x, y)
			w := func(v uint8) uint16 { return uint16(v)<<8 | uint16(x*7+y*3)&0xff }
			a := uint16(0xffff)
			if alpha && x >= m.Rect.Dx()/2 {
				a = 0x8000
			}
			out.SetNRGBA64(x, y, color.NRGBA64{w(c.R), w(c.G), w(c.B), a})
		}
	}
	return out
}

// withAlpha makes the right half's rows cycle through alpha 0, 85, 170 and 255.
func withAlpha(m *image.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(m.Rect)
	copy(out.Pix, m.Pix)
	for y := range m.Rect.Dy() {
		for x := m.Rect.Dx() / 2; x < m.Rect.Dx(); x++ {
			out.Pix[out.PixOffset(x, y)+3] = uint8(255 * (y % 4) / 3)
		}
	}
	return out
}

func toGray(m *image.NRGBA) *image.Gray {
	out := image.NewGray(m.Rect)
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

func toGray16(m *image.NRGBA) *image.Gray16 {
	out := image.NewGray16(m.Rect)
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			g := color.Gray16Model.Convert(m.At(x, y)).(color.Gray16)
			g.Y = g.Y&0xff00 | uint16(x)&0xff
			out.SetGray16(x, y, g)
		}
	}
	return out
}

func decodePNG(path string) image.Image {
	m, err := png.Decode(bytes.NewReader(read(path)))
	check(err)
	return m
}

func encodePNG(m image.Image) []byte {
	var b bytes.Buffer
	check(png.Encode(&b, m))
	return b.Bytes()
}

func encodeTIFF(m image.Image) []byte {
	var b bytes.Buffer
	check(tiff.Encode(&b, m, &tiff.Options{Compression: tiff.Deflate, Predictor: true}))
	return b.Bytes()
}

func read(path string) []byte {
	b, err := os.ReadFile(path)
	check(err)
	return b
}

func write(name string, b []byte) { check(os.WriteFile(name, b, 0o644)) }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
