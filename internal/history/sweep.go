package history

import (
	"os"
	"path/filepath"

	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// RemoveStaleTemps removes what writes killed midway (kill -9, a power cut) left in
// the store, and nothing a live process is writing: the temporary files of each
// image whose lock it can take at once (every write in an image holds that lock, so
// under it every temporary file there is a dead writer's), and the build directories
// of Inits that died (under the workspace's Init lock, if free). An image whose lock
// is held is left for the next time. It returns how many it removed. Opening a
// workspace runs it (internal/edit).
func (s *Store) RemoveStaleTemps() int {
	n := 0
	if lf, err := os.Open(filepath.Join(s.dir, "."+lockFile)); err == nil {
		if ok, _ := fsx.TryLock(lf); ok {
			n += s.removeStaleInits()
			fsx.Unlock(lf)
		}
		lf.Close()
	}
	ids, err := s.ListImages()
	if err != nil {
		return n
	}
	for _, id := range ids {
		im := &image{id: id, dir: filepath.Join(s.dir, DirName(id)), d: s.disk}
		f, err := os.Open(filepath.Join(im.dir, lockFile))
		if err != nil {
			continue // no lock file: no write has run there
		}
		if ok, _ := fsx.TryLock(f); ok {
			n += im.removeTemps()
			fsx.Unlock(f)
		}
		f.Close()
	}
	return n
}
