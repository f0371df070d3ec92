package jpegenc

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// stdEncode returns what image/jpeg writes for m.
func stdEncode(t testing.TB, m *image.YCbCr, quality int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatalf("image/jpeg.Encode: %v", err)
	}
	return buf.Bytes()
}

// stdEncodeOrPanic is stdEncode, but reports whether image/jpeg panicked,
// as it does (index out of range) on images whose planes do not hold every
// sample of their rectangle. NewYCbCr makes such images for some negative
// rectangles, as YCbCr.COffset and NewYCbCr disagree there.
func stdEncodeOrPanic(t testing.TB, m *image.YCbCr, quality int) (b []byte, panicked bool) {
	t.Helper()
	defer func() {
		if recover() != nil {
			b, panicked = nil, true
		}
	}()
	return stdEncode(t, m, quality), false
}

// fdctPaths returns the values of useAVX2 that this machine can encode
// with: false (the Go FDCT), and true when the CPU has AVX2.
func fdctPaths() []bool {
	if haveAVX2 {
		return []bool{false, true}
	}
	return []bool{false}
}

// encodeWith encodes m with useAVX2 set to avx2, restoring it afterwards.
func encodeWith(avx2 bool, w io.Writer, m *image.YCbCr, quality int) error {
	defer func(old bool) { useAVX2 = old }(useAVX2)
	useAVX2 = avx2
	return Encode(w, m, quality)
}

// checkSame fails t unless Encode, with each FDCT this machine runs, writes
// exactly what image/jpeg writes, or returns an error where image/jpeg
// panics.
func checkSame(t testing.TB, m *image.YCbCr, quality int) {
	t.Helper()
	want, panicked := stdEncodeOrPanic(t, m, quality)
	for _, avx2 := range fdctPaths() {
		var buf bytes.Buffer
		err := encodeWith(avx2, &buf, m, quality)
		if panicked {
			if err == nil || buf.Len() != 0 {
				t.Fatalf("Encode(%v, q%d, avx2 %v): image/jpeg panics, but Encode returned %v after writing %d bytes",
					m.Rect, quality, avx2, err, buf.Len())
			}
			continue
		}
		if err != nil {
			t.Fatalf("Encode(%v, q%d, avx2 %v): %v", m.Rect, quality, avx2, err)
		}
		if i, differ := firstDiff(buf.Bytes(), want); differ {
			t.Fatalf("Encode(%v, q%d, avx2 %v): %d bytes, image/jpeg wrote %d; first difference at byte %d",
				m.Rect, quality, avx2, buf.Len(), len(want), i)
		}
	}
}

// firstDiff returns the index of the first byte where a and b differ (the
// shorter one's length if one is a prefix of the other) and whether they do.
func firstDiff(a, b []byte) (int, bool) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i, len(a) != len(b) || i < len(a)
}

// fillRandom fills every sample of m's planes with random bytes.
func fillRandom(m *image.YCbCr, rng *rand.Rand) {
	for _, p := range [][]byte{m.Y, m.Cb, m.Cr} {
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
	}
}

// fillSmooth fills m's planes with gradients plus a little noise, which
// gives coefficient statistics closer to a photograph than pure noise.
func fillSmooth(m *image.YCbCr, rng *rand.Rand) {
	fill := func(p []byte, stride int, f func(x, y int) int) {
		for i := range p {
			x, y := i%stride, i/stride
			v := f(x, y) + rng.IntN(9) - 4
			p[i] = byte(min(max(v, 0), 255))
		}
	}
	fill(m.Y, m.YStride, func(x, y int) int { return (x*3 + y*5) % 256 })
	fill(m.Cb, m.CStride, func(x, y int) int { return 128 + (x-y)%60 })
	fill(m.Cr, m.CStride, func(x, y int) int { return 100 + (x*y)%50 })
}

var testQualities = []int{1, 50, 75, 90, 100}

