// Copyright 2025 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// This file is forked from image/jpeg/dct.go (go1.26): only the forward DCT
// is kept, and its arithmetic is unchanged, so its outputs are bit-for-bit
// those of image/jpeg's fdct. What changed: the column pass (fdctCols) reads
// its 8x8 input straight from a byte plane instead of from an int32 block
// filled by a separate copy loop, the row pass (fdctRowsQuant) quantizes
// each output as soon as it is computed and returns the zig-zag mask of the
// non-zero coefficients, and the block is stored transposed (see block), the
// order in which the AVX2 version of fdct_amd64.s produces it.
//
// The DCT implementation uses the algorithm from Christoph Loeffler, Adriaan
// Lightenberg, and George S. Mostchytz, “Practical Fast 1-D DCT Algorithms
// with 11 Multiplications,” ICASSP 1989. See image/jpeg/dct.go for the long
// explanation of the algorithm and of the fixed-point precision tracking.

package jpegenc

// dctBox implements a 3-multiply, 3-add rotation+scaling.
// Given x0, x1, k*cos θ, and k*sin θ, dctBox returns the
// rotated and scaled coordinates.
func dctBox(x0, x1, kcos, ksin int32) (y0, y1 int32) {
	// y0 = x0*kcos + x1*ksin
	// y1 = -x0*ksin + x1*kcos
	ksum := kcos * (x0 + x1)
	y0 = ksum + (ksin-kcos)*x1
	y1 = ksum - (kcos+ksin)*x0
	return y0, y1
}

// A block is an 8x8 set of DCT coefficients stored transposed: b[8*u+v] is
// the coefficient of horizontal frequency u and vertical frequency v, which
// the natural order of the JPEG spec puts at 8*v+u (see unzigT). Between the
// two passes it holds the column pass's output the same way: b[8*x+v] is
// vertical frequency v of column x.
type block [blockSize]int32

// transposed returns the block index of natural-order index k (and the
// natural index of block index k: the map is its own inverse).
func transposed(k int) int { return k%8*8 + k/8 }

const blockSize = 8 * 8

// Constants needed for the implementation.
// These are all 60-bit precision fixed-point constants.
// The function c(val, b) rounds the constant to b bits.
//
//	op fix x = floor 0.5 + x * 2**60
const (
	cos1       = 1130768441178740757 // fix cos 1*pi/16
	sin1       = 224923827593068887  // fix sin 1*pi/16
	cos3       = 958619196450722178  // fix cos 3*pi/16
	sin3       = 640528868967736374  // fix sin 3*pi/16
	sqrt2      = 1630477228166597777 // fix sqrt 2
	sqrt2_cos6 = 623956622067911264  // fix (sqrt 2)*cos 6*pi/16
	sqrt2_sin6 = 1506364539328854985 // fix (sqrt 2)*sin 6*pi/16
)

func c(x uint64, bits int) int32 {
	return int32((x + (1 << (59 - bits))) >> (60 - bits))
}

// fdctCols applies the 1D DCT to the columns of the 8x8 samples at
// src[off:] with the given stride, writing the result to b (column x to
// b[8*x:8*x+8]).
// Inputs are UQ8.0 in [0,255] but interpreted as [-128,127].
// Outputs are Q10.18.
func fdctCols(b *block, src []byte, off, stride int) {
	r0 := (*[8]byte)(src[off:])
	r1 := (*[8]byte)(src[off+1*stride:])
	r2 := (*[8]byte)(src[off+2*stride:])
	r3 := (*[8]byte)(src[off+3*stride:])
	r4 := (*[8]byte)(src[off+4*stride:])
	r5 := (*[8]byte)(src[off+5*stride:])
	r6 := (*[8]byte)(src[off+6*stride:])
	r7 := (*[8]byte)(src[off+7*stride:])
	for i := range 8 {
		x0 := int32(r0[i])
		x1 := int32(r1[i])
		x2 := int32(r2[i])
		x3 := int32(r3[i])
		x4 := int32(r4[i])
		x5 := int32(r5[i])
		x6 := int32(r6[i])
		x7 := int32(r7[i])

		// x[01234567] are UQ8.0 in [0,255].

		// Stage 1: four butterflies.
		x0, x7 = x0+x7, x0-x7
		x1, x6 = x1+x6, x1-x6
		x2, x5 = x2+x5, x2-x5
		x3, x4 = x3+x4, x3-x4
		// x[0123] now UQ9.0 in [0, 510].
		// x[4567] now Q8.0 in [-255,255].

		// Stage 2: two boxes and two butterflies.
		x4, x7 = dctBox(x4, x7, c(cos3, 18), c(sin3, 18))
		x5, x6 = dctBox(x5, x6, c(cos1, 18), c(sin1, 18))
		// x[47] now Q9.18 in [-354, 354].
		// x[56] now Q9.18 in [-300, 300].

		x0, x3 = x0+x3, x0-x3
		x1, x2 = x1+x2, x1-x2
		// x[01] now UQ10.0 in [0, 1020].
		// x[23] now Q9.0 in [-510, 510].

		// Stage 3: one box and three butterflies.
		x2, x3 = dctBox(x2, x3, c(sqrt2_cos6, 18), c(sqrt2_sin6, 18))
		// x[23] now Q10.18 in [-943, 943].

		x0, x1 = x0+x1, x0-x1
		// x0 now UQ11.0 in [0, 2040].
		// x1 now Q10.0 in [-1020, 1020].

		// Subtracting 128*8 here is equivalent to subtracting 128
		// from every input before we started, but cheaper.
		b[8*i+0] = (x0 - 128*8) << 18
		b[8*i+4] = x1 << 18
		b[8*i+2] = x2
		b[8*i+6] = x3

		x4, x6 = x4+x6, x4-x6
		x7, x5 = x7+x5, x7-x5
		// x[4567] now Q10.18 in [-654, 654].

		// Stage 4: two √2 scalings and one butterfly.
		x5 = (x5 >> 12) * c(sqrt2, 12)
		x6 = (x6 >> 12) * c(sqrt2, 12)
		// x[56] still Q10.18 in [-925, 925] (= 654√2).
		x7, x4 = x7+x4, x7-x4
		// x[47] still Q10.18 in [-925, 925] (see image/jpeg's “Note on 925”).

		b[8*i+1] = x7
		b[8*i+3] = x5
		b[8*i+5] = x6
		b[8*i+7] = x4
	}
}

