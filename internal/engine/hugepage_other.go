//go:build !linux

package engine

// adviseHuge is a no-op where the kernel has no madvise for transparent huge pages.
func adviseHuge([]float32) {}
