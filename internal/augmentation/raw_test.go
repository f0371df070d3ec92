package augmentation

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/raw"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// rawDNG synthesizes a DNG the way internal/raw's tests do (raw.Synth): a
// 140 x 100 stored image (a 160 x 120 mosaic less an 8-pixel masked margin and a
// DefaultCrop), Orientation 6, so the developed image is 100 x 140 upright and
// neither the stored raw's size, IFD0's nor the crop's unrotated size.
func rawDNG(t *testing.T) []byte {
	t.Helper()
	const w, h = 160, 120
	pix := make([]float32, 3*w*h)
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			pix[i], pix[i+1], pix[i+2] = 0.05+0.5*float32(x)/w, 0.2, 0.05+0.5*float32(y)/h
		}
	}
	s := raw.Synth{
		CFA:         [4]uint8{0, 1, 1, 2},
		ColorMatrix: []float64{0.6444, -0.0904, -0.0893, -0.4563, 1.2308, 0.2535, -0.0903, 0.2016, 0.6728},
		Neutral:     [3]float64{0.4732, 1, 0.6385},
		Black:       []float64{512}, White: 15000,
		LJ92: true, Tile: 64, Margin: 8, Crop: [4]int{6, 4, 140, 100}, Orientation: 6,
		Make: "Darkroom", Model: "Synth",
	}
	b, err := s.Encode(pix, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const rawW, rawH = 100, 140 // rawDNG's developed size, upright

func pngSize(t *testing.T, b []byte) (int, int) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Width, cfg.Height
}

// augment_image reads a DNG given by path and an ingested DNG given by image_id:
// the variants are the developed image's size and a box moves with a flip as it
// does on any photo.
func TestAugmentImageDNG(t *testing.T) {
	s := augmentEditor(t)
	dir := t.TempDir()
	ws, err := workspace.Open(filepath.Join(dir, "ws"), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Workspace = ws
	file := filepath.Join(dir, "photo.dng")
	if err := os.WriteFile(file, rawDNG(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ing, err := s.Ingest(edit.IngestRequest{Path: file})
	if err != nil {
		t.Fatal(err)
	}
	if ing.Width != rawW || ing.Height != rawH {
		t.Fatalf("ingest says %dx%d, want %dx%d", ing.Width, ing.Height, rawW, rawH)
	}
	seed := uint64(3)
	for _, req := range []AugmentRequest{{Path: file}, {ImageID: ing.ImageID}} {
		req.Pipeline, req.Seed, req.Count, req.Format = flipPipeline, &seed, 1, "png"
		req.InlineVariants, req.InlineBytes = 1, 1<<20
		req.Annotations = &augment.Annotations{Boxes: &augment.Boxes{Format: "pascal_voc", Boxes: [][4]float64{{10, 20, 30, 50}}, Labels: []any{"cup"}}}
		out, err := s.Augment(context.Background(), req)
		if err != nil {
			t.Fatalf("path %t image_id %q: %v", req.Path != "", req.ImageID, err)
		}
		v := out.Variants[0]
		if w, h := pngSize(t, v.Bytes); w != rawW || h != rawH || out.Width != rawW || out.Height != rawH {
			t.Errorf("variant is %dx%d (result says %dx%d), want the developed %dx%d", w, h, out.Width, out.Height, rawW, rawH)
		}
		if got := v.Annotations.Boxes.Boxes; len(got) != 1 || got[0] != [4]float64{70, 20, 90, 50} {
			t.Errorf("flipped box %v, want [70 20 90 50]", got)
		}
	}
}

// A file in no format darkroom reads is refused with render_error, naming the
// formats it reads, DNG among them.
func TestAugmentImageUnsupportedNamesFormats(t *testing.T) {
	s := augmentEditor(t)
	seed := uint64(1)
	_, err := s.Augment(context.Background(), AugmentRequest{Data: []byte("BM not a bitmap really"), Pipeline: flipPipeline, Seed: &seed, Count: 1, Format: "png"})
	if darkroom.Code(err) != darkroom.RenderError || !strings.Contains(err.Error(), "GIF or DNG") {
		t.Errorf("got %v, want render_error naming the formats read, DNG included", err)
	}
}

// augment_dataset on a folder of DNGs with YOLO labels: the labels refer to the
// developed image (DefaultCrop and Orientation applied), so a flip mirrors a box's
// centre, and each variant is written at the developed size.
func TestAugmentDatasetDNG(t *testing.T) {
	s := augmentEditor(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(filepath.Join(dir, "ws"), []string{in})
	if err != nil {
		t.Fatal(err)
	}
	s.Workspace = ws
	b := rawDNG(t)
	labels := map[string][4]float64{"a": {0.25, 0.3, 0.1, 0.2}, "b": {0.6, 0.8, 0.2, 0.1}}
	for stem, l := range labels {
		if err := os.WriteFile(filepath.Join(in, stem+".dng"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, stem+".txt"), fmt.Appendf(nil, "0 %g %g %g %g\n", l[0], l[1], l[2], l[3]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.AugmentDataset(context.Background(), DatasetRequest{Input: in, Output: "dng-aug", Pipeline: flipPipeline, Variants: 1, Seed: 1, Format: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Written != 2 || len(res.Report.Skipped) != 0 {
		t.Fatalf("written %d, skipped %+v; want both DNGs written", res.Report.Written, res.Report.Skipped)
	}
	outDir := filepath.Join(dir, "ws", filepath.FromSlash(res.Output))
	for stem, l := range labels {
		img, err := os.ReadFile(filepath.Join(outDir, stem+"_v0.png"))
		if err != nil {
			t.Fatal(err)
		}
		if w, h := pngSize(t, img); w != rawW || h != rawH {
			t.Errorf("%s: variant is %dx%d, want the developed %dx%d", stem, w, h, rawW, rawH)
		}
		txt, err := os.ReadFile(filepath.Join(outDir, stem+"_v0.txt"))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(txt))
		if len(f) != 5 {
			t.Fatalf("%s: labels %q", stem, txt)
		}
		want := [4]float64{1 - l[0], l[1], l[2], l[3]}
		for i := range 4 {
			got, _ := strconv.ParseFloat(f[i+1], 64)
			if math.Abs(got-want[i]) > 1e-5 {
				t.Errorf("%s: flipped label %q, want %v", stem, txt, want)
				break
			}
		}
	}
}
