package dataset

import (
	"encoding/json"
	"image"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/pngbomb"
)

func TestYOLORoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		kdim int
		want []Object
		out  string // what FormatYOLOFile writes back
	}{
		{"box", "3 0.5 0.25 0.5 0.5\n", 0,
			[]Object{{Class: 3, Box: [4]float64{50, 0, 150, 50}}},
			"3 0.500000 0.250000 0.500000 0.500000\n"},
		{"blank lines and CRLF", "\r\n0 0.1 0.2 0.1 0.2\r\n\n1 0.9 0.9 0.2 0.2\n", 0,
			[]Object{{Class: 0, Box: [4]float64{10, 10, 30, 30}}, {Class: 1, Box: [4]float64{160, 80, 200, 100}}},
			"0 0.100000 0.200000 0.100000 0.200000\n1 0.900000 0.900000 0.200000 0.200000\n"},
		{"pose triples", "0 0.5 0.5 1 1 0.25 0.5 2 0.75 0.5 0\n", 3,
			[]Object{{Class: 0, Box: [4]float64{0, 0, 200, 100}, Keypoints: []Keypoint{{50, 50, 2}, {150, 50, 0}}}},
			"0 0.500000 0.500000 1.000000 1.000000 0.250000 0.500000 2 0.750000 0.500000 0\n"},
		{"pose pairs", "0 0.5 0.5 1 1 0.25 0.5 0.75 0.5\n", 2,
			[]Object{{Class: 0, Box: [4]float64{0, 0, 200, 100}, Keypoints: []Keypoint{{50, 50, 2}, {150, 50, 2}}}},
			"0 0.500000 0.500000 1.000000 1.000000 0.250000 0.500000 0.750000 0.500000\n"},
		{"empty file", "", 0, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseYOLO("x.txt", []byte(tc.in), 200, 100, tc.kdim)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("parse (-want +got):\n%s", diff)
			}
			kdim := tc.kdim
			if kdim == 0 {
				kdim = 3
			}
			out := FormatYOLOFile(got, 200, 100, kdim)
			if string(out) != tc.out {
				t.Errorf("format: got %q, want %q", out, tc.out)
			}
			again, err := ParseYOLO("x.txt", out, 200, 100, tc.kdim)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, again, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("round trip (-first +again):\n%s", diff)
			}
		})
	}
}

func TestYOLOErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"0 0.5 0.5 0.5\n", "labels a/x.txt: line 1: 4 fields, want class cx cy w h"},
		{"0 0.5 0.5 0.5 0.5\ncat 0.5 0.5 0.5 0.5\n", `labels a/x.txt: line 2: class "cat" is not a non-negative integer`},
		{"-1 0.5 0.5 0.5 0.5\n", `line 1: class "-1" is not a non-negative integer`},
		{"0 0.5 1.5 0.5 0.5\n", `line 1: "1.5" is not a number in [0, 1]`},
		{"0 0.5 NaN 0.5 0.5\n", `line 1: "NaN" is not a number in [0, 1]`},
		{"0 0.5 0.5 0.5 0.5 0.1 0.2 2 0.3\n", "line 1: 4 keypoint numbers are not a multiple of 3"},
		{"0 0.5 0.5 0.5 0.5 0.1 0.2 7\n", `line 1: keypoint visibility "7" is not 0, 1 or 2`},
	} {
		_, err := ParseYOLO("a/x.txt", []byte(tc.in), 10, 10, 3)
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseYOLO(%q) = %v, want invalid_input %q", tc.in, err, tc.msg)
		}
	}
}

