//go:build !linux

package engine

// newPix allocates n pixel values, zero.
func newPix(n int) []float32 { return make([]float32, n) }
