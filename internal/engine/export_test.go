package engine

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// ioBandEdits are edits that render band by band: every band operation at its sample
// arguments, and masks of every kind that can be cut into bands, each placed by
// position on the frame.
func ioBandEdits(t testing.TB) []Edit {
	var edits []Edit
	for _, op := range Operations() {
		if catalog[op].band {
			edits = append(edits, opSample(t, op))
		}
	}
	masks := []*Mask{
		{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.4, 0.6}, RadiusX: 0.3, RadiusY: 0.2, Rotation: 20, Feather: 0.1}},
		{Shape: &Shape{Kind: "gradient", Start: [2]float64{0.5, 0.1}, End: [2]float64{0.5, 0.7}}},
		{Shape: &Shape{Kind: "rectangle", X: 0.2, Y: 0.3, Width: 0.5, Height: 0.3, Rotation: -15, Feather: 0.02}, Invert: true},
		{Shape: &Shape{Kind: "polygon", Points: [][2]float64{{0.1, 0.1}, {0.9, 0.3}, {0.5, 0.95}}}},
		{Ranges: []RangeFilter{{Channel: "luminance", Min: 0.3, Max: 0.7, Feather: 0.1}}},
	}
	for i, m := range masks {
		e := edits[i%len(edits)]
		e.Mask, e.Strength = m, 0.7
		edits[i%len(edits)] = e
	}
	if !bandable(edits) {
		t.Fatal("the band edits are not bandable")
	}
	return edits
}

// A band of rows renders exactly as the same rows of the whole image, for every band
// operation and every kind of mask that may be cut, whatever the band's height.
func TestBandsRenderLikeWhole(t *testing.T) {
	src := opPhoto(t, "coffee")
	edits := ioBandEdits(t)
	order, err := renderOrder(edits)
	if err != nil {
		t.Fatal(err)
	}
	opt := RenderOptions{Seed: 7}
	want := opRender(t, src, 7, edits...)
	for _, rows := range []int{1, 7, 16, 33} {
		got := NewImage(src.W, src.H)
		for y0 := 0; y0 < src.H; y0 += rows {
			y1 := min(y0+rows, src.H)
			band := &Image{W: src.W, H: y1 - y0, Pix: src.Pix[3*y0*src.W : 3*y1*src.W]}
			out, err := renderFrame(band, edits, order, opt, frame{y0, src.W, src.H}, &bufPool{})
			if err != nil {
				t.Fatal(err)
			}
			copy(got.Pix[3*y0*src.W:], out.Pix)
		}
		if !slices.Equal(got.Pix, want.Pix) {
			maxd, mean := ioDiff(t, want, got)
			t.Errorf("bands of %d rows differ from the whole render by max %g mean %g", rows, maxd, mean)
		}
	}
}

