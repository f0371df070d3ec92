package contextfile

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// The context tools keep what an agent should know beyond the pixels, as files under
// the workspace:
//
//	context/tastes.md             the user's tastes, shared by every image
//	context/<image_id>/brief.md   what the photo is for
//	context/<image_id>/notes.md   what was learned editing it
//	context/gaps.jsonl            vocabulary gaps, one #Gap a line, append-only
//	context/proposals.json        pending proposals, a JSON array of #Proposal
//
// Text files and proposals are replaced atomically; a gap is appended with fsync.
// Changes to tastes, briefs and notes go through a proposal the user confirms.

const (
	tastesFile    = "tastes.md"
	gapsFile      = "gaps.jsonl"
	proposalsFile = "proposals.json"
	// recentContext is how many log entries and gaps read_context returns.
	recentContext = 10
)

// contextMu serializes the read-modify-write of proposals and the appends to the gap
// log within this process.
var contextMu sync.Mutex

// Gap is the #Gap of the contract.
type Gap struct {
	Time         string  `json:"time"`
	ImageID      string  `json:"image_id"`
	SnapshotHash string  `json:"snapshot_hash"`
	Description  string  `json:"description"`
	Workaround   *string `json:"workaround"`
	Desired      *string `json:"desired"`
}

// Proposal is the #Proposal of the contract.
type Proposal struct {
	ID      string  `json:"proposal_id"`
	Target  string  `json:"target"` // tastes, brief or notes
	ImageID *string `json:"image_id"`
	Content string  `json:"content"`
	Reason  *string `json:"reason"`
	Time    string  `json:"time"`
}

// sameTarget reports whether two proposals would change the same text.
func (p Proposal) sameTarget(q Proposal) bool {
	return p.Target == q.Target && (p.Target == "tastes" || *p.ImageID == *q.ImageID)
}

// contextPath is a context file: tastes and the logs at the top, a brief or notes
// under the image's directory.
func contextPath(ws *workspace.Workspace, imageID, name string) string {
	if imageID == "" {
		return filepath.Join(ws.Root, workspace.ContextDir, name)
	}
	return filepath.Join(ws.Root, workspace.ContextDir, history.DirName(imageID), name)
}

// readContextFile returns a context file's text, "" when it does not exist.
func readContextFile(ws *workspace.Workspace, path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", ws.FSError(err, "read %s", ws.Rel(path))
	}
	return string(b), nil
}

// writeContextFile replaces a context file atomically and durably, creating its
// directory.
func writeContextFile(ws *workspace.Workspace, path, text string) error {
	if err := mkdirDurable(ws, filepath.Dir(path)); err != nil {
		return err
	}
	return ws.WriteFile(path, []byte(text))
}

// mkdirDurable creates dir (and its parents) and fsyncs the parent of each directory
// it made, so a file written and fsynced in it is not lost with its directory after a
// power cut.
func mkdirDurable(ws *workspace.Workspace, dir string) error {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ws.FSError(err, "create %s", ws.Rel(dir))
	}
	for _, d := range made {
		if err := fsx.SyncDir(filepath.Dir(d)); err != nil {
			return ws.FSError(err, "create %s", ws.Rel(d))
		}
	}
	return nil
}

func contextTime() string { return time.Now().UTC().Format(time.RFC3339) }

// readGaps returns the last limit gaps logged for an image, newest first, and how
// many it has in all. A line a crash left torn is skipped. The caller holds
// contextMu.
func readGaps(ws *workspace.Workspace, id string, limit int) ([]Gap, int, error) {
	path := contextPath(ws, "", gapsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []Gap{}, 0, nil
	}
	if err != nil {
		return nil, 0, ws.FSError(err, "read %s", ws.Rel(path))
	}
	defer f.Close()
	var all []Gap
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var g Gap
		if json.Unmarshal(sc.Bytes(), &g) != nil || g.ImageID != id {
			continue
		}
		all = append(all, g)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, ws.FSError(err, "read %s", ws.Rel(path))
	}
	out := []Gap{}
	for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, all[i])
	}
	return out, len(all), nil
}

