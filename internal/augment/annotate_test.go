package augment

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// geoSteps are non-neutral values for every geometry entry of the vocabulary
// (TestGeoStepsCoverVocabulary keeps the list complete).
var geoSteps = []Step{
	{Entry: "crop", Params: map[string]Value{"left": Fixed(0.1), "top": Fixed(0.15), "right": Fixed(0.05)}},
	{Entry: "rotate", Params: map[string]Value{"angle": Fixed(30)}},
	{Entry: "rotate", Params: map[string]Value{"angle": Fixed(-90)}},
	{Entry: "straighten", Params: map[string]Value{"angle": Fixed(-12)}},
	{Entry: "flip_horizontal"},
	{Entry: "flip_vertical"},
	{Entry: "random_crop", Params: map[string]Value{"scale": Fixed(0.6)}},
	{Entry: "random_resized_crop", Params: map[string]Value{"scale": Fixed(0.5)}},
	{Entry: "random_crop", Params: map[string]Value{"width": Fixed(0.55), "height": Fixed(0.8)}},
	{Entry: "random_resized_crop", Params: map[string]Value{"scale": Fixed(0.5), "width": Fixed(0.7), "height": Fixed(1.3)}},
	{Entry: "random_sized_crop", Params: map[string]Value{"crop_height": Value{0.5, 0.8}, "w2h_ratio": Fixed(1.2), "width": Fixed(0.6), "height": Fixed(0.9)}},
	{Entry: "resize", Params: map[string]Value{"width": Fixed(0.62), "height": Fixed(1.45)}},
	{Entry: "pad_constant", Params: map[string]Value{"width": Fixed(1), "height": Fixed(1.2), "fill": Fixed(0.45)}},
	{Entry: "random_scale", Params: map[string]Value{"factor": Fixed(1.4)}},
	{Entry: "random_scale", Params: map[string]Value{"factor": Fixed(0.6)}},
	{Entry: "resize_max_size", Params: map[string]Value{"factor": Fixed(0.4989)}},
	{Entry: "center_crop", Params: map[string]Value{"width": Fixed(0.8), "height": Fixed(0.7)}},
	{Entry: "random_crop_from_borders", Params: map[string]Value{"limit": Fixed(0.25)}},
	{Entry: "pad_if_needed", Params: map[string]Value{"width": Fixed(1.3), "height": Fixed(1)}},
	{Entry: "crop_and_pad", Params: map[string]Value{"percent": Fixed(0.1)}},
	{Entry: "crop_and_pad", Params: map[string]Value{"percent": Fixed(-0.12)}},
	{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(1)}},
	{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(3)}},
	{Entry: "transpose"},
	{Entry: "transverse"},
	{Entry: "affine", Params: map[string]Value{"scale": Fixed(1.1), "angle": Fixed(20), "shear_x": Fixed(10), "shear_y": Fixed(-6), "translate_x": Fixed(0.05), "translate_y": Fixed(-0.04)}},
	{Entry: "shift_scale_rotate", Params: map[string]Value{"shift_x": Fixed(0.05), "shift_y": Fixed(0.03), "scale": Fixed(0.9), "angle": Fixed(-25)}},
	{Entry: "perspective", Params: map[string]Value{"scale": Fixed(0.1)}},
	{Entry: "elastic_transform", Params: map[string]Value{"alpha": Fixed(0.03), "sigma": Fixed(0.1)}},
	{Entry: "grid_distortion", Params: map[string]Value{"distort": Fixed(0.3), "steps": Fixed(4)}},
	{Entry: "optical_distortion", Params: map[string]Value{"k": Fixed(0.3)}},
	{Entry: "optical_distortion", Params: map[string]Value{"k": Fixed(-0.3)}},
	{Entry: "random_grid_shuffle", Params: map[string]Value{"cells": Fixed(3)}},
	{Entry: "safe_rotate", Params: map[string]Value{"angle": Fixed(12)}}, // small: the mirrored border shows no copy of the rectangle
	{Entry: "safe_rotate_constant", Params: map[string]Value{"angle": Fixed(-120)}},
}

