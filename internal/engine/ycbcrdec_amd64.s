//go:build amd64 && !purego

#include "textflag.h"

DATA ilvA<>+0(SB)/4, $0x00000000
DATA ilvA<>+4(SB)/4, $0x00000000
DATA ilvA<>+8(SB)/4, $0x00000000
DATA ilvA<>+12(SB)/4, $0x00000001
DATA ilvA<>+16(SB)/4, $0x00000001
DATA ilvA<>+20(SB)/4, $0x00000001
DATA ilvA<>+24(SB)/4, $0x00000002
DATA ilvA<>+28(SB)/4, $0x00000002
GLOBL ilvA<>(SB), RODATA|NOPTR, $32

DATA ilvB<>+0(SB)/4, $0x00000002
DATA ilvB<>+4(SB)/4, $0x00000003
DATA ilvB<>+8(SB)/4, $0x00000003
DATA ilvB<>+12(SB)/4, $0x00000003
DATA ilvB<>+16(SB)/4, $0x00000004
DATA ilvB<>+20(SB)/4, $0x00000004
DATA ilvB<>+24(SB)/4, $0x00000004
DATA ilvB<>+28(SB)/4, $0x00000005
GLOBL ilvB<>(SB), RODATA|NOPTR, $32

DATA ilvC<>+0(SB)/4, $0x00000005
DATA ilvC<>+4(SB)/4, $0x00000005
DATA ilvC<>+8(SB)/4, $0x00000006
DATA ilvC<>+12(SB)/4, $0x00000006
DATA ilvC<>+16(SB)/4, $0x00000006
DATA ilvC<>+20(SB)/4, $0x00000007
DATA ilvC<>+24(SB)/4, $0x00000007
DATA ilvC<>+28(SB)/4, $0x00000007
GLOBL ilvC<>(SB), RODATA|NOPTR, $32

DATA dup2<>+0(SB)/4, $0x00000000
DATA dup2<>+4(SB)/4, $0x00000000
DATA dup2<>+8(SB)/4, $0x00000001
DATA dup2<>+12(SB)/4, $0x00000001
DATA dup2<>+16(SB)/4, $0x00000002
DATA dup2<>+20(SB)/4, $0x00000002
DATA dup2<>+24(SB)/4, $0x00000003
DATA dup2<>+28(SB)/4, $0x00000003
GLOBL dup2<>(SB), RODATA|NOPTR, $32

DATA k10101<>+0(SB)/4, $0x00010101
DATA k10101<>+4(SB)/4, $0x00010101
DATA k10101<>+8(SB)/4, $0x00010101
DATA k10101<>+12(SB)/4, $0x00010101
DATA k10101<>+16(SB)/4, $0x00010101
DATA k10101<>+20(SB)/4, $0x00010101
DATA k10101<>+24(SB)/4, $0x00010101
DATA k10101<>+28(SB)/4, $0x00010101
GLOBL k10101<>(SB), RODATA|NOPTR, $32

DATA k128<>+0(SB)/4, $0x00000080
DATA k128<>+4(SB)/4, $0x00000080
DATA k128<>+8(SB)/4, $0x00000080
DATA k128<>+12(SB)/4, $0x00000080
DATA k128<>+16(SB)/4, $0x00000080
DATA k128<>+20(SB)/4, $0x00000080
DATA k128<>+24(SB)/4, $0x00000080
DATA k128<>+28(SB)/4, $0x00000080
GLOBL k128<>(SB), RODATA|NOPTR, $32

DATA kcrR<>+0(SB)/4, $0x000166e9
DATA kcrR<>+4(SB)/4, $0x000166e9
DATA kcrR<>+8(SB)/4, $0x000166e9
DATA kcrR<>+12(SB)/4, $0x000166e9
DATA kcrR<>+16(SB)/4, $0x000166e9
DATA kcrR<>+20(SB)/4, $0x000166e9
DATA kcrR<>+24(SB)/4, $0x000166e9
DATA kcrR<>+28(SB)/4, $0x000166e9
GLOBL kcrR<>(SB), RODATA|NOPTR, $32

DATA kcbG<>+0(SB)/4, $0xffffa7e6
DATA kcbG<>+4(SB)/4, $0xffffa7e6
DATA kcbG<>+8(SB)/4, $0xffffa7e6
DATA kcbG<>+12(SB)/4, $0xffffa7e6
DATA kcbG<>+16(SB)/4, $0xffffa7e6
DATA kcbG<>+20(SB)/4, $0xffffa7e6
DATA kcbG<>+24(SB)/4, $0xffffa7e6
DATA kcbG<>+28(SB)/4, $0xffffa7e6
GLOBL kcbG<>(SB), RODATA|NOPTR, $32

