package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// refFiles reads HEAD and every ref of an image, keyed by path.
func refFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, d := range []string{headsDir, tagsDir} {
		des, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			p := filepath.Join(dir, d, de.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = b
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, headFile))
	if err != nil {
		t.Fatal(err)
	}
	out[filepath.Join(dir, headFile)] = b
	return out
}

// restoreRefs puts HEAD and the refs back as saved, which is what the disk looks like
// when a process dies after logging an operation and before moving its ref.
func restoreRefs(t *testing.T, dir string, saved map[string][]byte) {
	t.Helper()
	for p := range refFiles(t, dir) {
		if _, ok := saved[p]; !ok {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for p, b := range saved {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecovery simulates a crash between appending each kind of operation to the log
// and moving its ref, and requires the next access to complete the operation.
func TestRecovery(t *testing.T) {
	ops := []struct {
		name string
		prep func(s *Store) error // brings HEAD where op expects it
		op   func(s *Store) error
	}{
		{"commit on a branch", nil, func(s *Store) error { _, err := s.Commit("img", exposure(9), "x"); return err }},
		{"commit on a detached HEAD", func(s *Store) error { _, err := s.Checkout("img", "baseline"); return err }, func(s *Store) error { _, err := s.Commit("img", exposure(9), "x"); return err }},
		{"branch", nil, func(s *Store) error { _, err := s.Branch("img", "alt", "baseline"); return err }},
		{"tag", nil, func(s *Store) error { _, err := s.Tag("img", "v2", ""); return err }},
		{"checkout of a branch", func(s *Store) error { _, err := s.Checkout("img", "baseline"); return err }, func(s *Store) error { _, err := s.Checkout("img", "main"); return err }},
		{"checkout of a tag", nil, func(s *Store) error { _, err := s.Checkout("img", "baseline"); return err }},
	}
	for _, access := range []string{"check", "read", "write"} {
		for _, tt := range ops {
			t.Run(access+"/"+tt.name, func(t *testing.T) {
				s := newTestStore(t)
				mustInit(t, s, "img", exposure(0))
				mustCommit(t, s, "img", exposure(1), "")
				if tt.prep != nil {
					if err := tt.prep(s); err != nil {
						t.Fatal(err)
					}
				}
				dir := filepath.Join(s.dir, "img")
				saved := refFiles(t, dir)
				if err := tt.op(s); err != nil {
					t.Fatal(err)
				}
				want := refFiles(t, dir)
				restoreRefs(t, dir, saved)

				switch access {
				case "check":
					rep, err := s.Check("img")
					if err != nil {
						t.Fatal(err)
					}
					if len(rep.Repaired) != 1 {
						t.Errorf("Check repaired %q, want one completed operation", rep.Repaired)
					}
				case "read":
					if _, err := s.Head("img"); err != nil {
						t.Fatal(err)
					}
				case "write":
					if _, err := s.Tag("img", "after", ""); err != nil {
						t.Fatal(err)
					}
				}
				got := refFiles(t, dir)
				// The tag the write access added is not part of the interrupted operation.
				delete(got, filepath.Join(dir, tagsDir, "after"))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("refs after recovery (-want +got):\n%s", diff)
				}
				rep, err := s.Check("img")
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Repaired) != 0 {
					t.Errorf("second Check repaired %q again", rep.Repaired)
				}
			})
		}
	}
}

func TestTornLogTail(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	mustCommit(t, s, "img", exposure(1), "")
	path := filepath.Join(s.dir, "img", logFile)
	before, err := s.Log("img", 0)
	if err != nil {
		t.Fatal(err)
	}
	torn := []byte(`{"time":"torn`)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(torn)
	f.Close()

	after, err := s.Log("img", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("Log with a torn tail (-want +got):\n%s", diff)
	}
	rep, err := s.Check("img")
	if err != nil {
		t.Fatal(err)
	}
	if rep.TornLogBytes != int64(len(torn)) {
		t.Errorf("Check reported %d torn bytes, want %d", rep.TornLogBytes, len(torn))
	}
	mustCommit(t, s, "img", exposure(2), "")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, torn) {
		t.Error("the torn line is still in the log after an append")
	}
	rep, err = s.Check("img")
	if err != nil {
		t.Fatal(err)
	}
	if rep.TornLogBytes != 0 || rep.LogEntries != 4 {
		t.Errorf("Check after append: %+v, want 4 entries and no torn bytes", rep)
	}
}

func TestCheckCleansLeftovers(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	dir := filepath.Join(s.dir, "img")
	for _, p := range []string{"objects/.tmp-1", "refs/heads/.tmp-2", ".tmp-3"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A crash after writing an object and before logging its commit leaves an orphan.
	canon, hash, err := encodeState(exposure(5))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&image{id: "img", dir: dir}).writeObject(hash, canon, false); err != nil {
		t.Fatal(err)
	}
	// Temporary files are invisible to ordinary reads.
	if refs, err := s.Refs("img"); err != nil || len(refs.Branches) != 1 {
		t.Errorf("Refs = %v, %v", refs, err)
	}
	rep, err := s.Check("img")
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Objects: 2, Refs: 2, LogEntries: 2, Orphans: 1, StaleTemp: 3}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("Check report (-want +got):\n%s", diff)
	}
	rep, err = s.Check("img")
	if err != nil || rep.StaleTemp != 0 {
		t.Errorf("second Check: %+v, %v", rep, err)
	}
}

