//go:build amd64 && !purego

package jpegdec

import "golang.org/x/sys/cpu"

// haveSIMD reports whether this CPU runs idctStoreSIMD's AVX2 assembly.
var haveSIMD = cpu.X86.HasAVX2

// idctStoreAVX2 is idct followed by storePix in AVX2 assembly
// (idct_amd64.s), with the same results: it does idct's int32 arithmetic,
// wraparound included, on eight rows or columns at a time.
//
//go:noescape
func idctStoreAVX2(b *block, dst *byte, stride int)

// idctStoreSIMD transforms b (idct) and stores it (storePix) with the AVX2
// assembly, which the CPU must have (haveSIMD). b is left as it was.
func idctStoreSIMD(b *block, dst []byte, stride int) {
	_ = dst[7*stride+7]
	idctStoreAVX2(b, &dst[0], stride)
}

// idctK holds idct's constants for idctStoreAVX2, each repeated in the 8
// lanes of a vector. The constants of a rotation (dctBox) are kcos,
// ksin-kcos and kcos+ksin.
var idctK = func() (k [17][8]int32) {
	box := func(i int, kcos, ksin int32) {
		k[i][0], k[i+1][0], k[i+2][0] = kcos, ksin-kcos, kcos+ksin
	}
	box(0, c(sqrt2inv_cos6, 18), -c(sqrt2inv_sin6, 18))  // Rows: x2, x3.
	k[3][0] = c(sqrt2inv, 8)                             // Rows: x5, x6.
	box(4, c(cos3, 12), -c(sin3, 12))                    // Rows and columns: x4, x7.
	box(7, c(cos1, 12), -c(sin1, 12))                    // Rows and columns: x5, x6.
	box(10, c(sqrt2inv_cos6, 12), -c(sqrt2inv_sin6, 12)) // Columns: x2, x3.
	k[13][0] = c(sqrt2inv, 14)                           // Columns: x5, x6.
	k[14][0] = 1 << 19                                   // Columns: rounding.
	k[15][0] = 128 | 128<<16                             // Level shift, in int16 lanes.
	for i := range 16 {
		for j := range 8 {
			k[i][j] = k[i][0]
		}
	}
	k[16] = [8]int32{0, 4, 1, 5, 2, 6, 3, 7} // Interleaves the halves of rows.
	return k
}()
