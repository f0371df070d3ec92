package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// Names of the files and directories of an image (see doc.go).
const (
	headFile    = "HEAD"
	logFile     = "log.jsonl"
	metaFile    = "meta.json"
	lockFile    = "lock"
	objectsDir  = "objects"
	headsDir    = "refs/heads"
	tagsDir     = "refs/tags"
	mainBranch  = "main"
	baselineTag = "baseline"
	minPrefix   = 4 // shortest hash prefix Resolve accepts, as git does
)

// MainBranch is the branch Init creates and checks out.
const MainBranch = mainBranch

// Store is the versioned history of every image in one workspace. Its methods are safe
// for concurrent use, also by several processes sharing the workspace: mutations of
// one image are serialized, different images proceed in parallel.
//
// Besides the errors each method lists, any of them returns invalid_input for a
// malformed image id, not_found for an unknown image, state_error when the image's
// files are damaged (Check lists how), permission_error when the workspace refuses
// access or the image directory is a symbolic link, unavailable (nothing changed) when
// the disk is full or the workspace over its quota, and internal_error for other I/O
// failures. A mutation that returns an error has not happened (doc.go, "A failed call").
type Store struct {
	dir  string // <root>/images
	now  func() time.Time
	disk *disk // how images are written; nil is the plain file system

	mu     sync.Mutex
	images map[string]*sync.RWMutex // in-process half of each image's lock
	// replayed holds the images this store has replayed the whole log of (replay.go):
	// the first access to an image does, the later ones check the last entry only.
	replayed map[string]bool
	initMu   sync.Mutex
}

// Open returns the store of the workspace at root, creating root/images if needed.
func Open(root string) (*Store, error) {
	if root == "" {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "open history: workspace root is empty")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, ioError(err, "open history")
	}
	// The messages name no directory: the caller names the workspace as its client
	// knows it, and a full disk's error (ioError) keeps no path for it to scrub.
	dir := filepath.Join(abs, "images")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, ioError(err, "open history")
	}
	return &Store{dir: dir, now: time.Now, images: map[string]*sync.RWMutex{}, replayed: map[string]bool{}}, nil
}

// Head is where an image's HEAD is: the hash it resolves to and the branch it names,
// or Detached when it names a snapshot directly.
type Head struct {
	Hash     string `json:"hash"`
	Branch   string `json:"branch,omitempty"`
	Detached bool   `json:"detached"`
}

// Refs are an image's branches and tags, each name mapped to its hash.
type Refs struct {
	Branches map[string]string `json:"branches"`
	Tags     map[string]string `json:"tags"`
}

// image is one image's directory; its methods assume the caller holds its lock.
type image struct {
	id  string
	dir string
	d   *disk
}

// headValue is the content of HEAD: a branch name, or a hash when detached.
type headValue struct {
	branch string
	hash   string
}

func (h headValue) encode() []byte {
	if h.branch != "" {
		return []byte("ref: refs/heads/" + h.branch + "\n")
	}
	return []byte(h.hash + "\n")
}

func (h headValue) String() string {
	if h.branch != "" {
		return "branch " + h.branch
	}
	return "detached at " + h.hash
}

func damaged(id, format string, args ...any) error {
	return darkroom.Errorf(darkroom.StateError, "image %q is damaged: %s", id, fmt.Sprintf(format, args...))
}

