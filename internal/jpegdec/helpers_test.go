package jpegdec

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// largePhoto is the benchmark photo, kept outside the repository.
const largePhoto = "../../../shared/testdata/photos/large-24mp.jpg"

// stdRejects is the fixture that image/jpeg (and so this package) rejects:
// in a progressive 4:2:0 file with restart markers, image/jpeg counts the
// restart interval of non-interleaved scans in MCUs of the interleaved layout.
const stdRejects = "progressive-restart420.jpg"

// fixtures returns the JPEG files in testdata that image/jpeg decodes, by
// name.
func fixtures(t testing.TB) map[string][]byte {
	m := allFixtures(t)
	delete(m, stdRejects)
	return m
}

// allFixtures returns all the JPEG files in testdata, by name.
func allFixtures(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("testdata/*.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 20 {
		t.Fatalf("found only %d fixtures", len(names))
	}
	m := make(map[string][]byte)
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(n)] = b
	}
	return m
}

func sortedNames(m map[string][]byte) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// configs are decoder configurations under test: the default one, and ones
// that use worker goroutines with tiny batches even for small images.
var configs = []struct {
	name string
	cfg  config
}{
	{"default", defaultConfig()},
	{"pipeline1", config{batchBlocks: 3, workers: 1}},
	{"pipeline3", config{batchBlocks: 17, workers: 3}},
	{"serial", config{batchBlocks: 5, serial: true}},
}

// decodeWith decodes b with the given scale and configuration and returns
// the decoder too, for its planes.
func decodeWith(b []byte, scale int, cfg config) (image.Image, *decoder, error) {
	d, err := newDecoder(Options{Scale: scale})
	if err != nil {
		return nil, nil, err
	}
	d.cfg = cfg
	m, err := d.decodeSafe(bytes.NewReader(b))
	return m, d, err
}

// stdDecode is image/jpeg.Decode, with a panic reported as such.
func stdDecode(r io.Reader) (m image.Image, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			m, err, panicked = nil, fmt.Errorf("panic: %v", v), true
		}
	}()
	m, err = jpeg.Decode(r)
	return m, err, false
}

// errString is err's message, with image/jpeg's error types' messages being
// the same as this package's.
func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// sameImage reports how got differs from want, which image/jpeg decoded: it
// must be of the same type, with the same bounds and sample values.
func sameImage(got, want image.Image) error {
	if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
		return fmt.Errorf("type %T, want %T", got, want)
	}
	if got.Bounds() != want.Bounds() {
		return fmt.Errorf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	r := want.Bounds()
	switch w := want.(type) {
	case *image.YCbCr:
		g := got.(*image.YCbCr)
		if g.SubsampleRatio != w.SubsampleRatio {
			return fmt.Errorf("subsample ratio %v, want %v", g.SubsampleRatio, w.SubsampleRatio)
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				gy, wy := g.Y[g.YOffset(x, y)], w.Y[w.YOffset(x, y)]
				gc, wc := g.COffset(x, y), w.COffset(x, y)
				if gy != wy || g.Cb[gc] != w.Cb[wc] || g.Cr[gc] != w.Cr[wc] {
					return fmt.Errorf("at (%d, %d): YCbCr %d %d %d, want %d %d %d", x, y, gy, g.Cb[gc], g.Cr[gc], wy, w.Cb[wc], w.Cr[wc])
				}
			}
		}
	case *image.Gray:
		g := got.(*image.Gray)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if a, b := g.Pix[g.PixOffset(r.Min.X, y):][:r.Dx()], w.Pix[w.PixOffset(r.Min.X, y):][:r.Dx()]; !bytes.Equal(a, b) {
				return fmt.Errorf("row %d differs", y)
			}
		}
	case *image.CMYK:
		g := got.(*image.CMYK)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if a, b := g.Pix[g.PixOffset(r.Min.X, y):][:4*r.Dx()], w.Pix[w.PixOffset(r.Min.X, y):][:4*r.Dx()]; !bytes.Equal(a, b) {
				return fmt.Errorf("row %d differs", y)
			}
		}
	case *image.RGBA:
		g := got.(*image.RGBA)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if a, b := g.Pix[g.PixOffset(r.Min.X, y):][:4*r.Dx()], w.Pix[w.PixOffset(r.Min.X, y):][:4*r.Dx()]; !bytes.Equal(a, b) {
				return fmt.Errorf("row %d differs", y)
			}
		}
	default:
		return fmt.Errorf("unexpected type %T", want)
	}
	return nil
}

// checkSameAsStd decodes b at scale 1 with cfg and compares the result with
// image/jpeg's.
func checkSameAsStd(b []byte, cfg config) error {
	want, werr, panicked := stdDecode(bytes.NewReader(b))
	if panicked {
		return nil
	}
	got, _, gerr := decodeWith(b, 1, cfg)
	if ie, ok := gerr.(*internalError); ok {
		return fmt.Errorf("internal error: %v", ie)
	}
	if errString(gerr) != errString(werr) {
		return fmt.Errorf("error %q, want %q", errString(gerr), errString(werr))
	}
	if werr != nil {
		return nil
	}
	return sameImage(got, want)
}

