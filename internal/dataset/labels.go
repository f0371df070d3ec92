package dataset

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Label formats, as they appear in dataset.json and in Labels.Format.
const (
	FormatNone = ""
	FormatYOLO = "yolo"
	FormatCOCO = "coco"
	FormatVOC  = "voc"
)

// Labels are one image's annotations in the neutral form an AugmentFunc moves:
// pixel coordinates with the origin at the top-left corner of the top-left pixel,
// x to the right and y down, whatever format they were read from.
type Labels struct {
	// Format is where they came from and how the variant's labels are written back;
	// the runner sets it and ignores what an AugmentFunc returns here.
	Format string `json:"format,omitempty"`
	// Width and Height are the size of the image the coordinates refer to.
	Width   int      `json:"width"`
	Height  int      `json:"height"`
	Objects []Object `json:"objects,omitempty"`
	// Mask is the image's label mask (masks/<dir>/<stem>.png), the same size as the
	// image, or nil. Its pixel values are class ids and must be moved, never
	// interpolated.
	Mask image.Image `json:"-"`
	// Instances is the COCO objects' segmentation as one 16-bit instance map (pixel
	// value k+1 is Objects[k], 0 none; see segmentation.go), or nil. An AugmentFunc
	// moves it exactly as it moves Mask.
	Instances image.Image `json:"-"`
}

// Object is one annotated object: a box, a class and optional keypoints.
type Object struct {
	// Class is the YOLO class index or the COCO category_id; for VOC it is the
	// index of Name in the dataset's class list.
	Class int    `json:"class"`
	Name  string `json:"name,omitempty"`
	// Box is [x0, y0, x1, y1] in pixels, x0 <= x1, y0 <= y1.
	Box       [4]float64 `json:"box"`
	Keypoints []Keypoint `json:"keypoints,omitempty"`
	// Attrs carries what the format says about an object that geometry does not
	// change (VOC pose, truncated, difficult; COCO iscrowd); an AugmentFunc copies it.
	Attrs map[string]string `json:"attrs,omitempty"`
	// ID is the object's id in its source file (a COCO annotation id, as written
	// there), kept so a variant's annotation names the one it was made from.
	ID string `json:"id,omitempty"`
	// Instance is the object's value in Labels.Instances (0: no segmentation); an
	// AugmentFunc copies it with the object.
	Instance int `json:"instance,omitempty"`
}

// Keypoint is a point in pixels. V is the COCO / YOLO-pose visibility: 0 not
// labelled, 1 labelled but hidden, 2 visible; a format without visibility reads 2.
type Keypoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	V int     `json:"v"`
}

func labelErr(name, format string, args ...any) *darkroom.Error {
	e := darkroom.Errorf(darkroom.InvalidInput, "labels %s: "+format, append([]any{name}, args...)...)
	e.Details = map[string]any{"file": name}
	return e
}