// fdctRowsQuant applies the 1D DCT to the rows of b, like image/jpeg's
// fdctRows, and quantizes each output (Q13.0) with qt in place, as
// image/jpeg's div does. It returns the zig-zag-order mask of the non-zero
// quantized coefficients.
// Inputs are Q10.18, row v of image/jpeg's block being b[v], b[8+v], ...,
// b[56+v]; outputs go to the same places (see block).
func fdctRowsQuant(b *block, qt *quantTable) (mask uint64) {
	for i := range 8 {
		x := b[i : 57+i : 57+i]
		x0 := x[0*8]
		x1 := x[1*8]
		x2 := x[2*8]
		x3 := x[3*8]
		x4 := x[4*8]
		x5 := x[5*8]
		x6 := x[6*8]
		x7 := x[7*8]

		// x[01234567] are Q10.18 [-1020, 1020].

		// Stage 1: four butterflies.
		x0, x7 = x0+x7, x0-x7
		x1, x6 = x1+x6, x1-x6
		x2, x5 = x2+x5, x2-x5
		x3, x4 = x3+x4, x3-x4
		// x[01234567] now Q11.18 in [-2040, 2040].

		// Stage 2: two boxes and two butterflies.
		x4, x7 = dctBox(x4>>14, x7>>14, c(cos3, 14), c(sin3, 14))
		x5, x6 = dctBox(x5>>14, x6>>14, c(cos1, 14), c(sin1, 14))
		// x[47] now Q12.18 in [-2830, 2830].
		// x[56] now Q12.18 in [-2400, 2400].
		x0, x3 = x0+x3, x0-x3
		x1, x2 = x1+x2, x1-x2
		// x[01234567] now Q12.18 in [-4080, 4080].

		// Stage 3: one box and three butterflies.
		x2, x3 = dctBox(x2>>14, x3>>14, c(sqrt2_cos6, 14), c(sqrt2_sin6, 14))
		// x[23] now Q13.18 in [-7539, 7539].
		x0, x1 = x0+x1, x0-x1
		// x[01] now Q13.18 in [-8160, 8160].
		x4, x6 = x4+x6, x4-x6
		x7, x5 = x7+x5, x7-x5
		// x[4567] now Q13.18 in [-5230, 5230].

		// Stage 4: two √2 scalings and one butterfly.
		x5 = (x5 >> 14) * c(sqrt2, 14)
		x6 = (x6 >> 14) * c(sqrt2, 14)
		// x[56] still Q13.18 in [-7397, 7397] (= 5230√2).
		x7, x4 = x7+x4, x7-x4
		// x[47] still Q13.18 in [-7395, 7395] (= 2040*3.6246).

		// Cut from Q13.18 to Q13.0.
		x0 = (x0 + 1<<17) >> 18
		x1 = (x1 + 1<<17) >> 18
		x2 = (x2 + 1<<17) >> 18
		x3 = (x3 + 1<<17) >> 18
		x4 = (x4 + 1<<17) >> 18
		x5 = (x5 + 1<<17) >> 18
		x6 = (x6 + 1<<17) >> 18
		x7 = (x7 + 1<<17) >> 18

		// Quantize, in natural order: x0, x7, x2, x5, x1, x6, x3, x4.
		c := qt.c[i : 57+i : 57+i]
		m := qt.mul[i : 57+i : 57+i]
		x0 = quantize(x0, c[0*8], m[0*8])
		x7 = quantize(x7, c[1*8], m[1*8])
		x2 = quantize(x2, c[2*8], m[2*8])
		x5 = quantize(x5, c[3*8], m[3*8])
		x1 = quantize(x1, c[4*8], m[4*8])
		x6 = quantize(x6, c[5*8], m[5*8])
		x3 = quantize(x3, c[6*8], m[6*8])
		x4 = quantize(x4, c[7*8], m[7*8])
		x[0*8] = x0
		x[1*8] = x7
		x[2*8] = x2
		x[3*8] = x5
		x[4*8] = x1
		x[5*8] = x6
		x[6*8] = x3
		x[7*8] = x4

		// Bit j of nz is set when coefficient j of row i is not 0 (v|-v is
		// negative iff v != 0).
		nz := uint32(x0|-x0)>>31 |
			uint32(x7|-x7)>>31<<1 |
			uint32(x2|-x2)>>31<<2 |
			uint32(x5|-x5)>>31<<3 |
			uint32(x1|-x1)>>31<<4 |
			uint32(x6|-x6)>>31<<5 |
			uint32(x3|-x3)>>31<<6 |
			uint32(x4|-x4)>>31<<7
		mask |= zigMask[i][nz&0xff]
	}
	return mask
}

// fdctQuantGo is fdctQuant in Go.
func fdctQuantGo(b *block, src []byte, off, stride int, qt *quantTable) uint64 {
	fdctCols(b, src, off, stride)
	return fdctRowsQuant(b, qt)
}
