package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Reading an image's files under its lock: HEAD, refs, objects, and resolving a spec.

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
// hash), so it is rewritten. durable fsyncs it and its directory, for a state no log
// line carries; otherwise the object is replaced atomically (a temporary file renamed
// over it) but not fsynced: a line of the log carries its content (doc.go, "Crash
// safety").
func (im *image) writeObject(hash string, canon []byte, durable bool) error {
	if b, err := os.ReadFile(im.objectPath(hash)); err == nil && bytes.Equal(b, canon) {
		return nil
	}
	dir := filepath.Join(im.dir, objectsDir)
	var err error
	if durable {
		err = im.d.writeFileAtomic(dir, hash+".json", canon)
	} else {
		var tmp string
		if tmp, err = im.d.stage(dir, canon, false); err == nil {
			if err = im.d.rename(tmp, im.objectPath(hash)); err != nil {
				os.Remove(tmp)
			}
		}
	}
	if err != nil {
		return ioError(err, "image %q: write snapshot %s", im.id, hash)
	}
	return nil
}

// carry returns what a log line naming snapshot hash, which a caller named by its
// hash, must carry: its content, so that the line makes it durable (an object nothing
// logged yet, left by a call that failed, was not fsynced). A state too large to carry
// is fsynced in place instead, and nil returned.
func (im *image) carry(hash string) ([]byte, error) {
	b, err := os.ReadFile(im.objectPath(hash))
	if err != nil {
		return nil, ioError(err, "image %q: read snapshot %s", im.id, hash)
	}
	if got := hashBytes(b); got != hash {
		return nil, damaged(im.id, "snapshot %s has content hashing to %s", hash, got)
	}
	if len(b) <= maxCarried {
		return b, nil
	}
	if err := im.d.syncFile(im.objectPath(hash)); err != nil {
		return nil, ioError(err, "image %q: sync snapshot %s", im.id, hash)
	}
	if err := im.d.syncDir(filepath.Join(im.dir, objectsDir)); err != nil {
		return nil, ioError(err, "image %q: sync snapshots", im.id)
	}
	return nil, nil
}

// target is what a spec resolved to.
type target struct {
	hash   string
	branch string // the branch the spec named, if it named one
	head   bool   // the spec was HEAD
	byHash bool   // the spec was a hash or hash prefix, not a ref
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
			cands = append(cands, candidate{what: "snapshot " + h, t: target{hash: h, byHash: true}})
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
