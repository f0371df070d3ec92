package contract

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue"
	"github.com/google/go-cmp/cmp"
)

// A contract focused on one tool validates that tool's calls as the whole
// contract does (the agreement corpus, valid and invalid, with the same defaults
// and the same messages), and gives whatever else is asked of it (the catalog, the
// limits, the manifest, another tool's calls) as the whole contract does.
func TestFocus(t *testing.T) {
	fsys := os.DirFS("../..")
	full, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Dir: t.TempDir()}
	full.KeepSnapshot(cache)
	checked := 0
	// Twice for each tool: the second focus parses the files with what the first
	// left out blanked (from the cache).
	for i := range 2 * len(full.Tools) {
		ft := full.Tools[i/2]
		c, ok := Snapshot(fsys, cache)
		if !ok {
			t.Fatal("no snapshot")
		}
		if err := c.Focus(fsys, cache, ft.Name); err != nil {
			t.Errorf("%v", err)
			continue
		}
		if _, err := os.Stat(filepath.Join(cache.Dir, "focus-"+ft.key+".json")); err != nil {
			t.Errorf("%s: the focus kept no blanks: %v", ft.Name, err)
		}
		got, _ := c.Tool(ft.Name)
		if diff := cmp.Diff(ft.InputSchema, got.InputSchema); diff != "" {
			t.Errorf("%s: input schema (-full +focused):\n%s", ft.Name, diff)
		}
		// Focus does not generate the output schema; the result it evaluates must
		// give the full contract's all the same.
		if _, out, err := Schema(got.result); err != nil || string(out) != string(ft.OutputSchemaJSON) {
			t.Errorf("%s: the focused result's schema differs from the full one's (%v)", ft.Name, err)
		}
		for _, args := range Corpus(ft.InputSchema) {
			want, werr := ft.Check(args)
			gotArgs, gerr := got.Check(args)
			checked++
			sameCheck(t, ft.Name+" "+string(args), want, werr, gotArgs, gerr)
		}
	}
	if checked < 20*len(full.Tools) {
		t.Fatalf("only %d calls checked for %d tools", checked, len(full.Tools))
	}

	// The rest, from a contract focused on get_state.
	c, _ := Snapshot(fsys, cache)
	if err := c.Focus(fsys, cache, "get_state"); err != nil {
		t.Fatal(err)
	}
	if c.Value.LookupPath(cue.ParsePath("operations")).Exists() {
		t.Fatal("get_state's focus evaluated the operation catalog: the test shows nothing")
	}
	wantOps, err := full.Operations()
	if err != nil {
		t.Fatal(err)
	}
	gotOps, err := c.Operations()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantOps, gotOps); diff != "" {
		t.Errorf("operations (-full +focused):\n%s", diff)
	}
	wantLimits, err := full.TimeLimits()
	if err != nil {
		t.Fatal(err)
	}
	gotLimits, err := c.TimeLimits()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantLimits, gotLimits); diff != "" {
		t.Errorf("time limits (-full +focused):\n%s", diff)
	}
	ft, _ := full.Tool("list_vocabulary")
	other, _ := c.Tool("list_vocabulary")
	for _, args := range Corpus(ft.InputSchema) {
		_, werr := ft.Check(args)
		_, gerr := other.Check(args)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("list_vocabulary %s: full says %v, get_state's focus %v", args, werr, gerr)
		}
	}
	if err := c.Manifest().Err(); err != nil {
		t.Errorf("manifest: %v", err)
	}
}

// sameCheck fails the test unless the focused contract's check of a call (got,
// gerr) is the whole contract's (want, werr): the same error, or the same checked
// arguments.
func sameCheck(t *testing.T, call string, want map[string]any, werr error, got map[string]any, gerr error) {
	t.Helper()
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Errorf("%s: full says %v, focused %v", call, werr, gerr)
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: checked arguments (-full +focused):\n%s", call, diff)
	}
}

// Focus refuses what it cannot vouch for: a tool the snapshot lacks, contract
// files other than the snapshot's, a contract already loaded.
func TestFocusRefuses(t *testing.T) {
	fsys := os.DirFS("../..")
	full, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Dir: t.TempDir()}
	full.KeepSnapshot(cache)
	c, _ := Snapshot(fsys, cache)
	if err := c.Focus(fsys, cache, "no_such_tool"); err == nil {
		t.Error("focused on a tool the contract lacks")
	}
	if err := full.Focus(fsys, cache, "get_state"); err == nil {
		t.Error("focused a loaded contract")
	}
	other := fstest.MapFS{}
	names, _ := fs.Glob(fsys, "contracts/*.cue")
	for _, name := range append(names, "cue.mod/module.cue") {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		other[name] = &fstest.MapFile{Data: b}
	}
	f := other["contracts/tools_history.cue"]
	f.Data = append(f.Data, []byte("\n// another file\n")...)
	if err := c.Focus(other, cache, "get_state"); err == nil {
		t.Error("focused on files other than the snapshot's")
	}
}