func TestCheckDetectsDamage(t *testing.T) {
	type fixture struct {
		dir            string
		h0, h1, h2, h3 string
	}
	write := func(t *testing.T, f fixture, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(f.dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	editLog := func(t *testing.T, f fixture, edit func(lines []string) []string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(f.dir, logFile))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		write(t, f, logFile, strings.Join(edit(lines[:len(lines)-1]), ""))
	}
	tests := []struct {
		name     string
		damage   func(t *testing.T, f fixture)
		problem  string // a substring of one reported problem
		headCode string // what Head returns on the damaged image, "" for success
	}{
		{
			name:    "object content changed",
			damage:  func(t *testing.T, f fixture) { write(t, f, "objects/"+f.h1+".json", `{"entries":[]}`) },
			problem: "snapshot " + "%h1" + " has content hashing to",
		},
		{
			name: "object not canonical",
			damage: func(t *testing.T, f fixture) {
				c := `{"entries": []}`
				write(t, f, "objects/"+hashBytes([]byte(c))+".json", c)
			},
			problem: "not in canonical form",
		},
		{
			// The baseline's object was fsynced and no line carries it: nothing can
			// rewrite it. (A carried object a power cut lost is repaired instead:
			// TestPowerCut.)
			name:     "object missing",
			damage:   func(t *testing.T, f fixture) { os.Remove(filepath.Join(f.dir, "objects", f.h0+".json")) },
			problem:  "refs/tags/baseline points at snapshot %h0, which does not exist",
			headCode: "",
		},
		{
			name:    "ref at an unknown hash",
			damage:  func(t *testing.T, f fixture) { write(t, f, "refs/heads/alt", strings.Repeat("0", 64)+"\n") },
			problem: "refs/heads/alt points at snapshot " + strings.Repeat("0", 64) + ", which does not exist",
		},
		{
			name:    "ref moved behind the log's back",
			damage:  func(t *testing.T, f fixture) { write(t, f, "refs/heads/alt", f.h0+"\n") },
			problem: `refs/heads/alt is "%h0" on disk but "%h1" by the log`,
		},
		{
			// A ref the log never creates: no power cut leaves one (a deleted ref is
			// what one leaves, and is repaired: TestPowerCut).
			name:    "ref not in the log",
			damage:  func(t *testing.T, f fixture) { write(t, f, "refs/tags/v9", f.h1+"\n") },
			problem: `refs/tags/v9 is "%h1" on disk but "" by the log`,
		},
		{
			name:     "ref not a hash",
			damage:   func(t *testing.T, f fixture) { write(t, f, "refs/tags/v1", "garbage") },
			problem:  `refs/tags/v1 holds "garbage", not a hash`,
			headCode: "",
		},
		{
			name:     "HEAD garbage",
			damage:   func(t *testing.T, f fixture) { write(t, f, "HEAD", "nonsense\n") },
			problem:  "neither a branch nor a hash",
			headCode: darkroom.StateError,
		},
		{
			name:     "HEAD names a missing branch",
			damage:   func(t *testing.T, f fixture) { write(t, f, "HEAD", "ref: refs/heads/ghost\n") },
			problem:  `HEAD names branch "ghost", which does not exist`,
			headCode: darkroom.StateError,
		},
		{
			name:    "HEAD moved behind the log's back",
			damage:  func(t *testing.T, f fixture) { write(t, f, "HEAD", "ref: refs/heads/alt\n") },
			problem: "HEAD is branch alt on disk but branch main by the log",
		},
		{
			name: "log line garbage",
			damage: func(t *testing.T, f fixture) {
				editLog(t, f, func(l []string) []string { l[2] = "{}\n"; return l })
			},
			problem: "log.jsonl line 3:",
		},
		{
			name: "log line lost",
			damage: func(t *testing.T, f fixture) {
				editLog(t, f, func(l []string) []string { return append(l[:2], l[3:]...) })
			},
			problem: `log.jsonl line 5: commit to refs/heads/main with parent %h1, but the ref was "%h0"`,
		},
		{
			name: "log emptied",
			damage: func(t *testing.T, f fixture) {
				write(t, f, logFile, "")
			},
			problem:  "has no complete entry",
			headCode: darkroom.StateError,
		},
		{
			// A hash main never had: an earlier one (h0) is what a power cut can leave
			// and replay repairs (TestPowerCut).
			name: "last entry contradicts its ref",
			damage: func(t *testing.T, f fixture) {
				write(t, f, "refs/heads/main", f.h1[:60]+"0000\n")
			},
			problem:  `refs/heads/main is "%x" on disk but "%h3" by the log`,
			headCode: darkroom.StateError,
		},
		{
			name:    "stray file among objects",
			damage:  func(t *testing.T, f fixture) { write(t, f, "objects/readme.txt", "hi") },
			problem: "objects/readme.txt is not a snapshot",
		},
		{
			name:    "invalid ref name",
			damage:  func(t *testing.T, f fixture) { write(t, f, "refs/heads/Bad", f.h0+"\n") },
			problem: "refs/heads/Bad is not a valid branch",
		},
		{
			name:    "meta not an object",
			damage:  func(t *testing.T, f fixture) { write(t, f, "meta.json", "[]") },
			problem: "meta.json is not a JSON object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			f := fixture{dir: filepath.Join(s.dir, "img")}
			f.h0 = mustInit(t, s, "img", exposure(0))
			f.h1 = mustCommit(t, s, "img", exposure(1), "").Hash
			if _, err := s.Branch("img", "alt", ""); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Tag("img", "v1", ""); err != nil {
				t.Fatal(err)
			}
			f.h2 = mustCommit(t, s, "img", exposure(2), "").Hash
			f.h3 = mustCommit(t, s, "img", exposure(3), "").Hash
			if _, err := s.Check("img"); err != nil {
				t.Fatalf("Check before damage: %v", err)
			}
			tt.damage(t, f)

			_, err := s.Check("img")
			if codeOf(err) != darkroom.StateError {
				t.Fatalf("Check: %v, want state_error", err)
			}
			var de *darkroom.Error
			if !errors.As(err, &de) {
				t.Fatalf("Check error %T is not a *darkroom.Error", err)
			}
			problems, _ := de.Details["problems"].([]string)
			want := strings.NewReplacer("%h0", f.h0, "%h1", f.h1, "%h2", f.h2, "%h3", f.h3, "%x", f.h1[:60]+"0000").Replace(tt.problem)
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p, want)
			}
			if !found {
				t.Errorf("Check problems do not mention %q:\n%s", want, strings.Join(problems, "\n"))
			}
			if _, err := s.Head("img"); codeOf(err) != tt.headCode {
				t.Errorf("Head on the damaged image: %v, want code %q", err, tt.headCode)
			}
		})
	}
}
