package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// faultOp is one kind of mutation, run with a fresh value or name at each call n so that
// every call writes something new.
type faultOp struct {
	name string
	// setup prepares the image before the first call (a detached HEAD, a branch).
	setup func(t *testing.T, s *Store)
	run   func(s *Store, n int) error
	// entries is how many log entries one successful call makes (0: one).
	entries int
}

var faultOps = []faultOp{
	{name: "update", run: func(s *Store, n int) error {
		_, err := s.Update("img", fmt.Sprintf("edit %d", n), func(st *State) error {
			st.Set(Entry{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": float64(n)}, Strength: 1})
			return nil
		})
		return err
	}},
	{name: "commit-detached", setup: func(t *testing.T, s *Store) {
		if _, err := s.Checkout("img", "baseline"); err != nil {
			t.Fatal(err)
		}
	}, run: func(s *Store, n int) error {
		_, err := s.Commit("img", exposure(float64(n)), fmt.Sprintf("edit %d", n))
		return err
	}},
	{name: "branch", run: func(s *Store, n int) error {
		_, err := s.Branch("img", fmt.Sprintf("b%d", n), "")
		return err
	}},
	{name: "branch-checkout", entries: 2, run: func(s *Store, n int) error {
		_, err := s.BranchCheckout("img", fmt.Sprintf("b%d", n), "")
		return err
	}},
	{name: "tag", run: func(s *Store, n int) error {
		_, err := s.Tag("img", fmt.Sprintf("t%d", n), "")
		return err
	}},
	{name: "checkout", setup: func(t *testing.T, s *Store) {
		if _, err := s.Branch("img", "other", ""); err != nil {
			t.Fatal(err)
		}
	}, run: func(s *Store, n int) error {
		_, err := s.Checkout("img", []string{"other", "main"}[n%2])
		return err
	}},
}

// injector fails step `at` of the calls it sees (counting from 0) with errno. With full
// set it also fails every later create and write, as a disk that stays full does; the
// steps that free or move space (truncate, rename, remove) and fsyncs of data already
// allocated still work.
type injector struct {
	at    int
	full  bool
	errno syscall.Errno
	seen  int
	fired bool
}

func (in *injector) fault(op, path string) error {
	i := in.seen
	in.seen++
	if i == in.at || in.fired && in.full && (op == "create" || op == "write") {
		in.fired = true
		return &fs.PathError{Op: op, Path: path, Err: in.errno}
	}
	return nil
}

// diskState is what a reader of an image can observe, as files: HEAD, every ref, the
// log and meta byte for byte, and the objects the log names. Snapshots nothing names
// are left out: they are harmless and Check reports them as orphans.
func diskState(t *testing.T, root, id string) map[string]string {
	t.Helper()
	dir := filepath.Join(root, "images", id)
	out := map[string]string{}
	var temps []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(d.Name(), tempPrefix):
			temps = append(temps, rel)
		case rel == lockFile, strings.HasPrefix(rel, objectsDir+"/"):
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(temps) > 0 {
		t.Errorf("temporary files left behind: %v", temps)
	}
	entries, _, err := readLogBackward(filepath.Join(dir, logFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := objectsDir + "/" + e.Hash + ".json"
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("the log names %s: %v", name, err)
		}
		out[name] = string(b)
	}
	return out
}

// TestFailedCallHasNotHappened makes each step of each mutation fail as a full disk
// does (issue 10, finding 3). Every such call must answer unavailable, leave the
// history exactly as it was, also for a store opened afresh (recovery completes nothing),
// and a retry must then succeed once: N successful calls make N log entries.
func TestFailedCallHasNotHappened(t *testing.T) {
	for _, op := range faultOps {
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/full=%v", op.name, full), func(t *testing.T) {
				root := t.TempDir()
				s, err := Open(root)
				if err != nil {
					t.Fatal(err)
				}
				s.now = func() time.Time { return testTime }
				mustInit(t, s, "img", exposure(0))
				if op.setup != nil {
					op.setup(t, s)
				}

				// Count the steps of one successful call.
				counter := &injector{at: -1}
				s.disk = &disk{fault: counter.fault}
				n := 1
				if err := op.run(s, n); err != nil {
					t.Fatal(err)
				}
				steps := counter.seen
				if steps < 5 {
					t.Fatalf("a call took %d steps: the seam does not see the writes", steps)
				}
				log0, err := s.Log("img", 0)
				if err != nil {
					t.Fatal(err)
				}
				succeeded := 1

				for at := range steps {
					n++
					before := diskState(t, root, "img")
					errno := []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT}[at%2]
					in := &injector{at: at, full: full, errno: errno}
					s.disk = &disk{fault: in.fault}
					err := op.run(s, n)
					s.disk = nil
					if !in.fired {
						t.Fatalf("step %d: the call took only %d steps", at, in.seen)
					}
					if err == nil {
						t.Fatalf("step %d failed with %v but the call succeeded", at, errno)
					}
					if got := darkroom.Code(err); got != darkroom.Unavailable {
						t.Errorf("step %d (%v): code %s, want %s: %v", at, errno, got, darkroom.Unavailable, err)
					}
					if strings.Contains(err.Error(), root) {
						t.Errorf("step %d: the message shows the server's path: %v", at, err)
					}
					if diff := cmp.Diff(before, diskState(t, root, "img")); diff != "" {
						t.Errorf("step %d (%v): the failed call changed the history (-before +after):\n%s", at, errno, diff)
					}

					// A store opened afresh recovers: it must find nothing to complete.
					s2, err := Open(root)
					if err != nil {
						t.Fatal(err)
					}
					rep, err := s2.Check("img")
					if err != nil {
						t.Fatalf("step %d: check after the failure: %v", at, err)
					}
					if len(rep.Repaired) > 0 {
						t.Errorf("step %d: recovery completed the failed call: %v", at, rep.Repaired)
					}
					if diff := cmp.Diff(before, diskState(t, root, "img")); diff != "" {
						t.Errorf("step %d (%v): recovery changed the history (-before +after):\n%s", at, errno, diff)
					}

					// The retry succeeds, once.
					if err := op.run(s, n); err != nil {
						t.Fatalf("step %d: retry: %v", at, err)
					}
					succeeded++
				}
				log, err := s.Log("img", 0)
				if err != nil {
					t.Fatal(err)
				}
				if got := (len(log)-len(log0))/max(op.entries, 1) + 1; got != succeeded {
					t.Errorf("%d successful calls made %d log entries", succeeded, got)
				}
				if _, err := s.Check("img"); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestRollbackFails covers the one case doc.go exempts: the commit is logged, moving
// its ref fails, and cutting the entry off the log fails too. The store then finishes
// the operation if it can (the call succeeds, once), and otherwise says that the
// operation is logged and completes at the next access, which it does.
func TestRollbackFails(t *testing.T) {
	for _, finishes := range []bool{true, false} {
		t.Run(fmt.Sprintf("finishes=%v", finishes), func(t *testing.T) {
			root := t.TempDir()
			s, err := Open(root)
			if err != nil {
				t.Fatal(err)
			}
			mustInit(t, s, "img", exposure(0))
			logged, failing := false, false
			s.disk = &disk{fault: func(op, path string) error {
				switch {
				case op == "sync" && filepath.Base(path) == logFile:
					logged = true
				case logged && op == "rename" && filepath.Base(filepath.Dir(path)) == "heads" && !failing:
					failing = true
					return &fs.PathError{Op: op, Path: path, Err: syscall.EIO}
				case failing && op == "truncate":
					return &fs.PathError{Op: op, Path: path, Err: syscall.EIO}
				case failing && !finishes && op == "create":
					// Finishing the commit cannot write the ref either.
					return &fs.PathError{Op: op, Path: path, Err: syscall.EIO}
				}
				return nil
			}}
			e, err := s.Commit("img", exposure(1), "edit")
			s.disk = nil
			if !failing {
				t.Fatal("the fault was never injected")
			}
			log, lerr := s.Log("img", 0)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if finishes {
				if err != nil {
					t.Fatalf("the store could finish the commit, but it failed: %v", err)
				}
				if len(log) != 3 || log[0].Hash != e.Hash {
					t.Errorf("the commit that succeeded is not in the log: %+v", log)
				}
				return
			}
			if err == nil {
				t.Fatal("neither rollback nor completion worked, yet the commit succeeded")
			}
			var de *darkroom.Error
			if !errors.As(err, &de) || de.Code != darkroom.InternalError || de.Details["outcome"] != "logged" || !strings.Contains(de.Message, "do not retry") {
				t.Errorf("the error does not say the commit is logged: %#v", err)
			}
			if strings.Contains(err.Error(), root) {
				t.Errorf("the message shows the server's path: %v", err)
			}
			// The error said so: the next access completed the commit.
			if len(log) != 3 || log[0].Op != OpCommit || log[0].Label != "edit" {
				t.Errorf("log after the next access: %+v", log)
			}
			if h, err := s.Head("img"); err != nil || h.Hash != log[0].Hash {
				t.Errorf("HEAD %v, %v; want the logged commit %s", h, err, log[0].Hash)
			}
		})
	}
}

// An Init whose publishing rename cannot be made durable (the workspace directory's
// fsync fails) has not happened: the image does not exist, and a retry creates it.
func TestInitFailedDirSyncHasNotHappened(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	fired := false
	s.disk = &disk{fault: func(op, path string) error {
		if op == "syncdir" && path == s.dir {
			fired = true
			return &fs.PathError{Op: op, Path: path, Err: syscall.EIO}
		}
		return nil
	}}
	_, err = s.Init("img", exposure(0), nil)
	s.disk = nil
	if !fired {
		t.Fatal("the fault was never injected: Init does not fsync the workspace directory through the disk seam")
	}
	if err == nil {
		t.Fatal("Init succeeded although its rename was not made durable")
	}
	if _, herr := s.Head("img"); darkroom.Code(herr) != darkroom.NotFound {
		t.Errorf("after the failed Init, Head: %v; want not_found (the image must not exist)", herr)
	}
	if _, err := s.Init("img", exposure(0), nil); err != nil {
		t.Fatalf("retry: %v", err)
	}
}
