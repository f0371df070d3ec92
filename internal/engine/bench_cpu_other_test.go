//go:build !unix

package engine

import "time"

// ioProcessCPU is not measured here; the benchmarks then report wall time only.
func ioProcessCPU() (time.Duration, bool) { return 0, false }

// childCPU is not measured here either.
func childCPU() time.Duration { return 0 }
