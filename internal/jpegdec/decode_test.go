package jpegdec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// generated returns JPEGs made by image/jpeg's encoder (4:2:0 and gray) in
// sizes around block and MCU boundaries.
func generated(t testing.TB) map[string][]byte {
	t.Helper()
	m := make(map[string][]byte)
	sizes := [][2]int{{1, 1}, {1, 17}, {17, 1}, {7, 9}, {8, 8}, {9, 9}, {15, 17}, {16, 16}, {17, 33}, {33, 17}, {64, 48}, {100, 3}, {129, 65}}
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		rgba := image.NewRGBA(image.Rect(0, 0, w, h))
		gray := image.NewGray(rgba.Rect)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				// Smooth gradients with some texture and saturated areas.
				v := uint8((x*255/max(w-1, 1) + (x*y)%37*3) & 0xff)
				u := uint8(y * 255 / max(h-1, 1))
				rgba.SetRGBA(x, y, color.RGBA{v, u, uint8((x + 3*y) * 11), 255})
				gray.SetGray(x, y, color.Gray{v ^ u})
			}
		}
		for _, q := range []int{50, 95} {
			for kind, img := range map[string]image.Image{"rgb": rgba, "gray": gray} {
				var buf bytes.Buffer
				if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
					t.Fatal(err)
				}
				m[fmt.Sprintf("gen-%s-%dx%d-q%d", kind, w, h, q)] = buf.Bytes()
			}
		}
	}
	return m
}

func allInputs(t testing.TB) map[string][]byte {
	m := fixtures(t)
	for k, v := range generated(t) {
		m[k] = v
	}
	return m
}

// TestSameAsStd checks that scale-1 decodes are image/jpeg's, with and
// without worker goroutines.
func TestSameAsStd(t *testing.T) {
	inputs := allInputs(t)
	for _, c := range configs {
		for _, name := range sortedNames(inputs) {
			b := inputs[name]
			want, err := jpeg.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: image/jpeg: %v", name, err)
			}
			got, _, err := decodeWith(b, 1, c.cfg)
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, name, err)
				continue
			}
			if err := sameImage(got, want); err != nil {
				t.Errorf("%s/%s: %v", c.name, name, err)
			}
		}
	}
}

