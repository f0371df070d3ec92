package history

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func TestInitLayout(t *testing.T) {
	s := newTestStore(t)
	base := exposure(0)
	h := mustInit(t, s, "img-1", base)
	if h != mustHash(t, base) {
		t.Errorf("Init returned %s, want the baseline's hash %s", h, mustHash(t, base))
	}
	dir := filepath.Join(s.dir, "img-1")
	files := map[string]string{
		"HEAD":                   "ref: refs/heads/main\n",
		"refs/heads/main":        h + "\n",
		"refs/tags/baseline":     h + "\n",
		"meta.json":              `{"source":"photo.jpg"}`,
		"objects/" + h + ".json": `{"entries":[{"layer":"L1","primitive":"exposure","strength":1,"values":{"ev":0}}]}`,
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Error(err)
			continue
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	logged, err := s.Log("img-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []LogEntry{
		{Time: testTime, Op: OpTag, Hash: h, Ref: "refs/tags/baseline"},
		{Time: testTime, Op: OpInit, Hash: h, Ref: "refs/heads/main", Label: "baseline"},
	}
	if diff := cmp.Diff(want, logged); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	head, err := s.Head("img-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Head{Hash: h, Branch: "main"}, head); diff != "" {
		t.Errorf("Head (-want +got):\n%s", diff)
	}
	meta, err := s.Meta("img-1")
	if err != nil || string(meta) != `{"source":"photo.jpg"}` {
		t.Errorf("Meta = %s, %v", meta, err)
	}
	if _, err := s.Check("img-1"); err != nil {
		t.Errorf("Check after Init: %v", err)
	}
}

func TestInitErrors(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "taken", exposure(0))
	tests := []struct {
		name string
		id   string
		st   State
		meta string
		code string
	}{
		{"exists", "taken", exposure(1), "", darkroom.StateError},
		{"bad id", "../escape", exposure(0), "", darkroom.InvalidInput},
		{"meta not an object", "m1", exposure(0), `[1]`, darkroom.InvalidInput},
		{"meta not JSON", "m2", exposure(0), `{`, darkroom.InvalidInput},
		{"meta too large", "m3", exposure(0), `{"x":"` + strings.Repeat("a", MaxMetaBytes) + `"}`, darkroom.LimitExceeded},
		{"bad state", "m4", State{Entries: []Entry{{}}}, "", darkroom.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var meta json.RawMessage
			if tt.meta != "" {
				meta = json.RawMessage(tt.meta)
			}
			_, err := s.Init(tt.id, tt.st, meta)
			if got := codeOf(err); got != tt.code {
				t.Errorf("Init: code %q (%v), want %q", got, err, tt.code)
			}
		})
	}
	ids, err := s.ListImages()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"taken"}, ids); diff != "" {
		t.Errorf("a failed Init left something behind (-want +got):\n%s", diff)
	}
}

func TestCommit(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0))
	e1 := mustCommit(t, s, "img", exposure(0.5), "brighter")
	e2 := mustCommit(t, s, "img", exposure(0.7), "brighter still")
	want := []LogEntry{
		{Time: testTime, Op: OpCommit, Hash: mustHash(t, exposure(0.7)), Parent: e1.Hash, Ref: "refs/heads/main", Label: "brighter still"},
		{Time: testTime, Op: OpCommit, Hash: mustHash(t, exposure(0.5)), Parent: h0, Ref: "refs/heads/main", Label: "brighter"},
	}
	if diff := cmp.Diff(want, []LogEntry{e2, e1}); diff != "" {
		t.Errorf("Commit results (-want +got):\n%s", diff)
	}
	logged, err := s.Log("img", 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, logged); diff != "" {
		t.Errorf("Log(2) (-want +got):\n%s", diff)
	}
	got, err := s.Get("img", e2.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(exposure(0.7), got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	// The baseline tag did not move with the branch.
	if h, err := s.Resolve("img", "baseline"); err != nil || h != h0 {
		t.Errorf("Resolve(baseline) = %s, %v; want %s", h, err, h0)
	}

	// An unchanged state is still recorded, with its label.
	e3 := mustCommit(t, s, "img", exposure(0.7), "snapshot")
	if e3.Hash != e3.Parent {
		t.Errorf("committing HEAD's state: hash %s, parent %s; want equal", e3.Hash, e3.Parent)
	}
}

func TestCommitDetached(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0))
	main := mustCommit(t, s, "img", exposure(1), "on main")
	if _, err := s.Checkout("img", "baseline"); err != nil {
		t.Fatal(err)
	}
	e := mustCommit(t, s, "img", exposure(-1), "detached")
	if diff := cmp.Diff(LogEntry{Time: testTime, Op: OpCommit, Hash: mustHash(t, exposure(-1)), Parent: h0, Ref: "HEAD", Label: "detached"}, e); diff != "" {
		t.Errorf("detached commit (-want +got):\n%s", diff)
	}
	head, err := s.Head("img")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Head{Hash: e.Hash, Detached: true}, head); diff != "" {
		t.Errorf("Head (-want +got):\n%s", diff)
	}
	if h, _ := s.Resolve("img", "main"); h != main.Hash {
		t.Errorf("main moved to %s with a detached commit", h)
	}
	if _, err := s.Check("img"); err != nil {
		t.Error(err)
	}
}

