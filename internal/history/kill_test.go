package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// The kill test re-executes this test binary as a child that edits a workspace until it
// is killed; these variables tell TestMain to be that child.
const (
	killChildEnv = "DARKROOM_HISTORY_KILL_CHILD" // the workspace
	killSeedEnv  = "DARKROOM_HISTORY_KILL_SEED"
	killRunEnv   = "DARKROOM_HISTORY_KILL_RUN"
)

var killImages = []string{"img-0", "img-1", "img-2"}

func TestMain(m *testing.M) {
	if ws := os.Getenv(killChildEnv); ws != "" {
		os.Exit(runKillChild(ws))
	}
	os.Exit(m.Run())
}

// runKillChild edits killImages with four goroutines (two on img-0, so the image lock is
// contended) until the process is killed. After each operation returns it prints
// "ack <image> <op> <ref> <hash>", a promise the parent checks against the log.
func runKillChild(ws string) int {
	seed, err := strconv.ParseUint(os.Getenv(killSeedEnv), 10, 64)
	if err != nil {
		fmt.Printf("fatal bad seed: %v\n", err)
		return 2
	}
	run, err := strconv.Atoi(os.Getenv(killRunEnv))
	if err != nil {
		fmt.Printf("fatal bad run: %v\n", err)
		return 2
	}
	s, err := Open(ws)
	if err != nil {
		fmt.Printf("fatal %v\n", err)
		return 2
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	fatal := func(err error) {
		say("fatal %v", err)
		os.Exit(3)
	}
	say("ready")
	for w := range 4 {
		go func() {
			rng := rand.New(rand.NewPCG(seed, uint64(run*16+w)))
			id := killImages[w%len(killImages)]
			if _, err := s.Init(id, exposure(0), nil); err != nil && darkroom.Code(err) != darkroom.StateError {
				fatal(err)
			}
			var branches []string
			for n := 0; ; n++ {
				// Unique per run, worker and step, so every commit is a new state and
				// every new ref a new name.
				v := float64(run*1_000_000 + w*100_000 + n)
				name := fmt.Sprintf("%d-%d-%d", run, w, n)
				var e LogEntry
				var err error
				switch r := rng.IntN(100); {
				case r < 55:
					prim := []string{"exposure", "contrast", "saturation", "vibrance", "grain"}[rng.IntN(5)]
					var c Committed
					c, err = s.Update(id, "set "+prim, func(st *State) error {
						st.Set(Entry{Primitive: prim, Layer: "L1", Values: map[string]float64{"v": v}, Strength: 1})
						return nil
					})
					e = c.LogEntry
				case r < 65:
					e, err = s.Commit(id, exposure(v), "commit "+name)
				case r < 75:
					from := []string{"", "baseline", "main"}[rng.IntN(3)]
					e, err = s.Branch(id, "b-"+name, from)
					branches = append(branches, "b-"+name)
				case r < 85:
					e, err = s.Tag(id, "t-"+name, "")
				default:
					specs := append([]string{"main", "baseline", "HEAD"}, branches...)
					var h Head
					h, err = s.Checkout(id, specs[rng.IntN(len(specs))])
					e = LogEntry{Op: OpCheckout, Hash: h.Hash, Ref: "HEAD"}
					if h.Branch != "" {
						e.Ref = "refs/heads/" + h.Branch
					}
				}
				if err != nil {
					fatal(err)
				}
				say("ack %s %s %s %s", id, e.Op, e.Ref, e.Hash)
			}
		}()
	}
	select {}
}

// TestKill is the kill test of issue 5: a child process commits, branches, tags and
// checks out on several images; it is killed with SIGKILL at a random moment, many
// times over the same workspace. After each kill every image must load and pass Check
// (refs point at existing objects, the log agrees with the refs), and every operation
// the child saw succeed must be in the log.
func TestKill(t *testing.T) {
	kills := 100
	if testing.Short() {
		kills = 15
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(killSeedEnv); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("%s: %v", killSeedEnv, err)
		}
	}
	t.Logf("seed %d (replay with %s=%d)", seed, killSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	ws := t.TempDir()
	start := time.Now()

	var total Report
	var acked, repairedKills, swept int
	for k := range kills {
		// Short delays land in start-up and Init, long ones in a stream of edits.
		var delay time.Duration
		switch rng.IntN(3) {
		case 0:
			delay = time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
		case 1:
			delay = 2*time.Millisecond + time.Duration(rng.Int64N(int64(18*time.Millisecond)))
		default:
			delay = 20*time.Millisecond + time.Duration(rng.Int64N(int64(60*time.Millisecond)))
		}
		acks := runAndKill(t, ws, seed, k, delay)
		acked += len(acks)
		t.Logf("kill %d after %v: %d operations acknowledged", k, delay, len(acks))

		s, err := Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		// Opening the workspace sweeps what the kill left: no temporary file
		// survives it (Check below finds none to remove).
		swept += s.RemoveStaleTemps()
		if left := tempsUnder(t, ws); len(left) > 0 {
			t.Fatalf("kill %d after %v (seed %d): temporary files survive the sweep: %v", k, delay, seed, left)
		}
		ids, err := s.ListImages()
		if err != nil {
			t.Fatal(err)
		}
		logged := map[string]bool{}
		repaired := false
		total.Orphans = 0 // orphans are kept, so the last kill's count is the total
		for _, id := range ids {
			rep, err := s.Check(id)
			if err != nil {
				t.Fatalf("kill %d after %v (seed %d): %v", k, delay, seed, err)
			}
			repaired = repaired || len(rep.Repaired) > 0
			total.Repaired = append(total.Repaired, rep.Repaired...)
			total.TornLogBytes += rep.TornLogBytes
			total.StaleTemp += rep.StaleTemp
			total.Orphans += rep.Orphans
			head, err := s.Head(id)
			if err != nil {
				t.Fatalf("kill %d: Head(%s): %v", k, id, err)
			}
			if _, err := s.Get(id, head.Hash); err != nil {
				t.Fatalf("kill %d: Get(%s, HEAD): %v", k, id, err)
			}
			entries, err := s.Log(id, 0)
			if err != nil {
				t.Fatalf("kill %d: Log(%s): %v", k, id, err)
			}
			for _, e := range entries {
				logged[fmt.Sprintf("%s %s %s %s", id, e.Op, e.Ref, e.Hash)] = true
			}
		}
		if repaired {
			repairedKills++
		}
		for _, a := range acks {
			if !logged[a] {
				t.Fatalf("kill %d after %v (seed %d): acknowledged operation %q is not in the log", k, delay, seed, a)
			}
		}
	}
	t.Logf("%d kills in %v: %d operations acknowledged; %d kills left an operation to complete, %d torn log bytes, %d temporary files swept, %d orphan snapshots",
		kills, time.Since(start).Round(time.Millisecond), acked, repairedKills, total.TornLogBytes, swept, total.Orphans)
	if total.StaleTemp > 0 {
		t.Errorf("Check removed %d temporary files the sweep had left", total.StaleTemp)
	}
}

// runAndKill starts the child on ws, lets it work for delay after it is ready, kills it
// with SIGKILL and returns the operations it acknowledged.
func runAndKill(t *testing.T, ws string, seed uint64, run int, delay time.Duration) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		killChildEnv+"="+ws,
		killSeedEnv+"="+strconv.FormatUint(seed, 10),
		killRunEnv+"="+strconv.Itoa(run))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	done := make(chan struct{})
	var acks, fatals []string
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "ready":
				close(ready)
			case strings.HasPrefix(line, "ack "):
				acks = append(acks, strings.TrimPrefix(line, "ack "))
			default:
				fatals = append(fatals, line)
			}
		}
	}()
	select {
	case <-ready:
		time.Sleep(delay)
	case <-done:
	case <-time.After(30 * time.Second):
		t.Error("child did not start within 30s")
	}
	cmd.Process.Kill() // SIGKILL: no deferred function or buffer flush runs
	<-done
	cmd.Wait()
	if len(fatals) > 0 {
		t.Fatalf("child run %d failed:\n%s\n%s", run, strings.Join(fatals, "\n"), stderr.String())
	}
	return acks
}

