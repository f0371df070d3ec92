package augmentation

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
)

// The dataset's AugmentFunc moves a COCO image's instance map (its objects'
// segmentation) through the pipeline as it moves a label mask: flipped with the
// pixels, every 16-bit instance value kept.
func TestDatasetAugmentMovesInstances(t *testing.T) {
	s := testEditor(t)
	const w, h = 24, 16
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	inst := image.NewGray16(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(10 * x), uint8(10 * y), 90, 255})
			switch {
			case x < 6 && y < 8:
				inst.SetGray16(x, y, color.Gray16{Y: 1})
			case x >= 10 && x < 14:
				inst.SetGray16(x, y, color.Gray16{Y: 300})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := augment.Pipeline{{Entry: "flip_horizontal", P: 1, Params: map[string]augment.Value{}}}
	f := datasetAugment(s.Augmenter(), p, nil, "png", false)
	res, err := f(context.Background(), dataset.Job{Source: "a.png", Seed: 1, Image: buf.Bytes(), Labels: dataset.Labels{
		Format: dataset.FormatCOCO, Width: w, Height: h, Instances: inst,
		Objects: []dataset.Object{{Class: 1, Box: [4]float64{0, 0, 6, 8}, Instance: 1}, {Class: 1, Box: [4]float64{10, 0, 14, 16}, Instance: 300}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Labels.Mask != nil || res.Labels.Instances == nil {
		t.Fatalf("the instance map came back as Mask %v, Instances %v", res.Labels.Mask != nil, res.Labels.Instances != nil)
	}
	got := res.Labels.Instances
	for y := range h {
		for x := range w {
			want := inst.Gray16At(w-1-x, y).Y
			if g := color.Gray16Model.Convert(got.At(x, y)).(color.Gray16).Y; g != want {
				t.Fatalf("instance at (%d, %d) = %d, want %d (the source's at the mirrored pixel)", x, y, g, want)
			}
		}
	}
	if len(res.Labels.Objects) != 2 || res.Labels.Objects[1].Instance != 300 {
		t.Errorf("objects lost their instance values: %+v", res.Labels.Objects)
	}
}
