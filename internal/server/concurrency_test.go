package server

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Every reply of concurrent edits on one image describes its own commit: state_after
// is the state the call committed, not HEAD read again after a later call moved it
// (issue 11). Each call adds one entry, so the 20 replies carry 20 different entry
// counts, 1 to 20, one per position in the history.
func TestConcurrentEditsStateAfterIsOwnCommit(t *testing.T) {
	f := newEdFixture(t)
	var names []string
	for _, e := range f.s.Vocab.Select(vocab.Filter{Layer: "L1"}) {
		if e.Category != "geometry" && len(e.Parameters) > 0 && len(names) < 20 {
			names = append(names, e.Name)
		}
	}
	if len(names) != 20 {
		t.Fatalf("only %d primitives to apply", len(names))
	}
	// 100 calls: each of the 20 primitives at five strengths, so every commit is a
	// state of its own.
	const calls = 100
	id := "cup"
	f.ingest("coffee.png", id)
	replies := make([]edit.Mutation, calls)
	what := func(i int) string { return fmt.Sprintf("%s at strength %g", names[i%len(names)], strengthOf(i)) }
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			raw := mustJSON(t, map[string]any{"image_id": id, "primitive_name": names[i%len(names)], "strength": strengthOf(i)})
			env, _ := f.s.Invoke(t.Context(), "apply_primitive", raw)
			if !env.Success {
				t.Errorf("%s: %+v", what(i), env.Error)
				return
			}
			b, err := json.Marshal(env.Data)
			if err == nil {
				err = json.Unmarshal(b, &replies[i])
			}
			if err != nil {
				t.Errorf("%s: %v", what(i), err)
			}
		})
	}
	wg.Wait()
	hashes := map[string]bool{}
	for i, m := range replies {
		if m.StateAfter.Head != m.SnapshotHash {
			t.Errorf("%s: state_after.head %s, but the call committed %s", what(i), m.StateAfter.Head, m.SnapshotHash)
		}
		st, err := f.s.Workspace.History.Get(id, m.SnapshotHash)
		if err != nil {
			t.Fatal(err)
		}
		if m.StateAfter.EntryCount != len(st.Entries) {
			t.Errorf("%s: state_after.entry_count %d, but the committed state has %d entries", what(i), m.StateAfter.EntryCount, len(st.Entries))
		}
		hashes[m.SnapshotHash] = true
	}
	if len(hashes) != calls {
		t.Errorf("%d replies name only %d different commits", calls, len(hashes))
	}
}

// strengthOf is the strength of call i of TestConcurrentEditsStateAfterIsOwnCommit:
// 1, 0.9, ... 0.6 by fives of twenty.
func strengthOf(i int) float64 { return 1 - 0.1*float64(i/20) }

// Concurrent checkouts of two branches: each reply's state_after is where its own
// checkout put HEAD (the branch it named, at that branch's snapshot), not where a
// later one moved it.
func TestConcurrentCheckoutsStateAfterIsOwn(t *testing.T) {
	f := newEdFixture(t)
	id := "cup"
	f.ingest("coffee.png", id)
	base := f.call("branch", map[string]any{"image_id": id, "name": "plain"})["data"].(map[string]any)["snapshot_hash"].(string)
	f.call("checkout", map[string]any{"image_id": id, "ref_or_hash": "main"})
	edited := f.call("apply_primitive", map[string]any{"image_id": id, "primitive_name": "exposure", "value": 0.5})["data"].(map[string]any)["snapshot_hash"].(string)
	at := map[string]string{"main": edited, "plain": base}
	const calls = 100
	var wg sync.WaitGroup
	for i := range calls {
		branch := []string{"main", "plain"}[i%2]
		wg.Go(func() {
			env, _ := f.s.Invoke(t.Context(), "checkout", mustJSON(t, map[string]any{"image_id": id, "ref_or_hash": branch}))
			if !env.Success {
				t.Errorf("checkout %s: %+v", branch, env.Error)
				return
			}
			m := env.Data.(edit.Mutation)
			if m.SnapshotHash != at[branch] || m.StateAfter.Head != at[branch] || m.StateAfter.Branch == nil || *m.StateAfter.Branch != branch {
				t.Errorf("checkout %s: snapshot %.7s, state_after at %.7s on %v; want both at %.7s on %s", branch, m.SnapshotHash, m.StateAfter.Head, m.StateAfter.Branch, at[branch], branch)
			}
		})
	}
	wg.Wait()
}
