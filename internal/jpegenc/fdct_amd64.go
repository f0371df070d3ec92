//go:build amd64 && !purego

package jpegenc

import "golang.org/x/sys/cpu"

// haveAVX2 reports whether this machine can run the AVX2 FDCT.
var haveAVX2 = cpu.X86.HasAVX2

// useAVX2 selects the AVX2 FDCT for the encodes that start after it is set.
// It is haveAVX2 unless a test turns it off to run the Go FDCT.
var useAVX2 = haveAVX2

// fdctK holds the FDCT's constants for fdct_amd64.s, each broadcast to the
// eight lanes of a vector, in the order that file's offsets use: for each
// of the three boxes of the column pass (18-bit constants), then of the row
// pass (14-bit), kcos, ksin-kcos and kcos+ksin, as dctBox uses them; then
// the √2 of each pass, 128*8 and the rounding term 1<<17.
var fdctK = func() (k [22][8]int32) {
	set := func(i int, v int32) {
		for j := range k[i] {
			k[i][j] = v
		}
	}
	for pass, bits := range []int{18, 14} {
		for box, cs := range [3][2]uint64{{cos3, sin3}, {cos1, sin1}, {sqrt2_cos6, sqrt2_sin6}} {
			kcos, ksin := c(cs[0], bits), c(cs[1], bits)
			i := 10*pass + 3*box
			set(i, kcos)
			set(i+1, ksin-kcos)
			set(i+2, kcos+ksin)
		}
	}
	set(9, c(sqrt2, 12))
	set(19, c(sqrt2, 14))
	set(20, 128*8)
	set(21, 1<<17)
	return k
}()

// fdctQuantAVX2 is fdctQuantGo in AVX2 (see fdct_amd64.s), for machines
// where haveAVX2 is true. Its coefficients and mask are the same.
func fdctQuantAVX2(b *block, src []byte, off, stride int, qt *quantTable) uint64 {
	_ = src[off+7*stride+7] // the last sample read; the first is src[off].
	return fdctQuantAsm(b, &src[off], stride, qt)
}

// fdctQuantAsm is fdctQuantAVX2 on the samples at src.
//
//go:noescape
func fdctQuantAsm(b *block, src *byte, stride int, qt *quantTable) (mask uint64)

// quantAsm quantizes the 64 values of src into dst with fdctQuantAsm's
// quantizer (for its tests).
//
//go:noescape
func quantAsm(dst, src *block, qt *quantTable)
