package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"darkroom/internal/edit"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"darkroom"
	"darkroom/internal/history"
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

// contextGap is the #Gap of the contract.
type contextGap struct {
	Time         string  `json:"time"`
	ImageID      string  `json:"image_id"`
	SnapshotHash string  `json:"snapshot_hash"`
	Description  string  `json:"description"`
	Workaround   *string `json:"workaround"`
	Desired      *string `json:"desired"`
}

// contextProposal is the #Proposal of the contract.
type contextProposal struct {
	ID      string  `json:"proposal_id"`
	Target  string  `json:"target"` // tastes, brief or notes
	ImageID *string `json:"image_id"`
	Content string  `json:"content"`
	Reason  *string `json:"reason"`
	Time    string  `json:"time"`
}

// sameTarget reports whether two proposals would change the same text.
func (p contextProposal) sameTarget(q contextProposal) bool {
	return p.Target == q.Target && (p.Target == "tastes" || *p.ImageID == *q.ImageID)
}

// contextPath is a context file: tastes and the logs at the top, a brief or notes
// under the image's directory.
func contextPath(ws *edit.Workspace, imageID, name string) string {
	if imageID == "" {
		return filepath.Join(ws.Root, edit.ContextDir, name)
	}
	return filepath.Join(ws.Root, edit.ContextDir, history.DirName(imageID), name)
}

// readContextFile returns a context file's text, "" when it does not exist.
func readContextFile(ws *edit.Workspace, path string) (string, error) {
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
func writeContextFile(ws *edit.Workspace, path, text string) error {
	if err := mkdirDurable(ws, filepath.Dir(path)); err != nil {
		return err
	}
	return ws.WriteFile(path, []byte(text))
}

// mkdirDurable creates dir (and its parents) and fsyncs the parent of each directory
// it made, so a file written and fsynced in it is not lost with its directory after a
// power cut.
func mkdirDurable(ws *edit.Workspace, dir string) error {
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
		if err := edit.SyncDir(filepath.Dir(d)); err != nil {
			return ws.FSError(err, "create %s", ws.Rel(d))
		}
	}
	return nil
}

func optionalString(args map[string]any, name string) *string {
	if s, ok := args[name].(string); ok {
		return &s
	}
	return nil
}

func contextTime() string { return time.Now().UTC().Format(time.RFC3339) }

func readContext(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	_, recent, err := s.Log(id, recentContext) // not_found for an unknown image
	if err != nil {
		return nil, "", err
	}
	log := make([]historyLogEntry, len(recent))
	for i, e := range recent {
		log[i] = viewLogEntry(e)
	}
	texts := map[string]string{}
	for key, path := range map[string]string{
		"tastes": contextPath(ws, "", tastesFile),
		"brief":  contextPath(ws, id, "brief.md"),
		"notes":  contextPath(ws, id, "notes.md"),
	} {
		if texts[key], err = readContextFile(ws, path); err != nil {
			return nil, "", err
		}
	}
	contextMu.Lock()
	gaps, _, err := readGaps(ws, id, recentContext)
	var pending []contextProposal
	if err == nil {
		pending, err = readProposals(ws)
	}
	contextMu.Unlock()
	if err != nil {
		return nil, "", err
	}
	pending = slices.DeleteFunc(pending, func(p contextProposal) bool {
		return p.Target != "tastes" && *p.ImageID != id
	})
	data := map[string]any{
		"image_id": id, "tastes": texts["tastes"], "brief": texts["brief"], "notes": texts["notes"],
		"recent_log": log, "recent_gaps": gaps, "pending": pending,
	}
	return data, fmt.Sprintf("context of %s: tastes %d chars, brief %d, notes %d; %d recent operations, %d gaps, %d pending proposals",
		id, len(texts["tastes"]), len(texts["brief"]), len(texts["notes"]), len(log), len(gaps), len(pending)), nil
}

// readGaps returns the last limit gaps logged for an image, newest first, and how
// many it has in all. A line a crash left torn is skipped. The caller holds
// contextMu.
func readGaps(ws *edit.Workspace, id string, limit int) ([]contextGap, int, error) {
	path := contextPath(ws, "", gapsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []contextGap{}, 0, nil
	}
	if err != nil {
		return nil, 0, ws.FSError(err, "read %s", ws.Rel(path))
	}
	defer f.Close()
	var all []contextGap
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var g contextGap
		if json.Unmarshal(sc.Bytes(), &g) != nil || g.ImageID != id {
			continue
		}
		all = append(all, g)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, ws.FSError(err, "read %s", ws.Rel(path))
	}
	out := []contextGap{}
	for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, all[i])
	}
	return out, len(all), nil
}