func TestSizes(t *testing.T) {
	sizes := []image.Point{
		{1, 1}, {2, 2}, {1, 2}, {2, 1}, {3, 3}, {7, 9}, {8, 8}, {15, 17},
		{16, 16}, {17, 15}, {17, 17}, {31, 33}, {32, 32}, {33, 31}, {48, 16},
		{16, 48}, {50, 3}, {3, 50}, {64, 64}, {65, 63}, {100, 101}, {1000, 7},
		{7, 1000}, {640, 427}, {256, 255},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range sizes {
		for _, q := range testQualities {
			for _, kind := range []string{"random", "smooth"} {
				m := image.NewYCbCr(image.Rect(0, 0, sz.X, sz.Y), image.YCbCrSubsampleRatio420)
				if kind == "random" {
					fillRandom(m, rng)
				} else {
					fillSmooth(m, rng)
				}
				t.Run(fmt.Sprintf("%dx%d/q%d/%s", sz.X, sz.Y, q, kind), func(t *testing.T) {
					checkSame(t, m, q)
				})
			}
		}
	}
}

func TestAllQualities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := image.NewYCbCr(image.Rect(0, 0, 37, 29), image.YCbCrSubsampleRatio420)
	fillSmooth(m, rng)
	for q := 1; q <= 100; q++ {
		checkSame(t, m, q)
	}
}

// TestSubImages checks images whose rectangle does not start at (0, 0), at
// every parity, including negative origins, where YCbCr.COffset's truncating
// division makes image/jpeg mix neighbouring chroma samples.
func TestSubImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, origin := range []image.Point{{0, 0}, {-40, -40}, {-39, -37}} {
		parent := image.NewYCbCr(image.Rect(origin.X, origin.Y, origin.X+120, origin.Y+110), image.YCbCrSubsampleRatio420)
		fillRandom(parent, rng)
		for dx := 0; dx < 4; dx++ {
			for dy := 0; dy < 4; dy++ {
				for _, sz := range []image.Point{{1, 1}, {16, 16}, {33, 31}, {47, 50}, {64, 64}, {80, 70}} {
					r := image.Rect(dx, dy, dx+sz.X, dy+sz.Y).Add(origin).Add(image.Pt(3*dx, 5*dy))
					sub := parent.SubImage(r).(*image.YCbCr)
					if sub.Rect != r {
						t.Fatalf("SubImage(%v) = %v", r, sub.Rect)
					}
					for _, q := range []int{1, 75, 100} {
						checkSame(t, sub, q)
					}
				}
			}
		}
	}
}

func TestNegativeOrigin(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, r := range []image.Rectangle{
		image.Rect(-1, -1, 0, 0),
		image.Rect(-3, -5, 30, 20),
		image.Rect(-17, -16, 16, 17),
		image.Rect(-33, -2, -1, 31),
		image.Rect(5, -9, 40, 40),
	} {
		m := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
		fillRandom(m, rng)
		for _, q := range testQualities {
			checkSame(t, m, q)
		}
	}
}

