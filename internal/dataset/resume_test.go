package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResumeChecksNames: a rerun reuses a record only when it names the files that
// variant's name gives. A manifest edited (or damaged) to name another file of the
// output folder, whose size and hash it copies, must not make that file a variant:
// the rerun makes the variant again and the output is the clean run's.
func TestResumeChecksNames(t *testing.T) {
	in := mixedInput(t)
	opts := Options{Recipe: "r", Seed: 5, Variants: 2, Augment: flipBright}
	clean, _ := run(t, in, opts)
	cleanTree := readTree(t, clean)
	cleanRecs := readManifest(t, filepath.Join(clean, "manifest.jsonl"))
	find := func(recs []Record, source string, v int) *Record {
		for i := range recs {
			if recs[i].Source == source && recs[i].Variant == v {
				return &recs[i]
			}
		}
		t.Fatalf("no record of %s v%d", source, v)
		return nil
	}
	ref := func(p string) FileRef {
		for _, r := range cleanRecs {
			if r.Output == p {
				return FileRef{Path: p, Bytes: r.Bytes, SHA256: r.SHA256}
			}
			for _, l := range r.Labels {
				if l.Path == p {
					return l
				}
			}
		}
		data, err := os.ReadFile(filepath.Join(clean, p))
		if err != nil {
			t.Fatal(err)
		}
		return fileRef(p, data)
	}
	tests := []struct {
		name   string
		tamper func(r *Record)
	}{
		{"image is classes.txt", func(r *Record) {
			f := ref("classes.txt")
			r.Output, r.Bytes, r.SHA256, r.Labels = f.Path, f.Bytes, f.SHA256, nil
		}},
		{"image is another variant's", func(r *Record) {
			f := ref("a/cat_v1.png")
			r.Output, r.Bytes, r.SHA256 = f.Path, f.Bytes, f.SHA256
		}},
		{"image is another image's", func(r *Record) {
			f := ref(find(cleanRecs, "a/dog.jpg", 0).Output)
			r.Output, r.Bytes, r.SHA256 = f.Path, f.Bytes, f.SHA256
		}},
		{"label is another variant's", func(r *Record) {
			r.Labels = []FileRef{ref("a/cat_v1.txt")}
		}},
		{"label is listed twice", func(r *Record) {
			r.Labels = append(r.Labels, r.Labels...)
		}},
		{"label is the manifest's neighbour", func(r *Record) {
			r.Labels = []FileRef{ref("darkroom-dataset.json")}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := run(t, in, opts)
			recs := readManifest(t, filepath.Join(out, "manifest.jsonl"))
			rec := find(recs, "a/cat.png", 0)
			tt.tamper(rec)
			var b strings.Builder
			for _, r := range recs {
				line, _ := json.Marshal(r)
				b.Write(line)
				b.WriteByte('\n')
			}
			if err := os.WriteFile(filepath.Join(out, "manifest.jsonl"), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			// The variant's own files that the record no longer names are gone: only
			// the files it names, which verify, could stand for them.
			named := map[string]bool{rec.Output: true}
			for _, l := range rec.Labels {
				named[l.Path] = true
			}
			for _, own := range []string{"a/cat_v0.png", "a/cat_v0.txt"} {
				if !named[own] {
					os.Remove(filepath.Join(out, own))
				}
			}
			rep, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Written != 1 {
				t.Errorf("rerun wrote %d variants, want 1 (a/cat.png v0 made again)", rep.Written)
			}
			if diff := cmp.Diff(cleanTree, readTree(t, out)); diff != "" {
				t.Errorf("clean vs rerun over a tampered record (-clean +rerun):\n%s", diff)
			}
			if diff := cmp.Diff(*find(cleanRecs, "a/cat.png", 0), *find(readManifest(t, filepath.Join(out, "manifest.jsonl")), "a/cat.png", 0)); diff != "" {
				t.Errorf("record of a/cat.png v0 (-clean +rerun):\n%s", diff)
			}
		})
	}
}

func fileRef(p string, data []byte) FileRef {
	sum := sha256.Sum256(data)
	return FileRef{Path: p, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
}
