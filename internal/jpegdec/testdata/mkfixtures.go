//go:build ignore

// mkfixtures.go makes the fixtures that come from Go's image/jpeg encoder
// and the byte-patched variants of other fixtures. See README.md; run it
// through mkfixtures.sh.
package main

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
	_ "image/png"
	"log"
	"os"
)

func main() {
	src := decode(os.Args[1]) // a PNG crop of rocket.jpg

	// Baseline 4:2:0 and gray, from image/jpeg's encoder.
	encode("yuv420.jpg", src, 90)
	gray := image.NewGray(src.Bounds())
	draw.Draw(gray, gray.Bounds(), src, src.Bounds().Min, draw.Src)
	encode("gray.jpg", gray, 85)

	// SOF1 (extended sequential) with the same data as yuv420.jpg.
	b := read("yuv420.jpg")
	b[find(b, 0xc0)+1] = 0xc1
	write("sof1.jpg", b)

	// RGB: component identifiers 'R', 'G', 'B' and no JFIF segment.
	b = read("yuv444.jpg")
	if find(b, 0xe0) >= 0 {
		log.Fatal("yuv444.jpg has a JFIF segment")
	}
	sof := find(b, 0xc0)
	for c := 0; c < 3; c++ {
		b[sof+10+3*c] = "RGB"[c]
	}
	sos := find(b, 0xda)
	for c := 0; c < 3; c++ {
		b[sos+5+2*c] = "RGB"[c]
	}
	write("rgb.jpg", b)

	// Adobe APP14 with transform 0 (RGB) in a 3-component file.
	b = read("yuv444.jpg")
	app14 := []byte{0xff, 0xee, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0}
	write("adobe-rgb.jpg", append(append(append([]byte{}, b[:2]...), app14...), b[2:]...))

	// Plain CMYK (Adobe transform 0) from the YCCK fixtures.
	for _, f := range [][2]string{{"ycck.jpg", "cmyk.jpg"}, {"ycck2211.jpg", "cmyk2211.jpg"}} {
		b = read(f[0])
		a := find(b, 0xee)
		if string(b[a+4:a+9]) != "Adobe" || b[a+15] != 2 {
			log.Fatal(f[0], ": unexpected APP14")
		}
		b[a+15] = 0
		write(f[1], b)
	}
}

// find returns the index of the first 0xff marker byte pair for marker m.
func find(b []byte, m byte) int {
	return bytes.Index(b, []byte{0xff, m})
}

func decode(name string) image.Image {
	f, err := os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	m, _, err := image.Decode(f)
	if err != nil {
		log.Fatal(err)
	}
	return m
}

func encode(name string, m image.Image, q int) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		log.Fatal(err)
	}
	write(name, buf.Bytes())
}

func read(name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func write(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
