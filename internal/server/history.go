package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// The history tools: snapshot, checkout, branch, tag, log and diff, each a thin map
// onto internal/history. The mutating ones return the #Mutation.

// Each handler decodes its checked arguments into its own struct (a misspelt field
// is a compile error), calls the editor and says what it did.

type snapshotArgs struct {
	ImageID string `json:"image_id"`
	Label   string `json:"label"`
}

func snapshotTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[snapshotArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, err := s.Snapshot(a.ImageID, a.Label)
	if err != nil {
		return nil, "", err
	}
	label := a.Label
	if label == "" {
		label = edit.DefaultSnapshotLabel
	}
	return m, fmt.Sprintf("snapshot %s of %s: %q", abbrev(m.SnapshotHash), a.ImageID, label), nil
}

type checkoutArgs struct {
	ImageID   string `json:"image_id"`
	RefOrHash string `json:"ref_or_hash"`
}

func checkoutTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[checkoutArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, err := s.Checkout(a.ImageID, a.RefOrHash)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s: checked out %s, %s", a.ImageID, a.RefOrHash, describeHead(m.StateAfter)), nil
}

type branchArgs struct {
	ImageID string `json:"image_id"`
	Name    string `json:"name"`
	From    string `json:"from"`
}

func branchTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[branchArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, err := s.Branch(a.ImageID, a.Name, a.From)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s: created branch %s at %s and checked it out", a.ImageID, a.Name, abbrev(m.SnapshotHash)), nil
}

type tagArgs struct {
	ImageID string `json:"image_id"`
	Name    string `json:"name"`
	Hash    string `json:"hash"`
}

func tagTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[tagArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, err := s.Tag(a.ImageID, a.Name, a.Hash)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s: tagged %s as %s", a.ImageID, abbrev(m.SnapshotHash), a.Name), nil
}

// historyLogEntry is the #LogEntry of the contract.
type historyLogEntry struct {
	Time   string  `json:"time"`
	Op     string  `json:"op"`
	Hash   string  `json:"hash"`
	Parent *string `json:"parent"`
	Branch *string `json:"branch"`
	Label  *string `json:"label"`
}

// viewLogEntry maps a history log line onto #LogEntry: branch is the ref the
// operation moved without refs/heads/ (a tag keeps its refs/tags/ prefix), null on a
// detached HEAD; parent and label are null when the log has none.
func viewLogEntry(e history.LogEntry) historyLogEntry {
	v := historyLogEntry{Time: e.Time.UTC().Format(time.RFC3339), Op: e.Op, Hash: e.Hash}
	if e.Parent != "" {
		v.Parent = &e.Parent
	}
	if e.Ref != "" && e.Ref != "HEAD" {
		b := strings.TrimPrefix(e.Ref, "refs/heads/")
		v.Branch = &b
	}
	if e.Label != "" {
		v.Label = &e.Label
	}
	return v
}

type logArgs struct {
	ImageID string `json:"image_id"`
	Limit   int    `json:"limit"` // the contract fills the default
}

func logTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[logArgs](args)
	if err != nil {
		return nil, "", err
	}
	head, log, err := s.Log(a.ImageID, a.Limit)
	if err != nil {
		return nil, "", err
	}
	entries := make([]historyLogEntry, len(log))
	for i, e := range log {
		entries[i] = viewLogEntry(e)
	}
	data := map[string]any{"image_id": a.ImageID, "head": head.Hash, "entries": entries}
	return data, fmt.Sprintf("%s: %d operations, HEAD at %s", a.ImageID, len(entries), abbrev(head.Hash)), nil
}

// historyEntry is the #StateEntry of the contract: an entry with its mask as the
// state records it.
type historyEntry struct {
	Primitive string             `json:"primitive"`
	Layer     string             `json:"layer"`
	Values    map[string]float64 `json:"values"`
	Mask      json.RawMessage    `json:"mask"` // nil encodes as null: the whole image
	Strength  float64            `json:"strength"`
}

func viewStateEntry(e history.Entry) historyEntry {
	v := historyEntry{Primitive: e.Primitive, Layer: e.Layer, Values: e.Values, Mask: e.Mask, Strength: e.Strength}
	if v.Values == nil {
		v.Values = map[string]float64{}
	}
	return v
}

type historyChange struct {
	Old historyEntry `json:"old"`
	New historyEntry `json:"new"`
}

type diffArgs struct {
	ImageID string `json:"image_id"`
	HashA   string `json:"hash_a"`
	HashB   string `json:"hash_b"`
}

func diffTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[diffArgs](args)
	if err != nil {
		return nil, "", err
	}
	va, vb, d, err := s.Diff(a.ImageID, a.HashA, a.HashB)
	if err != nil {
		return nil, "", err
	}
	added := make([]historyEntry, len(d.Added))
	for i, e := range d.Added {
		added[i] = viewStateEntry(e)
	}
	removed := make([]historyEntry, len(d.Removed))
	for i, e := range d.Removed {
		removed[i] = viewStateEntry(e)
	}
	changed := make([]historyChange, len(d.Changed))
	for i, c := range d.Changed {
		changed[i] = historyChange{Old: viewStateEntry(c.Old), New: viewStateEntry(c.New)}
	}
	data := map[string]any{
		"image_id": a.ImageID, "hash_a": va.Hash, "hash_b": vb.Hash,
		"added": added, "removed": removed, "changed": changed,
	}
	return data, describeDiff(a.ImageID, va.Hash, vb.Hash, d), nil
}

// describeDiff is the summary line of a diff. It also names what the data cannot
// show: a new entry order (the engine renders in its own order, but the hashes
// differ) and changed layer templates.
func describeDiff(id, hashA, hashB string, d history.Difference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s..%s: %d added, %d removed, %d changed", id, abbrev(hashA), abbrev(hashB), len(d.Added), len(d.Removed), len(d.Changed))
	if d.Reordered {
		b.WriteString("; entries reordered")
	}
	if len(d.Extra) > 0 {
		fmt.Fprintf(&b, "; also changed: %s", strings.Join(d.Extra, ", "))
	}
	return b.String()
}

// abbrev is the abbreviated hash people read (7 hex digits, as git prints).
func abbrev(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

func describeHead(sa edit.StateAfter) string {
	if sa.Branch != nil {
		return fmt.Sprintf("on branch %s at %s", *sa.Branch, abbrev(sa.Head))
	}
	return "HEAD detached at " + abbrev(sa.Head)
}
