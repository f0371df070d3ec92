//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"

// The FDCT of fdct.go on eight lanes: the column pass with one int32 lane per
// column, an 8x8 transpose, the row pass with one lane per row. Every step
// is the Go code's int32 operation on each lane (VPADDD, VPSUBD, VPMULLD,
// VPSRAD and VPSLLD wrap and round exactly as Go's + - * >> << on int32), so
// the coefficients are the Go code's bit for bit. The row pass leaves one
// register per horizontal frequency u, its lanes the vertical frequencies,
// which is the block's transposed order (see block in fdct.go).
//
// Registers are renamed rather than moved, so the comments after each stage
// say where each of the Go code's x0..x7 lives.

// DCTBOX computes dctBox(a, b) with the constants kc = kcos, ksmc =
// ksin-kcos and kcps = kcos+ksin, leaving y0 in b and y1 in a; t is scratch.
#define DCTBOX(a, b, t, kc, ksmc, kcps) \
	VPADDD  b, a, t    \
	VPMULLD kc, t, t   \
	VPMULLD ksmc, b, b \
	VPMULLD kcps, a, a \
	VPADDD  b, t, b    \
	VPSUBD  a, t, a

// BUTTERFLY sets s = a+b and b = a-b.
#define BUTTERFLY(a, b, s) \
	VPADDD b, a, s \
	VPSUBD b, a, b

// QUANT sets r to image/jpeg's div(a, d) for the a in r and the divisors of
// the block column whose quantTable entries start at byte off (see
// quantTable: sign(a) * ((|a| + h) * mul32 >> shift)); t is scratch.
#define QUANT(r, t, off) \
	VPABSD  r, t                               \
	VPADDD  quantTable_h+off(DX), t, t         \
	VPMULLD quantTable_mul32+off(DX), t, t     \
	VPSRLVD quantTable_shift+off(DX), t, t     \
	VPSIGND r, t, r

// ROUNDQUANT cuts r from Q13.18 to Q13.0 as the row pass does, quantizes
// it (QUANT) and stores it as block column off/32, then ORs the zig-zag mask
// of its non-zero lanes into R10. Y14 must be zero; t and u are scratch.
#define ROUNDQUANT(r, t, u, off, maskoff) \
	VPADDD    ·fdctK+672(SB), r, r \
	VPSRAD    $18, r, r            \
	QUANT(r, t, off)               \
	VMOVDQU   r, off(DI)           \
	VPCMPEQD  Y14, r, u            \
	VMOVMSKPS u, AX                \
	XORL      $0xff, AX            \
	ORQ       maskoff(R8)(AX*8), R10

