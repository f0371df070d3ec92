//go:build amd64 && !purego

package engine

import "golang.org/x/sys/cpu"

// The engine's assembly loops (the *_amd64.s files), declared here, and the
// switches that choose them: useAVX for tapSum, useAVX2 for the others (the colour
// conversions, the affine warp, tone tables, flips), useAVX512 for the wider loops
// of tapSum, the affine warp and tone tables. Tests turn them off to compare each loop with its Go code.
var (
	useAVX    = cpu.X86.HasAVX
	useAVX2   = cpu.X86.HasAVX2
	useAVX512 = cpu.X86.HasAVX512F
	// useAVX512BW is for the loops on 16-bit lanes (ycbcrRowAVX512).
	useAVX512BW = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
	// useAVX512VBMI is for the loops that permute bytes across a register
	// (ycbcrLinAVX512).
	useAVX512VBMI = useAVX512BW && cpu.X86.HasAVX512VBMI
)

// tapSumAVX is tapSum's loop over the first n outputs, n a multiple of 8, taps
// ntap long; the caller has checked every offset.
//
//go:noescape
func tapSumAVX(dst *float32, n int, src *float32, off *int, k *float32, ntap int)

// tapSumAVX512 is tapSumAVX sixteen outputs at a time, n a multiple of 16.
//
//go:noescape
func tapSumAVX512(dst *float32, n int, src *float32, off *int, k *float32, ntap int)

// ycbcrRowAVX2 is ycbcr420Rows' pair loop over n pixels, n a multiple of 8: px
// holds 3n floats, yrow n bytes, cbSum and crSum n/2 sums each; t is srgb8Padded.
//
//go:noescape
func ycbcrRowAVX2(px *float32, n int, t *uint8, yrow *uint8, cbSum *int32, crSum *int32)

// ycbcrRowAVX512 is ycbcrRowAVX2 sixteen pixels at a time, n a multiple of 16,
// searching s (srgb8Search) where ycbcrRowAVX2 reads srgb8.
//
//go:noescape
func ycbcrRowAVX512(px *float32, n int, s *uint16, yrow *uint8, cbSum *int32, crSum *int32)

// ycbcrLinAVX2 is ycbcrFull (pairs false) or ycbcrPairs (pairs true) over n pixels,
// n a multiple of 8; lin is lin8.
//
//go:noescape
func ycbcrLinAVX2(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, lin *float32)

// ycbcrLinAVX512 is ycbcrLinAVX2 sixteen pixels at a time, n a multiple of 16,
// looking lin8 up in its byte planes (lin8Planes).
//
//go:noescape
func ycbcrLinAVX512(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, planes *uint8)

// warpAffineAVX2 samples a row of a bilinear affine warp (see warp_amd64.s) and
// returns how many groups of four it left to the Go loop, listed in skip.
//
//go:noescape
func warpAffineAVX2(dst *float32, src *float32, n int, xs float64, p *affineParams, skip *int32) int

// warpAffineAVX512 is warpAffineAVX2 eight pixels at a time, n a multiple of 8; it
// reads one float past a pixel's taps (affineParams.lim allows for it).
//
//go:noescape
func warpAffineAVX512(dst *float32, src *float32, n int, xs float64, p *affineParams, skip *int32) int

// lutApplyAVX2 is fnLUT.at over n values, n a multiple of 8 (see lut_amd64.s).
//
//go:noescape
func lutApplyAVX2(dst *float32, src *float32, n int, bins *lutBin, off int, last int)

// lutApplyAVX512 is lutApplyAVX2 sixteen values at a time, n a multiple of 16.
//
//go:noescape
func lutApplyAVX512(dst *float32, src *float32, n int, bins *lutBin, off int, last int)

// flipRowAVX2 writes the first n pixels (a multiple of 8) of a horizontally
// flipped row of w pixels (see flip_amd64.s).
//
//go:noescape
func flipRowAVX2(dst *float32, src *float32, n int, w int)

// scaleAVX is scaleValues' loop over n values, n a multiple of 8 (see
// scale_amd64.s).
//
//go:noescape
func scaleAVX(dst *float32, src *float32, n int, k float32)
