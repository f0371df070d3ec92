//go:build !amd64 || purego

package engine

// useAVX, useAVX2, useAVX512, useAVX512BW and useAVX512VBMI are false where there
// are no AVX loops: everything runs in Go.
var useAVX, useAVX2, useAVX512, useAVX512BW, useAVX512VBMI = false, false, false, false, false

func tapSumAVX(dst *float32, n int, src *float32, off *int, k *float32, ntap int) {
	panic("engine: no AVX loop on this architecture")
}

func tapSumAVX512(dst *float32, n int, src *float32, off *int, k *float32, ntap int) {
	panic("engine: no AVX-512 loop on this architecture")
}

func ycbcrRowAVX2(px *float32, n int, t *uint8, yrow *uint8, cbSum *int32, crSum *int32) {
	panic("engine: no AVX2 loop on this architecture")
}

func ycbcrRowAVX512(px *float32, n int, s *uint16, yrow *uint8, cbSum *int32, crSum *int32) {
	panic("engine: no AVX-512 loop on this architecture")
}

func ycbcrLinAVX2(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, lin *float32) {
	panic("engine: no AVX2 loop on this architecture")
}

func ycbcrLinAVX512(dst *float32, y *uint8, cb *uint8, cr *uint8, n int, pairs bool, planes *uint8) {
	panic("engine: no AVX-512 loop on this architecture")
}

func warpAffineAVX2(dst *float32, src *float32, n int, xs float64, p *affineParams, skip *int32) int {
	panic("engine: no AVX2 loop on this architecture")
}

func warpAffineAVX512(dst *float32, src *float32, n int, xs float64, p *affineParams, skip *int32) int {
	panic("engine: no AVX-512 loop on this architecture")
}

func lutApplyAVX2(dst *float32, src *float32, n int, bins *lutBin, off int, last int) {
	panic("engine: no AVX2 loop on this architecture")
}

func lutApplyAVX512(dst *float32, src *float32, n int, bins *lutBin, off int, last int) {
	panic("engine: no AVX-512 loop on this architecture")
}

func flipRowAVX2(dst *float32, src *float32, n int, w int) {
	panic("engine: no AVX2 loop on this architecture")
}

func scaleAVX(dst *float32, src *float32, n int, k float32) {
	panic("engine: no AVX loop on this architecture")
}
