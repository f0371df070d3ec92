package history

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// state, set an entry, write object, log line and ref, with the log's one fsync.
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

// BenchmarkFirstAccess is what a process pays at its first access to an image whose
// log holds 300 commits carrying their states: replaying the whole log (replay.go),
// reading it and every carried object once. A log line and an object each hold a
// benchState; the benchmark reports the log's size per commit.
func BenchmarkFirstAccess(b *testing.B) {
	s := newTestStore(b)
	mustInit(b, s, "img", benchState(0))
	for i := range 300 {
		st := benchState(float64(i + 1))
		if _, err := s.Commit("img", st, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	fi, err := os.Stat(filepath.Join(s.dir, "img", logFile))
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Dir(s.dir)
	b.ReportAllocs()
	for b.Loop() {
		s2, err := Open(root)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s2.Head("img"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fi.Size())/302, "log-bytes/line")
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
