package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func readManifest(t *testing.T, name string) []Record {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %q: %v", name, sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestOpen(t *testing.T) {
	in := mixedInput(t)
	d := openDataset(t, in)
	want := []string{"a/cat.png", "a/dog.jpg", "b/bird.png", "b/fish.png", "c/badlabel.png", "c/broken.png", "d/twin.jpg", "d/twin.png", "e/anim.gif", "e/scan.tif"}
	for i := range 10 {
		want = append(want, "n/img0"+string(rune('0'+i))+".png")
	}
	if diff := cmp.Diff(want, d.Images); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cat", "dog"}, d.info.Classes); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
	// What the server passes: the FS of an os.Root, through which a symbolic link
	// cannot lead out; links are not followed at all.
	if err := os.Symlink(filepath.Join(in, "a"), filepath.Join(in, "n", "link")); err != nil {
		t.Fatal(err)
	}
	rd, err := Open(openRoot(t, in).FS())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, rd.Images); diff != "" {
		t.Errorf("images through os.Root (-want +got):\n%s", diff)
	}

	// Two COCO files leave the labels of every image ambiguous.
	dir := cocoInputDir(t)
	data, _ := os.ReadFile(filepath.Join(dir, "annotations.json"))
	writeTree(t, dir, map[string][]byte{"more.json": data, "unrelated.json": []byte(`{"a": [1, 2], "b": {}}`)})
	_, err = Open(os.DirFS(dir))
	if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), "2 COCO files (annotations.json, more.json)") {
		t.Errorf("two COCO files: got %v", err)
	}
}

