//go:build amd64 && !purego

package engine

import "golang.org/x/sys/cpu"

// useAVX says tapSum runs its AVX loop; tests turn it off to compare the two.
var useAVX = cpu.X86.HasAVX

// tapSumAVX is tapSum's loop over the first n outputs, n a multiple of 8, taps
// ntap long; the caller has checked every offset.
//
//go:noescape
func tapSumAVX(dst *float32, n int, src *float32, off *int, k *float32, ntap int)