// Init creates image id with baseline as its first snapshot, on branch main, tagged
// baseline, HEAD on main. meta is an opaque JSON object kept beside the history (source
// file name, dimensions); nil stores {}. It returns the baseline's hash.
// Returns invalid_input for a bad id, state or meta, limit_exceeded for an oversized
// one, state_error if the image exists.
func (s *Store) Init(id string, baseline State, meta json.RawMessage) (string, error) {
	if err := ValidateName("image id", id); err != nil {
		return "", err
	}
	canon, hash, err := encodeState(baseline)
	if err != nil {
		return "", err
	}
	metaCanon, err := encodeMeta(meta)
	if err != nil {
		return "", err
	}

	// Inits are serialized workspace-wide so that a leftover build directory seen under
	// the lock is known to be from a crashed Init and can be removed.
	s.initMu.Lock()
	defer s.initMu.Unlock()
	lf, err := os.OpenFile(filepath.Join(s.dir, "."+lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", ioError(err, "init image %q", id)
	}
	defer lf.Close()
	if err := fsx.Lock(lf, true); err != nil {
		return "", ioError(err, "init image %q: lock workspace", id)
	}
	defer fsx.Unlock(lf)

	final := filepath.Join(s.dir, DirName(id))
	if _, err := os.Lstat(final); err == nil {
		return "", darkroom.Errorf(darkroom.StateError, "init image %q: it already exists", id)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", ioError(err, "init image %q", id)
	}
	s.removeStaleInits()

	// The image is built in a hidden directory and published by one rename, so it
	// either exists complete or not at all, whenever the process dies.
	tmp, err := os.MkdirTemp(s.dir, tempPrefix+"init-*")
	if err != nil {
		return "", ioError(err, "init image %q", id)
	}
	published := false
	defer func() {
		if !published {
			os.RemoveAll(tmp)
		}
	}()
	now := s.now().UTC()
	var log []byte
	for _, e := range []LogEntry{
		{Time: now, Op: OpInit, Hash: hash, Ref: "refs/heads/" + mainBranch, Label: "baseline"},
		{Time: now, Op: OpTag, Hash: hash, Ref: "refs/tags/" + baselineTag},
	} {
		line, err := encodeLogEntry(e, nil)
		if err != nil {
			return "", darkroom.Wrap(darkroom.InternalError, err, "init image %q", id)
		}
		log = append(log, line...)
	}
	build := func() error {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		for _, d := range []string{objectsDir, headsDir, tagsDir} {
			if err := os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(d)), 0o755); err != nil {
				return err
			}
		}
		files := []struct {
			name string
			data []byte
		}{
			{objectsDir + "/" + hash + ".json", canon},
			{headsDir + "/" + mainBranch, []byte(hash + "\n")},
			{tagsDir + "/" + baselineTag, []byte(hash + "\n")},
			{headFile, headValue{branch: mainBranch}.encode()},
			{metaFile, metaCanon},
			{logFile, log},
			{lockFile, nil},
		}
		for _, f := range files {
			if err := writeFileSync(filepath.Join(tmp, filepath.FromSlash(f.name)), f.data); err != nil {
				return err
			}
		}
		for _, d := range []string{objectsDir, headsDir, tagsDir, "refs", "."} {
			if err := fsx.SyncDir(filepath.Join(tmp, filepath.FromSlash(d))); err != nil {
				return err
			}
		}
		return nil
	}
	if err := build(); err != nil {
		return "", ioError(err, "init image %q", id)
	}
	if err := s.disk.rename(tmp, final); err != nil {
		return "", ioError(err, "init image %q", id)
	}
	published = true
	if err := s.disk.syncDir(s.dir); err != nil {
		// The image is in place but its name is not durable: take it back, so a
		// failed Init has not happened and the retry creates it afresh.
		if rerr := os.Rename(final, tmp); rerr == nil {
			published = false
		} else {
			ee := darkroom.Wrap(darkroom.InternalError, osReason(err), "init image %q: created but not durable, and taking it back failed (%v)", id, osReason(rerr))
			ee.Details = map[string]any{"outcome": "created"}
			return "", ee
		}
		return "", ioError(err, "init image %q", id)
	}
	return hash, nil
}

// removeStaleInits deletes build directories of Inits that died before publishing.
// The caller holds the workspace lock, so no live Init owns one.
func (s *Store) removeStaleInits() int {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, de := range des {
		if strings.HasPrefix(de.Name(), tempPrefix+"init-") && os.RemoveAll(filepath.Join(s.dir, de.Name())) == nil {
			n++
		}
	}
	return n
}

func encodeMeta(meta json.RawMessage) ([]byte, error) {
	if len(meta) > MaxMetaBytes {
		e := darkroom.Errorf(darkroom.LimitExceeded, "meta: %d bytes, over the limit of %d", len(meta), MaxMetaBytes)
		e.Details = map[string]any{"field": "meta", "limit": MaxMetaBytes}
		return nil, e
	}
	canon, err := canonicalObject("meta", meta)
	if err != nil {
		return nil, err
	}
	if canon == nil {
		canon = []byte("{}")
	}
	return canon, nil
}

