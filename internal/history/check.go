package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Report is what Check found besides damage: what a crash left behind and what
// loading the image did about it. None of it is an error.
type Report struct {
	Objects    int `json:"objects"`
	Refs       int `json:"refs"`
	LogEntries int `json:"log_entries"`
	// Orphans are snapshots no log entry names: a crash came after writing the object
	// and before logging the commit. They are harmless and kept.
	Orphans int `json:"orphans"`
	// TornLogBytes is the size of a partial last log line (a crash in the middle of an
	// append). Reads ignore it; the next append cuts it off.
	TornLogBytes int64 `json:"torn_log_bytes"`
	// StaleTemp counts temporary files of interrupted writes that Check removed.
	StaleTemp int `json:"stale_temp"`
	// Repaired says what Check's replay of the log repaired: a ref, HEAD or carried
	// snapshot a crash left behind the log (the last operation, when a process died
	// between logging it and moving its ref; more after a power cut).
	Repaired []string `json:"repaired,omitempty"`
}

// Check verifies image id the way fsck does: every object's content hashes to its
// name and is a canonical state; every branch and tag points at an existing object;
// HEAD names an existing branch or object; every log line parses, names existing
// objects, and replaying the log from init yields exactly the refs and HEAD on disk,
// each commit's parent being its ref's previous value; a line carrying a state
// carries the snapshot it names. It first replays the whole log, as a process's first
// access does (replay.go), repairing what a crash of the process or the machine left;
// it also removes stale temporary files. Both are listed in the report. What replay
// leaves (no crash explains it) is a problem. It returns state_error listing every problem
// (Details["problems"]) if the image is damaged, not_found for an unknown image.
func (s *Store) Check(id string) (Report, error) {
	im, release, err := s.lock(id, true)
	if err != nil {
		return Report{}, err
	}
	defer release()
	var rep Report
	var problems []string
	// Check replays the whole log whether or not this store has already: it is the
	// fsck, run after a crash of the machine as well as of a process.
	if r, err := im.replay(true); err != nil {
		problems = append(problems, err.Error())
	} else {
		rep.Repaired = append(rep.Repaired, r.notes...)
		s.setReplayed(id)
	}
	rep.StaleTemp = im.removeTemps()
	problems = append(problems, im.verify(&rep)...)
	if len(problems) == 0 {
		return rep, nil
	}
	shown := problems[:min(len(problems), 5)]
	more := ""
	if len(problems) > len(shown) {
		more = fmt.Sprintf("; and %d more", len(problems)-len(shown))
	}
	e := darkroom.Errorf(darkroom.StateError, "check image %q: %d problems: %s%s", id, len(problems), strings.Join(shown, "; "), more)
	e.Details = map[string]any{"problems": problems}
	return rep, e
}

// pending returns the last log line if the refs do not reflect it yet, because a crash
// came between appending it and moving its ref, and nil if they do.
func (im *image) pending() (*logLine, error) {
	f, err := os.Open(filepath.Join(im.dir, logFile))
	if err != nil {
		return nil, ioError(err, "image %q: open log", im.id)
	}
	defer f.Close()
	last, _, err := logTail(f)
	if err != nil {
		return nil, im.logError(err)
	}
	if last == nil {
		return nil, damaged(im.id, "%s has no complete entry", logFile)
	}
	l, err := parseLogLine(last)
	if err != nil {
		return nil, damaged(im.id, "%s: last entry: %v", logFile, err)
	}
	done, err := im.applied(l.LogEntry)
	if err != nil || done {
		return nil, err
	}
	return &l, nil
}

// applied reports whether the refs already say what e says. When they do not, they
// must still say what they said before e; anything else is not what a crash leaves
// and is reported as damage rather than overwritten.
func (im *image) applied(e LogEntry) (bool, error) {
	switch {
	case e.Op == OpInit:
		// Init publishes the whole image at once: nothing of it can be pending.
		return true, nil
	case e.Op == OpCheckout:
		// Any HEAD may precede a checkout, so there is nothing to cross-check.
		hv, err := im.readHead()
		if err != nil {
			return false, err
		}
		want := headValue{hash: e.Hash}
		if e.Ref != "HEAD" {
			_, name, _ := splitRef(e.Ref)
			want = headValue{branch: name}
		}
		return hv == want, nil
	case e.Ref == "HEAD":
		hv, err := im.readHead()
		if err != nil {
			return false, err
		}
		switch {
		case hv.branch == "" && hv.hash == e.Hash:
			return true, nil
		case hv.branch == "" && hv.hash == e.Parent:
			return false, nil
		}
		return false, damaged(im.id, "the last logged commit moves detached HEAD from %s to %s, but HEAD is %s", e.Parent, e.Hash, hv)
	default:
		cur, ok, err := im.readRef(e.Ref)
		if err != nil {
			return false, err
		}
		switch {
		case ok && cur == e.Hash:
			return true, nil
		case e.Op == OpCommit && ok && cur == e.Parent, e.Op != OpCommit && !ok:
			return false, nil
		}
		if !ok {
			cur = "missing"
		}
		return false, damaged(im.id, "the last logged %s sets %s to %s, but it is %s", e.Op, e.Ref, e.Hash, cur)
	}
}

