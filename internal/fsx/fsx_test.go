package fsx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedStepKeepsOldFile fails each step of a replacement in turn: until the
// rename the target keeps its old content, and no temporary file is left behind;
// a failure after the rename (the directory's fsync) leaves the new content.
func TestFailedStepKeepsOldFile(t *testing.T) {
	for _, op := range []string{"create", "write", "chmod", "sync", "close", "rename", "syncdir"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "f.json")
			if err := WriteFile(name, []byte("old"), nil); err != nil {
				t.Fatal(err)
			}
			fired := false
			err := WriteFile(name, []byte("new content"), func(o, _ string) error {
				if o == op {
					fired = true
					return errors.New("injected")
				}
				return nil
			})
			if !fired || err == nil {
				t.Fatalf("fired %v, err %v: the step was not injected or its failure not returned", fired, err)
			}
			want := "old"
			if op == "syncdir" {
				want = "new content"
			}
			if b, _ := os.ReadFile(name); string(b) != want {
				t.Errorf("after a failed %s the file holds %q, want %q", op, b, want)
			}
			des, _ := os.ReadDir(dir)
			for _, de := range des {
				if strings.HasPrefix(de.Name(), TempPrefix) {
					t.Errorf("temporary file %s left behind", de.Name())
				}
			}
		})
	}
}

// An error of the producer is returned as it is, and the old file stays.
func TestWriteFileFromProducerError(t *testing.T) {
	name := filepath.Join(t.TempDir(), "export.tiff")
	if err := WriteFileFrom(name, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }, nil); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("encoder failed")
	err := WriteFileFrom(name, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return mine
	}, nil)
	if err != mine {
		t.Errorf("err %v, want the producer's own", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "old" {
		t.Errorf("file holds %q after a failed producer, want old", b)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// A secret's file has its mode from the start (its temporary file is 0600 too),
// and the rooted writer leaves the same result as the plain one: the file, no
// temporary file, and no way out of its root.
func TestWriteFilePermAndIn(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "tokens.json")
	if err := WriteFilePerm(name, []byte("secret"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, durable := range []bool{true, false} {
		if err := WriteFileIn(root, "sub/v.png", []byte("variant"), durable); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "sub", "v.png")); string(b) != "variant" {
			t.Errorf("durable %v: file holds %q", durable, b)
		}
	}
	if err := WriteFileIn(root, "../escape", []byte("x"), true); err == nil {
		t.Error("WriteFileIn wrote outside its root")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Error("a file appeared outside the root")
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), TempPrefix) {
			t.Errorf("temporary file %s left behind", p)
		}
		return nil
	})
}

// fsx is darkroom's one atomic writer: no other package makes temporary files and
// renames them into place itself. The history's own renames (publishing an Init's
// directory, putting a ref's old value back in a rollback) are the only others.
func TestOneWriter(t *testing.T) {
	allowed := map[string]bool{"internal/fsx": true, "internal/history": true}
	patterns := []string{"os.CreateTemp(", "os.Rename(", ".Rename("}
	root := filepath.Join("..", "..")
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if allowed[rel] || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, pat := range patterns {
			if strings.Contains(string(b), pat) {
				t.Errorf("%s calls %s: write through internal/fsx instead", rel, pat)
			}
		}
		return nil
	})
	if n < 50 {
		t.Fatalf("looked at %d Go files: the walk missed the module", n)
	}
}
