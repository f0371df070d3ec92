package dataset

import (
	"maps"
	"os"
	"path"
	"slices"
	"sync"

	"darkroom"
)

// behind makes the variant files durable behind the run: each file a worker has
// written (without waiting for the disk) is fsynced by one of a few goroutines that
// do nothing else, so the run's CPU and the disk's latency overlap. wait, before the
// manifest is written, fsyncs what is left and the folders that hold the files.
// Neither a whole-file-system sync (it waits for every other process's writes too)
// nor an fsync in the worker (it stalled a run on the disk: 3.8 s of wall for 2.7 s
// of CPU over 48 images) does that.
type behind struct {
	out   *os.Root
	names chan string
	wg    sync.WaitGroup

	mu   sync.Mutex
	err  error
	dirs map[string]bool
}

// behindSyncers is the number of goroutines that fsync; an fsync is mostly waiting.
const behindSyncers = 4

func newBehind(out *os.Root) *behind {
	b := &behind{out: out, names: make(chan string, 256), dirs: map[string]bool{}}
	for range behindSyncers {
		b.wg.Go(func() {
			for name := range b.names {
				err := syncFile(out, name)
				b.mu.Lock()
				if err != nil && b.err == nil {
					b.err = darkroom.Wrap(darkroom.Unavailable, err, "sync %s", name)
				}
				b.dirs[path.Dir(name)] = true
				b.mu.Unlock()
			}
		})
	}
	return b
}

// add hands over a file written under its final name.
func (b *behind) add(name string) { b.names <- name }

// wait fsyncs every file handed over and then their folders; it returns the first
// failure. It must be called once, after the last add.
func (b *behind) wait() error {
	close(b.names)
	b.wg.Wait()
	if b.err != nil {
		return b.err
	}
	for _, d := range slices.Sorted(maps.Keys(b.dirs)) {
		if err := syncDir(b.out, d); err != nil {
			return darkroom.Wrap(darkroom.Unavailable, err, "sync folder %s", d)
		}
	}
	return nil
}

// syncFile fsyncs a file by name (opened for writing: some systems flush only
// through a handle that may write).
func syncFile(out *os.Root, name string) error {
	f, err := out.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
