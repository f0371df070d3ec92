package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// The I/O tests' helpers carry an io prefix: the operation tests share this package.

func ioFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ioDecode(t testing.TB, name string) *Source {
	t.Helper()
	s, err := Decode(ioFixture(t, name), DecodeOptions{})
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return s
}

// ioDiff returns the largest and the mean absolute difference of two same-size images.
func ioDiff(t testing.TB, a, b *Image) (maxd, mean float64) {
	t.Helper()
	if a.W != b.W || a.H != b.H {
		t.Fatalf("sizes differ: %dx%d and %dx%d", a.W, a.H, b.W, b.H)
	}
	var sum float64
	for i := range a.Pix {
		d := math.Abs(float64(a.Pix[i]) - float64(b.Pix[i]))
		maxd = max(maxd, d)
		sum += d
	}
	return maxd, sum / float64(len(a.Pix))
}

// ioRot90 turns m a quarter clockwise, pixel by pixel: the reference the orientation
// code is checked against.
func ioRot90(m *Image) *Image {
	out := NewImage(m.H, m.W)
	for y := range m.H {
		for x := range m.W {
			// Stored row y becomes upright column H-1-y.
			copy(out.Pix[3*(x*out.W+m.H-1-y):][:3], m.Pix[3*(y*m.W+x):][:3])
		}
	}
	return out
}

func ioFlipH(m *Image) *Image {
	out := NewImage(m.W, m.H)
	for y := range m.H {
		for x := range m.W {
			copy(out.Pix[3*(y*m.W+m.W-1-x):][:3], m.Pix[3*(y*m.W+x):][:3])
		}
	}
	return out
}

func ioFlipV(m *Image) *Image { return ioRot90(ioRot90(ioFlipH(m))) }

// ioUpright applies EXIF orientation o as the EXIF specification composes it from a
// quarter turn clockwise and mirrors.
func ioUpright(m *Image, o int) *Image {
	switch o {
	case 2:
		return ioFlipH(m)
	case 3:
		return ioRot90(ioRot90(m))
	case 4:
		return ioFlipV(m)
	case 5: // transpose: a quarter turn, then mirrored left-right
		return ioFlipH(ioRot90(m))
	case 6:
		return ioRot90(m)
	case 7: // transverse: a quarter turn, then mirrored top-bottom
		return ioFlipV(ioRot90(m))
	case 8:
		return ioRot90(ioRot90(ioRot90(m)))
	}
	return m
}

func TestDecodeFormats(t *testing.T) {
	ref := ioDecode(t, "io/small.png").Image
	tests := []struct {
		file          string
		format        string
		w, h          int
		maxd, mean    float64 // against small.png; 0 means identical
		warn          string  // a substring of the only warning; "" means none
		gray          bool
		sixteenBit    bool // must differ from the 8-bit reference: low bytes kept
		skipReference bool
	}{
		{file: "io/small.png", format: "png", w: 112, h: 75},
		{file: "io/small.jpg", format: "jpeg", w: 112, h: 75, maxd: 0.3, mean: 0.02},
		{file: "io/progressive.jpg", format: "jpeg", w: 112, h: 75, maxd: 0.3, mean: 0.02},
		{file: "io/cmyk.jpg", format: "jpeg", w: 112, h: 75, maxd: 0.5, mean: 0.05},
		{file: "io/rgb16.png", format: "png", w: 112, h: 75, maxd: 0.01, mean: 0.005, sixteenBit: true},
		{file: "io/rgb16.tif", format: "tiff", w: 112, h: 75, maxd: 0.01, mean: 0.005, sixteenBit: true},
		{file: "io/rgb16-magick.tif", format: "tiff", w: 112, h: 75, maxd: 1e-6, mean: 1e-6},
		{file: "io/rgb8.tif", format: "tiff", w: 112, h: 75},
		{file: "io/gray8.png", format: "png", w: 112, h: 75, gray: true, skipReference: true},
		{file: "io/gray16.png", format: "png", w: 112, h: 75, gray: true, skipReference: true},
		{file: "io/paletted.gif", format: "gif", w: 112, h: 75, maxd: 0.6, mean: 0.07},
		{file: "io/lossless.webp", format: "webp", w: 112, h: 75},
		{file: "io/lossy.webp", format: "webp", w: 112, h: 75, maxd: 0.5, mean: 0.03},
		{file: "io/adobergb.jpg", format: "jpeg", w: 112, h: 75, maxd: 0.3, mean: 0.02, warn: `"Compatible with Adobe RGB (1998)" is not sRGB`},
		{file: "io/srgb-profile.jpg", format: "jpeg", w: 112, h: 75, maxd: 0.3, mean: 0.02},
		{file: "io/prophoto.png", format: "png", w: 112, h: 75, warn: `"ProPhoto RGB" is not sRGB`},
		// The rocket photos really carry an Adobe RGB (1998) profile (v2 'desc').
		{file: "rocket.jpg", format: "jpeg", w: 640, h: 427, skipReference: true, warn: `"Adobe RGB (1998)" is not sRGB`},
		{file: "rocket-orient6.jpg", format: "jpeg", w: 427, h: 640, skipReference: true, warn: `"Adobe RGB (1998)" is not sRGB`},
		// chelsea.png's iCCP profile is sRGB IEC61966-2.1: no warning.
		{file: "chelsea.png", format: "png", w: 451, h: 300, skipReference: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := ioDecode(t, tt.file)
			if s.Format != tt.format || s.Image.W != tt.w || s.Image.H != tt.h || s.Width != tt.w || s.Height != tt.h {
				t.Fatalf("got %s %dx%d (source %dx%d), want %s %dx%d", s.Format, s.Image.W, s.Image.H, s.Width, s.Height, tt.format, tt.w, tt.h)
			}
			switch {
			case tt.warn == "" && len(s.Warnings) != 0:
				t.Errorf("warnings %q, want none", s.Warnings)
			case tt.warn != "" && (len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tt.warn)):
				t.Errorf("warnings %q, want one containing %q", s.Warnings, tt.warn)
			}
			if tt.gray {
				for i := 0; i < len(s.Image.Pix); i += 3 {
					if p := s.Image.Pix[i : i+3]; p[0] != p[1] || p[1] != p[2] {
						t.Fatalf("pixel %d is %v, want grey", i/3, p)
					}
				}
			}
			if tt.skipReference {
				return
			}
			maxd, mean := ioDiff(t, ref, s.Image)
			if maxd > tt.maxd || mean > tt.mean {
				t.Errorf("differs from small.png by max %.4g mean %.4g, want at most %.4g and %.4g", maxd, mean, tt.maxd, tt.mean)
			}
			if tt.sixteenBit && maxd == 0 {
				t.Errorf("identical to the 8-bit reference: the low bytes were dropped")
			}
		})
	}
}

