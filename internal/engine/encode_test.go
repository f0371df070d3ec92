package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func ioEncode(t *testing.T, img *Image, opt EncodeOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, img, opt); err != nil {
		t.Fatalf("encode %+v: %v", opt, err)
	}
	return b.Bytes()
}

func TestEncodeRoundTrip(t *testing.T) {
	tests := []struct {
		name, src  string
		opt        EncodeOptions
		format     string
		maxd, mean float64
	}{
		// 8-bit in, 8-bit out: every value comes back exactly.
		{"png8", "io/small.png", EncodeOptions{Format: "png"}, "png", 0, 0},
		{"png8 of odd size", "rocket-orient6.jpg", EncodeOptions{Format: "png", Depth: 8}, "png", 0, 0},
		// 16-bit: within one 16-bit level (its linear size is at most 2.4/65535).
		{"png16", "io/rgb16.png", EncodeOptions{Format: "png", Depth: 16}, "png", 4e-5, 1e-5},
		{"tiff16", "io/rgb16.png", EncodeOptions{Format: "tiff"}, "tiff", 4e-5, 1e-5},
		{"tiff16 of odd size", "rocket-orient6.jpg", EncodeOptions{Format: "tiff", Depth: 16}, "tiff", 4e-5, 1e-5},
		{"jpeg q95", "io/small.png", EncodeOptions{Format: "jpeg", Quality: 95}, "jpeg", 0.2, 0.01},
		{"jpeg default quality", "rocket.jpg", EncodeOptions{Format: "jpeg"}, "jpeg", 0.8, 0.01}, // chroma subsampling at sharp colour edges
		{"jpeg q1", "io/small.png", EncodeOptions{Format: "jpeg", Quality: 1}, "jpeg", 1, 0.15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ioDecode(t, tt.src).Image
			out, err := Decode(ioEncode(t, src, tt.opt), DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Format != tt.format {
				t.Errorf("format %s, want %s", out.Format, tt.format)
			}
			if len(out.Warnings) != 0 {
				t.Errorf("warnings %q", out.Warnings)
			}
			maxd, mean := ioDiff(t, src, out.Image)
			if maxd > tt.maxd || mean > tt.mean {
				t.Errorf("round trip differs by max %.4g mean %.4g, want at most %.4g and %.4g", maxd, mean, tt.maxd, tt.mean)
			}
		})
	}
}

// The JPEG path converts to 4:2:0 itself, claiming the standard library's
// arithmetic, and encodes strips on every core joined by restart markers, claiming
// the same coefficients: the pixels decoded must be exactly those of one image/jpeg
// call on an RGBA image, whatever the size (strips cut short at the bottom, odd
// widths), and a small image, encoded in one piece, must be the same bytes.
func TestEncodeJPEGMatchesStandardLibrary(t *testing.T) {
	src := ioDecode(t, "rocket-orient6.jpg").Image // 427x640: odd width, 8 strips
	crop := NewImage(113, 75)                      // odd both ways, one piece
	for y := range crop.H {
		copy(crop.Pix[3*y*crop.W:3*(y+1)*crop.W], src.Pix[3*y*src.W:])
	}
	tests := []struct {
		img       *Image
		sameBytes bool
	}{
		{src, false},
		{Resize(src, 301, 397), false}, // the last strip is 13 rows
		{Resize(src, 1500, 90), false}, // 94 MCUs a row, the last strip 10 rows
		{crop, true},
		{Resize(src, 120, 70), true}, // even sides, not multiples of 16
		{Resize(src, 32, 64), true},  // multiples of 16: no padding
	}
	for _, tt := range tests {
		for _, q := range []int{90, 40} {
			var want bytes.Buffer
			if err := jpeg.Encode(&want, ioRGBA(tt.img), &jpeg.Options{Quality: q}); err != nil {
				t.Fatal(err)
			}
			got := ioEncode(t, tt.img, EncodeOptions{Format: "jpeg", Quality: q})
			if tt.sameBytes && !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%dx%d q%d: bytes differ from image/jpeg's", tt.img.W, tt.img.H, q)
			}
			if !tt.sameBytes && !bytes.Contains(got, []byte{0xFF, 0xDD, 0, 4}) {
				t.Errorf("%dx%d q%d: no restart interval: encoded in one piece", tt.img.W, tt.img.H, q)
			}
			a, err := jpeg.Decode(bytes.NewReader(want.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			b, err := jpeg.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("%dx%d q%d: %v", tt.img.W, tt.img.H, q, err)
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("%dx%d q%d: decoded pixels differ from image/jpeg's", tt.img.W, tt.img.H, q)
			}
		}
	}
}

