package augment

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// AlbumentationsVersion is the albumentations version albumentations.json is written
// for (its parameter names are 1.3.1's).
const AlbumentationsVersion = "1.3.1"

// ExportOptions are what albumentations.json says beside the transforms.
type ExportOptions struct {
	// BoxFormat and MinVisibility become bbox_params when BoxFormat is set;
	// Keypoints adds keypoint_params (format xy). BoxLabels and KeypointLabels
	// name a label field ("labels", "keypoint_labels") for the labels given.
	BoxFormat      string
	MinVisibility  float64
	Keypoints      bool
	BoxLabels      bool
	KeypointLabels bool
}

// ExportSkipped is a step albumentations.json does not carry, or carries with a
// value it could not write.
type ExportSkipped struct {
	Step   int    `json:"step"`
	Entry  string `json:"entry"`
	Reason string `json:"reason"`
}

// writer is an entry's albumentations counterpart: the class, its reading, the step.
type writer struct {
	class   string
	reading *AlbuReading
}

// writers maps each entry to the first writable single-step reading, classes in
// name order.
func (m *AlbuMap) writers() map[string]writer {
	out := map[string]writer{}
	for _, cls := range slices.Sorted(maps.Keys(m.Transforms)) {
		for i := range m.Transforms[cls] {
			r := &m.Transforms[cls][i]
			if !r.Write || len(r.Steps) != 1 {
				continue
			}
			if _, ok := out[r.Steps[0].Entry]; !ok {
				out[r.Steps[0].Entry] = writer{cls, r}
			}
		}
	}
	return out
}

