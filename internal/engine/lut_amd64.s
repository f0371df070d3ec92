//go:build amd64 && !purego

#include "textflag.h"

// func lutApplyAVX2(dst *float32, src *float32, n int, bins *lutBin, off int, last int)
//
// dst[i] = fnLUT.at(src[i]) for n values, n a multiple of 8: the bin index from the
// value's bits (bits>>16 less off, arithmetic shift, held to 0..last), and
// a + (v-x)*s, each operation rounded as the Go code rounds it. Two gathers, not
// three: each fetches four bins' (a, s) pairs as 64-bit items, and x, the start of
// the value's bin, is the value's own bits with the low 16 cleared (newFnLUT's bin
// edges), except below bin 1, where it is 0, and past the last bin, where it is the
// last bin's x: the very values the bins hold.
TEXT ·lutApplyAVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         bins+24(FP), R8
	VPBROADCASTD off+32(FP), Y14
	VPBROADCASTD last+40(FP), Y15
	VPXOR        Y13, Y13, Y13
	MOVL         $0xffff0000, AX
	MOVQ         AX, X12
	VPBROADCASTD X12, Y12
	MOVQ         last+40(FP), R9
	LEAQ         (R9)(R9*2), R9
	VBROADCASTSS (R8)(R9*4), Y11 // the last bin's x

loop:
	CMPQ CX, $8
	JLT  done
	VMOVUPS  (SI), Y0
	VPSRAD   $16, Y0, Y1
	VPSUBD   Y14, Y1, Y1   // the bin index, unclamped
	VPMAXSD  Y13, Y1, Y6
	VPMINSD  Y15, Y6, Y6   // held to 0..last
	VPAND    Y12, Y0, Y2   // x: the bits of the bin's start
	VPCMPGTD Y13, Y1, Y7
	VPAND    Y7, Y2, Y2    // 0 at and below bin 0
	VPCMPGTD Y15, Y1, Y8
	VBLENDVPS Y8, Y11, Y2, Y2 // the last bin's x past it
	VPSLLD   $2, Y6, Y3
	VPADDD   Y3, Y3, Y4
	VPADDD   Y4, Y3, Y3    // index*12: a bin is three float32s
	VEXTRACTI128 $1, Y3, X4
	VPCMPEQD Y5, Y5, Y5
	VPXOR    Y9, Y9, Y9
	VPGATHERDQ Y5, 4(R8)(X3*1), Y9   // (a, s) of lanes 0-3
	VPCMPEQD Y5, Y5, Y5
	VPXOR    Y10, Y10, Y10
	VPGATHERDQ Y5, 4(R8)(X4*1), Y10  // (a, s) of lanes 4-7
	VSHUFPS  $0x88, Y10, Y9, Y4 // a0 a1 a4 a5 | a2 a3 a6 a7
	VSHUFPS  $0xdd, Y10, Y9, Y5 // s, likewise
	VPERMQ   $0xd8, Y4, Y4      // a0..a7
	VPERMQ   $0xd8, Y5, Y5      // s0..s7
	VSUBPS   Y2, Y0, Y0
	VMULPS   Y5, Y0, Y0
	VADDPS   Y0, Y4, Y0
	VMOVUPS  Y0, (DI)
	ADDQ     $32, SI
	ADDQ     $32, DI
	SUBQ     $8, CX
	JMP      loop

done:
	VZEROUPPER
	RET