func TestEncodeKeepsEXIFUpright(t *testing.T) {
	src := ioDecode(t, "rocket-orient6.jpg")
	data := ioEncode(t, src.Image, EncodeOptions{Format: "jpeg", Quality: 92, EXIF: src.EXIF})
	if !bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF, 0xE1}) {
		t.Errorf("file starts % x, want SOI then APP1", data[:4])
	}
	out, err := Decode(data, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := EXIFSummary{Orientation: 1, Make: "Example", Model: "Orientation Test"}
	if diff := cmp.Diff(want, out.Meta); diff != "" {
		t.Errorf("EXIF summary (-want +got):\n%s", diff)
	}
	// Upright pixels, not turned a second time.
	if out.Image.W != 427 || out.Image.H != 640 {
		t.Fatalf("size %dx%d, want 427x640", out.Image.W, out.Image.H)
	}
	if _, mean := ioDiff(t, src.Image, out.Image); mean > 0.01 {
		t.Errorf("differs from the source by %.4g on average", mean)
	}
	// Everything else in the block is the source's, byte for byte, but the
	// orientation value.
	if len(out.EXIF) != len(src.EXIF) {
		t.Fatalf("EXIF block is %d bytes, want %d", len(out.EXIF), len(src.EXIF))
	}
	var changed []int
	for i := range src.EXIF {
		if src.EXIF[i] != out.EXIF[i] {
			changed = append(changed, i)
		}
	}
	if len(changed) != 1 {
		t.Errorf("%d EXIF bytes changed (at %v), want only the orientation's", len(changed), changed)
	}
	// The source's block is not modified in place.
	if m, err := parseEXIF(src.EXIF); err != nil || m.Orientation != 6 {
		t.Errorf("source EXIF now reads %+v, %v", m, err)
	}
}

