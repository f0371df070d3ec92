//go:build unix

package engine

import (
	"syscall"
	"time"
)

// ioProcessCPU is the CPU time (user and system) the test process has used, on every
// thread: a measure that other work on a shared machine disturbs far less than the
// wall time benchmarks report.
func ioProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// childCPU is the CPU time of the test process's waited-for children.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