// ListImages returns the ids of the workspace's images, sorted.
func (s *Store) ListImages() ([]string, error) {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, ioError(err, "list images")
	}
	ids := []string{}
	for _, de := range des {
		// Symbolic links are not images: following one could leave the workspace.
		if id, ok := IDFromDirName(de.Name()); ok && de.IsDir() && de.Type()&fs.ModeSymlink == 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // by id: DirName's order differs once ids have upper case
	return ids, nil
}

// Commit records st as a new snapshot on HEAD's branch, or moves a detached HEAD to
// it. The parent is HEAD's previous hash. A state equal to its parent is still
// recorded (with its label), as git commit --allow-empty does, unless the log's last
// entry is that same commit (see repeat.go); compare Hash(st) with Head first to skip it. Returns invalid_input or limit_exceeded for a state or label
// the store refuses.
func (s *Store) Commit(id string, st State, label string) (LogEntry, error) {
	canon, hash, err := encodeState(st)
	if err != nil {
		return LogEntry{}, err
	}
	if err := checkLabel(label); err != nil {
		return LogEntry{}, err
	}
	var out LogEntry
	err = s.write(id, func(im *image) error {
		var err error
		out, err = s.commitLocked(im, canon, hash, label)
		return err
	})
	return out, err
}

// Committed is what Update committed: its log entry, HEAD just after it and the state
// as stored. A caller describing its own commit reads it from here: by the time it
// asks the store again, a concurrent call may have moved HEAD.
type Committed struct {
	LogEntry
	Head  Head
	State State
}

// Update runs fn on a copy of HEAD's state and commits what fn leaves, all under the
// image's lock, so concurrent read-modify-write edits never lose one another's update.
// If fn returns an error nothing is committed and the error is returned as is. fn must
// not call the store for the same image: it would wait for itself.
func (s *Store) Update(id, label string, fn func(st *State) error) (Committed, error) {
	if err := checkLabel(label); err != nil {
		return Committed{}, err
	}
	var out Committed
	err := s.write(id, func(im *image) error {
		h, err := im.head()
		if err != nil {
			return err
		}
		st, err := im.readObject(h.Hash)
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		canon, hash, err := encodeState(st)
		if err != nil {
			return err
		}
		// The state as Get would return it: canonical encoding may change its form.
		stored, err := decodeState(canon)
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "image %q: re-read the state to commit", im.id)
		}
		e, err := s.commitLocked(im, canon, hash, label)
		if err != nil {
			return err
		}
		out = Committed{LogEntry: e, Head: Head{Hash: hash, Detached: e.Ref == "HEAD"}, State: stored}
		if !out.Head.Detached {
			out.Head.Branch = strings.TrimPrefix(e.Ref, "refs/heads/")
		}
		return nil
	})
	return out, err
}

func checkLabel(label string) error {
	if len(label) > MaxLabelBytes {
		e := darkroom.Errorf(darkroom.LimitExceeded, "label: %d bytes, over the limit of %d", len(label), MaxLabelBytes)
		e.Details = map[string]any{"field": "label", "limit": MaxLabelBytes}
		return e
	}
	if !utf8.ValidString(label) {
		return invalidField("label", "not valid UTF-8")
	}
	return nil
}