// recoverLocked completes the last logged operation if a crash of a process
// interrupted it. The log is written ahead of the refs, so rolling forward is always
// possible: the entry is durable, and the object it names was written before it (and
// is carried by it, when it was not fsynced). It returns a note saying what it did,
// or "" when there was nothing to do. The caller holds the exclusive lock. It is enough
// between the accesses of one process, which a power cut cannot separate; the first
// access replays the whole log (replay.go).
func (im *image) recoverLocked() (string, error) {
	l, err := im.pending()
	if err != nil || l == nil {
		return "", err
	}
	e := l.LogEntry
	if l.State == nil {
		ok, err := im.hasObject(e.Hash)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", damaged(im.id, "the last logged %s names snapshot %s, which does not exist", e.Op, e.Hash)
		}
	}
	if err := im.redo(e, l.State); err != nil {
		return "", err
	}
	return fmt.Sprintf("completed the interrupted %s: %s is now %s", e.Op, e.Ref, e.Hash), nil
}

// removeTemps deletes temporary files of interrupted writes. Only a holder of the
// exclusive lock writes in an image, so under that lock every one of them is stale.
func (im *image) removeTemps() int {
	n := 0
	for _, d := range []string{".", objectsDir, headsDir, tagsDir} {
		dir := filepath.Join(im.dir, filepath.FromSlash(d))
		des, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, de := range des {
			if strings.HasPrefix(de.Name(), tempPrefix) && os.Remove(filepath.Join(dir, de.Name())) == nil {
				n++
			}
		}
	}
	return n
}

