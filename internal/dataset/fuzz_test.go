package dataset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzLabels: no label file, however malformed, panics a reader (a panic would end
// the run, or the server); what YOLO accepts, it writes back and reads again alike.
func FuzzLabels(f *testing.F) {
	for _, s := range []string{
		"0 0.5 0.5 0.2 0.2\n",
		"1 0.5 0.5 1 1 0.25 0.5 2 0.75 0.5 0\n",
		"<annotation><object><name>a</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object></annotation>",
		`{"images": [{"id": 1, "file_name": "a.png"}], "annotations": [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "keypoints": [1, 2, 2]}], "categories": [{"id": 1, "name": "x"}]}`,
		"names: [a, b]\nkpt_shape: [2, 3]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if objs, err := ParseYOLO("x.txt", data, 64, 48, 0); err == nil {
			again, err := ParseYOLO("x.txt", FormatYOLOFile(objs, 64, 48, yoloKeypointDim(data, 0)), 64, 48, yoloKeypointDim(data, 0))
			if err != nil {
				t.Fatalf("written YOLO does not read back: %v", err)
			}
			if diff := cmp.Diff(objs, again, cmpopts.EquateApprox(0, 1e-4), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("YOLO round trip (-read +again):\n%s", diff)
			}
		}
		if objs, depth, err := ParseVOC("x.xml", data); err == nil {
			FormatVOCFile("", "x.png", 64, 48, depth, objs)
		}
		ParseDataYAML("data.yaml", data)
		if s, err := parseCOCO("a.json", data, []string{"a.png", "b/a.png"}); err == nil {
			var recs []Record
			for rel, objs := range s.objects {
				anns := toCOCO(objs, nil)
				recs = append(recs, Record{Source: rel, Output: rel, COCO: &anns})
			}
			formatCOCO(&s.meta, recs)
		}
	})
}