// TestRunOutputs runs the fake augmentation over a folder with every label format
// and checks what a user reads back: the variants, their moved labels in the input's
// format, the manifest, and the images skipped with their codes.
func TestRunOutputs(t *testing.T) {
	in := mixedInput(t)
	var progress []Progress
	out, rep := run(t, in, Options{Recipe: "flip-bright", Seed: 7, Variants: 3, Augment: flipBright,
		Progress: func(p Progress) { progress = append(progress, p) }})
	// Calls come one at a time (the append above would race otherwise), Done only
	// grows, and a skipped image's variants count as settled so the run ends at Total.
	for i, p := range progress {
		if p.Total != 60 || (i > 0 && p.Done < progress[i-1].Done) {
			t.Fatalf("progress %d: %+v after %+v", i, p, progress[max(i-1, 0)])
		}
	}
	if last := progress[len(progress)-1]; len(progress) != 52 || last.Done != 60 || last.Skipped != 4 {
		t.Errorf("%d progress calls, last %+v; want 52 (48 variants, 4 skipped images) ending at 60 of 60", len(progress), last)
	}

	wantSkips := []Skip{
		{"c/badlabel.png", darkroom.InvalidInput, "labels c/badlabel.txt: line 2: 3 fields, want class cx cy w h"},
		{"c/broken.png", darkroom.RenderError, "c/broken.png is not a readable image: decode png: the file is truncated: unexpected EOF"},
		{"d/twin.jpg", darkroom.InvalidInput, "d/twin.jpg: 2 images share the stem twin (d/twin.jpg, d/twin.png); rename all but one"},
		{"d/twin.png", darkroom.InvalidInput, "d/twin.png: 2 images share the stem twin (d/twin.jpg, d/twin.png); rename all but one"},
	}
	if diff := cmp.Diff(wantSkips, rep.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if rep.Images != 20 || rep.Total != 60 || rep.Written != 48 || rep.Reused != 0 {
		t.Errorf("report: %d images, %d variants, %d written, %d reused; want 20, 60, 48, 0", rep.Images, rep.Total, rep.Written, rep.Reused)
	}

	recs := readManifest(t, filepath.Join(out, "manifest.jsonl"))
	if len(recs) != 52 {
		t.Fatalf("manifest has %d lines, want 48 variants and 4 skipped images", len(recs))
	}
	byOut := map[string]Record{}
	for _, r := range recs {
		if r.Error != nil {
			continue
		}
		if r.Seed != VariantSeed(7, r.Source, r.Variant) {
			t.Errorf("%s v%d: seed %d, want VariantSeed", r.Source, r.Variant, r.Seed)
		}
		for _, f := range append([]FileRef{{r.Output, r.Bytes, r.SHA256}}, r.Labels...) {
			if !verify(openRoot(t, out), &Record{Output: f.Path, Bytes: f.Bytes, SHA256: f.SHA256}) {
				t.Errorf("%s: the file is not the one the manifest describes", f.Path)
			}
		}
		byOut[r.Output] = r
	}

	// A YOLO variant's boxes moved with the pixels, normalised to the output.
	cat := byOut["a/cat_v1.png"]
	var p struct {
		Flip bool `json:"flip"`
	}
	json.Unmarshal(cat.Params, &p)
	data, _ := os.ReadFile(filepath.Join(out, "a/cat_v1.txt"))
	objs, err := ParseYOLO("a/cat_v1.txt", data, 40, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Object{{Class: 0, Box: [4]float64{6, 9, 14, 21}}, {Class: 1, Box: [4]float64{28, 6, 32, 9}}}
	if p.Flip {
		want = []Object{{Class: 0, Box: [4]float64{26, 9, 34, 21}}, {Class: 1, Box: [4]float64{8, 6, 12, 9}}}
	}
	if diff := cmp.Diff(want, objs, cmpopts.EquateApprox(0, 1e-4)); diff != "" {
		t.Errorf("a/cat_v1.txt (flip %v) (-want +got):\n%s", p.Flip, diff)
	}
	if diff := cmp.Diff([]FileRef{{Path: "a/cat_v1.txt"}}, cat.Labels, cmpopts.IgnoreFields(FileRef{}, "Bytes", "SHA256")); diff != "" {
		t.Errorf("a/cat_v1 label files (-want +got):\n%s", diff)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "classes.txt")); string(got) != "cat\ndog\n" {
		t.Errorf("classes.txt: %q", got)
	}

	// A VOC variant names its own image and keeps the object's attributes.
	bird := byOut["b/bird_v0.png"]
	json.Unmarshal(bird.Params, &p)
	data, _ = os.ReadFile(filepath.Join(out, "b/bird_v0.xml"))
	vobjs, _, err := ParseVOC("b/bird_v0.xml", data)
	if err != nil {
		t.Fatal(err)
	}
	box := [4]float64{4, 2, 14, 20}
	if p.Flip {
		box = [4]float64{26, 2, 36, 20}
	}
	if diff := cmp.Diff([]Object{{Name: "dog", Box: box, Attrs: map[string]string{"difficult": "1"}}}, vobjs); diff != "" {
		t.Errorf("b/bird_v0.xml (-want +got):\n%s", diff)
	}
	if !bytes.Contains(data, []byte("<filename>bird_v0.png</filename>")) || !bytes.Contains(data, []byte("<folder>b</folder>")) {
		t.Errorf("b/bird_v0.xml does not name its image:\n%s", data)
	}

	// A mask moved with the image, pixel for pixel.
	for v := range 3 {
		r := byOut["b/fish_v"+string(rune('0'+v))+".png"]
		json.Unmarshal(r.Params, &p)
		f, err := os.Open(filepath.Join(out, "masks/b/fish_v"+string(rune('0'+v))+".png"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		x := 2
		if p.Flip {
			x = 37
		}
		if g := m.(*image.Gray); g.GrayAt(x, 15).Y != 3 || g.GrayAt(39-x, 15).Y != 0 {
			t.Errorf("fish v%d (flip %v): mask not moved with the image", v, p.Flip)
		}
	}

	// The variants differ from each other: the augmentation ran with their seeds.
	if byOut["n/img00_v0.png"].SHA256 == byOut["n/img00_v1.png"].SHA256 {
		t.Errorf("two variants of n/img00.png are the same file")
	}
	if _, err := os.Stat(filepath.Join(out, JournalName(Shard{}))); !os.IsNotExist(err) {
		t.Errorf("the journal is still there after a finished run: %v", err)
	}
}

// TestDeterministic: the output does not depend on how many workers ran it.
func TestDeterministic(t *testing.T) {
	in := mixedInput(t)
	one, _ := run(t, in, Options{Seed: 3, Variants: 2, Workers: 1, Augment: flipBright})
	four, _ := run(t, in, Options{Seed: 3, Variants: 2, Workers: 4, Augment: flipBright})
	if diff := cmp.Diff(readTree(t, one), readTree(t, four)); diff != "" {
		t.Errorf("1 worker vs 4 workers (-1 +4):\n%s", diff)
	}
	other, _ := run(t, in, Options{Seed: 4, Variants: 2, Workers: 4, Augment: flipBright})
	if readTree(t, one)["n/img03_v1.png"] == readTree(t, other)["n/img03_v1.png"] {
		t.Errorf("seed 3 and seed 4 made the same variant")
	}
}

// TestShardsMerge: three shards run separately into one folder and merged give,
// byte for byte, what one unsharded run writes, for YOLO/VOC/mask and COCO inputs.
func TestShardsMerge(t *testing.T) {
	for name, in := range map[string]string{"mixed": mixedInput(t), "coco": cocoInputDir(t)} {
		t.Run(name, func(t *testing.T) {
			opts := Options{Recipe: "r", Seed: 11, Variants: 2, Augment: flipBright}
			whole, _ := run(t, in, opts)

			sharded := filepath.Join(t.TempDir(), "out")
			var names []string
			for i := range 3 {
				o := opts
				o.Shard = Shard{i, 3}
				// Each shard opens the input and the output itself, as a separate
				// process would.
				rep, err := Run(context.Background(), openDataset(t, in), openRoot(t, sharded), o)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Images == 0 {
					t.Fatalf("shard %d has no images: the test would prove nothing", i)
				}
				names = append(names, rep.Manifest)
			}
			if err := Merge(openRoot(t, sharded), names...); err != nil {
				t.Fatal(err)
			}
			// A shard rerun after the merge finds its variants in the merged
			// manifest even without its own.
			os.Remove(filepath.Join(sharded, names[1]))
			o := opts
			o.Shard = Shard{1, 3}
			o.Augment = func(ctx context.Context, job Job) (Result, error) {
				t.Errorf("shard 1 rerun after the merge made %s v%d again", job.Source, job.Variant)
				return flipBright(ctx, job)
			}
			if _, err := Run(context.Background(), openDataset(t, in), openRoot(t, sharded), o); err != nil {
				t.Fatal(err)
			}
			got := readTree(t, sharded)
			for _, n := range names {
				if got[n] == "" {
					t.Errorf("no %s", n)
				}
				delete(got, n)
			}
			if diff := cmp.Diff(readTree(t, whole), got); diff != "" {
				t.Errorf("unsharded vs merged shards (-unsharded +merged):\n%s", diff)
			}
		})
	}
}

func TestMergeErrors(t *testing.T) {
	in := mixedInput(t)
	out := filepath.Join(t.TempDir(), "out")
	for i := range 3 {
		if _, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), Options{Seed: 1, Variants: 1, Shard: Shard{i, 3}, Augment: flipBright}); err != nil {
			t.Fatal(err)
		}
	}
	// A shard manifest copied under another shard's name holds images of the wrong shard.
	data, _ := os.ReadFile(filepath.Join(out, "manifest.shard-0-of-3.jsonl"))
	os.MkdirAll(filepath.Join(out, "x"), 0o755)
	os.WriteFile(filepath.Join(out, "x/manifest.shard-1-of-3.jsonl"), data, 0o644)
	recs := readManifest(t, filepath.Join(out, "manifest.shard-2-of-3.jsonl"))
	os.Remove(filepath.Join(out, recs[0].Output))

	for _, tc := range []struct {
		names []string
		code  string
		msg   string
	}{
		{[]string{"manifest.shard-0-of-3.jsonl", "manifest.shard-1-of-3.jsonl"}, darkroom.InvalidInput, "shards 2 of 3 are missing"},
		{[]string{"manifest.shard-0-of-3.jsonl", "manifest.shard-0-of-3.jsonl", "manifest.shard-1-of-3.jsonl"}, darkroom.InvalidInput, "shard 0 given twice"},
		{[]string{"manifest.shard-0-of-3.jsonl", "x/manifest.shard-1-of-3.jsonl", "manifest.shard-2-of-3.jsonl"}, darkroom.InvalidInput, "belongs to shard 0"},
		{[]string{"manifest.jsonl"}, darkroom.InvalidInput, "is not named manifest.shard-<i>-of-<n>.jsonl"},
		{[]string{"manifest.shard-0-of-3.jsonl", "manifest.shard-1-of-3.jsonl", "manifest.shard-2-of-3.jsonl"}, darkroom.NotFound, recs[0].Output + " is missing"},
	} {
		err := Merge(openRoot(t, out), tc.names...)
		if darkroom.Code(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Merge(%v) = %v; want %s containing %q", tc.names, err, tc.code, tc.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a failed merge wrote manifest.jsonl")
	}
}

// TestResume: a run cancelled halfway leaves a journal of complete records; the rerun
// makes only what is missing, and the result is byte for byte a clean run's.
func TestResume(t *testing.T) {
	in := mixedInput(t)
	opts := Options{Recipe: "r", Seed: 5, Variants: 3, Workers: 2}
	clean, _ := run(t, in, Options{Recipe: "r", Seed: 5, Variants: 3, Augment: flipBright})

	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	opts.Augment = func(ctx context.Context, job Job) (Result, error) {
		if calls.Add(1) == 20 {
			cancel()
		}
		return flipBright(ctx, job)
	}
	rep, err := Run(ctx, openDataset(t, in), openRoot(t, out), opts)
	if darkroom.Code(err) != darkroom.Unavailable || !strings.Contains(err.Error(), "rerun to resume") {
		t.Fatalf("cancelled run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a cancelled run wrote the final manifest")
	}
	journal := readManifest(t, filepath.Join(out, JournalName(Shard{})))
	if len(journal) != rep.Written || len(journal) < 10 || len(journal) >= 48 {
		t.Fatalf("journal has %d records, report says %d written; want about half of 48", len(journal), rep.Written)
	}
	root := openRoot(t, out)
	for _, r := range journal {
		if !verify(root, &r) {
			t.Errorf("journal line for %s v%d names files not fully written", r.Source, r.Variant)
		}
	}
	// A run killed while writing leaves a temporary file beside the output it was
	// writing: the rerun removes it, and leaves another shard's and a user's files.
	stale := []string{"n/.img04_v2.png.tmp-999999-1", "a/.cat_v0.txt.tmp-999999-2", "n/.tmp-img05_v1.png-12345", "a/.tmp-cat_v1.txt-678"}
	kept := []string{"n/.img99_v0.png.tmp-888888-1", "n/.tmp-img99_v0.png-1", "n/.tmp-img05_v1.png-x", "n/.img04_v2.png.notes", ".keep"}
	for _, name := range append(slices.Clone(stale), kept...) {
		os.WriteFile(filepath.Join(out, name), []byte("partial"), 0o644)
	}
	// A crash mid-append leaves a torn line: the rerun must not trust or extend it.
	f, _ := os.OpenFile(filepath.Join(out, JournalName(Shard{})), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"source":"n/img09.png","variant":0,"se`)
	f.Close()

	calls.Store(0)
	rep2, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Reused != len(journal) || rep2.Written != 48-len(journal) {
		t.Errorf("rerun reused %d and wrote %d; want %d and %d", rep2.Reused, rep2.Written, len(journal), 48-len(journal))
	}
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(out, name)); !os.IsNotExist(err) {
			t.Errorf("the rerun left %s (%v)", name, err)
		}
	}
	for _, name := range kept {
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			t.Errorf("the rerun removed %s, which is not its own: %v", name, err)
		}
	}
	if diff := cmp.Diff(readTree(t, clean), readTree(t, out)); diff != "" {
		t.Errorf("clean run vs cancelled and resumed (-clean +resumed):\n%s", diff)
	}

	// A finished run rerun does nothing but check; a damaged output is made again.
	os.WriteFile(filepath.Join(out, "n/img04_v2.png"), []byte("damaged"), 0o644)
	os.Remove(filepath.Join(out, "a/cat_v0.txt"))
	calls.Store(0)
	rep3, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep3.Written != 2 || calls.Load() != 2 {
		t.Errorf("rerun over a finished run with 2 damaged variants wrote %d (%d augment calls), want 2", rep3.Written, calls.Load())
	}
	if diff := cmp.Diff(readTree(t, clean), readTree(t, out)); diff != "" {
		t.Errorf("clean vs repaired (-clean +repaired):\n%s", diff)
	}
}