// appendGap appends one line to the gap log and fsyncs it. If a crash left the last
// line without its newline, one is written first so the new line stays whole. The
// caller holds contextMu.
func appendGap(ws *workspace.Workspace, g Gap) error {
	path := contextPath(ws, "", gapsFile)
	line, err := json.Marshal(g)
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "encode gap")
	}
	line = append(line, '\n')
	if err := mkdirDurable(ws, filepath.Dir(path)); err != nil {
		return err
	}
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return ws.FSError(err, "append to %s", ws.Rel(path))
	}
	defer f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		// The log was just created: its name must outlive a power cut like its lines.
		if err := fsx.SyncDir(filepath.Dir(path)); err != nil {
			return ws.FSError(err, "append to %s", ws.Rel(path))
		}
	}
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, info.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		return ws.FSError(err, "append to %s", ws.Rel(path))
	}
	if err := f.Sync(); err != nil {
		return ws.FSError(err, "append to %s", ws.Rel(path))
	}
	return nil
}

// readProposals returns the pending proposals, oldest first. The caller holds
// contextMu.
func readProposals(ws *workspace.Workspace) ([]Proposal, error) {
	path := contextPath(ws, "", proposalsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []Proposal{}, nil
	}
	if err != nil {
		return nil, ws.FSError(err, "read %s", ws.Rel(path))
	}
	var ps []Proposal
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ps); err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "%s is damaged", ws.Rel(path))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, darkroom.Errorf(darkroom.InternalError, "%s is damaged: data after the list", ws.Rel(path))
	}
	for _, p := range ps {
		if p.Target != "tastes" && p.ImageID == nil {
			return nil, darkroom.Errorf(darkroom.InternalError, "%s is damaged: proposal %s for %s names no image", ws.Rel(path), p.ID, p.Target)
		}
	}
	if ps == nil {
		ps = []Proposal{}
	}
	return ps, nil
}

func writeProposals(ws *workspace.Workspace, ps []Proposal) error {
	b, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "encode proposals")
	}
	return writeContextFile(ws, contextPath(ws, "", proposalsFile), string(append(b, '\n')))
}

func newProposalID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", darkroom.Wrap(darkroom.InternalError, err, "proposal id")
	}
	return "p" + hex.EncodeToString(b[:]), nil
}

// addProposal records p as pending, superseding a pending proposal for the same
// text, and returns it with its id and time, and the id of the one it superseded.
func addProposal(ws *workspace.Workspace, p Proposal) (Proposal, *string, error) {
	id, err := newProposalID()
	if err != nil {
		return Proposal{}, nil, err
	}
	p.ID, p.Time = id, contextTime()
	contextMu.Lock()
	defer contextMu.Unlock()
	ps, err := readProposals(ws)
	if err != nil {
		return Proposal{}, nil, err
	}
	var superseded *string
	ps = slices.DeleteFunc(ps, func(q Proposal) bool {
		if q.sameTarget(p) {
			superseded = &q.ID
			return true
		}
		return false
	})
	if err := writeProposals(ws, append(ps, p)); err != nil {
		return Proposal{}, nil, err
	}
	return p, superseded, nil
}

// confirmProposal applies a pending proposal whose target is one of targets (the other
// confirm tool handles the rest) and removes it.
func confirmProposal(ws *workspace.Workspace, id string, targets ...string) (Proposal, error) {
	contextMu.Lock()
	defer contextMu.Unlock()
	ps, err := readProposals(ws)
	if err != nil {
		return Proposal{}, err
	}
	i := slices.IndexFunc(ps, func(p Proposal) bool { return p.ID == id })
	if i < 0 {
		e := darkroom.Errorf(darkroom.NotFound, "no pending proposal %s: it was confirmed, superseded by a newer one, or never made", id)
		e.Details = map[string]any{"proposal_id": id}
		return Proposal{}, e
	}
	p := ps[i]
	if !slices.Contains(targets, p.Target) {
		other := "confirm_notes_update"
		if p.Target == "tastes" {
			other = "confirm_taste_update"
		}
		e := darkroom.Errorf(darkroom.InvalidInput, "proposal %s updates the %s: confirm it with %s", id, p.Target, other)
		e.Details = map[string]any{"proposal_id": id, "target": p.Target}
		return Proposal{}, e
	}
	path := contextPath(ws, "", tastesFile)
	if p.Target != "tastes" {
		path = contextPath(ws, *p.ImageID, p.Target+".md")
	}
	// The text first: a crash before the proposal is removed leaves it pending, and
	// confirming it again writes the same text.
	if err := writeContextFile(ws, path, p.Content); err != nil {
		return Proposal{}, err
	}
	if err := writeProposals(ws, slices.Delete(ps, i, i+1)); err != nil {
		return Proposal{}, err
	}
	return p, nil
}