// TestFixtureKinds makes sure that the fixtures cover what they should.
func TestFixtureKinds(t *testing.T) {
	fx := fixtures(t)
	want := map[string]string{
		"yuv420.jpg":           "*image.YCbCr 420",
		"yuv422.jpg":           "*image.YCbCr 422",
		"yuv444.jpg":           "*image.YCbCr 444",
		"yuv440.jpg":           "*image.YCbCr 440",
		"yuv411.jpg":           "*image.YCbCr 411",
		"yuv410.jpg":           "*image.YCbCr 410",
		"gray.jpg":             "*image.Gray",
		"progressive420.jpg":   "*image.YCbCr 420",
		"progressive422.jpg":   "*image.YCbCr 422",
		"progressive444.jpg":   "*image.YCbCr 444",
		"progressive-gray.jpg": "*image.Gray",
		"restart.jpg":          "*image.YCbCr 420",
		"rgb.jpg":              "*image.RGBA",
		"adobe-rgb.jpg":        "*image.RGBA",
		"cmyk.jpg":             "*image.CMYK",
		"cmyk2211.jpg":         "*image.CMYK",
		"ycck.jpg":             "*image.CMYK",
		"ycck2211.jpg":         "*image.CMYK",
	}
	for name, kind := range want {
		m, err := Decode(bytes.NewReader(fx[name]), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := fmt.Sprintf("%T", m)
		if y, ok := m.(*image.YCbCr); ok {
			got += " " + strings.TrimPrefix(y.SubsampleRatio.String(), "YCbCrSubsampleRatio")
		}
		if got != kind {
			t.Errorf("%s: %s, want %s", name, got, kind)
		}
	}
	for name, b := range fx {
		if !bytes.Contains(b, []byte{0xff, 0xdd}) {
			continue
		}
		if !strings.Contains(name, "restart") {
			t.Errorf("%s has a DRI marker", name)
		}
	}
}

// TestScaled checks requirement 2: scaled samples are averages of scale-1
// samples, and scaled images are consistent.
func TestScaled(t *testing.T) {
	inputs := allInputs(t)
	for _, name := range sortedNames(inputs) {
		b := inputs[name]
		cfg, err := DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		_, full, err := decodeWith(b, 1, defaultConfig())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range []int{2, 4, 8} {
			for ci, c := range configs {
				if ci > 0 && s != 2 && len(b) > 20000 {
					continue
				}
				m, scaled, err := decodeWith(b, s, c.cfg)
				if err != nil {
					t.Fatalf("%s at 1/%d, %s: %v", name, s, c.name, err)
				}
				tol := 0
				if s == 8 {
					tol = 2
				}
				if err := checkScaled(full, scaled, tol); err != nil {
					t.Errorf("%s at 1/%d, %s: %v", name, s, c.name, err)
				}
				if err := checkConsistent(m, (cfg.Width+s-1)/s, (cfg.Height+s-1)/s, true); err != nil {
					t.Errorf("%s at 1/%d, %s: %v", name, s, c.name, err)
				}
			}
			if s == 8 {
				exact := defaultConfig()
				exact.exact8 = true
				_, scaled, err := decodeWith(b, s, exact)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkScaled(full, scaled, 0); err != nil {
					t.Errorf("%s at 1/8 without the DC approximation: %v", name, err)
				}
			}
		}
	}
}

// TestScaledDCApproximation checks that the scale-8 DC shortcut is taken (so
// that the exact8 check above means something) and stays within ±2 on a real
// photo with clipped highlights.
func TestScaledDCApproximation(t *testing.T) {
	b := fixtures(t)["rocket.jpg"]
	_, approx, err := decodeWith(b, 8, defaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	exact := defaultConfig()
	exact.exact8 = true
	_, ex, err := decodeWith(b, 8, exact)
	if err != nil {
		t.Fatal(err)
	}
	diff := 0
	for c := 0; c < 3; c++ {
		for i, v := range approx.planes[c].pix {
			if v != ex.planes[c].pix[i] {
				diff++
			}
		}
	}
	if diff == 0 {
		t.Errorf("the DC approximation changed no sample")
	}
}

// TestErrorsSameAsStd checks that truncated and corrupted files give the
// errors image/jpeg gives (or the same image, when image/jpeg accepts them).
func TestErrorsSameAsStd(t *testing.T) {
	fx := allFixtures(t)
	if err := checkSameAsStd(fx[stdRejects], defaultConfig()); err != nil {
		t.Errorf("%s: %v", stdRejects, err)
	}
	if _, err := Decode(bytes.NewReader(fx[stdRejects]), Options{}); err != errMissingFF00 {
		t.Errorf("%s: %v, want %v", stdRejects, err, errMissingFF00)
	}
	n := 0
	for _, name := range sortedNames(fx) {
		b := fx[name]
		if len(b) > 20000 {
			continue
		}
		// Every length for two files, about 300 lengths for the others.
		step := max(1, len(b)/300)
		if name == "restart.jpg" || name == "progressive444.jpg" {
			step = 1
		}
		if testing.Short() {
			step *= 4
		}
		for i := 0; i < len(b); i += step {
			c := configs[i%len(configs)].cfg
			if err := checkSameAsStd(b[:i], c); err != nil {
				t.Errorf("%s truncated to %d bytes: %v", name, i, err)
			}
			n++
		}
		for seed := range uint64(300) {
			m := mutate(b, seed)
			if !smallEnough(m) {
				continue
			}
			c := configs[seed%uint64(len(configs))].cfg
			if err := checkSameAsStd(m, c); err != nil {
				t.Errorf("%s mutated (seed %d): %v", name, seed, err)
			}
			n++
		}
	}
	t.Logf("%d variants", n)
}

// TestTruncated checks requirement 4: a truncated file gives image/jpeg's
// error at every scale: io.ErrUnexpectedEOF when it ends in the headers or
// between scans, and FormatError("short Huffman data") when it ends in a
// scan's entropy-coded data.
func TestTruncated(t *testing.T) {
	b := fixtures(t)["yuv420.jpg"]
	sos := bytes.Index(b, []byte{0xff, 0xda})
	for _, n := range []int{0, 1, 2, 100, sos + 5, sos + 20, len(b) / 2, len(b) - 3, len(b) - 1} {
		_, werr := jpeg.Decode(bytes.NewReader(b[:n]))
		for _, s := range []int{1, 2, 4, 8} {
			_, err := Decode(bytes.NewReader(b[:n]), Options{Scale: s})
			if errString(err) != errString(werr) {
				t.Errorf("%d bytes at 1/%d: %v, want %v", n, s, err, werr)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != errors.Is(werr, io.ErrUnexpectedEOF) {
				t.Errorf("%d bytes at 1/%d: %v, want %v", n, s, err, werr)
			}
			if n > sos+20 && n <= len(b)/2 && err != errShortHuffmanData {
				t.Errorf("%d bytes at 1/%d: %v, want %v", n, s, err, errShortHuffmanData)
			}
		}
	}
	// Without the EOI marker.
	_, err := Decode(bytes.NewReader(b[:len(b)-2]), Options{})
	if err != io.ErrUnexpectedEOF {
		t.Errorf("without EOI: %v, want %v", err, io.ErrUnexpectedEOF)
	}
}

// TestReaders decodes through readers that return little data at a time or
// an error with the last data, which exercises the byte buffer's refills.
func TestReaders(t *testing.T) {
	fx := fixtures(t)
	for _, name := range []string{"yuv420.jpg", "restart.jpg", "progressive-restart.jpg", "optimized.jpg", "restart-gray.jpg"} {
		b := fx[name]
		want, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		readers := map[string]func() io.Reader{
			"onebyte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
			"half":    func() io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
			"dataerr": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		}
		for rn, r := range readers {
			for _, s := range []int{1, 2} {
				got, err := Decode(r(), Options{Scale: s})
				if err != nil {
					t.Errorf("%s, %s reader, 1/%d: %v", name, rn, s, err)
					continue
				}
				if s == 1 {
					if err := sameImage(got, want); err != nil {
						t.Errorf("%s, %s reader: %v", name, rn, err)
					}
				}
			}
		}
		// A reader that fails in the middle.
		boom := errors.New("boom")
		r := io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotest.ErrReader(boom))
		if _, err := Decode(r, Options{}); err != boom {
			t.Errorf("%s, failing reader: %v, want %v", name, err, boom)
		}
	}
}

func TestDecodeConfig(t *testing.T) {
	for name, b := range fixtures(t) {
		for _, n := range []int{len(b), 300, 20, 3} {
			got, gerr := DecodeConfig(bytes.NewReader(b[:n]))
			want, werr := jpeg.DecodeConfig(bytes.NewReader(b[:n]))
			if got != want || errString(gerr) != errString(werr) {
				t.Errorf("%s[:%d]: %v, %v; want %v, %v", name, n, got, gerr, want, werr)
			}
		}
	}
}

func TestInvalidScale(t *testing.T) {
	b := fixtures(t)["gray.jpg"]
	for _, s := range []int{-1, 3, 5, 16} {
		if _, err := Decode(bytes.NewReader(b), Options{Scale: s}); err != errInvalidScale {
			t.Errorf("scale %d: %v", s, err)
		}
	}
	for _, s := range []int{0, 1} {
		m, err := Decode(bytes.NewReader(b), Options{Scale: s})
		if err != nil || m.Bounds().Dx() != 203 {
			t.Errorf("scale %d: %v, %v", s, m.Bounds(), err)
		}
	}
}

// TestDCValue checks that the inverse DCT shortcut for blocks with only a DC
// coefficient matches idct, including where int32 arithmetic overflows.
func TestDCValue(t *testing.T) {
	check := func(b0 int32) {
		var b block
		b[0] = b0
		idct(&b)
		for i, v := range b {
			if clampPix(v) != dcValue(b0) {
				t.Fatalf("b0=%d: sample %d is %d, dcValue %d", b0, i, clampPix(v), dcValue(b0))
			}
		}
	}
	for b0 := int32(-70000); b0 <= 70000; b0++ {
		check(b0)
	}
	for _, b0 := range []int32{1 << 14, 1<<14 - 1, -1 << 14, 1 << 20, -1 << 20, 1<<31 - 1, -1 << 31, 123456789, -987654321} {
		check(b0)
	}
}

// TestWorkerPanic checks that a panic in a worker goroutine becomes an error
// and that no goroutine is left behind, also when decoding fails midway.
func TestWorkerPanic(t *testing.T) {
	fx := fixtures(t)
	before := runtime.NumGoroutine()
	for _, name := range []string{"rocket.jpg", "restart.jpg", "progressive420.jpg"} {
		cfg := config{batchBlocks: 5, workers: 2, testPanic: true}
		_, _, err := decodeWith(fx[name], 2, cfg)
		if !isInternal(err) {
			t.Errorf("%s: %v, want an internal error", name, err)
		}
	}
	// Failures in the entropy decoder while workers run.
	b := fx["rocket.jpg"]
	for i := 0; i < 20; i++ {
		c := mutate(b, uint64(i))
		c = c[:len(c)*(i+1)/21]
		_, _, err := decodeWith(c, 1, config{batchBlocks: 5, workers: 2})
		if err == nil || isInternal(err) {
			t.Errorf("truncated mutation %d: %v", i, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines, %d before", n, before)
	}
}

// TestLargePhoto compares the benchmark photo with image/jpeg, if present.
func TestLargePhoto(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	b := readLarge(t)
	want, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameImage(got, want); err != nil {
		t.Fatal(err)
	}
}
