package history

import (
	"os"
	"path/filepath"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// The operations on refs: checkout, branch, tag, and the combined ones that report
// what they did as read under the image's lock.

// Checkout moves HEAD: a branch makes it name the branch, a tag or hash detaches it at
// that snapshot, and "HEAD" leaves it where it is (the call is still logged, unless the log's last
// entry is this same checkout: see repeat.go). See
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
	if _, ok := im.repeatOf(e); ok {
		return out, nil
	}
	return out, im.applyTo(e, t)
}

// applyTo is apply for an operation that moves a ref or HEAD to target t: a target
// named by its hash may be an object no log line carries yet, so the line carries it.
func (im *image) applyTo(e LogEntry, t target) error {
	var state []byte
	if t.byHash {
		var err error
		if state, err = im.carry(t.hash); err != nil {
			return err
		}
	}
	return im.apply(e, state)
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
			// Take the branch back: its ref, then its log entry. The removal is
			// fsynced before the log forgets the branch: a ref the log does not
			// create is damage to replay, never something a power cut leaves.
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
	return out, im.applyTo(out, t)
}
