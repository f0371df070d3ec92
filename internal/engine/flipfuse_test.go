package engine

import (
	"fmt"
	"testing"
)

// A flip followed by a bilinear affine warp renders as one pass (the warp reads
// the image mirrored); the result is the flip rendered and then warped, bit for
// bit, for every flip, every fill mode and both ways of rendering. A rotation by a
// quarter turn or by nothing cannot take the flip and renders it as before.
func TestFlipFusedIntoWarp(t *testing.T) {
	if !useAVX2 {
		t.Skip("the fused flip needs the AVX2 warp loop")
	}
	src := opShrink(opPhoto(t, "coffee"), 3)
	opt := RenderOptions{Seed: 9, Interpolation: "linear"}
	flips := map[string]map[string]any{
		"h":    {"horizontal": true, "vertical": false},
		"v":    {"horizontal": false, "vertical": true},
		"both": {"horizontal": true, "vertical": true},
	}
	warps := map[string]Edit{
		"rotate constant":  opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 17.0})),
		"rotate auto_crop": opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": -8.5, "auto_crop": true})),
		"affine constant":  opEdit("affine", opArgs(t, "affine", map[string]any{"scale": 1.1, "angle": 12.0, "translate_x": 0.05})),
		"affine edge":      opEdit("affine", opArgs(t, "affine", map[string]any{"scale": 0.8, "shear_x": 10.0, "mode": "edge"})),
		"affine reflect":   opEdit("affine", opArgs(t, "affine", map[string]any{"scale": 0.7, "angle": -30.0, "translate_y": 0.2, "mode": "reflect"})),
		"rotate 90":        opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 90.0})),
		"rotate 0":         opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 0.0})),
	}
	after := opSample(t, "blur")
	for fn, fa := range flips {
		flip := opEdit("flip", opArgs(t, "flip", fa))
		for wn, warp := range warps {
			t.Run(fn+"/"+wn, func(t *testing.T) {
				quarter := wn == "rotate 90" || wn == "rotate 0"
				if held := holdFlip(flip, []Edit{flip, warp}, []int{1}, &runCtx{bilinear: true}, src); (held != nil) == quarter {
					t.Fatalf("holdFlip held the flip: %v; the warp takes it: %v", held != nil, !quarter)
				}
				skipped := warp
				skipped.Strength = 0
				for _, edits := range [][]Edit{{flip, warp}, {flip, skipped, warp, after}} {
					flipped, err := Render(src, edits[:1], opt)
					if err != nil {
						t.Fatal(err)
					}
					want, err := Render(flipped, edits[1:], opt)
					if err != nil {
						t.Fatal(err)
					}
					got, err := Render(src, edits, opt)
					if err != nil {
						t.Fatal(err)
					}
					sameImage(t, fmt.Sprintf("Render of %d edits", len(edits)), got, want)
					owned, err := RenderOwned(src.Clone(), edits, opt)
					if err != nil {
						t.Fatal(err)
					}
					sameImage(t, fmt.Sprintf("RenderOwned of %d edits", len(edits)), owned, want)
				}
			})
		}
	}
}

// sameImage fails unless a and b have the same size and the same pixels.
func sameImage(t *testing.T, what string, a, b *Image) {
	t.Helper()
	if a.W != b.W || a.H != b.H {
		t.Fatalf("%s: %dx%d, want %dx%d", what, a.W, a.H, b.W, b.H)
	}
	for i := range a.Pix {
		if a.Pix[i] != b.Pix[i] {
			t.Fatalf("%s: pixel (%d, %d) channel %d is %v, want %v", what, i/3%a.W, i/3/a.W, i%3, a.Pix[i], b.Pix[i])
		}
	}
}