func TestRunRefusesAnotherRun(t *testing.T) {
	in := mixedInput(t)
	out, _ := run(t, in, Options{Recipe: "r", Seed: 5, Variants: 1, Augment: flipBright})
	for _, o := range []Options{
		{Recipe: "r", Seed: 6, Variants: 1, Augment: flipBright},
		{Recipe: "other", Seed: 5, Variants: 1, Augment: flipBright},
		{Recipe: "r", Seed: 5, Variants: 2, Augment: flipBright},
	} {
		_, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), o)
		if darkroom.Code(err) != darkroom.StateError {
			t.Errorf("rerun with %+v into a run of recipe r seed 5 variants 1: %v, want state_error", o, err)
		}
	}
	for _, tc := range []struct {
		o   Options
		msg string
	}{
		{Options{Variants: 0, Augment: flipBright}, "variants: 0 is below the minimum 1"},
		{Options{Variants: 1}, "no augmentation given"},
		{Options{Variants: 1, Augment: flipBright, Shard: Shard{3, 3}}, "shard: 3/3 is not i/N"},
	} {
		_, err := Run(context.Background(), openDataset(t, in), openRoot(t, t.TempDir()), tc.o)
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Run(%+v) = %v, want invalid_input %q", tc.o, err, tc.msg)
		}
	}
}

