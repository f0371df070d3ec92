//go:build amd64 && !purego

#include "textflag.h"

// func scaleAVX(dst *float32, src *float32, n int, k float32)
//
// dst[i] = src[i] * k for n values, n a multiple of 8: VMULPS rounds each product
// as Go's float32 multiplication does. dst may be src.
TEXT ·scaleAVX(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS k+24(FP), Y15

loop32:
	CMPQ    CX, $32
	JLT     loop8
	VMULPS  (SI), Y15, Y0
	VMULPS  32(SI), Y15, Y1
	VMULPS  64(SI), Y15, Y2
	VMULPS  96(SI), Y15, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	JMP     loop32

loop8:
	CMPQ    CX, $8
	JLT     done
	VMULPS  (SI), Y15, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     loop8

done:
	VZEROUPPER
	RET
