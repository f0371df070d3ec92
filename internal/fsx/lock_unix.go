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

// ownTemp takes the owner's lock of a temporary file f just created: an exclusive
// flock through a second open file, which stays open (and locked) after f is closed,
// until the caller closes it once the file is renamed or removed. swept reports that
// a RemoveOrphan took the name between its creation and the lock (it removes only
// what it could lock); the caller then makes another file.
func ownTemp(d dirFS, f *os.File, name string) (owner *os.File, swept bool, err error) {
	owner, err = d.open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := Lock(owner, true); err != nil {
		owner.Close()
		return nil, false, err
	}
	// Locked: from now on no sweep removes the name. Check it still is f's.
	now, err := d.lstat(name)
	mine, ferr := f.Stat()
	if err != nil || ferr != nil || !os.SameFile(now, mine) {
		owner.Close()
		return nil, true, nil
	}
	return owner, false, nil
}

// RemoveOrphan removes the temporary file at name if no live process owns it: if
// its owner's lock (ownTemp) can be taken, the writer died (the kernel released its
// lock) and the file is removed while the lock is held, so a writer never loses a
// file it holds. It reports whether it removed the file. A symbolic link is never
// followed (nor removed).
func RemoveOrphan(name string) (bool, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	ok, err := TryLock(f)
	if err != nil || !ok {
		return false, err
	}
	if err := os.Remove(name); err != nil {
		return false, err
	}
	return true, nil
}
