package jpegdec

import (
	"math/rand/v2"
	"testing"
)

// TestIDCTSparse checks that idctSparse is idct for blocks with zero rows,
// including extreme values where int32 arithmetic wraps.
func TestIDCTSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		var b block
		// A random set of non-zero coefficients.
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
			switch rng.IntN(4) {
			case 0:
				b[u] = int32(rng.Uint32())
			case 1:
				b[u] = rng.Int32N(1<<16) - 1<<15
			default:
				b[u] = rng.Int32N(512) - 256
			}
		}
		want := b
		idct(&want)
		got := b
		rows, acRows := rowMasks(&got)
		idctSparse(&got, rows, acRows)
		if got != want {
			t.Fatalf("block %v: idctSparse %v, idct %v", b, got, want)
		}
		// Masks with extra bits set must not matter either.
		got = b
		idctSparse(&got, rows|uint8(rng.Uint32()), acRows|uint8(rng.Uint32()))
		if got != want {
			t.Fatalf("block %v with extra mask bits: idctSparse %v, idct %v", b, got, want)
		}
	}
}

// rowMasks returns the rows and acRows masks of idctSparse for a block.
func rowMasks(b *block) (rows, acRows uint8) {
	for i := range 8 {
		x := b[8*i : 8*i+8 : 8*i+8]
		ac := x[1] | x[2] | x[3] | x[4] | x[5] | x[6] | x[7]
		if ac != 0 {
			acRows |= 1 << i
			rows |= 1 << i
		} else if x[0] != 0 {
			rows |= 1 << i
		}
	}
	return rows, acRows
}
