package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"darkroom"
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
	initMu sync.Mutex
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
	return &Store{dir: dir, now: time.Now, images: map[string]*sync.RWMutex{}}, nil
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
	if err := lockFD(lf, true); err != nil {
		return "", ioError(err, "init image %q: lock workspace", id)
	}
	defer unlockFD(lf)

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
		line, err := encodeLogEntry(e)
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
			if err := syncDir(filepath.Join(tmp, filepath.FromSlash(d))); err != nil {
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
func (s *Store) removeStaleInits() {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if strings.HasPrefix(de.Name(), tempPrefix+"init-") {
			os.RemoveAll(filepath.Join(s.dir, de.Name()))
		}
	}
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
// recorded (with its label), as git commit --allow-empty does; compare Hash(st) with
// Head first to skip it. Returns invalid_input or limit_exceeded for a state or label
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
// crash after it leaves an entry the next access completes (see recoverLocked).
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
	if err := im.writeObject(hash, canon); err != nil {
		return LogEntry{}, err
	}
	if err := im.apply(e); err != nil {
		return LogEntry{}, err
	}
	return e, nil
}

// apply logs e and then makes the refs say what it says, or, when it cannot, leaves
// the image as it was and returns the error: a call that fails has not happened (see
// doc.go, "A failed call"). Everything that allocates space is done before the log
// moves: the ref's new content and a copy of its old one are staged in temporary
// files. After the log append only a rename and fsyncs remain, and if one of them
// fails the old ref is put back and the entry cut off the log before the error is
// returned, so neither the caller nor recovery sees the operation.
func (im *image) apply(e LogEntry) error {
	path, data := im.refFile(e)
	dir := filepath.Dir(path)
	what := fmt.Sprintf("image %q: %s %s", im.id, e.Op, e.Ref)
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ioError(err, "%s: read it", what)
	}
	tmp, err := im.d.stage(dir, data, true)
	if err != nil {
		return ioError(err, "%s: write it", what)
	}
	undo := ""
	defer func() {
		// Whichever staged file was not renamed into place; a name that was is gone.
		for _, f := range []string{tmp, undo} {
			if f != "" {
				os.Remove(f)
			}
		}
	}()
	if existed {
		if undo, err = im.d.stage(dir, old, false); err != nil {
			return ioError(err, "%s: keep its old value", what)
		}
	}

	logPath := filepath.Join(im.dir, logFile)
	size, err := im.d.appendLog(logPath, e)
	if err != nil {
		if size >= 0 {
			if rerr := im.d.truncateLog(logPath, size); rerr != nil {
				return im.stuck(e, err, rerr)
			}
		}
		if errors.Is(err, errLogDamaged) {
			return im.logError(err)
		}
		return ioError(err, "%s: append to log", what)
	}
	if err := im.d.rename(tmp, path); err != nil {
		if rerr := im.d.truncateLog(logPath, size); rerr != nil {
			return im.stuck(e, err, rerr)
		}
		return ioError(err, "%s: move it", what)
	}
	tmp = ""
	if err := im.d.syncDir(dir); err != nil {
		// The new value is in place but not durable: put the old one back first, so
		// that the log never lacks an entry the refs already show.
		var rerr error
		if existed {
			// The copy was staged without an fsync (this path is rare); make it
			// durable before it takes the ref's place again.
			if rerr = im.d.syncFile(undo); rerr == nil {
				if rerr = im.d.rename(undo, path); rerr == nil {
					undo = ""
				}
			}
		} else {
			rerr = im.d.remove(path)
		}
		if rerr == nil {
			rerr = im.d.syncDir(dir)
		}
		if rerr == nil {
			rerr = im.d.truncateLog(logPath, size)
		}
		if rerr != nil {
			return im.stuck(e, err, rerr)
		}
		return ioError(err, "%s: make it durable", what)
	}
	return nil
}

