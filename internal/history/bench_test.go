package history

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchState is a realistic edit state: a dozen entries, two of them masked.
func benchState(v float64) State {
	var st State
	for i := range 12 {
		e := Entry{Primitive: fmt.Sprintf("prim_%d", i), Layer: "L2", Values: map[string]float64{"amount": v, "radius": 0.1}, Strength: 1}
		if i%6 == 0 {
			e.Mask = json.RawMessage(`{"shape":{"kind":"gradient","start":{"x":0.5,"y":0},"end":{"x":0.5,"y":0.6}},"invert":false}`)
		}
		st.Set(e)
	}
	return st
}

// BenchmarkUpdate is the history's share of an apply_primitive call: read HEAD's
// state, set an entry, write object, log line and ref with their fsyncs.
func BenchmarkUpdate(b *testing.B) {
	s := newTestStore(b)
	mustInit(b, s, "img", benchState(0))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Update("img", "bench", func(st *State) error {
			st.Set(Entry{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": float64(i)}, Strength: 1})
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHead is the cost of a read: lock, the crash-recovery probe, HEAD and its ref.
func BenchmarkHead(b *testing.B) {
	s := newTestStore(b)
	mustInit(b, s, "img", benchState(0))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Head("img"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	st := benchState(0.5)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Hash(st); err != nil {
			b.Fatal(err)
		}
	}
}
