package history

import (
	"os"
	"path/filepath"
)

// A call repeated with the same arguments leaves the image as the first call left
// it: when an operation would move nothing (its hash is already its parent) and the
// log's last entry is the same operation (op, ref, hash and label), it is not logged
// again and that last entry stands for it. So the editing tools that are annotated
// idempotent are idempotent on disk too, and a host that retries a call does not
// grow the log. A first no-op commit with a label is still logged, as git commit
// --allow-empty does: only its exact repeat is not.

// repeatOf returns the log's last entry if e repeats it without moving anything.
func (im *image) repeatOf(e LogEntry) (LogEntry, bool) {
	if e.Hash != e.Parent {
		return LogEntry{}, false
	}
	f, err := os.Open(filepath.Join(im.dir, logFile))
	if err != nil {
		return LogEntry{}, false
	}
	defer f.Close()
	line, _, err := logTail(f)
	if err != nil || line == nil {
		return LogEntry{}, false
	}
	last, err := parseLogEntry(line)
	if err != nil || last.Op != e.Op || last.Ref != e.Ref || last.Hash != e.Hash || last.Label != e.Label {
		return LogEntry{}, false
	}
	return last, true
}
