package fsx

import (
	"errors"
	"io"
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
