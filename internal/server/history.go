package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"darkroom/internal/history"
)

// The history tools: snapshot, checkout, branch, tag, log and diff, each a thin map
// onto internal/history. The mutating ones return the #Mutation.

func init() {
	register("snapshot", snapshotTool)
	register("checkout", checkoutTool)
	register("branch", branchTool)
	register("tag", tagTool)
	register("log", logTool)
	register("diff", diffTool)
}

// defaultSnapshotLabel labels a snapshot taken without a label, so the log still
// says which tool made it.
const defaultSnapshotLabel = "snapshot"

func snapshotTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	label := stringArg(args, "label")
	if label == "" {
		label = defaultSnapshotLabel
	}
	// Update commits HEAD's own state under the image's lock: reading it first and
	// committing it after would undo an edit made in between.
	c, err := ws.History.Update(id, label, func(*history.State) error { return nil })
	if err != nil {
		return nil, "", err
	}
	m, err := committedMutation(id, c)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("snapshot %s of %s: %q", abbrev(m.SnapshotHash), id, label), nil
}

func checkoutTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id, spec := stringArg(args, "image_id"), stringArg(args, "ref_or_hash")
	h, err := ws.History.Checkout(id, spec)
	if err != nil {
		return nil, "", err
	}
	m, err := s.mutationAt(id, h.Hash)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s: checked out %s, %s", id, spec, describeHead(m.StateAfter)), nil
}

func branchTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id, name, from := stringArg(args, "image_id"), stringArg(args, "name"), stringArg(args, "from")
	if _, err := ws.History.Branch(id, name, from); err != nil {
		return nil, "", err
	}
	// The full ref: a tag of the same name cannot exist (Branch refuses it), but
	// the spec should not depend on that.
	h, err := ws.History.Checkout(id, "refs/heads/"+name)
	if err != nil {
		return nil, "", err
	}
	m, err := s.mutationAt(id, h.Hash)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s: created branch %s at %s and checked it out", id, name, abbrev(m.SnapshotHash)), nil
}

func tagTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id, name, spec := stringArg(args, "image_id"), stringArg(args, "name"), stringArg(args, "hash")
	e, err := ws.History.Tag(id, name, spec)
	if err != nil {
		return nil, "", err
	}
	// HEAD stays where it was; snapshot_hash is what the tag names.
	m, err := s.mutationAt(id, e.Hash)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s: tagged %s as %s", id, abbrev(e.Hash), name), nil
}

// mutationAt is the #Mutation of an operation that produced or named snapshot hash.
// It is the operation's own hash, not HEAD read again afterwards: by then a
// concurrent call may have moved HEAD (state_after says where it is now).
func (s *Server) mutationAt(id, hash string) (Mutation, error) {
	m, err := s.Mutation(id)
	if err != nil {
		return Mutation{}, err
	}
	m.SnapshotHash = hash
	return m, nil
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

// recentLog returns an image's last limit operations as #LogEntry, newest first.
func recentLog(ws *Workspace, id string, limit int) ([]historyLogEntry, error) {
	entries, err := ws.History.Log(id, limit)
	if err != nil {
		return nil, err
	}
	out := make([]historyLogEntry, len(entries))
	for i, e := range entries {
		out[i] = viewLogEntry(e)
	}
	return out, nil
}

func logTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	limit, _ := args["limit"].(float64) // the contract fills the default
	head, err := ws.History.Head(id)
	if err != nil {
		return nil, "", err
	}
	entries, err := recentLog(ws, id, int(limit))
	if err != nil {
		return nil, "", err
	}
	data := map[string]any{"image_id": id, "head": head.Hash, "entries": entries}
	return data, fmt.Sprintf("%s: %d operations, HEAD at %s", id, len(entries), abbrev(head.Hash)), nil
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

// resolveSpec resolves a spec (HEAD when empty) to its hash and state.
func resolveSpec(ws *Workspace, id, spec string) (string, history.State, error) {
	if spec == "" {
		spec = "HEAD"
	}
	hash, err := ws.History.Resolve(id, spec)
	if err != nil {
		return "", history.State{}, err
	}
	st, err := ws.History.Get(id, hash)
	return hash, st, err
}

func diffTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	hashA, a, err := resolveSpec(ws, id, stringArg(args, "hash_a"))
	if err != nil {
		return nil, "", err
	}
	hashB, b, err := resolveSpec(ws, id, stringArg(args, "hash_b"))
	if err != nil {
		return nil, "", err
	}
	d := history.Diff(a, b)
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
		"image_id": id, "hash_a": hashA, "hash_b": hashB,
		"added": added, "removed": removed, "changed": changed,
	}
	return data, describeDiff(id, hashA, hashB, d), nil
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

func describeHead(sa StateAfter) string {
	if sa.Branch != nil {
		return fmt.Sprintf("on branch %s at %s", *sa.Branch, abbrev(sa.Head))
	}
	return "HEAD detached at " + abbrev(sa.Head)
}
