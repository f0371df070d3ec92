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

DATA wdeR<>+0(SB)/8, $0x0009000600030000
DATA wdeR<>+8(SB)/8, $0x00150012000f000c
DATA wdeR<>+16(SB)/8, $0x0021001e001b0018
DATA wdeR<>+24(SB)/8, $0x002d002a00270024
DATA wdeR<>+32(SB)/8, $0x0000000000000000
DATA wdeR<>+40(SB)/8, $0x0000000000000000
DATA wdeR<>+48(SB)/8, $0x0000000000000000
DATA wdeR<>+56(SB)/8, $0x0000000000000000
GLOBL wdeR<>(SB), RODATA|NOPTR, $64

DATA wdeG<>+0(SB)/8, $0x000a000700040001
DATA wdeG<>+8(SB)/8, $0x001600130010000d
DATA wdeG<>+16(SB)/8, $0x0022001f001c0019
DATA wdeG<>+24(SB)/8, $0x002e002b00280025
DATA wdeG<>+32(SB)/8, $0x0000000000000000
DATA wdeG<>+40(SB)/8, $0x0000000000000000
DATA wdeG<>+48(SB)/8, $0x0000000000000000
DATA wdeG<>+56(SB)/8, $0x0000000000000000
GLOBL wdeG<>(SB), RODATA|NOPTR, $64

DATA wdeB<>+0(SB)/8, $0x000b000800050002
DATA wdeB<>+8(SB)/8, $0x001700140011000e
DATA wdeB<>+16(SB)/8, $0x00230020001d001a
DATA wdeB<>+24(SB)/8, $0x002f002c00290026
DATA wdeB<>+32(SB)/8, $0x0000000000000000
DATA wdeB<>+40(SB)/8, $0x0000000000000000
DATA wdeB<>+48(SB)/8, $0x0000000000000000
DATA wdeB<>+56(SB)/8, $0x0000000000000000
GLOBL wdeB<>(SB), RODATA|NOPTR, $64

DATA w64<>+0(SB)/8, $0x0040004000400040
DATA w64<>+8(SB)/8, $0x0040004000400040
DATA w64<>+16(SB)/8, $0x0040004000400040
DATA w64<>+24(SB)/8, $0x0040004000400040
DATA w64<>+32(SB)/8, $0x0040004000400040
DATA w64<>+40(SB)/8, $0x0040004000400040
DATA w64<>+48(SB)/8, $0x0040004000400040
DATA w64<>+56(SB)/8, $0x0040004000400040
GLOBL w64<>(SB), RODATA|NOPTR, $64

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

// BIT2(U, J, V, K): one step of srgb8Search's binary search on the 32 indexes in
// U, the bits found so far in J, and at once on those in V with their bits in K,
// once their thresholds are in Z12 and Z13: compares each index with its
// threshold and appends the bit (Z14 is all ones, so subtracting it adds one).
// The two searches interleave: each step waits on the one before. Clobbers K1
// and K2.
#define BIT2(U, J, V, K) \
	VPCMPUW $5, Z12, U, K1; \
	VPCMPUW $5, Z13, V, K2; \
	VPADDW  J, J, J; \
	VPADDW  K, K, K; \
	VPSUBW  Z14, J, K1, J; \
	VPSUBW  Z14, K, K2, K

// STEP2(TAB, U, J, V, K): BIT2 with the thresholds the bits pick from the 32-entry
// block TAB.
#define STEP2(TAB, U, J, V, K) \
	VPERMW TAB, J, Z12; \
	VPERMW TAB, K, Z13; \
	BIT2(U, J, V, K)

// STEP2WIDE(T0, T1, U, J, V, K): STEP2 with a block of 64 thresholds, T0 and T1.
#define STEP2WIDE(T0, T1, U, J, V, K) \
	VMOVDQA64 J, Z12; \
	VMOVDQA64 K, Z13; \
	VPERMI2W  T1, T0, Z12; \
	VPERMI2W  T1, T0, Z13; \
	BIT2(U, J, V, K)

// SEARCH2(U, J, V, K): srgb8[U] into J and srgb8[V] into K, for the 32 16-bit
// indexes in each, by the eight steps of srgb8Search (tables in Z20 to Z31); the
// last step's 128 thresholds are two blocks of 64, chosen by the seventh bit.
// Clobbers Z10 to Z13 and K1 to K4.
#define SEARCH2(U, J, V, K) \
	VMOVDQA64 Z20, Z12; \
	VMOVDQA64 Z20, Z13; \
	VPXORD    J, J, J; \
	VPXORD    K, K, K; \
	BIT2(U, J, V, K); \
	STEP2(Z21, U, J, V, K); \
	STEP2(Z22, U, J, V, K); \
	STEP2(Z23, U, J, V, K); \
	STEP2(Z24, U, J, V, K); \
	STEP2(Z25, U, J, V, K); \
	STEP2WIDE(Z26, Z27, U, J, V, K); \
	VMOVDQA64 J, Z10; \
	VMOVDQA64 K, Z11; \
	VMOVDQA64 J, Z12; \
	VMOVDQA64 K, Z13; \
	VPERMI2W  Z29, Z28, Z10; \
	VPERMI2W  Z29, Z28, Z11; \
	VPERMI2W  Z31, Z30, Z12; \
	VPERMI2W  Z31, Z30, Z13; \
	VPTESTMW  w64<>(SB), J, K3; \
	VPTESTMW  w64<>(SB), K, K4; \
	VPBLENDMW Z12, Z10, K3, Z12; \
	VPBLENDMW Z13, Z11, K4, Z13; \
	BIT2(U, J, V, K)

