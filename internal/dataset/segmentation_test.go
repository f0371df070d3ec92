package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// rleString is pycocotools' rleToString (maskApi.c): the compressed counts.
func rleString(cnts []int) string {
	var b []byte
	for i, x := range cnts {
		if i > 2 {
			x -= cnts[i-2]
		}
		for more := true; more; {
			c := x & 0x1f
			x >>= 5
			if c&0x10 != 0 {
				more = x != -1
			} else {
				more = x != 0
			}
			if more {
				c |= 0x20
			}
			b = append(b, byte(c+48))
		}
	}
	return string(b)
}

// columnRLE encodes a w x h 0/1 mask (row-major) as column-major runs.
func columnRLE(m []uint16, w, h int) []int {
	out := []int{}
	cur, run := uint16(0), 0
	for x := range w {
		for y := range h {
			if v := m[y*w+x]; v != cur {
				out = append(out, run)
				cur, run = v, 0
			}
			run++
		}
	}
	return append(out, run)
}

// segMask is a segmentation painted on its own, 1 where it is.
func segMask(t *testing.T, raw string, w, h int) []uint16 {
	t.Helper()
	s, err := parseSegmentation(json.RawMessage(raw))
	if err != nil || s == nil {
		t.Fatalf("parseSegmentation(%s): %v", raw, err)
	}
	m := make([]uint16, w*h)
	if err := s.paint(m, w, h, 1); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCOCOSegmentationRoundTrip: polygons, uncompressed RLE and pycocotools'
// compressed RLE move with the image (flipped where it is), come out as RLE whose
// area and bbox are the pixels still showing the object, with new ids above the
// input's and each annotation naming its source; pycocotools' annToMask semantics
// (testdata/anntomask.py, with numpy) read every one back.
func TestCOCOSegmentationRoundTrip(t *testing.T) {
	blob := make([]uint16, 40*30)
	for y := 18; y < 26; y++ {
		for x := 25; x < 35; x++ {
			blob[y*40+x] = 1
		}
	}
	tri := make([]uint16, 32*24)
	for y := 2; y < 20; y++ {
		for x := 3; x < 3+y; x++ {
			tri[y*32+x] = 1
		}
	}
	segs := map[int]string{
		500: `[[5, 5, 20, 5, 20, 15, 5, 15]]`,
		501: fmt.Sprintf(`{"size": [30, 40], "counts": %s}`, mustJSON(t, columnRLE(blob, 40, 30))),
		502: fmt.Sprintf(`{"size": [24, 32], "counts": %q}`, rleString(columnRLE(tri, 32, 24))),
	}
	files := map[string][]byte{
		"a.png": encode(t, "png", testImage(40, 30, 1)),
		"b.png": encode(t, "png", testImage(32, 24, 2)),
		"annotations.json": []byte(`{"images": [{"id": 7, "file_name": "a.png", "width": 40, "height": 30}, {"id": 9, "file_name": "b.png", "width": 32, "height": 24}],
"annotations": [
 {"id": 500, "image_id": 7, "category_id": 1, "bbox": [5, 5, 15, 10], "area": 150, "iscrowd": 0, "segmentation": ` + segs[500] + `},
 {"id": 501, "image_id": 7, "category_id": 1, "bbox": [25, 18, 10, 8], "area": 80, "iscrowd": 1, "segmentation": ` + segs[501] + `},
 {"id": 502, "image_id": 9, "category_id": 1, "bbox": [3, 2, 20, 18], "area": 189, "iscrowd": 1, "segmentation": ` + segs[502] + `},
 {"id": 503, "image_id": 9, "category_id": 1, "bbox": [1, 1, 4, 4], "area": 16, "iscrowd": 0}],
"categories": [{"id": 1, "name": "thing"}]}`),
	}
	in := t.TempDir()
	writeTree(t, in, files)
	out, rep := run(t, in, Options{Seed: 3, Variants: 2, Augment: flipBright})
	if len(rep.Skipped) != 0 {
		t.Fatalf("skipped: %+v", rep.Skipped)
	}
	flips := map[string]bool{}
	for _, rec := range readManifest(t, filepath.Join(out, "manifest.jsonl")) {
		var p struct{ Flip bool }
		json.Unmarshal(rec.Params, &p)
		flips[rec.Output] = p.Flip
	}
	data, err := os.ReadFile(filepath.Join(out, "annotations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var coco struct {
		Images []struct {
			ID       int    `json:"id"`
			FileName string `json:"file_name"`
			Width    int    `json:"width"`
			Height   int    `json:"height"`
			SourceID int    `json:"source_id"`
		} `json:"images"`
		Annotations []struct {
			ID           int       `json:"id"`
			ImageID      int       `json:"image_id"`
			SourceID     int       `json:"source_id"`
			Area         float64   `json:"area"`
			BBox         []float64 `json:"bbox"`
			Segmentation *cocoRLE  `json:"segmentation"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(data, &coco); err != nil {
		t.Fatal(err)
	}
	if len(coco.Images) != 4 || len(coco.Annotations) != 8 {
		t.Fatalf("%d images and %d annotations, want 4 and 8 (2 variants of 2 images, every annotation):\n%s", len(coco.Images), len(coco.Annotations), data)
	}
	type img struct {
		name     string
		w, h     int
		sourceID int
	}
	images := map[int]img{}
	for _, im := range coco.Images {
		if im.ID <= 9 {
			t.Errorf("image %s has id %d, not above the input's largest (9)", im.FileName, im.ID)
		}
		images[im.ID] = img{im.FileName, im.Width, im.Height, im.SourceID}
	}
	sizes := map[int][2]int{500: {40, 30}, 501: {40, 30}, 502: {32, 24}}
	segmented := 0
	for _, a := range coco.Annotations {
		if a.ID <= 503 || a.SourceID < 500 || a.SourceID > 503 {
			t.Errorf("annotation %d from %d: want a new id above 503 and its source's id", a.ID, a.SourceID)
		}
		raw, has := segs[a.SourceID]
		if !has {
			if a.Segmentation != nil {
				t.Errorf("annotation %d: a segmentation from nowhere", a.ID)
			}
			continue
		}
		segmented++
		im := images[a.ImageID]
		wh := sizes[a.SourceID]
		if a.Segmentation == nil || a.Segmentation.Size != [2]int{im.h, im.w} {
			t.Errorf("annotation %d (%s): segmentation %+v, want an RLE of %dx%d", a.ID, im.name, a.Segmentation, im.w, im.h)
			continue
		}
		want := segMask(t, raw, wh[0], wh[1])
		if flips[im.name] {
			for y := range wh[1] {
				for x := range wh[0] / 2 {
					i, j := y*wh[0]+x, y*wh[0]+wh[0]-1-x
					want[i], want[j] = want[j], want[i]
				}
			}
		}
		wantRLE := columnRLE(want, wh[0], wh[1])
		if fmt.Sprint(wantRLE) != fmt.Sprint(a.Segmentation.Counts) {
			t.Errorf("annotation %d (%s, flip %v): counts %v, want %v", a.ID, im.name, flips[im.name], a.Segmentation.Counts, wantRLE)
		}
		n := 0
		for _, v := range want {
			n += int(v)
		}
		if a.Area != float64(n) {
			t.Errorf("annotation %d: area %v, want the %d pixels", a.ID, a.Area, n)
		}
	}
	nflip := 0
	for _, f := range flips {
		if f {
			nflip++
		}
	}
	if nflip == 0 || nflip == len(flips) {
		t.Errorf("%d of %d variants flipped: the seed must give both, or the test proves little", nflip, len(flips))
	}
	if segmented != 6 {
		t.Errorf("%d annotations with a segmentation, want 6", segmented)
	}

	py := pythonWith(t, "numpy", "apt-get install python3-numpy")
	cmd := exec.Command(py, "testdata/anntomask.py", filepath.Join(out, "annotations.json"), filepath.Join(in, "annotations.json"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("anntomask.py: %v\n%s", err, stderr.String())
	}
	var report struct {
		Annotations, Segmentations int
		Errors                     []string
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("anntomask.py: %v: %s", err, stdout.String())
	}
	if report.Annotations != 8 || report.Segmentations != 6 || len(report.Errors) != 0 {
		t.Errorf("annToMask check: %+v", report)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pythonWith returns a Python 3 that imports mods, or skips (fails when CI=true). The
// system interpreter comes first: python3 on PATH may be a version manager's shim
// without Debian's packages.
func pythonWith(t *testing.T, mods, install string) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import "+mods).Run() == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI needs python3 with %s: %s", mods, install)
	}
	t.Skipf("no python3 with %s (%s)", mods, install)
	return ""
}