// Context is what read_context shows of an image: the texts, its recent operations
// (newest first), its recent gaps (newest first) and the pending proposals that
// concern it.
type Context struct {
	Tastes, Brief, Notes string
	Log                  []history.LogEntry
	Gaps                 []Gap
	Pending              []Proposal
}

// Read reads image id's context. Returns not_found for an unknown image and
// internal_error when proposals.json is damaged.
func Read(ws *workspace.Workspace, id string) (Context, error) {
	if _, err := ws.History.Head(id); err != nil { // not_found for an unknown image
		return Context{}, err
	}
	recent, err := ws.History.Log(id, recentContext)
	if err != nil {
		return Context{}, err
	}
	out := Context{Log: recent}
	for _, t := range []struct {
		text *string
		path string
	}{
		{&out.Tastes, contextPath(ws, "", tastesFile)},
		{&out.Brief, contextPath(ws, id, "brief.md")},
		{&out.Notes, contextPath(ws, id, "notes.md")},
	} {
		if *t.text, err = readContextFile(ws, t.path); err != nil {
			return Context{}, err
		}
	}
	contextMu.Lock()
	out.Gaps, _, err = readGaps(ws, id, recentContext)
	if err == nil {
		out.Pending, err = readProposals(ws)
	}
	contextMu.Unlock()
	if err != nil {
		return Context{}, err
	}
	out.Pending = slices.DeleteFunc(out.Pending, func(p Proposal) bool {
		return p.Target != "tastes" && *p.ImageID != id
	})
	return out, nil
}

// LogGap appends a vocabulary gap for image id at its HEAD and returns it with how
// many gaps the image has logged. Returns not_found for an unknown image.
func LogGap(ws *workspace.Workspace, id, description string, workaround, desired *string) (Gap, int, error) {
	head, err := ws.History.Head(id)
	if err != nil {
		return Gap{}, 0, err
	}
	g := Gap{Time: contextTime(), ImageID: id, SnapshotHash: head.Hash, Description: description, Workaround: workaround, Desired: desired}
	contextMu.Lock()
	defer contextMu.Unlock()
	if err := appendGap(ws, g); err != nil {
		return Gap{}, 0, err
	}
	_, count, err := readGaps(ws, id, 0)
	if err != nil {
		return Gap{}, 0, err
	}
	return g, count, nil
}

// ProposeTastes records a pending proposal to replace the tastes and returns it
// with the id of the pending one it superseded, if any.
func ProposeTastes(ws *workspace.Workspace, content string, reason *string) (Proposal, *string, error) {
	return addProposal(ws, Proposal{Target: "tastes", Content: content, Reason: reason})
}

// ProposeNotes records a pending proposal to replace section (brief or notes) of
// image id, as ProposeTastes. Returns not_found for an unknown image.
func ProposeNotes(ws *workspace.Workspace, id, section, content string, reason *string) (Proposal, *string, error) {
	if _, err := ws.History.Head(id); err != nil {
		return Proposal{}, nil, err
	}
	return addProposal(ws, Proposal{Target: section, ImageID: &id, Content: content, Reason: reason})
}

// Confirm writes the text of pending proposal id, whose target must be one of
// targets, and removes it. Returns not_found for no such pending proposal and
// invalid_input for one the other confirm verb handles.
func Confirm(ws *workspace.Workspace, id string, targets ...string) (Proposal, error) {
	return confirmProposal(ws, id, targets...)
}
