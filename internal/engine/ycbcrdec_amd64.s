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

DATA ilvRG0<>+0(SB)/4, $0
DATA ilvRG0<>+4(SB)/4, $16
DATA ilvRG0<>+8(SB)/4, $0
DATA ilvRG0<>+12(SB)/4, $1
DATA ilvRG0<>+16(SB)/4, $17
DATA ilvRG0<>+20(SB)/4, $0
DATA ilvRG0<>+24(SB)/4, $2
DATA ilvRG0<>+28(SB)/4, $18
DATA ilvRG0<>+32(SB)/4, $0
DATA ilvRG0<>+36(SB)/4, $3
DATA ilvRG0<>+40(SB)/4, $19
DATA ilvRG0<>+44(SB)/4, $0
DATA ilvRG0<>+48(SB)/4, $4
DATA ilvRG0<>+52(SB)/4, $20
DATA ilvRG0<>+56(SB)/4, $0
DATA ilvRG0<>+60(SB)/4, $5
GLOBL ilvRG0<>(SB), RODATA|NOPTR, $64

DATA ilvB0<>+0(SB)/4, $0
DATA ilvB0<>+4(SB)/4, $0
DATA ilvB0<>+8(SB)/4, $0
DATA ilvB0<>+12(SB)/4, $1
DATA ilvB0<>+16(SB)/4, $1
DATA ilvB0<>+20(SB)/4, $1
DATA ilvB0<>+24(SB)/4, $2
DATA ilvB0<>+28(SB)/4, $2
DATA ilvB0<>+32(SB)/4, $2
DATA ilvB0<>+36(SB)/4, $3
DATA ilvB0<>+40(SB)/4, $3
DATA ilvB0<>+44(SB)/4, $3
DATA ilvB0<>+48(SB)/4, $4
DATA ilvB0<>+52(SB)/4, $4
DATA ilvB0<>+56(SB)/4, $4
DATA ilvB0<>+60(SB)/4, $5
GLOBL ilvB0<>(SB), RODATA|NOPTR, $64

DATA ilvRG1<>+0(SB)/4, $21
DATA ilvRG1<>+4(SB)/4, $0
DATA ilvRG1<>+8(SB)/4, $6
DATA ilvRG1<>+12(SB)/4, $22
DATA ilvRG1<>+16(SB)/4, $0
DATA ilvRG1<>+20(SB)/4, $7
DATA ilvRG1<>+24(SB)/4, $23
DATA ilvRG1<>+28(SB)/4, $0
DATA ilvRG1<>+32(SB)/4, $8
DATA ilvRG1<>+36(SB)/4, $24
DATA ilvRG1<>+40(SB)/4, $0
DATA ilvRG1<>+44(SB)/4, $9
DATA ilvRG1<>+48(SB)/4, $25
DATA ilvRG1<>+52(SB)/4, $0
DATA ilvRG1<>+56(SB)/4, $10
DATA ilvRG1<>+60(SB)/4, $26
GLOBL ilvRG1<>(SB), RODATA|NOPTR, $64

DATA ilvB1<>+0(SB)/4, $5
DATA ilvB1<>+4(SB)/4, $5
DATA ilvB1<>+8(SB)/4, $6
DATA ilvB1<>+12(SB)/4, $6
DATA ilvB1<>+16(SB)/4, $6
DATA ilvB1<>+20(SB)/4, $7
DATA ilvB1<>+24(SB)/4, $7
DATA ilvB1<>+28(SB)/4, $7
DATA ilvB1<>+32(SB)/4, $8
DATA ilvB1<>+36(SB)/4, $8
DATA ilvB1<>+40(SB)/4, $8
DATA ilvB1<>+44(SB)/4, $9
DATA ilvB1<>+48(SB)/4, $9
DATA ilvB1<>+52(SB)/4, $9
DATA ilvB1<>+56(SB)/4, $10
DATA ilvB1<>+60(SB)/4, $10
GLOBL ilvB1<>(SB), RODATA|NOPTR, $64

