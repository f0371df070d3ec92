//go:build !linux

package dataset

import (
	"os"
	"path"
)

// syncWritten makes every file the run wrote under out durable: each file, then
// each folder that holds one (without syncfs(2), file by file).
func syncWritten(out *os.Root, names []string) error {
	dirs := map[string]bool{}
	for _, n := range names {
		if err := syncFile(out, n); err != nil {
			return err
		}
		dirs[path.Dir(n)] = true
	}
	for d := range dirs {
		// Windows cannot open a folder for syncing; its renames are durable
		// once the files are.
		if err := syncFile(out, d); err != nil && !isDir(out, d) {
			return err
		}
	}
	return nil
}

func syncFile(out *os.Root, name string) error {
	f, err := out.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func isDir(out *os.Root, name string) bool {
	fi, err := out.Stat(name)
	return err == nil && fi.IsDir()
}