// rocket420 returns the photograph testdata/rocket.jpg as a 4:2:0 image.
func rocket420(t testing.TB) *image.YCbCr {
	t.Helper()
	f, err := os.ReadFile("../engine/testdata/rocket.jpg")
	if err != nil {
		t.Skipf("rocket.jpg: %v", err)
	}
	m, err := jpeg.Decode(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	return to420(t, m)
}

// to420 returns m if it is a 4:2:0 *image.YCbCr, else m re-encoded by
// image/jpeg (which always writes 4:2:0) at quality 100 and decoded again.
func to420(t testing.TB, m image.Image) *image.YCbCr {
	t.Helper()
	if y, ok := m.(*image.YCbCr); ok && y.SubsampleRatio == image.YCbCrSubsampleRatio420 {
		return y
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	m, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	y, ok := m.(*image.YCbCr)
	if !ok || y.SubsampleRatio != image.YCbCrSubsampleRatio420 {
		t.Fatalf("re-decoded image is %T, want 4:2:0 *image.YCbCr", m)
	}
	return y
}

func TestPhoto(t *testing.T) {
	m := rocket420(t)
	for _, q := range testQualities {
		checkSame(t, m, q)
	}
	for _, r := range []image.Rectangle{
		image.Rect(1, 1, 640, 427),
		image.Rect(101, 57, 333, 300),
		image.Rect(200, 100, 201, 300),
		image.Rect(16, 16, 624, 416),
	} {
		sub := m.SubImage(r).(*image.YCbCr)
		for _, q := range []int{50, 90} {
			checkSame(t, sub, q)
		}
	}
}

// sharedPhotos is the directory of the project's shared test photographs,
// beside the repository (see bench_test.go).
const sharedPhotos = "../../../shared/testdata/photos"

// TestSharedPhotos encodes the shared photographs at several qualities,
// whole and as sub-images at odd origins (the edge MCU path), with every
// FDCT this machine runs: each must write image/jpeg's bytes. The 24
// megapixel one is only checked for the same bytes from both FDCTs (and
// skipped with -short).
func TestSharedPhotos(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(sharedPhotos, "*.*"))
	if err != nil || len(names) == 0 {
		t.Skipf("no shared photos in %s", sharedPhotos)
	}
	n := 0
	for _, name := range names {
		ext := filepath.Ext(name)
		if ext != ".png" && ext != ".jpg" {
			continue
		}
		large := filepath.Base(name) == filepath.Base(largePhoto)
		if large && testing.Short() {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, _, err := image.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			m := to420(t, img)
			if large {
				checkPathsAgree(t, m, 95)
				r := m.Rect.Inset(333)
				checkPathsAgree(t, m.SubImage(r.Add(image.Pt(1, 1))).(*image.YCbCr), 50)
				return
			}
			for _, q := range []int{1, 50, 75, 90, 95, 100} {
				checkSame(t, m, q)
			}
			r := m.Rect
			for _, sub := range []image.Rectangle{
				image.Rect(r.Min.X+1, r.Min.Y+3, r.Max.X-2, r.Max.Y),
				image.Rect(r.Min.X+17, r.Min.Y+9, r.Min.X+17+121, r.Min.Y+9+77),
			} {
				for _, q := range []int{30, 95} {
					checkSame(t, m.SubImage(sub).(*image.YCbCr), q)
				}
			}
		})
		n++
	}
	if n < 4 {
		t.Fatalf("only %d photos found in %s", n, sharedPhotos)
	}
}

// checkPathsAgree fails t unless Encode writes the same bytes with the Go
// and the AVX2 FDCT (when the machine has AVX2).
func checkPathsAgree(t *testing.T, m *image.YCbCr, quality int) {
	t.Helper()
	var want []byte
	for _, avx2 := range fdctPaths() {
		var buf bytes.Buffer
		if err := encodeWith(avx2, &buf, m, quality); err != nil {
			t.Fatalf("Encode(%v, q%d, avx2 %v): %v", m.Rect, quality, avx2, err)
		}
		if want == nil {
			want = buf.Bytes()
		} else if i, differ := firstDiff(buf.Bytes(), want); differ {
			t.Fatalf("Encode(%v, q%d): %d bytes with AVX2, %d without; first difference at byte %d",
				m.Rect, quality, buf.Len(), len(want), i)
		}
	}
}

// TestQuantizeExhaustive checks the reciprocal quantizer against image/jpeg's
// div for every divisor image/jpeg can use (8*q for q in [1, 255]) and every
// dividend in [-2^16, 2^16], eight times the FDCT's output range.
func TestQuantizeExhaustive(t *testing.T) {
	var zq [blockSize]byte
	for q := 1; q <= 255; q++ {
		for i := range zq {
			zq[i] = byte(q)
		}
		var qt quantTable
		qt.init(&zq)
		c, mul := qt.c[0], qt.mul[0]
		d := int32(8 * q)
		for a := int32(-1 << 16); a <= 1<<16; a++ {
			if v, want := quantize(a, c, mul), div(a, d); v != want {
				t.Fatalf("quantize(%d, %d) = %d, want %d", a, d, v, want)
			}
		}
	}
}

