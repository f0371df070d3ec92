package history

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConcurrentUpdates has many goroutines, through two Store values on one workspace
// (so the flock matters as much as the in-process lock), each apply its own primitive to
// one image. The history must be linear and no update lost: every commit's parent is
// the commit before it, and the last state holds every goroutine's entries.
func TestConcurrentUpdates(t *testing.T) {
	const goroutines, perGoroutine = 8, 12
	a := newTestStore(t)
	b, err := Open(filepath.Dir(a.dir))
	if err != nil {
		t.Fatal(err)
	}
	base := mustInit(t, a, "img", State{})
	// A second image edited at the same time must not be disturbed.
	mustInit(t, a, "other", State{})

	var wg sync.WaitGroup
	errs := make(chan error, goroutines*perGoroutine*2)
	for g := range goroutines {
		s := a
		if g%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for i := range perGoroutine {
				e := Entry{Primitive: fmt.Sprintf("p%d", g), Values: map[string]float64{"i": float64(i)}, Strength: 1}
				if _, err := s.Update("img", fmt.Sprintf("g%d i%d", g, i), func(st *State) error {
					st.Set(e)
					st.Set(Entry{Primitive: fmt.Sprintf("p%d-%d", g, i), Strength: 1})
					return nil
				}); err != nil {
					errs <- err
				}
				if _, err := s.Commit("other", State{Entries: []Entry{e}}, ""); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	logged, err := a.Log("img", 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(logged)
	commits := logged[2:]
	if len(commits) != goroutines*perGoroutine {
		t.Fatalf("log has %d commits, want %d", len(commits), goroutines*perGoroutine)
	}
	parent := base
	for i, e := range commits {
		if e.Op != OpCommit || e.Parent != parent {
			t.Fatalf("commit %d: op %s parent %s, want a commit on %s", i, e.Op, e.Parent, parent)
		}
		parent = e.Hash
	}

	head, err := a.Head("img")
	if err != nil {
		t.Fatal(err)
	}
	if head.Hash != parent {
		t.Errorf("HEAD is %s, want the last commit %s", head.Hash, parent)
	}
	st, err := a.Get("img", head.Hash)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, e := range st.Entries {
		got[e.Primitive] = e.Values["i"]
	}
	want := map[string]float64{}
	for g := range goroutines {
		want[fmt.Sprintf("p%d", g)] = perGoroutine - 1
		for i := range perGoroutine {
			want[fmt.Sprintf("p%d-%d", g, i)] = 0
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("final state lost updates (-want +got):\n%s", diff)
	}
	for _, id := range []string{"img", "other"} {
		if _, err := a.Check(id); err != nil {
			t.Error(err)
		}
	}
	if logged, _ := a.Log("other", 0); len(logged) != 2+goroutines*perGoroutine {
		t.Errorf("other has %d log entries, want %d", len(logged), 2+goroutines*perGoroutine)
	}
}
