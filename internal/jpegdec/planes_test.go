package jpegdec

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
)

// TestNewYCbCrLayout: the planes newYCbCr makes are laid out exactly as
// image.NewYCbCr lays them out, for every subsampling ratio and odd sizes, so the
// decoder's images are what image/jpeg's are.
func TestNewYCbCrLayout(t *testing.T) {
	ratios := []image.YCbCrSubsampleRatio{
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
		image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410,
	}
	for _, r := range ratios {
		for _, sz := range [][2]int{{0, 0}, {1, 1}, {7, 9}, {16, 16}, {17, 33}, {33, 17}, {100, 3}} {
			rect := image.Rect(0, 0, sz[0], sz[1])
			got, want := newYCbCr(rect, r), image.NewYCbCr(rect, r)
			if got.YStride != want.YStride || got.CStride != want.CStride || got.Rect != want.Rect ||
				got.SubsampleRatio != want.SubsampleRatio || len(got.Y) != len(want.Y) ||
				len(got.Cb) != len(want.Cb) || len(got.Cr) != len(want.Cr) {
				t.Errorf("%v %v: got strides %d/%d, planes %d/%d/%d; image.NewYCbCr: %d/%d, %d/%d/%d", r, sz,
					got.YStride, got.CStride, len(got.Y), len(got.Cb), len(got.Cr),
					want.YStride, want.CStride, len(want.Y), len(want.Cb), len(want.Cr))
			}
		}
	}
}

// TestReleaseReuse: a decode into planes another decode released (a larger image
// with other content) is still image/jpeg's decode, sample for sample, and the
// buffer is in fact reused.
func TestReleaseReuse(t *testing.T) {
	inputs := allInputs(t)
	names := sortedNames(inputs)
	var prev image.Image
	for _, name := range names {
		b := inputs[name]
		got, err := Decode(bytes.NewReader(b), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sameImage(got, want); err != nil {
			t.Errorf("%s after releasing the previous decode: %v", name, err)
		}
		if prev != nil {
			Release(prev)
		}
		prev = got
	}

	big, small := inputs["gen-rgb-129x65-q95"], inputs["gen-rgb-33x17-q50"]
	reused := false
	for range 3 { // a collection between Release and Decode may empty the pool
		a, err := Decode(bytes.NewReader(big), Options{})
		if err != nil {
			t.Fatal(err)
		}
		Release(a)
		b, err := Decode(bytes.NewReader(small), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if &a.(*image.YCbCr).Y[0] == &b.(*image.YCbCr).Y[0] {
			reused = true
			break
		}
	}
	if !reused {
		t.Error("a released image's planes were never reused")
	}
}

// TestReleaseIgnoresForeignImages: an image not laid out as Decode lays it out
// (here image.NewYCbCr's, whose planes are capped) is not taken.
func TestReleaseIgnoresForeignImages(t *testing.T) {
	m := image.NewYCbCr(image.Rect(0, 0, 64, 64), image.YCbCrSubsampleRatio420)
	Release(m)
	for range 3 {
		got := newYCbCr(image.Rect(0, 0, 8, 8), image.YCbCrSubsampleRatio444)
		if &got.Y[0] == &m.Y[0] {
			t.Fatal("Release took a buffer Decode did not make")
		}
	}
}
