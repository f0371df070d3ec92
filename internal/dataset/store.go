package dataset

import (
	"io"
	"io/fs"
	"os"
	"sync"
)

// Store is where a run writes: a folder on disk (Local) or a prefix of a bucket
// (OpenBucket). The runner reads and writes its output only through it, so the
// guarantees of the package documentation (outputs complete before the journal
// names them, resume from verified records, one run of a shard at a time) hold on
// both; what each one does to keep them is said on its type. Names are
// slash-separated and relative to the output.
type Store interface {
	// Open opens a file for reading; a missing one is an error wrapping
	// fs.ErrNotExist.
	Open(name string) (io.ReadCloser, error)
	// ReadFile reads a small file whole (darkroom-dataset.json, a names file);
	// a missing one is an error wrapping fs.ErrNotExist.
	ReadFile(name string) ([]byte, error)
	// Stat describes a file; a missing one is an error wrapping fs.ErrNotExist.
	Stat(name string) (fs.FileInfo, error)
	// Write puts data under name, whole: nobody sees a part of it under that name.
	// durable asks for it to survive a power loss before Write returns; a variant's
	// files are written without waiting and made durable by Settle. Errors are
	// coded (unavailable, permission_error).
	Write(name string, data []byte, durable bool) (FileRef, error)
	// Verify reports whether every file the record names is there with the
	// recorded size and SHA-256.
	Verify(rec *Record) bool
	// Journal opens the journal of a shard's run for appending, and keeps any other
	// run of the shard out of this output until it is closed: state_error when one
	// is in.
	Journal(name string) (Journal, error)
	// Remove removes a file (a journal: all of it); a missing one is no error.
	Remove(name string) error
	// Settle makes everything written so far durable.
	Settle() error
	// Tidy removes what a killed run of this shard left beside the records'
	// outputs (temporary files); it never removes an output.
	Tidy(recs []Record)
	// Manifests lists the shard manifests (manifest.shard-<i>-of-<n>.jsonl) at the
	// top of the output, for Merge to find.
	Manifests() ([]string, error)
}

// Journal is the append-only record of a run in progress: each Write is one or more
// whole manifest lines; after Sync returns, the lines written are kept.
type Journal interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// Local is a folder on disk as a run's output: each file is written to a temporary
// file and renamed, the journal is one file appended to and locked with flock, and
// the variants are made durable behind the run (see behind). out stays the
// caller's to close.
func Local(out *os.Root) Store { return &localStore{root: out} }

type localStore struct {
	root *os.Root

	mu     sync.Mutex
	behind *behind // made at the first variant written, waited for by Settle
}

func (l *localStore) Open(name string) (io.ReadCloser, error) { return l.root.Open(name) }

func (l *localStore) ReadFile(name string) ([]byte, error) { return l.root.ReadFile(name) }

func (l *localStore) Stat(name string) (fs.FileInfo, error) { return l.root.Stat(name) }

func (l *localStore) Write(name string, data []byte, durable bool) (FileRef, error) {
	if durable {
		return writeFile(l.root, name, data)
	}
	ref, err := writeVariantFile(l.root, name, data)
	if err != nil {
		return ref, err
	}
	l.mu.Lock()
	if l.behind == nil {
		l.behind = newBehind(l.root)
	}
	b := l.behind
	l.mu.Unlock()
	b.add(name)
	return ref, nil
}

func (l *localStore) Verify(rec *Record) bool { return verify(l.root, rec) }

func (l *localStore) Journal(name string) (Journal, error) { return openJournal(l.root, name) }

func (l *localStore) Remove(name string) error {
	if err := l.root.Remove(name); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

func (l *localStore) Settle() error {
	l.mu.Lock()
	b := l.behind
	l.behind = nil
	l.mu.Unlock()
	if b != nil {
		if err := b.wait(); err != nil {
			return err
		}
	}
	return syncDir(l.root, ".")
}

func (l *localStore) Tidy(recs []Record) { removeStale(l.root, recs) }

func (l *localStore) Manifests() ([]string, error) {
	entries, err := fs.ReadDir(l.root.FS(), ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && shardManifest.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
