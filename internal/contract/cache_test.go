package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A warm load gives the contract a cold one gives: the same tools with the same
// schemas (as maps and as the bytes clients get), error codes and labels, and tool
// arguments checked the same way. A torn or edited cache file is a miss.
func TestLoadCached(t *testing.T) {
	fsys := os.DirFS("../..")
	want, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Dir: t.TempDir()}
	file := filepath.Join(cache.Dir, "contract.json")
	check := func(what string) {
		t.Helper()
		got, err := LoadCached(fsys, cache)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(want.Tools, got.Tools, cmpopts.IgnoreUnexported(Tool{})); diff != "" {
			t.Errorf("%s: tools (-Load +LoadCached):\n%s", what, diff)
		}
		if diff := cmp.Diff(want.ErrorCodes, got.ErrorCodes); diff != "" || want.Version != got.Version {
			t.Errorf("%s: error codes or version differ:\n%s", what, diff)
		}
		if diff := cmp.Diff(want.KnownLabels(), got.KnownLabels()); diff != "" {
			t.Errorf("%s: labels (-Load +LoadCached):\n%s", what, diff)
		}
		for _, args := range []string{`{"image_id": "a"}`, `{"image_id": 5}`, `{}`} {
			_, werr := want.byName["get_state"].Check(json.RawMessage(args))
			_, gerr := got.byName["get_state"].Check(json.RawMessage(args))
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%s: get_state %s: Load says %v, LoadCached %v", what, args, werr, gerr)
			}
		}
	}
	check("cold")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("nothing cached: %v", err)
	}
	check("warm")
	for name, b := range map[string][]byte{
		"torn":           orig[:len(orig)/2],
		"payload edited": []byte(strings.Replace(string(orig), `"Version":"`, `"Version":"9`, 1)),
		"other key":      []byte(strings.Replace(string(orig), `"key":"`, `"key":"0`, 1)),
	} {
		if string(b) == string(orig) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		check(name)
	}
}
