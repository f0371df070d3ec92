//go:build amd64 && !purego

#include "textflag.h"

// Constants, eight lanes each.
DATA permR<>+0(SB)/4, $0x00000000
DATA permR<>+4(SB)/4, $0x00000003
DATA permR<>+8(SB)/4, $0x00000006
DATA permR<>+12(SB)/4, $0x00000001
DATA permR<>+16(SB)/4, $0x00000004
DATA permR<>+20(SB)/4, $0x00000007
DATA permR<>+24(SB)/4, $0x00000002
DATA permR<>+28(SB)/4, $0x00000005
GLOBL permR<>(SB), RODATA|NOPTR, $32

DATA permG<>+0(SB)/4, $0x00000001
DATA permG<>+4(SB)/4, $0x00000004
DATA permG<>+8(SB)/4, $0x00000007
DATA permG<>+12(SB)/4, $0x00000002
DATA permG<>+16(SB)/4, $0x00000005
DATA permG<>+20(SB)/4, $0x00000000
DATA permG<>+24(SB)/4, $0x00000003
DATA permG<>+28(SB)/4, $0x00000006
GLOBL permG<>(SB), RODATA|NOPTR, $32

DATA permB<>+0(SB)/4, $0x00000002
DATA permB<>+4(SB)/4, $0x00000005
DATA permB<>+8(SB)/4, $0x00000000
DATA permB<>+12(SB)/4, $0x00000003
DATA permB<>+16(SB)/4, $0x00000006
DATA permB<>+20(SB)/4, $0x00000001
DATA permB<>+24(SB)/4, $0x00000004
DATA permB<>+28(SB)/4, $0x00000007
GLOBL permB<>(SB), RODATA|NOPTR, $32

DATA f65535<>+0(SB)/4, $0x477fff00
DATA f65535<>+4(SB)/4, $0x477fff00
DATA f65535<>+8(SB)/4, $0x477fff00
DATA f65535<>+12(SB)/4, $0x477fff00
DATA f65535<>+16(SB)/4, $0x477fff00
DATA f65535<>+20(SB)/4, $0x477fff00
DATA f65535<>+24(SB)/4, $0x477fff00
DATA f65535<>+28(SB)/4, $0x477fff00
GLOBL f65535<>(SB), RODATA|NOPTR, $32

DATA fhalf<>+0(SB)/4, $0x3f000000
DATA fhalf<>+4(SB)/4, $0x3f000000
DATA fhalf<>+8(SB)/4, $0x3f000000
DATA fhalf<>+12(SB)/4, $0x3f000000
DATA fhalf<>+16(SB)/4, $0x3f000000
DATA fhalf<>+20(SB)/4, $0x3f000000
DATA fhalf<>+24(SB)/4, $0x3f000000
DATA fhalf<>+28(SB)/4, $0x3f000000
GLOBL fhalf<>(SB), RODATA|NOPTR, $32

DATA fone<>+0(SB)/4, $0x3f800000
DATA fone<>+4(SB)/4, $0x3f800000
DATA fone<>+8(SB)/4, $0x3f800000
DATA fone<>+12(SB)/4, $0x3f800000
DATA fone<>+16(SB)/4, $0x3f800000
DATA fone<>+20(SB)/4, $0x3f800000
DATA fone<>+24(SB)/4, $0x3f800000
DATA fone<>+28(SB)/4, $0x3f800000
GLOBL fone<>(SB), RODATA|NOPTR, $32

DATA i65535<>+0(SB)/4, $0x0000ffff
DATA i65535<>+4(SB)/4, $0x0000ffff
DATA i65535<>+8(SB)/4, $0x0000ffff
DATA i65535<>+12(SB)/4, $0x0000ffff
DATA i65535<>+16(SB)/4, $0x0000ffff
DATA i65535<>+20(SB)/4, $0x0000ffff
DATA i65535<>+24(SB)/4, $0x0000ffff
DATA i65535<>+28(SB)/4, $0x0000ffff
GLOBL i65535<>(SB), RODATA|NOPTR, $32