// appendGap appends one line to the gap log and fsyncs it. If a crash left the last
// line without its newline, one is written first so the new line stays whole. The
// caller holds contextMu.
func appendGap(ws *edit.Workspace, g contextGap) error {
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
		if err := edit.SyncDir(filepath.Dir(path)); err != nil {
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

func logVocabularyGap(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	head, err := ws.History.Head(id)
	if err != nil {
		return nil, "", err
	}
	g := contextGap{
		Time: contextTime(), ImageID: id, SnapshotHash: head.Hash,
		Description: stringArg(args, "description"),
		Workaround:  optionalString(args, "workaround"),
		Desired:     optionalString(args, "desired"),
	}
	contextMu.Lock()
	defer contextMu.Unlock()
	if err := appendGap(ws, g); err != nil {
		return nil, "", err
	}
	_, count, err := readGaps(ws, id, 0)
	if err != nil {
		return nil, "", err
	}
	return map[string]any{"gap": g, "count": count},
		fmt.Sprintf("logged vocabulary gap %d for %s at %s", count, id, abbrev(head.Hash)), nil
}

// readProposals returns the pending proposals, oldest first. The caller holds
// contextMu.
func readProposals(ws *edit.Workspace) ([]contextProposal, error) {
	path := contextPath(ws, "", proposalsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []contextProposal{}, nil
	}
	if err != nil {
		return nil, ws.FSError(err, "read %s", ws.Rel(path))
	}
	var ps []contextProposal
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
		ps = []contextProposal{}
	}
	return ps, nil
}

func writeProposals(ws *edit.Workspace, ps []contextProposal) error {
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

// addProposal records p as pending, superseding a pending proposal for the same text.
func addProposal(ws *edit.Workspace, p contextProposal) (map[string]any, error) {
	id, err := newProposalID()
	if err != nil {
		return nil, err
	}
	p.ID, p.Time = id, contextTime()
	contextMu.Lock()
	defer contextMu.Unlock()
	ps, err := readProposals(ws)
	if err != nil {
		return nil, err
	}
	var superseded *string
	ps = slices.DeleteFunc(ps, func(q contextProposal) bool {
		if q.sameTarget(p) {
			superseded = &q.ID
			return true
		}
		return false
	})
	if err := writeProposals(ws, append(ps, p)); err != nil {
		return nil, err
	}
	return map[string]any{"proposal": p, "superseded": superseded}, nil
}

// confirmProposal applies a pending proposal whose target is one of targets (the other
// confirm tool handles the rest) and removes it.
func confirmProposal(ws *edit.Workspace, id string, targets ...string) (map[string]any, contextProposal, error) {
	contextMu.Lock()
	defer contextMu.Unlock()
	ps, err := readProposals(ws)
	if err != nil {
		return nil, contextProposal{}, err
	}
	i := slices.IndexFunc(ps, func(p contextProposal) bool { return p.ID == id })
	if i < 0 {
		e := darkroom.Errorf(darkroom.NotFound, "no pending proposal %s: it was confirmed, superseded by a newer one, or never made", id)
		e.Details = map[string]any{"proposal_id": id}
		return nil, contextProposal{}, e
	}
	p := ps[i]
	if !slices.Contains(targets, p.Target) {
		other := "confirm_notes_update"
		if p.Target == "tastes" {
			other = "confirm_taste_update"
		}
		e := darkroom.Errorf(darkroom.InvalidInput, "proposal %s updates the %s: confirm it with %s", id, p.Target, other)
		e.Details = map[string]any{"proposal_id": id, "target": p.Target}
		return nil, contextProposal{}, e
	}
	path := contextPath(ws, "", tastesFile)
	if p.Target != "tastes" {
		path = contextPath(ws, *p.ImageID, p.Target+".md")
	}
	// The text first: a crash before the proposal is removed leaves it pending, and
	// confirming it again writes the same text.
	if err := writeContextFile(ws, path, p.Content); err != nil {
		return nil, contextProposal{}, err
	}
	if err := writeProposals(ws, slices.Delete(ps, i, i+1)); err != nil {
		return nil, contextProposal{}, err
	}
	return map[string]any{"target": p.Target, "image_id": p.ImageID, "content": p.Content}, p, nil
}

func proposeTasteUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	data, err := addProposal(ws, contextProposal{
		Target: "tastes", Content: stringArg(args, "content"), Reason: optionalString(args, "reason"),
	})
	if err != nil {
		return nil, "", err
	}
	return data, describeProposal(data), nil
}

func proposeNotesUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	if _, err := ws.History.Head(id); err != nil { // not_found for an unknown image
		return nil, "", err
	}
	data, err := addProposal(ws, contextProposal{
		Target: stringArg(args, "section"), ImageID: &id,
		Content: stringArg(args, "content"), Reason: optionalString(args, "reason"),
	})
	if err != nil {
		return nil, "", err
	}
	return data, describeProposal(data), nil
}

func describeProposal(data map[string]any) string {
	p := data["proposal"].(contextProposal)
	what := "the tastes"
	if p.ImageID != nil {
		what = fmt.Sprintf("the %s of %s", p.Target, *p.ImageID)
	}
	s := fmt.Sprintf("proposal %s to replace %s (%d chars); ask the user, then confirm it", p.ID, what, len(p.Content))
	if sup := data["superseded"].(*string); sup != nil {
		s += "; it supersedes " + *sup
	}
	return s
}

func confirmTasteUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	data, p, err := confirmProposal(ws, stringArg(args, "proposal_id"), "tastes")
	if err != nil {
		return nil, "", err
	}
	return data, fmt.Sprintf("tastes updated from proposal %s (%d chars)", p.ID, len(p.Content)), nil
}

func confirmNotesUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	data, p, err := confirmProposal(ws, stringArg(args, "proposal_id"), "notes", "brief")
	if err != nil {
		return nil, "", err
	}
	return data, fmt.Sprintf("%s of %s updated from proposal %s (%d chars)", p.Target, *p.ImageID, p.ID, len(p.Content)), nil
}
