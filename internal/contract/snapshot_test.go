package contract

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A snapshot is what KeepSnapshot kept for exactly these contract files (and this
// executable): the loaded contract's tools as clients see them, with no CUE. A
// snapshot of other files, or a torn or edited one, is a miss.
func TestSnapshot(t *testing.T) {
	fsys := os.DirFS("../..")
	c, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Dir: t.TempDir()}
	if _, ok := Snapshot(fsys, cache); ok {
		t.Fatal("a snapshot in an empty cache")
	}
	c.KeepSnapshot(cache)
	snap, ok := Snapshot(fsys, cache)
	if !ok {
		t.Fatal("no snapshot after KeepSnapshot")
	}
	if !snap.SameSurface(c) || !c.SameSurface(snap) {
		t.Error("the snapshot does not show what the contract shows")
	}
	// Everything but the CUE values and the schemas as maps, which a snapshot
	// does not have.
	if diff := cmp.Diff(c.Tools, snap.Tools, cmpopts.IgnoreUnexported(Tool{}), cmpopts.IgnoreFields(Tool{}, "InputSchema", "OutputSchema")); diff != "" {
		t.Errorf("tools (-loaded +snapshot):\n%s", diff)
	}
	if diff := cmp.Diff(c.ErrorCodes, snap.ErrorCodes); diff != "" || c.Version != snap.Version || c.Digest() != snap.Digest() {
		t.Errorf("error codes, version or digest differ:\n%s", diff)
	}
	for _, tool := range snap.Tools {
		if tool.InputSchema != nil || tool.params.Exists() {
			t.Fatalf("%s: a snapshot's tool has schema maps or CUE values", tool.Name)
		}
	}

	// Other contract files: one description changed.
	other := fstest.MapFS{}
	names, err := fs.Glob(fsys, "contracts/*.cue")
	if err != nil || len(names) == 0 {
		t.Fatalf("contract files: %v", err)
	}
	for _, name := range append(names, "cue.mod/module.cue") {
		b, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		other[name] = &fstest.MapFile{Data: b}
	}
	if _, ok := Snapshot(other, cache); !ok {
		t.Fatal("the same files in another file system miss")
	}
	f := other["contracts/tools_history.cue"]
	f.Data = []byte(strings.Replace(string(f.Data), "\ttitle:", "\ttitle: ", 1))
	if _, ok := Snapshot(other, cache); ok {
		t.Error("a snapshot of other contract files is a hit")
	}

	file := filepath.Join(cache.Dir, snapshotFile)
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"torn":           orig[:len(orig)/2],
		"payload edited": []byte(strings.Replace(string(orig), `"description":"`, `"description":"x`, 1)),
		"other key":      []byte(strings.Replace(string(orig), `"key":"`, `"key":"0`, 1)),
		"empty":          nil,
	} {
		if string(b) == string(orig) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := Snapshot(fsys, cache); ok {
			t.Errorf("%s: a hit", name)
		}
	}
}
