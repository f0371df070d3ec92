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

DATA evens<>+0(SB)/4, $0
DATA evens<>+4(SB)/4, $2
DATA evens<>+8(SB)/4, $4
DATA evens<>+12(SB)/4, $6
DATA evens<>+16(SB)/4, $8
DATA evens<>+20(SB)/4, $10
DATA evens<>+24(SB)/4, $12
DATA evens<>+28(SB)/4, $14
DATA evens<>+32(SB)/4, $16
DATA evens<>+36(SB)/4, $18
DATA evens<>+40(SB)/4, $20
DATA evens<>+44(SB)/4, $22
DATA evens<>+48(SB)/4, $24
DATA evens<>+52(SB)/4, $26
DATA evens<>+56(SB)/4, $28
DATA evens<>+60(SB)/4, $30
GLOBL evens<>(SB), RODATA|NOPTR, $64

// BINS(o, X): the (a, s) pairs of the two values whose bin offsets are at o(SP),
// as the two 64-bit lanes of X: plain loads, several a cycle, where the gathers of
// some CPUs (AMD's among them) take two to three cycles an item.
#define BINS(o, X) \
	MOVQ    o(SP), AX; \
	MOVL    AX, BX; \
	SHRQ    $32, AX; \
	VMOVQ   4(R8)(BX*1), X; \
	VPINSRQ $1, 4(R8)(AX*1), X, X

// func lutApplyAVX512(dst *float32, src *float32, n int, bins *lutBin, off int, last int)
//
// lutApplyAVX2 sixteen values at a time, n a multiple of 16, each bin's (a, s)
// read by a load of its own rather than by a gather; the same operations, so the
// same bits.
TEXT ·lutApplyAVX512(SB), NOSPLIT, $64-48
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         bins+24(FP), R8
	VPBROADCASTD off+32(FP), Z14
	VPBROADCASTD last+40(FP), Z15
	VPXORD       Z13, Z13, Z13
	MOVL         $0xffff0000, AX
	VPBROADCASTD AX, Z12
	MOVQ         last+40(FP), R9
	LEAQ         (R9)(R9*2), R9
	VBROADCASTSS (R8)(R9*4), Z11 // the last bin's x
	VMOVDQU32    evens<>(SB), Z16
	VPTERNLOGD   $0xff, Z17, Z17, Z17
	VPSUBD       Z17, Z16, Z17   // odds: evens + 1

loop16:
	CMPQ CX, $16
	JLT  done16
	VMOVUPS     (SI), Z0
	VPSRAD      $16, Z0, Z1
	VPSUBD      Z14, Z1, Z1 // the bin index, unclamped
	VPMAXSD     Z13, Z1, Z6
	VPMINSD     Z15, Z6, Z6 // held to 0..last
	VPANDD      Z12, Z0, Z2 // x: the bits of the bin's start
	VPCMPGTD    Z13, Z1, K1
	VMOVDQA32.Z Z2, K1, Z2  // 0 at and below bin 0
	VPCMPGTD    Z15, Z1, K2
	VMOVDQA32   Z11, K2, Z2 // the last bin's x past it
	VPSLLD      $2, Z6, Z3
	VPADDD      Z3, Z3, Z4
	VPADDD      Z4, Z3, Z3  // index*12: a bin is three float32s
	VMOVDQU32   Z3, 0(SP)
	BINS(0, X3)
	BINS(8, X4)
	BINS(16, X5)
	BINS(24, X6)
	BINS(32, X7)
	BINS(40, X8)
	BINS(48, X9)
	BINS(56, X10)
	VINSERTI128   $1, X4, Y3, Y3
	VINSERTI128   $1, X6, Y5, Y5
	VINSERTI128   $1, X8, Y7, Y7
	VINSERTI128   $1, X10, Y9, Y9
	VINSERTI64X4  $1, Y5, Z3, Z3 // a0 s0 .. a7 s7
	VINSERTI64X4  $1, Y9, Z7, Z7 // a8 s8 .. a15 s15
	VMOVDQA32     Z16, Z4
	VPERMI2PS     Z7, Z3, Z4     // a0..a15
	VMOVDQA32     Z17, Z5
	VPERMI2PS     Z7, Z3, Z5     // s0..s15
	VSUBPS        Z2, Z0, Z0
	VMULPS        Z5, Z0, Z0
	VADDPS        Z0, Z4, Z0
	VMOVUPS       Z0, (DI)
	ADDQ          $64, SI
	ADDQ          $64, DI
	SUBQ          $16, CX
	JMP           loop16

done16:
	VZEROUPPER
	RET