func TestGeoStepsCoverVocabulary(t *testing.T) {
	have := map[string]bool{}
	for _, s := range geoSteps {
		have[s.Entry] = true
	}
	n := 0
	for _, e := range augmenter(t).Vocab.Entries {
		if e.Category == "geometry" {
			n++
			if !have[e.Name] {
				t.Errorf("geometry entry %s has no case in geoSteps", e.Name)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d geometry entries in the vocabulary", n)
	}
}

const rw, rh = 97, 71

// rect is the drawn rectangle, in pixels [x0, x1) x [y0, y1).
var rect = [4]float64{30, 22, 55, 41}

// rectImage is black with a white rectangle.
func rectImage() *engine.Image {
	m := engine.NewImage(rw, rh)
	for y := int(rect[1]); y < int(rect[3]); y++ {
		for x := int(rect[0]); x < int(rect[2]); x++ {
			i := 3 * (y*rw + x)
			m.Pix[i], m.Pix[i+1], m.Pix[i+2] = 1, 1, 1
		}
	}
	return m
}

// rampImage shows each pixel's centre: red x/w, green y/h (resampling a linear ramp
// returns the position it sampled).
func rampImage() *engine.Image {
	m := engine.NewImage(rw, rh)
	for y := range rh {
		for x := range rw {
			i := 3 * (y*rw + x)
			m.Pix[i] = float32((float64(x) + 0.5) / rw)
			m.Pix[i+1] = float32((float64(y) + 0.5) / rh)
			m.Pix[i+2] = 1 // below 1 after a render where a black border was sampled
		}
	}
	return m
}

// labelMask gives every 6x6 block of pixels its own label, 1..250.
func labelMask() *Mask {
	m := &Mask{W: rw, H: rh, Labels: make([]uint16, rw*rh)}
	for y := range rh {
		for x := range rw {
			m.Labels[y*rw+x] = uint16((x/6+y/6*17)%250 + 1)
		}
	}
	return m
}

func variant(t *testing.T, src *engine.Image, p Pipeline, seed uint64, ann *Annotations) *Variant {
	t.Helper()
	v, err := augmenter(t).Variant(src, p, seed, 0, ann)
	if err != nil {
		t.Fatalf("variant: %v", err)
	}
	if len(v.Skipped) > 0 {
		t.Fatalf("skipped: %+v", v.Skipped)
	}
	return v
}

// TestBoxSurroundsRectangle draws a rectangle, puts a box around it, and after every
// geometry entry (with two seeds) finds the rectangle's pixels in the render (more
// than 0.6 white): the box must still surround their centres, and hug them (within 3
// pixels on each side); a keypoint at the rectangle's centre must still lie on it.
// (Pixels across the rectangle's edge are partly white; a pixel belongs to the box
// when its centre does.)
func TestBoxSurroundsRectangle(t *testing.T) {
	src := rectImage()
	for _, seed := range []uint64{1, 2} {
		for _, s := range geoSteps {
			s.P = 1
			name := fmt.Sprintf("seed %d, %s %v", seed, s.Entry, s.Params)
			ann := &Annotations{
				Boxes:     &Boxes{Format: "pascal_voc", Boxes: [][4]float64{rect}, Labels: []any{"rect"}},
				Keypoints: &Keypoints{Points: [][2]float64{{(rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2}}},
			}
			v := variant(t, src, Pipeline{s}, seed, ann)
			if len(v.Dropped) > 0 {
				t.Errorf("%s: dropped %+v", name, v.Dropped)
				continue
			}
			img := v.Image
			found := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			for y := range img.H {
				for x := range img.W {
					if img.Pix[3*(y*img.W+x)] > 0.6 {
						cx, cy := float64(x)+0.5, float64(y)+0.5
						found = [4]float64{min(found[0], cx), min(found[1], cy), max(found[2], cx), max(found[3], cy)}
					}
				}
			}
			if found[2] < found[0] {
				t.Fatalf("%s: the rectangle is gone from the render", name)
			}
			box := v.Annotations.Boxes.Boxes[0]
			if box[0] > found[0] || box[1] > found[1] || box[2] < found[2] || box[3] < found[3] {
				t.Errorf("%s: box %v does not surround the rectangle's pixels %v", name, box, found)
			}
			for i := range 4 {
				if math.Abs(box[i]-found[i]) > 3 {
					t.Errorf("%s: box %v is loose around the rectangle's pixels %v", name, box, found)
					break
				}
			}
			if got := v.Annotations.Boxes.Labels; len(got) != 1 || got[0] != "rect" {
				t.Errorf("%s: labels %v", name, got)
			}
			kp := v.Annotations.Keypoints.Points[0]
			x, y := int(kp[0]), int(kp[1])
			if x < 0 || y < 0 || x >= img.W || y >= img.H || img.Pix[3*(y*img.W+x)] < 0.5 {
				t.Errorf("%s: the centre keypoint went to %v, off the rectangle", name, kp)
			}
		}
	}
}

// TestMaskFollowsPixels moves a label mask through every geometry entry and compares
// it with what nearest-neighbour sampling gives where the pixels sampled: a coordinate
// ramp rendered through the same step with the same seed says, at each output pixel,
// which source position it shows; the mask must hold that position's label.
func TestMaskFollowsPixels(t *testing.T) {
	mask := labelMask()
	for _, s := range geoSteps {
		s.P = 1
		v := variant(t, rectImage(), Pipeline{s}, 3, &Annotations{Mask: mask})
		ramp := variant(t, rampImage(), Pipeline{s}, 3, nil).Image
		got := v.Annotations.Mask
		if got.W != ramp.W || got.H != ramp.H {
			t.Fatalf("%s: mask %dx%d, image %dx%d", s.Entry, got.W, got.H, ramp.W, ramp.H)
		}
		checked, bad := 0, 0
		// Stay clear of where the resampling filters meet an edge (the frame's, the
		// source's, a crop's) and of positions on a pixel boundary.
		const edge, margin = 10, 3.0
		for y := edge; y < got.H-edge; y++ {
			for x := edge; x < got.W-edge; x++ {
				i := 3 * (y*ramp.W + x)
				sx, sy := float64(ramp.Pix[i])*rw, float64(ramp.Pix[i+1])*rh
				fx, fy := sx-math.Floor(sx), sy-math.Floor(sy)
				if ramp.Pix[i+2] < 0.9999 || sx < margin || sy < margin || sx > rw-margin || sy > rh-margin || fx < 0.05 || fx > 0.95 || fy < 0.05 || fy > 0.95 {
					continue
				}
				if s.Entry == "random_grid_shuffle" && (x%(rw/3) < 3 || y%(rh/3) < 3 || x%(rw/3) > rw/3-3 || y%(rh/3) > rh/3-3) {
					continue // near a cell seam the pixels are exact but the ramp check above is not needed
				}
				checked++
				want := mask.Labels[int(sy)*rw+int(sx)]
				if l := got.Labels[y*got.W+x]; l != want {
					if bad++; bad <= 3 {
						t.Errorf("%s: mask (%d, %d) is %d; the pixels sample source (%.2f, %.2f), label %d", s.Entry, x, y, l, sx, sy, want)
					}
				}
			}
		}
		if checked < got.W*got.H/5 {
			t.Errorf("%s: only %d of %d mask pixels checked", s.Entry, checked, got.W*got.H)
		}
	}
}

// TestFlipTwiceSameBoxes: flipping twice (and four quarter turns, and transposing
// twice) returns every box exactly, in every format.
func TestFlipTwiceSameBoxes(t *testing.T) {
	boxes := map[string][][4]float64{
		"pascal_voc":     {{3, 4, 50, 30.5}, {0, 0, 97, 71}},
		"coco":           {{3, 4, 47, 26.5}, {60, 10, 12.25, 40}},
		"yolo":           {{0.5, 0.5, 0.25, 0.5}, {0.2, 0.7, 0.1, 0.2}},
		"albumentations": {{0.1, 0.2, 0.3, 0.4}, {0, 0, 1, 1}},
	}
	twice := func(s Step, n int) Pipeline {
		var p Pipeline
		for range n {
			p = append(p, s)
		}
		return p
	}
	for _, p := range []Pipeline{
		twice(Step{Entry: "flip_horizontal", P: 1}, 2),
		twice(Step{Entry: "flip_vertical", P: 1}, 2),
		twice(Step{Entry: "transpose", P: 1}, 2),
		twice(Step{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(1)}, P: 1}, 4),
	} {
		for format, bs := range boxes {
			v := variant(t, testImage(rw, rh), p, 1, &Annotations{Boxes: &Boxes{Format: format, Boxes: bs}})
			if diff := cmp.Diff(bs, v.Annotations.Boxes.Boxes, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
				t.Errorf("%d x %s, %s (-before +after):\n%s", len(p), p[0].Entry, format, diff)
			}
		}
	}
	// One flip does move them (or the test above proves nothing).
	v := variant(t, testImage(rw, rh), Pipeline{{Entry: "flip_horizontal", P: 1}}, 1, &Annotations{Boxes: &Boxes{Format: "pascal_voc", Boxes: [][4]float64{{3, 4, 50, 30}}}})
	if diff := cmp.Diff([][4]float64{{47, 4, 94, 30}}, v.Annotations.Boxes.Boxes); diff != "" {
		t.Errorf("one horizontal flip (-want +got):\n%s", diff)
	}
}

// TestKeypointsFollowRotate90 marks single pixels with distinct values and puts a
// keypoint at each centre: after every quarter turn and transpose, each keypoint is
// exactly the centre of the pixel holding its value.
func TestKeypointsFollowRotate90(t *testing.T) {
	pts := [][2]float64{{0.5, 0.5}, {96.5, 0.5}, {10.5, 60.5}, {40.5, 33.5}, {96.5, 70.5}}
	src := engine.NewImage(rw, rh)
	for k, p := range pts {
		i := 3 * (int(p[1])*rw + int(p[0]))
		src.Pix[i] = float32(k+1) / 8
	}
	for _, s := range []Step{
		{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(1)}},
		{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(2)}},
		{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(3)}},
		{Entry: "rotate", Params: map[string]Value{"angle": Fixed(90)}},
		{Entry: "rotate", Params: map[string]Value{"angle": Fixed(-90)}},
		{Entry: "transpose"},
		{Entry: "transverse"},
	} {
		s.P = 1
		v := variant(t, src, Pipeline{s}, 1, &Annotations{Keypoints: &Keypoints{Points: pts, Labels: []any{0, 1, 2, 3, 4}}})
		got := v.Annotations.Keypoints.Points
		if len(got) != len(pts) {
			t.Fatalf("%s %v: %d keypoints of %d (dropped %+v)", s.Entry, s.Params, len(got), len(pts), v.Dropped)
		}
		img := v.Image
		for y := range img.H {
			for x := range img.W {
				val := img.Pix[3*(y*img.W+x)]
				if val == 0 {
					continue
				}
				k := int(math.Round(float64(val)*8)) - 1
				if want := [2]float64{float64(x) + 0.5, float64(y) + 0.5}; got[k] != want {
					t.Errorf("%s %v: keypoint %d is at %v, its pixel at %v", s.Entry, s.Params, k, got[k], want)
				}
			}
		}
	}
}

