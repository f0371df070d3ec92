package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// Opening a file a client names, once. The name is resolved by the kernel exactly
// once, by the open that gives the descriptor every later read goes through, and what
// was opened is what is checked: never a name checked and then opened again, which a
// process swapping a file for a symbolic link between the two could exploit.

// errOutside means the name led out of its allowed root (through a symbolic link)
// or named something else than what the open found there.
var errOutside = errors.New("leads outside the allowed root")

// openVerified opens root/rel (root itself when rel is "") without blocking (a FIFO
// with no writer would hang a blocking open), then checks that the opened file is the
// file the name resolves to now, and that this lies under root. A swap between the
// open and the check makes the two differ, and the call fails with errOutside: the
// descriptor returned is always of a file under root. It is the portable way; Linux
// first asks the kernel to refuse the escape outright (openBeneath).
func openVerified(root, rel string) (*os.File, error) {
	name := root
	if rel != "" {
		name = filepath.Join(root, rel)
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return nil, errOutside
	}
	if real != root && !within(real, root) {
		return nil, errOutside
	}
	opened, err := f.Stat()
	if err != nil {
		return nil, err
	}
	now, err := os.Stat(real)
	if err != nil || !os.SameFile(opened, now) {
		return nil, errOutside
	}
	ok = true
	return f, nil
}

// within reports whether p lies strictly under dir (both absolute and clean).
func within(p, dir string) bool {
	return len(p) > len(dir) && p[:len(dir)] == dir && (p[len(dir)] == filepath.Separator || dir == string(filepath.Separator))
}