// INDEX(V): the sixteen floats in V as srgb8's indexes, int32: int(v*65535+0.5)
// clamped to [0, 65535], and 65535 where v >= 1 (+Inf too; NaN gives 0), so that
// srgb8[index] is quant8(v). Clobbers K1.
#define INDEX(V) \
	VCMPPS     $0x1d, Z18, V, K1; \
	VMULPS     Z16, V, V; \
	VADDPS     Z17, V, V; \
	VCVTTPS2DQ V, V; \
	VPMAXSD    Z15, V, V; \
	VPMINSD    Z19, V, V; \
	VMOVDQA32  Z19, K1, V

// CHROMA16(kr, kg, kb, SUM): CHROMA for sixteen pixels (r, g, b in Z3, Z4, Z5), the
// eight pair sums added to those at SUM.
#define CHROMA16(kr, kg, kb, SUM) \
	VPMULLD.BCST kr, Z3, Z0; \
	VPMULLD.BCST kg, Z4, Z1; \
	VPADDD       Z1, Z0, Z0; \
	VPMULLD.BCST kb, Z5, Z1; \
	VPADDD       Z1, Z0, Z0; \
	VPADDD.BCST  coff<>(SB), Z0, Z0; \
	VPSRAD       $16, Z0, Z0; \
	VPMAXSD      Z15, Z0, Z0; \
	VPMINSD.BCST iff<>(SB), Z0, Z0; \
	VPSRLQ       $32, Z0, Z1; \
	VPADDD       Z1, Z0, Z0; \
	VPMOVQD      Z0, Y0; \
	VPADDD       (SUM), Y0, Y0; \
	VMOVDQU      Y0, (SUM)

// func ycbcrRowAVX512(px *float32, n int, s *uint16, yrow *uint8, cbSum *int32, crSum *int32)
//
// ycbcrRowAVX2 sixteen pixels at a time (n a multiple of 16), with quant8 done by
// srgb8Search's binary search on 16-bit lanes (s) instead of a gather from srgb8:
// the same bytes and sums.
TEXT ·ycbcrRowAVX512(SB), NOSPLIT, $0-48
	MOVQ px+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+16(FP), R10
	MOVQ yrow+24(FP), DI
	MOVQ cbSum+32(FP), R8
	MOVQ crSum+40(FP), R9
	VMOVDQU16    0(R10), Z20
	VMOVDQU16    64(R10), Z21
	VMOVDQU16    128(R10), Z22
	VMOVDQU16    192(R10), Z23
	VMOVDQU16    256(R10), Z24
	VMOVDQU16    320(R10), Z25
	VMOVDQU16    384(R10), Z26
	VMOVDQU16    448(R10), Z27
	VMOVDQU16    512(R10), Z28
	VMOVDQU16    576(R10), Z29
	VMOVDQU16    640(R10), Z30
	VMOVDQU16    704(R10), Z31
	VBROADCASTSS f65535<>(SB), Z16
	VBROADCASTSS fhalf<>(SB), Z17
	VBROADCASTSS fone<>(SB), Z18
	VPBROADCASTD i65535<>(SB), Z19
	VPXORD       Z15, Z15, Z15
	VPTERNLOGD   $0xff, Z14, Z14, Z14

loop16:
	CMPQ CX, $16
	JLT  done16

	// The 48 values' indexes, as words: values 0 to 31 in Z6, 32 to 47 in Z7.
	VMOVUPS      (SI), Z0
	VMOVUPS      64(SI), Z1
	VMOVUPS      128(SI), Z2
	INDEX(Z0)
	INDEX(Z1)
	INDEX(Z2)
	VPMOVDW      Z0, Y6
	VPMOVDW      Z1, Y1
	VINSERTI64X4 $1, Y1, Z6, Z6
	VPMOVDW      Z2, Y7
	SEARCH2(Z6, Z8, Z7, Z9)

	// De-interleave the levels into r, g, b, sixteen int32 each.
	VMOVDQU16 wdeR<>(SB), Z3
	VPERMI2W  Z9, Z8, Z3
	VPMOVZXWD Y3, Z3
	VMOVDQU16 wdeG<>(SB), Z4
	VPERMI2W  Z9, Z8, Z4
	VPMOVZXWD Y4, Z4
	VMOVDQU16 wdeB<>(SB), Z5
	VPERMI2W  Z9, Z8, Z5
	VPMOVZXWD Y5, Z5

	// Luma: (19595 r + 38470 g + 7471 b + 1<<15) >> 16, sixteen bytes.
	VPMULLD.BCST yr<>(SB), Z3, Z0
	VPMULLD.BCST yg<>(SB), Z4, Z1
	VPADDD       Z1, Z0, Z0
	VPMULLD.BCST yb<>(SB), Z5, Z1
	VPADDD       Z1, Z0, Z0
	VPADDD.BCST  yround<>(SB), Z0, Z0
	VPSRLD       $16, Z0, Z0
	VPMOVDB      Z0, X0
	VMOVDQU      X0, (DI)

	CHROMA16(cbr<>(SB), cbg<>(SB), cbb<>(SB), R8)
	CHROMA16(cbb<>(SB), crg<>(SB), crb<>(SB), R9)

	ADDQ $192, SI
	ADDQ $16, DI
	ADDQ $32, R8
	ADDQ $32, R9
	SUBQ $16, CX
	JMP  loop16

done16:
	VZEROUPPER
	RET
