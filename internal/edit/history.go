package edit

import (
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// The history verbs: snapshot, checkout, branch, tag, log and diff, each a thin map
// onto internal/history. The mutating ones return the Mutation built from what the
// store did under the image's lock, never from HEAD read again afterwards: by then a
// concurrent call may have moved it.

// DefaultSnapshotLabel labels a snapshot taken without a label, so the log still
// says which verb made it.
const DefaultSnapshotLabel = "snapshot"

// Snapshot commits HEAD's own state under label (DefaultSnapshotLabel when empty).
func (s *Editor) Snapshot(id, label string) (Mutation, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Mutation{}, err
	}
	if label == "" {
		label = DefaultSnapshotLabel
	}
	// Update commits HEAD's own state under the image's lock: reading it first and
	// committing it after would undo an edit made in between.
	c, err := ws.History.Update(id, label, func(*history.State) error { return nil })
	if err != nil {
		return Mutation{}, err
	}
	return committedMutation(id, c)
}

// Checkout moves HEAD to spec (a branch, a tag, a hash or a prefix of one).
func (s *Editor) Checkout(id, spec string) (Mutation, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Mutation{}, err
	}
	m, err := ws.History.CheckoutState(id, spec)
	if err != nil {
		return Mutation{}, err
	}
	return movedMutation(id, m)
}

// Branch creates branch name at from (HEAD when empty) and checks it out, as one
// operation: when the checkout fails the branch does not exist either.
func (s *Editor) Branch(id, name, from string) (Mutation, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Mutation{}, err
	}
	m, err := ws.History.BranchCheckout(id, name, from)
	if err != nil {
		return Mutation{}, err
	}
	return movedMutation(id, m)
}

// Tag names the snapshot spec (HEAD when empty) name; HEAD stays where it is and
// SnapshotHash is what the tag names.
func (s *Editor) Tag(id, name, spec string) (Mutation, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Mutation{}, err
	}
	m, err := ws.History.TagState(id, name, spec)
	if err != nil {
		return Mutation{}, err
	}
	// state_after describes HEAD, which a tag does not move; the state read under
	// the lock is the tagged one, so HEAD's own is described from its hash.
	st := m.State
	if m.Head.Hash != m.Hash {
		if st, err = ws.History.Get(id, m.Head.Hash); err != nil {
			return Mutation{}, err
		}
	}
	sa, err := describeState(m.Head, st)
	if err != nil {
		return Mutation{}, err
	}
	return Mutation{ImageID: id, StateAfter: sa, SnapshotHash: m.Hash}, nil
}

// movedMutation describes an operation that moved HEAD to m.Hash.
func movedMutation(id string, m history.Moved) (Mutation, error) {
	sa, err := describeState(m.Head, m.State)
	if err != nil {
		return Mutation{}, err
	}
	return Mutation{ImageID: id, StateAfter: sa, SnapshotHash: m.Hash}, nil
}

// Log returns HEAD and an image's last limit operations, newest first.
func (s *Editor) Log(id string, limit int) (history.Head, []history.LogEntry, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return history.Head{}, nil, err
	}
	head, err := ws.History.Head(id)
	if err != nil {
		return history.Head{}, nil, err
	}
	entries, err := ws.History.Log(id, limit)
	return head, entries, err
}

// Version is one resolved snapshot of an image: the spec as given, its hash, its
// state.
type Version struct {
	Spec  string
	Hash  string
	State history.State
}

// Resolve resolves spec (HEAD when empty) to its hash and state.
func (s *Editor) Resolve(id, spec string) (Version, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Version{}, err
	}
	if spec == "" {
		spec = "HEAD"
	}
	hash, err := ws.History.Resolve(id, spec)
	if err != nil {
		return Version{}, err
	}
	st, err := ws.History.Get(id, hash)
	if err != nil {
		return Version{}, err
	}
	return Version{Spec: spec, Hash: hash, State: st}, nil
}

// Diff compares two versions of an image (HEAD for an empty spec).
func (s *Editor) Diff(id, specA, specB string) (a, b Version, d history.Difference, err error) {
	if a, err = s.Resolve(id, specA); err != nil {
		return
	}
	if b, err = s.Resolve(id, specB); err != nil {
		return
	}
	return a, b, history.Diff(a.State, b.State), nil
}
