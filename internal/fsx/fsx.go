// Package fsx is darkroom's one atomic and durable file writer, shared by the
// history store and the workspace (previews, exports, context files, the CLI's
// outputs): the data goes to a temporary file in the target's directory (rename is
// atomic only within one file system), is fsynced, renamed over the target, and the
// directory is fsynced so the rename itself survives a power cut. A crash at any
// point leaves the old file or the new one, never a mix, and at worst a temporary
// file whose name starts with TempPrefix. WriteFile and WriteFileFrom hold an
// exclusive lock (flock) on their temporary file while it lives, which the kernel
// drops when the process dies, even by kill -9: RemoveOrphan, run when a workspace
// opens, removes exactly the temporary files whose writer is gone. Stage's callers
// (the history) own theirs by a lock of their own.
//
// It also holds darkroom's one file lock (Lock, TryLock, Unlock: flock, or
// LockFileEx on Windows).
//
// Every function takes a Step, called before each step that changes what is on
// disk; nil in production. The history's tests pass one to make any single step
// fail as a full disk makes it fail (internal/history, fault_test.go).
package fsx

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// TempPrefix starts every temporary file the writer creates. darkroom's own names
// never start with a dot, so a temporary file never shadows a file it names.
const TempPrefix = ".tmp-"

// Step is called before each step that changes the disk, with op one of create,
// write, chmod, sync, close, rename or syncdir and the path it acts on; an error it
// returns is that step's error. A failing write first writes half its data, as a
// write that runs out of space does. nil: no hook.
type Step func(op, path string) error

func (s Step) do(op, path string) error {
	if s == nil {
		return nil
	}
	return s(op, path)
}

// stepWriter passes each Write through the step.
type stepWriter struct {
	f    *os.File
	step Step
}

func (w stepWriter) Write(p []byte) (int, error) {
	if err := w.step.do("write", w.f.Name()); err != nil {
		n, _ := w.f.Write(p[:len(p)/2])
		return n, err
	}
	return w.f.Write(p)
}

// Stage writes what write produces to a new temporary file in dir, named by pattern
// (os.CreateTemp's, which should start with TempPrefix), and returns its name: the
// first half of an atomic replacement, which allocates everything the replacement
// needs. durable fsyncs the file; an undo copy that only this process reads back
// needs not. On an error nothing is left behind, and an error write returned is
// returned as it is.
func Stage(dir, pattern string, write func(io.Writer) error, durable bool, step Step) (tmp string, err error) {
	tmp, _, err = stage(osDir{}, dir, pattern, write, durable, step, false, 0o644)
	return tmp, err
}

// stage is Stage; with own it also takes an owner's lock on the temporary file
// (ownTemp) before writing a byte, and returns it for the caller to hold until the
// file is renamed or removed. perm is the file's mode.
func stage(d dirFS, dir, pattern string, write func(io.Writer) error, durable bool, step Step, own bool, perm fs.FileMode) (tmp string, owner *os.File, err error) {
	if err := step.do("create", dir); err != nil {
		return "", nil, err
	}
	var f *os.File
	var name string
	for {
		if f, name, err = d.createTemp(dir, pattern); err != nil {
			return "", nil, err
		}
		if !own {
			break
		}
		var swept bool
		if owner, swept, err = ownTemp(d, f, name); err != nil {
			f.Close()
			d.remove(name)
			return "", nil, err
		}
		if !swept {
			break
		}
		// A sweep took the new file for a dead writer's between its creation and
		// the lock: make another.
		f.Close()
	}
	defer func() {
		if err != nil {
			f.Close()
			d.remove(name)
			if owner != nil {
				owner.Close()
			}
		}
	}()
	if err = write(stepWriter{f, step}); err != nil {
		return "", nil, err
	}
	// CreateTemp makes 0600 files; darkroom's files are as readable as its
	// directories, but for secrets (WriteFilePerm).
	if err = step.do("chmod", name); err != nil {
		return "", nil, err
	}
	if err = f.Chmod(perm); err != nil {
		return "", nil, err
	}
	if durable {
		if err = step.do("sync", name); err != nil {
			return "", nil, err
		}
		if err = f.Sync(); err != nil {
			return "", nil, err
		}
	}
	if err = step.do("close", name); err != nil {
		return "", nil, err
	}
	if err = f.Close(); err != nil {
		return "", nil, err
	}
	return name, owner, nil
}