// checkScaled checks the planes of a decode at the given scale against the
// planes of the scale-1 decode: each sample must be the rounded average of
// the corresponding scale×scale samples (clipped to the plane), within tol.
func checkScaled(full, scaled *decoder, tol int) error {
	s := scaled.scale
	for c := 0; c < full.nComp; c++ {
		fp, sp := &full.planes[c], &scaled.planes[c]
		if sp.fw != fp.fw || sp.fh != fp.fh {
			return fmt.Errorf("component %d: full size %dx%d, want %dx%d", c, sp.fw, sp.fh, fp.fw, fp.fh)
		}
		if w, h := (fp.fw+s-1)/s, (fp.fh+s-1)/s; sp.w != w || sp.h != h {
			return fmt.Errorf("component %d: scaled size %dx%d, want %dx%d", c, sp.w, sp.h, w, h)
		}
		for y := 0; y < sp.h; y++ {
			for x := 0; x < sp.w; x++ {
				sum, cnt := 0, 0
				for yy := y * s; yy < min(y*s+s, fp.fh); yy++ {
					for xx := x * s; xx < min(x*s+s, fp.fw); xx++ {
						sum += int(fp.pix[yy*fp.stride+xx])
						cnt++
					}
				}
				want := (sum + cnt/2) / cnt
				got := int(sp.pix[y*sp.stride+x])
				if got < want-tol || got > want+tol {
					return fmt.Errorf("component %d, sample (%d, %d): got %d, want %d±%d", c, x, y, got, want, tol)
				}
			}
		}
	}
	return nil
}

// checkConsistent checks that a scaled image's planes are sized as the
// image package's constructors size them, and calls At at every pixel (or,
// if !every, at the corners).
func checkConsistent(m image.Image, w, h int, every bool) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	if want := image.Rect(0, 0, w, h); m.Bounds() != want {
		return fmt.Errorf("bounds %v, want %v", m.Bounds(), want)
	}
	switch m := m.(type) {
	case *image.YCbCr:
		ref := image.NewYCbCr(m.Rect, m.SubsampleRatio)
		if m.YStride != ref.YStride || m.CStride != ref.CStride || len(m.Y) != len(ref.Y) || len(m.Cb) != len(ref.Cb) || len(m.Cr) != len(ref.Cr) {
			return fmt.Errorf("YCbCr planes: strides %d, %d, lengths %d, %d, %d; image.NewYCbCr: %d, %d, %d, %d, %d",
				m.YStride, m.CStride, len(m.Y), len(m.Cb), len(m.Cr), ref.YStride, ref.CStride, len(ref.Y), len(ref.Cb), len(ref.Cr))
		}
	case *image.Gray:
		if len(m.Pix) != w*h || m.Stride != w {
			return fmt.Errorf("gray: stride %d, length %d", m.Stride, len(m.Pix))
		}
	case *image.CMYK:
		if len(m.Pix) != 4*w*h {
			return fmt.Errorf("CMYK: length %d", len(m.Pix))
		}
	case *image.RGBA:
		if len(m.Pix) != 4*w*h {
			return fmt.Errorf("RGBA: length %d", len(m.Pix))
		}
	default:
		return fmt.Errorf("type %T", m)
	}
	r := m.Bounds()
	if !every {
		if !r.Empty() {
			m.At(r.Min.X, r.Min.Y)
			m.At(r.Max.X-1, r.Min.Y)
			m.At(r.Min.X, r.Max.Y-1)
			m.At(r.Max.X-1, r.Max.Y-1)
		}
		return nil
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			m.At(x, y)
		}
	}
	return nil
}

// mutate returns a corrupted copy of b.
func mutate(b []byte, seed uint64) []byte {
	r := seed*0x9e3779b97f4a7c15 + 1
	next := func(n int) int {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return int(r % uint64(n))
	}
	c := append([]byte(nil), b...)
	switch next(5) {
	case 0: // Flip a few bits.
		for range 1 + next(3) {
			i := next(len(c))
			c[i] ^= 1 << next(8)
		}
	case 1: // Overwrite a byte.
		c[next(len(c))] = byte(next(256))
	case 2: // Insert an 0xff byte or a marker.
		i := next(len(c))
		ins := []byte{0xff}
		if next(2) == 0 {
			ins = append(ins, byte(0xd0+next(10)))
		}
		c = append(c[:i], append(ins, c[i:]...)...)
	case 3: // Delete a few bytes.
		i := next(len(c))
		j := min(len(c), i+1+next(4))
		c = append(c[:i], c[j:]...)
	case 4: // Replace a byte of the entropy-coded data with 0xff 0x00.
		i := len(c)/2 + next(len(c)/2)
		c = append(c[:i], append([]byte{0xff, 0x00}, c[i+1:]...)...)
	}
	return c
}

// smallEnough reports whether image/jpeg's DecodeConfig accepts b with an
// image of at most 4 megapixels, so that decoding it is quick.
func smallEnough(b []byte) bool {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	return err != nil || cfg.Width*cfg.Height <= 4<<20
}

func isInternal(err error) bool {
	_, ok := err.(*internalError)
	return ok || (err != nil && strings.Contains(err.Error(), "internal error"))
}

// Options.Serial keeps a decode on the caller's goroutine: a sequential scan
// big enough for worker goroutines starts none.
func TestSerialStartsNoWorkers(t *testing.T) {
	for _, serial := range []bool{false, true} {
		d, err := newDecoder(Options{Serial: serial})
		if err != nil {
			t.Fatal(err)
		}
		d.cfg.workers = 2
		p := d.startPipeline(1 << 20)
		started := !p.sync
		p.stop()
		if started == serial {
			t.Errorf("Serial %v: worker goroutines started: %v", serial, started)
		}
	}
}
