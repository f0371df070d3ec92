package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUltralyticsLayout: images/<split>/ with labels/<split>/ beside them and
// data.yaml naming the classes (as a map) is read and written as it came: every
// variant's labels in labels/<split>/, every box of every source carried (flipped
// where the image is), data.yaml copied, and nothing in images/ that is not an image.
// A label file no image owns and a JSON file in no format darkroom reads are
// reported, not passed over.
func TestUltralyticsLayout(t *testing.T) {
	files := map[string][]byte{
		"data.yaml":               []byte("path: .\ntrain: images/train\nval: images/val\ntest: images/test\nnames:\n  0: person\n  1: car\n"),
		"images/train/000001.png": encode(t, "png", testImage(40, 30, 1)),
		"labels/train/000001.txt": []byte("0 0.250000 0.500000 0.200000 0.400000\n1 0.750000 0.250000 0.100000 0.100000\n"),
		"images/train/000002.png": encode(t, "png", testImage(32, 32, 2)),
		"labels/train/000002.txt": []byte("1 0.500000 0.500000 0.500000 0.250000\n"),
		"images/val/000003.png":   encode(t, "png", testImage(40, 30, 3)),
		"labels/val/000003.txt":   []byte("0 0.100000 0.100000 0.100000 0.100000\n"),
		"images/test/000004.png":  encode(t, "png", testImage(20, 20, 4)),
		"labels/train/orphan.txt": []byte("0 0.5 0.5 0.1 0.1\n"),
		"labels/labelme.json":     []byte(`{"shapes": []}`),
	}
	in := t.TempDir()
	writeTree(t, in, files)
	out, rep := run(t, in, Options{Seed: 5, Variants: 2, Augment: flipBright})

	var skipped []string
	for _, s := range rep.Skipped {
		skipped = append(skipped, s.Source+" "+s.Code)
	}
	if diff := cmp.Diff([]string{"labels/labelme.json invalid_input", "labels/train/orphan.txt invalid_input"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	recs := readManifest(t, filepath.Join(out, "manifest.jsonl"))
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8 (4 images x 2)", len(recs))
	}
	for _, rec := range recs {
		src := strings.TrimPrefix(rec.Source, "images/")
		labelIn, hasLabels := files["labels/"+strings.TrimSuffix(src, ".png")+".txt"]
		wantLabel := "labels/" + strings.TrimSuffix(strings.TrimPrefix(rec.Output, "images/"), ".png") + ".txt"
		if !hasLabels {
			if len(rec.Labels) != 0 {
				t.Errorf("%s: an image without labels got %v", rec.Output, rec.Labels)
			}
			continue
		}
		if len(rec.Labels) != 1 || rec.Labels[0].Path != wantLabel {
			t.Errorf("%s: labels %v, want %s", rec.Output, rec.Labels, wantLabel)
			continue
		}
		got, err := os.ReadFile(filepath.Join(out, wantLabel))
		if err != nil {
			t.Fatal(err)
		}
		gotLines, inLines := strings.Split(strings.TrimSpace(string(got)), "\n"), strings.Split(strings.TrimSpace(string(labelIn)), "\n")
		if len(gotLines) != len(inLines) {
			t.Errorf("%s: %d labels, the source had %d", wantLabel, len(gotLines), len(inLines))
			continue
		}
		for i := range inLines {
			in, g := strings.Fields(inLines[i]), strings.Fields(gotLines[i])
			if g[0] != in[0] || g[2] != in[2] || g[3] != in[3] || g[4] != in[4] {
				t.Errorf("%s line %d: %q, from %q: class, y and size must stay", wantLabel, i, gotLines[i], inLines[i])
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, "images/train/000001_v0.txt")); err == nil {
		t.Error("a label file was written into images/")
	}
	if b, err := os.ReadFile(filepath.Join(out, "data.yaml")); err != nil || string(b) != string(files["data.yaml"]) {
		t.Errorf("data.yaml not copied verbatim: %q, %v", b, err)
	}
	d := openDataset(t, in)
	if diff := cmp.Diff([]string{"person", "car"}, d.info.Classes); diff != "" {
		t.Errorf("classes from data.yaml's names map (-want +got):\n%s", diff)
	}
}
