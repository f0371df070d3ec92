//go:build amd64 && !purego

#include "textflag.h"

DATA iotad<>+0(SB)/8, $0x0000000000000000
DATA iotad<>+8(SB)/8, $0x3ff0000000000000
DATA iotad<>+16(SB)/8, $0x4000000000000000
DATA iotad<>+24(SB)/8, $0x4008000000000000
GLOBL iotad<>(SB), RODATA|NOPTR, $32

DATA fourd<>+0(SB)/8, $0x4010000000000000
DATA fourd<>+8(SB)/8, $0x4010000000000000
DATA fourd<>+16(SB)/8, $0x4010000000000000
DATA fourd<>+24(SB)/8, $0x4010000000000000
GLOBL fourd<>(SB), RODATA|NOPTR, $32

DATA halfd<>+0(SB)/8, $0x3fe0000000000000
DATA halfd<>+8(SB)/8, $0x3fe0000000000000
DATA halfd<>+16(SB)/8, $0x3fe0000000000000
DATA halfd<>+24(SB)/8, $0x3fe0000000000000
GLOBL halfd<>(SB), RODATA|NOPTR, $32

DATA oned<>+0(SB)/8, $0x3ff0000000000000
DATA oned<>+8(SB)/8, $0x3ff0000000000000
DATA oned<>+16(SB)/8, $0x3ff0000000000000
DATA oned<>+24(SB)/8, $0x3ff0000000000000
GLOBL oned<>(SB), RODATA|NOPTR, $32

DATA onef<>+0(SB)/4, $0x3f800000
DATA onef<>+4(SB)/4, $0x3f800000
DATA onef<>+8(SB)/4, $0x3f800000
DATA onef<>+12(SB)/4, $0x3f800000
GLOBL onef<>(SB), RODATA|NOPTR, $16

DATA pair01<>+0(SB)/4, $0
DATA pair01<>+4(SB)/4, $0
DATA pair01<>+8(SB)/4, $0
DATA pair01<>+12(SB)/4, $0
DATA pair01<>+16(SB)/4, $1
DATA pair01<>+20(SB)/4, $1
DATA pair01<>+24(SB)/4, $1
DATA pair01<>+28(SB)/4, $1
GLOBL pair01<>(SB), RODATA|NOPTR, $32

// PAIR(k0, k1, idx, o): pixels k0 and k1 of a group, one in each 128-bit half:
// their taps at base lanes k0 and k1 of X7, their weights lanes k0 and k1 of X8
// (ax), X10 (bx), X9 (ay), X11 (by), spread by the index register idx (Y12 for
// pixels 0 and 1, Y13 for 2 and 3);
// sampleLinearRect's arithmetic with the three channels in the lanes of each half
// (the fourth is never stored; every load stays within a row's two taps), written
// at o(DI) and o+12(DI). It prefetches where pixel k0 reads two rows down (R15,
// affineParams.ahead).
#define PAIR(k0, k1, idx, o) \
	VPEXTRD      k0, X7, R11; \
	LEAQ         (SI)(R11*4), R12; \
	PREFETCHT0   (R12)(R15*1); \
	VPEXTRD      k1, X7, R11; \
	LEAQ         (SI)(R11*4), BX; \
	VMOVUPS      (R12), X0; \
	VINSERTF128  $1, (BX), Y0, Y0; \
	VMOVUPS      8(R12), X1; \
	VINSERTF128  $1, 8(BX), Y1, Y1; \
	VPSRLDQ      $4, Y1, Y1; \
	VMOVUPS      (R12)(R13*1), X2; \
	VINSERTF128  $1, (BX)(R13*1), Y2, Y2; \
	VMOVUPS      8(R12)(R13*1), X3; \
	VINSERTF128  $1, 8(BX)(R13*1), Y3, Y3; \
	VPSRLDQ      $4, Y3, Y3; \
	VPERMPS      Y8, idx, Y4; \
	VPERMPS      Y10, idx, Y5; \
	VMULPS       Y5, Y0, Y0; \
	VMULPS       Y4, Y1, Y1; \
	VADDPS       Y1, Y0, Y0; \
	VMULPS       Y5, Y2, Y2; \
	VMULPS       Y4, Y3, Y3; \
	VADDPS       Y3, Y2, Y2; \
	VPERMPS      Y9, idx, Y4; \
	VPERMPS      Y11, idx, Y5; \
	VMULPS       Y5, Y0, Y0; \
	VMULPS       Y4, Y2, Y2; \
	VADDPS       Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VMOVQ        X0, o(DI); \
	VEXTRACTPS   $2, X0, o+8(DI); \
	VMOVQ        X1, o+12(DI); \
	VEXTRACTPS   $2, X1, o+20(DI)

