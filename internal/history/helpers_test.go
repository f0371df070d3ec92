package history

import (
	"encoding/json"
	"testing"
	"time"

	darkroom "github.com/darkroom-mcp/darkroom"
)

var testTime = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

// newTestStore returns a store in a fresh workspace whose clock is fixed, so log
// entries compare exactly.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return testTime }
	return s
}

func mustInit(t testing.TB, s *Store, id string, st State) string {
	t.Helper()
	h, err := s.Init(id, st, json.RawMessage(`{"source":"photo.jpg"}`))
	if err != nil {
		t.Fatalf("Init(%q): %v", id, err)
	}
	return h
}

func mustCommit(t testing.TB, s *Store, id string, st State, label string) LogEntry {
	t.Helper()
	e, err := s.Commit(id, st, label)
	if err != nil {
		t.Fatalf("Commit(%q, %q): %v", id, label, err)
	}
	return e
}

func mustHash(t testing.TB, st State) string {
	t.Helper()
	h, err := Hash(st)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func exposure(ev float64) State {
	return State{Entries: []Entry{{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": ev}, Strength: 1}}}
}

// codeOf is the contract code of err, "" for nil.
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return darkroom.Code(err)
}
