//go:build windows

package history

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFD takes a LockFileEx lock on the first byte of f, the Windows counterpart of
// flock: released by the system when the process dies.
func lockFD(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
}

func unlockFD(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