func TestDecodeAlphaFlattenedOntoWhite(t *testing.T) {
	ref := ioDecode(t, "io/small.png").Image
	tests := []struct {
		file string
		// alpha of pixel (x, y) as the fixture was made, in [0, 1].
		alpha func(x, y int) float32
		tol   float64
	}{
		{"io/nrgba8.png", func(x, y int) float32 {
			if x < 56 {
				return 1
			}
			return float32(255*(y%4)/3) / 255
		}, 1e-6},
		{"io/rgba16.png", func(x, y int) float32 {
			if x < 56 {
				return 1
			}
			return float32(0x8000) / 0xffff
		}, 0.01}, // the fixture's 16-bit colour differs from small.png in its low bytes
		{"io/alpha.webp", func(x, y int) float32 {
			if x < 56 {
				return 1
			}
			return float32(255*(y%4)/3) / 255
		}, 0.35}, // lossy colour
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := ioDecode(t, tt.file)
			if diff := cmp.Diff([]string{"transparent pixels were flattened onto white"}, s.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			var worst float64
			for y := range ref.H {
				for x := range ref.W {
					a := tt.alpha(x, y)
					for c := range 3 {
						i := 3*(y*ref.W+x) + c
						want := ref.Pix[i]*a + 1 - a
						worst = max(worst, math.Abs(float64(want-s.Image.Pix[i])))
					}
				}
			}
			if worst > tt.tol {
				t.Errorf("largest difference from small.png over white is %.4g, want at most %.4g", worst, tt.tol)
			}
		})
	}
}

func TestDecodeOrientationFromContainers(t *testing.T) {
	tests := []struct {
		file, stored string
		orientation  int
		meta         EXIFSummary
	}{
		{"rocket-orient6.jpg", "rocket.jpg", 6, EXIFSummary{Orientation: 6, Make: "Example", Model: "Orientation Test"}},
		{"io/orient6.webp", "io/lossy.webp", 6, EXIFSummary{Orientation: 6, Make: "Example"}},
		{"io/orient8.png", "io/small.png", 8, EXIFSummary{Orientation: 8, Model: "PNG"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := ioDecode(t, tt.file)
			if diff := cmp.Diff(tt.meta, s.Meta); diff != "" {
				t.Errorf("EXIF summary (-want +got):\n%s", diff)
			}
			if len(s.EXIF) == 0 {
				t.Errorf("EXIF block not kept")
			}
			want := ioUpright(ioDecode(t, tt.stored).Image, tt.orientation)
			if maxd, _ := ioDiff(t, want, s.Image); maxd != 0 {
				t.Errorf("differs from %s turned upright by up to %g", tt.stored, maxd)
			}
		})
	}
}

