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
		idctRow(x)
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
