package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"path"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// cocoInput is what darkroom reads of a COCO instances file. Categories, info and
// licenses are carried to the output verbatim. The annotations, most of a large
// file, are not decoded with the rest: annotations holds where they are in the
// file, and parseCOCO reads them one at a time (see cocoSpan).
type cocoInput struct {
	Info        json.RawMessage   `json:"info"`
	Licenses    json.RawMessage   `json:"licenses"`
	Images      []cocoImageIn     `json:"images"`
	Annotations cocoSpan          `json:"annotations"`
	Categories  []json.RawMessage `json:"categories"`
}

// cocoSpan is a JSON value's bytes within the file parseCOCO was given: json.Unmarshal
// hands an Unmarshaler a slice of its input, which stays valid as long as the input
// (parseCOCO's data, unchanged while it runs) does, so nothing is copied.
type cocoSpan []byte

func (c *cocoSpan) UnmarshalJSON(b []byte) error {
	*c = b
	return nil
}

type cocoImageIn struct {
	ID       json.Number `json:"id"`
	FileName string      `json:"file_name"`
	Width    int         `json:"width"`
	Height   int         `json:"height"`
}

type cocoAnnIn struct {
	ID           json.Number     `json:"id"`
	Segmentation json.RawMessage `json:"segmentation"`
	ImageID      json.Number     `json:"image_id"`
	CategoryID   int             `json:"category_id"`
	BBox         []float64       `json:"bbox"`
	IsCrowd      *int            `json:"iscrowd"`
	Keypoints    []float64       `json:"keypoints"`
}

// cocoMeta is the dataset-level part of a COCO file that every variant shares; it is
// kept in darkroom-dataset.json so Merge can write the output file from manifests.
type cocoMeta struct {
	File       string            `json:"file"`
	Info       json.RawMessage   `json:"info,omitempty"`
	Licenses   json.RawMessage   `json:"licenses,omitempty"`
	Categories []json.RawMessage `json:"categories"`
	// MaxImageID and MaxAnnotationID are the largest integer ids of the input: the
	// variants' ids start above them, so they never collide with the sources'.
	MaxImageID      int64 `json:"max_image_id,omitempty"`
	MaxAnnotationID int64 `json:"max_annotation_id,omitempty"`
}

// cocoSet is a parsed COCO file: the objects of each image by its relative path.
type cocoSet struct {
	meta    cocoMeta
	objects map[string][]Object
	errs    map[string]error // per image: a bad annotation
	ids     map[string]json.Number
	// segms are the objects' segmentations, parallel to objects (nil: none).
	segms map[string][]*segmentation
}

