//go:build amd64 && !purego

#include "textflag.h"

DATA rev0<>+0(SB)/4, $0x00000005
DATA rev0<>+4(SB)/4, $0x00000006
DATA rev0<>+8(SB)/4, $0x00000007
DATA rev0<>+12(SB)/4, $0x00000002
DATA rev0<>+16(SB)/4, $0x00000003
DATA rev0<>+20(SB)/4, $0x00000004
DATA rev0<>+24(SB)/4, $0x00000007
DATA rev0<>+28(SB)/4, $0x00000000
GLOBL rev0<>(SB), RODATA|NOPTR, $32

DATA rev1<>+0(SB)/4, $0x00000001
DATA rev1<>+4(SB)/4, $0x00000004
DATA rev1<>+8(SB)/4, $0x00000005
DATA rev1<>+12(SB)/4, $0x00000006
DATA rev1<>+16(SB)/4, $0x00000001
DATA rev1<>+20(SB)/4, $0x00000002
DATA rev1<>+24(SB)/4, $0x00000003
DATA rev1<>+28(SB)/4, $0x00000006
GLOBL rev1<>(SB), RODATA|NOPTR, $32

DATA rev2<>+0(SB)/4, $0x00000007
DATA rev2<>+4(SB)/4, $0x00000000
DATA rev2<>+8(SB)/4, $0x00000003
DATA rev2<>+12(SB)/4, $0x00000004
DATA rev2<>+16(SB)/4, $0x00000005
DATA rev2<>+20(SB)/4, $0x00000000
DATA rev2<>+24(SB)/4, $0x00000001
DATA rev2<>+28(SB)/4, $0x00000002
GLOBL rev2<>(SB), RODATA|NOPTR, $32

// func flipRowAVX2(dst *float32, src *float32, n int, w int)
//
// The first n pixels of a horizontally flipped row of w RGB pixels (n a multiple
// of 8, n <= w): dst pixel x is src pixel w-1-x. Eight pixels at a time: the 24
// floats of src pixels [w-8-x, w-x) in A, B, C, permuted and blended into the
// reversed order (rev0-2 name, for each output vector, the lane each of its
// lanes takes from whichever input holds it).
TEXT ·flipRowAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ w+24(FP), DX
	SUBQ $8, DX
	LEAQ (DX)(DX*2), DX
	LEAQ (SI)(DX*4), SI // src pixel w-8
	VMOVDQU rev0<>(SB), Y13
	VMOVDQU rev1<>(SB), Y14
	VMOVDQU rev2<>(SB), Y15

loop:
	CMPQ CX, $8
	JLT  done
	VMOVUPS  (SI), Y0
	VMOVUPS  32(SI), Y1
	VMOVUPS  64(SI), Y2
	VPERMPS  Y2, Y13, Y3
	VPERMPS  Y1, Y13, Y4
	VBLENDPS $0x40, Y4, Y3, Y3
	VMOVUPS  Y3, (DI)
	VPERMPS  Y1, Y14, Y3
	VPERMPS  Y2, Y14, Y4
	VPERMPS  Y0, Y14, Y5
	VBLENDPS $0x01, Y4, Y3, Y3
	VBLENDPS $0x80, Y5, Y3, Y3
	VMOVUPS  Y3, 32(DI)
	VPERMPS  Y0, Y15, Y3
	VPERMPS  Y1, Y15, Y4
	VBLENDPS $0x02, Y4, Y3, Y3
	VMOVUPS  Y3, 64(DI)
	ADDQ     $96, DI
	SUBQ     $96, SI
	SUBQ     $8, CX
	JMP      loop

done:
	VZEROUPPER
	RET