// bandable refuses what cannot be cut into rows.
func TestBandable(t *testing.T) {
	tests := []struct {
		name  string
		edits []Edit
		want  bool
	}{
		{"none", nil, true},
		{"five edits", ioFiveEdits(t), true},
		{"blur reaches across rows", []Edit{opSample(t, "exposure"), opSample(t, "blur")}, false},
		{"geometry", []Edit{opSample(t, "crop")}, false},
		{"a blur at strength 0 does nothing", []Edit{{Op: "blur", Args: opSample(t, "blur").Args}}, true},
		{"feathered polygon", []Edit{{Op: "exposure", Args: opSample(t, "exposure").Args, Strength: 1,
			Mask: &Mask{Shape: &Shape{Kind: "polygon", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, Feather: 0.05}}}}, false},
	}
	for _, tt := range tests {
		if got := bandable(tt.edits); got != tt.want {
			t.Errorf("%s: bandable %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A streamed export is the render of the whole image, encoded: for every
// orientation, the file's pixels are exactly those of Encode(Render(Decode)), cut into
// strips of one MCU row so that every strip boundary is crossed.
func TestExportStreamsExactly(t *testing.T) {
	defer func(b int) { exportBandBytes = b }(exportBandBytes)
	edits := ioBandEdits(t)
	var tests []tc
	for o := 1; o <= 8; o++ {
		for _, eo := range []EncodeOptions{{Format: "jpeg", Quality: 85}, {Format: "png", Depth: 16}, {Format: "tiff"}} {
			tests = append(tests, tc{"io/small.jpg", o, eo})
		}
	}
	// A larger photo, whose sides are not multiples of 16 either way up.
	tests = append(tests, tc{"rocket.jpg", 1, EncodeOptions{Format: "jpeg", Quality: 90}}, tc{"rocket.jpg", 6, EncodeOptions{Format: "jpeg", Quality: 90}})
	ioCheckExports(t, edits, tests...)
}

// An export with edits that cannot be cut into bands renders those whole, and the
// band edits before and after them band by band: still exactly the render's pixels,
// with or without geometry, the same operation on both sides, and a resize.
func TestExportSplitsAroundWholeEdits(t *testing.T) {
	defer func(b int) { exportBandBytes = b }(exportBandBytes)
	noise := opSample(t, "noise")
	lists := map[string][]Edit{
		"blur between":         append(ioBandEdits(t), opSample(t, "blur"), noise),
		"geometry":             append(ioBandEdits(t), opSample(t, "crop"), opSample(t, "rotate")),
		"grain between noises": {noise, opSample(t, "grain"), noise, opSample(t, "exposure")},
	}
	for name, edits := range lists {
		t.Run(name, func(t *testing.T) {
			ioCheckExports(t, edits,
				tc{"io/small.jpg", 1, EncodeOptions{Format: "jpeg", Quality: 85}},
				tc{"io/small.jpg", 6, EncodeOptions{Format: "png", Depth: 16}},
				tc{"io/small.png", 1, EncodeOptions{Format: "tiff"}},
				tc{"io/small.jpg", 3, EncodeOptions{Format: "tiff"}})
		})
	}
	t.Run("resized", func(t *testing.T) {
		edits := lists["blur between"]
		data := ioFixture(t, "rocket.jpg")
		src := ioDecode(t, "rocket.jpg")
		want, err := Render(src.Image, edits, RenderOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got, ref bytes.Buffer
		if _, err := Export(&got, data, edits, ExportOptions{Encode: EncodeOptions{Format: "tiff"}, Seed: 3, LongEdge: 200}); err != nil {
			t.Fatal(err)
		}
		w, h := FitLongEdge(want.W, want.H, 200)
		if err := Encode(&ref, Resize(want, w, h), EncodeOptions{Format: "tiff"}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), ref.Bytes()) {
			t.Error("the resized export is not the resized render")
		}
	})
}

type tc struct {
	fixture string
	o       int
	eo      EncodeOptions
}

// ioCheckExports checks that exporting each fixture, at each orientation, in strips of
// one MCU row, gives the pixels of Encode(Render(Decode)).
func ioCheckExports(t *testing.T, edits []Edit, tests ...tc) {
	t.Helper()
	exif := ioDecode(t, "rocket-orient6.jpg").EXIF
	for _, tt := range tests {
		data := ioFixture(t, tt.fixture)
		if filepath.Ext(tt.fixture) == ".jpg" {
			data = ioWithEXIF(data, ioSetOrientation(t, exif, tt.o))
		}
		src, err := Decode(data, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exportBandBytes = 16 * 12 * src.Width
		want, err := Render(src.Image, edits, RenderOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		eo := tt.eo
		var got, ref bytes.Buffer
		if _, err := Export(&got, data, edits, ExportOptions{Encode: eo, Seed: 3}); err != nil {
			t.Fatalf("%s, orientation %d, %s: %v", tt.fixture, tt.o, eo.Format, err)
		}
		eo.EXIF = src.EXIF
		if err := Encode(&ref, want, eo); err != nil {
			t.Fatal(err)
		}
		if eo.Format != "jpeg" {
			if !bytes.Equal(got.Bytes(), ref.Bytes()) {
				t.Errorf("%s, orientation %d, %s: the export is not the encoded render", tt.fixture, tt.o, eo.Format)
			}
			continue
		}
		// The strips differ (so do the restart intervals); the pixels may not.
		g, err := Decode(got.Bytes(), DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Decode(ref.Bytes(), DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.Image.Pix, r.Image.Pix) || g.Meta != r.Meta {
			maxd, mean := ioDiff(t, r.Image, g.Image)
			t.Errorf("%s, orientation %d, jpeg: pixels differ by max %g mean %g (meta %+v, want %+v)", tt.fixture, tt.o, maxd, mean, g.Meta, r.Meta)
		}
	}
}

// A bad mask met while streaming is the mask's own error, and nothing is written.
func TestExportStreamedErrors(t *testing.T) {
	data := ioFixture(t, "rocket.jpg")
	edits := []Edit{{Op: "exposure", Args: opSample(t, "exposure").Args, Strength: 1,
		Mask: &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: -1, RadiusY: 0.1}}}}
	if !bandable(edits) {
		t.Fatal("not bandable")
	}
	for _, format := range []string{"jpeg", "png"} {
		var b bytes.Buffer
		_, err := Export(&b, data, edits, ExportOptions{Encode: EncodeOptions{Format: format}})
		if darkroom.Code(err) != darkroom.MaskingError {
			t.Errorf("%s: %v, want masking_error", format, err)
		}
		if b.Len() != 0 {
			t.Errorf("%s: %d bytes written before the error", format, b.Len())
		}
	}
}

// bandable reports whether every edit is a band edit.
func bandable(edits []Edit) bool {
	for _, e := range edits {
		if !bandEdit(e) {
			return false
		}
	}
	return true
}
