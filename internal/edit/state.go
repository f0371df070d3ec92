package edit

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/catalog"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/resolve"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// What the editing verbs share: turning an image's edit state into engine edits,
// resolving masks, and the state_after every mutating verb returns.

// Editor is the editing service: the vocabulary it applies, the contract's facts
// it works from (plain data, internal/catalog), the boundary's check for what a
// call gave that the boundary did not complete (Judge), and the workspace it edits
// in. The MCP adapter and the CLI call it with decoded arguments; it returns domain
// types and coded errors (*darkroom.Error), and knows nothing of MCP or CUE.
type Editor struct {
	Facts  *catalog.Facts
	Vocab  *vocab.Vocabulary
	Judge  Judge
	Logger *slog.Logger
	// Workspace holds images and their history; the editing verbs need it.
	Workspace *workspace.Workspace
	// WorkspaceErr, when Workspace is nil, says why the workspace could not be opened.
	WorkspaceErr error

	ingestMu    sync.Mutex // see Ingest
	catalogOnce sync.Once
	ops         map[string]catalog.Operation
	opsErr      error
}

// New returns an editor over a contract's facts and a vocabulary; set Judge before
// applying an edit the boundary did not check, and Workspace before calling a verb
// that needs one.
func New(f *catalog.Facts, v *vocab.Vocabulary, logger *slog.Logger) *Editor {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Editor{Facts: f, Vocab: v, Logger: logger}
}

// Judge is the boundary's check of a call's data with CUE (internal/server, which
// holds the contract). The domain asks it only for what the one check of a call
// did not complete: an edit without PrimitiveEdit.Checked, which comes from a call
// whose every entry the check could not name (an unknown primitive_name in
// another region, which LookupEntry then refuses), and the words of a refusal.
type Judge interface {
	// Values checks the value given for an entry against the entry's #values
	// (ADR-079's shapes), returning every parameter, given or at its default.
	Values(e *vocab.Entry, value json.RawMessage) (map[string]float64, error)
	// CheckMask checks a mask_spec against #MaskRef and returns it completed as
	// the state records it (FinishMask).
	CheckMask(raw json.RawMessage) (json.RawMessage, error)
}

// RequireWorkspace returns the workspace, or unavailable when the editor has none.
func (s *Editor) RequireWorkspace() (*workspace.Workspace, error) {
	if s.Workspace == nil {
		if s.WorkspaceErr != nil {
			return nil, s.WorkspaceErr
		}
		return nil, darkroom.Errorf(darkroom.Unavailable, "no workspace: start darkroom with --workspace DIR")
	}
	return s.Workspace, nil
}

// Templates are the L1/L2 entries bound beneath an image's own edits (bind_layers),
// kept in the versioned state so checkout brings them back too.
type Templates struct {
	L1 string `json:"l1_template,omitempty"`
	L2 string `json:"l2_template,omitempty"`
}

const templatesKey = "templates"

// StateTemplates reads the templates of a state.
func StateTemplates(st history.State) (Templates, error) {
	var t Templates
	raw, ok := st.Extra[templatesKey]
	if !ok {
		return t, nil
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, darkroom.Wrap(darkroom.StateError, err, "stored state: templates")
	}
	return t, nil
}

// SetStateTemplates records templates in a state.
func SetStateTemplates(st *history.State, t Templates) {
	if t == (Templates{}) {
		delete(st.Extra, templatesKey)
		return
	}
	b, _ := json.Marshal(t)
	if st.Extra == nil {
		st.Extra = map[string]json.RawMessage{}
	}
	st.Extra[templatesKey] = b
}

// Edits turns an edit state into engine edits: the templates at their defaults, then
// every entry, each expanded through its vocabulary entry into catalog operations
// (resolve.Edits), their arguments completed with the catalog's defaults without
// evaluating CUE, with its mask resolved.
func (s *Editor) Edits(st history.State) ([]engine.Edit, error) {
	t, err := StateTemplates(st)
	if err != nil {
		return nil, err
	}
	var edits []engine.Edit
	for _, name := range []string{t.L1, t.L2} {
		if name == "" {
			continue
		}
		more, err := s.entryEdits(history.Entry{Primitive: name, Strength: 1})
		if err != nil {
			return nil, err
		}
		edits = append(edits, more...)
	}
	for _, e := range st.Entries {
		more, err := s.entryEdits(e)
		if err != nil {
			return nil, err
		}
		edits = append(edits, more...)
	}
	return edits, nil
}

