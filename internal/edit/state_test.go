package edit

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

func testEditor(t testing.TB) *Editor {
	s, _ := testEditorContract(t)
	return s
}

// testEditorContract is testEditor and the contract its facts come from.
func testEditorContract(t testing.TB) (*Editor, *contract.Contract) {
	t.Helper()
	c, v := packtest.Builtin(t)
	return New(c.Facts(), v, nil), c
}

// A render trusts the store: it completes an entry's operation arguments with the
// catalog's defaults instead of running the contract's check again. That must fill
// exactly what the check fills, for every entry of the built-in vocabulary at its
// defaults and at each parameter's bounds.
func TestCatalogDefaultsAreTheContracts(t *testing.T) {
	s, c := testEditorContract(t)
	ops, err := s.catalog()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range s.Vocab.Entries {
		valueSets := []map[string]float64{{}}
		for name, p := range e.Parameters {
			valueSets = append(valueSets, map[string]float64{name: p.Min}, map[string]float64{name: p.Max})
		}
		for _, values := range valueSets {
			for _, call := range e.Calls(values) {
				want, err := c.CheckOperation(call.Op, call.Args)
				if err != nil {
					t.Errorf("%s %v: the contract refuses %s %v: %v", e.Name, values, call.Op, call.Args, err)
					continue
				}
				got := withDefaults(ops[call.Op], call.Args)
				if diff := cmp.Diff(want, map[string]any(got)); diff != "" {
					t.Errorf("%s %v: %s arguments (-contract +catalog):\n%s", e.Name, values, call.Op, diff)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d operation calls compared: the vocabulary did not load", n)
	}
}

// A stored state whose recorded mask or templates do not decode is a state_error:
// the store is trusted, and a broken state is said to be one.
func TestEditsOfBrokenStateIsStateError(t *testing.T) {
	s := testEditor(t)
	for name, st := range map[string]history.State{
		"mask":      {Entries: []history.Entry{{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": 1}, Mask: []byte(`[1,2]`), Strength: 1}}},
		"templates": {Entries: []history.Entry{}, Extra: map[string]json.RawMessage{"templates": json.RawMessage(`"L1"`)}},
	} {
		if _, err := s.Edits(st); err == nil || darkroom.Code(err) != darkroom.StateError {
			t.Errorf("%s: %v, want state_error", name, err)
		}
	}
}