DATA iff<>+0(SB)/4, $0x000000ff
DATA iff<>+4(SB)/4, $0x000000ff
DATA iff<>+8(SB)/4, $0x000000ff
DATA iff<>+12(SB)/4, $0x000000ff
DATA iff<>+16(SB)/4, $0x000000ff
DATA iff<>+20(SB)/4, $0x000000ff
DATA iff<>+24(SB)/4, $0x000000ff
DATA iff<>+28(SB)/4, $0x000000ff
GLOBL iff<>(SB), RODATA|NOPTR, $32

DATA yr<>+0(SB)/4, $0x00004c8b
DATA yr<>+4(SB)/4, $0x00004c8b
DATA yr<>+8(SB)/4, $0x00004c8b
DATA yr<>+12(SB)/4, $0x00004c8b
DATA yr<>+16(SB)/4, $0x00004c8b
DATA yr<>+20(SB)/4, $0x00004c8b
DATA yr<>+24(SB)/4, $0x00004c8b
DATA yr<>+28(SB)/4, $0x00004c8b
GLOBL yr<>(SB), RODATA|NOPTR, $32

DATA yg<>+0(SB)/4, $0x00009646
DATA yg<>+4(SB)/4, $0x00009646
DATA yg<>+8(SB)/4, $0x00009646
DATA yg<>+12(SB)/4, $0x00009646
DATA yg<>+16(SB)/4, $0x00009646
DATA yg<>+20(SB)/4, $0x00009646
DATA yg<>+24(SB)/4, $0x00009646
DATA yg<>+28(SB)/4, $0x00009646
GLOBL yg<>(SB), RODATA|NOPTR, $32

DATA yb<>+0(SB)/4, $0x00001d2f
DATA yb<>+4(SB)/4, $0x00001d2f
DATA yb<>+8(SB)/4, $0x00001d2f
DATA yb<>+12(SB)/4, $0x00001d2f
DATA yb<>+16(SB)/4, $0x00001d2f
DATA yb<>+20(SB)/4, $0x00001d2f
DATA yb<>+24(SB)/4, $0x00001d2f
DATA yb<>+28(SB)/4, $0x00001d2f
GLOBL yb<>(SB), RODATA|NOPTR, $32

DATA yround<>+0(SB)/4, $0x00008000
DATA yround<>+4(SB)/4, $0x00008000
DATA yround<>+8(SB)/4, $0x00008000
DATA yround<>+12(SB)/4, $0x00008000
DATA yround<>+16(SB)/4, $0x00008000
DATA yround<>+20(SB)/4, $0x00008000
DATA yround<>+24(SB)/4, $0x00008000
DATA yround<>+28(SB)/4, $0x00008000
GLOBL yround<>(SB), RODATA|NOPTR, $32

DATA cbr<>+0(SB)/4, $0xffffd4d0
DATA cbr<>+4(SB)/4, $0xffffd4d0
DATA cbr<>+8(SB)/4, $0xffffd4d0
DATA cbr<>+12(SB)/4, $0xffffd4d0
DATA cbr<>+16(SB)/4, $0xffffd4d0
DATA cbr<>+20(SB)/4, $0xffffd4d0
DATA cbr<>+24(SB)/4, $0xffffd4d0
DATA cbr<>+28(SB)/4, $0xffffd4d0
GLOBL cbr<>(SB), RODATA|NOPTR, $32

DATA cbg<>+0(SB)/4, $0xffffab30
DATA cbg<>+4(SB)/4, $0xffffab30
DATA cbg<>+8(SB)/4, $0xffffab30
DATA cbg<>+12(SB)/4, $0xffffab30
DATA cbg<>+16(SB)/4, $0xffffab30
DATA cbg<>+20(SB)/4, $0xffffab30
DATA cbg<>+24(SB)/4, $0xffffab30
DATA cbg<>+28(SB)/4, $0xffffab30
GLOBL cbg<>(SB), RODATA|NOPTR, $32

