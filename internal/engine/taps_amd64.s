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

	// 64 outputs at a time, in eight sums: four would leave the adds waiting on
	// each other's latency.
block64:
	LEAQ 64(AX), DX
	CMPQ DX, CX
	JGT  block8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   BX, BX // i

tap64:
	VBROADCASTSS (R9)(BX*4), Y8
	MOVQ         (R8)(BX*8), DX
	ADDQ         AX, DX
	LEAQ         (SI)(DX*4), DX
	VMULPS       (DX), Y8, Y9
	VMULPS       32(DX), Y8, Y10
	VMULPS       64(DX), Y8, Y11
	VMULPS       96(DX), Y8, Y12
	VADDPS       Y9, Y0, Y0
	VADDPS       Y10, Y1, Y1
	VADDPS       Y11, Y2, Y2
	VADDPS       Y12, Y3, Y3
	VMULPS       128(DX), Y8, Y13
	VMULPS       160(DX), Y8, Y14
	VMULPS       192(DX), Y8, Y15
	VMULPS       224(DX), Y8, Y9
	VADDPS       Y13, Y4, Y4
	VADDPS       Y14, Y5, Y5
	VADDPS       Y15, Y6, Y6
	VADDPS       Y9, Y7, Y7
	INCQ         BX
	CMPQ         BX, R10
	JLT          tap64
	LEAQ         (DI)(AX*4), DX
	VMOVUPS      Y0, (DX)
	VMOVUPS      Y1, 32(DX)
	VMOVUPS      Y2, 64(DX)
	VMOVUPS      Y3, 96(DX)
	VMOVUPS      Y4, 128(DX)
	VMOVUPS      Y5, 160(DX)
	VMOVUPS      Y6, 192(DX)
	VMOVUPS      Y7, 224(DX)
	ADDQ         $64, AX
	JMP          block64

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
