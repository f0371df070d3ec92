package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// powerCutImage builds an image through every kind of mutation and returns the
// states of the commits it acknowledged, by hash.
func powerCutImage(t *testing.T, s *Store) map[string]State {
	t.Helper()
	acked := map[string]State{}
	h0 := mustInit(t, s, "img", exposure(0))
	acked[h0] = exposure(0)
	commit := func(v float64) {
		t.Helper()
		st := exposure(v)
		st.Set(Entry{Primitive: "contrast", Layer: "L1", Values: map[string]float64{"amount": v / 10}, Strength: 1})
		acked[mustCommit(t, s, "img", st, fmt.Sprintf("edit <%v> & more", v)).Hash] = st
	}
	step := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	commit(1)
	commit(2)
	_, err := s.Branch("img", "alt", "")
	step(err)
	_, err = s.Tag("img", "v1", "")
	step(err)
	commit(3)
	_, err = s.Checkout("img", "alt")
	step(err)
	commit(4)
	_, err = s.Checkout("img", "baseline")
	step(err)
	commit(5)
	_, err = s.Checkout("img", "main")
	step(err)
	commit(6)
	_, err = s.BranchCheckout("img", "feat", "")
	step(err)
	commit(7)
	commit(8)
	return acked
}

// loggedValues returns, from the log, every value each ref and HEAD had, oldest
// first: what a rename that a power cut undid can leave in place.
func loggedValues(t *testing.T, dir string) map[string][]string {
	t.Helper()
	entries, _, err := readLogBackward(filepath.Join(dir, logFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		switch {
		case e.Op == OpInit:
			out[e.Ref] = append(out[e.Ref], e.Hash+"\n")
			out[headFile] = append(out[headFile], "ref: "+e.Ref+"\n")
		case e.Op == OpCheckout && e.Ref != "HEAD":
			out[headFile] = append(out[headFile], "ref: "+e.Ref+"\n")
		case e.Ref == "HEAD":
			out[headFile] = append(out[headFile], e.Hash+"\n")
		default:
			out[e.Ref] = append(out[e.Ref], e.Hash+"\n")
		}
	}
	return out
}

// TestPowerCut simulates what a crash of the machine can leave: the refs, HEAD and the
// objects were written without an fsync, so any of them may be missing, empty, zeros,
// cut short, or (a ref or HEAD) back at a value the log gave it earlier; the log is
// whole up to its last fsynced line, plus perhaps a torn line nobody was answered for.
// A new process (a new Store) must find every acknowledged operation: its first access
// replays the log, after which refs, HEAD, log and objects are what they were before
// the cut, every acknowledged state reads back, and Check finds nothing wrong.
func TestPowerCut(t *testing.T) {
	for seed := range 12 {
		for _, access := range []string{"read", "check"} {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, access), func(t *testing.T) {
				root := t.TempDir()
				s, err := Open(root)
				if err != nil {
					t.Fatal(err)
				}
				s.now = func() time.Time { return testTime }
				acked := powerCutImage(t, s)
				dir := filepath.Join(s.dir, "img")
				rng := rand.New(rand.NewPCG(uint64(seed), 33))
				if seed%3 == 0 {
					// An append whose fsync never returned: nobody was answered.
					f, err := os.OpenFile(filepath.Join(dir, logFile), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString(`{"time":"2026-01-02T10:00:00Z","op":"com`)
					f.Close()
				}
				want := diskState(t, root, "img")
				head, err := s.Head("img")
				if err != nil {
					t.Fatal(err)
				}

				// The cut: every file written without an fsync since Init may be hit.
				was := loggedValues(t, dir)
				baseline := acked0(t, s)
				var hit []string
				for name, content := range want {
					if name == logFile || name == metaFile || name == objectsDir+"/"+baseline+".json" {
						continue // fsynced: the log, meta and the baseline's object
					}
					path := filepath.Join(dir, filepath.FromSlash(name))
					damage := rng.IntN(6)
					if seed == 0 {
						damage = 1 + len(hit)%5 // the first seed hits every file
					}
					switch damage {
					case 0:
						continue
					case 1:
						os.Remove(path)
					case 2:
						os.WriteFile(path, nil, 0o644)
					case 3:
						os.WriteFile(path, make([]byte, len(content)), 0o644)
					case 4:
						os.WriteFile(path, []byte(content[:len(content)/2]), 0o644)
					case 5:
						earlier := was[name]
						if strings.HasPrefix(name, objectsDir+"/") || len(earlier) < 2 {
							os.Remove(path) // a new object or ref the cut lost
						} else {
							os.WriteFile(path, []byte(earlier[rng.IntN(len(earlier)-1)]), 0o644)
						}
					}
					hit = append(hit, name)
				}
				if seed == 0 && len(hit) < 10 {
					t.Fatalf("the cut hit only %v", hit)
				}

				s2, err := Open(root)
				if err != nil {
					t.Fatal(err)
				}
				switch access {
				case "read":
					got, err := s2.Head("img")
					if err != nil {
						t.Fatalf("Head after the cut (hit %v): %v", hit, err)
					}
					if got != head {
						t.Errorf("Head after the cut: %+v, want %+v", got, head)
					}
				case "check":
					rep, err := s2.Check("img")
					if err != nil {
						t.Fatalf("Check after the cut (hit %v): %v", hit, err)
					}
					if len(hit) > 0 && len(rep.Repaired) == 0 {
						t.Errorf("Check repaired nothing after the cut hit %v", hit)
					}
				}
				if diff := cmp.Diff(want, diskState(t, root, "img")); diff != "" {
					t.Errorf("after the first access (hit %v), the image is not what was acknowledged (-want +got):\n%s", hit, diff)
				}
				for h, st := range acked {
					got, err := s2.Get("img", h)
					if err != nil {
						t.Errorf("acknowledged snapshot %s: %v", h, err)
						continue
					}
					wantCanon, _, _ := encodeState(st)
					gotCanon, _, _ := encodeState(got)
					if !bytes.Equal(wantCanon, gotCanon) {
						t.Errorf("snapshot %s reads back as %s, want %s", h, gotCanon, wantCanon)
					}
				}
				rep, err := s2.Check("img")
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				if len(rep.Repaired) > 0 {
					t.Errorf("Check repaired %q after the first access already had", rep.Repaired)
				}
				// And the image takes new work.
				if _, err := s2.Commit("img", exposure(99), "after"); err != nil {
					t.Fatal(err)
				}
				if _, err := s2.Check("img"); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// acked0 is the baseline's hash.
func acked0(t *testing.T, s *Store) string {
	t.Helper()
	h, err := s.Resolve("img", "baseline")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPowerCutDamageStaysDamage: replay repairs only what a crash can leave. A ref at
// a hash the log never gave it is damage, reported and not overwritten.
func TestPowerCutDamageStaysDamage(t *testing.T) {
	s := newTestStore(t)
	powerCutImage(t, s)
	dir := filepath.Join(s.dir, "img")
	bogus := strings.Repeat("ab", 32) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "refs/heads/alt"), []byte(bogus), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(filepath.Dir(s.dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Head("img"); err != nil {
		t.Fatal(err) // HEAD is on feat: the damage does not stop other reads
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "refs/heads/alt")); string(b) != bogus {
		t.Errorf("replay overwrote a ref no crash can leave: %q", b)
	}
	if _, err := s2.Check("img"); codeOf(err) != "state_error" {
		t.Errorf("Check: %v, want state_error", err)
	}
}

// TestOneFsyncPerMutation counts the fsyncs of each kind of mutation through the disk
// seam: one, the log's append, per logged operation (issue 33).
func TestOneFsyncPerMutation(t *testing.T) {
	for _, op := range faultOps {
		t.Run(op.name, func(t *testing.T) {
			s := newTestStore(t)
			mustInit(t, s, "img", exposure(0))
			if op.setup != nil {
				op.setup(t, s)
			}
			if err := op.run(s, 1); err != nil { // the first access replays the log
				t.Fatal(err)
			}
			var syncs []string
			s.disk = &disk{fault: func(o, path string) error {
				if o == "sync" || o == "syncdir" {
					syncs = append(syncs, o+" "+filepath.Base(path))
				}
				return nil
			}}
			if err := op.run(s, 2); err != nil {
				t.Fatal(err)
			}
			want := make([]string, max(op.entries, 1))
			for i := range want {
				want[i] = "sync " + logFile
			}
			if diff := cmp.Diff(want, syncs); diff != "" {
				t.Errorf("fsyncs of one call (-want +got):\n%s", diff)
			}
		})
	}
}

// bigState encodes to more than a log line carries.
func bigState(v float64) State {
	var st State
	for i := range 300 {
		vals := map[string]float64{}
		for k := range 12 {
			vals[fmt.Sprintf("value_%d", k)] = v + float64(i*100+k)
		}
		st.Set(Entry{Primitive: fmt.Sprintf("primitive_%d", i), Layer: "L1", Values: vals, Strength: 1})
	}
	return st
}

// A state too large to carry in a log line is fsynced as its object (and the objects
// directory) before its line is logged, as every object was before lines carried
// states; the line then carries nothing, and a power cut cannot lose the object.
func TestLargeStateIsFsyncedNotCarried(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	st := bigState(1)
	canon, hash, err := encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(canon) <= maxCarried {
		t.Fatalf("the big state is only %d bytes", len(canon))
	}
	var syncs []string
	s.disk = &disk{fault: func(o, path string) error {
		if o == "sync" || o == "syncdir" {
			syncs = append(syncs, o+" "+filepath.Base(path))
		}
		return nil
	}}
	mustCommit(t, s, "img", st, "big")
	s.disk = nil
	if len(syncs) != 3 || !strings.HasPrefix(syncs[0], "sync "+tempPrefix+hash) || syncs[1] != "syncdir "+objectsDir || syncs[2] != "sync "+logFile {
		t.Errorf("fsyncs of a large commit: %q, want the object's, its directory's, the log's", syncs)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, "img", logFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if last := lines[len(lines)-1]; !bytes.Contains(last, []byte(hash)) || bytes.Contains(last, []byte(`"state"`)) {
		t.Errorf("the large state's line is not its commit's or carries it: %.200s", last)
	}
	if _, err := s.Check("img"); err != nil {
		t.Error(err)
	}
}

// TestLogWithoutStates opens a log whose lines carry no states, as every line did
// before issue 33 (their objects were fsynced): it opens, checks clean and takes new
// commits; and an object such a line names that is missing is damage Check reports,
// since no line can rewrite it.
func TestLogWithoutStates(t *testing.T) {
	s := newTestStore(t)
	acked := powerCutImage(t, s)
	dir := filepath.Join(s.dir, "img")
	path := filepath.Join(dir, logFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var old []byte
	carried := 0
	for _, line := range bytes.SplitAfter(b[:len(b)-1], []byte("\n")) {
		l, err := parseLogLine(bytes.TrimSuffix(line, []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		if l.State != nil {
			carried++
		}
		enc, err := encodeLogEntry(l.LogEntry, nil)
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, enc...)
	}
	if carried < 8 {
		t.Fatalf("only %d lines carried a state before they were stripped", carried)
	}
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}

	s2, err := Open(filepath.Dir(s.dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Head("img"); err != nil {
		t.Fatal(err)
	}
	for h := range acked {
		if _, err := s2.Get("img", h); err != nil {
			t.Errorf("snapshot %s: %v", h, err)
		}
	}
	if rep, err := s2.Check("img"); err != nil || len(rep.Repaired) > 0 {
		t.Fatalf("Check of an old log: %+v, %v", rep, err)
	}
	mustCommit(t, s2, "img", exposure(42), "new")
	if _, err := s2.Check("img"); err != nil {
		t.Fatal(err)
	}

	var lost string
	for h := range acked {
		if h != acked0(t, s2) {
			lost = h
			break
		}
	}
	if err := os.Remove(filepath.Join(dir, objectsDir, lost+".json")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s3, err := Open(filepath.Dir(s.dir))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s3.Check("img")
	if codeOf(err) != "state_error" || !strings.Contains(err.Error(), lost) {
		t.Errorf("Check with an object of an old line missing: %v, want state_error naming %s", err, lost)
	}
	if _, err := os.Stat(filepath.Join(dir, objectsDir, lost+".json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("something wrote the lost object back: %v", err)
	}
}

// A checkout, branch or tag that names a snapshot by its hash may name one no log line
// carries: an object a call that failed before logging left, written without an fsync.
// The line then carries it, so a power cut cannot take it from under the ref.
func TestHashSpecCarriesItsSnapshot(t *testing.T) {
	for _, op := range []string{"checkout", "branch", "tag"} {
		t.Run(op, func(t *testing.T) {
			s := newTestStore(t)
			mustInit(t, s, "img", exposure(0))
			dir := filepath.Join(s.dir, "img")
			canon, hash, err := encodeState(exposure(7))
			if err != nil {
				t.Fatal(err)
			}
			// What a commit that failed after writing its object leaves.
			if err := (&image{id: "img", dir: dir}).writeObject(hash, canon, false); err != nil {
				t.Fatal(err)
			}
			switch op {
			case "checkout":
				_, err = s.Checkout("img", hash[:12])
			case "branch":
				_, err = s.Branch("img", "found", hash[:12])
			case "tag":
				_, err = s.Tag("img", "found", hash[:12])
			}
			if err != nil {
				t.Fatal(err)
			}
			// The cut loses the object.
			if err := os.Remove(filepath.Join(dir, objectsDir, hash+".json")); err != nil {
				t.Fatal(err)
			}
			s2, err := Open(filepath.Dir(s.dir))
			if err != nil {
				t.Fatal(err)
			}
			got, err := s2.Get("img", hash)
			if err != nil {
				t.Fatalf("the snapshot the %s named: %v", op, err)
			}
			if gotCanon, _, _ := encodeState(got); !bytes.Equal(gotCanon, canon) {
				t.Errorf("snapshot reads back as %s, want %s", gotCanon, canon)
			}
			if _, err := s2.Check("img"); err != nil {
				t.Error(err)
			}
		})
	}
}

// A snapshot a call wrote without an fsync and never logged (it failed, or died,
// before its line) may be left torn by a power cut. No line names it, so Check removes
// it and says so instead of reporting the image damaged; a torn snapshot a line names
// and cannot rewrite stays damage.
func TestCheckRemovesTornOrphan(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0))
	dir := filepath.Join(s.dir, "img")
	canon, hash, err := encodeState(exposure(5))
	if err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, objectsDir, hash+".json")
	if err := os.WriteFile(orphan, make([]byte, len(canon)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Check("img")
	if err != nil {
		t.Fatalf("Check with a torn orphan: %v", err)
	}
	if len(rep.Repaired) != 1 || !strings.Contains(rep.Repaired[0], hash) || rep.Orphans != 0 {
		t.Errorf("Check report %+v, want the orphan removed and said", rep)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the torn orphan is still there: %v", err)
	}
	// The baseline's object no line carries: torn, it is damage.
	if err := os.WriteFile(filepath.Join(dir, objectsDir, h0+".json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check("img"); codeOf(err) != "state_error" {
		t.Errorf("Check with the baseline torn: %v, want state_error", err)
	}
}
