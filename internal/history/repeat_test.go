package history

import "testing"

// A repeated call that moves nothing leaves the log as the first call left it, so
// the tools above are idempotent on disk; a different label, or a commit that
// moves the branch, is logged as before.
func TestRepeatIsNotLoggedAgain(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	count := func() int {
		t.Helper()
		l, err := s.Log("img", 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(l)
	}
	mustCommit(t, s, "img", exposure(0.5), "brighter")
	n := count()
	e := mustCommit(t, s, "img", exposure(0.5), "snapshot")
	if count() != n+1 || e.Hash != e.Parent {
		t.Fatalf("a first labelled commit of an unchanged state: %d entries after %d, entry %+v; want it logged", count(), n, e)
	}
	again := mustCommit(t, s, "img", exposure(0.5), "snapshot")
	if count() != n+1 || again != e {
		t.Errorf("the same commit repeated: %d entries (want %d), returned %+v (want the logged %+v)", count(), n+1, again, e)
	}
	mustCommit(t, s, "img", exposure(0.5), "another label")
	if count() != n+2 {
		t.Errorf("an unchanged state with a new label: %d entries, want %d", count(), n+2)
	}
	for range 2 {
		if _, err := s.Checkout("img", "baseline"); err != nil {
			t.Fatal(err)
		}
	}
	if count() != n+3 {
		t.Errorf("checkout baseline twice: %d entries, want %d (one checkout)", count(), n+3)
	}
	if h, err := s.Head("img"); err != nil || !h.Detached {
		t.Errorf("HEAD after the repeated checkout: %+v, %v; want detached at baseline", h, err)
	}
}