// tempsUnder lists the temporary files and directories under dir.
func tempsUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			out = append(out, p[len(dir):])
		}
		return nil
	})
	return out
}

// TestRemoveStaleTemps: the sweep removes an image's temporary files (and a dead
// Init's build directory) unless a writer holds the image's lock.
func TestRemoveStaleTemps(t *testing.T) {
	ws := t.TempDir()
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"busy", "idle"} {
		if _, err := s.Init(id, State{}, json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(id, State{}, "x"); err != nil { // creates the lock file
			t.Fatal(err)
		}
	}
	planted := []string{"objects/" + tempPrefix + "1", "refs/heads/" + tempPrefix + "2", tempPrefix + "3"}
	for _, id := range []string{"busy", "idle"} {
		for _, p := range planted {
			if err := os.WriteFile(filepath.Join(ws, "images", DirName(id), filepath.FromSlash(p)), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.Mkdir(filepath.Join(ws, "images", tempPrefix+"init-dead"), 0o755)
	// Another process writing "busy": its lock is held (an open file of our own
	// conflicts with it just as another process's does).
	lf, err := os.Open(filepath.Join(ws, "images", DirName("busy"), lockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := fsx.Lock(lf, false); err != nil {
		t.Fatal(err)
	}
	if n := s.RemoveStaleTemps(); n != len(planted)+1 {
		t.Errorf("removed %d, want %d (idle's and the dead Init's)", n, len(planted)+1)
	}
	var want []string
	for _, p := range planted {
		want = append(want, "/images/"+DirName("busy")+"/"+p)
	}
	slices.Sort(want)
	got := tempsUnder(t, ws)
	for i := range got {
		got[i] = filepath.ToSlash(got[i])
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("temporary files left (-want +got):\n%s", diff)
	}
	fsx.Unlock(lf)
	if n := s.RemoveStaleTemps(); n != len(planted) {
		t.Errorf("after the writer let go: removed %d, want %d", n, len(planted))
	}
}