// stuck handles the double fault: e is logged, the step after it failed with err and
// taking the entry back failed with rerr. The operation can no longer be undone, so it
// is finished instead if possible, and the call succeeds; otherwise the error says
// that it takes effect at the next access, which a retry must not repeat.
func (im *image) stuck(e LogEntry, err, rerr error) error {
	if im.redo(e) == nil {
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

// redo makes the refs agree with e. It is idempotent, which lets recovery run it again
// for an entry whose ref update a crash interrupted.
func (im *image) redo(e LogEntry) error {
	path, data := im.refFile(e)
	dir, name := filepath.Split(path)
	if err := im.d.writeFileAtomic(dir, name, data); err != nil {
		return ioError(err, "image %q: complete the logged %s of %s", im.id, e.Op, e.Ref)
	}
	return nil
}

// Checkout moves HEAD: a branch makes it name the branch, a tag or hash detaches it at
// that snapshot, and "HEAD" leaves it where it is (the call is still logged). See
// Resolve for how spec is read. Returns not_found, invalid_input or versioning_error
// as Resolve does.
func (s *Store) Checkout(id, spec string) (Head, error) {
	var out Head
	err := s.write(id, func(im *image) error {
		var err error
		out, err = s.checkoutLocked(im, spec)
		return err
	})
	return out, err
}

func (s *Store) checkoutLocked(im *image, spec string) (Head, error) {
	t, err := im.resolve(spec)
	if err != nil {
		return Head{}, err
	}
	cur, err := im.head()
	if err != nil {
		return Head{}, err
	}
	e := LogEntry{Time: s.now().UTC(), Op: OpCheckout, Hash: t.hash, Parent: cur.Hash, Ref: "HEAD", Label: spec}
	out := Head{Hash: t.hash, Detached: true}
	branch := t.branch
	if t.head {
		branch = cur.Branch
	}
	if branch != "" {
		e.Ref = "refs/heads/" + branch
		out = Head{Hash: t.hash, Branch: branch}
	}
	return out, im.apply(e)
}

// Moved is what an operation that moves HEAD or names a snapshot left: its log
// entry, HEAD just after it and the state of the snapshot the entry names, all read
// under the image's lock, so a concurrent call cannot change what it describes.
type Moved struct {
	LogEntry
	Head  Head
	State State
}

// moved describes e with HEAD and the state of e.Hash as they are under the lock.
func (im *image) moved(e LogEntry) (Moved, error) {
	h, err := im.head()
	if err != nil {
		return Moved{}, err
	}
	st, err := im.readObject(e.Hash)
	if err != nil {
		return Moved{}, err
	}
	return Moved{LogEntry: e, Head: h, State: st}, nil
}

// CheckoutState is Checkout returning, besides HEAD, the state it now names, read
// under the same lock.
func (s *Store) CheckoutState(id, spec string) (Moved, error) {
	var out Moved
	err := s.write(id, func(im *image) error {
		h, err := s.checkoutLocked(im, spec)
		if err != nil {
			return err
		}
		out, err = im.moved(LogEntry{Op: OpCheckout, Hash: h.Hash})
		return err
	})
	return out, err
}

// BranchCheckout creates branch name at from (HEAD when empty) and checks it out, as
// one operation under one lock: if the checkout fails, the branch is taken back, so
// a failed call has not happened (doc.go, "A failed call"). Errors as Branch and
// Checkout.
func (s *Store) BranchCheckout(id, name, from string) (Moved, error) {
	var out Moved
	err := s.write(id, func(im *image) error {
		logPath := filepath.Join(im.dir, logFile)
		fi, err := os.Stat(logPath)
		if err != nil {
			return ioError(err, "image %q: branch %s", im.id, name)
		}
		e, err := s.newRefLocked(im, "branch", name, from)
		if err != nil {
			return err
		}
		h, err := s.checkoutLocked(im, "refs/heads/"+name)
		if err != nil {
			// Take the branch back: its ref, then its log entry.
			ref := filepath.Join(im.dir, filepath.FromSlash(e.Ref))
			rerr := im.d.remove(ref)
			if rerr == nil {
				rerr = im.d.syncDir(filepath.Dir(ref))
			}
			if rerr == nil {
				rerr = im.d.truncateLog(logPath, fi.Size())
			}
			if rerr != nil {
				ee := darkroom.Wrap(darkroom.InternalError, osReason(err), "image %q: branch %s was created but checking it out failed, and taking it back failed too (%v)", im.id, name, osReason(rerr))
				ee.Details = map[string]any{"outcome": "branch created", "hash": e.Hash, "ref": e.Ref}
				return ee
			}
			return err
		}
		out, err = im.moved(LogEntry{Time: e.Time, Op: OpCheckout, Hash: h.Hash, Ref: e.Ref})
		return err
	})
	return out, err
}

// Branch creates branch name at from (HEAD when from is empty) without moving HEAD.
// Returns invalid_input for a bad name, versioning_error if a branch or tag of that
// name exists (a shared name would make the name ambiguous), and what Resolve returns
// for from.
func (s *Store) Branch(id, name, from string) (LogEntry, error) {
	return s.newRef(id, "branch", name, from)
}

// Tag creates tag name at spec (HEAD when empty). Tags never move: tagging a name that
// exists is versioning_error, wherever it points. Otherwise as Branch.
func (s *Store) Tag(id, name, spec string) (LogEntry, error) {
	return s.newRef(id, "tag", name, spec)
}

func (s *Store) newRef(id, kind, name, from string) (LogEntry, error) {
	var out LogEntry
	err := s.write(id, func(im *image) error {
		var err error
		out, err = s.newRefLocked(im, kind, name, from)
		return err
	})
	return out, err
}

// TagState is Tag returning, besides its log entry, HEAD and the tagged state, read
// under the same lock.
func (s *Store) TagState(id, name, spec string) (Moved, error) {
	var out Moved
	err := s.write(id, func(im *image) error {
		e, err := s.newRefLocked(im, "tag", name, spec)
		if err != nil {
			return err
		}
		out, err = im.moved(e)
		return err
	})
	return out, err
}

func (s *Store) newRefLocked(im *image, kind, name, from string) (LogEntry, error) {
	if err := ValidateName(kind, name); err != nil {
		return LogEntry{}, err
	}
	if from == "" {
		from = "HEAD"
	}
	for _, ref := range []string{"refs/heads/" + name, "refs/tags/" + name} {
		hash, ok, err := im.readRef(ref)
		if err != nil {
			return LogEntry{}, err
		}
		if !ok {
			continue
		}
		other, _, _ := splitRef(ref)
		var e *darkroom.Error
		switch {
		case other != kind:
			e = darkroom.Errorf(darkroom.VersioningError, "%s %q: a %s of that name exists at %s, and branch and tag names must differ", kind, name, other, hash)
		case kind == "tag":
			e = darkroom.Errorf(darkroom.VersioningError, "tag %q already exists at %s; tags never move", name, hash)
		default:
			e = darkroom.Errorf(darkroom.VersioningError, "branch %q already exists at %s", name, hash)
		}
		e.Details = map[string]any{"name": name, "existing": other, "hash": hash}
		return LogEntry{}, e
	}
	t, err := im.resolve(from)
	if err != nil {
		return LogEntry{}, err
	}
	op, dir := OpBranch, "refs/heads/"
	if kind == "tag" {
		op, dir = OpTag, "refs/tags/"
	}
	out := LogEntry{Time: s.now().UTC(), Op: op, Hash: t.hash, Ref: dir + name}
	return out, im.apply(out)
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
	f, err := os.OpenFile(filepath.Join(im.dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		unlock()
		return nil, nil, ioError(err, "lock image %q", id)
	}
	if err := lockFD(f, exclusive); err != nil {
		f.Close()
		unlock()
		return nil, nil, ioError(err, "lock image %q", id)
	}
	release := func() {
		unlockFD(f)
		f.Close()
		unlock()
	}
	return im, release, nil
}

// read runs fn under a shared lock. If a crash left the last logged operation
// unapplied, it first retakes the lock exclusively to complete it, so that readers
// never see refs that disagree with the log.
func (s *Store) read(id string, fn func(*image) error) error {
	im, release, err := s.lock(id, false)
	if err != nil {
		return err
	}
	pending, err := im.pending()
	if err != nil {
		release()
		return err
	}
	if pending == nil {
		defer release()
		return fn(im)
	}
	release()
	return s.write(id, fn)
}

// write runs fn under the exclusive lock, after completing an operation a crash
// interrupted.
func (s *Store) write(id string, fn func(*image) error) error {
	im, release, err := s.lock(id, true)
	if err != nil {
		return err
	}
	defer release()
	if _, err := im.recoverLocked(); err != nil {
		return err
	}
	return fn(im)
}

func (im *image) readHead() (headValue, error) {
	b, err := os.ReadFile(filepath.Join(im.dir, headFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return headValue{}, damaged(im.id, "HEAD is missing")
		}
		return headValue{}, ioError(err, "image %q: read HEAD", im.id)
	}
	s, ok := strings.CutSuffix(string(b), "\n")
	if !ok {
		return headValue{}, damaged(im.id, "HEAD %q does not end with a newline", b)
	}
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		kind, name, err := splitRef(ref)
		if err != nil || kind != "branch" {
			return headValue{}, damaged(im.id, "HEAD %q names no branch", s)
		}
		return headValue{branch: name}, nil
	}
	if !isFullHash(s) {
		return headValue{}, damaged(im.id, "HEAD %q is neither a branch nor a hash", s)
	}
	return headValue{hash: s}, nil
}

// head resolves HEAD to a hash.
func (im *image) head() (Head, error) {
	hv, err := im.readHead()
	if err != nil {
		return Head{}, err
	}
	if hv.branch == "" {
		return Head{Hash: hv.hash, Detached: true}, nil
	}
	hash, ok, err := im.readRef("refs/heads/" + hv.branch)
	if err != nil {
		return Head{}, err
	}
	if !ok {
		return Head{}, damaged(im.id, "HEAD names branch %q, which does not exist", hv.branch)
	}
	return Head{Hash: hash, Branch: hv.branch}, nil
}

// readRef reads refs/heads/<b> or refs/tags/<t>; ok is false when it does not exist.
// The caller has validated ref.
func (im *image) readRef(ref string) (hash string, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(im.dir, filepath.FromSlash(ref)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, ioError(err, "image %q: read %s", im.id, ref)
	}
	s, nl := strings.CutSuffix(string(b), "\n")
	if !nl || !isFullHash(s) {
		return "", false, damaged(im.id, "%s holds %q, not a hash", ref, b)
	}
	return s, true, nil
}

func (im *image) refs() (Refs, error) {
	out := Refs{Branches: map[string]string{}, Tags: map[string]string{}}
	for _, d := range []struct {
		dir, kind string
		into      map[string]string
	}{{headsDir, "branch", out.Branches}, {tagsDir, "tag", out.Tags}} {
		des, err := os.ReadDir(filepath.Join(im.dir, filepath.FromSlash(d.dir)))
		if err != nil {
			return Refs{}, ioError(err, "image %q: list %s", im.id, d.dir)
		}
		for _, de := range des {
			if strings.HasPrefix(de.Name(), tempPrefix) {
				continue
			}
			if ValidateName(d.kind, de.Name()) != nil {
				return Refs{}, damaged(im.id, "%s/%s is not a valid %s name", d.dir, de.Name(), d.kind)
			}
			hash, _, err := im.readRef(d.dir + "/" + de.Name())
			if err != nil {
				return Refs{}, err
			}
			d.into[de.Name()] = hash
		}
	}
	return out, nil
}

func (im *image) objectPath(hash string) string {
	return filepath.Join(im.dir, objectsDir, hash+".json")
}

func (im *image) hasObject(hash string) (bool, error) {
	_, err := os.Stat(im.objectPath(hash))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, ioError(err, "image %q: stat snapshot %s", im.id, hash)
	}
	return true, nil
}

// readObject reads a snapshot and checks it against its name, so damage on disk is
// reported instead of being rendered.
func (im *image) readObject(hash string) (State, error) {
	b, err := os.ReadFile(im.objectPath(hash))
	if errors.Is(err, fs.ErrNotExist) {
		e := darkroom.Errorf(darkroom.NotFound, "snapshot %s not found in image %q", hash, im.id)
		e.Details = map[string]any{"hash": hash}
		return State{}, e
	}
	if err != nil {
		return State{}, ioError(err, "image %q: read snapshot %s", im.id, hash)
	}
	if got := hashBytes(b); got != hash {
		return State{}, damaged(im.id, "snapshot %s has content hashing to %s", hash, got)
	}
	st, err := decodeState(b)
	if err != nil {
		return State{}, damaged(im.id, "snapshot %s: %v", hash, err)
	}
	return st, nil
}

// decodeState parses a stored snapshot and requires it to be in canonical form: the
// store never writes anything else.
func decodeState(b []byte) (State, error) {
	var st State
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return State{}, err
	}
	canon, _, err := encodeState(st)
	if err != nil {
		return State{}, err
	}
	if !bytes.Equal(canon, b) {
		return State{}, errors.New("content is not in canonical form")
	}
	return st, nil
}

