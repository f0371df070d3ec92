package pack

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// summary is what a vocabulary offers, for comparing loads.
func summary(t *testing.T, voc *vocab.Vocabulary) string {
	t.Helper()
	b, err := json.Marshal(struct {
		Packs   []vocab.Pack
		Entries []*vocab.Entry
		Masks   []*vocab.Mask
	}{voc.Packs, voc.Entries, voc.Masks})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// coldStart checks the built-in packs against the whole contract c, keeping the
// verdicts in cache.
func coldStart(t *testing.T) (c *contract.Contract, srcs []Source, cache *contract.Cache, cold *vocab.Vocabulary) {
	t.Helper()
	c = loadContract(t)
	srcs, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cache = &contract.Cache{Dir: t.TempDir()}
	if cold, err = LoadCached(c, srcs, cache); err != nil {
		t.Fatal(err)
	}
	return c, srcs, cache, cold
}

// sameValues checks that every entry of warm (on contract wc) answers values as the
// checked entry of cold (on the whole contract c) does: at each end of every range
// and past it, inside it, with values left out, of the wrong shape or an unknown
// name. It returns how many values it compared.
func sameValues(t *testing.T, c *contract.Contract, cold *vocab.Vocabulary, wc *contract.Contract, warm *vocab.Vocabulary) int {
	t.Helper()
	n := 0
	for _, ce := range cold.Entries {
		we, _ := warm.Entry(ce.Name)
		values := []string{`0.5`, `99`, `{"temperature": 800, "tint": 7}`, `{"temperature": 800}`, `{"nope": 1}`, `null`, `{}`}
		for _, pname := range ce.ParameterNames() {
			p := ce.Parameters[pname]
			for _, v := range []float64{p.Min, p.Max, p.Default, p.Min - 1, p.Max + 0.5, (p.Min + p.Max) / 2} {
				one, _ := json.Marshal(map[string]float64{pname: v})
				values = append(values, string(one))
				if len(ce.Parameters) == 1 {
					values = append(values, fmt.Sprint(v))
				}
			}
		}
		for _, value := range values {
			cv, cerr := Values(c, ce, json.RawMessage(value))
			wv, werr := Values(wc, we, json.RawMessage(value))
			n++
			if diff := cmp.Diff(cv, wv); diff != "" || (cerr == nil) != (werr == nil) || cerr != nil && cerr.Error() != werr.Error() {
				t.Errorf("%s %s: checked %v %v, warm %v %v", ce.Name, value, cv, cerr, wv, werr)
			}
		}
	}
	return n
}

// A warm start loads the built-in packs from the cache, to the same vocabulary as a
// check, with every entry's value rules working (they are worked out when needed).
func TestCacheWarmStart(t *testing.T) {
	c, srcs, cache, cold := coldStart(t)
	files, _ := filepath.Glob(filepath.Join(cache.Dir, "vocab-*.json"))
	if len(files) != len(srcs) {
		t.Fatalf("%d cache files for %d packs", len(files), len(srcs))
	}
	for _, src := range srcs {
		if _, ok := cached(cache, c, src); !ok {
			t.Errorf("%s: no verdict kept", src.Name)
		}
	}
	warm, err := LoadCached(c, srcs, cache)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(summary(t, cold), summary(t, warm)); diff != "" {
		t.Errorf("warm load differs (-cold +warm):\n%s", diff)
	}
	// Every entry's rules, worked out on the warm side, answer as the checked ones.
	sameValues(t, c, cold, c, warm)
}

// A CLI call focuses the contract on its tool; the warm vocabulary then checks an
// entry's value with the focus's #EntryValues, never evaluating the rest of the
// contract (the catalog, the other tools: most of a start-up), and answers as the
// checked vocabulary does. The contract files vanish once the focus is made, so a
// check that reached for the rest would fail.
func TestFocusedValuesNeedNoWholeContract(t *testing.T) {
	c, srcs, cache, cold := coldStart(t)
	c.KeepSnapshot(cache)
	fsys := &vanishing{FS: os.DirFS("../../..")}
	fc, ok := contract.Snapshot(fsys, cache)
	if !ok {
		t.Fatal("no snapshot")
	}
	if err := fc.Focus(fsys, cache, "augment_dataset"); err != nil {
		t.Fatal(err)
	}
	fsys.gone = true
	warm, err := LoadCached(fc, srcs, cache)
	if err != nil {
		t.Fatal(err)
	}
	checked := sameValues(t, c, cold, fc, warm)
	if checked < 5*len(cold.Entries) {
		t.Fatalf("only %d values checked", checked)
	}
	// The test shows something: the rest of the contract is out of reach.
	if m := fc.Manifest(); m.Err() == nil {
		t.Fatal("the focused contract still read its files after they vanished")
	}
}

// vanishing is a file system whose files are gone once gone is set.
type vanishing struct {
	fs.FS
	gone bool
}

func (v *vanishing) Open(name string) (fs.File, error) {
	if v.gone {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return v.FS.Open(name)
}

// A stale verdict (the pack changed, or the contract) and a corrupt file are misses:
// the pack is checked again, and a bad pack is refused, never served from the cache.
func TestCacheStaleAndCorrupt(t *testing.T) {
	c := loadContract(t)
	cache := &contract.Cache{Dir: t.TempDir()}
	good := Source{Name: "./p.yaml", Data: []byte(goodPack)}
	if _, err := LoadCached(c, []Source{good}, cache); err != nil {
		t.Fatal(err)
	}
	if _, ok := cached(cache, c, good); !ok {
		t.Fatal("no verdict kept for a good pack")
	}

	// The same name, new content: the old verdict must not answer for it.
	bad := Source{Name: good.Name, Data: []byte(strings.Replace(goodPack, "layer: L2", "layer: L7", 1))}
	if _, ok := cached(cache, c, bad); ok {
		t.Error("a changed pack was answered from the cache")
	}
	if _, err := LoadCached(c, []Source{bad}, cache); err == nil || !strings.Contains(err.Error(), "entries.warm_up.layer") {
		t.Errorf("changed, bad pack: %v, want its check's error", err)
	}

	// Another contract (here one comment added to the manifest): a miss.
	if _, err := LoadCached(c, []Source{good}, cache); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, name := range []string{"cue.mod/module.cue"} {
		b, err := os.ReadFile(filepath.Join("../../..", name))
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	cues, _ := filepath.Glob("../../../contracts/*.cue")
	for _, name := range cues {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(name) == "manifest.cue" {
			b = append(b, "\n// A comment: the contract's text changed.\n"...)
		}
		fsys["contracts/"+filepath.Base(name)] = &fstest.MapFile{Data: b}
	}
	changed, err := contract.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cached(cache, c, good); !ok {
		t.Fatal("verdict lost")
	}
	if _, ok := cached(cache, changed, good); ok {
		t.Error("a verdict under another contract was answered from the cache")
	}

	// Corrupt the file in every way a disk or a person could: each is a miss, and
	// the load still gives the checked vocabulary.
	file := filepath.Join(cache.Dir, cacheFile(good))
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load(c, []Source{good})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"torn":           orig[:len(orig)/2],
		"empty":          {},
		"payload edited": []byte(strings.Replace(string(orig), "More contrast", "Less contrast", 1)),
		"not json":       []byte("\x00\x01garbage"),
	} {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := cached(cache, c, good); ok {
			t.Errorf("%s cache file: answered from it", name)
		}
		got, err := LoadCached(c, []Source{good}, cache)
		if err != nil {
			t.Fatalf("%s cache file: %v", name, err)
		}
		if diff := cmp.Diff(summary(t, want), summary(t, got)); diff != "" {
			t.Errorf("%s cache file: vocabulary differs (-want +got):\n%s", name, diff)
		}
		if _, ok := cached(cache, c, good); !ok {
			t.Errorf("%s cache file: not replaced by a good verdict", name)
		}
	}
}
