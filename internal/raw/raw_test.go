package raw

import (
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/darkroom-mcp/darkroom"
)

// photo reads a test photo as linear sRGB, cropped to at most w x h (even sizes).
func photo(t testing.TB, name string, w, h int) ([]float32, int, int) {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "testdata", "photos", name)
	if name == "coffee.png" {
		p = filepath.Join("..", "..", "samples", name)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bounds()
	w, h = min(w, b.Dx())&^1, min(h, b.Dy())&^1
	pix := make([]float32, 3*w*h)
	for y := range h {
		for x := range w {
			r, g, bl, _ := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
			for c, v := range []uint32{r, g, bl} {
				pix[3*(y*w+x)+c] = float32(srgbToLinear(float64(v) / 65535))
			}
		}
	}
	return pix, w, h
}

func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func linearToSRGB(v float64) float64 {
	v = min(max(v, 0), 1)
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// psnr compares two linear images after encoding both to sRGB, [0, 1] clipped,
// over the pixels inside a border (a demosaic's edges are not the test).
func psnr(a, b []float32, w, h, border int) float64 {
	var se float64
	n := 0
	for y := border; y < h-border; y++ {
		for x := border; x < w-border; x++ {
			for c := range 3 {
				i := 3*(y*w+x) + c
				d := linearToSRGB(float64(a[i])) - linearToSRGB(float64(b[i]))
				se += d * d
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(float64(n)/se)
}

// A camera-like XYZ to camera matrix (the shape of a Canon's ColorMatrix2) and
// the as-shot neutral of a daylight frame.
var (
	testCM      = []float64{0.6444, -0.0904, -0.0893, -0.4563, 1.2308, 0.2535, -0.0903, 0.2016, 0.6728}
	testNeutral = [3]float64{0.4732, 1, 0.6385}
)

func baseSynth() Synth {
	return Synth{
		CFA: [4]uint8{0, 1, 1, 2}, ColorMatrix: testCM, Neutral: testNeutral,
		Black: []float64{512}, White: 15000, Bits: 16,
		Make: "Darkroom", Model: "Synth", ISO: 200, ExposureTime: 1.0 / 250,
	}
}

// synthCase is a test case's file: base changed by mod, written from pix.
func synthCase(t testing.TB, base Synth, mod func(*Synth), pix []float32, w, h int) (Synth, []byte) {
	t.Helper()
	mod(&base)
	b, err := base.Encode(pix, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return base, b
}

func decodeBytes(t testing.TB, b []byte, opt Options) (*File, *Image) {
	t.Helper()
	f, err := Probe(b, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	img, err := f.Decode(opt)
	if err != nil {
		t.Fatal(err)
	}
	return f, img
}

// TestRoundTrip develops DNGs synthesized from a photo in every layout the reader
// handles and requires the known image back: within 44 dB after RCD (the photo
// blurred as a camera's anti-aliasing filter would; dcraw's AHD gets 40.4 dB and
// RCD 46.1 on the uncompressed case), within 60 dB where nothing is interpolated
// (LinearRaw: the samples' rounding only).
func TestRoundTrip(t *testing.T) {
	pix, w, h := photo(t, "coffee.png", 256, 192)
	pix = blur(pix, w, h)
	cases := []struct {
		name string
		mod  func(s *Synth)
		// minimum PSNR in dB after demosaicing, and of the LinearRaw/half checks
		min float64
	}{
		{"uncompressed strips", func(s *Synth) { s.RowsPerStrip = 16 }, 44},
		{"uncompressed tiles", func(s *Synth) { s.Tile = 64 }, 44},
		{"lj92 strips", func(s *Synth) { s.LJ92 = true; s.RowsPerStrip = 40 }, 44},
		{"lj92 tiles", func(s *Synth) { s.LJ92 = true; s.Tile = 96 }, 44},
		{"big-endian 12-bit packed", func(s *Synth) { s.BigEndian = true; s.Bits = 12; s.White = 4000; s.Black = []float64{200} }, 44},
		{"14-bit lj92 with linearization table", func(s *Synth) { s.Bits = 14; s.LJ92 = true; s.Linearize = true; s.White = 60000 }, 44},
		{"per-site black with deltas", func(s *Synth) {
			s.Black = []float64{500, 510, 520, 530}
			s.DeltaH, s.DeltaV = 3, 5
		}, 44},
		{"BGGR with active area and crop", func(s *Synth) {
			s.CFA = [4]uint8{2, 1, 1, 0}
			s.Margin = 8
			s.Crop = [4]int{6, 4, w - 12, h - 8}
		}, 44},
		{"GRBG forward matrix", func(s *Synth) {
			s.CFA = [4]uint8{1, 0, 2, 1}
			s.ForwardMatrix = []float64{0.7978, 0.1352, 0.0313, 0.2880, 0.7119, 0.0001, 0, 0, 0.8249}
		}, 44},
		{"baseline exposure", func(s *Synth) { s.BaselineExposure = 1.5 }, 44},
		{"linear raw lj92 tiles", func(s *Synth) { s.Linear = true; s.LJ92 = true; s.Tile = 64 }, 60},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, b := synthCase(t, baseSynth(), tc.mod, pix, w, h)
			f, img := decodeBytes(t, b, Options{})
			want, ww, wh := pix, w, h
			if s.Crop[2] > 0 {
				ww, wh = s.Crop[2], s.Crop[3]
				want = make([]float32, 3*ww*wh)
				for y := range wh {
					copy(want[3*y*ww:][:3*ww], pix[3*((y+s.Crop[1])*w+s.Crop[0]):])
				}
			}
			if img.W != ww || img.H != wh {
				t.Fatalf("decoded %dx%d, want %dx%d", img.W, img.H, ww, wh)
			}
			got := psnr(img.Pix, want, ww, wh, 2)
			t.Logf("PSNR %.1f dB", got)
			if got < tc.min {
				t.Errorf("PSNR %.1f dB against the known image, want >= %.0f", got, tc.min)
			}
			if f.Meta.Make != "Darkroom" || f.Meta.ISO != 200 || math.Abs(f.Meta.ExposureTime-0.004) > 1e-9 {
				t.Errorf("metadata %+v", f.Meta)
			}
		})
	}
}

// TestHalf bins 2x2 blocks: each output pixel is its block's colour, exactly
// where the block is flat.
func TestHalf(t *testing.T) {
	w, h := 64, 48
	pix := make([]float32, 3*w*h)
	for y := range h {
		for x := range w {
			// flat 2x2 blocks of a gradient
			v := [3]float32{float32(x/2) / 40, float32(y/2) / 30, 0.2}
			copy(pix[3*(y*w+x):], v[:])
		}
	}
	s := baseSynth()
	s.LJ92 = true
	b, _ := s.Encode(pix, w, h)
	_, img := decodeBytes(t, b, Options{Half: true})
	if img.W != w/2 || img.H != h/2 {
		t.Fatalf("half size %dx%d", img.W, img.H)
	}
	want := make([]float32, 3*(w/2)*(h/2))
	for y := range h / 2 {
		for x := range w / 2 {
			copy(want[3*(y*(w/2)+x):][:3], pix[3*(2*y*w+2*x):])
		}
	}
	if got := psnr(img.Pix, want, w/2, h/2, 0); got < 55 {
		t.Errorf("half-size PSNR %.1f dB, want >= 55", got)
	}
}

func code(err error) string { return darkroom.Code(err) }

// blur returns pix with a [1 2 1]/4 filter run twice each way: detail a camera's
// anti-aliasing filter would have removed, which demosaicing cannot recover and
// on which demosaicing methods disagree.
func blur(pix []float32, w, h int) []float32 {
	out := append([]float32(nil), pix...)
	tmp := make([]float32, len(pix))
	for range 2 {
		for y := range h {
			for x := range w {
				for c := range 3 {
					l, r := max(x-1, 0), min(x+1, w-1)
					tmp[3*(y*w+x)+c] = (out[3*(y*w+l)+c] + 2*out[3*(y*w+x)+c] + out[3*(y*w+r)+c]) / 4
				}
			}
		}
		for y := range h {
			for x := range w {
				for c := range 3 {
					u, d := max(y-1, 0), min(y+1, h-1)
					out[3*(y*w+x)+c] = (tmp[3*(u*w+x)+c] + 2*tmp[3*(y*w+x)+c] + tmp[3*(d*w+x)+c]) / 4
				}
			}
		}
	}
	return out
}