// parseCOCO reads a COCO instances file. images are the relative paths of the images
// found in the folder; a COCO image is matched by file_name as a path relative to the
// folder, or by base name when that is unique among the images. A file that is not a
// COCO file at all is an error for the whole dataset; a bad annotation is an error
// for its image only.
//
// The file is read in two passes over data, so that what the parse holds is about
// what it keeps (the objects) rather than a decoded copy of the whole file: the
// first decodes everything but the annotations (json.Unmarshal, which copies
// nothing it does not keep), the second reads the annotations one at a time with
// a json.Decoder, each turned into an Object before the next is read.
func parseCOCO(name string, data []byte, images []string) (*cocoSet, error) {
	var in cocoInput
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, labelErr(name, "not a COCO instances file: %v", err)
	}
	byBase := map[string][]string{}
	have := map[string]bool{}
	for _, p := range images {
		have[p] = true
		byBase[path.Base(p)] = append(byBase[path.Base(p)], p)
	}
	names := map[int]string{}
	for i, c := range in.Categories {
		var cat struct {
			ID   *int   `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(c, &cat); err != nil || cat.ID == nil {
			return nil, labelErr(name, "categories[%d] has no integer id", i)
		}
		names[*cat.ID] = cat.Name
	}
	s := &cocoSet{
		meta:    cocoMeta{File: name, Info: in.Info, Licenses: in.Licenses, Categories: in.Categories},
		objects: map[string][]Object{},
		errs:    map[string]error{},
		ids:     map[string]json.Number{},
		segms:   map[string][]*segmentation{},
	}
	for _, im := range in.Images {
		if n, err := im.ID.Int64(); err == nil {
			s.meta.MaxImageID = max(s.meta.MaxImageID, n)
		}
	}
	if s.meta.Categories == nil {
		s.meta.Categories = []json.RawMessage{}
	}
	type img struct {
		rel  string
		w, h int
	}
	byID := map[string]img{}
	for i, im := range in.Images {
		rel := path.Clean(im.FileName)
		if !have[rel] {
			if c := byBase[path.Base(rel)]; len(c) == 1 {
				rel = c[0]
			} else {
				// An image the folder does not hold (or cannot tell apart): its
				// annotations have nothing to move with.
				byID[im.ID.String()] = img{}
				continue
			}
		}
		if _, dup := s.objects[rel]; dup {
			return nil, labelErr(name, "images[%d]: %s is listed twice", i, rel)
		}
		s.objects[rel] = []Object{}
		s.ids[rel] = im.ID
		byID[im.ID.String()] = img{rel, im.Width, im.Height}
	}
	// One interned Attrs map per iscrowd value: objects only read their Attrs, and
	// a map per object costs more than the object.
	crowd := map[int]map[string]string{}
	err := eachCOCOAnnotation(in.Annotations, func(i int, a *cocoAnnIn) error {
		if n, err := a.ID.Int64(); err == nil {
			s.meta.MaxAnnotationID = max(s.meta.MaxAnnotationID, n)
		}
		im, ok := byID[a.ImageID.String()]
		if !ok {
			return labelErr(name, "annotations[%d]: image_id %s is not in images", i, a.ImageID)
		}
		if im.rel == "" || s.errs[im.rel] != nil {
			return nil
		}
		bad := func(format string, args ...any) error {
			s.errs[im.rel] = labelErr(name, "annotations[%d] (image %s): "+format, append([]any{i, im.rel}, args...)...)
			return nil
		}
		if len(a.BBox) != 4 {
			return bad("bbox has %d numbers, want [x, y, width, height]", len(a.BBox))
		}
		if a.BBox[2] < 0 || a.BBox[3] < 0 || anyNonFinite(a.BBox) || anyNonFinite(a.Keypoints) {
			return bad("bbox %v is not a box", a.BBox)
		}
		cat, ok := names[a.CategoryID]
		if !ok {
			return bad("category_id %d is not in categories", a.CategoryID)
		}
		if len(a.Keypoints)%3 != 0 {
			return bad("%d keypoint numbers are not triples x, y, v", len(a.Keypoints))
		}
		o := Object{Class: a.CategoryID, Name: cat, Box: [4]float64{a.BBox[0], a.BBox[1], a.BBox[0] + a.BBox[2], a.BBox[1] + a.BBox[3]}}
		if a.IsCrowd != nil {
			if crowd[*a.IsCrowd] == nil {
				crowd[*a.IsCrowd] = map[string]string{"iscrowd": fmt.Sprint(*a.IsCrowd)}
			}
			o.Attrs = crowd[*a.IsCrowd]
		}
		o.ID = a.ID.String()
		segm, err := parseSegmentation(a.Segmentation)
		if err != nil {
			return bad("%v", err)
		}
		s.segms[im.rel] = append(s.segms[im.rel], segm)
		if len(a.Keypoints) > 0 {
			o.Keypoints = make([]Keypoint, 0, len(a.Keypoints)/3)
		}
		for k := 0; k < len(a.Keypoints); k += 3 {
			o.Keypoints = append(o.Keypoints, Keypoint{X: a.Keypoints[k], Y: a.Keypoints[k+1], V: int(a.Keypoints[k+2])})
		}
		s.objects[im.rel] = append(s.objects[im.rel], o)
		if len(s.segms[im.rel]) != len(s.objects[im.rel]) {
			return labelErr(name, "annotations[%d]: internal: segmentations out of step", i)
		}
		return nil
	})
	if err != nil {
		if _, ok := err.(*darkroom.Error); ok {
			return nil, err
		}
		return nil, labelErr(name, "not a COCO instances file: %v", err)
	}
	return s, nil
}

// eachCOCOAnnotation calls f with each annotation of a COCO annotations array (null
// or absent: none), decoded one at a time into the same value: f must not keep a.
func eachCOCOAnnotation(span cocoSpan, f func(i int, a *cocoAnnIn) error) error {
	if len(span) == 0 || string(span) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(span))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return fmt.Errorf("annotations is not a list")
	}
	var a cocoAnnIn
	for i := 0; dec.More(); i++ {
		a = cocoAnnIn{BBox: a.BBox[:0], Keypoints: a.Keypoints[:0]}
		if err := dec.Decode(&a); err != nil {
			return fmt.Errorf("annotations[%d]: %w", i, err)
		}
		if err := f(i, &a); err != nil {
			return err
		}
	}
	return nil
}

func anyNonFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// cocoAnn is one output annotation as a manifest record keeps it (no ids: those are
// numbered when the file is written, in manifest order).
type cocoAnn struct {
	// SourceID is the id of the annotation it was moved from.
	SourceID     json.RawMessage `json:"source_id,omitempty"`
	CategoryID   int             `json:"category_id"`
	BBox         []float64       `json:"bbox"`
	Area         float64         `json:"area"`
	IsCrowd      int             `json:"iscrowd"`
	Keypoints    []float64       `json:"keypoints,omitempty"`
	NumKeypoints *int            `json:"num_keypoints,omitempty"`
	// Segmentation is the moved segmentation (segmentation.go).
	Segmentation *cocoRLE `json:"segmentation,omitempty"`
}

// toCOCO writes a variant's objects as COCO annotations. An object with a
// segmentation reads it from the moved instance map: its RLE, its area (the pixels
// still showing it) and its bbox (their extent) come from there.
func toCOCO(objs []Object, instances image.Image) []cocoAnn {
	anns := []cocoAnn{}
	for _, o := range objs {
		w, h := o.Box[2]-o.Box[0], o.Box[3]-o.Box[1]
		a := cocoAnn{CategoryID: o.Class, BBox: []float64{o.Box[0], o.Box[1], w, h}, Area: w * h}
		if o.ID != "" {
			a.SourceID = json.RawMessage(o.ID)
		}
		if o.Instance > 0 && instances != nil {
			rle, area, box := instanceRLE(instances, o.Instance)
			a.Segmentation, a.Area = &rle, float64(area)
			if area > 0 {
				a.BBox = []float64{box[0], box[1], box[2] - box[0], box[3] - box[1]}
			}
		}
		fmt.Sscan(o.Attrs["iscrowd"], &a.IsCrowd)
		if len(o.Keypoints) > 0 {
			n := 0
			for _, k := range o.Keypoints {
				a.Keypoints = append(a.Keypoints, k.X, k.Y, float64(k.V))
				if k.V > 0 {
					n++
				}
			}
			a.NumKeypoints = &n
		}
		anns = append(anns, a)
	}
	return anns
}

// formatCOCO writes the output COCO file from sorted manifest records: image ids
// 1..n in record order, annotation ids 1..m, so it depends on nothing but the records.
func formatCOCO(meta *cocoMeta, recs []Record) ([]byte, error) {
	type imageOut struct {
		ID       int64  `json:"id"`
		FileName string `json:"file_name"`
		Width    int    `json:"width"`
		Height   int    `json:"height"`
		// SourceID is the id of the image the variant was made from.
		SourceID json.RawMessage `json:"source_id,omitempty"`
	}
	type annOut struct {
		ID      int64 `json:"id"`
		ImageID int64 `json:"image_id"`
		cocoAnn
	}
	out := struct {
		Info        json.RawMessage   `json:"info,omitempty"`
		Licenses    json.RawMessage   `json:"licenses,omitempty"`
		Images      []imageOut        `json:"images"`
		Annotations []annOut          `json:"annotations"`
		Categories  []json.RawMessage `json:"categories"`
	}{Info: meta.Info, Licenses: meta.Licenses, Images: []imageOut{}, Annotations: []annOut{}, Categories: meta.Categories}
	for _, r := range recs {
		if r.COCO == nil {
			continue
		}
		// Above the input's ids: a variant's never collide with a source's.
		id := meta.MaxImageID + int64(len(out.Images)) + 1
		out.Images = append(out.Images, imageOut{id, r.Output, r.Width, r.Height, r.SourceImageID})
		for _, a := range *r.COCO {
			out.Annotations = append(out.Annotations, annOut{meta.MaxAnnotationID + int64(len(out.Annotations)) + 1, id, a})
		}
	}
	// Compact, like the COCO releases: indenting puts every number of every bbox on
	// a line of its own.
	b, err := json.Marshal(out)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "encode %s", meta.File)
	}
	return append(b, '\n'), nil
}