// ParseYOLO reads a YOLO label file: one object per line, "class cx cy w h" with the
// centre and size normalised to the image (0..1), optionally followed by keypoints
// (YOLO pose) as kdim numbers each (x y, or x y v when kdim is 3; 0 means "guess":
// 3 when the count divides by 3, else 2). Blank lines are ignored. name is the
// file's relative path, for errors only.
func ParseYOLO(name string, data []byte, w, h, kdim int) ([]Object, error) {
	var objs []Object
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n := i + 1
		if len(f) < 5 {
			return nil, labelErr(name, "line %d: %d fields, want class cx cy w h", n, len(f))
		}
		cls, err := strconv.Atoi(f[0])
		if err != nil || cls < 0 {
			return nil, labelErr(name, "line %d: class %q is not a non-negative integer", n, f[0])
		}
		var v [4]float64
		for j := range 4 {
			x, err := strconv.ParseFloat(f[1+j], 64)
			if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
				return nil, labelErr(name, "line %d: %q is not a number in [0, 1]", n, f[1+j])
			}
			v[j] = x
		}
		o := Object{Class: cls, Box: [4]float64{
			(v[0] - v[2]/2) * float64(w), (v[1] - v[3]/2) * float64(h),
			(v[0] + v[2]/2) * float64(w), (v[1] + v[3]/2) * float64(h),
		}}
		if rest := f[5:]; len(rest) > 0 {
			d := kdim
			if d == 0 {
				d = 2
				if len(rest)%3 == 0 {
					d = 3
				}
			}
			if len(rest)%d != 0 {
				return nil, labelErr(name, "line %d: %d keypoint numbers are not a multiple of %d", n, len(rest), d)
			}
			for k := 0; k < len(rest); k += d {
				var p [3]float64
				for j := range d {
					x, err := strconv.ParseFloat(rest[k+j], 64)
					if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
						return nil, labelErr(name, "line %d: keypoint value %q is not a number", n, rest[k+j])
					}
					p[j] = x
				}
				kp := Keypoint{X: p[0] * float64(w), Y: p[1] * float64(h), V: 2}
				if d == 3 {
					kp.V = int(p[2])
					if float64(kp.V) != p[2] || kp.V < 0 || kp.V > 2 {
						return nil, labelErr(name, "line %d: keypoint visibility %q is not 0, 1 or 2", n, rest[k+2])
					}
				}
				o.Keypoints = append(o.Keypoints, kp)
			}
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// FormatYOLOFile writes objects as a YOLO label file for an image of w x h pixels, six
// decimals per number; keypoints take kdim numbers each (3 writes the visibility).
func FormatYOLOFile(objs []Object, w, h, kdim int) []byte {
	var b bytes.Buffer
	num := func(x float64) {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(x, 'f', 6, 64))
	}
	for _, o := range objs {
		b.WriteString(strconv.Itoa(o.Class))
		x0, y0, x1, y1 := o.Box[0], o.Box[1], o.Box[2], o.Box[3]
		num((x0 + x1) / 2 / float64(w))
		num((y0 + y1) / 2 / float64(h))
		num((x1 - x0) / float64(w))
		num((y1 - y0) / float64(h))
		for _, k := range o.Keypoints {
			num(k.X / float64(w))
			num(k.Y / float64(h))
			if kdim == 3 {
				b.WriteByte(' ')
				b.WriteString(strconv.Itoa(k.V))
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ParseClassesTxt reads classes.txt: one class name per line, the line's index is
// the class id. Trailing blank lines are dropped.
func ParseClassesTxt(data []byte) []string {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return lines
}

// ParseDataYAML reads the class names and keypoint shape of an Ultralytics data.yaml:
// names is a list or a map from index to name; kpt_shape is [count, dim]. The file
// is one YAML document whose top level is a mapping (its other keys, such as path
// and train, are not read); anything else is invalid_input.
func ParseDataYAML(name string, data []byte) (names []string, kdim int, err error) {
	// A YAML decoder that panics on malformed input (cuelang.org/go v0.17.1's did on
	// "\r\r0", found by FuzzLabels) must not end the run or the server: a bad
	// data.yaml is the user's error, not a crash.
	defer func() {
		if p := recover(); p != nil {
			names, kdim, err = nil, 0, labelErr(name, "not YAML (the decoder failed: %v)", p)
		}
	}()
	top, err := dataYAMLTop(name, data)
	if err != nil {
		return nil, 0, err
	}
	if n, ok := top["names"]; ok {
		if names, err = dataYAMLNames(name, &n); err != nil {
			return nil, 0, err
		}
	}
	var kptShape []int
	if n, ok := top["kpt_shape"]; ok {
		if kptShape, err = dataYAMLInts(&n); err != nil {
			return nil, 0, labelErr(name, "names or kpt_shape has the wrong shape: kpt_shape: %v", err)
		}
	}
	if len(kptShape) == 2 {
		kdim = kptShape[1]
		if kdim != 2 && kdim != 3 {
			return nil, 0, labelErr(name, "kpt_shape: dimension %d is not 2 or 3", kdim)
		}
	}
	return names, kdim, nil
}

// dataYAMLTop reads data.yaml's one document, a mapping, by key. The YAML reader is
// go.yaml.in/yaml/v3, the one cuelang.org/go reads YAML with: the same YAML 1.2
// scalars (yes is a string, 0x10 an integer), merge keys (<<) and refusals of
// repeated keys, without evaluating CUE to read a file of data.
func dataYAMLTop(name string, data []byte) (map[string]yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, labelErr(name, "not YAML with names or kpt_shape: the file holds no document")
		}
		return nil, labelErr(name, "not YAML: %v", firstLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, labelErr(name, "not YAML with names or kpt_shape: want one document, not several")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, labelErr(name, "not YAML with names or kpt_shape: the document is %s, want a mapping", nodeKind(root))
	}
	var top map[string]yaml.Node
	if err := root.Decode(&top); err != nil {
		return nil, labelErr(name, "not YAML: %v", firstLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	return top, nil
}

// dataYAMLNames reads names: a list of strings, or a map from 0..n-1 to strings.
func dataYAMLNames(name string, n *yaml.Node) ([]string, error) {
	n = unalias(n)
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil, nil
	case n.Kind == yaml.SequenceNode:
		names := make([]string, 0, len(n.Content))
		for i, x := range n.Content {
			x = unalias(x)
			if x.Kind != yaml.ScalarNode || x.Tag != "!!str" {
				return nil, labelErr(name, "names[%d] is not a string", i)
			}
			names = append(names, x.Value)
		}
		return names, nil
	case n.Kind == yaml.MappingNode:
		var m map[string]yaml.Node
		if err := n.Decode(&m); err != nil {
			return nil, labelErr(name, "not YAML: %v", firstLine(strings.TrimPrefix(err.Error(), "yaml: ")))
		}
		names := make([]string, len(m))
		for k, x := range m {
			// A key is an index as written in decimal: 0x1 or 01 is not one.
			i, err := strconv.Atoi(k)
			v := unalias(&x)
			if err != nil || i < 0 || i >= len(m) || strconv.Itoa(i) != k || v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				return nil, labelErr(name, "names: want a list, or a map from 0..%d to strings", len(m)-1)
			}
			names[i] = v.Value
		}
		return names, nil
	}
	return nil, labelErr(name, "names: want a list or a map")
}

// dataYAMLInts reads a list of integers.
func dataYAMLInts(n *yaml.Node) ([]int, error) {
	n = unalias(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s is not a list", nodeKind(n))
	}
	out := make([]int, len(n.Content))
	for i, x := range n.Content {
		x = unalias(x)
		if x.Kind != yaml.ScalarNode || x.Tag != "!!int" {
			return nil, fmt.Errorf("%d: %s is not an integer", i, nodeKind(x))
		}
		if err := x.Decode(&out[i]); err != nil {
			return nil, fmt.Errorf("%d: %v", i, err)
		}
	}
	return out, nil
}

func unalias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// nodeKind names what a node holds, for messages: a mapping, a list, or a
// scalar's value and tag.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q (%s)", n.Value, strings.TrimPrefix(n.Tag, "!!"))
	}
	return "empty"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// VOC is a Pascal VOC annotation file. Only the fields darkroom reads or writes are
// kept; anything else in the input is not carried to the variants.
type vocAnnotation struct {
	XMLName   xml.Name    `xml:"annotation"`
	Folder    string      `xml:"folder,omitempty"`
	Filename  string      `xml:"filename"`
	Size      vocSize     `xml:"size"`
	Segmented int         `xml:"segmented"`
	Objects   []vocObject `xml:"object"`
}

type vocSize struct {
	Width  int `xml:"width"`
	Height int `xml:"height"`
	Depth  int `xml:"depth"`
}

type vocObject struct {
	Name      string `xml:"name"`
	Pose      string `xml:"pose,omitempty"`
	Truncated string `xml:"truncated,omitempty"`
	Difficult string `xml:"difficult,omitempty"`
	Box       struct {
		XMin string `xml:"xmin"`
		YMin string `xml:"ymin"`
		XMax string `xml:"xmax"`
		YMax string `xml:"ymax"`
	} `xml:"bndbox"`
}

// ParseVOC reads a Pascal VOC XML file. VOC boxes are 1-based inclusive pixel indices,
// so pixel [xmin, xmax] covers [xmin-1, xmax] in the neutral form. Objects get their
// Name; Class is left to the caller (the dataset's class list).
func ParseVOC(name string, data []byte) (objs []Object, depth int, err error) {
	var a vocAnnotation
	if err := xml.Unmarshal(data, &a); err != nil {
		return nil, 0, labelErr(name, "not Pascal VOC XML: %v", err)
	}
	for i, o := range a.Objects {
		if strings.TrimSpace(o.Name) == "" {
			return nil, 0, labelErr(name, "object %d has no name", i+1)
		}
		var v [4]float64
		for j, s := range []string{o.Box.XMin, o.Box.YMin, o.Box.XMax, o.Box.YMax} {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, 0, labelErr(name, "object %d (%s): bndbox value %q is not a number", i+1, o.Name, s)
			}
			v[j] = x
		}
		if v[2] < v[0] || v[3] < v[1] {
			return nil, 0, labelErr(name, "object %d (%s): xmax < xmin or ymax < ymin", i+1, o.Name)
		}
		obj := Object{Name: strings.TrimSpace(o.Name), Box: [4]float64{v[0] - 1, v[1] - 1, v[2], v[3]}}
		for k, s := range map[string]string{"pose": o.Pose, "truncated": o.Truncated, "difficult": o.Difficult} {
			if s != "" {
				if obj.Attrs == nil {
					obj.Attrs = map[string]string{}
				}
				obj.Attrs[k] = s
			}
		}
		objs = append(objs, obj)
	}
	return objs, a.Size.Depth, nil
}