func TestShardOf(t *testing.T) {
	// Both hashes are part of the on-disk contract (a rerun of shard i must find the
	// same images, a variant the same seed, on any machine): the values were computed
	// with Python's hashlib from the documented definitions.
	for _, tc := range []struct {
		rel  string
		n    int
		want int
	}{
		{"a/cat.png", 3, 2},
		{"n/img00.png", 3, 2},
		{"photos/2024/IMG_0001.JPG", 16, 2},
	} {
		if got := ShardOf(tc.rel, tc.n); got != tc.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", tc.rel, tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		seed uint64
		rel  string
		v    int
		want uint64
	}{
		{7, "a/cat.png", 0, 4730758048074575},
		{7, "a/cat.png", 1, 3974635652934637},
		{1<<64 - 1, "n/img00.png", 2, 3130332160223518},
	} {
		if got := VariantSeed(tc.seed, tc.rel, tc.v); got != tc.want {
			t.Errorf("VariantSeed(%d, %q, %d) = %d, want %d", tc.seed, tc.rel, tc.v, got, tc.want)
		}
	}
	if _, err := ParseShard("2/3"); err != nil {
		t.Error(err)
	}
	for _, s := range []string{"3/3", "-1/3", "1", "a/b", "0/0"} {
		if _, err := ParseShard(s); darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("ParseShard(%q) = %v, want invalid_input", s, err)
		}
	}
}