DATA ilvRG2<>+0(SB)/4, $0
DATA ilvRG2<>+4(SB)/4, $11
DATA ilvRG2<>+8(SB)/4, $27
DATA ilvRG2<>+12(SB)/4, $0
DATA ilvRG2<>+16(SB)/4, $12
DATA ilvRG2<>+20(SB)/4, $28
DATA ilvRG2<>+24(SB)/4, $0
DATA ilvRG2<>+28(SB)/4, $13
DATA ilvRG2<>+32(SB)/4, $29
DATA ilvRG2<>+36(SB)/4, $0
DATA ilvRG2<>+40(SB)/4, $14
DATA ilvRG2<>+44(SB)/4, $30
DATA ilvRG2<>+48(SB)/4, $0
DATA ilvRG2<>+52(SB)/4, $15
DATA ilvRG2<>+56(SB)/4, $31
DATA ilvRG2<>+60(SB)/4, $0
GLOBL ilvRG2<>(SB), RODATA|NOPTR, $64

DATA ilvB2<>+0(SB)/4, $10
DATA ilvB2<>+4(SB)/4, $11
DATA ilvB2<>+8(SB)/4, $11
DATA ilvB2<>+12(SB)/4, $11
DATA ilvB2<>+16(SB)/4, $12
DATA ilvB2<>+20(SB)/4, $12
DATA ilvB2<>+24(SB)/4, $12
DATA ilvB2<>+28(SB)/4, $13
DATA ilvB2<>+32(SB)/4, $13
DATA ilvB2<>+36(SB)/4, $13
DATA ilvB2<>+40(SB)/4, $14
DATA ilvB2<>+44(SB)/4, $14
DATA ilvB2<>+48(SB)/4, $14
DATA ilvB2<>+52(SB)/4, $15
DATA ilvB2<>+56(SB)/4, $15
DATA ilvB2<>+60(SB)/4, $15
GLOBL ilvB2<>(SB), RODATA|NOPTR, $64

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

DATA linj<>+0(SB)/4, $0
DATA linj<>+4(SB)/4, $1
DATA linj<>+8(SB)/4, $2
DATA linj<>+12(SB)/4, $3
DATA linj<>+16(SB)/4, $4
DATA linj<>+20(SB)/4, $5
DATA linj<>+24(SB)/4, $6
DATA linj<>+28(SB)/4, $7
GLOBL linj<>(SB), RODATA|NOPTR, $32
// LIN512(V): V holds sixteen 16.16 fixed-point channel values; clamp8 them and look
// each up in lin8, held in Z16-Z31 (entries 32j..32j+31 in Z(16+2j) and Z(17+2j)):
// the lanes whose value is in that range take it from there, by a permute under a
// mask, eight in all. Clobbers Z6 and K1.
#define LIN512(V) \
	VPSRAD        $16, V, V; \
	VPMAXSD       Z8, V, V; \
	VPMINSD       Z9, V, V; \
	VPSRLD        $5, V, Z6; \
	VPCMPEQD.BCST linj<>+0(SB), Z6, K1; \
	VPERMI2PS     Z17, Z16, K1, V; \
	VPCMPEQD.BCST linj<>+4(SB), Z6, K1; \
	VPERMI2PS     Z19, Z18, K1, V; \
	VPCMPEQD.BCST linj<>+8(SB), Z6, K1; \
	VPERMI2PS     Z21, Z20, K1, V; \
	VPCMPEQD.BCST linj<>+12(SB), Z6, K1; \
	VPERMI2PS     Z23, Z22, K1, V; \
	VPCMPEQD.BCST linj<>+16(SB), Z6, K1; \
	VPERMI2PS     Z25, Z24, K1, V; \
	VPCMPEQD.BCST linj<>+20(SB), Z6, K1; \
	VPERMI2PS     Z27, Z26, K1, V; \
	VPCMPEQD.BCST linj<>+24(SB), Z6, K1; \
	VPERMI2PS     Z29, Z28, K1, V; \
	VPCMPEQD.BCST linj<>+28(SB), Z6, K1; \
	VPERMI2PS     Z31, Z30, K1, V