func (s *Editor) entryEdits(e history.Entry) ([]engine.Edit, error) {
	entry, ok := s.Vocab.Entry(e.Primitive)
	if !ok {
		return nil, darkroom.Errorf(darkroom.NotFound, "no vocabulary entry %q (was its pack removed?)", e.Primitive)
	}
	var mask *engine.Mask
	if len(e.Mask) > 0 {
		spec, err := s.ResolveMask(e.Mask)
		if err != nil {
			return nil, err
		}
		if mask, err = engine.DecodeMask(spec); err != nil {
			return nil, err
		}
	} else if entry.DefaultMask != "" {
		mk, ok := s.Vocab.Mask(entry.DefaultMask)
		if !ok {
			return nil, darkroom.Errorf(darkroom.MaskingError, "entry %s: no mask named %q", e.Primitive, entry.DefaultMask)
		}
		var err error
		if mask, err = engine.DecodeMask(mk.Spec); err != nil {
			return nil, err
		}
	}
	defaults, err := s.Facts.OperationDefaults()
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "operation catalog")
	}
	return resolve.Edits(entry, e.Values, mask, e.Strength, defaults)
}

// withDefaults completes an operation's arguments with the catalog's defaults. The
// values were checked when their entry was applied (CheckEntry), so a render trusts
// them and spends no CUE evaluation on them (TestCatalogDefaultsAreTheContracts
// pins that this is what the contract's check would fill).
func withDefaults(op catalog.Operation, given map[string]any) engine.Args {
	args := make(engine.Args, len(op.Args))
	for _, a := range op.Args {
		if a.Default != nil {
			args[a.Name] = a.Default
		}
	}
	for k, v := range given {
		args[k] = v
	}
	return args
}

// CheckEntry checks a new entry before it is committed: its entry exists and its
// mask resolves, in plain Go. Entries already stored were checked so when applied; a
// commit checks only the new ones.
func (s *Editor) CheckEntry(e history.Entry) error {
	if _, ok := s.Vocab.Entry(e.Primitive); !ok {
		return darkroom.Errorf(darkroom.NotFound, "no vocabulary entry %q", e.Primitive)
	}
	// The operations' arguments need no check of their own: the manifest makes
	// every bound parameter's range fit its argument's (contracts/manifest.cue),
	// and the values were checked against the parameters.
	_, err := s.entryEdits(e)
	return err
}

// FinishMask takes a mask_spec the contract checked and completed (a named mask or
// a drawn one, its defaults filled) to the form the state records, so equal masks
// compare equal: a name must be a pack's mask, and comes without a shape. A name
// that no pack defines, or a name given with a shape, is masking_error.
func (s *Editor) FinishMask(spec map[string]any) (json.RawMessage, error) {
	if name, ok := spec["name"].(string); ok {
		if _, ok := s.Vocab.Mask(name); !ok {
			names := make([]string, len(s.Vocab.Masks))
			for i, m := range s.Vocab.Masks {
				names[i] = m.Name
			}
			return nil, &darkroom.Error{Code: darkroom.MaskingError,
				Message: fmt.Sprintf("mask_spec.name: no mask named %q; list_masks_vocabulary has %v", name, names),
				Details: map[string]any{"name": name}}
		}
		if spec["shape"] != nil {
			return nil, darkroom.Errorf(darkroom.MaskingError, "mask_spec: give a name or a shape, not both")
		}
	} else {
		delete(spec, "name")
	}
	return json.Marshal(spec)
}

// ResolveMask turns a recorded mask into a drawn #MaskSpec: a named mask's spec with
// the given ranges added (intersected) and invert applied on top.
func (s *Editor) ResolveMask(recorded json.RawMessage) (map[string]any, error) {
	var spec map[string]any
	if err := json.Unmarshal(recorded, &spec); err != nil {
		return nil, darkroom.Wrap(darkroom.StateError, err, "stored state: recorded mask")
	}
	name, ok := spec["name"].(string)
	if !ok {
		delete(spec, "name")
		return spec, nil
	}
	mk, ok := s.Vocab.Mask(name)
	if !ok {
		return nil, darkroom.Errorf(darkroom.MaskingError, "no mask named %q (was its pack removed?)", name)
	}
	out := map[string]any{}
	for k, v := range mk.Spec {
		out[k] = v
	}
	var ranges []any
	if r, ok := mk.Spec["ranges"].([]any); ok {
		ranges = append(ranges, r...)
	}
	if r, ok := spec["ranges"].([]any); ok {
		ranges = append(ranges, r...)
	}
	if len(ranges) > 0 {
		out["ranges"] = ranges
	}
	inv, _ := mk.Spec["invert"].(bool)
	given, _ := spec["invert"].(bool)
	out["invert"] = inv != given
	return out, nil
}

// StateAfter is the #StateAfter of the contract.
type StateAfter struct {
	Head       string   `json:"head"`
	Branch     *string  `json:"branch"`
	Detached   bool     `json:"detached"`
	EntryCount int      `json:"entry_count"`
	Layers     []string `json:"layers"`
	Masks      []string `json:"masks"`
}

// Mutation is the #Mutation of the contract: the data of every mutating tool.
type Mutation struct {
	ImageID      string     `json:"image_id"`
	StateAfter   StateAfter `json:"state_after"`
	SnapshotHash string     `json:"snapshot_hash"`
}