// verify returns every inconsistency it finds, each as one line.
func (im *image) verify(rep *Report) []string {
	var problems []string
	problemf := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}

	objects := map[string]bool{}
	torn := map[string]string{} // hash -> the problem, for objects whose content is not theirs
	des, err := os.ReadDir(filepath.Join(im.dir, objectsDir))
	if err != nil {
		problemf("list %s: %v", objectsDir, err)
	}
	for _, de := range des {
		hash, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || !isFullHash(hash) || !de.Type().IsRegular() {
			problemf("%s/%s is not a snapshot", objectsDir, de.Name())
			continue
		}
		b, err := os.ReadFile(im.objectPath(hash))
		if err != nil {
			problemf("read snapshot %s: %v", hash, err)
			continue
		}
		// A damaged object still counts as present so that the problems below are
		// about refs and the log, not repeats of this one.
		objects[hash] = true
		if got := hashBytes(b); got != hash {
			// Damage, unless no log line names it: see below.
			torn[hash] = fmt.Sprintf("snapshot %s has content hashing to %s", hash, got)
		} else if _, err := decodeState(b); err != nil {
			problemf("snapshot %s: %v", hash, err)
		}
	}

	onDisk := map[string]string{}
	for _, d := range []struct{ dir, kind string }{{headsDir, "branch"}, {tagsDir, "tag"}} {
		des, err := os.ReadDir(filepath.Join(im.dir, filepath.FromSlash(d.dir)))
		if err != nil {
			problemf("list %s: %v", d.dir, err)
			continue
		}
		for _, de := range des {
			ref := d.dir + "/" + de.Name()
			if ValidateName(d.kind, de.Name()) != nil || !de.Type().IsRegular() {
				problemf("%s is not a valid %s", ref, d.kind)
				continue
			}
			hash, _, err := im.readRef(ref)
			if err != nil {
				problemf("%v", err)
				continue
			}
			onDisk[ref] = hash
			if !objects[hash] {
				problemf("%s points at snapshot %s, which does not exist", ref, hash)
			}
		}
	}
	rep.Refs = len(onDisk)

	head, headErr := im.readHead()
	switch {
	case headErr != nil:
		problemf("%v", headErr)
	case head.branch != "":
		if _, ok := onDisk["refs/heads/"+head.branch]; !ok {
			problemf("HEAD names branch %q, which does not exist", head.branch)
		}
	case !objects[head.hash]:
		problemf("HEAD is detached at snapshot %s, which does not exist", head.hash)
	}

	b, err := os.ReadFile(filepath.Join(im.dir, logFile))
	if err != nil {
		problemf("read %s: %v", logFile, err)
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	rep.TornLogBytes = int64(len(b) - end)
	if rep.TornLogBytes >= maxLogLine {
		problemf("%s ends with %d bytes that are no line", logFile, rep.TornLogBytes)
	}
	logged := map[string]bool{}
	refs := map[string]string{}
	var replayed headValue
	headHash := func() string {
		if replayed.branch != "" {
			return refs["refs/heads/"+replayed.branch]
		}
		return replayed.hash
	}
	lines := bytes.Split(b[:end], []byte{'\n'})
	lines = lines[:len(lines)-1] // the empty string after the last line end
	for i, line := range lines {
		n := i + 1
		e, err := parseLogEntry(line)
		if err != nil {
			problemf("%s line %d: %v", logFile, n, err)
			continue
		}
		rep.LogEntries++
		logged[e.Hash] = true
		if !objects[e.Hash] {
			problemf("%s line %d names snapshot %s, which does not exist", logFile, n, e.Hash)
		}
		kind, name, _ := splitRef(e.Ref)
		if n == 1 || e.Op == OpInit {
			if n != 1 || e.Op != OpInit || e.Ref != "refs/heads/"+mainBranch {
				problemf("%s line %d: only the first entry initializes branch %s", logFile, n, mainBranch)
				continue
			}
			refs[e.Ref] = e.Hash
			replayed = headValue{branch: mainBranch}
			continue
		}
		switch e.Op {
		case OpCommit:
			if e.Ref == "HEAD" {
				if replayed.branch != "" || replayed.hash != e.Parent {
					problemf("%s line %d: commit on detached HEAD with parent %s, but HEAD was %s", logFile, n, e.Parent, replayed)
				}
				replayed = headValue{hash: e.Hash}
				continue
			}
			if kind != "branch" || replayed.branch != name {
				problemf("%s line %d: commit to %s, but HEAD was %s", logFile, n, e.Ref, replayed)
			}
			if refs[e.Ref] != e.Parent {
				problemf("%s line %d: commit to %s with parent %s, but the ref was %q", logFile, n, e.Ref, e.Parent, refs[e.Ref])
			}
			refs[e.Ref] = e.Hash
		case OpBranch, OpTag:
			want := "branch"
			if e.Op == OpTag {
				want = "tag"
			}
			if kind != want {
				problemf("%s line %d: %s creates %s, which is not a %s", logFile, n, e.Op, e.Ref, want)
			}
			if _, ok := refs["refs/heads/"+name]; ok {
				problemf("%s line %d: %s %s was already a branch", logFile, n, e.Op, name)
			}
			if _, ok := refs["refs/tags/"+name]; ok {
				problemf("%s line %d: %s %s was already a tag", logFile, n, e.Op, name)
			}
			refs[e.Ref] = e.Hash
		case OpCheckout:
			if e.Parent != headHash() {
				problemf("%s line %d: checkout from %s, but HEAD was at %s", logFile, n, e.Parent, headHash())
			}
			if e.Ref == "HEAD" {
				replayed = headValue{hash: e.Hash}
				continue
			}
			if kind != "branch" || refs[e.Ref] != e.Hash {
				problemf("%s line %d: checkout of %s at %s, but the ref was %q", logFile, n, e.Ref, e.Hash, refs[e.Ref])
			}
			replayed = headValue{branch: name}
		}
	}
	for _, ref := range sortedKeys(refs, onDisk) {
		if refs[ref] != onDisk[ref] {
			problemf("%s is %q on disk but %q by the log", ref, onDisk[ref], refs[ref])
		}
	}
	if headErr == nil && rep.LogEntries > 0 && head != replayed {
		problemf("HEAD is %s on disk but %s by the log", head, replayed)
	}
	// An object whose content is not its own that no log line names is what a power
	// cut leaves of a snapshot written without an fsync by a call that never logged it
	// (doc.go, "Crash safety"): nothing refers to it, so it is removed, and said.
	for _, h := range slices.Sorted(maps.Keys(torn)) {
		if logged[h] {
			problemf("%s", torn[h])
			continue
		}
		if err := os.Remove(im.objectPath(h)); err != nil {
			problemf("%s, and removing it failed: %v", torn[h], err)
			continue
		}
		delete(objects, h)
		rep.Repaired = append(rep.Repaired, fmt.Sprintf("removed snapshot %s: no log entry names it and its content is not its own (a write a crash cut short)", h))
	}
	rep.Objects = len(objects)
	for h := range objects {
		if !logged[h] {
			rep.Orphans++
		}
	}

	meta, err := os.ReadFile(filepath.Join(im.dir, metaFile))
	if err != nil {
		problemf("read %s: %v", metaFile, err)
	} else if t := bytes.TrimSpace(meta); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		problemf("%s is not a JSON object", metaFile)
	}
	return problems
}

func sortedKeys(ms ...map[string]string) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
