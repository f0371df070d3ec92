package engine

import "testing"

// TestFrameSizeIsRendersSize checks FrameSize against the size Render gives, for
// each geometry case alone and after a crop, with a tonal edit among them that
// must not count: apply_spot places its spot in this frame without rendering it.
func TestFrameSizeIsRendersSize(t *testing.T) {
	crop := opEdit("crop", opArgs(t, "crop", map[string]any{"left": 0.2, "right": 0.1, "top": 0.05, "bottom": 0.3}))
	tone := opEdit("exposure", opArgs(t, "exposure", map[string]any{"ev": 0.5}))
	src := geoRamp(61, 43)
	for _, g := range geoCases(t) {
		for _, edits := range [][]Edit{{g, tone}, {crop, tone, g}} {
			img, err := Render(src, edits, RenderOptions{Seed: 7})
			if err != nil {
				t.Fatalf("%s: render: %v", g.Op, err)
			}
			w, h, err := FrameSize(src.W, src.H, edits, 7)
			if err != nil {
				t.Fatalf("%s: %v", g.Op, err)
			}
			if w != img.W || h != img.H {
				t.Errorf("%s after %d edits: FrameSize %dx%d, Render %dx%d", g.Op, len(edits)-1, w, h, img.W, img.H)
			}
		}
	}
	if w, h, err := FrameSize(61, 43, []Edit{tone}, 0); err != nil || w != 61 || h != 43 {
		t.Errorf("no geometry: %dx%d, %v; want the source's 61x43", w, h, err)
	}
}