func TestCommitErrors(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	tests := []struct {
		name, id, label string
		st              State
		code            string
	}{
		{"unknown image", "nope", "", exposure(1), darkroom.NotFound},
		{"bad image id", "a/b", "", exposure(1), darkroom.InvalidInput},
		{"label too long", "img", strings.Repeat("x", MaxLabelBytes+1), exposure(1), darkroom.LimitExceeded},
		{"label not UTF-8", "img", "\xff", exposure(1), darkroom.InvalidInput},
		{"bad state", "img", "", State{Entries: []Entry{{Primitive: "p", Mask: json.RawMessage(`"x"`)}}}, darkroom.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Commit(tt.id, tt.st, tt.label)
			if got := codeOf(err); got != tt.code {
				t.Errorf("Commit: code %q (%v), want %q", got, err, tt.code)
			}
		})
	}
	if logged, _ := s.Log("img", 0); len(logged) != 2 {
		t.Errorf("failed commits were logged: %d entries, want 2", len(logged))
	}
}

func TestUpdate(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	e, err := s.Update("img", "warmer", func(st *State) error {
		st.Set(Entry{Primitive: "temperature", Layer: "L2", Values: map[string]float64{"k": 0.3}, Strength: 1})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := exposure(0)
	want.Entries = append(want.Entries, Entry{Primitive: "temperature", Layer: "L2", Values: map[string]float64{"k": 0.3}, Strength: 1})
	if e.Hash != mustHash(t, want) {
		t.Errorf("Update committed %s, want %s", e.Hash, mustHash(t, want))
	}

	refused := darkroom.Errorf(darkroom.StateError, "module vignette is not applied")
	_, err = s.Update("img", "remove", func(st *State) error { return refused })
	if err != refused {
		t.Errorf("Update returned %v, want fn's error as is", err)
	}
	_, err = s.Update("img", "bad", func(st *State) error {
		st.Entries = append(st.Entries, Entry{})
		return nil
	})
	if codeOf(err) != darkroom.InvalidInput {
		t.Errorf("Update with an invalid result: %v, want invalid_input", err)
	}
	if head, _ := s.Head("img"); head.Hash != e.Hash {
		t.Errorf("a failed Update moved HEAD to %s", head.Hash)
	}
}

func TestResolve(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0))
	h1 := mustCommit(t, s, "img", exposure(1), "").Hash
	if _, err := s.Branch("img", "alt", "baseline"); err != nil {
		t.Fatal(err)
	}
	// A branch named like the start of a hash makes that prefix ambiguous.
	if _, err := s.Branch("img", h1[:6], ""); err != nil {
		t.Fatal(err)
	}
	a, b := twoStatesSharingPrefix(t, 4)
	ha := mustCommit(t, s, "img", a, "").Hash
	hb := mustCommit(t, s, "img", b, "").Hash
	if _, err := s.Checkout("img", "main"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		spec, want, code string
	}{
		{spec: "HEAD", want: hb},
		{spec: "main", want: hb},
		{spec: "alt", want: h0},
		{spec: "baseline", want: h0},
		{spec: "refs/heads/main", want: hb},
		{spec: "refs/tags/baseline", want: h0},
		{spec: "refs/heads/" + h1[:6], want: h1},
		{spec: h1, want: h1},
		{spec: h0[:12], want: h0},
		{spec: strings.ToUpper(h0[:12]), want: h0},
		{spec: ha[:commonPrefix(ha, hb)+1], want: ha},
		{spec: h1[:6], code: darkroom.VersioningError},
		{spec: ha[:4], code: darkroom.VersioningError},
		{spec: "nope", code: darkroom.NotFound},
		{spec: "refs/heads/nope", code: darkroom.NotFound},
		{spec: "refs/tags/main", code: darkroom.NotFound},
		{spec: strings.Repeat("0", 64), code: darkroom.NotFound},
		{spec: "", code: darkroom.InvalidInput},
		{spec: "head", code: darkroom.NotFound},
		{spec: "a/b", code: darkroom.InvalidInput},
		{spec: "../main", code: darkroom.InvalidInput},
		{spec: "refs/remotes/x", code: darkroom.InvalidInput},
		{spec: "refs/heads/../../HEAD", code: darkroom.InvalidInput},
	}
	for _, tt := range tests {
		got, err := s.Resolve("img", tt.spec)
		if code := codeOf(err); code != tt.code {
			t.Errorf("Resolve(%q): code %q (%v), want %q", tt.spec, code, err, tt.code)
			continue
		}
		if tt.code == "" && got != tt.want {
			t.Errorf("Resolve(%q) = %s, want %s", tt.spec, got, tt.want)
		}
	}
	if _, err := s.Resolve("ghost", "HEAD"); codeOf(err) != darkroom.NotFound {
		t.Errorf("Resolve on an unknown image: %v, want not_found", err)
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// twoStatesSharingPrefix finds two states whose hashes share their first n hex digits.
func twoStatesSharingPrefix(t *testing.T, n int) (State, State) {
	seen := map[string]State{}
	for i := range 1 << 20 {
		st := State{Entries: []Entry{{Primitive: "probe", Values: map[string]float64{"i": float64(i)}}}}
		p := mustHash(t, st)[:n]
		if other, ok := seen[p]; ok {
			return other, st
		}
		seen[p] = st
	}
	t.Fatal("no hash prefix collision found")
	return State{}, State{}
}

func TestCheckout(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0))
	h1 := mustCommit(t, s, "img", exposure(1), "").Hash
	if _, err := s.Branch("img", "alt", "baseline"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec    string
		want    Head
		wantRef string // the logged ref
	}{
		{spec: "alt", want: Head{Hash: h0, Branch: "alt"}, wantRef: "refs/heads/alt"},
		{spec: "HEAD", want: Head{Hash: h0, Branch: "alt"}, wantRef: "refs/heads/alt"},
		{spec: "main", want: Head{Hash: h1, Branch: "main"}, wantRef: "refs/heads/main"},
		{spec: "baseline", want: Head{Hash: h0, Detached: true}, wantRef: "HEAD"},
		{spec: "HEAD", want: Head{Hash: h0, Detached: true}, wantRef: "HEAD"},
		{spec: h1[:8], want: Head{Hash: h1, Detached: true}, wantRef: "HEAD"},
		{spec: "refs/heads/alt", want: Head{Hash: h0, Branch: "alt"}, wantRef: "refs/heads/alt"},
	}
	for _, tt := range tests {
		before, err := s.Head("img")
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Checkout("img", tt.spec)
		if err != nil {
			t.Errorf("Checkout(%q): %v", tt.spec, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Checkout(%q) (-want +got):\n%s", tt.spec, diff)
		}
		if head, _ := s.Head("img"); head != got {
			t.Errorf("Checkout(%q) returned %+v but Head is %+v", tt.spec, got, head)
		}
		logged, _ := s.Log("img", 1)
		wantLog := LogEntry{Time: testTime, Op: OpCheckout, Hash: tt.want.Hash, Parent: before.Hash, Ref: tt.wantRef, Label: tt.spec}
		if diff := cmp.Diff([]LogEntry{wantLog}, logged); diff != "" {
			t.Errorf("Checkout(%q) log (-want +got):\n%s", tt.spec, diff)
		}
	}
	for spec, code := range map[string]string{"nope": darkroom.NotFound, "x/y": darkroom.InvalidInput} {
		if _, err := s.Checkout("img", spec); codeOf(err) != code {
			t.Errorf("Checkout(%q): %v, want %s", spec, err, code)
		}
	}
	if _, err := s.Check("img"); err != nil {
		t.Error(err)
	}
}

func TestBranchAndTag(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0))
	h1 := mustCommit(t, s, "img", exposure(1), "").Hash

	e, err := s.Branch("img", "alt", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(LogEntry{Time: testTime, Op: OpBranch, Hash: h1, Ref: "refs/heads/alt"}, e); diff != "" {
		t.Errorf("Branch (-want +got):\n%s", diff)
	}
	if head, _ := s.Head("img"); head.Branch != "main" {
		t.Errorf("Branch moved HEAD to %+v", head)
	}
	e, err = s.Tag("img", "v1", h0[:10])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(LogEntry{Time: testTime, Op: OpTag, Hash: h0, Ref: "refs/tags/v1"}, e); diff != "" {
		t.Errorf("Tag (-want +got):\n%s", diff)
	}

	tests := []struct {
		name, op, ref, from, code string
	}{
		{"branch exists", "branch", "alt", "", darkroom.VersioningError},
		{"branch named like a tag", "branch", "v1", "", darkroom.VersioningError},
		{"tag named like a branch", "tag", "main", "", darkroom.VersioningError},
		{"retag elsewhere", "tag", "v1", "HEAD", darkroom.VersioningError},
		{"retag same place", "tag", "v1", h0, darkroom.VersioningError},
		{"baseline never moves", "tag", "baseline", "HEAD", darkroom.VersioningError},
		{"bad branch name", "branch", "a/b", "", darkroom.InvalidInput},
		{"bad tag name", "tag", "..", "", darkroom.InvalidInput},
		{"unknown start", "branch", "new", "nope", darkroom.NotFound},
		{"bad start", "tag", "new", "x y", darkroom.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.op == "branch" {
				_, err = s.Branch("img", tt.ref, tt.from)
			} else {
				_, err = s.Tag("img", tt.ref, tt.from)
			}
			if got := codeOf(err); got != tt.code {
				t.Errorf("%s(%q, %q): code %q (%v), want %q", tt.op, tt.ref, tt.from, got, err, tt.code)
			}
		})
	}
	refs, err := s.Refs("img")
	if err != nil {
		t.Fatal(err)
	}
	want := Refs{Branches: map[string]string{"main": h1, "alt": h1}, Tags: map[string]string{"baseline": h0, "v1": h0}}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("Refs (-want +got):\n%s", diff)
	}
	if _, err := s.Check("img"); err != nil {
		t.Error(err)
	}
}

