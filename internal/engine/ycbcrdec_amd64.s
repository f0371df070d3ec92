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
