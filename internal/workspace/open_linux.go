package workspace

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openBeneath opens root/rel (root itself when rel is "") for reading. On Linux 5.6
// and later, openat2 with RESOLVE_BENEATH makes the kernel refuse any resolution that
// leaves root (a "..", an absolute symbolic link, a relative one that climbs out):
// EXDEV, reported as errOutside. O_NONBLOCK keeps a FIFO from blocking the open; what
// was opened is checked by the caller (a regular file). Where openat2 is missing
// (older kernels, some sandboxes), openVerified does the same by checking after the
// open.
func openBeneath(root, rel string) (*os.File, error) {
	const flags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY
	if rel == "" {
		// A root that is a single file (a client root): it was resolved when it was
		// allowed, so a symbolic link there now is a swap.
		fd, err := unix.Open(root, flags|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ELOOP) {
			return nil, errOutside
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: root, Err: err}
		}
		return os.NewFile(uintptr(fd), root), nil
	}
	dfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, errOutside
		}
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dfd)
	how := &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	var fd int
	for range 8 {
		// EAGAIN: a concurrent rename somewhere under root; the kernel asks to retry.
		if fd, err = unix.Openat2(dfd, rel, how); !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
		// No openat2 here (or a seccomp filter refusing it).
		return openVerified(root, rel)
	case errors.Is(err, unix.EXDEV):
		// An absolute symbolic link, which RESOLVE_BENEATH refuses even when it points
		// under root. Its target is opened under root with no symbolic link followed
		// at all: if the name changed meanwhile, that open fails, never escapes.
		real, rerr := filepath.EvalSymlinks(filepath.Join(root, rel))
		if rerr != nil || !within(real, root) {
			return nil, errOutside
		}
		how.Resolve |= unix.RESOLVE_NO_SYMLINKS
		if fd, err = unix.Openat2(dfd, real[len(root)+1:], how); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil, &os.PathError{Op: "open", Path: filepath.Join(root, rel), Err: err}
			}
			return nil, errOutside
		}
	case errors.Is(err, unix.ELOOP):
		return nil, errOutside
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: filepath.Join(root, rel), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, rel)), nil
}
