//go:build amd64 && !purego

#include "textflag.h"

// func lutApplyAVX2(dst *float32, src *float32, n int, bins *lutBin, off int, last int)
//
// dst[i] = fnLUT.at(src[i]) for n values, n a multiple of 8: the bin index from the
// value's bits (bits>>16 less off, arithmetic shift, held to 0..last), the bin's
// x, a and s gathered, and a + (v-x)*s, each operation rounded as the Go code
// rounds it.
TEXT ·lutApplyAVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         bins+24(FP), R8
	VPBROADCASTD off+32(FP), Y14
	VPBROADCASTD last+40(FP), Y15
	VPXOR        Y13, Y13, Y13

loop:
	CMPQ CX, $8
	JLT  done
	VMOVUPS  (SI), Y0
	VPSRAD   $16, Y0, Y1
	VPSUBD   Y14, Y1, Y1
	VPMAXSD  Y13, Y1, Y1
	VPMINSD  Y15, Y1, Y1
	VPADDD   Y1, Y1, Y2
	VPADDD   Y2, Y1, Y1 // index*3: a bin is three float32s
	VPCMPEQD Y5, Y5, Y5
	VPXOR    Y2, Y2, Y2
	VGATHERDPS Y5, (R8)(Y1*4), Y2 // x
	VPCMPEQD Y5, Y5, Y5
	VPXOR    Y3, Y3, Y3
	VGATHERDPS Y5, 4(R8)(Y1*4), Y3 // a
	VPCMPEQD Y5, Y5, Y5
	VPXOR    Y4, Y4, Y4
	VGATHERDPS Y5, 8(R8)(Y1*4), Y4 // s
	VSUBPS   Y2, Y0, Y0
	VMULPS   Y4, Y0, Y0
	VADDPS   Y0, Y3, Y0
	VMOVUPS  Y0, (DI)
	ADDQ     $32, SI
	ADDQ     $32, DI
	SUBQ     $8, CX
	JMP      loop

done:
	VZEROUPPER
	RET
