package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// tempPrefix starts every temporary file and directory the store creates: the
// atomic writer's (fsx). Valid names cannot start with a dot, so a temporary file
// never shadows a ref, object or image.
const tempPrefix = fsx.TempPrefix

// disk performs the store's writes to the file system: atomic replacements through
// the one atomic and durable writer (internal/fsx), the log's appends and
// truncations here. Its fault hook is nil in production, where the store's disk is
// nil; only the tests set one, to make any one step fail as a full disk makes it
// fail, and check that the history is left as it was (see doc.go, "A failed call").
type disk struct {
	// fault, when not nil, is called before each step that changes what is on disk
	// (op is create, write, chmod, sync, close, rename, syncdir, open, truncate or
	// remove); an error it returns is that step's error. A failing write first writes
	// half its data, as a write that runs out of space does.
	fault func(op, path string) error
}

// hook is the fault hook as the atomic writer takes it: nil without one.
func (d *disk) hook() fsx.Step {
	if d == nil || d.fault == nil {
		return nil
	}
	return d.fault
}

func (d *disk) step(op, path string) error {
	if d == nil || d.fault == nil {
		return nil
	}
	return d.fault(op, path)
}

func (d *disk) write(f *os.File, data []byte) error {
	if err := d.step("write", f.Name()); err != nil {
		f.Write(data[:len(data)/2])
		return err
	}
	_, err := f.Write(data)
	return err
}

func (d *disk) sync(f *os.File) error {
	if err := d.step("sync", f.Name()); err != nil {
		return err
	}
	return f.Sync()
}

// syncFile fsyncs the file at path.
func (d *disk) syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return d.sync(f)
}

func (d *disk) rename(from, to string) error {
	if err := d.step("rename", to); err != nil {
		return err
	}
	return os.Rename(from, to)
}

func (d *disk) remove(path string) error {
	if err := d.step("remove", path); err != nil {
		return err
	}
	return os.Remove(path)
}

func (d *disk) syncDir(dir string) error {
	if err := d.step("syncdir", dir); err != nil {
		return err
	}
	return fsx.SyncDir(dir)
}

// stage writes data to a new temporary file in dir and returns its name: the first
// half of an atomic replacement (fsx.Stage). durable fsyncs the file; an undo copy
// that only this process reads back needs not.
func (d *disk) stage(dir string, data []byte, durable bool) (string, error) {
	return fsx.Stage(dir, tempPrefix+"*", func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, durable, d.hook())
}

// writeFileAtomic replaces dir/name with data through the atomic and durable writer
// (fsx.WriteFile): a crash at any point leaves either the old file or the new one.
func (d *disk) writeFileAtomic(dir, name string, data []byte) error {
	return fsx.WriteFile(filepath.Join(dir, name), data, d.hook())
}

// writeFileSync creates path with data and fsyncs it. It is for files inside a
// directory that is not published yet (Init), where atomicity comes from renaming the
// whole directory.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LogEntry is one line of an image's operation log. Ref is the ref the operation
// moved, and Hash its new value: "refs/heads/<b>" or "refs/tags/<t>", or "HEAD" for a
// commit on a detached HEAD. A checkout moves HEAD: its Ref is the branch HEAD now
// names, or "HEAD" when it is detached. Parent is the hash HEAD had before a commit or
// checkout, empty for the other operations.
type LogEntry struct {
	Time   time.Time `json:"time"`
	Op     string    `json:"op"`
	Hash   string    `json:"hash"`
	Parent string    `json:"parent"`
	Ref    string    `json:"ref"`
	Label  string    `json:"label"`
}

// logLine is a log line as it is on disk: the entry, and the canonical JSON of the
// state Hash names when the line carries it (doc.go, "Crash safety"). The state is
// the log's alone: LogEntry, which callers see, has no such field.
type logLine struct {
	LogEntry
	State json.RawMessage `json:"state,omitempty"`
}

// Operations recorded in the log.
const (
	OpInit     = "init"
	OpCommit   = "commit"
	OpBranch   = "branch"
	OpTag      = "tag"
	OpCheckout = "checkout"
)

