package engine

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// rawPhoto is samples/coffee.png in linear light, made band-limited (halved and
// enlarged again) as a camera's anti-aliasing filter leaves what it records: the
// known image the synthesized DNGs hold.
func rawPhoto(t testing.TB) *Image {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", "coffee.png"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := Decode(b, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img := src.Image
	w, h := img.W&^1, img.H&^1
	return Resize(Resize(img, w/2, h/2), w, h)
}

func synthDNG(t testing.TB, img *Image, mod func(s *raw.Synth)) []byte {
	t.Helper()
	s := raw.Synth{
		CFA:         [4]uint8{0, 1, 1, 2},
		ColorMatrix: []float64{0.6444, -0.0904, -0.0893, -0.4563, 1.2308, 0.2535, -0.0903, 0.2016, 0.6728},
		Neutral:     [3]float64{0.4732, 1, 0.6385},
		Black:       []float64{512}, White: 15000,
		LJ92: true, Tile: 128,
		Make: "Darkroom", Model: "Synth", ISO: 400, ExposureTime: 0.01,
	}
	if mod != nil {
		mod(&s)
	}
	b, err := s.Encode(img.Pix, img.W, img.H)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// psnrSRGB compares two linear images as sRGB in [0, 1], inside a border.
func psnrSRGB(a, b *Image, border int) float64 {
	var se float64
	n := 0
	for y := border; y < a.H-border; y++ {
		for x := border; x < a.W-border; x++ {
			for c := range 3 {
				i := 3*(y*a.W+x) + c
				d := float64(LinearToSRGB(min(a.Pix[i], 1)) - LinearToSRGB(min(b.Pix[i], 1)))
				se += d * d
				n++
			}
		}
	}
	return 10 * math.Log10(float64(n)/se)
}

// TestDecodeDNG: a DNG decodes upright, at its size, with its camera metadata, to
// the known image it was synthesized from (RCD's error only).
func TestDecodeDNG(t *testing.T) {
	known := rawPhoto(t)
	for _, o := range []int{1, 3, 6, 8} {
		b := synthDNG(t, known, func(s *raw.Synth) { s.Orientation = o })
		src, err := Decode(b, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := orient(known, o)
		if src.Format != "dng" || src.Width != want.W || src.Height != want.H || src.Image.W != want.W || src.Image.H != want.H {
			t.Fatalf("orientation %d: %s %dx%d (image %dx%d), want dng %dx%d", o, src.Format, src.Width, src.Height, src.Image.W, src.Image.H, want.W, want.H)
		}
		// 38.8 dB measured: the photo keeps more detail than a camera's filter.
		if p := psnrSRGB(src.Image, want, 4); p < 38 {
			t.Errorf("orientation %d: PSNR %.1f dB against the known image, want >= 38", o, p)
		}
		if src.Meta.Make != "Darkroom" || src.Meta.Orientation != o || src.Meta.ISO != 400 || src.Meta.ExposureTime != 0.01 || src.EXIF == nil {
			t.Errorf("orientation %d: meta %+v", o, src.Meta)
		}
	}
}

// TestDNGProxy: the preview proxy of a DNG is made from the 2x2-binned mosaic
// (no demosaic) and matches the known image shrunk the same way.
func TestDNGProxy(t *testing.T) {
	known := rawPhoto(t)
	b := synthDNG(t, known, func(s *raw.Synth) { s.Orientation = 6 })
	src, err := Decode(b, DecodeOptions{MaxLongEdge: 100})
	if err != nil {
		t.Fatal(err)
	}
	up := orient(known, 6)
	tw, th := FitLongEdge(up.W, up.H, 100)
	if src.Image.W != tw || src.Image.H != th || src.Width != up.W || src.Height != up.H {
		t.Fatalf("proxy %dx%d of %dx%d, want %dx%d of %dx%d", src.Image.W, src.Image.H, src.Width, src.Height, tw, th, up.W, up.H)
	}
	// 34.4 dB measured: binning puts red and blue half a pixel from green.
	if p := psnrSRGB(src.Image, Resize(up, tw, th), 2); p < 33 {
		t.Errorf("proxy PSNR %.1f dB, want >= 33", p)
	}
}

// TestDNGHighlights: a DNG keeps the light above the display's white through the
// edits (scene-referred), so exposure -1.5 EV on a photo that renders blown brings
// the highlight detail back, where the same edit on an 8-bit rendering of it
// (what a camera JPEG holds) cannot.
func TestDNGHighlights(t *testing.T) {
	known := rawPhoto(t)
	// Scaled so its brightest value is the sensor's white.
	top := float32(0)
	for _, v := range known.Pix {
		top = max(top, v)
	}
	for i := range known.Pix {
		known.Pix[i] /= top
	}
	k := float32(math.Exp2(1.5))
	bright := known.Clone()
	for i := range bright.Pix {
		bright.Pix[i] *= k
	}
	// BaselineExposure +1.5: the sensor holds known, the developed image is 2.8x it.
	b := synthDNG(t, bright, func(s *raw.Synth) { s.BaselineExposure = 1.5 })
	src, err := Decode(b, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	above := 0
	for _, v := range src.Image.Pix {
		if v > 1.05 {
			above++
		}
	}
	if above < len(src.Image.Pix)/20 {
		t.Fatalf("%d of %d values above white: the photo is not overexposed", above, len(src.Image.Pix))
	}
	// The preview proxy (binned, then resampled) keeps them too.
	proxy, err := Decode(b, DecodeOptions{MaxLongEdge: 96})
	if err != nil {
		t.Fatal(err)
	}
	top = 0
	for _, v := range proxy.Image.Pix {
		top = max(top, v)
	}
	if top < 2 {
		t.Errorf("the proxy's brightest value is %.2f, want the developed image's (2.8)", top)
	}
	edits := []Edit{{Op: "exposure", Args: Args{"ev": -1.5}, Strength: 1}}
	render := func(data []byte) *Image {
		var out bytes.Buffer
		if _, err := Export(&out, data, edits, ExportOptions{Encode: EncodeOptions{Format: "png", Depth: 16}}); err != nil {
			t.Fatal(err)
		}
		s, err := Decode(out.Bytes(), DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.Image
	}
	fromDNG := render(b)
	// The camera JPEG's stand-in: the bright rendering, clipped, in 8 bits.
	var jpg bytes.Buffer
	if err := Encode(&jpg, bright, EncodeOptions{Format: "png", Depth: 8}); err != nil {
		t.Fatal(err)
	}
	fromJPEG := render(jpg.Bytes())
	pd, pj := psnrSRGB(fromDNG, known, 4), psnrSRGB(fromJPEG, known, 4)
	t.Logf("exposure -1.5 EV: from the DNG %.1f dB, from its 8-bit rendering %.1f dB", pd, pj)
	// Measured: 39.3 dB (the demosaic's error, as in TestDecodeDNG) and 22.9 dB.
	if pd < 38 || pj > 30 {
		t.Errorf("exposure -1.5 EV recovers %.1f dB from the DNG (want >= 38), %.1f dB from the clipped rendering (want <= 30)", pd, pj)
	}
}

// TestDNGExport16 exports a DNG to a 16-bit PNG: a smooth dark gradient keeps far
// more than the 256 levels an 8-bit path could carry.
func TestDNGExport16(t *testing.T) {
	w, h := 512, 32
	img := NewImage(w, h)
	for y := range h {
		for x := range w {
			v := 0.02 + 0.06*float32(x)/float32(w)
			p := img.Pix[3*(y*w+x):]
			p[0], p[1], p[2] = v, v, v
		}
	}
	b := synthDNG(t, img, nil)
	var out bytes.Buffer
	if _, err := Export(&out, b, nil, ExportOptions{Encode: EncodeOptions{Format: "png", Depth: 16}}); err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	levels := map[uint16]bool{}
	bd := m.Bounds()
	for x := bd.Min.X; x < bd.Max.X; x++ {
		_, g, _, _ := m.At(x, bd.Min.Y+h/2).RGBA()
		levels[uint16(g)] = true
	}
	if _, ok := m.(*image.RGBA64); !ok && len(levels) < 300 {
		t.Fatalf("export is %T", m)
	}
	if len(levels) < 300 {
		t.Errorf("a row of the gradient has %d levels, want >= 300 (8 bits give at most 256)", len(levels))
	}
}

// TestDNGBomb: a DNG whose headers consistently claim 20000x12000 pixels (its
// lossless JPEG frame says so too, as a real bomb's can in a few megabytes) is
// refused by the decode budget from its header, before anything is allocated.
func TestDNGBomb(t *testing.T) {
	img := NewImage(32, 24)
	b := synthDNG(t, img, func(s *raw.Synth) { s.Tile = 0; s.BigEndian = true })
	be := func(off int) uint32 {
		return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
	}
	put := func(off int, v uint32) {
		b[off], b[off+1], b[off+2], b[off+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	// The raw IFD is IFD0's SubIFD; patch its size and rows per strip (LONGs).
	entry := func(ifd int, tag uint16) int {
		n := int(b[ifd])<<8 | int(b[ifd+1])
		for i := range n {
			p := ifd + 2 + 12*i
			if uint16(b[p])<<8|uint16(b[p+1]) == tag {
				return p
			}
		}
		t.Fatalf("no tag %d", tag)
		return 0
	}
	rawIFD := int(be(entry(int(be(4)), 330) + 8))
	put(entry(rawIFD, 256)+8, 20000)
	put(entry(rawIFD, 257)+8, 12000)
	put(entry(rawIFD, 278)+8, 12000)
	sof := bytes.Index(b, []byte{0xFF, 0xC3})
	b[sof+5], b[sof+6] = 12000>>8, 12000&0xff // frame height
	b[sof+7], b[sof+8] = 10000>>8, 10000&0xff // frame width (two components)
	_, err := Decode(b, DecodeOptions{})
	if darkroom.Code(err) != darkroom.LimitExceeded || !strings.Contains(err.Error(), "decode budget") {
		t.Fatalf("got %v, want limit_exceeded by the decode budget", err)
	}
}

// TestXTransDNG: an X-Trans DNG decodes upright at its size to the known image
// (lin_interpolate's error only), and its preview proxy is the 3x3-binned mosaic
// when the preview is at most the binned size, each pixel its cell's colour.
func TestXTransDNG(t *testing.T) {
	known := rawPhoto(t)
	b := synthDNG(t, known, func(s *raw.Synth) { s.XTrans = raw.FujiXTrans; s.Orientation = 6 })
	up := orient(known, 6)
	src, err := Decode(b, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if src.Image.W != up.W || src.Image.H != up.H {
		t.Fatalf("decoded %dx%d, want %dx%d", src.Image.W, src.Image.H, up.W, up.H)
	}
	p := psnrSRGB(src.Image, up, 4)
	t.Logf("full: %.1f dB", p)
	// 30.3 dB measured: bilinear interpolation on a photo sharper than a
	// camera's filter leaves (RCD on the Bayer DNG: 38.8).
	if p < 29 {
		t.Errorf("PSNR %.1f dB against the known image, want >= 29", p)
	}
	// Upright, the binned mosaic is 199x133: Fujifilm's 3x3 cells start a column
	// and a row into the photo.
	b = synthDNG(t, known, func(s *raw.Synth) { s.XTrans = raw.FujiXTrans })
	long := (max(known.W, known.H) - 1) / 3
	src, err = Decode(b, DecodeOptions{MaxLongEdge: long})
	if err != nil {
		t.Fatal(err)
	}
	tw, th := FitLongEdge(known.W, known.H, long)
	if src.Image.W != tw || src.Image.H != th || src.Width != known.W || src.Height != known.H {
		t.Fatalf("proxy %dx%d of %dx%d, want %dx%d of %dx%d", src.Image.W, src.Image.H, src.Width, src.Height, tw, th, known.W, known.H)
	}
	f, err := raw.Probe(b, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	binned, err := f.Decode(raw.Options{Half: true})
	if err != nil {
		t.Fatal(err)
	}
	if binned.W != tw || binned.H != th || !slices.Equal(binned.Pix, src.Image.Pix) {
		t.Errorf("the proxy is not the 3x3-binned mosaic (%dx%d)", binned.W, binned.H)
	}
	// One pixel more than the binned size is made from the demosaiced photo.
	more, err := Decode(b, DecodeOptions{MaxLongEdge: long + 1})
	if err != nil {
		t.Fatal(err)
	}
	if mw, mh := FitLongEdge(known.W, known.H, long+1); more.Image.W != mw || more.Image.H != mh {
		t.Errorf("a %d-pixel proxy is %dx%d, want %dx%d", long+1, more.Image.W, more.Image.H, mw, mh)
	}
	box := &Image{W: tw, H: th, Pix: make([]float32, 3*tw*th)}
	for y := range th {
		for x := range tw {
			for c := range 3 {
				var s float32
				for k := range 9 {
					s += known.Pix[3*((1+3*y+k/3)*known.W+1+3*x+k%3)+c]
				}
				box.Pix[3*(y*tw+x)+c] = s / 9
			}
		}
	}
	p = psnrSRGB(src.Image, box, 2)
	t.Logf("proxy: %.1f dB", p)
	// 36.8 dB measured: the photo keeps more detail than a camera's filter.
	if p < 35 {
		t.Errorf("proxy PSNR %.1f dB against the known image's 3x3 means, want >= 35", p)
	}
}