// ILV512(rg, b, mask, o): one of the three output vectors of sixteen pixels' RGB
// triples, at o(DI): its R (Z3) and G (Z4) lanes by a two-table permute with
// indexes rg, its B (Z5) lanes by a permute with indexes b under mask.
#define ILV512(rg, b, mask, o) \
	VMOVDQU32 rg, Z6; \
	VPERMI2PS Z4, Z3, Z6; \
	VMOVDQU32 b, Z7; \
	VPERMPS   Z5, Z7, mask, Z6; \
	VMOVUPS   Z6, o(DI)

// func ycbcrLinAVX512(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, lin *float32)
//
// ycbcrLinAVX2 sixteen pixels at a time, n a multiple of 16, the table in registers
// instead of gathered from: the same integer arithmetic, so the same values.
TEXT ·ycbcrLinAVX512(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         y+8(FP), SI
	MOVQ         cb+16(FP), R8
	MOVQ         cr+24(FP), R9
	MOVQ         n+32(FP), CX
	MOVBQZX      pairs+40(FP), DX
	MOVQ         lin+48(FP), R10
	VMOVUPS      0(R10), Z16
	VMOVUPS      64(R10), Z17
	VMOVUPS      128(R10), Z18
	VMOVUPS      192(R10), Z19
	VMOVUPS      256(R10), Z20
	VMOVUPS      320(R10), Z21
	VMOVUPS      384(R10), Z22
	VMOVUPS      448(R10), Z23
	VMOVUPS      512(R10), Z24
	VMOVUPS      576(R10), Z25
	VMOVUPS      640(R10), Z26
	VMOVUPS      704(R10), Z27
	VMOVUPS      768(R10), Z28
	VMOVUPS      832(R10), Z29
	VMOVUPS      896(R10), Z30
	VMOVUPS      960(R10), Z31
	VPXORD       Z8, Z8, Z8
	VPBROADCASTD k255<>(SB), Z9
	VPBROADCASTD k10101<>(SB), Z10
	VPBROADCASTD k128<>(SB), Z11
	VPBROADCASTD kcrR<>(SB), Z12
	VPBROADCASTD kcbG<>(SB), Z13
	VPBROADCASTD kcrG<>(SB), Z14
	VPBROADCASTD kcbB<>(SB), Z15
	MOVL         $0x4924, AX
	KMOVW        AX, K3
	MOVL         $0x2492, AX
	KMOVW        AX, K4
	MOVL         $0x9249, AX
	KMOVW        AX, K5

loop16:
	CMPQ      CX, $16
	JLT       done16
	VPMOVZXBD (SI), Z0
	VPMULLD   Z10, Z0, Z0
	TESTQ     DX, DX
	JNZ       halves16
	VPMOVZXBD (R8), Z1
	VPMOVZXBD (R9), Z2
	ADDQ      $16, R8
	ADDQ      $16, R9
	JMP       chroma16

halves16:
	VMOVDQU32 dup16<>(SB), Z3
	VPMOVZXBD (R8), Y1
	VPMOVZXBD (R9), Y2
	VPERMD    Z1, Z3, Z1
	VPERMD    Z2, Z3, Z2
	ADDQ      $8, R8
	ADDQ      $8, R9

chroma16:
	VPSUBD  Z11, Z1, Z1 // cb1
	VPSUBD  Z11, Z2, Z2 // cr1
	VPMULLD Z12, Z2, Z3
	VPADDD  Z0, Z3, Z3 // r
	VPMULLD Z13, Z1, Z4
	VPADDD  Z0, Z4, Z4
	VPMULLD Z14, Z2, Z5
	VPADDD  Z5, Z4, Z4 // g
	VPMULLD Z15, Z1, Z5
	VPADDD  Z0, Z5, Z5 // b
	LIN512(Z3)
	LIN512(Z4)
	LIN512(Z5)
	ILV512(ilvRG0<>(SB), ilvB0<>(SB), K3, 0)
	ILV512(ilvRG1<>(SB), ilvB1<>(SB), K4, 64)
	ILV512(ilvRG2<>(SB), ilvB2<>(SB), K5, 128)

	ADDQ $16, SI
	ADDQ $192, DI
	SUBQ $16, CX
	JMP  loop16

done16:
	VZEROUPPER
	RET
