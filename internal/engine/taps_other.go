//go:build !amd64 || purego

package engine

// useAVX is false where there is no AVX loop: tapSum runs in Go.
var useAVX = false

func tapSumAVX(dst *float32, n int, src *float32, off *int, k *float32, ntap int) {
	panic("engine: no AVX loop on this architecture")
}
