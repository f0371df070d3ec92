package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetLabelsRoundTrip runs augment-dataset with a geometric prompt over an
// Ultralytics-layout folder and over a COCO folder whose annotations carry polygons and
// RLE, through darkroom's own augmentation: every label comes back (labels/<split>/ for
// Ultralytics, data.yaml beside them), the COCO output has a segmentation for every
// segmented source annotation that pycocotools' annToMask reads back with its area and
// bbox, and the ids do not collide with the source's.
func TestDatasetLabelsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	photo := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "internal", "engine", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	files := map[string][]byte{
		"yolo/data.yaml":               []byte("train: images/train\nval: images/val\nnames:\n  0: subject\n  1: corner\n"),
		"yolo/images/train/coffee.png": photo("coffee.png"),
		"yolo/labels/train/coffee.txt": []byte("0 0.5 0.45 0.4 0.5\n1 0.1 0.1 0.1 0.1\n"),
		"yolo/images/val/chelsea.png":  photo("chelsea.png"),
		"yolo/labels/val/chelsea.txt":  []byte("0 0.5 0.5 0.3 0.3\n"),
		"coco/coffee.png":              photo("coffee.png"),
	}
	// coffee.png is 600x400: a polygon, an uncompressed RLE (a 40x30 block at 300,200,
	// column-major runs) and a box alone.
	counts := []int{300*400 + 200}
	for x := 0; x < 40; x++ {
		counts = append(counts, 30)
		if x < 39 {
			counts = append(counts, 370)
		}
	}
	counts = append(counts, 400-230+(600-340)*400)
	rle, _ := json.Marshal(map[string]any{"size": []int{400, 600}, "counts": counts})
	files["coco/instances.json"] = []byte(`{"images": [{"id": 41, "file_name": "coffee.png", "width": 600, "height": 400}],
"annotations": [
 {"id": 900, "image_id": 41, "category_id": 1, "bbox": [100, 80, 200, 150], "area": 22500, "iscrowd": 0, "segmentation": [[100, 80, 300, 80, 300, 230, 100, 230]]},
 {"id": 901, "image_id": 41, "category_id": 1, "bbox": [300, 200, 40, 30], "area": 1200, "iscrowd": 1, "segmentation": ` + string(rle) + `},
 {"id": 902, "image_id": 41, "category_id": 2, "bbox": [10, 10, 20, 20], "area": 400, "iscrowd": 0}],
"categories": [{"id": 1, "name": "subject"}, {"id": 2, "name": "corner"}]}`)
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	for _, format := range []string{"yolo", "coco"} {
		runDarkroom(t, "augment-dataset", "--workspace", filepath.Join(out, "ws"), "--allow-root", dir, "--allow-write-root", out,
			"--input", filepath.Join(dir, format), "--output", filepath.Join(out, format),
			"--prompt", "flip horizontally, rotate between 5 and 10 degrees", "--variants", "2", "--seed", "3")
	}

	for _, name := range []string{"labels/train/coffee_v0.txt", "labels/train/coffee_v1.txt", "labels/val/chelsea_v0.txt", "labels/val/chelsea_v1.txt"} {
		b, err := os.ReadFile(filepath.Join(out, "yolo", name))
		if err != nil {
			t.Errorf("Ultralytics labels: %v", err)
			continue
		}
		src := files["yolo/"+strings.Replace(strings.Replace(name, "_v0", "", 1), "_v1", "", 1)]
		if got, want := strings.Count(string(b), "\n"), strings.Count(string(src), "\n"); got != want {
			t.Errorf("%s has %d labels, its source %d", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "yolo", "data.yaml")); err != nil {
		t.Errorf("data.yaml: %v", err)
	}

	var coco struct {
		Annotations []struct {
			SourceID     int             `json:"source_id"`
			Segmentation json.RawMessage `json:"segmentation"`
		} `json:"annotations"`
	}
	outCOCO := filepath.Join(out, "coco", "instances.json")
	b, err := os.ReadFile(outCOCO)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &coco); err != nil {
		t.Fatal(err)
	}
	segmented := 0
	for _, a := range coco.Annotations {
		if len(a.Segmentation) > 0 {
			segmented++
		}
	}
	if len(coco.Annotations) != 6 || segmented != 4 {
		t.Errorf("%d annotations, %d with a segmentation; want 6 and 4 (3 sources x 2 variants, 2 segmented):\n%s", len(coco.Annotations), segmented, b)
	}

	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import numpy").Run() == nil {
			py = path
			break
		}
	}
	if py == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI needs python3 with numpy (apt-get install python3-numpy)")
		}
		t.Skip("no python3 with numpy for the annToMask check")
	}
	cmd := exec.Command(py, filepath.Join("..", "..", "internal", "dataset", "testdata", "anntomask.py"), outCOCO, filepath.Join(dir, "coco", "instances.json"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("anntomask.py: %v\n%s", err, stderr.String())
	}
	var report struct {
		Annotations, Segmentations int
		Errors                     []string
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil || report.Segmentations != 4 || len(report.Errors) != 0 {
		t.Errorf("annToMask check: %s %v", stdout.String(), err)
	}
}
