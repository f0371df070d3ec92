package history

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"main", "a..b", "../x", "a/b", ".x", "é", "HEAD", "v1.0", "x\x00", strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := ValidateName("branch", name)
		if err != nil {
			if darkroom.Code(err) != darkroom.InvalidInput {
				t.Errorf("ValidateName(%q): code %s", name, darkroom.Code(err))
			}
			return
		}
		// A valid name is safe to join onto a directory.
		if !filepath.IsLocal(name) || filepath.Base(name) != name || strings.ContainsAny(name, `/\`) ||
			strings.Contains(name, "..") || strings.HasPrefix(name, ".") || len(name) > MaxNameLen || strings.ToLower(name) != name {
			t.Errorf("ValidateName accepted %q", name)
		}
	})
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.0,-0,"x"]}`, `1e21`, `"\u2028"`, `{"\ud83d\ude00":1}`, `[`, `{"a":1,"a":2}`, `"\xff"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := canonicalJSON(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical form of %q is not JSON: %q", data, out)
		}
		again, err := canonicalJSON(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("canonical form is not a fixed point: %q -> %q (%v)", out, again, err)
		}
		var a, b any
		if json.Unmarshal(data, &a) == nil {
			if err := json.Unmarshal(out, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("canonical form changes the value: %q -> %q", data, out)
			}
		}
		// As a mask, the same bytes must make a state that hashes or fails cleanly.
		var st State
		st.Set(Entry{Primitive: "p", Mask: data, Strength: 1})
		st.Set(Entry{Primitive: "p", Mask: out, Strength: 1})
		if _, err := Hash(st); err != nil && darkroom.Code(err) == darkroom.InternalError {
			t.Fatalf("Hash: %v", err)
		}
		if d := Diff(st, st); !d.Empty() {
			t.Fatalf("a state differs from itself: %+v", d)
		}
	})
}

// FuzzCorruptStore damages one file of a small image and requires every operation to
// fail with a coded error or succeed, never panic, and Check to reject or accept it.
func FuzzCorruptStore(f *testing.F) {
	template := f.TempDir()
	s, err := Open(template)
	if err != nil {
		f.Fatal(err)
	}
	mustInit(f, s, "img", exposure(0))
	mustCommit(f, s, "img", State{Entries: []Entry{{Primitive: "p", Mask: json.RawMessage(`{"k":[1,2]}`), Values: map[string]float64{"v": 1}}}}, "masked")
	if _, err := s.Branch("img", "alt", "baseline"); err != nil {
		f.Fatal(err)
	}
	mustCommit(f, s, "img", exposure(2), "two")
	var files []string
	root := filepath.Join(template, "images", "img")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != lockFile {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return nil
	})

	seeds := []struct {
		file, mode uint8
		offset     uint16
		data       string
	}{
		{0, 0, 0, "ref: refs/heads/../../x\n"},
		{1, 1, 3, "zz"},
		{2, 2, 10, ""},
		{3, 3, 0, `{"time":"x"`},
		{4, 1, 0, `{"entries":[{"primitive":"p","values":{"v":1e999}}]}`},
		{5, 0, 0, "{\"a\":\n"},
		{6, 3, 0, "\n\n"},
	}
	for _, sd := range seeds {
		f.Add(sd.file, sd.mode, sd.offset, []byte(sd.data))
	}
	f.Fuzz(func(t *testing.T, file, mode uint8, offset uint16, data []byte) {
		ws := t.TempDir()
		dir := filepath.Join(ws, "images", "img")
		for _, rel := range files {
			b, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		target := filepath.Join(dir, files[int(file)%len(files)])
		b, _ := os.ReadFile(target)
		off := int(offset) % (len(b) + 1)
		switch mode % 4 {
		case 0:
			b = data
		case 1:
			b = append(b[:off:off], append(data, b[min(off+len(data), len(b)):]...)...)
		case 2:
			b = b[:off]
		case 3:
			b = append(b, data...)
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			t.Fatal(err)
		}

		s, err := Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		coded := func(op string, err error) {
			var de *darkroom.Error
			if err != nil && (!errors.As(err, &de) || de.Code == darkroom.InternalError) {
				t.Errorf("%s on %s damaged: uncoded error %v", op, files[int(file)%len(files)], err)
			}
		}
		_, checkErr := s.Check("img")
		coded("Check", checkErr)
		head, err := s.Head("img")
		coded("Head", err)
		if checkErr == nil && err != nil {
			t.Errorf("Check passed but Head fails: %v", err)
		}
		if err == nil {
			_, err = s.Get("img", head.Hash)
			coded("Get", err)
		}
		_, err = s.Log("img", 0)
		coded("Log", err)
		_, err = s.Resolve("img", "alt")
		coded("Resolve", err)
		_, err = s.Refs("img")
		coded("Refs", err)
		_, err = s.Meta("img")
		coded("Meta", err)
		_, err = s.Commit("img", exposure(7), "after damage")
		coded("Commit", err)
		_, err = s.Checkout("img", "alt")
		coded("Checkout", err)
		if checkErr == nil {
			if _, err := s.Check("img"); err != nil {
				t.Errorf("Check passed, then failed after Commit and Checkout: %v", err)
			}
		}
	})
}
