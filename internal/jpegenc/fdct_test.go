// Copyright 2025 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegenc

import (
	"math/rand/v2"
	"testing"
)

// fdctRef is image/jpeg's fdct (go1.26), unfused: fdctCols then its row pass
// unchanged, with no quantization.
func fdctRef(b *block, src []byte, off, stride int) {
	fdctCols(b, src, off, stride)
	for i := range 8 {
		x := b[8*i : 8*i+8 : 8*i+8]
		x0, x1, x2, x3, x4, x5, x6, x7 := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
		x0, x7 = x0+x7, x0-x7
		x1, x6 = x1+x6, x1-x6
		x2, x5 = x2+x5, x2-x5
		x3, x4 = x3+x4, x3-x4
		x4, x7 = dctBox(x4>>14, x7>>14, c(cos3, 14), c(sin3, 14))
		x5, x6 = dctBox(x5>>14, x6>>14, c(cos1, 14), c(sin1, 14))
		x0, x3 = x0+x3, x0-x3
		x1, x2 = x1+x2, x1-x2
		x2, x3 = dctBox(x2>>14, x3>>14, c(sqrt2_cos6, 14), c(sqrt2_sin6, 14))
		x0, x1 = x0+x1, x0-x1
		x4, x6 = x4+x6, x4-x6
		x7, x5 = x7+x5, x7-x5
		x5 = (x5 >> 14) * c(sqrt2, 14)
		x6 = (x6 >> 14) * c(sqrt2, 14)
		x7, x4 = x7+x4, x7-x4
		x0 = (x0 + 1<<17) >> 18
		x1 = (x1 + 1<<17) >> 18
		x2 = (x2 + 1<<17) >> 18
		x3 = (x3 + 1<<17) >> 18
		x4 = (x4 + 1<<17) >> 18
		x5 = (x5 + 1<<17) >> 18
		x6 = (x6 + 1<<17) >> 18
		x7 = (x7 + 1<<17) >> 18
		x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7] = x0, x7, x2, x5, x1, x6, x3, x4
	}
}

// TestFDCTQuant checks the fused row pass and quantizer against the plain
// FDCT followed by image/jpeg's div, and the returned zig-zag mask.
func TestFDCTQuant(t *testing.T) {
	div := func(a, b int32) int32 { // image/jpeg's div.
		if a >= 0 {
			return (a + (b >> 1)) / b
		}
		return -((-a + (b >> 1)) / b)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	src := make([]byte, 8*8)
	for n := range 20000 {
		var zq [blockSize]byte
		q := 1 + rng.IntN(255)
		for i := range zq {
			zq[i] = byte(q)
			if n%2 == 0 {
				zq[i] = byte(1 + rng.IntN(255))
			}
		}
		var qt quantTable
		qt.init(&zq)
		for i := range src {
			switch n % 3 {
			case 0:
				src[i] = byte(rng.Uint32())
			case 1:
				src[i] = byte(rng.IntN(2) * 255)
			default:
				src[i] = byte(100 + i + rng.IntN(5))
			}
		}
		var want, got block
		fdctRef(&want, src, 0, 8)
		wantMask := uint64(0)
		for zig := range blockSize {
			k := unzig[zig]
			want[k] = div(want[k], 8*int32(zq[zig]))
			if want[k] != 0 {
				wantMask |= 1 << zig
			}
		}
		fdctCols(&got, src, 0, 8)
		mask := fdctRowsQuant(&got, &qt)
		if got != want || mask != wantMask {
			t.Fatalf("block %d: got %v mask %#x, want %v mask %#x", n, got, mask, want, wantMask)
		}
	}
}