// Replace renames a staged file over name and fsyncs name's directory. On a failed
// rename the staged file is removed.
func Replace(tmp, name string, step Step) error {
	if err := step.do("rename", name); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	dir := filepath.Dir(name)
	if err := step.do("syncdir", dir); err != nil {
		return err
	}
	return SyncDir(dir)
}

// WriteFile replaces name with data, atomically and durably, in one write call.
func WriteFile(name string, data []byte, step Step) error {
	return WriteFilePerm(name, data, 0o644, step)
}

// WriteFilePerm is WriteFile for a file of mode perm: 0600 for a secret, which is
// never readable by others, not even as its temporary file (created 0600).
func WriteFilePerm(name string, data []byte, perm fs.FileMode, step Step) error {
	return replaceWith(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, perm, step)
}

// WriteFileFrom replaces name with what write produces, atomically and durably,
// streaming it through a buffer (an export is too large to hold). An error write
// returns is returned as it is; nothing is left under name then.
func WriteFileFrom(name string, write func(io.Writer) error, step Step) error {
	return replaceWith(name, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}, 0o644, step)
}

// replaceWith holds an owner's lock on its temporary file from its creation until
// it is renamed or removed, so that RemoveOrphan, run by any process, never takes
// it from under the write.
func replaceWith(name string, write func(io.Writer) error, perm fs.FileMode, step Step) error {
	tmp, owner, err := stage(osDir{}, filepath.Dir(name), TempPrefix+filepath.Base(name)+"-*", write, true, step, true, perm)
	if err != nil {
		return err
	}
	if owner != nil {
		defer owner.Close()
	}
	return Replace(tmp, name, step)
}

// SyncDir makes the directory entries in dir durable: after a rename, the file's
// own fsync does not cover the name pointing at it. On Windows it does nothing: a
// directory handle cannot be flushed there, and NTFS journals its metadata.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFileIn replaces name, a slash-separated path inside root, with data: the same
// writer through an os.Root, which no name (a symbolic link, "..") can leave. The
// temporary file beside name is owned as WriteFile's is. durable false leaves out
// both fsyncs, for a caller that makes the file durable later itself (a dataset's
// variants, which the run fsyncs behind it before its manifest names them).
func WriteFileIn(root *os.Root, name string, data []byte, durable bool) error {
	d := rootDir{root}
	dir := path.Dir(name)
	tmp, owner, err := stage(d, dir, TempPrefix+path.Base(name)+"-*", func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, durable, nil, true, 0o644)
	if err != nil {
		return err
	}
	if owner != nil {
		defer owner.Close()
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	if !durable {
		return nil
	}
	return SyncDirIn(root, dir)
}

// SyncDirIn is SyncDir for a directory inside root.
func SyncDirIn(root *os.Root, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// dirFS is where the writer makes its files: plain paths, or paths inside an
// os.Root.
type dirFS interface {
	createTemp(dir, pattern string) (f *os.File, name string, err error)
	open(name string) (*os.File, error)
	lstat(name string) (fs.FileInfo, error)
	remove(name string) error
}

type osDir struct{}

func (osDir) createTemp(dir, pattern string) (*os.File, string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}
func (osDir) open(name string) (*os.File, error)     { return os.Open(name) }
func (osDir) lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osDir) remove(name string) error               { return os.Remove(name) }

type rootDir struct{ r *os.Root }

// createTemp is os.CreateTemp inside the root: pattern's last "*" becomes a random
// number, tried again while the name exists. The number only makes names unique;
// nothing darkroom outputs depends on it. The name returned is inside the root (the
// file's own Name is the root's path joined to it).
func (d rootDir) createTemp(dir, pattern string) (*os.File, string, error) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	for range 10000 {
		name := path.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := d.r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", &fs.PathError{Op: "createtemp", Path: path.Join(dir, pattern), Err: fs.ErrExist}
}
func (d rootDir) open(name string) (*os.File, error)     { return d.r.Open(name) }
func (d rootDir) lstat(name string) (fs.FileInfo, error) { return d.r.Lstat(name) }
func (d rootDir) remove(name string) error               { return d.r.Remove(name) }
