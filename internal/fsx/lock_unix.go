//go:build unix

package fsx

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes an flock on f, shared or exclusive, waiting for it. flock locks belong
// to the open file, so the kernel drops them when the process dies, even by SIGKILL:
// a crashed process never leaves a file locked.
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), how) })
}

// TryLock takes an exclusive flock on f without waiting; false when another open file
// holds it (or a shared one).
func TryLock(f *os.File) (bool, error) {
	err := retryEINTR(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) })
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	}
	return false, err
}

// Unlock releases a lock Lock or TryLock took.
func Unlock(f *os.File) error {
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) })
}

func retryEINTR(fn func() error) error {
	for {
		if err := fn(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
