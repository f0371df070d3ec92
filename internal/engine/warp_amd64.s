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
// at o(DI) and o+12(DI).
#define PAIR(k0, k1, idx, o) \
	VPEXTRD      k0, X7, R11; \
	LEAQ         (SI)(R11*4), R12; \
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