// commitLocked writes in the order that makes a crash harmless: the object, then the
// log entry, then the ref. A crash before the log leaves an unreferenced object; a
// crash after it leaves an entry the next access completes (see recoverLocked). The
// log line carries the state (doc.go, "Crash safety"), so the object is written without
// an fsync; a state too large to carry is fsynced as its object before the line.
func (s *Store) commitLocked(im *image, canon []byte, hash, label string) (LogEntry, error) {
	hv, err := im.readHead()
	if err != nil {
		return LogEntry{}, err
	}
	e := LogEntry{Time: s.now().UTC(), Op: OpCommit, Hash: hash, Label: label}
	if hv.branch != "" {
		e.Ref = "refs/heads/" + hv.branch
		parent, ok, err := im.readRef(e.Ref)
		if err != nil {
			return LogEntry{}, err
		}
		if !ok {
			return LogEntry{}, damaged(im.id, "HEAD names branch %q, which does not exist", hv.branch)
		}
		e.Parent = parent
	} else {
		e.Ref = "HEAD"
		e.Parent = hv.hash
	}
	if last, ok := im.repeatOf(e); ok {
		return last, nil
	}
	carried := canon
	if len(canon) > maxCarried {
		carried = nil
	}
	if err := im.writeObject(hash, canon, carried == nil); err != nil {
		return LogEntry{}, err
	}
	if err := im.apply(e, carried); err != nil {
		return LogEntry{}, err
	}
	return e, nil
}

// apply logs e (carrying state, when not nil) and then makes the refs say what it
// says, or, when it cannot, leaves the image as it was and returns the error: a call
// that fails has not happened (see doc.go, "A failed call"). Everything that allocates
// space is done before the log moves: the ref's new content is staged in a temporary
// file. After the log append only the rename remains, and if it fails the entry is
// cut off the log before the error is returned, so neither the caller nor recovery
// sees the operation. The log's fsync is the only one: the staged ref and the rename
// are not made durable, since the log, which is, lets recovery redo them (replay.go).
func (im *image) apply(e LogEntry, state []byte) error {
	path, data := im.refFile(e)
	dir := filepath.Dir(path)
	what := fmt.Sprintf("image %q: %s %s", im.id, e.Op, e.Ref)
	tmp, err := im.d.stage(dir, data, false)
	if err != nil {
		return ioError(err, "%s: write it", what)
	}
	defer func() {
		// The staged file, unless it was renamed into place.
		if tmp != "" {
			os.Remove(tmp)
		}
	}()

	logPath := filepath.Join(im.dir, logFile)
	size, err := im.d.appendLog(logPath, e, state)
	if err != nil {
		if size >= 0 {
			if rerr := im.d.truncateLog(logPath, size); rerr != nil {
				return im.stuck(e, state, err, rerr)
			}
		}
		if errors.Is(err, errLogDamaged) {
			return im.logError(err)
		}
		return ioError(err, "%s: append to log", what)
	}
	if err := im.d.rename(tmp, path); err != nil {
		if rerr := im.d.truncateLog(logPath, size); rerr != nil {
			return im.stuck(e, state, err, rerr)
		}
		return ioError(err, "%s: move it", what)
	}
	tmp = ""
	return nil
}

// stuck handles the double fault: e is logged, the step after it failed with err and
// taking the entry back failed with rerr. The operation can no longer be undone, so it
// is finished instead if possible, and the call succeeds; otherwise the error says
// that it takes effect at the next access, which a retry must not repeat.
func (im *image) stuck(e LogEntry, state []byte, err, rerr error) error {
	if im.redo(e, state) == nil {
		return nil
	}
	ee := darkroom.Wrap(darkroom.InternalError, osReason(err), "image %q: %s logged but not applied, and taking it back failed (%v); the next access completes it: do not retry", im.id, e.Op, osReason(rerr))
	ee.Details = map[string]any{"outcome": "logged", "hash": e.Hash, "ref": e.Ref}
	return ee
}

// refFile returns the file e rewrites (a ref or HEAD) and what it puts there.
func (im *image) refFile(e LogEntry) (path string, data []byte) {
	switch {
	case e.Op == OpCheckout && e.Ref != "HEAD":
		_, name, _ := splitRef(e.Ref)
		return filepath.Join(im.dir, headFile), headValue{branch: name}.encode()
	case e.Ref == "HEAD":
		return filepath.Join(im.dir, headFile), headValue{hash: e.Hash}.encode()
	default:
		return filepath.Join(im.dir, filepath.FromSlash(e.Ref)), []byte(e.Hash + "\n")
	}
}