func TestGet(t *testing.T) {
	s := newTestStore(t)
	h0 := mustInit(t, s, "img", exposure(0.25))
	tests := []struct {
		id, hash, code string
	}{
		{"img", h0, ""},
		{"img", h0[:10], darkroom.InvalidInput},
		{"img", strings.ToUpper(h0), darkroom.InvalidInput},
		{"img", strings.Repeat("a", 64), darkroom.NotFound},
		{"ghost", h0, darkroom.NotFound},
	}
	for _, tt := range tests {
		got, err := s.Get(tt.id, tt.hash)
		if code := codeOf(err); code != tt.code {
			t.Errorf("Get(%q, %q): code %q (%v), want %q", tt.id, tt.hash, code, err, tt.code)
			continue
		}
		if err == nil {
			if diff := cmp.Diff(exposure(0.25), got); diff != "" {
				t.Errorf("Get (-want +got):\n%s", diff)
			}
		}
	}
}

func TestLogLimit(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	for i := range 10 {
		mustCommit(t, s, "img", exposure(float64(i+1)), "")
	}
	for _, tt := range []struct{ limit, want int }{{0, 12}, {-1, 12}, {1, 1}, {5, 5}, {100, 12}} {
		logged, err := s.Log("img", tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(logged) != tt.want {
			t.Errorf("Log(%d) has %d entries, want %d", tt.limit, len(logged), tt.want)
		}
		if len(logged) > 0 && logged[0].Hash != mustHash(t, exposure(10)) {
			t.Errorf("Log(%d) does not start with the newest entry", tt.limit)
		}
	}
	if _, err := s.Log("ghost", 1); codeOf(err) != darkroom.NotFound {
		t.Errorf("Log on an unknown image: %v", err)
	}
}

// TestLogLongHistory reads a log larger than the backward reader's chunk.
func TestLogLongHistory(t *testing.T) {
	s := newTestStore(t)
	mustInit(t, s, "img", exposure(0))
	label := strings.Repeat("l", 900)
	const n = 120 // about 1.1 KB a line: the log spans two 64 KB chunks
	for i := range n {
		mustCommit(t, s, "img", exposure(float64(i+1)), label)
	}
	logged, err := s.Log("img", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(logged) != n+2 {
		t.Fatalf("Log has %d entries, want %d", len(logged), n+2)
	}
	for i, e := range logged[:n] {
		if want := mustHash(t, exposure(float64(n-i))); e.Hash != want {
			t.Fatalf("entry %d is %s, want %s", i, e.Hash, want)
		}
	}
}

func TestListImages(t *testing.T) {
	s := newTestStore(t)
	if ids, err := s.ListImages(); err != nil || len(ids) != 0 {
		t.Errorf("ListImages on an empty workspace = %v, %v", ids, err)
	}
	mustInit(t, s, "b", exposure(0))
	mustInit(t, s, "a", exposure(0))
	// Leftovers and intruders are not images.
	for _, d := range []string{".tmp-init-123", "Not_valid"} {
		if err := os.Mkdir(filepath.Join(s.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(s.dir, "link")); err != nil {
		t.Fatal(err)
	}
	ids, err := s.ListImages()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids); diff != "" {
		t.Errorf("ListImages (-want +got):\n%s", diff)
	}
	// The next Init clears the dead build directory.
	mustInit(t, s, "c", exposure(0))
	if _, err := os.Stat(filepath.Join(s.dir, ".tmp-init-123")); !os.IsNotExist(err) {
		t.Errorf("stale Init directory survived: %v", err)
	}
}

func TestSymlinkedImage(t *testing.T) {
	s := newTestStore(t)
	outside := newTestStore(t)
	mustInit(t, outside, "victim", exposure(0))
	if err := os.Symlink(filepath.Join(outside.dir, "victim"), filepath.Join(s.dir, "victim")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Head("victim"); codeOf(err) != darkroom.PermissionError {
		t.Errorf("Head through a symlink: %v, want permission_error", err)
	}
	if _, err := s.Commit("victim", exposure(1), ""); codeOf(err) != darkroom.PermissionError {
		t.Errorf("Commit through a symlink: %v, want permission_error", err)
	}
}

func TestMeta(t *testing.T) {
	s := newTestStore(t)
	if _, err := s.Init("img", exposure(0), nil); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Meta("img"); err != nil || string(m) != "{}" {
		t.Errorf("Meta after Init without meta = %s, %v", m, err)
	}
	if err := s.SetMeta("img", json.RawMessage(`{"w": 6000, "h": 4000}`)); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Meta("img"); err != nil || string(m) != `{"h":4000,"w":6000}` {
		t.Errorf("Meta after SetMeta = %s, %v", m, err)
	}
	if err := s.SetMeta("img", json.RawMessage(`"x"`)); codeOf(err) != darkroom.InvalidInput {
		t.Errorf("SetMeta with a string: %v", err)
	}
	if err := s.SetMeta("ghost", nil); codeOf(err) != darkroom.NotFound {
		t.Errorf("SetMeta on an unknown image: %v", err)
	}
}

func TestOpen(t *testing.T) {
	if _, err := Open(""); codeOf(err) != darkroom.InvalidInput {
		t.Errorf("Open(\"\"): %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file); err == nil {
		t.Error("Open on a file succeeded")
	}
}