// writeObject stores a snapshot unless an identical one is there. An existing object
// whose bytes differ is damaged (it cannot be another state: the name is the content's
// hash), so it is rewritten.
func (im *image) writeObject(hash string, canon []byte) error {
	if b, err := os.ReadFile(im.objectPath(hash)); err == nil && bytes.Equal(b, canon) {
		return nil
	}
	if err := im.d.writeFileAtomic(filepath.Join(im.dir, objectsDir), hash+".json", canon); err != nil {
		return ioError(err, "image %q: write snapshot %s", im.id, hash)
	}
	return nil
}

// target is what a spec resolved to.
type target struct {
	hash   string
	branch string // the branch the spec named, if it named one
	head   bool   // the spec was HEAD
}

func (im *image) resolve(spec string) (target, error) {
	if spec == "HEAD" {
		h, err := im.head()
		return target{hash: h.Hash, head: true}, err
	}
	notFound := func() error {
		e := darkroom.Errorf(darkroom.NotFound, "image %q has no branch, tag or snapshot %q", im.id, spec)
		e.Details = map[string]any{"ref": spec}
		return e
	}
	if strings.HasPrefix(spec, "refs/") {
		kind, name, err := splitRef(spec)
		if err != nil {
			return target{}, err
		}
		hash, ok, err := im.readRef(spec)
		if err != nil {
			return target{}, err
		}
		if !ok {
			return target{}, notFound()
		}
		if kind == "branch" {
			return target{hash: hash, branch: name}, nil
		}
		return target{hash: hash}, nil
	}

	isName := ValidateName("ref", spec) == nil
	lower := strings.ToLower(spec)
	isPrefix := len(spec) >= minPrefix && len(spec) <= 64 && isHex(lower)
	if !isName && !isPrefix {
		e := darkroom.Errorf(darkroom.InvalidInput, "%q is not HEAD, a branch or tag name, refs/heads/<name>, refs/tags/<name> or a hash of at least %d hex digits", spec, minPrefix)
		e.Details = map[string]any{"ref": spec}
		return target{}, e
	}
	type candidate struct {
		what string
		t    target
	}
	var cands []candidate
	if isName {
		for _, ref := range []string{"refs/heads/" + spec, "refs/tags/" + spec} {
			hash, ok, err := im.readRef(ref)
			if err != nil {
				return target{}, err
			}
			if ok {
				c := candidate{what: ref, t: target{hash: hash}}
				if strings.HasPrefix(ref, "refs/heads/") {
					c.t.branch = spec
				}
				cands = append(cands, c)
			}
		}
	}
	if isPrefix {
		hashes, err := im.objectsWithPrefix(lower)
		if err != nil {
			return target{}, err
		}
		for _, h := range hashes {
			cands = append(cands, candidate{what: "snapshot " + h, t: target{hash: h}})
		}
	}
	switch len(cands) {
	case 0:
		return target{}, notFound()
	case 1:
		return cands[0].t, nil
	}
	whats := make([]string, len(cands))
	for i, c := range cands {
		whats[i] = c.what
	}
	e := darkroom.Errorf(darkroom.VersioningError, "%q is ambiguous in image %q: it matches %s; use refs/heads/<name>, refs/tags/<name> or more hash digits", spec, im.id, strings.Join(whats, ", "))
	e.Details = map[string]any{"ref": spec, "candidates": whats}
	return target{}, e
}

// objectsWithPrefix lists the snapshots whose hash starts with prefix.
func (im *image) objectsWithPrefix(prefix string) ([]string, error) {
	if len(prefix) == 64 {
		ok, err := im.hasObject(prefix)
		if err != nil || !ok {
			return nil, err
		}
		return []string{prefix}, nil
	}
	des, err := os.ReadDir(filepath.Join(im.dir, objectsDir))
	if err != nil {
		return nil, ioError(err, "image %q: list snapshots", im.id)
	}
	var out []string
	for _, de := range des {
		h, ok := strings.CutSuffix(de.Name(), ".json")
		if ok && isFullHash(h) && strings.HasPrefix(h, prefix) {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (im *image) logError(err error) error {
	if errors.Is(err, errLogDamaged) {
		return damaged(im.id, "%s: %v", logFile, err)
	}
	return ioError(err, "image %q: read log", im.id)
}