// ioWithEXIF returns a JPEG with an APP1 EXIF segment inserted after SOI.
func ioWithEXIF(jpg, exif []byte) []byte {
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(2+6+len(exif)))
	seg = append(append(seg, "Exif\x00\x00"...), exif...)
	return append(append(append([]byte{}, jpg[:2]...), seg...), jpg[2:]...)
}

// ioSetOrientation returns a copy of a real camera-style EXIF block with its
// orientation tag set to o.
func ioSetOrientation(t *testing.T, exif []byte, o int) []byte {
	t.Helper()
	out := bytes.Clone(exif)
	ts, off, err := newTIFFStruct(out)
	if err != nil {
		t.Fatal(err)
	}
	ifd, err := ts.ifd(off)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ifd {
		if e.tag == tagOrientation {
			ts.putUint(e, uint32(o))
			return out
		}
	}
	t.Fatal("no orientation tag")
	return nil
}

func TestDecodeAllOrientations(t *testing.T) {
	exif := ioDecode(t, "rocket-orient6.jpg").EXIF
	plain := ioFixture(t, "io/small.jpg")
	stored := ioDecode(t, "io/small.jpg").Image
	for o := 1; o <= 8; o++ {
		s, err := Decode(ioWithEXIF(plain, ioSetOrientation(t, exif, o)), DecodeOptions{})
		if err != nil {
			t.Fatalf("orientation %d: %v", o, err)
		}
		if s.Meta.Orientation != o {
			t.Errorf("orientation %d read as %d", o, s.Meta.Orientation)
		}
		want := ioUpright(stored, o)
		if s.Width != want.W || s.Height != want.H {
			t.Errorf("orientation %d: source size %dx%d, want %dx%d", o, s.Width, s.Height, want.W, want.H)
		}
		if maxd, _ := ioDiff(t, want, s.Image); maxd != 0 {
			t.Errorf("orientation %d: differs from the reference by up to %g", o, maxd)
		}
		// The proxy path turns the image upright after shrinking it; the result
		// must match shrinking the upright image.
		p, err := Decode(ioWithEXIF(plain, ioSetOrientation(t, exif, o)), DecodeOptions{MaxLongEdge: 50})
		if err != nil {
			t.Fatalf("orientation %d, proxy: %v", o, err)
		}
		pw, ph := FitLongEdge(want.W, want.H, 50)
		if maxd, _ := ioDiff(t, Resize(want, pw, ph), p.Image); maxd > 1e-5 {
			t.Errorf("orientation %d, proxy: differs from resizing the upright image by up to %g", o, maxd)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		opt  DecodeOptions
		code string
		msg  string // substring of the message
	}{
		{"empty", nil, DecodeOptions{}, darkroom.InvalidInput, "empty"},
		{"text", []byte("hello, this is not an image"), DecodeOptions{}, darkroom.InvalidInput, "not a JPEG, PNG, TIFF, WebP, GIF or DNG"},
		{"bmp", []byte("BM\x46\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00"), DecodeOptions{}, darkroom.InvalidInput, "BMP files are not supported"},
		{"heif", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), DecodeOptions{}, darkroom.InvalidInput, "HEIF files are not supported"},
		{"truncated jpeg", ioFixture(t, "io/truncated.jpg"), DecodeOptions{}, darkroom.InvalidInput, "decode jpeg: the file is truncated"},
		{"truncated progressive jpeg", ioFixture(t, "io/progressive.jpg")[:1500], DecodeOptions{}, darkroom.InvalidInput, "decode jpeg: the file is truncated"},
		{"truncated gif", ioFixture(t, "io/paletted.gif")[:2000], DecodeOptions{}, darkroom.InvalidInput, "decode gif: the file is truncated"},
		{"truncated webp", ioFixture(t, "io/lossless.webp")[:5000], DecodeOptions{}, darkroom.InvalidInput, "decode webp: the file is truncated"},
		{"truncated tiff", ioFixture(t, "io/rgb16-magick.tif")[:20000], DecodeOptions{}, darkroom.InvalidInput, "decode tiff"},
		{"truncated png", ioFixture(t, "io/truncated.png"), DecodeOptions{}, darkroom.InvalidInput, "decode png: the file is truncated"},
		{"corrupt png", ioFixture(t, "io/corrupt.png"), DecodeOptions{}, darkroom.InvalidInput, "decode png"},
		{"jpeg signature only", []byte{0xFF, 0xD8, 0xFF}, DecodeOptions{}, darkroom.InvalidInput, "decode jpeg"},
		{"huge png header", ioFixture(t, "io/huge-header.png"), DecodeOptions{}, darkroom.LimitExceeded, "100000x100000 (10000.0 megapixels), above the limit of 250.0 megapixels"},
		{"huge jpeg header", ioFixture(t, "io/huge-header.jpg"), DecodeOptions{}, darkroom.LimitExceeded, "65000x65000"},
		{"small cap", ioFixture(t, "rocket.jpg"), DecodeOptions{MaxPixels: 640*427 - 1}, darkroom.LimitExceeded, "above the limit of 0.3 megapixels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode(tt.data, tt.opt)
			if err == nil {
				t.Fatalf("decoded %dx%d, want an error", s.Image.W, s.Image.H)
			}
			if got := darkroom.Code(err); got != tt.code {
				t.Errorf("code %s, want %s (%v)", got, tt.code, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.msg) || strings.Contains(msg, "\n") {
				t.Errorf("message %q, want one line containing %q", msg, tt.msg)
			}
		})
	}
	// Exactly at the cap is allowed.
	if _, err := Decode(ioFixture(t, "rocket.jpg"), DecodeOptions{MaxPixels: 640 * 427}); err != nil {
		t.Errorf("at the cap: %v", err)
	}
}