// TestRunSurvivesBadAugment: a panicking or misbehaving augmentation costs its image,
// never the run, and one that moves boxes in place cannot shift the next variant's.
func TestRunSurvivesBadAugment(t *testing.T) {
	in := mixedInput(t)
	var mu sync.Mutex
	seen := map[string][]float64{}
	aug := func(ctx context.Context, job Job) (Result, error) {
		switch job.Source {
		case "n/img03.png":
			panic("boom")
		case "n/img04.png":
			return Result{Image: encode(t, "png", testImage(4, 4, 0)), Ext: "/../../x"}, nil
		case "n/img05.png":
			return Result{Image: []byte("not an image")}, nil
		}
		if len(job.Labels.Objects) > 0 {
			mu.Lock()
			seen[job.Source] = append(seen[job.Source], job.Labels.Objects[0].Box[0])
			mu.Unlock()
			job.Labels.Objects[0].Box[0] += 100
		}
		return flipBright(ctx, job)
	}
	_, rep := run(t, in, Options{Seed: 1, Variants: 3, Augment: aug})
	got := map[string]string{}
	for _, s := range rep.Skipped {
		got[s.Source] = s.Code + ": " + s.Message
	}
	for src, want := range map[string]string{
		"n/img03.png": "internal_error: augment variant 0 of n/img03.png: panic: boom",
		"n/img04.png": `internal_error: variant 0 of n/img04.png: the augmentation gave the extension "/../../x"`,
		"n/img05.png": "render_error: variant 0 of n/img05.png is not a readable image: decode: not a JPEG, PNG, TIFF, WebP, GIF or DNG file",
	} {
		if got[src] != want {
			t.Errorf("%s: skipped as %q, want %q", src, got[src], want)
		}
	}
	if rep.Written != 48-9 {
		t.Errorf("wrote %d variants, want the 39 of the images that did not fail", rep.Written)
	}
	for src, xs := range seen {
		for _, x := range xs {
			if x != xs[0] {
				t.Errorf("%s: variants started from boxes at x0 = %v: one variant's change leaked into the next", src, xs)
				break
			}
		}
	}
	if len(seen) < 5 {
		t.Fatalf("only %d labelled images seen", len(seen))
	}
}

