//go:build amd64 && !purego

#include "textflag.h"

// idctStoreAVX2 is idct (idct.go) followed by storeBlock's level shift,
// clipping and store, for a full 8x8 block. Each vector holds eight int32
// lanes, so a pass transforms the eight rows (or columns) at once with
// exactly idctRow's (or idctCols's) int32 operations, in the same order up
// to additions and multiplications that wrap identically (everything between
// two right shifts is computed modulo 2**32, as Go does).
//
// The rows are transposed as they are loaded (lane i of the vector for
// element k holds row i's element k), transformed, transposed back (lane i
// of the vector for row k holds column i), transformed along the columns,
// then packed to bytes with saturation, which clips as clampPix does.
//
// The constants are in idctK (idct_amd64.go), 32 bytes each.
#define K(i) ·idctK+((i)*32)(SB)

// DCTBOX is dctBox(x0, x1) with the rotation constants K(k), K(k+1),
// K(k+2): y0 = kcos*(x0+x1) + (ksin-kcos)*x1 replaces x0 and
// y1 = kcos*(x0+x1) - (kcos+ksin)*x0 replaces x1. t0-t2 are scratch.
#define DCTBOX(x0, x1, k, t0, t1, t2) \
	VPADDD  x1, x0, t0; \
	VPMULLD K(k), t0, t0; \
	VPMULLD K((k)+1), x1, t1; \
	VPMULLD K((k)+2), x0, t2; \
	VPADDD  t1, t0, x0; \
	VPSUBD  t2, t0, x1

// ODD is the end of both passes: the x4-x7 rotations after a right shift
// by s, and stage 1. On entry x0-x7 are in Y0, Y9, Y2, Y6, Y4, Y3, Y5, Y1;
// on exit the outputs 0-7 are in Y8, Y10, Y11, Y12, Y9, Y13, Y14, Y15.
#define ODD(s) \
	VPSRAD $(s), Y4, Y4; \
	VPSRAD $(s), Y1, Y1; \
	DCTBOX(Y4, Y1, 4, Y8, Y10, Y11); \
	VPSRAD $(s), Y3, Y3; \
	VPSRAD $(s), Y5, Y5; \
	DCTBOX(Y3, Y5, 7, Y8, Y10, Y11); \
	VPADDD Y1, Y0, Y8; \
	VPSUBD Y1, Y0, Y15; \
	VPADDD Y5, Y9, Y10; \
	VPSUBD Y5, Y9, Y14; \
	VPADDD Y3, Y2, Y11; \
	VPSUBD Y3, Y2, Y13; \
	VPADDD Y4, Y6, Y12; \
	VPSUBD Y4, Y6, Y9