// redo makes the refs agree with e, and the object it names with the state it
// carries (nil: none). It is idempotent, which lets recovery run it again for an entry
// whose ref update a crash interrupted. Its writes are fsynced: it is the rare path.
func (im *image) redo(e LogEntry, state []byte) error {
	if state != nil {
		if err := im.writeObject(e.Hash, state, true); err != nil {
			return err
		}
	}
	path, data := im.refFile(e)
	dir, name := filepath.Split(path)
	if err := im.d.writeFileAtomic(dir, name, data); err != nil {
		return ioError(err, "image %q: complete the logged %s of %s", im.id, e.Op, e.Ref)
	}
	return nil
}

// Head returns where HEAD is.
func (s *Store) Head(id string) (Head, error) {
	var out Head
	err := s.read(id, func(im *image) error {
		var err error
		out, err = im.head()
		return err
	})
	return out, err
}

// Resolve returns the hash spec names. spec is read explicitly, never guessed at:
// "HEAD"; "refs/heads/<b>" or "refs/tags/<t>"; a branch or tag name; a full hash or
// an unambiguous prefix of at least 4 hex digits. A spec that matches more than one of
// these (a branch and a hash prefix, two hashes) is versioning_error listing the
// candidates; one that matches nothing is not_found; one that cannot be any of them
// is invalid_input.
func (s *Store) Resolve(id, spec string) (string, error) {
	var out string
	err := s.read(id, func(im *image) error {
		t, err := im.resolve(spec)
		out = t.hash
		return err
	})
	return out, err
}

// Get returns the state of snapshot hash (a full hash; Resolve a spec first).
// Returns invalid_input for a malformed hash, not_found for an unknown one.
func (s *Store) Get(id, hash string) (State, error) {
	if !isFullHash(hash) {
		e := darkroom.Errorf(darkroom.InvalidInput, "hash %q is not 64 lowercase hex digits", hash)
		e.Details = map[string]any{"field": "hash"}
		return State{}, e
	}
	var out State
	err := s.read(id, func(im *image) error {
		var err error
		out, err = im.readObject(hash)
		return err
	})
	return out, err
}

// Log returns up to limit operations (all when limit <= 0), newest first.
func (s *Store) Log(id string, limit int) ([]LogEntry, error) {
	var out []LogEntry
	err := s.read(id, func(im *image) error {
		entries, _, err := readLogBackward(filepath.Join(im.dir, logFile), limit)
		if err != nil {
			return im.logError(err)
		}
		out = entries
		return nil
	})
	return out, err
}

// Refs returns the image's branches and tags.
func (s *Store) Refs(id string) (Refs, error) {
	var out Refs
	err := s.read(id, func(im *image) error {
		var err error
		out, err = im.refs()
		return err
	})
	return out, err
}

// Meta returns the metadata object given to Init or SetMeta.
func (s *Store) Meta(id string) (json.RawMessage, error) {
	var out json.RawMessage
	err := s.read(id, func(im *image) error {
		b, err := os.ReadFile(filepath.Join(im.dir, metaFile))
		if err != nil {
			return ioError(err, "image %q: read meta", im.id)
		}
		if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
			return damaged(im.id, "%s is not a JSON object", metaFile)
		}
		out = b
		return nil
	})
	return out, err
}

// SetMeta replaces the image's metadata object. Metadata is not versioned: it
// describes the source, which no edit changes.
func (s *Store) SetMeta(id string, meta json.RawMessage) error {
	canon, err := encodeMeta(meta)
	if err != nil {
		return err
	}
	return s.write(id, func(im *image) error {
		if err := im.d.writeFileAtomic(im.dir, metaFile, canon); err != nil {
			return ioError(err, "image %q: write meta", im.id)
		}
		return nil
	})
}

// imageMutex returns the in-process lock of image id. Flock alone would serialize
// goroutines too, but each waiter would block an OS thread in the kernel.
func (s *Store) imageMutex(id string) *sync.RWMutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.images[id]
	if !ok {
		m = new(sync.RWMutex)
		s.images[id] = m
	}
	return m
}