DATA kcrG<>+0(SB)/4, $0xffff492e
DATA kcrG<>+4(SB)/4, $0xffff492e
DATA kcrG<>+8(SB)/4, $0xffff492e
DATA kcrG<>+12(SB)/4, $0xffff492e
DATA kcrG<>+16(SB)/4, $0xffff492e
DATA kcrG<>+20(SB)/4, $0xffff492e
DATA kcrG<>+24(SB)/4, $0xffff492e
DATA kcrG<>+28(SB)/4, $0xffff492e
GLOBL kcrG<>(SB), RODATA|NOPTR, $32

DATA kcbB<>+0(SB)/4, $0x0001c5a2
DATA kcbB<>+4(SB)/4, $0x0001c5a2
DATA kcbB<>+8(SB)/4, $0x0001c5a2
DATA kcbB<>+12(SB)/4, $0x0001c5a2
DATA kcbB<>+16(SB)/4, $0x0001c5a2
DATA kcbB<>+20(SB)/4, $0x0001c5a2
DATA kcbB<>+24(SB)/4, $0x0001c5a2
DATA kcbB<>+28(SB)/4, $0x0001c5a2
GLOBL kcbB<>(SB), RODATA|NOPTR, $32

DATA k255<>+0(SB)/4, $0x000000ff
DATA k255<>+4(SB)/4, $0x000000ff
DATA k255<>+8(SB)/4, $0x000000ff
DATA k255<>+12(SB)/4, $0x000000ff
DATA k255<>+16(SB)/4, $0x000000ff
DATA k255<>+20(SB)/4, $0x000000ff
DATA k255<>+24(SB)/4, $0x000000ff
DATA k255<>+28(SB)/4, $0x000000ff
GLOBL k255<>(SB), RODATA|NOPTR, $32

// LIN(V): V holds eight 16.16 fixed-point channel values; clamp8 them (v>>16 held
// to 0..255, which is what clamp8's two branches give) and look each up in lin8
// (R10), into V as floats. Clobbers Y13 and Y14.
#define LIN(V) \
	VPSRAD     $16, V, V; \
	VPMAXSD    Y15, V, V; \
	VPMINSD    Y12, V, V; \
	VPCMPEQD   Y13, Y13, Y13; \
	VPXOR      Y14, Y14, Y14; \
	VPGATHERDD Y13, (R10)(V*4), Y14; \
	VMOVDQA    Y14, V

// ILV(idx, mg, mb, o): the eight floats at o(DI) from R (Y3), G (Y4) and B (Y5),
// each permuted by idx, G blended in at the lanes of mask mg and B at mb.
#define ILV(idx, mg, mb, o) \
	VMOVDQU  idx, Y0; \
	VPERMPS  Y3, Y0, Y6; \
	VPERMPS  Y4, Y0, Y7; \
	VPERMPS  Y5, Y0, Y8; \
	VBLENDPS mg, Y7, Y6, Y6; \
	VBLENDPS mb, Y8, Y6, Y6; \
	VMOVUPS  Y6, o(DI)

// func ycbcrLinAVX2(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, lin *float32)
//
// Converts n pixels, n a multiple of 8, with ycbcrRGB's integer arithmetic, clamp8
// and the lin8 table: luma y[i], chroma cb[i] and cr[i], or with pairs set
// cb[i/2] and cr[i/2] (4:2:0 and 4:2:2); dst gets the RGB triples.
TEXT ·ycbcrLinAVX2(SB), NOSPLIT, $0-56
	MOVQ    dst+0(FP), DI
	MOVQ    y+8(FP), SI
	MOVQ    cb+16(FP), R8
	MOVQ    cr+24(FP), R9
	MOVQ    n+32(FP), CX
	MOVBQZX pairs+40(FP), DX
	MOVQ    lin+48(FP), R10
	VMOVDQU k255<>(SB), Y12
	VPXOR   Y15, Y15, Y15

loop:
	CMPQ CX, $8
	JLT  done
	VPMOVZXBD (SI), Y0
	VPMULLD   k10101<>(SB), Y0, Y0
	TESTQ     DX, DX
	JNZ       halves
	VPMOVZXBD (R8), Y1
	VPMOVZXBD (R9), Y2
	ADDQ      $8, R8
	ADDQ      $8, R9
	JMP       chroma

