package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Replaying the whole log. A mutation fsyncs its log line and nothing else (doc.go,
// "Crash safety"), so after a power cut the refs, HEAD and the objects written since the
// file system last flushed may be old, missing, empty or torn, for more than the last
// operation. The log is whole up to its last fsynced line, and says what each of them
// must be: the first access to an image by a store (so by a process) replays it, and
// every later access checks the last line only (check.go, recoverLocked), which is
// enough while the page cache survives: only a process can die between two accesses
// of a living one.

// logView is what the log says an image is: every ref's hash, HEAD, and the content
// of each snapshot a line carries; and every value each ref and HEAD had on the way,
// which a power cut may have left in place.
type logView struct {
	refs    map[string]string // "refs/heads/<b>" and "refs/tags/<t>"
	head    headValue
	carried map[string][]byte // hash -> canonical JSON, from the lines that carry it
	entries int
	refWas  map[string]map[string]bool // ref -> every hash the log gave it
	headWas map[headValue]bool         // every value the log gave HEAD
}

// readLogView reads the whole log and replays it. A line it cannot parse is damage,
// as for every other reader; the torn tail a crash leaves is ignored.
func (im *image) readLogView() (logView, error) {
	b, err := os.ReadFile(filepath.Join(im.dir, logFile))
	if err != nil {
		return logView{}, ioError(err, "image %q: read log", im.id)
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	if len(b)-end >= maxLogLine {
		return logView{}, damaged(im.id, "%s ends with %d bytes that are no line", logFile, len(b)-end)
	}
	v := logView{refs: map[string]string{}, carried: map[string][]byte{}, refWas: map[string]map[string]bool{}, headWas: map[headValue]bool{}}
	n := 0
	for rest := b[:end]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i]
		rest = rest[i+1:]
		n++
		l, err := parseLogLine(line)
		if err != nil {
			return logView{}, damaged(im.id, "%s line %d: %v", logFile, n, err)
		}
		e := l.LogEntry
		if l.State != nil {
			v.carried[e.Hash] = l.State
		}
		switch {
		case e.Op == OpInit:
			if n != 1 {
				return logView{}, damaged(im.id, "%s line %d: only the first entry initializes the image", logFile, n)
			}
			v.refs[e.Ref] = e.Hash
			_, name, _ := splitRef(e.Ref)
			v.head = headValue{branch: name}
		case n == 1:
			return logView{}, damaged(im.id, "%s line 1 is a %s, not the image's init", logFile, e.Op)
		case e.Op == OpCheckout && e.Ref != "HEAD":
			_, name, _ := splitRef(e.Ref)
			v.head = headValue{branch: name}
		case e.Ref == "HEAD":
			v.head = headValue{hash: e.Hash}
		default:
			v.refs[e.Ref] = e.Hash
		}
		if e.Ref != "HEAD" {
			if v.refWas[e.Ref] == nil {
				v.refWas[e.Ref] = map[string]bool{}
			}
			v.refWas[e.Ref][e.Hash] = true
		}
		v.headWas[v.head] = true
	}
	if n == 0 {
		return logView{}, damaged(im.id, "%s has no complete entry", logFile)
	}
	v.entries = n
	if v.head.branch != "" {
		if _, ok := v.refs["refs/heads/"+v.head.branch]; !ok {
			return logView{}, damaged(im.id, "by the log, HEAD names branch %q, which the log never creates", v.head.branch)
		}
	}
	return v, nil
}

// replayResult is what replay found: whether the image disagreed with its log, and,
// when it fixed that, a note for each file it rewrote or removed.
type replayResult struct {
	dirty bool
	notes []string
}

// torn reports whether b is what a power cut can leave of a file that was to hold
// want, written without an fsync: nothing, zeros, or a beginning of it.
func torn(b, want []byte) bool {
	return len(b) < len(want) && bytes.HasPrefix(want, b) || len(bytes.Trim(b, "\x00")) == 0
}

// replay makes the image agree with its whole log where a power cut can have left it
// behind: each ref and HEAD hold the value the log last gave them, and each snapshot a
// line carries is on disk with its content. A file is repaired when it is missing,
// empty, zeros or a beginning of what it should hold (a write the cut stopped), or,
// for a ref or HEAD, holds a value the log gave it earlier (a rename the cut undid).
// Anything else is not what a crash leaves: it is left as it is, for Check to report
// and for the reads that meet it to refuse as damage. Snapshots no line carries were
// fsynced before their line was written (a state too large to carry, the baseline,
// and every snapshot of a log written before lines carried states) and are not read.
//
// With fix false it only looks, under a shared lock, and reports dirty; with fix the
// caller holds the exclusive lock. Its repairs are fsynced: the image then agrees
// with its log durably, and they are rare.
func (im *image) replay(fix bool) (replayResult, error) {
	v, err := im.readLogView()
	if err != nil {
		return replayResult{}, err
	}
	type file struct {
		name  string // as the notes say it
		path  string
		data  []byte
		stale func(b []byte) bool // b is an earlier value of the file, which a cut left
	}
	var files []file
	hashes := make([]string, 0, len(v.carried))
	for h := range v.carried {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	for _, h := range hashes {
		files = append(files, file{"snapshot " + h, im.objectPath(h), v.carried[h], nil})
	}
	refs := make([]string, 0, len(v.refs))
	for ref := range v.refs {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	for _, ref := range refs {
		was := v.refWas[ref]
		files = append(files, file{ref, filepath.Join(im.dir, filepath.FromSlash(ref)), []byte(v.refs[ref] + "\n"), func(b []byte) bool {
			h, ok := bytes.CutSuffix(b, []byte("\n"))
			return ok && was[string(h)]
		}})
	}
	files = append(files, file{headFile, filepath.Join(im.dir, headFile), v.head.encode(), func(b []byte) bool {
		for hv := range v.headWas {
			if bytes.Equal(b, hv.encode()) {
				return true
			}
		}
		return false
	}})

	var r replayResult
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return replayResult{}, ioError(err, "image %q: read %s", im.id, f.name)
		}
		if bytes.Equal(b, f.data) || !torn(b, f.data) && (f.stale == nil || !f.stale(b)) {
			continue
		}
		r.dirty = true
		if !fix {
			return r, nil
		}
		dir, name := filepath.Split(f.path)
		if err := im.d.writeFileAtomic(dir, name, f.data); err != nil {
			return replayResult{}, ioError(err, "image %q: set %s as the log says", im.id, f.name)
		}
		was := fmt.Sprintf("%q", b)
		if len(b) > 80 || strings.HasPrefix(f.name, "snapshot ") {
			was = fmt.Sprintf("%d bytes", len(b))
		}
		r.notes = append(r.notes, fmt.Sprintf("set %s as the log says (it held %s)", f.name, was))
	}
	return r, nil
}
