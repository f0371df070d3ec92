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

// func tapSumAVX512(dst *float32, n int, src *float32, off *int, k *float32, ntap int)
//
// tapSumAVX with sixteen outputs to a register, for n a multiple of 16: the same
// VMULPS then VADDPS per lane, so the same bits. On a CPU that runs 512-bit
// operations at full width it does the work of the AVX loop in half the
// instructions.
TEXT ·tapSumAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ off+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ ntap+40(FP), R10
	XORQ AX, AX // j

	// 128 outputs at a time, in eight sums.
zblock128:
	LEAQ 128(AX), DX
	CMPQ DX, CX
	JGT  zblock16
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	XORQ   BX, BX // i

ztap128:
	VBROADCASTSS (R9)(BX*4), Z8
	MOVQ         (R8)(BX*8), DX
	ADDQ         AX, DX
	LEAQ         (SI)(DX*4), DX
	VMULPS       (DX), Z8, Z9
	VMULPS       64(DX), Z8, Z10
	VMULPS       128(DX), Z8, Z11
	VMULPS       192(DX), Z8, Z12
	VADDPS       Z9, Z0, Z0
	VADDPS       Z10, Z1, Z1
	VADDPS       Z11, Z2, Z2
	VADDPS       Z12, Z3, Z3
	VMULPS       256(DX), Z8, Z13
	VMULPS       320(DX), Z8, Z14
	VMULPS       384(DX), Z8, Z15
	VMULPS       448(DX), Z8, Z9
	VADDPS       Z13, Z4, Z4
	VADDPS       Z14, Z5, Z5
	VADDPS       Z15, Z6, Z6
	VADDPS       Z9, Z7, Z7
	INCQ         BX
	CMPQ         BX, R10
	JLT          ztap128
	LEAQ         (DI)(AX*4), DX
	VMOVUPS      Z0, (DX)
	VMOVUPS      Z1, 64(DX)
	VMOVUPS      Z2, 128(DX)
	VMOVUPS      Z3, 192(DX)
	VMOVUPS      Z4, 256(DX)
	VMOVUPS      Z5, 320(DX)
	VMOVUPS      Z6, 384(DX)
	VMOVUPS      Z7, 448(DX)
	ADDQ         $128, AX
	JMP          zblock128

zblock16:
	LEAQ 16(AX), DX
	CMPQ DX, CX
	JGT  zdone
	VPXORD Z0, Z0, Z0
	XORQ   BX, BX

ztap16:
	VBROADCASTSS (R9)(BX*4), Z4
	MOVQ         (R8)(BX*8), DX
	ADDQ         AX, DX
	VMULPS       (SI)(DX*4), Z4, Z5
	VADDPS       Z5, Z0, Z0
	INCQ         BX
	CMPQ         BX, R10
	JLT          ztap16
	VMOVUPS      Z0, (DI)(AX*4)
	ADDQ         $16, AX
	JMP          zblock16

zdone:
	VZEROUPPER
	RET