// lock opens image id and takes its lock: the in-process mutex, then an flock on its
// lock file so other processes sharing the workspace are excluded too.
func (s *Store) lock(id string, exclusive bool) (*image, func(), error) {
	if err := ValidateName("image id", id); err != nil {
		return nil, nil, err
	}
	im := &image{id: id, dir: filepath.Join(s.dir, DirName(id)), d: s.disk}
	fi, err := os.Lstat(im.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e := darkroom.Errorf(darkroom.NotFound, "image %q not found", id)
		e.Details = map[string]any{"image_id": id}
		return nil, nil, e
	case err != nil:
		return nil, nil, ioError(err, "open image %q", id)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, nil, darkroom.Errorf(darkroom.PermissionError, "image %q is a symbolic link; the store does not follow links out of the workspace", id)
	case !fi.IsDir():
		return nil, nil, damaged(id, "it is not a directory")
	}
	m := s.imageMutex(id)
	lock, unlock := m.RLock, m.RUnlock
	if exclusive {
		lock, unlock = m.Lock, m.Unlock
	}
	lock()
	f, err := openLockFile(filepath.Join(im.dir, lockFile))
	if err != nil && !exclusive && readOnly(err) {
		// A workspace this process cannot write (mounted read-only, or another
		// user's) that has no lock file yet: no writer of this workspace has run
		// since it was made, and this process cannot become one, so a read needs
		// no lock; the in-process one still orders it with this process's calls.
		release := func() { unlock() }
		return im, release, nil
	}
	if err != nil {
		unlock()
		return nil, nil, ioError(err, "lock image %q", id)
	}
	if err := fsx.Lock(f, exclusive); err != nil {
		f.Close()
		unlock()
		return nil, nil, ioError(err, "lock image %q", id)
	}
	release := func() {
		fsx.Unlock(f)
		f.Close()
		unlock()
	}
	return im, release, nil
}

// openLockFile opens an image's lock file, creating it if it is missing. It is
// opened for reading: flock takes either kind of lock through any open file, so a
// workspace that is read-only to this process (a read-only mount, another user's
// files) can still be read under the lock the writers take.
func openLockFile(name string) (*os.File, error) {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(name, os.O_RDONLY|os.O_CREATE, 0o644)
	}
	return f, err
}

// readOnly reports whether err means the file system refuses this process a write:
// mounted read-only, or not writable by its user.
func readOnly(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// read runs fn under a shared lock. If the image's log has not been replayed by this
// store yet and the image disagrees with it, or a crash left the last logged operation
// unapplied, it first retakes the lock exclusively to repair that, so that readers
// never see refs that disagree with the log.
func (s *Store) read(id string, fn func(*image) error) error {
	im, release, err := s.lock(id, false)
	if err != nil {
		return err
	}
	dirty := false
	if s.isReplayed(id) {
		var pending *logLine
		pending, err = im.pending()
		dirty = pending != nil
	} else {
		// Under the shared lock, replay only looks; a reader that finds the image
		// agreeing with its log (the usual case, and the only one on a read-only
		// workspace) has replayed it.
		var r replayResult
		r, err = im.replay(false)
		dirty = r.dirty
		if err == nil && !dirty {
			s.setReplayed(id)
		}
	}
	if err != nil {
		release()
		return err
	}
	if !dirty {
		defer release()
		return fn(im)
	}
	release()
	return s.write(id, fn)
}

// write runs fn under the exclusive lock, after making the image agree with its log:
// the whole log the first time this store accesses the image, the last entry after.
func (s *Store) write(id string, fn func(*image) error) error {
	im, release, err := s.lock(id, true)
	if err != nil {
		return err
	}
	defer release()
	if _, err := s.recover(im); err != nil {
		return err
	}
	return fn(im)
}

// recover makes im agree with its log under the exclusive lock, as write describes,
// and returns what it repaired.
func (s *Store) recover(im *image) ([]string, error) {
	if s.isReplayed(im.id) {
		note, err := im.recoverLocked()
		if note == "" {
			return nil, err
		}
		return []string{note}, err
	}
	r, err := im.replay(true)
	if err != nil {
		return nil, err
	}
	s.setReplayed(im.id)
	return r.notes, nil
}

func (s *Store) isReplayed(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replayed[id]
}

func (s *Store) setReplayed(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replayed[id] = true
}