DATA cbb<>+0(SB)/4, $0x00008000
DATA cbb<>+4(SB)/4, $0x00008000
DATA cbb<>+8(SB)/4, $0x00008000
DATA cbb<>+12(SB)/4, $0x00008000
DATA cbb<>+16(SB)/4, $0x00008000
DATA cbb<>+20(SB)/4, $0x00008000
DATA cbb<>+24(SB)/4, $0x00008000
DATA cbb<>+28(SB)/4, $0x00008000
GLOBL cbb<>(SB), RODATA|NOPTR, $32

DATA coff<>+0(SB)/4, $0x00808000
DATA coff<>+4(SB)/4, $0x00808000
DATA coff<>+8(SB)/4, $0x00808000
DATA coff<>+12(SB)/4, $0x00808000
DATA coff<>+16(SB)/4, $0x00808000
DATA coff<>+20(SB)/4, $0x00808000
DATA coff<>+24(SB)/4, $0x00808000
DATA coff<>+28(SB)/4, $0x00808000
GLOBL coff<>(SB), RODATA|NOPTR, $32

DATA crg<>+0(SB)/4, $0xffff94d0
DATA crg<>+4(SB)/4, $0xffff94d0
DATA crg<>+8(SB)/4, $0xffff94d0
DATA crg<>+12(SB)/4, $0xffff94d0
DATA crg<>+16(SB)/4, $0xffff94d0
DATA crg<>+20(SB)/4, $0xffff94d0
DATA crg<>+24(SB)/4, $0xffff94d0
DATA crg<>+28(SB)/4, $0xffff94d0
GLOBL crg<>(SB), RODATA|NOPTR, $32

DATA crb<>+0(SB)/4, $0xffffeb30
DATA crb<>+4(SB)/4, $0xffffeb30
DATA crb<>+8(SB)/4, $0xffffeb30
DATA crb<>+12(SB)/4, $0xffffeb30
DATA crb<>+16(SB)/4, $0xffffeb30
DATA crb<>+20(SB)/4, $0xffffeb30
DATA crb<>+24(SB)/4, $0xffffeb30
DATA crb<>+28(SB)/4, $0xffffeb30
GLOBL crb<>(SB), RODATA|NOPTR, $32

// quant8 of the eight float32 lanes of V, into V as int32 (clobbers Y6 to Y8):
// quant8(t, v) is 0 for v <= 0 or NaN, 255 for v >= 1, else t[int(v*65535+0.5)].
// The product and the sum are VMULPS and VADDPS, rounded as Go rounds them; an
// index past either end is clamped (only values the two tests catch get there), and
// the table is read four bytes at a time (it is padded) and masked to its byte.
#define QUANT(V) \
	VMULPS      Y9, V, Y8; \
	VADDPS      Y10, Y8, Y8; \
	VCVTTPS2DQ  Y8, Y8; \
	VPMAXSD     Y15, Y8, Y8; \
	VPMINSD     Y12, Y8, Y8; \
	VPCMPEQD    Y6, Y6, Y6; \
	VPXOR       Y7, Y7, Y7; \
	VPGATHERDD  Y6, (R10)(Y8*1), Y7; \
	VPAND       Y13, Y7, Y7; \
	VCMPPS      $0x1d, Y11, V, Y6; \
	VBLENDVPS   Y6, Y14, Y7, V

// DEILV(idx, mb, mc, D): one channel of the eight pixels in Y0, Y1, Y2 (a, b, c)
// into D: each permuted by idx, b blended in at the lanes of mask mb and c at mc.
#define DEILV(idx, mb, mc, D) \
	VMOVDQU  idx, Y8; \
	VPERMPS  Y0, Y8, D; \
	VPERMPS  Y1, Y8, Y6; \
	VPERMPS  Y2, Y8, Y7; \
	VBLENDPS mb, Y6, D, D; \
	VBLENDPS mc, Y7, D, D

