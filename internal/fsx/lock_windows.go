//go:build windows

package fsx

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// Lock takes a LockFileEx lock on the first byte of f, the Windows counterpart of
// flock: released by the system when the process dies.
func Lock(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
}

// TryLock takes an exclusive LockFileEx lock on the first byte of f without waiting;
// false when another handle holds it.
func TryLock(f *os.File) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

// Unlock releases a lock Lock or TryLock took.
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// ownTemp takes no lock on Windows: a file open there cannot be renamed, so a
// temporary file cannot stay open while it is renamed into place. RemoveOrphan
// goes by age instead.
func ownTemp(d dirFS, f *os.File, name string) (owner *os.File, swept bool, err error) {
	return nil, false, nil
}

// orphanAge is how old an unowned temporary file must be for RemoveOrphan to take it
// on Windows: no write lasts an hour.
const orphanAge = time.Hour

// RemoveOrphan removes the temporary file at name if it is older than an hour (no
// lock can tell whether its writer lives on Windows). It reports whether it removed
// the file.
func RemoveOrphan(name string) (bool, error) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < orphanAge {
		return false, err
	}
	if err := os.Remove(name); err != nil {
		return false, err
	}
	return true, nil
}