// TestBoxFormats: the four formats describe the same boxes and come back in their
// own format; a step that moves nothing leaves them exactly.
func TestBoxFormats(t *testing.T) {
	px := [4]float64{10, 20, 40, 50}
	same := map[string][4]float64{
		"pascal_voc":     px,
		"coco":           {10, 20, 30, 30},
		"yolo":           {25.0 / rw, 35.0 / rh, 30.0 / rw, 30.0 / rh},
		"albumentations": {10.0 / rw, 20.0 / rh, 40.0 / rw, 50.0 / rh},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	var turned [4]float64
	for format, b := range same {
		v := variant(t, testImage(rw, rh), Pipeline{{Entry: "brightness_contrast", Params: map[string]Value{"brightness": Fixed(0.3)}, P: 1}}, 1, &Annotations{Boxes: &Boxes{Format: format, Boxes: [][4]float64{b}}})
		if diff := cmp.Diff([][4]float64{b}, v.Annotations.Boxes.Boxes, approx); diff != "" {
			t.Errorf("%s through a tone step (-want +got):\n%s", format, diff)
		}
		v = variant(t, testImage(rw, rh), Pipeline{{Entry: "random_rotate_90", Params: map[string]Value{"turns": Fixed(1)}, P: 1}}, 1, &Annotations{Boxes: &Boxes{Format: format, Boxes: [][4]float64{b}}})
		got := toPixels(format, v.Annotations.Boxes.Boxes[0], v.OutW, v.OutH)
		if format == "pascal_voc" {
			turned = got
		}
		// A quarter turn clockwise of a 97x71 image: x' = 71 - y, y' = x.
		if diff := cmp.Diff([4]float64{71 - 50, 10, 71 - 20, 40}, got, approx); diff != "" {
			t.Errorf("%s through a quarter turn, in pixels (-want +got):\n%s", format, diff)
		}
	}
	if turned == ([4]float64{}) {
		t.Error("pascal_voc was not checked")
	}
}

func TestMinVisibility(t *testing.T) {
	// center_crop of width 0.5 keeps columns 24..72; the box keeps 16 of its 40 columns.
	crop := Pipeline{{Entry: "center_crop", Params: map[string]Value{"width": Fixed(0.5)}, P: 1}}
	boxes := &Boxes{Format: "pascal_voc", Boxes: [][4]float64{{0, 0, 40, 71}, {30, 10, 60, 20}}, Labels: []any{"cut", "kept"}}
	v := variant(t, testImage(rw, rh), crop, 1, &Annotations{Boxes: boxes, MinVisibility: 0.5})
	if diff := cmp.Diff(&Boxes{Format: "pascal_voc", Boxes: [][4]float64{{6, 10, 36, 20}}, Labels: []any{"kept"}}, v.Annotations.Boxes); diff != "" {
		t.Errorf("min_visibility 0.5 (-want +got):\n%s", diff)
	}
	if len(v.Dropped) != 1 || v.Dropped[0].Index != 0 || v.Dropped[0].Label != "cut" || v.Dropped[0].Kind != "bbox" {
		t.Errorf("dropped %+v, want box 0", v.Dropped)
	}
	v = variant(t, testImage(rw, rh), crop, 1, &Annotations{Boxes: boxes, MinVisibility: 0.3})
	if diff := cmp.Diff([][4]float64{{0, 0, 16, 71}, {6, 10, 36, 20}}, v.Annotations.Boxes.Boxes); diff != "" {
		t.Errorf("min_visibility 0.3 (-want +got):\n%s", diff)
	}
	// A keypoint cropped away is dropped and reported.
	v = variant(t, testImage(rw, rh), crop, 1, &Annotations{Keypoints: &Keypoints{Points: [][2]float64{{5, 5}, {50, 5}}}})
	if diff := cmp.Diff([][2]float64{{26, 5}}, v.Annotations.Keypoints.Points); diff != "" || len(v.Dropped) != 1 || v.Dropped[0].Kind != "keypoint" {
		t.Errorf("keypoints (-want +got):\n%s\ndropped %+v", diff, v.Dropped)
	}
}

func TestAnnotationErrors(t *testing.T) {
	p := Pipeline{{Entry: "flip_horizontal", P: 1}}
	small := &Mask{W: 3, H: 3, Labels: make([]uint16, 9)}
	for name, ann := range map[string]*Annotations{
		"format":         {Boxes: &Boxes{Format: "xyxy", Boxes: [][4]float64{{1, 1, 2, 2}}}},
		"outside":        {Boxes: &Boxes{Format: "pascal_voc", Boxes: [][4]float64{{1, 1, 200, 2}}}},
		"no area":        {Boxes: &Boxes{Format: "coco", Boxes: [][4]float64{{1, 1, 0, 2}}}},
		"labels":         {Boxes: &Boxes{Format: "pascal_voc", Boxes: [][4]float64{{1, 1, 2, 2}}, Labels: []any{1, 2}}},
		"keypoint":       {Keypoints: &Keypoints{Points: [][2]float64{{-1, 3}}}},
		"mask size":      {Mask: small},
		"min_visibility": {MinVisibility: 1.5},
	} {
		if _, err := augmenter(t).Run(testImage(rw, rh), p, 1, 1, ann); darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("%s: %v, want invalid_input", name, err)
		}
	}
}

func TestMaskPNG(t *testing.T) {
	for _, top := range []uint16{250, 4000} {
		m := labelMask()
		m.Labels[7] = top
		b, err := m.PNG()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeMask(b, m.W, m.H, engine.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(m, back); diff != "" {
			t.Errorf("mask with label %d does not round-trip (-want +got):\n%s", top, diff)
		}
	}
	if _, err := DecodeMask([]byte("not a png"), 4, 4, engine.DecodeOptions{}); darkroom.Code(err) != darkroom.InvalidInput {
		t.Errorf("DecodeMask(garbage): %v, want invalid_input", err)
	}
}