// Export writes a pipeline as A.to_dict writes one (albumentations 1.3.1), for an
// image of w x h pixels (sizes in pixels are the image's): each step through its
// entry's reading backwards, each group as its container, nested as the groups
// nest. A step without a
// counterpart, or a value albumentations cannot take, is left out and listed, in the
// returned list and in the file's darkroom_skipped.
func (m *AlbuMap) Export(p Pipeline, voc *vocab.Vocabulary, w, h int, opt ExportOptions) ([]byte, []ExportSkipped, error) {
	ws := m.writers()
	im := &importer{w: w, h: h}
	skipped := []ExportSkipped{}
	top := m.exportNodes(ws, voc, im, p, p.tree(0, len(p), 0), &skipped)
	var bp, kp any
	if opt.BoxFormat != "" {
		bp = map[string]any{"format": opt.BoxFormat, "label_fields": labelFields(opt.BoxLabels, "labels"), "min_area": 0.0,
			"min_visibility": opt.MinVisibility, "min_width": 0.0, "min_height": 0.0, "check_each_transform": true}
	}
	if opt.Keypoints {
		kp = map[string]any{"format": "xy", "label_fields": labelFields(opt.KeypointLabels, "keypoint_labels"), "remove_invisible": true,
			"angle_in_degrees": true, "check_each_transform": true}
	}
	doc := map[string]any{
		"__version__":      AlbumentationsVersion,
		"transform":        compose(top, 1, bp, kp),
		"darkroom_skipped": skipped,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(b, '\n'), skipped, nil
}

// exportNodes writes members as transforms: a step as its class, a group as its
// container holding its members (a group left empty by skipped steps is left out).
func (m *AlbuMap) exportNodes(ws map[string]writer, voc *vocab.Vocabulary, im *importer, p Pipeline, nodes []node, skipped *[]ExportSkipped) []any {
	out := []any{}
	for _, nd := range nodes {
		if nd.g == nil {
			if d, ok := m.exportStep(ws, voc, im, nd.t, p[nd.t], skipped); ok {
				out = append(out, d)
			}
			if p[nd.t].P == 1 && p[nd.t].Group == nil {
				// The pixel sizes after it are of the image it leaves.
				im.w, im.h = m.frame(voc, p[nd.t:nd.t+1], im.w, im.h)
			}
			continue
		}
		g := nd.g
		kids := m.exportNodes(ws, voc, im, p, nd.kids, skipped)
		if len(kids) == 0 {
			continue
		}
		c := map[string]any{"p": g.P, "transforms": kids}
		switch g.Kind {
		case "one_of":
			c["__class_fullname__"] = "OneOf"
		case "some_of":
			c["__class_fullname__"] = "SomeOf"
			c["n"], c["replace"] = g.N, g.Replace
		case "one_or_other":
			c["__class_fullname__"] = "OneOrOther"
			if len(kids) != 2 {
				c["__class_fullname__"] = "OneOf"
			}
		default:
			// albumentations 1.3.1 runs a Sequential whatever its p; a nested
			// Compose keeps it, and runs when picked as darkroom's group does.
			c = compose(kids, g.P, nil, nil)
		}
		out = append(out, c)
	}
	return out
}

func labelFields(given bool, name string) any {
	if given {
		return []string{name}
	}
	return nil
}

func compose(kids []any, p float64, bp, kp any) map[string]any {
	return map[string]any{"__class_fullname__": "Compose", "p": p, "transforms": kids,
		"bbox_params": bp, "keypoint_params": kp, "additional_targets": map[string]any{}, "is_check_shapes": true}
}

// exportStep writes step t as its class; ok is false when it has none.
func (m *AlbuMap) exportStep(ws map[string]writer, voc *vocab.Vocabulary, im *importer, t int, s Step, skipped *[]ExportSkipped) (map[string]any, bool) {
	skip := func(format string, args ...any) {
		*skipped = append(*skipped, ExportSkipped{Step: t, Entry: s.Entry, Reason: fmt.Sprintf(format, args...)})
	}
	wr, ok := ws[s.Entry]
	e, known := voc.Entry(s.Entry)
	if !ok || !known {
		skip("no albumentations transform does what %s does", s.Entry)
		return nil, false
	}
	d := map[string]any{"__class_fullname__": wr.class, "always_apply": false, "p": s.P}
	for k, v := range wr.reading.WriteSet {
		d[k] = v
	}
	rs := wr.reading.Steps[0]
	// tuples gathers the elements of a tuple parameter that entry parameters carry
	// one each (flare_roi.0 .. flare_roi.3), tupleOf the entry parameters of each.
	tuples, tupleOf := map[string]map[int]any{}, map[string][]string{}
	// halves gathers a range written from its middle and its half width
	// (MultiplicativeNoise's multiplier from center and spread), by name.
	halves := map[string]map[string]float64{}
	halfSrc := map[string]AlbuSource{}
	for _, name := range slices.Sorted(maps.Keys(e.Parameters)) {
		par := e.Parameters[name]
		v, given := s.Params[name]
		if !given {
			v = Fixed(par.Default)
		}
		ap, mapped := rs.Params[name]
		switch {
		case !mapped:
			if v != Fixed(par.Default) {
				skip("%s %s has no albumentations counterpart in %s; written without it", name, fmtValue(v), wr.class)
			}
			continue
		case ap.Value != nil:
			if v != *ap.Value {
				skip("%s %s: albumentations' %s does only %s; written as that", name, fmtValue(v), wr.class, fmtValue(*ap.Value))
			}
			continue
		}
		src, ok := writeSource(ap.From)
		if !ok {
			if root, i, ok := tupleSource(ap.From); ok && v.Lo == v.Hi {
				// One element of a tuple (RandomSunFlare's flare_roi.0): written
				// with the others below.
				if x, _, err := im.invert(ap.From[0], v); err == nil {
					if tuples[root] == nil {
						tuples[root] = map[int]any{}
					}
					tuples[root][i] = x
					tupleOf[root] = append(tupleOf[root], name)
					continue
				}
			}
			skip("%s: no albumentations 1.3.1 parameter carries it", name)
			continue
		}
		if src.Reduce == "middle" || src.Reduce == "half_width" {
			x := v.Lo
			if v.Lo != v.Hi {
				x = (v.Lo + v.Hi) / 2
				skip("%s %s: albumentations draws from one %s range; written with the middle, %v", name, fmtValue(v), src.Name, round7(x))
			}
			if halves[src.Name] == nil {
				halves[src.Name] = map[string]float64{}
			}
			halves[src.Name][src.Reduce] = x
			halfSrc[src.Name] = src
			continue
		}
		lo, hi, err := im.invert(src, v)
		if err != nil {
			skip("%s %s: %v", name, fmtValue(v), err)
			continue
		}
		if src.Default == nil && src.Per != "none" && src.Per != "" && v.Hi <= 0 {
			// A size albumentations requires (no default) that darkroom leaves at
			// none (random_crop by area, with no width and height).
			skip("%s %s is no size in pixels, which %s requires", name, fmtValue(v), wr.class)
			return nil, false
		}
		switch {
		case src.NameHi != "":
			d[src.Name], d[src.NameHi] = lo, hi
		case src.Scalar == "flag":
			if lo != hi {
				skip("%s %s: albumentations' %s is true or false; written as %v", name, fmtValue(v), wr.class, hi)
			}
			d[src.Name] = v.Hi != 0
		case lo == hi && src.Scalar == "pair":
			// A range albumentations requires even when it is one value.
			d[src.Name] = []any{lo, lo}
		case lo == hi && src.Scalar == "grey":
			// A grey for every channel: a scalar fills only the first in OpenCV.
			d[src.Name] = []any{lo, lo, lo}
		case lo == hi && src.Scalar == "fixed":
			d[src.Name] = lo
		case src.Single:
			mid, _, _ := im.invert(src, Fixed((v.Lo+v.Hi)/2))
			skip("%s %s: albumentations' %s takes one %s; written as the middle, %v", name, fmtValue(v), wr.class, src.Name, mid)
			d[src.Name] = mid
		default:
			d[src.Name] = []any{lo, hi}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(halves)) {
		src, h := halfSrc[name], halves[name]
		src.Reduce = "none"
		lo, hi, err := im.invert(src, Value{h["middle"] - h["half_width"], h["middle"] + h["half_width"]})
		if err != nil {
			skip("%s: %v", name, err)
			continue
		}
		d[name] = []any{lo, hi}
	}
	for _, root := range slices.Sorted(maps.Keys(tuples)) {
		els := tuples[root]
		list := make([]any, len(els))
		whole := len(els) >= 2
		for i := range list {
			x, ok := els[i]
			whole = whole && ok
			list[i] = x
		}
		if whole {
			d[root] = list
			continue
		}
		for _, name := range tupleOf[root] {
			skip("%s: no albumentations 1.3.1 parameter carries it", name)
		}
	}
	return d, true
}

// tupleSource says, for a parameter read only from an element of a tuple (a path
// root.i, i a whole number, as flare_roi.0), the tuple and the element.
func tupleSource(from []AlbuSource) (string, int, bool) {
	if len(from) != 1 || from[0].Dialect == "2" {
		return "", 0, false
	}
	root, idx, dotted := cut(from[0].Name)
	i, err := strconv.Atoi(idx)
	if !dotted || err != nil || i < 0 || i > 8 {
		return "", 0, false
	}
	return root, i, true
}

// writeSource is the first source albumentations 1.3.1 reads (not a 2.x name, not a
// path into an object).
func writeSource(from []AlbuSource) (AlbuSource, bool) {
	for _, s := range from {
		if s.Dialect == "2" {
			continue
		}
		if _, _, dotted := cut(s.Name); dotted {
			continue
		}
		return s, true
	}
	return AlbuSource{}, false
}

func cut(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// invert reads a darkroom value back into albumentations' units: numbers, kernel
// sizes odd whole pixels, pixel sizes whole pixels.
func (im *importer) invert(src AlbuSource, v Value) (any, any, error) {
	one := func(d float64) (float64, error) {
		x := ((d-src.Add)*im.per(src) - src.Offset) / src.Scale
		switch src.Fn {
		case "sqrt":
			x = x * x
		case "log2":
			x = math.Exp2(x)
		case "log2_1p":
			x = math.Exp2(x) - 1
		}
		if src.Scalar == "kernel" {
			k := math.Max(3, 2*math.Round((x-1)/2)+1)
			return k, nil
		}
		return round7(x), nil
	}
	a, err := one(v.Lo)
	if err != nil {
		return nil, nil, err
	}
	b, err := one(v.Hi)
	if err != nil {
		return nil, nil, err
	}
	a, b = min(a, b), max(a, b)
	return number(a, src), number(b, src), nil
}

// number writes whole numbers as integers (albumentations refuses 7.0 as a kernel
// size or a crop height).
func number(x float64, src AlbuSource) any {
	if src.Integer {
		x = math.Round(x)
	}
	if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		return int64(x)
	}
	return x
}

// round7 keeps 7 significant digits: a value read in (through a square root, a
// division by the long edge) and written back comes out as it was written.
func round7(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 7, 64), 64)
	return v
}
