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
	"time"

	"darkroom"
)

// tempPrefix starts every temporary file and directory the store creates. Valid names
// cannot start with a dot, so a temporary file never shadows a ref, object or image.
const tempPrefix = ".tmp-"

// writeFileAtomic replaces dir/name with data so that a crash at any point leaves either
// the old file or the new one, never a mix: the data goes to a temporary file in the
// same directory (rename is only atomic within one file system), is fsynced, renamed
// over the target, and the directory is fsynced so the rename itself is durable.
func writeFileAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; the store's files are as readable as its directories.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	return syncDir(dir)
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

// Operations recorded in the log.
const (
	OpInit     = "init"
	OpCommit   = "commit"
	OpBranch   = "branch"
	OpTag      = "tag"
	OpCheckout = "checkout"
)

func encodeLogEntry(e LogEntry) ([]byte, error) {
	line, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if len(line) >= maxLogLine {
		return nil, fmt.Errorf("log entry is %d bytes, over the limit of %d", len(line), maxLogLine)
	}
	return append(line, '\n'), nil
}

// parseLogEntry decodes one log line strictly: an entry the store did not write (an
// unknown op, a malformed hash or ref) is damage, not something to guess about.
func parseLogEntry(line []byte) (LogEntry, error) {
	var e LogEntry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return LogEntry{}, err
	}
	if dec.More() {
		return LogEntry{}, errors.New("unexpected data after the entry")
	}
	switch e.Op {
	case OpInit, OpCommit, OpBranch, OpTag, OpCheckout:
	default:
		return LogEntry{}, fmt.Errorf("unknown op %q", e.Op)
	}
	if !isFullHash(e.Hash) {
		return LogEntry{}, fmt.Errorf("hash %q is not a snapshot hash", e.Hash)
	}
	if e.Parent != "" && !isFullHash(e.Parent) {
		return LogEntry{}, fmt.Errorf("parent %q is not a snapshot hash", e.Parent)
	}
	if e.Ref != "HEAD" {
		if _, _, err := splitRef(e.Ref); err != nil {
			return LogEntry{}, err
		}
	}
	return e, nil
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

// appendLog appends e to the log and fsyncs it before returning, so an entry is
// durable before the ref it describes moves. A torn line left by an earlier crash is cut
// off first; otherwise the new entry would be glued to it and both lost.
func appendLog(path string, e LogEntry) error {
	line, err := encodeLogEntry(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, torn, err := logTail(f)
	if err != nil {
		return err
	}
	if torn > 0 {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if err := f.Truncate(fi.Size() - torn); err != nil {
			return err
		}
	}
	// One write call: against a crash of the process (not of the machine) the line is
	// then either wholly in the page cache or not at all.
	if _, err := f.Write(line); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// errLogDamaged is wrapped by log-reading errors that mean the file cannot be a log the
// store wrote, as opposed to an I/O failure.
var errLogDamaged = errors.New("malformed")

// logTail returns the last complete line of the log (nil for an empty log) and the
// number of bytes after it that end no line: what a crash in the middle of an append
// leaves behind.
func logTail(f *os.File) (last []byte, torn int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := fi.Size()
	n := min(size, logTailReadLen)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
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
		return nil, 0, fmt.Errorf("%w: last line is longer than %d bytes", errLogDamaged, maxLogLine)
	}
	return buf[start:end], torn, nil
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

// ioError codes an operating-system failure: permission_error when the workspace
// refuses access, internal_error for the rest (a full disk, an I/O error).
func ioError(err error, format string, args ...any) error {
	code := darkroom.InternalError
	if errors.Is(err, fs.ErrPermission) {
		code = darkroom.PermissionError
	}
	return darkroom.Wrap(code, err, format, args...)
}