// A header claiming 10 gigapixels must be refused from the header alone: the decode
// allocates next to nothing, rather than trying and failing.
func TestDecodeCapCheckedBeforeAllocation(t *testing.T) {
	for _, name := range []string{"io/huge-header.png", "io/huge-header.jpg"} {
		data := ioFixture(t, name)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Decode(data, DecodeOptions{})
		runtime.ReadMemStats(&after)
		if darkroom.Code(err) != darkroom.LimitExceeded {
			t.Fatalf("%s: %v, want limit_exceeded", name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", name, n)
		}
	}
}

func TestEXIFSummaryRoundTrip(t *testing.T) {
	want := EXIFSummary{Orientation: 1, Make: "Fujifilm", Model: "X-T5", LensModel: "XF23mmF1.4 R LM WR", FocalLength: 23}
	got, err := parseEXIF(buildEXIF(want))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	// A summary with nothing but the orientation still makes a valid block.
	got, err = parseEXIF(buildEXIF(EXIFSummary{Orientation: 1}))
	if err != nil || got != (EXIFSummary{Orientation: 1}) {
		t.Errorf("empty summary: %+v, %v", got, err)
	}
}

func TestParseEXIFMalformed(t *testing.T) {
	good := buildEXIF(EXIFSummary{Make: "A", Model: "B", LensModel: "C", FocalLength: 50})
	for n := range len(good) {
		// Every truncation must fail cleanly or yield what survived; never panic.
		parseEXIF(good[:n])
	}
	tests := [][]byte{nil, []byte("II"), []byte("XX*\x00\x08\x00\x00\x00"), []byte("II*\x00\xff\xff\xff\xff")}
	for _, b := range tests {
		if _, err := parseEXIF(b); err == nil {
			t.Errorf("parseEXIF(%q) succeeded", b)
		}
	}
}

// A JPEG shrunk while decoding takes the DCT-domain shortcut (a quarter of the size
// here) and still looks like the full decode resized, upright, with the source's
// full size reported.
func TestDecodeJPEGScaled(t *testing.T) {
	exif := ioDecode(t, "rocket-orient6.jpg").EXIF
	plain := ioFixture(t, "rocket.jpg")
	if s := jpegScale(640, 100); s != 4 {
		t.Fatalf("jpegScale(640, 100) = %d, want 4", s)
	}
	for _, o := range []int{1, 3, 6, 8} {
		data := ioWithEXIF(plain, ioSetOrientation(t, exif, o))
		full, err := Decode(data, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(data, DecodeOptions{MaxLongEdge: 100})
		if err != nil {
			t.Fatal(err)
		}
		if got.Width != full.Width || got.Height != full.Height {
			t.Errorf("orientation %d: source size %dx%d, want %dx%d", o, got.Width, got.Height, full.Width, full.Height)
		}
		w, h := FitLongEdge(full.Width, full.Height, 100)
		if got.Image.W != w || got.Image.H != h {
			t.Fatalf("orientation %d: proxy %dx%d, want %dx%d", o, got.Image.W, got.Image.H, w, h)
		}
		if maxd, mean := ioDiff(t, Resize(full.Image, w, h), got.Image); maxd > 0.35 || mean > 0.006 {
			t.Errorf("orientation %d: differs from the resized full decode by max %.4g mean %.4g", o, maxd, mean)
		}
	}
}

func TestJPEGScale(t *testing.T) {
	for _, tt := range []struct{ long, target, want int }{
		{6000, 2048, 2}, {6000, 1024, 4}, {6000, 700, 4}, {6000, 500, 8}, {6000, 4000, 1}, {6000, 6000, 1},
		{6000, 1500, 4}, {640, 100, 4}, {100, 50, 2}, {99, 50, 2}, {99, 60, 1},
	} {
		if got := jpegScale(tt.long, tt.target); got != tt.want {
			t.Errorf("jpegScale(%d, %d) = %d, want %d", tt.long, tt.target, got, tt.want)
		}
	}
}
