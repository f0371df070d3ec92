package engine

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// ioSeeds adds every decode fixture to a fuzz corpus.
func ioSeeds(f *testing.F, add func(data []byte)) {
	names, err := filepath.Glob(filepath.Join("testdata", "io", "*.*"))
	if err != nil {
		f.Fatal(err)
	}
	names = append(names, filepath.Join("testdata", "rocket-orient6.jpg"))
	for _, n := range names {
		if strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".sh") || strings.HasSuffix(n, ".md") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

// FuzzDecode feeds the decoders mutated files: whatever the bytes, Decode returns an
// image that is what it says, or a coded one-line error; it never panics, and the
// small pixel cap keeps every input fast. (Go's fuzzer may print "0 execs/sec" for
// long stretches with image decoders while it runs normally: golang/go#51484.)
func FuzzDecode(f *testing.F) {
	ioSeeds(f, func(b []byte) {
		f.Add(b, uint8(0))
		f.Add(b, uint8(7))
	})
	const maxPixels = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte, shrink uint8) {
		opt := DecodeOptions{MaxPixels: maxPixels, MaxLongEdge: int(shrink) * 4}
		s, err := Decode(data, opt)
		if err != nil {
			if c := darkroom.Code(err); c != darkroom.InvalidInput && c != darkroom.LimitExceeded {
				t.Fatalf("code %s for %v", c, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("message on several lines: %q", err)
			}
			return
		}
		m := s.Image
		if m.W <= 0 || m.H <= 0 || len(m.Pix) != 3*m.W*m.H || int64(s.Width)*int64(s.Height) > maxPixels {
			t.Fatalf("image %dx%d with %d values, source %dx%d", m.W, m.H, len(m.Pix), s.Width, s.Height)
		}
		if opt.MaxLongEdge > 0 && max(m.W, m.H) > opt.MaxLongEdge {
			t.Fatalf("image %dx%d, want a long edge of at most %d", m.W, m.H, opt.MaxLongEdge)
		}
		for i, v := range m.Pix {
			if math.IsNaN(float64(v)) || v < 0 || v > 1 {
				t.Fatalf("value %d is %g", i, v)
			}
		}
	})
}

// FuzzMetadata feeds the hand-written metadata parsers (EXIF, ICC and the container
// walkers) arbitrary bytes.
func FuzzMetadata(f *testing.F) {
	ioSeeds(f, func(b []byte) { f.Add(b) })
	f.Add(buildEXIF(EXIFSummary{Make: "A", Model: "B", LensModel: "C", FocalLength: 35}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := parseEXIF(b); err == nil {
			if m.Orientation < 1 || m.Orientation > 8 {
				t.Fatalf("orientation %d", m.Orientation)
			}
			out, err := exportEXIF(b, 10, 20)
			if err != nil {
				t.Fatalf("parsed but cannot export: %v", err)
			}
			if m2, err := parseEXIF(out); err != nil || m2.Orientation != 1 {
				t.Fatalf("exported block reads %+v, %v", m2, err)
			}
		}
		iccWarning(b)
		jpegMetadata(b)
		pngMetadata(b)
		webpMetadata(b)
		tiffICCProfile(b)
		src := &Source{Format: "tiff"}
		src.readMetadata(b)
	})
}