func TestDataYAML(t *testing.T) {
	for _, tc := range []struct {
		in    string
		names []string
		kdim  int
		err   string
	}{
		{"path: ../data\nnames: [cat, dog]\n", []string{"cat", "dog"}, 0, ""},
		{"names:\n  0: person\n  1: bicycle\nkpt_shape: [17, 3]\n", []string{"person", "bicycle"}, 3, ""},
		{"names:\n  - a\n  - b\nkpt_shape: [5, 2]\n", []string{"a", "b"}, 2, ""},
		{"names:\n  0: a\n  5: b\n", nil, 0, "names: want a list, or a map from 0..1 to strings"},
		{"names: 3\n", nil, 0, "names: want a list or a map"},
		{"kpt_shape: [17, 4]\n", nil, 0, "kpt_shape: dimension 4 is not 2 or 3"},
		{"names: [a\n", nil, 0, "labels data.yaml: not YAML"},
		{"\r\r0", nil, 0, "labels data.yaml: not YAML"}, // panics cue's decoder
		// As cuelang.org/go's YAML reading read them (go.yaml.in/yaml/v3 beneath both).
		{"names:\n  00: a\n", nil, 0, "names: want a list, or a map from 0..0 to strings"},
		{"base: &b {names: [a, b]}\n<<: *b\n", []string{"a", "b"}, 0, ""},
		{"names: [a]\nnames: [b]\n", nil, 0, "labels data.yaml: not YAML"},
		{"names: [a, 1]\n", nil, 0, "names[1] is not a string"},
		{"kpt_shape: [17.0, 3]\n", nil, 0, "kpt_shape has the wrong shape"},
		{"", nil, 0, "labels data.yaml: not YAML with names or kpt_shape"},
		{"names: [a]\n---\nnames: [b]\n", nil, 0, "labels data.yaml: not YAML with names or kpt_shape"},
	} {
		names, kdim, err := ParseDataYAML("data.yaml", []byte(tc.in))
		if tc.err != "" {
			if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDataYAML(%q) = %v, want invalid_input %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseDataYAML(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.names, names); diff != "" || kdim != tc.kdim {
			t.Errorf("ParseDataYAML(%q): kpt dim %d, want %d; names (-want +got):\n%s", tc.in, kdim, tc.kdim, diff)
		}
	}
}

func TestVOCRoundTrip(t *testing.T) {
	in := `<?xml version="1.0"?>
<annotation>
	<folder>VOC2012</folder>
	<filename>2007_000027.jpg</filename>
	<source><database>The VOC2007 Database</database></source>
	<size><width>486</width><height>500</height><depth>3</depth></size>
	<segmented>0</segmented>
	<object>
		<name>person</name><pose>Unspecified</pose><truncated>0</truncated><difficult>0</difficult>
		<bndbox><xmin>174</xmin><ymin>101</ymin><xmax>349</xmax><ymax>351</ymax></bndbox>
		<part><name>head</name><bndbox><xmin>169</xmin><ymin>104</ymin><xmax>209</xmax><ymax>146</ymax></bndbox></part>
	</object>
	<object><name>dog</name><bndbox><xmin>1.0</xmin><ymin>1</ymin><xmax>486</xmax><ymax>500</ymax></bndbox></object>
</annotation>`
	got, depth, err := ParseVOC("a.xml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Object{
		{Name: "person", Box: [4]float64{173, 100, 349, 351}, Attrs: map[string]string{"pose": "Unspecified", "truncated": "0", "difficult": "0"}},
		{Name: "dog", Box: [4]float64{0, 0, 486, 500}},
	}
	if diff := cmp.Diff(want, got); diff != "" || depth != 3 {
		t.Errorf("parse: depth %d; objects (-want +got):\n%s", depth, diff)
	}
	out := FormatVOCFile("VOC2012", "2007_000027_v0.png", 486, 500, 3, got)
	again, depth, err := ParseVOC("b.xml", out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" || depth != 3 {
		t.Errorf("round trip: depth %d; (-first +again):\n%s", depth, diff)
	}
	for _, s := range []string{"<filename>2007_000027_v0.png</filename>", "<width>486</width>", "<xmin>174</xmin>"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("written VOC lacks %s:\n%s", s, out)
		}
	}
}

func TestVOCErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"<annotation><object><name>a</name>", "labels v.xml: not Pascal VOC XML"},
		{"<annotation><object><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object></annotation>", "object 1 has no name"},
		{"<annotation><object><name>a</name><bndbox><xmin>x</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object></annotation>", `object 1 (a): bndbox value "x" is not a number`},
		{"<annotation><object><name>a</name><bndbox><xmin>5</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object></annotation>", "object 1 (a): xmax < xmin"},
	} {
		_, _, err := ParseVOC("v.xml", []byte(tc.in))
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseVOC(%q) = %v, want invalid_input %q", tc.in, err, tc.msg)
		}
	}
}