// func idctStoreAVX2(b *block, dst *byte, stride int)
TEXT ·idctStoreAVX2(SB), NOSPLIT, $0-24
	MOVQ b+0(FP), AX
	MOVQ dst+8(FP), DI
	MOVQ stride+16(FP), SI

	// Load and transpose. Y0-Y3 get the left halves of rows 0-3 (low
	// lanes) and 4-7 (high lanes), Y4-Y7 the right halves; transposing
	// each 4x4 quarter then gives the columns.
	VMOVDQU     0(AX), X0
	VINSERTI128 $1, 128(AX), Y0, Y0
	VMOVDQU     32(AX), X1
	VINSERTI128 $1, 160(AX), Y1, Y1
	VMOVDQU     64(AX), X2
	VINSERTI128 $1, 192(AX), Y2, Y2
	VMOVDQU     96(AX), X3
	VINSERTI128 $1, 224(AX), Y3, Y3
	VMOVDQU     16(AX), X4
	VINSERTI128 $1, 144(AX), Y4, Y4
	VMOVDQU     48(AX), X5
	VINSERTI128 $1, 176(AX), Y5, Y5
	VMOVDQU     80(AX), X6
	VINSERTI128 $1, 208(AX), Y6, Y6
	VMOVDQU     112(AX), X7
	VINSERTI128 $1, 240(AX), Y7, Y7

	VPUNPCKLDQ  Y1, Y0, Y8
	VPUNPCKHDQ  Y1, Y0, Y9
	VPUNPCKLDQ  Y3, Y2, Y10
	VPUNPCKHDQ  Y3, Y2, Y11
	VPUNPCKLDQ  Y5, Y4, Y12
	VPUNPCKHDQ  Y5, Y4, Y13
	VPUNPCKLDQ  Y7, Y6, Y14
	VPUNPCKHDQ  Y7, Y6, Y15
	VPUNPCKLQDQ Y10, Y8, Y0
	VPUNPCKHQDQ Y10, Y8, Y1
	VPUNPCKLQDQ Y11, Y9, Y2
	VPUNPCKHQDQ Y11, Y9, Y3
	VPUNPCKLQDQ Y14, Y12, Y4
	VPUNPCKHQDQ Y14, Y12, Y5
	VPUNPCKLQDQ Y15, Y13, Y6
	VPUNPCKHQDQ Y15, Y13, Y7

	// Row pass (idctRow). Element k of the rows is in Yk, so that
	// x0, x7, x2, x5, x1, x6, x3, x4 are in Y0-Y7.
	VPSLLD $17, Y0, Y0
	VPSLLD $17, Y4, Y4
	VPADDD Y4, Y0, Y8  // x0
	VPSUBD Y4, Y0, Y4  // x1
	DCTBOX(Y2, Y6, 0, Y9, Y10, Y11)
	VPADDD Y2, Y4, Y9  // x1
	VPSUBD Y2, Y4, Y2  // x2
	VPADDD Y6, Y8, Y0  // x0
	VPSUBD Y6, Y8, Y6  // x3
	VPSLLD $7, Y7, Y7
	VPSLLD $7, Y1, Y1
	VPADDD Y7, Y1, Y4  // x7
	VPSUBD Y7, Y1, Y7  // x4
	VPMULLD K(3), Y5, Y5 // x6
	VPMULLD K(3), Y3, Y3 // x5
	VPADDD Y3, Y4, Y1  // x7
	VPSUBD Y3, Y4, Y3  // x5
	VPADDD Y5, Y7, Y4  // x4
	VPSUBD Y5, Y7, Y5  // x6
	ODD(2)

	// Transpose back: Y0-Y7 get the rows.
	VPUNPCKLDQ  Y10, Y8, Y0
	VPUNPCKHDQ  Y10, Y8, Y1
	VPUNPCKLDQ  Y12, Y11, Y2
	VPUNPCKHDQ  Y12, Y11, Y3
	VPUNPCKLDQ  Y13, Y9, Y4
	VPUNPCKHDQ  Y13, Y9, Y5
	VPUNPCKLDQ  Y15, Y14, Y6
	VPUNPCKHDQ  Y15, Y14, Y7
	VPUNPCKLQDQ Y2, Y0, Y8
	VPUNPCKHQDQ Y2, Y0, Y10
	VPUNPCKLQDQ Y3, Y1, Y11
	VPUNPCKHQDQ Y3, Y1, Y12
	VPUNPCKLQDQ Y6, Y4, Y9
	VPUNPCKHQDQ Y6, Y4, Y13
	VPUNPCKLQDQ Y7, Y5, Y14
	VPUNPCKHQDQ Y7, Y5, Y15
	VPERM2I128  $0x20, Y9, Y8, Y0
	VPERM2I128  $0x31, Y9, Y8, Y4
	VPERM2I128  $0x20, Y13, Y10, Y1
	VPERM2I128  $0x31, Y13, Y10, Y5
	VPERM2I128  $0x20, Y14, Y11, Y2
	VPERM2I128  $0x31, Y14, Y11, Y6
	VPERM2I128  $0x20, Y15, Y12, Y3
	VPERM2I128  $0x31, Y15, Y12, Y7

	// Column pass (idctCols). Row k is in Yk, so that
	// x0, x7, x2, x5, x1, x6, x3, x4 are in Y0-Y7.
	VPADDD K(14), Y0, Y0
	VPADDD Y4, Y0, Y8
	VPSRAD $2, Y8, Y8  // x0
	VPSUBD Y4, Y0, Y4
	VPSRAD $2, Y4, Y4  // x1
	VPSRAD $13, Y2, Y2
	VPSRAD $13, Y6, Y6
	DCTBOX(Y2, Y6, 10, Y9, Y10, Y11)
	VPADDD Y2, Y4, Y9  // x1
	VPSUBD Y2, Y4, Y2  // x2
	VPADDD Y6, Y8, Y0  // x0
	VPSUBD Y6, Y8, Y6  // x3
	VPADDD Y7, Y1, Y4  // x7
	VPSUBD Y7, Y1, Y7  // x4
	VPSRAD $13, Y3, Y3
	VPMULLD K(13), Y3, Y3 // x5
	VPSRAD $13, Y5, Y5
	VPMULLD K(13), Y5, Y5 // x6
	VPADDD Y3, Y4, Y1  // x7
	VPSUBD Y3, Y4, Y3  // x5
	VPADDD Y5, Y7, Y4  // x4
	VPSUBD Y5, Y7, Y5  // x6
	ODD(14)
	VPSRAD $18, Y8, Y8
	VPSRAD $18, Y10, Y10
	VPSRAD $18, Y11, Y11
	VPSRAD $18, Y12, Y12
	VPSRAD $18, Y9, Y9
	VPSRAD $18, Y13, Y13
	VPSRAD $18, Y14, Y14
	VPSRAD $18, Y15, Y15

	// Pack to int16 (the values fit: they are int32s shifted right by 18),
	// level shift, and pack to uint8 with unsigned saturation, which is
	// clampPix. Y0 then holds rows 0-3 as [r0 left, r1 left, r2 left,
	// r3 left | r0 right, ...] in 4-byte groups; VPERMD puts each row's
	// halves together.
	VPACKSSDW Y10, Y8, Y0
	VPACKSSDW Y12, Y11, Y1
	VPACKSSDW Y13, Y9, Y2
	VPACKSSDW Y15, Y14, Y3
	VMOVDQU   K(15), Y4
	VPADDW    Y4, Y0, Y0
	VPADDW    Y4, Y1, Y1
	VPADDW    Y4, Y2, Y2
	VPADDW    Y4, Y3, Y3
	VPACKUSWB Y1, Y0, Y0
	VPACKUSWB Y3, Y2, Y2
	VMOVDQU   K(16), Y4
	VPERMD    Y0, Y4, Y0
	VPERMD    Y2, Y4, Y2

	LEAQ (SI)(SI*2), R8
	VMOVQ        X0, (DI)
	VMOVHPS      X0, (DI)(SI*1)
	VEXTRACTI128 $1, Y0, X1
	VMOVQ        X1, (DI)(SI*2)
	VMOVHPS      X1, (DI)(R8*1)
	LEAQ         (DI)(SI*4), DI
	VMOVQ        X2, (DI)
	VMOVHPS      X2, (DI)(SI*1)
	VEXTRACTI128 $1, Y2, X3
	VMOVQ        X3, (DI)(SI*2)
	VMOVHPS      X3, (DI)(R8*1)
	VZEROUPPER
	RET