// func warpAffineAVX2(dst *float32, src *float32, n int, xs float64, p *affineParams, skip *int32) int
//
// Samples the n pixels (n a multiple of 4) of one output row of a bilinear affine
// warp, four at a time, from pixel centre xs on: each position with the Go loop's
// float64 arithmetic in its order ((x-ox)-ox2, then a*px + b*py + e less 0.5,
// clamped in edge mode, floored), and when all four pixels' taps lie inside the
// input and inside src (0 <= base <= lim) their colours as sampleLinearRect makes
// them. A group that does not qualify is left for the Go loop: its first pixel's
// index goes to skip. Returns how many went there. With p.xm or p.ym set, the
// input it samples is src mirrored on that axis (see warpInfo.flipH).
TEXT ·warpAffineAVX2(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         p+32(FP), R8
	MOVQ         skip+40(FP), R9
	XORQ         R10, R10 // groups skipped
	XORQ         DX, DX   // index of the group's first pixel
	MOVQ         112(R8), R13
	IMULQ        $12, R13 // a row of the input, in bytes
	MOVQ         152(R8), R15 // ahead: prefetched for a row two rows down
	VBROADCASTSD xs+24(FP), Y15
	VADDPD       iotad<>(SB), Y15, Y15
	VMOVUPD      fourd<>(SB), Y14
	VMOVDQU      pair01<>(SB), Y12 // lanes 0 0 0 0 1 1 1 1
	MOVL         $2, AX
	MOVQ         AX, X13
	VPBROADCASTD X13, Y13
	VPADDD       Y12, Y13, Y13     // lanes 2 2 2 2 3 3 3 3

loop:
	CMPQ CX, $4
	JLT  done

	// px, then sx in Y2 and sy in Y3.
	VBROADCASTSD 0(R8), Y0
	VSUBPD       Y0, Y15, Y1
	VBROADCASTSD 8(R8), Y0
	VSUBPD       Y0, Y1, Y1
	VBROADCASTSD 16(R8), Y0
	VMULPD       Y0, Y1, Y2
	VBROADCASTSD 32(R8), Y0
	VADDPD       Y0, Y2, Y2
	VBROADCASTSD 48(R8), Y0
	VADDPD       Y0, Y2, Y2
	VSUBPD       halfd<>(SB), Y2, Y2
	VBROADCASTSD 24(R8), Y0
	VMULPD       Y0, Y1, Y3
	VBROADCASTSD 40(R8), Y0
	VADDPD       Y0, Y3, Y3
	VBROADCASTSD 56(R8), Y0
	VADDPD       Y0, Y3, Y3
	VSUBPD       halfd<>(SB), Y3, Y3

	// Edge mode: min(max(s, 0), n-1); max gives +0 for -0, as Go's max does.
	CMPQ         128(R8), $0
	JEQ          floor
	VXORPD       Y0, Y0, Y0
	VMAXPD       Y0, Y2, Y2
	VMAXPD       Y0, Y3, Y3
	VBROADCASTSD 64(R8), Y0
	VMINPD       Y0, Y2, Y2
	VBROADCASTSD 72(R8), Y0
	VMINPD       Y0, Y3, Y3

floor:
	VROUNDPD $9, Y2, Y4 // fx
	VROUNDPD $9, Y3, Y5 // fy

	// Inside: fx >= 0, fy >= 0, fx+1 < w, fy+1 < h, for all four.
	VXORPD       Y0, Y0, Y0
	VCMPPD       $0x1d, Y0, Y4, Y1
	VCMPPD       $0x1d, Y0, Y5, Y0
	VANDPD       Y0, Y1, Y1
	VADDPD       oned<>(SB), Y4, Y0
	VBROADCASTSD 80(R8), Y6
	VCMPPD       $0x11, Y6, Y0, Y0
	VANDPD       Y0, Y1, Y1
	VADDPD       oned<>(SB), Y5, Y0
	VBROADCASTSD 88(R8), Y6
	VCMPPD       $0x11, Y6, Y0, Y0
	VANDPD       Y0, Y1, Y1
	VMOVMSKPD    Y1, AX
	CMPQ         AX, $15
	JNE          outside

	// base = 3*((iy-y0)*inW + (ix-x0)), in X7, checked against 0 and lim; a
	// mirrored axis (xm or ym -1, x0 or y0 then 1-n) reads its pair of taps from
	// n-2-i instead of i, which is (i XOR -1) - (1-n).
	VCVTTPD2DQY  Y4, X6
	VCVTTPD2DQY  Y5, X7
	VPBROADCASTD 144(R8), X0
	VPXOR        X0, X7, X7
	VPBROADCASTD 104(R8), X0
	VPSUBD       X0, X7, X7
	VPBROADCASTD 112(R8), X0
	VPMULLD      X0, X7, X7
	VPBROADCASTD 136(R8), X0
	VPXOR        X0, X6, X6
	VPBROADCASTD 96(R8), X0
	VPSUBD       X0, X6, X6
	VPADDD       X6, X7, X7
	VPADDD       X7, X7, X6
	VPADDD       X6, X7, X7
	VPXOR        X0, X0, X0
	VPCMPGTD     X7, X0, X1
	VPBROADCASTD 120(R8), X0
	VPCMPGTD     X0, X7, X6
	VPOR         X6, X1, X1
	VPTEST       X1, X1
	JNZ          skipgroup

	// Weights: ax, ay rounded to float32 from the float64 fractions; bx, by.
	VSUBPD     Y4, Y2, Y2
	VCVTPD2PSY Y2, X8
	VSUBPD     Y5, Y3, Y3
	VCVTPD2PSY Y3, X9
	VMOVUPS    onef<>(SB), X10
	VSUBPS     X8, X10, X10
	VMOVUPS    onef<>(SB), X11
	VSUBPS     X9, X11, X11

	// A mirrored axis has its taps the other way round: their weights swap, and
	// each product and sum is the same (the sums' order does not change a sum of
	// two).
	CMPQ    136(R8), $0
	JEQ     swapy
	VMOVAPS X8, X0
	VMOVAPS X10, X8
	VMOVAPS X0, X10

swapy:
	CMPQ    144(R8), $0
	JEQ     pairs
	VMOVAPS X9, X0
	VMOVAPS X11, X9
	VMOVAPS X0, X11

pairs:
	PAIR($0, $1, Y12, 0)
	PAIR($2, $3, Y13, 24)

next:
	ADDQ   $48, DI
	VADDPD Y14, Y15, Y15
	ADDQ   $4, DX
	SUBQ   $4, CX
	JMP    loop

	// In constant mode a pixel whose taps all fall outside the input (fx+1 < 0,
	// fx >= w, fy+1 < 0 or fy >= h) is black, +0 as sampleLinearRect makes it: a
	// group of four such, the corners a rotation uncovers, is written here.
outside:
	CMPQ         128(R8), $0
	JNE          skipgroup
	VXORPD       Y6, Y6, Y6
	VADDPD       oned<>(SB), Y4, Y0
	VCMPPD       $0x11, Y6, Y0, Y1
	VADDPD       oned<>(SB), Y5, Y0
	VCMPPD       $0x11, Y6, Y0, Y0
	VORPD        Y0, Y1, Y1
	VBROADCASTSD 80(R8), Y6
	VCMPPD       $0x1d, Y6, Y4, Y0
	VORPD        Y0, Y1, Y1
	VBROADCASTSD 88(R8), Y6
	VCMPPD       $0x1d, Y6, Y5, Y0
	VORPD        Y0, Y1, Y1
	VMOVMSKPD    Y1, AX
	CMPQ         AX, $15
	JNE          skipgroup
	VXORPS       Y0, Y0, Y0
	VMOVUPS      Y0, (DI)
	VMOVUPS      X0, 32(DI)
	JMP          next

skipgroup:
	MOVL DX, (R9)(R10*4)
	INCQ R10
	JMP  next

done:
	VZEROUPPER
	MOVQ R10, ret+48(FP)
	RET

DATA iota8d<>+0(SB)/8, $0x0000000000000000
DATA iota8d<>+8(SB)/8, $0x3ff0000000000000
DATA iota8d<>+16(SB)/8, $0x4000000000000000
DATA iota8d<>+24(SB)/8, $0x4008000000000000
DATA iota8d<>+32(SB)/8, $0x4010000000000000
DATA iota8d<>+40(SB)/8, $0x4014000000000000
DATA iota8d<>+48(SB)/8, $0x4018000000000000
DATA iota8d<>+56(SB)/8, $0x401c000000000000
GLOBL iota8d<>(SB), RODATA|NOPTR, $64

DATA eightd<>+0(SB)/8, $0x4020000000000000
GLOBL eightd<>(SB), RODATA|NOPTR, $8

// PIX(w, o): the pixel whose tap offset is at 128+w(SP) and weights at w(SP) (ax),
// 32+w(SP) (bx), 64+w(SP) (ay) and 96+w(SP) (by), in X0: sampleLinearRect's
// arithmetic with the three channels in the low lanes (the fourth, read one float
// past the taps, is never kept). The caller stores it at o(DI).
#define PIX(w) \
	MOVL         128+w(SP), R11; \
	LEAQ         (SI)(R11*4), R12; \
	VBROADCASTSS 32+w(SP), X4; \
	VBROADCASTSS w(SP), X5; \
	VMULPS       (R12), X4, X0; \
	VMULPS       12(R12), X5, X1; \
	VADDPS       X1, X0, X0; \
	VMULPS       (R12)(R13*1), X4, X2; \
	VMULPS       12(R12)(R13*1), X5, X3; \
	VADDPS       X3, X2, X2; \
	VBROADCASTSS 96+w(SP), X4; \
	VBROADCASTSS 64+w(SP), X5; \
	VMULPS       X4, X0, X0; \
	VMULPS       X5, X2, X2; \
	VADDPS       X2, X0, X0

// STORE16 writes X0's four lanes at o(DI): the pixel and the first channel of the
// next, which the loop or the Go loop after it writes later.
#define STORE16(o) \
	VMOVUPS X0, o(DI)

// STORE12 writes the pixel in X0 at o(DI) and nothing past it.
#define STORE12(o) \
	VMOVQ      X0, o(DI); \
	VEXTRACTPS $2, X0, o+8(DI)

// func warpAffineAVX512(dst *float32, src *float32, n int, xs float64, p *affineParams, skip *int32) int
//
// warpAffineAVX2 eight pixels at a time (n a multiple of 8): the positions in
// 512-bit lanes, then each pixel in its own 128-bit register, with no shuffles. A
// half of four that does not qualify is left for the Go loop as the AVX2 loop
// leaves a group. The loads read one float past a pixel's two taps in a row, which
// lim allows for. Every other pixel prefetches where it reads two rows down.
TEXT ·warpAffineAVX512(SB), NOSPLIT, $160-56
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         p+32(FP), R8
	MOVQ         skip+40(FP), R9
	XORQ         R10, R10 // halves skipped
	XORQ         DX, DX   // index of the group's first pixel
	MOVQ         112(R8), R13
	IMULQ        $12, R13 // a row of the input, in bytes
	VBROADCASTSD xs+24(FP), Z15
	VADDPD       iota8d<>(SB), Z15, Z15
	VBROADCASTSD eightd<>(SB), Z14
	VBROADCASTSD 0(R8), Z16  // ox
	VBROADCASTSD 8(R8), Z17  // ox2
	VBROADCASTSD 16(R8), Z18 // a
	VBROADCASTSD 24(R8), Z19 // c
	VBROADCASTSD 32(R8), Z20 // bpy
	VBROADCASTSD 40(R8), Z21 // dpy
	VBROADCASTSD 48(R8), Z22 // e
	VBROADCASTSD 56(R8), Z23 // f
	VBROADCASTSD halfd<>(SB), Z24
	VBROADCASTSD 64(R8), Z25 // fwm1
	VBROADCASTSD 72(R8), Z26 // fhm1
	VBROADCASTSD oned<>(SB), Z27
	VBROADCASTSD 80(R8), Z28 // fw
	VBROADCASTSD 88(R8), Z29 // fh
	VPXORQ       Z30, Z30, Z30
	VBROADCASTSS onef<>(SB), Z31
	VPBROADCASTD 144(R8), Y8  // ym
	VPBROADCASTD 104(R8), Y9  // y0
	VPBROADCASTD 112(R8), Y10 // inW
	VPBROADCASTD 136(R8), Y11 // xm
	VPBROADCASTD 96(R8), Y12  // x0
	VPBROADCASTD 120(R8), Y13 // lim
	MOVQ         152(R8), R15 // ahead

loop8:
	CMPQ CX, $8
	JLT  done8

	// px, then sx in Z2 and sy in Z3, in the Go loop's order.
	VSUBPD Z16, Z15, Z1
	VSUBPD Z17, Z1, Z1
	VMULPD Z18, Z1, Z2
	VADDPD Z20, Z2, Z2
	VADDPD Z22, Z2, Z2
	VSUBPD Z24, Z2, Z2
	VMULPD Z19, Z1, Z3
	VADDPD Z21, Z3, Z3
	VADDPD Z23, Z3, Z3
	VSUBPD Z24, Z3, Z3

	CMPQ   128(R8), $0
	JEQ    floor8
	VMAXPD Z30, Z2, Z2
	VMAXPD Z30, Z3, Z3
	VMINPD Z25, Z2, Z2
	VMINPD Z26, Z3, Z3

floor8:
	VRNDSCALEPD $9, Z2, Z4 // fx
	VRNDSCALEPD $9, Z3, Z5 // fy

	// BX: the pixels whose taps lie inside: fx >= 0, fy >= 0, fx+1 < w, fy+1 < h,
	// and 0 <= base <= lim.
	VCMPPD $0x1d, Z30, Z4, K1
	VCMPPD $0x1d, Z30, Z5, K2
	KANDW  K2, K1, K1
	VADDPD Z27, Z4, Z0
	VCMPPD $0x11, Z28, Z0, K2
	KANDW  K2, K1, K1
	VADDPD Z27, Z5, Z0
	VCMPPD $0x11, Z29, Z0, K2
	KANDW  K2, K1, K1
	KMOVW  K1, BX

	VCVTTPD2DQ Z4, Y6
	VCVTTPD2DQ Z5, Y7
	VPXOR      Y8, Y7, Y7
	VPSUBD     Y9, Y7, Y7
	VPMULLD    Y10, Y7, Y7
	VPXOR      Y11, Y6, Y6
	VPSUBD     Y12, Y6, Y6
	VPADDD     Y6, Y7, Y7
	VPADDD     Y7, Y7, Y6
	VPADDD     Y6, Y7, Y7
	VPXOR      Y0, Y0, Y0
	VPCMPGTD   Y7, Y0, Y1
	VPCMPGTD   Y13, Y7, Y0
	VPOR       Y0, Y1, Y1
	VMOVMSKPS  Y1, AX
	NOTL       AX
	ANDL       AX, BX
	VMOVDQU    Y7, 128(SP)

	// Weights, stored swapped on a mirrored axis (see warpAffineAVX2).
	VSUBPD     Z4, Z2, Z2
	VCVTPD2PS  Z2, Y2 // ax
	VSUBPD     Z5, Z3, Z3
	VCVTPD2PS  Z3, Y3 // ay
	VSUBPS     Z2, Z31, Z0 // bx
	VSUBPS     Z3, Z31, Z1 // by
	CMPQ       136(R8), $0
	JNE        xmirror
	VMOVUPS    Y2, 0(SP)
	VMOVUPS    Y0, 32(SP)
	JMP        yweights

xmirror:
	VMOVUPS Y0, 0(SP)
	VMOVUPS Y2, 32(SP)

yweights:
	CMPQ    144(R8), $0
	JNE     ymirror
	VMOVUPS Y3, 64(SP)
	VMOVUPS Y1, 96(SP)
	JMP     outside8

ymirror:
	VMOVUPS Y1, 64(SP)
	VMOVUPS Y3, 96(SP)

	// R14: in constant mode, the pixels whose taps all fall outside the input
	// (fx+1 < 0, fx >= w, fy+1 < 0 or fy >= h), black.
outside8:
	XORQ   R14, R14
	CMPL   BX, $0xff
	JEQ    half0
	CMPQ   128(R8), $0
	JNE    half0
	VADDPD Z27, Z4, Z0
	VCMPPD $0x11, Z30, Z0, K1
	VADDPD Z27, Z5, Z0
	VCMPPD $0x11, Z30, Z0, K2
	KORW   K2, K1, K1
	VCMPPD $0x1d, Z28, Z4, K2
	KORW   K2, K1, K1
	VCMPPD $0x1d, Z29, Z5, K2
	KORW   K2, K1, K1
	KMOVW  K1, R14

half0:
	MOVL BX, AX
	ANDL $15, AX
	CMPL AX, $15
	JNE  half0not
	PIX(0)
	PREFETCHT0 (R12)(R15*1)
	STORE16(0)
	PIX(4)
	STORE16(12)
	PIX(8)
	PREFETCHT0 (R12)(R15*1)
	STORE16(24)
	PIX(12)
	STORE16(36)
	JMP  half1

half0not:
	MOVL    R14, AX
	ANDL    $15, AX
	CMPL    AX, $15
	JNE     half0skip
	VXORPS  Y0, Y0, Y0
	VMOVUPS Y0, (DI)
	VMOVUPS X0, 32(DI)
	JMP     half1

half0skip:
	MOVL DX, (R9)(R10*4)
	INCQ R10

half1:
	MOVL BX, AX
	SHRL $4, AX
	ANDL $15, AX
	CMPL AX, $15
	JNE  half1not
	PIX(16)
	PREFETCHT0 (R12)(R15*1)
	STORE16(48)
	PIX(20)
	STORE16(60)
	PIX(24)
	PREFETCHT0 (R12)(R15*1)
	STORE16(72)
	PIX(28)
	STORE12(84)
	JMP  next8

half1not:
	MOVL    R14, AX
	SHRL    $4, AX
	ANDL    $15, AX
	CMPL    AX, $15
	JNE     half1skip
	VXORPS  Y0, Y0, Y0
	VMOVUPS Y0, 48(DI)
	VMOVUPS X0, 80(DI)
	JMP     next8

half1skip:
	LEAL 4(DX), AX
	MOVL AX, (R9)(R10*4)
	INCQ R10

next8:
	ADDQ   $96, DI
	VADDPD Z14, Z15, Z15
	ADDQ   $8, DX
	SUBQ   $8, CX
	JMP    loop8

done8:
	VZEROUPPER
	MOVQ R10, ret+48(FP)
	RET
