//go:build amd64 && !purego

#include "textflag.h"

// func tapSumAVX(dst *float32, n int, src *float32, off *int, k *float32, ntap int)
//
// For j in [0, n), n a multiple of 8: dst[j] = sum over i in [0, ntap) of
// k[i]*src[off[i]+j], each product rounded to float32 and added to a sum that
// starts at zero, in tap order: VMULPS then VADDPS, never a fused multiply-add, so
// each lane computes exactly what the Go loop computes.
TEXT ·tapSumAVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ ntap+40(FP), R10
	XORQ AX, AX // j

block32:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JGT  block8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   BX, BX // i

tap32:
	VBROADCASTSS (R9)(BX*4), Y4
	MOVQ         (R8)(BX*8), DX
	ADDQ         AX, DX
	LEAQ         (SI)(DX*4), DX
	VMULPS       (DX), Y4, Y5
	VMULPS       32(DX), Y4, Y6
	VMULPS       64(DX), Y4, Y7
	VMULPS       96(DX), Y4, Y8
	VADDPS       Y5, Y0, Y0
	VADDPS       Y6, Y1, Y1
	VADDPS       Y7, Y2, Y2
	VADDPS       Y8, Y3, Y3
	INCQ         BX
	CMPQ         BX, R10
	JLT          tap32
	LEAQ         (DI)(AX*4), DX
	VMOVUPS      Y0, (DX)
	VMOVUPS      Y1, 32(DX)
	VMOVUPS      Y2, 64(DX)
	VMOVUPS      Y3, 96(DX)
	ADDQ         $32, AX
	JMP          block32

block8:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JGT  done
	VXORPS Y0, Y0, Y0
	XORQ   BX, BX

tap8:
	VBROADCASTSS (R9)(BX*4), Y4
	MOVQ         (R8)(BX*8), DX
	ADDQ         AX, DX
	VMULPS       (SI)(DX*4), Y4, Y5
	VADDPS       Y5, Y0, Y0
	INCQ         BX
	CMPQ         BX, R10
	JLT          tap8
	VMOVUPS      Y0, (DI)(AX*4)
	ADDQ         $8, AX
	JMP          block8

done:
	VZEROUPPER
	RET
