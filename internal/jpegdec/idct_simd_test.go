package jpegdec

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// photosDir holds the shared test photos, kept outside the repository.
const photosDir = "../../../shared/testdata/photos"

// withSIMD runs f with useSIMD set to on, and restores it.
func withSIMD(on bool, f func()) {
	old := useSIMD
	useSIMD = on
	defer func() { useSIMD = old }()
	f()
}

// randomBlock returns a block of dequantized coefficients for inverse DCT
// tests: a few or all coefficients, in the first row or column only in some
// blocks (the shapes idctSparse has shortcuts for), with values from small to
// any int32 (where idct's arithmetic wraps and the outputs are clipped).
func randomBlock(rng *rand.Rand, i int) block {
	var b block
	n := 1 + rng.IntN(12)
	if i%10 == 0 {
		n = 64
	}
	for range n {
		u := rng.IntN(64)
		if i%7 == 0 {
			u = rng.IntN(8) * 8 // First column only.
		}
		if i%5 == 0 {
			u = rng.IntN(8) // First row only.
		}
		if i%11 == 0 {
			u = rng.IntN(2) * 8 // Rows 0 and 1, first column.
		}
		switch rng.IntN(6) {
		case 0:
			b[u] = int32(rng.Uint32())
		case 1:
			b[u] = rng.Int32N(1<<16) - 1<<15
		case 2:
			// The extremes, and what dequantizing 11-bit values by
			// 8-bit or 16-bit tables gives.
			b[u] = []int32{-1 << 31, 1<<31 - 1, -2047 * 255, 2047 * 255, -2047 * 65535, 2047 * 65535}[rng.IntN(6)]
		default:
			b[u] = rng.Int32N(2048) - 1024
		}
	}
	return b
}

// TestIDCTStoreSIMD checks that the assembly inverse DCT stores the bytes
// that idctSparse and storePix store, and no others.
func TestIDCTStoreSIMD(t *testing.T) {
	if !haveSIMD {
		t.Skip("no SIMD inverse DCT on this CPU or architecture")
	}
	const stride = 13
	rng := rand.New(rand.NewPCG(3, 4))
	want := make([]byte, 7*stride+8+5)
	got := make([]byte, len(want))
	for i := range 200000 {
		b := randomBlock(rng, i)
		for j := range want {
			want[j] = byte(j)
			got[j] = byte(j)
		}
		w := b
		rows, acRows := rowMasks(&w)
		idctSparse(&w, rows, acRows)
		storePix(&w, want[2:], stride)
		g := b
		idctStoreSIMD(&g, got[2:], stride)
		if !bytes.Equal(got, want) {
			t.Fatalf("block %v:\nSIMD %v\nGo   %v", b, got, want)
		}
	}
}

// TestDecodeSIMD checks that decodes with the SIMD inverse DCT are the same
// as without: the fixtures, the generated files, the shared test photos if
// present, and the PNG photos encoded at low to the highest quality (large
// coefficients).
func TestDecodeSIMD(t *testing.T) {
	if !haveSIMD {
		t.Skip("no SIMD inverse DCT on this CPU or architecture")
	}
	in := allInputs(t)
	if testing.Short() {
		t.Log("short: without the shared photos")
	} else if photos := sharedPhotos(t); len(photos) == 0 {
		t.Logf("no photos in %s", photosDir)
	} else {
		for k, v := range photos {
			in[k] = v
		}
	}
	for _, name := range sortedNames(in) {
		b := in[name]
		for _, c := range configs {
			var on, off image.Image
			var errOn, errOff error
			withSIMD(true, func() { on, _, errOn = decodeWith(b, 1, c.cfg) })
			withSIMD(false, func() { off, _, errOff = decodeWith(b, 1, c.cfg) })
			if errString(errOn) != errString(errOff) {
				t.Fatalf("%s, %s: error %q with SIMD, %q without", name, c.name, errString(errOn), errString(errOff))
			}
			if errOff != nil {
				continue
			}
			if err := sameImage(on, off); err != nil {
				t.Fatalf("%s, %s: with SIMD: %v", name, c.name, err)
			}
		}
	}
}

// sharedPhotos returns the JPEG photos of photosDir and its PNG photos
// encoded at qualities 50, 95 and 100, by name.
func sharedPhotos(t *testing.T) map[string][]byte {
	t.Helper()
	m := make(map[string][]byte)
	jpgs, _ := filepath.Glob(filepath.Join(photosDir, "*.jpg"))
	for _, n := range jpgs {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(n)] = b
	}
	pngs, _ := filepath.Glob(filepath.Join(photosDir, "*.png"))
	for _, n := range pngs {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, q := range []int{50, 95, 100} {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
				t.Fatal(err)
			}
			m[fmt.Sprintf("%s-q%d", filepath.Base(n), q)] = buf.Bytes()
		}
	}
	return m
}

// BenchmarkIDCTStore times the inverse DCT and store of blocks of each shape
// that idctSparse has a shortcut for, with idctSparse and storePix and with
// idctStoreSIMD.
func BenchmarkIDCTStore(b *testing.B) {
	shapes := []struct {
		name string
		coef []int // Natural-order indices of the non-zero coefficients.
	}{
		{"row0", []int{0, 1, 2, 5}},
		{"col0", []int{0, 8, 16, 40}},
		{"rows01", []int{0, 1, 8, 9, 10}},
		{"full", []int{0, 1, 2, 8, 9, 16, 17, 24, 3, 33, 63}},
	}
	dst := make([]byte, 64*8)
	for _, s := range shapes {
		var in block
		for i, u := range s.coef {
			in[u] = int32(100 - 7*i)
		}
		rows, acRows := rowMasks(&in)
		b.Run(s.name+"/go", func(b *testing.B) {
			for b.Loop() {
				blk := in
				idctSparse(&blk, rows, acRows)
				storePix(&blk, dst, 64)
			}
		})
		b.Run(s.name+"/simd", func(b *testing.B) {
			if !haveSIMD {
				b.Skip("no SIMD inverse DCT on this CPU or architecture")
			}
			for b.Loop() {
				blk := in
				idctStoreSIMD(&blk, dst, 64)
			}
		})
	}
}
