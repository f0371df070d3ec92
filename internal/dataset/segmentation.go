package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"
)

// COCO segmentation, moved with the pixels.
//
// An annotation's segmentation is polygons ([[x0, y0, x1, y1, ...], ...]) or a
// run-length encoding ({"size": [h, w], "counts": [...] or "..."}, pycocotools'
// column-major runs, the string form its compressed one). Open rasterizes every
// object's segmentation of an image into one instance map (Labels.Instances, 16-bit:
// pixel value k+1 is object k, a later object over an earlier one where they
// overlap), and the AugmentFunc moves that map as it moves a label mask, nearest
// pixel, never interpolated. The variant's segmentation is read back from the moved
// map: an uncompressed RLE of the pixels still showing the object (so it is clipped
// to the frame by construction), its area their count and its bbox their extent.
// pycocotools' annToMask reads it back (frPyObjects takes uncompressed counts for
// any iscrowd). Polygons come out as RLE: the moved outline is the mask's, and a
// polygon traced from it would add an approximation of its own.

// segmentation is one annotation's COCO segmentation, decoded to a mask on demand.
type segmentation struct {
	polygons [][]float64
	rle      []int // column-major runs, starting with a run of 0s
	h, w     int   // the RLE's size
}

// parseSegmentation reads a COCO segmentation; nil (or [] / null) is none.
func parseSegmentation(raw json.RawMessage) (*segmentation, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "[]" {
		return nil, nil
	}
	if raw[0] == '[' {
		var polys [][]float64
		if err := json.Unmarshal(raw, &polys); err != nil {
			return nil, fmt.Errorf("segmentation: polygons are lists of numbers: %v", err)
		}
		for i, p := range polys {
			if len(p) < 6 || len(p)%2 != 0 || anyNonFinite(p) {
				return nil, fmt.Errorf("segmentation[%d]: a polygon is at least 3 points x, y", i)
			}
		}
		return &segmentation{polygons: polys}, nil
	}
	var r struct {
		Size   []int           `json:"size"`
		Counts json.RawMessage `json:"counts"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Size) != 2 || r.Size[0] <= 0 || r.Size[1] <= 0 {
		return nil, fmt.Errorf("segmentation: want polygons or an RLE {size: [h, w], counts}")
	}
	s := &segmentation{h: r.Size[0], w: r.Size[1]}
	var counts []int
	var str string
	switch {
	case json.Unmarshal(r.Counts, &counts) == nil:
	case json.Unmarshal(r.Counts, &str) == nil:
		counts = rleFromString(str)
	default:
		return nil, fmt.Errorf("segmentation: RLE counts are a list of numbers or pycocotools' string")
	}
	total := 0
	for _, c := range counts {
		if c < 0 {
			return nil, fmt.Errorf("segmentation: RLE has a negative run")
		}
		total += c
	}
	if total != s.h*s.w {
		return nil, fmt.Errorf("segmentation: RLE runs cover %d pixels, its size %dx%d has %d", total, s.w, s.h, s.h*s.w)
	}
	s.rle = counts
	return s, nil
}

// rleFromString decodes pycocotools' compressed counts (rleFrString in maskApi.c):
// each run in groups of 5 bits, a continuation bit, and from the third run on a
// difference from the run two before.
func rleFromString(s string) []int {
	var cnts []int
	for p := 0; p < len(s); {
		x, k, more := 0, 0, true
		for more && p < len(s) {
			c := int(s[p]) - 48
			x |= (c & 0x1f) << (5 * k)
			more = c&0x20 != 0
			p++
			k++
			if !more && c&0x10 != 0 {
				x |= -1 << (5 * k)
			}
		}
		if len(cnts) > 2 {
			x += cnts[len(cnts)-2]
		}
		cnts = append(cnts, x)
	}
	return cnts
}

// paint sets the pixels of the segmentation in m (w x h, row-major) to v. Polygons
// are filled by the even-odd rule at pixel centres; an RLE must have the image's size.
func (s *segmentation) paint(m []uint16, w, h int, v uint16) error {
	if s.rle != nil {
		if s.w != w || s.h != h {
			return fmt.Errorf("segmentation: RLE size %dx%d is not the image's %dx%d", s.w, s.h, w, h)
		}
		i := 0
		for k, c := range s.rle {
			if k%2 == 1 {
				for j := i; j < i+c; j++ {
					x, y := j/h, j%h
					m[y*w+x] = v
				}
			}
			i += c
		}
		return nil
	}
	for y := range h {
		cy := float64(y) + 0.5
		var xs []float64
		for _, p := range s.polygons {
			n := len(p) / 2
			for i := range n {
				x0, y0 := p[2*i], p[2*i+1]
				x1, y1 := p[2*((i+1)%n)], p[2*((i+1)%n)+1]
				if (y0 <= cy) != (y1 <= cy) {
					xs = append(xs, x0+(cy-y0)*(x1-x0)/(y1-y0))
				}
			}
		}
		sort.Float64s(xs)
		for i := 0; i+1 < len(xs); i += 2 {
			from := max(0, int(math.Ceil(xs[i]-0.5)))
			to := min(w-1, int(math.Ceil(xs[i+1]-0.5))-1)
			for x := from; x <= to; x++ {
				m[y*w+x] = v
			}
		}
	}
	return nil
}

// instanceMap paints the segmentations of objs into one 16-bit map: object k's pixels
// are k+1. ok is false when no object has a segmentation.
func instanceMap(objs []Object, segms []*segmentation, w, h int) (image.Image, bool, error) {
	if len(objs) >= math.MaxUint16 {
		return nil, false, fmt.Errorf("%d annotations on one image: at most %d carry a segmentation", len(objs), math.MaxUint16-1)
	}
	m := make([]uint16, w*h)
	painted := false
	for k := range objs {
		if k < len(segms) && segms[k] != nil {
			s := segms[k]
			if err := s.paint(m, w, h, uint16(k+1)); err != nil {
				return nil, false, fmt.Errorf("annotation %d: %w", k, err)
			}
			objs[k].Instance = k + 1
			painted = true
		}
	}
	if !painted {
		return nil, false, nil
	}
	g := image.NewGray16(image.Rect(0, 0, w, h))
	for i, v := range m {
		g.SetGray16(i%w, i/w, color.Gray16{Y: v})
	}
	return g, true, nil
}

// cocoRLE is an uncompressed COCO RLE.
type cocoRLE struct {
	Size   [2]int `json:"size"` // [h, w]
	Counts []int  `json:"counts"`
}

// instanceRLE reads object inst back from a moved instance map: its uncompressed RLE
// (column-major), its pixel count and the extent of its pixels ([x0, y0, x1, y1]; all
// zero when none is left).
func instanceRLE(m image.Image, inst int) (cocoRLE, int, [4]float64) {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	at := func(x, y int) int {
		switch g := m.(type) {
		case *image.Gray16:
			return int(g.Gray16At(b.Min.X+x, b.Min.Y+y).Y)
		case *image.Gray:
			return int(g.GrayAt(b.Min.X+x, b.Min.Y+y).Y)
		}
		return int(color.Gray16Model.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.Gray16).Y)
	}
	r := cocoRLE{Size: [2]int{h, w}, Counts: []int{}}
	cur, run, area := false, 0, 0
	x0, y0, x1, y1 := w, h, -1, -1
	for x := range w {
		for y := range h {
			on := at(x, y) == inst
			if on != cur {
				r.Counts = append(r.Counts, run)
				cur, run = on, 0
			}
			run++
			if on {
				area++
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	r.Counts = append(r.Counts, run)
	if area == 0 {
		return r, 0, [4]float64{}
	}
	return r, area, [4]float64{float64(x0), float64(y0), float64(x1 + 1), float64(y1 + 1)}
}