// encodeLogEntry encodes e as a log line carrying state (nil: none). The state is
// spliced in byte for byte: json.Marshal would re-escape it (<, > and & in strings),
// and the line must hold exactly the bytes whose hash is e.Hash.
func encodeLogEntry(e LogEntry, state []byte) ([]byte, error) {
	line, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if state != nil {
		line = append(line[:len(line)-1], `,"state":`...)
		line = append(line, state...)
		line = append(line, '}')
	}
	if len(line) >= maxLogLine {
		return nil, fmt.Errorf("log entry is %d bytes, over the limit of %d", len(line), maxLogLine)
	}
	return append(line, '\n'), nil
}

// parseLogEntry decodes one log line strictly: an entry the store did not write (an
// unknown op, a malformed hash or ref, a carried state that is not the snapshot it
// names) is damage, not something to guess about.
func parseLogEntry(line []byte) (LogEntry, error) {
	l, err := parseLogLine(line)
	return l.LogEntry, err
}

// parseLogLine is parseLogEntry keeping the carried state, if any.
func parseLogLine(line []byte) (logLine, error) {
	var l logLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return logLine{}, err
	}
	if dec.More() {
		return logLine{}, errors.New("unexpected data after the entry")
	}
	e := l.LogEntry
	switch e.Op {
	case OpInit, OpCommit, OpBranch, OpTag, OpCheckout:
	default:
		return logLine{}, fmt.Errorf("unknown op %q", e.Op)
	}
	if !isFullHash(e.Hash) {
		return logLine{}, fmt.Errorf("hash %q is not a snapshot hash", e.Hash)
	}
	if e.Parent != "" && !isFullHash(e.Parent) {
		return logLine{}, fmt.Errorf("parent %q is not a snapshot hash", e.Parent)
	}
	if e.Ref != "HEAD" {
		if _, _, err := splitRef(e.Ref); err != nil {
			return logLine{}, err
		}
	}
	if l.State != nil {
		if got := hashBytes(l.State); got != e.Hash {
			return logLine{}, fmt.Errorf("the state it carries hashes to %s, not to its hash %s", got, e.Hash)
		}
	}
	return l, nil
}

// splitRef parses "refs/heads/<name>" or "refs/tags/<name>".
func splitRef(ref string) (kind, name string, err error) {
	switch {
	case strings.HasPrefix(ref, "refs/heads/"):
		kind, name = "branch", ref[len("refs/heads/"):]
	case strings.HasPrefix(ref, "refs/tags/"):
		kind, name = "tag", ref[len("refs/tags/"):]
	default:
		e := darkroom.Errorf(darkroom.InvalidInput, "ref %q is not refs/heads/<name> or refs/tags/<name>", ref)
		e.Details = map[string]any{"ref": ref}
		return "", "", e
	}
	if err := ValidateName(kind, name); err != nil {
		return "", "", err
	}
	return kind, name, nil
}