// countingFS counts opens per file and refuses the files in deny.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
	deny  map[string]bool
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	if c.deny[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return c.FS.Open(name)
}

// TestOneImagePerWorker: each image is read once for all its variants, workers run
// at once (the first three calls wait for each other, which only three concurrent
// workers can satisfy), and never more images are in flight than workers. An
// unreadable image or label file is skipped with permission_error.
func TestOneImagePerWorker(t *testing.T) {
	in := mixedInput(t)
	cfs := &countingFS{FS: os.DirFS(in), opens: map[string]int{}, deny: map[string]bool{"n/img07.png": true, "n/img08.txt": true}}
	d, err := Open(cfs)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 3
	var most atomic.Int64
	var mu sync.Mutex
	active := map[string]int{} // source -> calls running
	arrived := make(chan struct{}, workers)
	all := make(chan struct{})
	var calls atomic.Int64
	aug := func(ctx context.Context, job Job) (Result, error) {
		mu.Lock()
		active[job.Source]++
		if n := int64(len(active)); n > most.Load() {
			most.Store(n)
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			if active[job.Source]--; active[job.Source] == 0 {
				delete(active, job.Source)
			}
			mu.Unlock()
		}()
		if n := calls.Add(1); n <= workers {
			arrived <- struct{}{}
			if n == workers {
				close(all)
			}
			select {
			case <-all:
			case <-time.After(time.Minute):
				return Result{}, fmt.Errorf("only %d workers ran at once", len(arrived))
			}
		}
		return flipBright(ctx, job)
	}
	rep, err := Run(context.Background(), d, openRoot(t, filepath.Join(t.TempDir(), "out")), Options{Variants: 3, Workers: workers, Augment: aug})
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() > workers {
		t.Errorf("%d images in flight with %d workers", most.Load(), workers)
	}
	for _, s := range rep.Skipped {
		if strings.Contains(s.Message, "workers ran at once") {
			t.Fatal(s.Message)
		}
	}
	for _, img := range d.Images {
		if n := cfs.opens[img]; n > 1 {
			t.Errorf("%s opened %d times for 3 variants, want once", img, n)
		}
	}
	got := map[string]string{}
	for _, s := range rep.Skipped {
		got[s.Source] = s.Code + ": " + s.Message
	}
	for src, want := range map[string]string{
		"n/img07.png": "permission_error: open n/img07.png: open n/img07.png: permission denied",
		"n/img08.png": "permission_error: open n/img08.txt: open n/img08.txt: permission denied",
	} {
		if got[src] != want {
			t.Errorf("%s: skipped as %q, want %q", src, got[src], want)
		}
	}
}

// TestOutputFailureStopsRun: an output that cannot be written is no image's fault and
// would fail again for the next image: the run stops with unavailable, keeps its
// journal, and the rerun finishes it as if nothing had happened.
func TestOutputFailureStopsRun(t *testing.T) {
	in := mixedInput(t)
	opts := Options{Recipe: "r", Seed: 9, Variants: 2, Workers: 2, Augment: flipBright}
	clean, _ := run(t, in, opts)

	out := filepath.Join(t.TempDir(), "out")
	// A folder where a variant's file must go: the rename over it fails.
	if err := os.MkdirAll(filepath.Join(out, "n/img05_v1.png/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts)
	if darkroom.Code(err) != darkroom.Unavailable || !strings.HasPrefix(err.Error(), "write n/img05_v1.png: ") {
		t.Fatalf("Run with an unwritable output: %v, want unavailable naming n/img05_v1.png", err)
	}
	if strings.Contains(err.Error(), out) {
		t.Errorf("the error shows the output's absolute path: %v", err)
	}
	if rep.Written == 0 || rep.Written == 32 || len(rep.Skipped) != 4 {
		t.Errorf("report after the failure: %d written, %d skipped; want some of 32 written and only the 4 bad images skipped", rep.Written, len(rep.Skipped))
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a stopped run wrote the final manifest")
	}
	if err := os.RemoveAll(filepath.Join(out, "n/img05_v1.png")); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTree(t, clean), readTree(t, out)); diff != "" {
		t.Errorf("clean vs stopped and rerun (-clean +rerun):\n%s", diff)
	}
}

// TestYOLOKeypointsThroughRun: YOLO-pose keypoints move with the image and are
// written back with as many numbers each as the input had.
func TestYOLOKeypointsThroughRun(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{
		"pairs.png":   encode(t, "png", testImage(40, 20, 1)),
		"pairs.txt":   []byte("0 0.5 0.5 0.5 0.5 0.25 0.5 0.75 0.25\n"),
		"triples.png": encode(t, "png", testImage(40, 20, 2)),
		"triples.txt": []byte("1 0.5 0.5 0.5 0.5 0.25 0.5 2 0.75 0.25 1\n"),
	})
	out, _ := run(t, dir, Options{Seed: 2, Variants: 2, Augment: flipBright})
	recs := readManifest(t, filepath.Join(out, "manifest.jsonl"))
	for _, r := range recs {
		var p struct {
			Flip bool `json:"flip"`
		}
		json.Unmarshal(r.Params, &p)
		data, _ := os.ReadFile(filepath.Join(out, r.Labels[0].Path))
		want := map[bool]map[string]string{
			false: {"pairs.png": "0 0.500000 0.500000 0.500000 0.500000 0.250000 0.500000 0.750000 0.250000\n",
				"triples.png": "1 0.500000 0.500000 0.500000 0.500000 0.250000 0.500000 2 0.750000 0.250000 1\n"},
			true: {"pairs.png": "0 0.500000 0.500000 0.500000 0.500000 0.750000 0.500000 0.250000 0.250000\n",
				"triples.png": "1 0.500000 0.500000 0.500000 0.500000 0.750000 0.500000 2 0.250000 0.250000 1\n"},
		}[p.Flip][r.Source]
		if string(data) != want {
			t.Errorf("%s (flip %v): %q, want %q", r.Labels[0].Path, p.Flip, data, want)
		}
	}
	if len(recs) != 4 {
		t.Errorf("%d records, want 4", len(recs))
	}
}

