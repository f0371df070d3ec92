package dataset

import (
	"os"

	"golang.org/x/sys/unix"
)

// canSyncFS: Linux flushes a whole file system with one syncfs.
const canSyncFS = true

// syncFS flushes the file system that holds out: every file written to it, and its
// folders, reach the disk.
func syncFS(out *os.Root) error {
	f, err := out.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return err
	}
	return serr
}