// func fdctQuantAsm(b *block, src *byte, stride int, qt *quantTable) (mask uint64)
TEXT ·fdctQuantAsm(SB), NOSPLIT, $0-40
	MOVQ b+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), BX
	MOVQ qt+24(FP), DX
	LEAQ (BX)(BX*2), CX

	// Rows 0..7 of the samples, zero-extended, one lane per column.
	VPMOVZXBD (SI), Y0
	VPMOVZXBD (SI)(BX*1), Y1
	VPMOVZXBD (SI)(BX*2), Y2
	VPMOVZXBD (SI)(CX*1), Y3
	LEAQ      (SI)(BX*4), SI
	VPMOVZXBD (SI), Y4
	VPMOVZXBD (SI)(BX*1), Y5
	VPMOVZXBD (SI)(BX*2), Y6
	VPMOVZXBD (SI)(CX*1), Y7

	// Column pass (fdctCols). Stage 1: four butterflies.
	BUTTERFLY(Y0, Y7, Y8)
	BUTTERFLY(Y1, Y6, Y0)
	BUTTERFLY(Y2, Y5, Y1)
	BUTTERFLY(Y3, Y4, Y2)

	// x0..x7 in Y8 Y0 Y1 Y2 Y4 Y5 Y6 Y7.
	// Stage 2: two boxes and two butterflies.
	DCTBOX(Y4, Y7, Y3, ·fdctK+0(SB), ·fdctK+32(SB), ·fdctK+64(SB))
	DCTBOX(Y5, Y6, Y3, ·fdctK+96(SB), ·fdctK+128(SB), ·fdctK+160(SB))
	BUTTERFLY(Y8, Y2, Y3)
	BUTTERFLY(Y0, Y1, Y8)

	// x0..x7 in Y3 Y8 Y1 Y2 Y7 Y6 Y5 Y4.
	// Stage 3: one box and three butterflies.
	DCTBOX(Y1, Y2, Y0, ·fdctK+192(SB), ·fdctK+224(SB), ·fdctK+256(SB))
	BUTTERFLY(Y3, Y8, Y0)

	// x0..x7 in Y0 Y8 Y2 Y1 Y7 Y6 Y5 Y4.
	VPSUBD ·fdctK+640(SB), Y0, Y0
	VPSLLD $18, Y0, Y0            // output 0: (x0 - 128*8) << 18
	VPSLLD $18, Y8, Y8            // output 4: x1 << 18
	BUTTERFLY(Y7, Y5, Y3)
	BUTTERFLY(Y4, Y6, Y7)

	// x4 x5 x6 x7 in Y3 Y6 Y5 Y7.
	// Stage 4: two √2 scalings and one butterfly.
	VPSRAD  $12, Y6, Y6
	VPMULLD ·fdctK+288(SB), Y6, Y6
	VPSRAD  $12, Y5, Y5
	VPMULLD ·fdctK+288(SB), Y5, Y5
	BUTTERFLY(Y7, Y3, Y4)

	// Outputs 0..7 (x0<<18, x7, x2, x5, x1<<18, x6, x3, x4) in
	// Y0 Y4 Y2 Y6 Y8 Y5 Y1 Y3: rows of the column pass's output.
	// Transpose them: 32-bit, then 64-bit interleaves within each 128-bit
	// half, then the halves.
	VPUNPCKLDQ Y4, Y0, Y7
	VPUNPCKHDQ Y4, Y0, Y9
	VPUNPCKLDQ Y6, Y2, Y10
	VPUNPCKHDQ Y6, Y2, Y11
	VPUNPCKLDQ Y5, Y8, Y12
	VPUNPCKHDQ Y5, Y8, Y13
	VPUNPCKLDQ Y3, Y1, Y14
	VPUNPCKHDQ Y3, Y1, Y15

	VPUNPCKLQDQ Y10, Y7, Y0
	VPUNPCKHQDQ Y10, Y7, Y1
	VPUNPCKLQDQ Y11, Y9, Y2
	VPUNPCKHQDQ Y11, Y9, Y3
	VPUNPCKLQDQ Y14, Y12, Y4
	VPUNPCKHQDQ Y14, Y12, Y5
	VPUNPCKLQDQ Y15, Y13, Y6
	VPUNPCKHQDQ Y15, Y13, Y8

	VPERM2I128 $0x20, Y4, Y0, Y7
	VPERM2I128 $0x31, Y4, Y0, Y9
	VPERM2I128 $0x20, Y5, Y1, Y10
	VPERM2I128 $0x31, Y5, Y1, Y11
	VPERM2I128 $0x20, Y6, Y2, Y12
	VPERM2I128 $0x31, Y6, Y2, Y13
	VPERM2I128 $0x20, Y8, Y3, Y14
	VPERM2I128 $0x31, Y8, Y3, Y15

	// Row pass (fdctRowsQuant), one lane per row: x0..x7 in
	// Y7 Y10 Y12 Y14 Y9 Y11 Y13 Y15.
	// Stage 1: four butterflies.
	BUTTERFLY(Y7, Y15, Y0)
	BUTTERFLY(Y10, Y13, Y1)
	BUTTERFLY(Y12, Y11, Y2)
	BUTTERFLY(Y14, Y9, Y3)

	// x0..x7 in Y0 Y1 Y2 Y3 Y9 Y11 Y13 Y15.
	// Stage 2: two boxes (on x>>14) and two butterflies.
	VPSRAD $14, Y9, Y9
	VPSRAD $14, Y15, Y15
	DCTBOX(Y9, Y15, Y4, ·fdctK+320(SB), ·fdctK+352(SB), ·fdctK+384(SB))
	VPSRAD $14, Y11, Y11
	VPSRAD $14, Y13, Y13
	DCTBOX(Y11, Y13, Y4, ·fdctK+416(SB), ·fdctK+448(SB), ·fdctK+480(SB))
	BUTTERFLY(Y0, Y3, Y4)
	BUTTERFLY(Y1, Y2, Y0)

	// x0..x7 in Y4 Y0 Y2 Y3 Y15 Y13 Y11 Y9.
	// Stage 3: one box (on x>>14) and three butterflies.
	VPSRAD $14, Y2, Y2
	VPSRAD $14, Y3, Y3
	DCTBOX(Y2, Y3, Y1, ·fdctK+512(SB), ·fdctK+544(SB), ·fdctK+576(SB))
	BUTTERFLY(Y4, Y0, Y1)
	BUTTERFLY(Y15, Y11, Y4)
	BUTTERFLY(Y9, Y13, Y15)

	// x0..x7 in Y1 Y0 Y3 Y2 Y4 Y13 Y11 Y15.
	// Stage 4: two √2 scalings and one butterfly.
	VPSRAD  $14, Y13, Y13
	VPMULLD ·fdctK+608(SB), Y13, Y13
	VPSRAD  $14, Y11, Y11
	VPMULLD ·fdctK+608(SB), Y11, Y11
	BUTTERFLY(Y15, Y4, Y9)

	// x0..x7 in Y1 Y0 Y3 Y2 Y4 Y13 Y11 Y9. Block columns 0..7 are
	// x0, x7, x2, x5, x1, x6, x3, x4.
	LEAQ  ·zigMaskT(SB), R8
	XORQ  R10, R10
	VPXOR Y14, Y14, Y14
	ROUNDQUANT(Y1, Y5, Y6, 0, 0)
	ROUNDQUANT(Y9, Y7, Y8, 32, 2048)
	ROUNDQUANT(Y3, Y10, Y12, 64, 4096)
	ROUNDQUANT(Y13, Y5, Y6, 96, 6144)
	ROUNDQUANT(Y0, Y7, Y8, 128, 8192)
	ROUNDQUANT(Y11, Y10, Y12, 160, 10240)
	ROUNDQUANT(Y2, Y5, Y6, 192, 12288)
	ROUNDQUANT(Y4, Y7, Y8, 224, 14336)

	VZEROUPPER
	MOVQ R10, mask+32(FP)
	RET

// func quantAsm(dst, src *block, qt *quantTable)
TEXT ·quantAsm(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ qt+16(FP), DX
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU 128(SI), Y4
	VMOVDQU 160(SI), Y5
	VMOVDQU 192(SI), Y6
	VMOVDQU 224(SI), Y7
	QUANT(Y0, Y8, 0)
	QUANT(Y1, Y9, 32)
	QUANT(Y2, Y10, 64)
	QUANT(Y3, Y11, 96)
	QUANT(Y4, Y12, 128)
	QUANT(Y5, Y13, 160)
	QUANT(Y6, Y14, 192)
	QUANT(Y7, Y15, 224)
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	VZEROUPPER
	RET
