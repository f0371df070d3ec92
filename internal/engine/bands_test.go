package engine

import (
	"fmt"
	"slices"
	"testing"
)

// bandWhole lists the operations a streamed render cannot cut into bands, and why:
// an export with one of them renders the image whole. Every other operation streams
// (TestBandsMatchWhole checks both ways).
var bandWhole = map[string]string{
	"blur":                 "motion only: sheared along rows placed by the band's offset, which changes their rounding",
	"chromatic_aberration": "not planned: channels resampled radially, a reach that grows to the edges",
	"crop_and_pad":         "keep_size (the sample) resizes the padded image; without it, it streams as pad",
	"downscale":            "not planned: a resize down and back up",
	"fancy_pca":            "principal components of the whole image's colours: float sums a first pass would reorder",
	"glass_blur":           "not planned: seeded pixel swaps that chain across rows",
	"grid_shuffle":         "not planned: cells move between any rows",
	"iso_noise":            "not planned",
	"jpeg_compression":     "JPEG blocks and quantization of the whole image",
	"rain":                 "not planned: streaks drawn across the frame",
	"rotate90":             "a quarter turn makes rows of columns: every band reads every row",
	"scale":                "not planned: a resize",
	"spot":                 "unmasked (the sample) it reaches the whole frame; with an ellipse mask it streams",
	"transpose":            "rows of columns: every band reads every row",
	"zoom_blur":            "not planned: a radial blur whose reach grows to the frame's edges",
}

// bandNeedsWhole reports whether bandWhole says e cannot stream; for blur only the
// motion kind is meant, for spot only one without a mask.
func bandNeedsWhole(e Edit) bool {
	switch e.Op {
	case "blur":
		return e.Args["kind"] == "motion"
	case "spot":
		return e.Mask == nil
	}
	_, ok := bandWhole[e.Op]
	return ok
}

// bandNear lists the operations whose bands may differ from the whole image by one
// 8-bit level: a running sum down the columns (a box filter) starts at the first
// row a band is given instead of the image's first row, so its float rounding
// differs. Every other streamed operation is exact, bit for bit.
var bandNear = map[string]bool{}

// bandCases are the edits the band tests render: every operation at its sample
// arguments, and arguments that take the other paths of the neighbourhood filters
// (a first pass over a coarse grid, full-size windows).
func bandCases(t testing.TB) []struct {
	name  string
	edits []Edit
} {
	type c = struct {
		name  string
		edits []Edit
	}
	var cases []c
	for _, op := range Operations() {
		cases = append(cases, c{op, []Edit{opSample(t, op)}})
	}
	extra := []struct {
		op  string
		set map[string]any
	}{
		{"clarity", map[string]any{"amount": 0.6, "radius": 0.002}},
		{"clarity", map[string]any{"amount": 0.6, "radius": 0.1}},
		{"denoise", map[string]any{"amount": 0.8, "radius": 0.01}},
		{"blur", map[string]any{"kind": "gaussian", "radius": 0.002}},
		{"blur", map[string]any{"kind": "gaussian", "radius": 0.05}},
		{"blur", map[string]any{"kind": "box", "radius": 0.01}},
		{"sharpen", map[string]any{"amount": 2.0, "radius": 0.001}},
		{"morphology", map[string]any{"operation": "dilate", "size": 0.01}},
		{"emboss", map[string]any{"alpha": 0.8, "strength": 1.0, "size": 0.006}},
		{"pad", map[string]any{"width": 1.2, "height": 0.9, "mode": "constant", "fill": 0.3}},
		{"pad", map[string]any{"width": 1.1, "height": 1.3, "mode": "edge"}},
		{"equalize", map[string]any{"amount": 0.8, "by_channels": true}},
		{"dehaze", map[string]any{"amount": -0.6}},
		{"clahe", map[string]any{"amount": 0.7, "clip_limit": 3.0, "tiles": 5.0}},
		{"sharpen", map[string]any{"amount": 2.0, "radius": 0.006}},
		{"clarity", map[string]any{"amount": 0.6, "radius": 0.01}},
		{"blur", map[string]any{"kind": "gaussian", "radius": 0.008}},
		{"grain", map[string]any{"amount": 1.0, "size": 0.005}},
		{"denoise", map[string]any{"amount": 0.8, "radius": 0.005}},
		{"rotate", map[string]any{"angle": -33.0, "auto_crop": false}},
		{"rotate", map[string]any{"angle": 3.0, "auto_crop": true}},
		{"flip", map[string]any{"horizontal": true, "vertical": true}},
		{"affine", map[string]any{"scale": 0.8, "angle": -40.0, "mode": "constant"}},
		{"safe_rotate", map[string]any{"angle": -70.0, "mode": "constant"}},
	}
	for _, x := range extra {
		cases = append(cases, c{fmt.Sprintf("%s %v", x.op, x.set), []Edit{opEdit(x.op, opArgs(t, x.op, x.set))}})
	}
	return cases
}

