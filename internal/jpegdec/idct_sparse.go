// Copyright 2025 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegdec

// idctSparse is idct (idct.go, image/jpeg's inverse DCT) for blocks that
// are known to have zero rows, with exactly the same results. It is derived
// from idctRows and idctCols:
//
//   - a row of zeros stays zeros in idctRows;
//   - a row whose only non-zero input is x[0] becomes eight times x[0]<<17;
//   - if every row but the first is zero after idctRows, every column's only
//     non-zero input is x0, and idctCols makes all of its outputs
//     ((x0 + 1<<19) >> 2) >> 18.
//
// Bit i of rows is set if row i may have a non-zero coefficient, and bit i of
// acRows if row i may have a non-zero coefficient other than its first.
func idctSparse(b *block, rows, acRows uint8) {
	for i := range 8 {
		if rows&(1<<i) == 0 {
			continue
		}
		x := b[8*i : 8*i+8 : 8*i+8]
		if acRows&(1<<i) == 0 {
			v := x[0] << 17
			x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7] = v, v, v, v, v, v, v, v
			continue
		}
		x0 := x[0]
		x7 := x[1]
		x2 := x[2]
		x5 := x[3]
		x1 := x[4]
		x6 := x[5]
		x3 := x[6]
		x4 := x[7]

		// See idctRows for the precision analysis.
		x0 <<= 17
		x1 <<= 17
		x0, x1 = x0+x1, x0-x1
		x2, x3 = dctBox(x2, x3, c(sqrt2inv_cos6, 18), -c(sqrt2inv_sin6, 18))
		x1, x2 = x1+x2, x1-x2
		x0, x3 = x0+x3, x0-x3
		x4 <<= 7
		x7 <<= 7
		x7, x4 = x7+x4, x7-x4
		x6 = x6 * c(sqrt2inv, 8)
		x5 = x5 * c(sqrt2inv, 8)
		x7, x5 = x7+x5, x7-x5
		x4, x6 = x4+x6, x4-x6
		x4, x7 = dctBox(x4>>2, x7>>2, c(cos3, 12), -c(sin3, 12))
		x5, x6 = dctBox(x5>>2, x6>>2, c(cos1, 12), -c(sin1, 12))
		x0, x7 = x0+x7, x0-x7
		x1, x6 = x1+x6, x1-x6
		x2, x5 = x2+x5, x2-x5
		x3, x4 = x3+x4, x3-x4

		x[0] = x0
		x[1] = x1
		x[2] = x2
		x[3] = x3
		x[4] = x4
		x[5] = x5
		x[6] = x6
		x[7] = x7
	}
	if rows&^1 == 0 {
		r0 := b[0:8:8]
		for i, x0 := range r0 {
			v := ((x0 + 1<<19) >> 2) >> 18
			b[0*8+i] = v
			b[1*8+i] = v
			b[2*8+i] = v
			b[3*8+i] = v
			b[4*8+i] = v
			b[5*8+i] = v
			b[6*8+i] = v
			b[7*8+i] = v
		}
		return
	}
	idctCols(b)
}
