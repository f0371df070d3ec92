// Copyright 2025 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegenc

import (
	"math/rand/v2"
	"testing"
)

// fdctRef is image/jpeg's fdct (go1.26) on the 8x8 samples at src[off:]
// with the given stride, unfused and unquantized, in natural order
// (b[8*v+u]): image/jpeg's column pass and row pass unchanged, after its
// copy of the samples into the block.
func fdctRef(b *block, src []byte, off, stride int) {
	for y := range 8 {
		for x := range 8 {
			b[8*y+x] = int32(src[off+y*stride+x])
		}
	}
	for i := range 8 {
		x0, x1, x2, x3 := b[0*8+i], b[1*8+i], b[2*8+i], b[3*8+i]
		x4, x5, x6, x7 := b[4*8+i], b[5*8+i], b[6*8+i], b[7*8+i]
		x0, x7 = x0+x7, x0-x7
		x1, x6 = x1+x6, x1-x6
		x2, x5 = x2+x5, x2-x5
		x3, x4 = x3+x4, x3-x4
		x4, x7 = dctBox(x4, x7, c(cos3, 18), c(sin3, 18))
		x5, x6 = dctBox(x5, x6, c(cos1, 18), c(sin1, 18))
		x0, x3 = x0+x3, x0-x3
		x1, x2 = x1+x2, x1-x2
		x2, x3 = dctBox(x2, x3, c(sqrt2_cos6, 18), c(sqrt2_sin6, 18))
		x0, x1 = x0+x1, x0-x1
		b[0*8+i] = (x0 - 128*8) << 18
		b[4*8+i] = x1 << 18
		b[2*8+i] = x2
		b[6*8+i] = x3
		x4, x6 = x4+x6, x4-x6
		x7, x5 = x7+x5, x7-x5
		x5 = (x5 >> 12) * c(sqrt2, 12)
		x6 = (x6 >> 12) * c(sqrt2, 12)
		x7, x4 = x7+x4, x7-x4
		b[1*8+i] = x7
		b[3*8+i] = x5
		b[5*8+i] = x6
		b[7*8+i] = x4
	}
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

// fdctImpl is one implementation of fdctQuant.
type fdctImpl struct {
	name string
	f    func(b *block, src []byte, off, stride int, qt *quantTable) uint64
}

// fdctImpls returns the implementations this machine runs: Go, and AVX2
// when the CPU has it.
func fdctImpls() []fdctImpl {
	impls := []fdctImpl{{"go", fdctQuantGo}}
	if haveAVX2 {
		impls = append(impls, fdctImpl{"avx2", fdctQuantAVX2})
	}
	return impls
}

// div is image/jpeg's quantizer.
func div(a, b int32) int32 {
	if a >= 0 {
		return (a + (b >> 1)) / b
	}
	return -((-a + (b >> 1)) / b)
}

// TestFDCTQuant checks each FDCT with its fused quantizer against the plain
// FDCT followed by image/jpeg's div, and the returned zig-zag mask, on
// random, extreme and smooth blocks read with a stride and offset.
func TestFDCTQuant(t *testing.T) {
	for _, impl := range fdctImpls() {
		t.Run(impl.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			const stride, off = 13, 5
			src := make([]byte, off+7*stride+8)
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
				fdctRef(&want, src, off, stride)
				wantMask := uint64(0)
				for zig := range blockSize {
					k := unzig[zig]
					want[k] = div(want[k], 8*int32(zq[zig]))
					if want[k] != 0 {
						wantMask |= 1 << zig
					}
				}
				mask := impl.f(&got, src, off, stride, &qt)
				for k := range blockSize {
					if got[transposed(k)] != want[k] || mask != wantMask {
						t.Fatalf("block %d: coefficient %d = %d, want %d; mask %#x, want %#x",
							n, k, got[transposed(k)], want[k], mask, wantMask)
					}
				}
			}
		})
	}
}

// TestQuant32 checks the derivation in quantTable: the AVX2 quantizer's
// multiplier fits 32 bits with the headroom the argument claims.
func TestQuant32(t *testing.T) {
	for q := uint64(1); q <= 255; q++ {
		d := 8 * q
		h, mul, shift := quant32(d)
		m := uint64(1<<15) + d/2
		if uint64(h) != d/2 || m*(d-1) >= 1<<shift || 1<<(shift-1) > m*(d-1) {
			t.Fatalf("d=%d: h %d, shift %d", d, h, shift)
		}
		if m*uint64(mul) >= 1<<32 || uint64(mul)*d < 1<<shift || uint64(mul)*d-1<<shift >= d {
			t.Fatalf("d=%d: mul32 %d, shift %d", d, mul, shift)
		}
	}
}

// TestFDCTPathsAgree runs the Go and the AVX2 FDCT on the same blocks and
// requires the same coefficients and mask: the blocks that drive each
// coefficient to its extreme (the sign pattern of its basis function, at
// full contrast), flat blocks, random extremes and random bytes, with the
// quantization tables of every quality.
func TestFDCTPathsAgree(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	var blocks [][]byte
	for u := range 8 {
		for v := range 8 {
			for _, hi := range []byte{0, 255} {
				src := make([]byte, 64)
				for y := range 8 {
					for x := range 8 {
						if cosSign(u, x)*cosSign(v, y) >= 0 {
							src[8*y+x] = hi
						} else {
							src[8*y+x] = 255 - hi
						}
					}
				}
				blocks = append(blocks, src)
			}
		}
	}
	for _, c := range []byte{0, 1, 127, 128, 254, 255} {
		src := make([]byte, 64)
		for i := range src {
			src[i] = c
		}
		blocks = append(blocks, src)
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for n := range 2000 {
		src := make([]byte, 64)
		for i := range src {
			if n%2 == 0 {
				src[i] = byte(rng.IntN(2) * 255)
			} else {
				src[i] = byte(rng.Uint32())
			}
		}
		blocks = append(blocks, src)
	}
	for quality := 1; quality <= 100; quality++ {
		for class := range 2 {
			zq := scaledQuant(quality, class)
			var qt quantTable
			qt.init(&zq)
			for i, src := range blocks {
				var bGo, bAVX2 block
				mGo := fdctQuantGo(&bGo, src, 0, 8, &qt)
				mAVX2 := fdctQuantAVX2(&bAVX2, src, 0, 8, &qt)
				if bGo != bAVX2 || mGo != mAVX2 {
					t.Fatalf("q%d class %d block %d: AVX2 %v mask %#x, Go %v mask %#x",
						quality, class, i, bAVX2, mAVX2, bGo, mGo)
				}
			}
		}
	}
}