// A streamed render is the whole-image render: for every operation and for mixes,
// bands of 1, 7, 16 and 33 rows give the same pixels (exactly, or within a level
// for the operations of bandNear); the operations of bandWhole, and only those,
// refuse to stream.
func TestBandsMatchWhole(t *testing.T) {
	src := opPhoto(t, "coffee")
	for _, tc := range bandCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			check(t, src, tc.edits, 5)
		})
	}
}

func check(t *testing.T, src *Image, edits []Edit, seed uint64) {
	t.Helper()
	checkWith(t, src, edits, RenderOptions{Seed: seed})
}

// checkWith is check under any render options.
func checkWith(t *testing.T, src *Image, edits []Edit, opt RenderOptions) {
	t.Helper()
	want, err := Render(src, edits, opt)
	if err != nil {
		t.Fatalf("render %v: %v", edits, err)
	}
	whole := false
	near := false
	for _, e := range edits {
		whole = whole || bandNeedsWhole(e)
		near = near || bandNear[e.Op]
	}
	for _, rows := range []int{1, 7, 16, 33} {
		got, err := renderBands(src, edits, opt, rows)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			if !whole {
				t.Fatalf("does not stream")
			}
			return
		}
		if whole {
			t.Fatalf("streams, but bandWhole says it cannot")
		}
		if got.W != want.W || got.H != want.H {
			t.Fatalf("bands of %d rows: %dx%d, want %dx%d", rows, got.W, got.H, want.W, want.H)
		}
		if slices.Equal(got.Pix, want.Pix) {
			continue
		}
		a, b := opQuant8(want), opQuant8(got)
		worst, n := 0, 0
		for i := range a {
			d := int(a[i]) - int(b[i])
			d = max(d, -d)
			if d > 0 {
				n++
			}
			worst = max(worst, d)
		}
		if !near || worst > 1 {
			maxd, _ := ioDiff(t, want, got)
			t.Errorf("bands of %d rows differ: %d values, worst %d levels (float %g)", rows, n, worst, maxd)
		}
	}
}

// streamEdits are the edits of the benchmarks' exports and more: neighbourhood
// filters on both of their paths, a masked one, grain, and geometry.
func streamEdits(t testing.TB) []Edit {
	sharpen := opEdit("sharpen", opArgs(t, "sharpen", map[string]any{"amount": 1.5}))
	sharpen.Mask = &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.4, 0.6}, RadiusX: 0.3, RadiusY: 0.2, Feather: 0.1}}
	sharpen.Strength = 0.8
	heal := spotEdit("heal", 0.06, 0.03, &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.45, 0.4}, RadiusX: 0.025, RadiusY: 0.03, Feather: 0.01}})
	return []Edit{
		heal,
		opSample(t, "exposure"),
		opEdit("crop", opArgs(t, "crop", map[string]any{"left": 0.05, "top": 0.1})),
		opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 3.0})),
		opEdit("clarity", opArgs(t, "clarity", map[string]any{"amount": 0.5, "radius": 0.05})),
		opEdit("denoise", opArgs(t, "denoise", map[string]any{"amount": 0.5, "radius": 0.01})),
		sharpen,
		opSample(t, "grain"),
		opSample(t, "vignette"),
	}
}

