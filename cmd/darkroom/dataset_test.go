package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// labelledFolders writes two labelled folders of the test photos: yolo/ (a .txt per
// image and classes.txt) and coco/ (one instances file), each image with two boxes.
func labelledFolders(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	photos := []string{"astronaut.png", "chelsea.png", "coffee.png"}
	for _, sub := range []string{"yolo", "coco"} {
		if err := os.MkdirAll(filepath.Join(dir, sub, "set"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	coco := map[string]any{"categories": []any{map[string]any{"id": 1, "name": "subject"}, map[string]any{"id": 2, "name": "corner"}}}
	var images, anns []any
	for i, p := range photos {
		data, err := os.ReadFile(filepath.Join("..", "..", "internal", "engine", "testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range []string{"yolo", "coco"} {
			if err := os.WriteFile(filepath.Join(dir, sub, "set", p), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stem := strings.TrimSuffix(p, ".png")
		if err := os.WriteFile(filepath.Join(dir, "yolo", "set", stem+".txt"), []byte("0 0.5 0.45 0.4 0.5\n1 0.1 0.1 0.1 0.1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		images = append(images, map[string]any{"id": i + 1, "file_name": "set/" + p, "width": 0, "height": 0})
		anns = append(anns,
			map[string]any{"id": 2*i + 1, "image_id": i + 1, "category_id": 1, "bbox": []any{40, 30, 120, 90}, "area": 10800, "iscrowd": 0},
			map[string]any{"id": 2*i + 2, "image_id": i + 1, "category_id": 2, "bbox": []any{0, 0, 20, 20}, "area": 400, "iscrowd": 0})
	}
	if err := os.WriteFile(filepath.Join(dir, "yolo", "classes.txt"), []byte("subject\ncorner\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	size := map[string][2]int{"astronaut.png": {512, 512}, "chelsea.png": {451, 300}, "coffee.png": {600, 400}}
	for i, p := range photos {
		images[i].(map[string]any)["width"], images[i].(map[string]any)["height"] = size[p][0], size[p][1]
	}
	coco["images"], coco["annotations"] = images, anns
	b, _ := json.Marshal(coco)
	if err := os.WriteFile(filepath.Join(dir, "coco", "instances.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// darkroomCmd runs the test binary as darkroom with args.
func darkroomCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &exec.Cmd{Path: exe, Args: append([]string{"darkroom"}, args...)}
}

func runDarkroom(t *testing.T, args ...string) string {
	t.Helper()
	cmd := darkroomCmd(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("darkroom %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// tree is every file under dir with its sha256, except the shards' own manifests.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "manifest.shard-") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s differs (%q, want %q)", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is extra", what, k)
		}
	}
}

// TestDatasetShardsMatchOneRun runs augment-dataset over a YOLO and a COCO folder of
// the test photos once, and again as three shards in three processes at once, then
// merges them: the files are the same, byte for byte. The labels moved: every
// variant has its label file (YOLO) or its annotations (COCO).
func TestDatasetShardsMatchOneRun(t *testing.T) {
	in := labelledFolders(t)
	for _, format := range []string{"yolo", "coco"} {
		t.Run(format, func(t *testing.T) {
			out := t.TempDir()
			common := []string{"augment-dataset", "--workspace", filepath.Join(out, "ws"), "--allow-root", in,
				"--allow-write-root", out, "--input", filepath.Join(in, format), "--preset", "detection_safe",
				"--variants", "2", "--seed", "11"}
			runDarkroom(t, append(common, "--output", filepath.Join(out, "one"))...)
			var cmds []*exec.Cmd
			var logs []*bytes.Buffer
			for i := range 3 {
				cmd := darkroomCmd(t, append(common, "--output", filepath.Join(out, "three"), "--shard", fmt.Sprintf("%d/3", i))...)
				var b bytes.Buffer
				cmd.Stdout, cmd.Stderr = &b, &b
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, logs = append(cmds, cmd), append(logs, &b)
			}
			for i, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("shard %d: %v\n%s", i, err, logs[i])
				}
			}
			shards, _ := filepath.Glob(filepath.Join(out, "three", "manifest.shard-*"))
			runDarkroom(t, append([]string{"augment-dataset", "merge", filepath.Join(out, "three")}, shards...)...)
			one, three := tree(t, filepath.Join(out, "one")), tree(t, filepath.Join(out, "three"))
			sameTree(t, "three shards merged", three, one)
			variants := 0
			for name := range one {
				if strings.HasSuffix(name, ".png") {
					variants++
					if format == "yolo" {
						if _, ok := one[strings.TrimSuffix(name, ".png")+".txt"]; !ok {
							t.Errorf("%s has no label file", name)
						}
					}
				}
			}
			if variants != 6 {
				t.Errorf("%d variants, want 6 (3 images x 2)", variants)
			}
			if format == "coco" {
				b, err := os.ReadFile(filepath.Join(out, "one", "instances.json"))
				if err != nil {
					t.Fatal(err)
				}
				var c struct{ Images, Annotations []any }
				if err := json.Unmarshal(b, &c); err != nil || len(c.Images) != 6 || len(c.Annotations) < 6 {
					t.Errorf("instances.json: %d images, %d annotations (%v)", len(c.Images), len(c.Annotations), err)
				}
			}
		})
	}
}

// TestDatasetResume kills a run when its journal shows the first variants written,
// reruns it, and gets what a run that was never interrupted writes.
func TestDatasetResume(t *testing.T) {
	in := labelledFolders(t)
	out := t.TempDir()
	args := func(dir string) []string {
		return []string{"augment-dataset", "--workspace", filepath.Join(out, "ws"), "--allow-root", in,
			"--allow-write-root", out, "--input", filepath.Join(in, "yolo"), "--output", filepath.Join(out, dir),
			"--pipeline", `[{"entry": "rotate", "params": {"angle": [-30, 30]}}, {"entry": "gaussian_blur", "p": 0.5}]`,
			"--variants", "6", "--seed", "3"}
	}
	runDarkroom(t, args("clean")...)

	cmd := darkroomCmd(t, args("killed")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(out, "killed", "manifest.partial.jsonl")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if b, err := os.ReadFile(journal); err == nil && bytes.Count(b, []byte("\n")) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no journal lines within 2 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(out, "killed", "manifest.jsonl")); err == nil {
		t.Skip("the run finished before it could be killed")
	}
	report := runDarkroom(t, append(args("killed"), "--json")...)
	var r struct {
		Data struct{ Reused, Written int } `json:"data"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(report)), &r); err != nil {
		t.Fatalf("%s: %v", report, err)
	}
	if r.Data.Reused < 2 || r.Data.Reused+r.Data.Written != 18 {
		t.Errorf("rerun reused %d and wrote %d, want at least 2 reused of 18", r.Data.Reused, r.Data.Written)
	}
	sameTree(t, "killed and resumed", tree(t, filepath.Join(out, "killed")), tree(t, filepath.Join(out, "clean")))
}