// CHROMA(kr, kg, kb, SUM): clamp8(kr*r + kg*g + kb*b + 257<<15) of the eight
// pixels in Y3, Y4, Y5, summed over pairs and added to the four sums at SUM.
#define CHROMA(kr, kg, kb, SUM) \
	VPMULLD      kr, Y3, Y0; \
	VPMULLD      kg, Y4, Y1; \
	VPADDD       Y1, Y0, Y0; \
	VPMULLD      kb, Y5, Y1; \
	VPADDD       Y1, Y0, Y0; \
	VPADDD       coff<>(SB), Y0, Y0; \
	VPSRAD       $16, Y0, Y0; \
	VPMAXSD      Y15, Y0, Y0; \
	VPMINSD      Y14, Y0, Y0; \
	VPHADDD      Y0, Y0, Y0; \
	VPERMQ       $0x08, Y0, Y0; \
	VPADDD       (SUM), X0, X0; \
	VMOVDQU      X0, (SUM)

// func ycbcrRowAVX2(px *float32, n int, t *uint8, yrow *uint8, cbSum *int32, crSum *int32)
//
// The pair loop of ycbcr420Rows over n pixels, n a multiple of 8: px holds n RGB
// float triples; yrow gets n luma bytes; cbSum and crSum, n/2 values each, get the
// pairs' clamped chroma added. Integer arithmetic exactly as the Go loop's.
TEXT ·ycbcrRowAVX2(SB), NOSPLIT, $0-48
	MOVQ px+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), R10
	MOVQ yrow+24(FP), DI
	MOVQ cbSum+32(FP), R8
	MOVQ crSum+40(FP), R9
	VMOVDQU f65535<>(SB), Y9
	VMOVDQU fhalf<>(SB), Y10
	VMOVDQU fone<>(SB), Y11
	VMOVDQU i65535<>(SB), Y12
	VMOVDQU iff<>(SB), Y13
	VMOVDQU iff<>(SB), Y14
	VPXOR   Y15, Y15, Y15

loop:
	CMPQ CX, $8
	JLT  done
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2

	// De-interleave: R is lanes 0,3,6 of a, 1,4,7 of b, 2,5 of c, and so on.
	DEILV(permR<>(SB), $0x38, $0xc0, Y3)
	DEILV(permG<>(SB), $0x18, $0xe0, Y4)
	DEILV(permB<>(SB), $0x1c, $0xe0, Y5)

	QUANT(Y3)
	QUANT(Y4)
	QUANT(Y5)

	// Luma: (19595 r + 38470 g + 7471 b + 1<<15) >> 16, eight bytes.
	VPMULLD    yr<>(SB), Y3, Y0
	VPMULLD    yg<>(SB), Y4, Y1
	VPADDD     Y1, Y0, Y0
	VPMULLD    yb<>(SB), Y5, Y1
	VPADDD     Y1, Y0, Y0
	VPADDD     yround<>(SB), Y0, Y0
	VPSRLD     $16, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPACKUSDW  X1, X0, X0
	VPACKUSWB  X0, X0, X0
	MOVQ       X0, (DI)

	// Cb: clamp8(-11056 r - 21712 g + 32768 b + 257<<15), summed over pairs;
	// Cr: clamp8(32768 r - 27440 g - 5328 b + 257<<15).
	CHROMA(cbr<>(SB), cbg<>(SB), cbb<>(SB), R8)
	CHROMA(cbb<>(SB), crg<>(SB), crb<>(SB), R9)

	ADDQ $96, SI
	ADDQ $8, DI
	ADDQ $16, R8
	ADDQ $16, R9
	SUBQ $8, CX
	JMP  loop

done:
	VZEROUPPER
	RET