// A streamed export with neighbourhood filters, first passes and geometry is the
// render of the whole image, encoded, at every orientation and in every format.
func TestExportStreamsNeighbourhoods(t *testing.T) {
	defer func(b int) { exportBandBytes = b }(exportBandBytes)
	edits := streamEdits(t)
	order, err := renderOrder(edits)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := planBands(edits, order, RenderOptions{}, 640, 427); p == nil || err != nil {
		t.Fatalf("the edits do not stream (%v)", err)
	}
	ioCheckExports(t, edits,
		tc{"rocket.jpg", 1, EncodeOptions{Format: "jpeg", Quality: 90}},
		tc{"rocket.jpg", 6, EncodeOptions{Format: "jpeg", Quality: 90}},
		tc{"rocket.jpg", 3, EncodeOptions{Format: "png", Depth: 16}},
		tc{"io/small.jpg", 8, EncodeOptions{Format: "tiff"}})
}

// A mix of streamed edits renders band by band as the whole image does.
func TestBandsMatchWholeMix(t *testing.T) {
	src := opPhoto(t, "coffee")
	check(t, src, streamEdits(t), 9)
	// Crops and flips seen through by a warp, in reflect and constant modes.
	check(t, src, []Edit{opEdit("flip", opArgs(t, "flip", map[string]any{"horizontal": true, "vertical": true})),
		opEdit("crop", opArgs(t, "crop", map[string]any{"left": 0.1, "bottom": 0.2})), opSample(t, "affine")}, 9)
	check(t, src, []Edit{opEdit("crop", opArgs(t, "crop", map[string]any{"right": 0.1, "top": 0.2})),
		opEdit("flip", opArgs(t, "flip", map[string]any{"vertical": true})), opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": -20.0})), opSample(t, "perspective")}, 9)
	check(t, src, []Edit{opSample(t, "flip"), opSample(t, "affine"), opEdit("blur", opArgs(t, "blur", map[string]any{"radius": 0.03})), opSample(t, "noise"), opSample(t, "contrast")}, 9)
}

// The exports of the streaming benchmarks stream at the benchmark photo's size (and
// so hold no full-size float image).
func TestBenchmarkExportsStream(t *testing.T) {
	for name, edits := range benchStreamCases(t) {
		order, err := renderOrder(edits)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range [][2]int{{6000, 4000}, {4000, 6000}, {12000, 8000}} {
			p, err := planBands(edits, order, RenderOptions{}, size[0], size[1])
			if p == nil || err != nil {
				t.Errorf("%s at %dx%d does not stream (%v)", name, size[0], size[1], err)
				continue
			}
			// What a streamed export is charged stays far below one float image.
			if c, whole := p.exportCost("jpeg"), floatBytes(size[0], size[1]); c > whole/2 {
				t.Errorf("%s at %dx%d: a streamed export takes %d MB, half a float image is %d MB", name, size[0], size[1], c>>20, whole>>21)
			}
		}
	}
}

// Spots with an ellipse mask (what apply_spot makes) stream: heal on blocks and at
// full size, clone, near the edges where the source clamps, after other edits.
func TestBandsMatchWholeSpots(t *testing.T) {
	src := opPhoto(t, "coffee")
	spot := func(kind string, cx, cy, r, dx, dy float64) Edit {
		e := spotEdit(kind, dx, dy, &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{cx, cy},
			RadiusX: r, RadiusY: r * 1.2, Feather: r / 3}})
		e.Strength = 0.9
		return e
	}
	cases := map[string][]Edit{
		"heal on blocks":   {opSample(t, "exposure"), spot("heal", 0.5, 0.5, 0.03, 0.08, 0.05)},
		"heal full size":   {spot("heal", 0.3, 0.6, 0.01, 0.01, -0.01)},
		"clone":            {spot("clone", 0.6, 0.3, 0.02, -0.05, 0.07)},
		"edges":            {spot("heal", 0.03, 0.96, 0.04, -0.1, 0.06), spot("clone", 0.97, 0.04, 0.05, 0.2, -0.3)},
		"spots and others": {opSample(t, "sharpen"), spot("heal", 0.4, 0.2, 0.02, 0.06, 0.03), spot("heal", 0.7, 0.8, 0.02, -0.06, -0.05), opSample(t, "grain")},
	}
	for name, edits := range cases {
		t.Run(name, func(t *testing.T) {
			order, err := renderOrder(edits)
			if err != nil {
				t.Fatal(err)
			}
			if p, err := planBands(edits, order, RenderOptions{}, src.W, src.H); p == nil || err != nil {
				t.Fatalf("does not stream (%v)", err)
			}
			check(t, src, edits, 3)
		})
	}
}