// TestFDCTRange checks that the FDCT's outputs stay far inside the range
// over which TestQuantizeExhaustive proves the quantizer exact, on the inputs
// that maximise each coefficient (the sign pattern of its basis function)
// and on random blocks.
func TestFDCTRange(t *testing.T) {
	const limit = 8192 // DC: sum-8192 in [-8192, 8128]; AC: |x| <= 8160.
	var b block
	maxAbs := int32(0)
	check := func(src []byte) {
		fdctRef(&b, src, 0, 8)
		for _, v := range b {
			maxAbs = max(maxAbs, v, -v)
		}
	}
	src := make([]byte, 64)
	for u := range 8 {
		for v := range 8 {
			for _, hi := range []byte{0, 255} {
				for y := range 8 {
					for x := range 8 {
						cu := cosSign(u, x)
						cv := cosSign(v, y)
						if cu*cv >= 0 {
							src[8*y+x] = hi
						} else {
							src[8*y+x] = 255 - hi
						}
					}
				}
				check(src)
			}
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 100000 {
		for i := range src {
			if n%2 == 0 {
				src[i] = byte(rng.Uint32())
			} else {
				src[i] = byte(rng.IntN(2) * 255) // extremes only.
			}
		}
		check(src)
	}
	if maxAbs > limit {
		t.Fatalf("FDCT output %d exceeds %d", maxAbs, limit)
	}
	if maxAbs < 8160 {
		t.Fatalf("FDCT extreme inputs gave only %d: test inputs are wrong", maxAbs)
	}
}

// cosSign returns the sign of cos((2x+1)uπ/16) as -1, 0 or +1, computed from
// the angle's position in the circle (no floating point).
func cosSign(u, x int) int {
	a := ((2*x + 1) * u) % 32 // angle in units of π/16, mod 2π.
	switch {
	case a < 8 || a > 24:
		return 1
	case a == 8 || a == 24:
		return 0
	}
	return -1
}

// TestValBits checks the value table against image/jpeg's emitHuffRLE
// arithmetic for every value it can be used for.
func TestValBits(t *testing.T) {
	for v := int32(-2047); v <= 2047; v++ {
		a, b := v, v
		if a < 0 {
			a, b = -v, v-1
		}
		var nBits uint32
		if a < 0x100 {
			nBits = uint32(bits.Len8(uint8(a)))
		} else {
			nBits = 8 + uint32(bits.Len8(uint8(a>>8)))
		}
		want := (uint32(b)&(1<<nBits-1))<<4 | nBits
		if got := valBits[v+valBitsOff]; got != want {
			t.Fatalf("valBits[%d] = %#x, want %#x", v, got, want)
		}
	}
}

func TestMaxWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, r := range []image.Rectangle{image.Rect(0, 0, 65535, 2), image.Rect(0, 0, 3, 65535)} {
		m := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
		fillSmooth(m, rng)
		checkSame(t, m, 75)
	}
}

func TestErrors(t *testing.T) {
	ok := image.NewYCbCr(image.Rect(0, 0, 8, 8), image.YCbCrSubsampleRatio420)
	tests := []struct {
		name    string
		m       *image.YCbCr
		quality int
	}{
		{"nil", nil, 75},
		{"444", image.NewYCbCr(image.Rect(0, 0, 8, 8), image.YCbCrSubsampleRatio444), 75},
		{"422", image.NewYCbCr(image.Rect(0, 0, 8, 8), image.YCbCrSubsampleRatio422), 75},
		{"empty", image.NewYCbCr(image.Rect(0, 0, 0, 0), image.YCbCrSubsampleRatio420), 75},
		{"zero width", image.NewYCbCr(image.Rect(0, 0, 0, 5), image.YCbCrSubsampleRatio420), 75},
		{"zero height", &image.YCbCr{SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: image.Rect(0, 0, 5, 0)}, 75},
		{"too wide", &image.YCbCr{SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: image.Rect(0, 0, 1<<16, 1)}, 75},
		{"too tall", &image.YCbCr{SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: image.Rect(0, 0, 1, 1<<16)}, 75},
		{"short planes", &image.YCbCr{SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: image.Rect(0, 0, 8, 8),
			Y: make([]byte, 63), Cb: make([]byte, 16), Cr: make([]byte, 16), YStride: 8, CStride: 4}, 75},
		{"short chroma", &image.YCbCr{SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: image.Rect(0, 0, 8, 8),
			Y: make([]byte, 64), Cb: make([]byte, 16), Cr: make([]byte, 15), YStride: 8, CStride: 4}, 75},
		{"quality 0", ok, 0},
		{"quality 101", ok, 101},
		{"quality -5", ok, -5},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Encode(&buf, tt.m, tt.quality); err == nil {
			t.Errorf("%s: Encode returned no error", tt.name)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: Encode wrote %d bytes", tt.name, buf.Len())
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, ok, 1); err != nil {
		t.Errorf("valid image: %v", err)
	}
}

// failWriter accepts n bytes and then fails.
type failWriter struct{ n int }

var errWrite = errors.New("write failed")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errWrite
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	m := image.NewYCbCr(image.Rect(0, 0, 300, 300), image.YCbCrSubsampleRatio420)
	fillRandom(m, rng)
	size := len(stdEncode(t, m, 90))
	for _, n := range []int{0, 1, 100, outBufSize - 1, outBufSize, outBufSize + 1, size - 1} {
		if err := Encode(&failWriter{n}, m, 90); !errors.Is(err, errWrite) {
			t.Errorf("writer failing after %d of %d bytes: Encode returned %v", n, size, err)
		}
	}
	if err := Encode(&failWriter{size}, m, 90); err != nil {
		t.Errorf("writer taking exactly %d bytes: %v", size, err)
	}
	// A failed encode must leave nothing behind in the pooled encoders.
	checkSame(t, m, 90)
}

// TestConcurrent runs encoders in parallel (pooled state, shared tables);
// run with -race to check for data races.
func TestConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var imgs []*image.YCbCr
	var wants [][]byte
	for i := range 8 {
		m := image.NewYCbCr(image.Rect(0, 0, 40+13*i, 30+7*i), image.YCbCrSubsampleRatio420)
		fillSmooth(m, rng)
		imgs = append(imgs, m)
		wants = append(wants, stdEncode(t, m, 60+i))
	}
	errc := make(chan error, len(imgs))
	for i, m := range imgs {
		go func() {
			for range 20 {
				var buf bytes.Buffer
				if err := Encode(&buf, m, 60+i); err != nil {
					errc <- err
					return
				}
				if !bytes.Equal(buf.Bytes(), wants[i]) {
					errc <- fmt.Errorf("image %d: output differs from image/jpeg", i)
					return
				}
			}
			errc <- nil
		}()
	}
	for range imgs {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// TestDetectsDifference makes sure the comparison helper can fail.
func TestDetectsDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	m := image.NewYCbCr(image.Rect(0, 0, 40, 40), image.YCbCrSubsampleRatio420)
	fillSmooth(m, rng)
	var a bytes.Buffer
	if err := Encode(&a, m, 90); err != nil {
		t.Fatal(err)
	}
	m.Cb[len(m.Cb)-1] ^= 0x40 // a bottom-right chroma sample.
	if bytes.Equal(a.Bytes(), stdEncode(t, m, 90)) {
		t.Fatal("changing a chroma sample did not change image/jpeg's output")
	}
}

// TestStuff checks the 0xFF stuffing of a block's bytes against a plain
// byte-by-byte copy, on data dense in 0xFF, and that the bytes before the
// block and the ones it grows into are handled.
func TestStuff(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	buf := new(outBuf)
	for range 2000 {
		n0 := rng.IntN(100)
		n := n0 + rng.IntN(300)
		for i := range buf[:n+1000] {
			buf[i] = 0xfe + byte(rng.IntN(2)) // about half 0xFF.
			if rng.IntN(4) == 0 {
				buf[i] = byte(rng.Uint32())
			}
		}
		var want []byte
		want = append(want, buf[:n0]...)
		for _, b := range buf[n0:n] {
			want = append(want, b)
			if b == 0xff {
				want = append(want, 0)
			}
		}
		end := stuff(buf, n0, n)
		if !bytes.Equal(buf[:end], want) {
			t.Fatalf("stuff(%d, %d): got % x, want % x", n0, n, buf[:end], want)
		}
	}
}
