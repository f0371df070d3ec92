//go:build unix

package history

import (
	"errors"
	"os"
	"syscall"
)

// lockFD takes an flock on f, shared or exclusive, waiting for it. flock locks belong
// to the open file, so the kernel drops them when a process dies, even by SIGKILL:
// a crashed editor never leaves an image locked.
func lockFD(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), how) })
}

func unlockFD(f *os.File) error {
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) })
}

func retryEINTR(fn func() error) error {
	for {
		if err := fn(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