// StateAfter describes an image's HEAD.
func (s *Editor) StateAfter(imageID string) (StateAfter, history.State, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return StateAfter{}, history.State{}, err
	}
	head, err := ws.History.Head(imageID)
	if err != nil {
		return StateAfter{}, history.State{}, err
	}
	st, err := ws.History.Get(imageID, head.Hash)
	if err != nil {
		return StateAfter{}, history.State{}, err
	}
	sa, err := describeState(head, st)
	return sa, st, err
}

// describeState describes state st with HEAD at head.
func describeState(head history.Head, st history.State) (StateAfter, error) {
	sa := StateAfter{Head: head.Hash, Detached: head.Detached, EntryCount: len(st.Entries), Layers: []string{}, Masks: []string{}}
	if !head.Detached {
		b := head.Branch
		sa.Branch = &b
	}
	t, err := StateTemplates(st)
	if err != nil {
		return StateAfter{}, err
	}
	layers := map[string]bool{}
	if t.L1 != "" {
		layers["L1"] = true
	}
	if t.L2 != "" {
		layers["L2"] = true
	}
	masks := map[string]bool{}
	for _, e := range st.Entries {
		layers[e.Layer] = true
		if len(e.Mask) > 0 {
			var m struct {
				Name *string `json:"name"`
			}
			json.Unmarshal(e.Mask, &m)
			if m.Name != nil {
				masks[*m.Name] = true
			} else {
				masks["drawn"] = true
			}
		}
	}
	for l := range layers {
		sa.Layers = append(sa.Layers, l)
	}
	for m := range masks {
		sa.Masks = append(sa.Masks, m)
	}
	sort.Strings(sa.Layers)
	sort.Strings(sa.Masks)
	return sa, nil
}

// Mutate changes an image's state under its lock, commits it as a snapshot labelled
// with the tool's name and returns the #Mutation built from that commit. An error
// from change leaves the state as it was. The stored entries are trusted; an entry
// change adds must have passed CheckEntry (StateEntry does it), so a commit costs
// the same however many entries the image has.
func (s *Editor) Mutate(imageID, label string, change func(st *history.State) error) (Mutation, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Mutation{}, err
	}
	c, err := ws.History.Update(imageID, label, change)
	if err != nil {
		return Mutation{}, err
	}
	return committedMutation(imageID, c)
}

// committedMutation describes a commit from what the store committed, not from HEAD
// read again: by then a concurrent call may have moved it.
func committedMutation(imageID string, c history.Committed) (Mutation, error) {
	sa, err := describeState(c.Head, c.State)
	if err != nil {
		return Mutation{}, err
	}
	return Mutation{ImageID: imageID, StateAfter: sa, SnapshotHash: c.Hash}, nil
}

// Mutation describes an image's HEAD as a mutating tool returns it.
func (s *Editor) Mutation(imageID string) (Mutation, error) {
	sa, _, err := s.StateAfter(imageID)
	if err != nil {
		return Mutation{}, err
	}
	return Mutation{ImageID: imageID, StateAfter: sa, SnapshotHash: sa.Head}, nil
}

// FramingBound reports whether an entry drives an operation the catalog marks
// framing_bound; propagate_state skips such entries unless told otherwise.
func (s *Editor) FramingBound(primitive string) (bool, error) {
	e, ok := s.Vocab.Entry(primitive)
	if !ok {
		return false, nil
	}
	ops, err := s.catalog()
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(e.Operations, func(u vocab.OperationUse) bool { return ops[u.Op].FramingBound }), nil
}

// operationsMu serializes decoding the catalog, for editors sharing one contract.
var operationsMu sync.Mutex

// catalog returns the contract's operations by name, decoded once per editor:
// decoding walks the CUE value, which is slow and not safe to do from several
// goroutines at once.
func (s *Editor) catalog() (map[string]catalog.Operation, error) {
	s.catalogOnce.Do(func() {
		operationsMu.Lock()
		list, err := s.Facts.Operations()
		operationsMu.Unlock()
		if err != nil {
			s.opsErr = darkroom.Wrap(darkroom.InternalError, err, "operation catalog")
			return
		}
		s.ops = make(map[string]catalog.Operation, len(list))
		for _, op := range list {
			// Defaults as the contract's check returns them, decoded from JSON
			// (numbers are float64), so a render's arguments are the check's.
			op.Args = slices.Clone(op.Args)
			for i, a := range op.Args {
				b, err := json.Marshal(a.Default)
				if err == nil {
					err = json.Unmarshal(b, &op.Args[i].Default)
				}
				if err != nil {
					s.opsErr = darkroom.Wrap(darkroom.InternalError, err, "operation catalog: %s.%s default", op.Name, a.Name)
					return
				}
			}
			s.ops[op.Name] = op
		}
	})
	return s.ops, s.opsErr
}