halves:
	VMOVDQU   dup2<>(SB), Y3
	VPMOVZXBD (R8), X1
	VPMOVZXBD (R9), X2
	VPERMD    Y1, Y3, Y1
	VPERMD    Y2, Y3, Y2
	ADDQ      $4, R8
	ADDQ      $4, R9

chroma:
	VPSUBD  k128<>(SB), Y1, Y1 // cb1
	VPSUBD  k128<>(SB), Y2, Y2 // cr1
	VPMULLD kcrR<>(SB), Y2, Y3
	VPADDD  Y0, Y3, Y3 // r
	VPMULLD kcbG<>(SB), Y1, Y4
	VPADDD  Y0, Y4, Y4
	VPMULLD kcrG<>(SB), Y2, Y5
	VPADDD  Y5, Y4, Y4 // g
	VPMULLD kcbB<>(SB), Y1, Y5
	VPADDD  Y0, Y5, Y5 // b
	LIN(Y3)
	LIN(Y4)
	LIN(Y5)

	// Interleave: out[3i+c] is channel c of pixel i; each output vector takes
	// the lanes its pixels need from R, G and B, then blends them.
	ILV(ilvA<>(SB), $0x92, $0x24, 0)
	ILV(ilvB<>(SB), $0x24, $0x49, 32)
	ILV(ilvC<>(SB), $0x49, $0x92, 64)

	ADDQ $8, SI
	ADDQ $96, DI
	SUBQ $8, CX
	JMP  loop

done:
	VZEROUPPER
	RET

DATA dup16<>+0(SB)/4, $0
DATA dup16<>+4(SB)/4, $0
DATA dup16<>+8(SB)/4, $1
DATA dup16<>+12(SB)/4, $1
DATA dup16<>+16(SB)/4, $2
DATA dup16<>+20(SB)/4, $2
DATA dup16<>+24(SB)/4, $3
DATA dup16<>+28(SB)/4, $3
DATA dup16<>+32(SB)/4, $4
DATA dup16<>+36(SB)/4, $4
DATA dup16<>+40(SB)/4, $5
DATA dup16<>+44(SB)/4, $5
DATA dup16<>+48(SB)/4, $6
DATA dup16<>+52(SB)/4, $6
DATA dup16<>+56(SB)/4, $7
DATA dup16<>+60(SB)/4, $7
GLOBL dup16<>(SB), RODATA|NOPTR, $64

DATA rgbpos<>+0(SB)/8, $0x1606251501201000
DATA rgbpos<>+8(SB)/8, $0x000000002b1b0b2a
DATA rgbpos<>+16(SB)/8, $0x2717072612022111
DATA rgbpos<>+24(SB)/8, $0x000000000d2c1c0c
DATA rgbpos<>+32(SB)/8, $0x0928180823130322
DATA rgbpos<>+40(SB)/8, $0x000000001e0e2d1d
DATA rgbpos<>+48(SB)/8, $0x1a0a291905241404
DATA rgbpos<>+56(SB)/8, $0x000000002f1f0f2e
GLOBL rgbpos<>(SB), RODATA|NOPTR, $64

DATA kzero<>+0(SB)/4, $0
GLOBL kzero<>(SB), RODATA|NOPTR, $4

// PLANE(lo0, lo1, hi0, hi1, P): byte plane P of sixteen pixels' lin8 values, from
// the indexes in Z6: the lanes below 128 (K2) from the plane's first 128 entries
// (lo0, lo1), the others (K1) from its last 128, each by a two-table byte permute
// under a mask into a copy of the indexes.
#define PLANE(lo0, lo1, hi0, hi1, P) \
	VMOVDQA64 Z6, P; \
	VPERMI2B  lo1, lo0, K2, P; \
	VPERMI2B  hi1, hi0, K1, P