// TestRunLocked: a second run of the same shard into the same folder is refused
// while the first holds the journal, and other shards are not held up by it.
func TestRunLocked(t *testing.T) {
	in := mixedInput(t)
	out := filepath.Join(t.TempDir(), "out")
	root := openRoot(t, out)
	held, err := openJournal(root, JournalName(Shard{0, 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	opts := Options{Seed: 1, Variants: 1, Shard: Shard{0, 2}, Augment: flipBright}
	_, err = Run(context.Background(), openDataset(t, in), openRoot(t, out), opts)
	if darkroom.Code(err) != darkroom.StateError || !strings.Contains(err.Error(), "another run is writing this output (manifest.shard-0-of-2.partial.jsonl is locked)") {
		t.Errorf("second run of shard 0/2: %v, want state_error naming the locked journal", err)
	}
	opts.Shard = Shard{1, 2}
	if _, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts); err != nil {
		t.Errorf("shard 1/2 beside a running shard 0/2: %v", err)
	}
	held.Close()
	opts.Shard = Shard{0, 2}
	if _, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts); err != nil {
		t.Errorf("shard 0/2 once the first run let go: %v", err)
	}
}

// TestReusedBuffers: the runner reuses the memory of sources it has finished and of
// variants it has written (Job.Out) for later ones, on every worker at once. A
// variant that is its source's bytes, appended to Job.Out, must come out as exactly
// those bytes: a buffer handed on too early, or to two jobs, would mix images.
func TestReusedBuffers(t *testing.T) {
	in := mixedInput(t)
	copyOut := func(ctx context.Context, job Job) (Result, error) {
		if len(job.Out) != 0 {
			return Result{}, fmt.Errorf("Job.Out has %d bytes; it should be empty", len(job.Out))
		}
		return Result{Image: append(job.Out, job.Image...), Labels: job.Labels}, nil
	}
	out, rep := run(t, in, Options{Seed: 1, Variants: 3, Workers: 4, Augment: copyOut})
	if rep.Written == 0 {
		t.Fatal("nothing written")
	}
	checked := 0
	for _, r := range readManifest(t, filepath.Join(out, "manifest.jsonl")) {
		if r.Error != nil {
			continue // an image the runner could not read: nothing written
		}
		checked++
		src, err := os.ReadFile(filepath.Join(in, filepath.FromSlash(r.Source)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(r.Output)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, src) {
			t.Errorf("%s: %d bytes, not its source's %d", r.Output, len(got), len(src))
		}
	}
	if checked != rep.Written {
		t.Errorf("checked %d variants, the run wrote %d", checked, rep.Written)
	}
}