// TestCOCORoundTrip reads a COCO file, writes it back the way a run does (each image
// as a variant of itself) and reads that: the same boxes, classes and keypoints. The
// written ids start above the input's (so they never collide with a source's), and
// each image and annotation names the id it came from.
func TestCOCORoundTrip(t *testing.T) {
	dir := cocoInputDir(t)
	d := openDataset(t, dir)
	if d.coco == nil || d.info.COCO.File != "annotations.json" {
		t.Fatal("annotations.json not taken as the COCO file")
	}
	var recs []Record
	for _, rel := range d.Images {
		objs, ok := d.coco.objects[rel]
		if !ok || d.coco.errs[rel] != nil {
			continue
		}
		anns := toCOCO(objs, nil)
		recs = append(recs, Record{Source: rel, Output: rel, Width: 32, Height: 24, COCO: &anns, SourceImageID: json.RawMessage(d.coco.ids[rel])})
	}
	if len(recs) != 7 {
		t.Fatalf("%d COCO images matched, want 7 (img8 is not in the file, img5 has a bad annotation)", len(recs))
	}
	data, err := formatCOCO(d.info.COCO, recs)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, map[string][]byte{"annotations.json": data})
	d2 := openDataset(t, dir)
	// A written variant's annotations get new ids (above the sources'): the ids
	// are checked below, the rest of each object here.
	noID := cmpopts.IgnoreFields(Object{}, "ID")
	for _, r := range recs {
		if diff := cmp.Diff(d.coco.objects[r.Source], d2.coco.objects[r.Source], noID); diff != "" {
			t.Errorf("%s (-read +written and read again):\n%s", r.Source, diff)
		}
	}
	want := []Object{{Class: 2, Name: "dog", Box: [4]float64{2, 3, 12.5, 11}, Keypoints: []Keypoint{{4, 5, 2}, {9, 6, 1}}, Attrs: map[string]string{"iscrowd": "0"}}}
	if diff := cmp.Diff(want, d2.coco.objects["imgs/img1.png"], noID); diff != "" {
		t.Errorf("imgs/img1.png (-want +got):\n%s", diff)
	}
	var out struct {
		Info       json.RawMessage   `json:"info"`
		Categories []json.RawMessage `json:"categories"`
		Images     []struct {
			ID       int    `json:"id"`
			FileName string `json:"file_name"`
			SourceID int    `json:"source_id"`
		} `json:"images"`
		Annotations []struct {
			ID       int `json:"id"`
			ImageID  int `json:"image_id"`
			SourceID int `json:"source_id"`
		} `json:"annotations"`
	}
	json.Unmarshal(data, &out)
	// The input's largest ids are 107 (images) and 1007 (annotations).
	if string(out.Info) != `{"description":"test"}` || len(out.Categories) != 2 || out.Images[0].ID != 108 || out.Images[0].SourceID != 100 || out.Images[0].FileName != "imgs/img0.png" {
		t.Errorf("written COCO lost its info or categories, or numbered images oddly:\n%s", data)
	}
	if a := out.Annotations[1]; a.ID != 1009 || a.ImageID != 109 || a.SourceID != 1001 {
		t.Errorf("annotation 1 is %+v, want id 1009 on image 109 from annotation 1001", a)
	}
	if err := d.coco.errs["imgs/img5.png"]; darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), "category_id 9 is not in categories") {
		t.Errorf("img5: %v, want invalid_input naming category_id 9", err)
	}
}

func TestCOCOErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{`{"images": [}`, "labels annotations.json: not a COCO instances file"},
		{`{"images": [{"id": 1, "file_name": "a.png"}], "annotations": [{"image_id": 2, "category_id": 1, "bbox": [0, 0, 1, 1]}], "categories": [{"id": 1, "name": "x"}]}`, "annotations[0]: image_id 2 is not in images"},
		{`{"images": [{"id": 1, "file_name": "a.png"}, {"id": 2, "file_name": "./a.png"}], "annotations": [], "categories": []}`, "images[1]: a.png is listed twice"},
		{`{"images": [], "annotations": [], "categories": [{"name": "x"}]}`, "categories[0] has no integer id"},
	} {
		dir := t.TempDir()
		writeTree(t, dir, map[string][]byte{"annotations.json": []byte(tc.in), "a.png": encode(t, "png", testImage(4, 4, 0))})
		_, err := Open(os.DirFS(dir))
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Open with %s: %v, want invalid_input %q", tc.in, err, tc.msg)
		}
	}
	// A bad annotation is its image's error only.
	for _, tc := range []struct{ ann, msg string }{
		{`{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1]}`, "bbox has 3 numbers"},
		{`{"image_id": 1, "category_id": 1, "bbox": [0, 0, -1, 1]}`, "is not a box"},
		{`{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "keypoints": [1, 2]}`, "2 keypoint numbers are not triples"},
	} {
		dir := t.TempDir()
		writeTree(t, dir, map[string][]byte{
			"annotations.json": []byte(`{"images": [{"id": 1, "file_name": "a.png"}, {"id": 2, "file_name": "b.png"}], "annotations": [` + tc.ann + `], "categories": [{"id": 1, "name": "x"}]}`),
			"a.png":            encode(t, "png", testImage(4, 4, 0)),
			"b.png":            encode(t, "png", testImage(4, 4, 1)),
		})
		d := openDataset(t, dir)
		if _, err := d.load("a.png"); darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("annotation %s: %v, want invalid_input %q", tc.ann, err, tc.msg)
		}
		if _, err := d.load("b.png"); err != nil {
			t.Errorf("annotation %s broke the other image: %v", tc.ann, err)
		}
	}
}

func TestMask(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 5, 4))
	m.Pix[7] = 2
	data, err := FormatMask(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseMask("masks/a.png", data, 5, 4)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Pix, got.(*image.Gray).Pix); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := ParseMask("masks/a.png", data, 6, 4); darkroom.Code(err) != darkroom.MaskingError || err.Error() != "mask masks/a.png is 5x4, its image 6x4" {
		t.Errorf("wrong size: %v", err)
	}
	if _, err := ParseMask("masks/a.png", []byte("GIF89a"), 5, 4); darkroom.Code(err) != darkroom.MaskingError {
		t.Errorf("not a PNG: %v", err)
	}
	// Through a run: a mask of the wrong size skips its image with masking_error.
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{"a.png": encode(t, "png", testImage(6, 4, 0)), "masks/a.png": data})
	_, rep := run(t, dir, Options{Variants: 1, Augment: flipBright})
	if len(rep.Skipped) != 1 || rep.Skipped[0].Code != darkroom.MaskingError {
		t.Errorf("skipped %+v, want a.png with masking_error", rep.Skipped)
	}
}

// maskBomb is a PNG of about a hundred bytes whose header declares w x h pixels of
// 16-bit RGBA (colour type 6) or grey (0): only a decoder that trusts the header
// allocates its size (28.8 GB at 60000x60000 RGBA, which aborts the Go runtime).
func maskBomb(w, h int, colourType byte) []byte {
	return pngbomb.PNG(w, h, colourType, 16, pngbomb.OneByteIDAT)
}

// A mask is read header first: one that declares a huge image is its image's
// masking_error (or the budget's limit_exceeded when its size is the image's), and
// the run goes on; before, png.Decode allocated what the header said.
func TestMaskBomb(t *testing.T) {
	if _, err := ParseMask("masks/a.png", maskBomb(60000, 60000, 6), 6, 4); darkroom.Code(err) != darkroom.MaskingError {
		t.Errorf("60000x60000 RGBA16 mask of a 6x4 image: %v, want masking_error", err)
	}
	engine.SetDecodeBudget(64<<20, 0)
	defer engine.SetDecodeBudget(0, 0)
	if _, err := ParseMask("masks/a.png", maskBomb(15000, 15000, 0), 15000, 15000); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("15000x15000 grey16 mask beside its image, under a 64 MiB budget: %v, want limit_exceeded", err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{"a.png": encode(t, "png", testImage(6, 4, 0)), "masks/a.png": maskBomb(60000, 60000, 6),
		"b.png": encode(t, "png", testImage(6, 4, 1))})
	_, rep := run(t, dir, Options{Variants: 1, Augment: flipBright})
	if len(rep.Skipped) != 1 || rep.Skipped[0].Source != "a.png" || rep.Skipped[0].Code != darkroom.MaskingError {
		t.Errorf("skipped %+v, want a.png with masking_error", rep.Skipped)
	}
}