// FormatVOCFile writes a Pascal VOC XML file for the image file (its base name) of
// w x h pixels. Box corners are rounded to whole pixels, as VOC tools expect.
func FormatVOCFile(folder, file string, w, h, depth int, objs []Object) []byte {
	a := vocAnnotation{Folder: folder, Filename: file, Size: vocSize{w, h, depth}}
	for _, o := range objs {
		var v vocObject
		v.Name = o.Name
		v.Pose, v.Truncated, v.Difficult = o.Attrs["pose"], o.Attrs["truncated"], o.Attrs["difficult"]
		v.Box.XMin = strconv.Itoa(int(math.Round(o.Box[0])) + 1)
		v.Box.YMin = strconv.Itoa(int(math.Round(o.Box[1])) + 1)
		v.Box.XMax = strconv.Itoa(int(math.Round(o.Box[2])))
		v.Box.YMax = strconv.Itoa(int(math.Round(o.Box[3])))
		a.Objects = append(a.Objects, v)
	}
	out, err := xml.MarshalIndent(a, "", "\t")
	if err != nil {
		// Only strings and ints, which always marshal.
		panic(fmt.Sprintf("marshal VOC: %v", err))
	}
	return append(out, '\n')
}

// ParseMask decodes a PNG label mask and checks that it is w x h, through the
// engine's header-first, budgeted decode (engine.DecodeLabelMask): a mask whose
// header states another size, or colours, is refused before any pixel is
// decoded, whatever size it claims.
func ParseMask(name string, data []byte, w, h int) (image.Image, error) {
	m, err := engine.DecodeLabelMask(data, w, h, engine.DecodeOptions{})
	if err == nil {
		return m, nil
	}
	var e *darkroom.Error
	switch {
	case darkroom.Code(err) == darkroom.LimitExceeded:
		e = darkroom.Wrap(darkroom.LimitExceeded, err, "mask %s", name)
	case errors.As(err, &e) && e.Details["mask_width"] != nil:
		e = darkroom.Errorf(darkroom.MaskingError, "mask %s is %dx%d, its image %dx%d", name, e.Details["mask_width"], e.Details["mask_height"], w, h)
	default:
		e = darkroom.Wrap(darkroom.MaskingError, err, "mask %s", name)
	}
	e.Details = map[string]any{"file": name}
	return nil, e
}

// FormatMask encodes a label mask as PNG (lossless, so class ids survive).
func FormatMask(m image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, m); err != nil {
		return nil, darkroom.Wrap(darkroom.RenderError, err, "encode mask")
	}
	return b.Bytes(), nil
}