// appendLog appends e, carrying state (nil: none), to the log and fsyncs it before
// returning, so an entry is durable before the ref it describes moves: the one fsync
// of a mutation (doc.go, "Crash safety"). A torn line left by an earlier crash is cut
// off first; otherwise the new entry would be glued to it and both lost. It returns the
// log's size before the entry, which truncateLog takes it back to, or -1 when it failed
// before changing the file.
func (d *disk) appendLog(path string, e LogEntry, state []byte) (int64, error) {
	line, err := encodeLogEntry(e, state)
	if err != nil {
		return -1, err
	}
	if err := d.step("open", path); err != nil {
		return -1, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	_, torn, err := logTail(f)
	if err != nil {
		return -1, err
	}
	fi, err := f.Stat()
	if err != nil {
		return -1, err
	}
	size := fi.Size() - torn
	if torn > 0 {
		if err := d.step("truncate", path); err != nil {
			return -1, err
		}
		if err := f.Truncate(size); err != nil {
			return -1, err
		}
	}
	// One write call: against a crash of the process (not of the machine) the line is
	// then either wholly in the page cache or not at all.
	if err := d.write(f, line); err != nil {
		return size, err
	}
	if err := d.sync(f); err != nil {
		return size, err
	}
	if err := d.step("close", path); err != nil {
		return size, err
	}
	return size, f.Close()
}

// truncateLog takes the log back to size bytes, durably: it removes an entry whose
// operation failed, so that recovery never completes it.
func (d *disk) truncateLog(path string, size int64) error {
	if err := d.step("truncate", path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	if err := d.sync(f); err != nil {
		return err
	}
	return f.Close()
}

// errLogDamaged is wrapped by log-reading errors that mean the file cannot be a log the
// store wrote, as opposed to an I/O failure.
var errLogDamaged = errors.New("malformed")

// logTail returns the last complete line of the log (nil for an empty log) and the
// number of bytes after it that end no line: what a crash in the middle of an append
// leaves behind. It reads logTailFirstRead bytes from the end, and more, up to
// logTailReadLen, only when the last line (one carrying a large state) needs it.
func logTail(f *os.File) (last []byte, torn int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := fi.Size()
	for n := min(size, logTailFirstRead); ; n = min(size, n*4, logTailReadLen) {
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		more := n < size && n < logTailReadLen
		end := bytes.LastIndexByte(buf, '\n')
		if end < 0 {
			if more {
				continue
			}
			if size > maxLogLine {
				return nil, 0, fmt.Errorf("%w: the last %d bytes hold no line end", errLogDamaged, n)
			}
			return nil, size, nil
		}
		torn = int64(len(buf) - end - 1)
		if torn >= maxLogLine {
			return nil, 0, fmt.Errorf("%w: %d bytes after the last line end", errLogDamaged, torn)
		}
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		if start == 0 && n < size {
			if more {
				continue
			}
			return nil, 0, fmt.Errorf("%w: last line is longer than %d bytes", errLogDamaged, maxLogLine)
		}
		return buf[start:end], torn, nil
	}
}

// readLogBackward returns up to limit entries (all for limit <= 0), newest first, and
// the size of a torn tail, reading the file from its end so that a short listing of a
// long history stays cheap.
func readLogBackward(path string, limit int) ([]LogEntry, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	_, torn, err := logTail(f)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	const chunk = 64 << 10
	// buf holds file[bufStart:end]; after the torn tail is dropped it ends with '\n'.
	end := fi.Size() - torn
	bufStart := end
	var buf []byte
	var out []LogEntry
	for len(buf) > 0 || bufStart > 0 {
		if limit > 0 && len(out) >= limit {
			break
		}
		i := -1
		if len(buf) > 0 {
			i = bytes.LastIndexByte(buf[:len(buf)-1], '\n')
		}
		if i < 0 && bufStart > 0 {
			start := max(0, bufStart-chunk)
			more := make([]byte, bufStart-start, int(bufStart-start)+len(buf))
			if _, err := f.ReadAt(more, start); err != nil {
				return nil, 0, err
			}
			buf = append(more, buf...)
			bufStart = start
			continue
		}
		if len(buf) == 0 {
			break
		}
		line := buf[i+1 : len(buf)-1]
		e, err := parseLogEntry(line)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: entry at byte %d: %v", errLogDamaged, bufStart+int64(i+1), err)
		}
		out = append(out, e)
		buf = buf[:i+1]
	}
	return out, torn, nil
}

// ioError codes an operating-system failure: unavailable when the disk is full or the
// workspace over its quota (freeing space and retrying succeeds, and the call changed
// nothing), permission_error when the workspace refuses access or is read-only,
// internal_error for the rest (an I/O error).
func ioError(err error, format string, args ...any) error {
	if isNoSpace(err) {
		e := darkroom.Wrap(darkroom.Unavailable, osReason(err), "%s: the workspace's disk is full or over its quota; nothing was changed: free space and retry", fmt.Sprintf(format, args...))
		e.Details = map[string]any{"resource": "disk"}
		return e
	}
	if readOnly(err) {
		e := darkroom.Wrap(darkroom.PermissionError, err, "%s: the workspace cannot be written by this server (read-only, or not its user's)", fmt.Sprintf(format, args...))
		e.Details = map[string]any{"fix": "give darkroom a workspace it can write (--workspace), or only read this one"}
		return e
	}
	return darkroom.Wrap(darkroom.InternalError, err, format, args...)
}

// isNoSpace reports whether err means the file system has no room left: no space, no
// inode, or no quota.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// osReason is the operating system's reason for err without the path it names: the
// path is the server's, not something to show a client.
func osReason(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