// A TIFF's metadata is rebuilt as an EXIF block, so it survives an export to JPEG.
func TestEncodeEXIFFromTIFFSource(t *testing.T) {
	meta := EXIFSummary{Orientation: 1, Make: "Nikon", Model: "Z 8", LensModel: "NIKKOR Z 50mm f/1.8 S", FocalLength: 50}
	tif := ioEncode(t, ioDecode(t, "io/small.png").Image, EncodeOptions{Format: "tiff"})
	// Our TIFF writer puts no metadata in; splice the summary's tags in by writing
	// the same structure the EXIF builder makes, which is a valid TIFF header too.
	exif := buildEXIF(meta)
	s, err := Decode(tif, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.EXIF != nil {
		t.Errorf("a TIFF without camera tags got EXIF %q", s.EXIF)
	}
	src := &Source{Format: "tiff"}
	src.readMetadata(exif)
	if diff := cmp.Diff(meta, src.Meta); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	out, err := Decode(ioEncode(t, s.Image, EncodeOptions{Format: "jpeg", EXIF: src.EXIF}), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(meta, out.Meta); diff != "" {
		t.Errorf("exported summary (-want +got):\n%s", diff)
	}
}

func TestEncodeClampsOutOfRange(t *testing.T) {
	img := NewImage(4, 1)
	copy(img.Pix, []float32{-1, 0, 2, 1e9, 1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5, 0.214, 0.214, 0.214})
	for _, opt := range []EncodeOptions{{Format: "png"}, {Format: "png", Depth: 16}, {Format: "tiff"}} {
		out, err := Decode(ioEncode(t, img, opt), DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := out.Image.Pix[:9]
		want := []float32{0, 0, 1, 1, 1, 0, 1, 0, 0.5}
		// 0.004 is about half an 8-bit level near mid grey.
		near := cmp.Comparer(func(a, b float32) bool { return math.Abs(float64(a-b)) < 0.004 })
		if diff := cmp.Diff(want, got, near); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", opt, diff)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	img := NewImage(8, 8)
	tests := []struct {
		name string
		img  *Image
		opt  EncodeOptions
		code string
		msg  string
	}{
		{"unknown format", img, EncodeOptions{Format: "bmp"}, darkroom.InvalidInput, `format "bmp" is not jpeg, png or tiff`},
		{"quality 101", img, EncodeOptions{Format: "jpeg", Quality: 101}, darkroom.InvalidInput, "quality 101 is not between 1 and 100"},
		{"quality -5", img, EncodeOptions{Format: "jpeg", Quality: -5}, darkroom.InvalidInput, "quality -5"},
		{"png depth 12", img, EncodeOptions{Format: "png", Depth: 12}, darkroom.InvalidInput, "depth 12 is not 8 or 16"},
		{"tiff depth 8", img, EncodeOptions{Format: "tiff", Depth: 8}, darkroom.InvalidInput, "depth 8 is not 16"},
		{"bad exif", img, EncodeOptions{Format: "jpeg", EXIF: []byte("not a TIFF structure")}, darkroom.InvalidInput, "encode jpeg: exif"},
		{"exif too big", img, EncodeOptions{Format: "jpeg", EXIF: append(buildEXIF(EXIFSummary{}), make([]byte, 70000)...)}, darkroom.LimitExceeded, "more than a JPEG segment holds"},
		{"jpeg too wide", &Image{W: 70000, H: 1, Pix: make([]float32, 3*70000)}, EncodeOptions{Format: "jpeg"}, darkroom.LimitExceeded, "65535"},
		{"no pixels", &Image{W: 2, H: 2}, EncodeOptions{Format: "png"}, darkroom.RenderError, "not a valid image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Encode(new(bytes.Buffer), tt.img, tt.opt)
			if got := darkroom.Code(err); got != tt.code {
				t.Errorf("code %s, want %s (%v)", got, tt.code, err)
			}
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want one containing %q", err, tt.msg)
			}
		})
	}
}

type ioFailWriter struct{ after int }

func (w *ioFailWriter) Write(p []byte) (int, error) {
	if w.after -= len(p); w.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestEncodeWriteFailure(t *testing.T) {
	img := ioDecode(t, "io/small.png").Image
	exif := buildEXIF(EXIFSummary{Make: "X"})
	for _, opt := range []EncodeOptions{{Format: "jpeg"}, {Format: "jpeg", EXIF: exif}, {Format: "png"}, {Format: "tiff"}} {
		for _, after := range []int{0, 1, 100} {
			err := Encode(&ioFailWriter{after: after}, img, opt)
			if darkroom.Code(err) != darkroom.RenderError || !strings.Contains(err.Error(), "disk full") {
				t.Errorf("%s after %d bytes: %v, want render_error wrapping the write error", opt.Format, after, err)
			}
		}
	}
}

// ioRGBA is the 8-bit sRGB image image/jpeg is compared against.
func ioRGBA(img *Image) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, img.W, img.H))
	t := srgb8()
	for i := range img.W * img.H {
		p := img.Pix[3*i : 3*i+3]
		m.Pix[4*i], m.Pix[4*i+1], m.Pix[4*i+2], m.Pix[4*i+3] = quant8(t, p[0]), quant8(t, p[1]), quant8(t, p[2]), 0xff
	}
	return m
}

// The PNG writer is the engine's own: image/png must read back exactly what
// image/png itself would have written from the same 8- and 16-bit values.
func TestEncodePNGMatchesStandardLibrary(t *testing.T) {
	src := ioDecode(t, "io/rgb16.png").Image
	for _, img := range []*Image{src, Resize(src, 1, 1), Resize(src, 3, 200), Resize(src, 300, 2)} {
		for _, depth := range []int{8, 16} {
			got, err := png.Decode(bytes.NewReader(ioEncode(t, img, EncodeOptions{Format: "png", Depth: depth})))
			if err != nil {
				t.Fatalf("%dx%d depth %d: %v", img.W, img.H, depth, err)
			}
			var want image.Image = ioRGBA(img)
			if depth == 16 {
				m := image.NewRGBA64(image.Rect(0, 0, img.W, img.H))
				for i := range img.W * img.H {
					for c := range 3 {
						binary.BigEndian.PutUint16(m.Pix[8*i+2*c:], quant16(img.Pix[3*i+c]))
					}
					m.Pix[8*i+6], m.Pix[8*i+7] = 0xff, 0xff
				}
				want = m
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%dx%d depth %d: decoded pixels differ", img.W, img.H, depth)
			}
		}
	}
}