// func ycbcrLinAVX512(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, planes *uint8)
//
// ycbcrLinAVX2 sixteen pixels at a time, n a multiple of 16, with lin8 in
// registers instead of gathered from: its four byte planes (lin8Planes), 256
// bytes each, in Z16-Z31. The same integer arithmetic and clamp8 give each
// channel's byte; the 48 bytes, put in the order the unpacking below leaves the
// floats in their R, G, B order (rgbpos), index each plane, and the planes are
// unpacked into the floats.
TEXT ·ycbcrLinAVX512(SB), NOSPLIT, $0-56
	MOVQ      dst+0(FP), DI
	MOVQ      y+8(FP), SI
	MOVQ      cb+16(FP), R8
	MOVQ      cr+24(FP), R9
	MOVQ      n+32(FP), CX
	MOVBQZX   pairs+40(FP), DX
	MOVQ      planes+48(FP), R10
	VMOVDQU64 0(R10), Z16
	VMOVDQU64 64(R10), Z17
	VMOVDQU64 128(R10), Z18
	VMOVDQU64 192(R10), Z19
	VMOVDQU64 256(R10), Z20
	VMOVDQU64 320(R10), Z21
	VMOVDQU64 384(R10), Z22
	VMOVDQU64 448(R10), Z23
	VMOVDQU64 512(R10), Z24
	VMOVDQU64 576(R10), Z25
	VMOVDQU64 640(R10), Z26
	VMOVDQU64 704(R10), Z27
	VMOVDQU64 768(R10), Z28
	VMOVDQU64 832(R10), Z29
	VMOVDQU64 896(R10), Z30
	VMOVDQU64 960(R10), Z31
	VMOVDQU64 rgbpos<>(SB), Z15

loop16:
	CMPQ         CX, $16
	JLT          done16
	VPMOVZXBD    (SI), Z0
	VPMULLD.BCST k10101<>(SB), Z0, Z0
	TESTQ        DX, DX
	JNZ          halves16
	VPMOVZXBD    (R8), Z1
	VPMOVZXBD    (R9), Z2
	ADDQ         $16, R8
	ADDQ         $16, R9
	JMP          chroma16

halves16:
	VMOVDQU32 dup16<>(SB), Z3
	VPMOVZXBD (R8), Y1
	VPMOVZXBD (R9), Y2
	VPERMD    Z1, Z3, Z1
	VPERMD    Z2, Z3, Z2
	ADDQ      $8, R8
	ADDQ      $8, R9

chroma16:
	VPSUBD.BCST  k128<>(SB), Z1, Z1 // cb1
	VPSUBD.BCST  k128<>(SB), Z2, Z2 // cr1
	VPMULLD.BCST kcrR<>(SB), Z2, Z3
	VPADDD       Z0, Z3, Z3 // r
	VPMULLD.BCST kcbG<>(SB), Z1, Z4
	VPADDD       Z0, Z4, Z4
	VPMULLD.BCST kcrG<>(SB), Z2, Z5
	VPADDD       Z5, Z4, Z4 // g
	VPMULLD.BCST kcbB<>(SB), Z1, Z5
	VPADDD       Z0, Z5, Z5 // b

	// clamp8: v>>16 held to 0..255 (the narrowing saturates at 255).
	VPSRAD       $16, Z3, Z3
	VPSRAD       $16, Z4, Z4
	VPSRAD       $16, Z5, Z5
	VPMAXSD.BCST kzero<>(SB), Z3, Z3
	VPMAXSD.BCST kzero<>(SB), Z4, Z4
	VPMAXSD.BCST kzero<>(SB), Z5, Z5
	VPMOVUSDB    Z3, X3
	VPMOVUSDB    Z4, X4
	VPMOVUSDB    Z5, X5
	VINSERTI32X4 $1, X4, Z3, Z3
	VINSERTI32X4 $2, X5, Z3, Z3
	VPERMB       Z3, Z15, Z6 // the 48 indexes in rgbpos's order

	VPMOVB2M Z6, K1 // 128..255
	KNOTQ    K1, K2
	PLANE(Z16, Z17, Z18, Z19, Z7)
	PLANE(Z20, Z21, Z22, Z23, Z8)
	PLANE(Z24, Z25, Z26, Z27, Z9)
	PLANE(Z28, Z29, Z30, Z31, Z10)

	// Bytes to floats: within each 128-bit lane, bytes 0-3 of the four planes
	// make Z0's floats, 4-7 Z1's, 8-11 Z2's; rgbpos put there the floats
	// 0-15, 16-31 and 32-47 of the sixteen pixels' triples.
	VPUNPCKLBW Z8, Z7, Z11
	VPUNPCKLBW Z10, Z9, Z12
	VPUNPCKHBW Z8, Z7, Z13
	VPUNPCKHBW Z10, Z9, Z14
	VPUNPCKLWD Z12, Z11, Z0
	VPUNPCKHWD Z12, Z11, Z1
	VPUNPCKLWD Z14, Z13, Z2
	VMOVUPS    Z0, (DI)
	VMOVUPS    Z1, 64(DI)
	VMOVUPS    Z2, 128(DI)

	ADDQ $16, SI
	ADDQ $192, DI
	SUBQ $16, CX
	JMP  loop16

done16:
	VZEROUPPER
	RET
