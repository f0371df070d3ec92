package raw

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/image/tiff"
)

// tool returns the path of an outside program, skipping the test when it is not
// installed (and failing it in CI, which installs it).
func tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (.ci/run installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// readTIFF16 reads a 16-bit RGB TIFF as linear values (dcraw -4 writes linear).
func readTIFF16(t testing.TB, b []byte) ([]float32, int, int) {
	t.Helper()
	m, err := tiff.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bd := m.Bounds()
	w, h := bd.Dx(), bd.Dy()
	pix := make([]float32, 3*w*h)
	switch m := m.(type) {
	case *image.RGBA64:
		for y := range h {
			for x := range w {
				p := m.Pix[m.PixOffset(x, y):]
				for c := range 3 {
					pix[3*(y*w+x)+c] = float32(uint16(p[2*c])<<8|uint16(p[2*c+1])) / 65535
				}
			}
		}
	default:
		for y := range h {
			for x := range w {
				r, g, b, _ := m.At(x, y).RGBA()
				pix[3*(y*w+x)], pix[3*(y*w+x)+1], pix[3*(y*w+x)+2] = float32(r)/65535, float32(g)/65535, float32(b)/65535
			}
		}
	}
	return pix, w, h
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(tool(t, name), args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

// dcrawCases are DNG layouts dcraw and LibRaw read as this package does (neither
// applies DefaultCrop, so none has one).
var dcrawCases = []struct {
	name string
	mod  func(s *Synth)
}{
	{"uncompressed strips", func(s *Synth) { s.RowsPerStrip = 32 }},
	{"lj92 tiles with active area", func(s *Synth) { s.LJ92 = true; s.Tile = 64; s.Margin = 4 }},
	// dcraw reads at most 4096 entries of a LinearizationTable, so 12 bits, and
	// only the first of several lossless JPEG strips, so one.
	{"12-bit lj92 strip, linearization, per-site black", func(s *Synth) {
		s.LJ92, s.Bits, s.Linearize, s.White = true, 12, true, 60000
		s.Black = []float64{500, 510, 520, 530}
		s.CFA = [4]uint8{2, 1, 1, 0}
	}},
}

// TestAgainstDcraw develops the same synthesized DNGs as dcraw and LibRaw's
// dcraw_emu with the same options (as-shot white balance, sRGB, linear 16-bit):
// after demosaicing (RCD here, AHD there) within 40 dB, half size (both bin 2x2)
// within 60 dB.
func TestAgainstDcraw(t *testing.T) {
	pix, w, h := photo(t, "coffee.png", 256, 192)
	pix = blur(pix, w, h)
	for _, tc := range dcrawCases {
		t.Run(tc.name, func(t *testing.T) {
			_, b := synthCase(t, baseSynth(), tc.mod, pix, w, h)
			path := writeTemp(t, "synth.dng", b)
			_, full := decodeBytes(t, b, Options{})
			_, half := decodeBytes(t, b, Options{Half: true})
			check := func(what string, out []byte, img *Image, min float64) {
				d, dw, dh := readTIFF16(t, out)
				if dw != img.W || dh != img.H {
					t.Fatalf("%s: %dx%d, darkroom %dx%d", what, dw, dh, img.W, img.H)
				}
				got := psnr(d, img.Pix, dw, dh, 4)
				t.Logf("%s: %.1f dB", what, got)
				if got < min {
					t.Errorf("%s: PSNR %.1f dB, want >= %.0f", what, got, min)
				}
			}
			check("dcraw -q 3", run(t, "dcraw", "-w", "-4", "-o", "1", "-q", "3", "-T", "-c", path), full, 40)
			check("dcraw -h", run(t, "dcraw", "-w", "-4", "-o", "1", "-h", "-T", "-c", path), half, 60)
			check("dcraw_emu -q 3", run(t, "dcraw_emu", "-w", "-4", "-o", "1", "-q", "3", "-T", "-Z", "-", path), full, 40)
		})
	}
}

// TestRawDataMatchesDcraw requires the samples read (lossless JPEG or not,
// linearized) to be exactly dcraw's unprocessed raw data (dcraw -D -4).
func TestRawDataMatchesDcraw(t *testing.T) {
	pix, w, h := photo(t, "coffee.png", 256, 192)
	for _, tc := range dcrawCases {
		t.Run(tc.name, func(t *testing.T) {
			_, b := synthCase(t, baseSynth(), tc.mod, pix, w, h)
			out := run(t, "dcraw", "-D", "-4", "-T", "-c", writeTemp(t, "synth.dng", b))
			m, err := tiff.Decode(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			g, ok := m.(*image.Gray16)
			if !ok {
				t.Fatalf("dcraw -D wrote %T", m)
			}
			f, err := Probe(b, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			samples, err := f.readSamples()
			if err != nil {
				t.Fatal(err)
			}
			ax, ay := f.active[1], f.active[0]
			aw, ah := f.active[3]-ax, f.active[2]-ay
			if g.Rect.Dx() != aw || g.Rect.Dy() != ah {
				t.Fatalf("dcraw -D: %v, active area %dx%d", g.Rect, aw, ah)
			}
			diff := 0
			for y := range ah {
				for x := range aw {
					v := samples[(ay+y)*f.Width+ax+x]
					if f.linear != nil {
						v = f.linear[min(int(v), len(f.linear)-1)]
					}
					if d := g.Gray16At(x, y).Y; d != v {
						if diff == 0 {
							t.Errorf("(%d,%d): darkroom %d, dcraw %d", x, y, v, d)
						}
						diff++
					}
				}
			}
			if diff > 0 {
				t.Errorf("%d of %d samples differ", diff, aw*ah)
			}
		})
	}
}
