package augment

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Annotations are what moves with the pixels: bounding boxes, keypoints and a label
// mask. Positions are in the image's pixels, continuous: pixel (i, j) covers
// [i, i+1) x [j, j+1), so a box around whole pixels has integer edges and a
// keypoint at a pixel's centre is (i+0.5, j+0.5).
type Annotations struct {
	Boxes     *Boxes     `json:"bboxes,omitempty"`
	Keypoints *Keypoints `json:"keypoints,omitempty"`
	Mask      *Mask      `json:"-"`
	// MinVisibility drops a box when less than this fraction of its area is still in
	// the frame (0 keeps every box with any area left).
	MinVisibility float64 `json:"min_visibility,omitempty"`
}

// Box formats (albumentations' names): pascal_voc [x_min, y_min, x_max, y_max] and
// coco [x_min, y_min, width, height] in pixels; albumentations [x_min, y_min, x_max,
// y_max] and yolo [x_center, y_center, width, height] as fractions of the width and
// height.
var BoxFormats = []string{"pascal_voc", "coco", "yolo", "albumentations"}

// Boxes are bounding boxes in one format, each with an optional label (labels, if
// given, one per box, are carried through unchanged).
type Boxes struct {
	Format string       `json:"format"`
	Boxes  [][4]float64 `json:"boxes"`
	Labels []any        `json:"labels,omitempty"`
}

// Keypoints are [x, y] positions in pixels with optional labels, one per point.
type Keypoints struct {
	Points [][2]float64 `json:"points"`
	Labels []any        `json:"labels,omitempty"`
}

// Mask is a label image: one label per pixel, never interpolated.
type Mask struct {
	W, H   int
	Labels []uint16
}

// Dropped is a box or keypoint that did not survive, by its index in the input.
type Dropped struct {
	Kind   string `json:"kind"` // "bbox" or "keypoint"
	Index  int    `json:"index"`
	Label  any    `json:"label,omitempty"`
	Reason string `json:"reason"`
}

// DecodeMask reads a PNG label mask for a w x h image: 8- or 16-bit grey (the value
// is the label) or paletted (the index is). It decodes through the engine's
// header-first, budgeted decode (engine.DecodeLabelMask, with opt's context and
// reservation): a mask whose header states another size than w x h, or colours
// (which would have to be guessed into labels), is invalid_input before any pixel
// is decoded, as is a file that is not a PNG.
func DecodeMask(data []byte, w, h int, opt engine.DecodeOptions) (*Mask, error) {
	img, err := engine.DecodeLabelMask(data, w, h, opt)
	if err != nil {
		return nil, err
	}
	return MaskFromImage(img)
}

// MaskFromImage reads a decoded label mask: grey (the value is the label) or
// paletted (the index is); anything else is invalid_input.
func MaskFromImage(img image.Image) (*Mask, error) {
	b := img.Bounds()
	m := &Mask{W: b.Dx(), H: b.Dy(), Labels: make([]uint16, b.Dx()*b.Dy())}
	for y := range m.H {
		for x := range m.W {
			var l uint16
			switch im := img.(type) {
			case *image.Gray:
				l = uint16(im.GrayAt(b.Min.X+x, b.Min.Y+y).Y)
			case *image.Gray16:
				l = im.Gray16At(b.Min.X+x, b.Min.Y+y).Y
			case *image.Paletted:
				l = uint16(im.ColorIndexAt(b.Min.X+x, b.Min.Y+y))
			default:
				return nil, darkroom.Errorf(darkroom.InvalidInput, "mask: a label mask is a grey or paletted PNG, not %T", img)
			}
			m.Labels[y*m.W+x] = l
		}
	}
	return m, nil
}

// Image is the mask as a grey image, 8-bit when every label fits, else 16-bit.
func (m *Mask) Image() image.Image {
	wide := false
	for _, l := range m.Labels {
		wide = wide || l > 255
	}
	if wide {
		g := image.NewGray16(image.Rect(0, 0, m.W, m.H))
		for i, l := range m.Labels {
			g.SetGray16(i%m.W, i/m.W, color.Gray16{Y: l})
		}
		return g
	}
	g := image.NewGray(image.Rect(0, 0, m.W, m.H))
	for i, l := range m.Labels {
		g.Pix[i] = uint8(l)
	}
	return g
}

// PNG encodes the mask as grey PNG (Image).
func (m *Mask) PNG() ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, m.Image()); err != nil {
		return nil, darkroom.Wrap(darkroom.RenderError, err, "encode mask")
	}
	return buf.Bytes(), nil
}

// toPixels converts a box of the format to pixel corners on a w x h image.
func toPixels(format string, b [4]float64, w, h int) [4]float64 {
	fw, fh := float64(w), float64(h)
	switch format {
	case "coco":
		return [4]float64{b[0], b[1], b[0] + b[2], b[1] + b[3]}
	case "yolo":
		return [4]float64{(b[0] - b[2]/2) * fw, (b[1] - b[3]/2) * fh, (b[0] + b[2]/2) * fw, (b[1] + b[3]/2) * fh}
	case "albumentations":
		return [4]float64{b[0] * fw, b[1] * fh, b[2] * fw, b[3] * fh}
	}
	return b
}

// fromPixels converts pixel corners on a w x h image to the format.
func fromPixels(format string, b [4]float64, w, h int) [4]float64 {
	fw, fh := float64(w), float64(h)
	switch format {
	case "coco":
		return [4]float64{b[0], b[1], b[2] - b[0], b[3] - b[1]}
	case "yolo":
		return [4]float64{(b[0] + b[2]) / 2 / fw, (b[1] + b[3]) / 2 / fh, (b[2] - b[0]) / fw, (b[3] - b[1]) / fh}
	case "albumentations":
		return [4]float64{b[0] / fw, b[1] / fh, b[2] / fw, b[3] / fh}
	}
	return b
}

// check validates annotations against a w x h source: a known box format, boxes
// with positive area inside the frame (a thousandth of a pixel of slack for
// rounding in the normalised formats), keypoints inside the frame, one label per box
// or point when labels are given, a mask of the image's size, min_visibility in
// [0, 1]. Each failure is invalid_input naming the field.
func (a *Annotations) check(w, h int) error {
	if a == nil {
		return nil
	}
	if !(a.MinVisibility >= 0 && a.MinVisibility <= 1) {
		return fieldError("annotations.min_visibility", "annotations.min_visibility %v is outside [0, 1]", a.MinVisibility)
	}
	const slack = 1e-3
	if b := a.Boxes; b != nil {
		known := false
		for _, f := range BoxFormats {
			known = known || f == b.Format
		}
		if !known {
			return fieldError("annotations.bboxes.format", "annotations.bboxes.format %q is not one of %v", b.Format, BoxFormats)
		}
		if b.Labels != nil && len(b.Labels) != len(b.Boxes) {
			return fieldError("annotations.bboxes.labels", "annotations.bboxes: %d labels for %d boxes", len(b.Labels), len(b.Boxes))
		}
		for i, box := range b.Boxes {
			p := toPixels(b.Format, box, w, h)
			if !(p[0] >= -slack && p[1] >= -slack && p[2] <= float64(w)+slack && p[3] <= float64(h)+slack && p[0] < p[2] && p[1] < p[3]) {
				return fieldError(fmt.Sprintf("annotations.bboxes.boxes[%d]", i), "annotations.bboxes.boxes[%d]: %v (%s) is not a box with area inside the %dx%d image", i, box, b.Format, w, h)
			}
		}
	}
	if k := a.Keypoints; k != nil {
		if k.Labels != nil && len(k.Labels) != len(k.Points) {
			return fieldError("annotations.keypoints.labels", "annotations.keypoints: %d labels for %d points", len(k.Labels), len(k.Points))
		}
		for i, p := range k.Points {
			if !(p[0] >= 0 && p[1] >= 0 && p[0] <= float64(w) && p[1] <= float64(h)) {
				return fieldError(fmt.Sprintf("annotations.keypoints.points[%d]", i), "annotations.keypoints.points[%d]: %v is outside the %dx%d image", i, p, w, h)
			}
		}
	}
	if m := a.Mask; m != nil && (m.W != w || m.H != h || len(m.Labels) != w*h) {
		return fieldError("annotations.mask_b64", "annotations.mask_b64: the mask is %dx%d, the image %dx%d", m.W, m.H, w, h)
	}
	return nil
}

// tracker carries annotations through the geometry maps of a variant, in pixels.
type tracker struct {
	in     *Annotations
	boxes  [][4]float64
	vis    []float64 // the fraction of each box's area still in the frame
	gone   []string  // why a box was dropped, "" while it lives
	points [][2]float64
	lost   []string
	mask   *Mask
}

// newTracker starts tracking a's annotations on a w x h source, boxes in pixels.
func newTracker(a *Annotations, w, h int) *tracker {
	if a == nil {
		return nil
	}
	t := &tracker{in: a, mask: a.Mask}
	if a.Boxes != nil {
		for _, b := range a.Boxes.Boxes {
			t.boxes = append(t.boxes, toPixels(a.Boxes.Format, b, w, h))
			t.vis = append(t.vis, 1)
			t.gone = append(t.gone, "")
		}
	}
	if a.Keypoints != nil {
		t.points = append(t.points, a.Keypoints.Points...)
		t.lost = make([]string, len(t.points))
	}
	return t
}

// apply moves everything through one geometry map.
func (t *tracker) apply(m *engine.GeoMap) {
	ow, oh := float64(m.OutW), float64(m.OutH)
	if m.Linear {
		for i, b := range t.boxes {
			if t.gone[i] != "" {
				continue
			}
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, c := range [4][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}} {
				x, y := m.Forward(c[0], c[1])
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
			area := (x1 - x0) * (y1 - y0)
			c := [4]float64{max(x0, 0), max(y0, 0), min(x1, ow), min(y1, oh)}
			if c[2] <= c[0] || c[3] <= c[1] || !(area > 0) {
				t.gone[i] = fmt.Sprintf("left the frame at %s", m.Op)
				continue
			}
			t.vis[i] *= (c[2] - c[0]) * (c[3] - c[1]) / area
			t.boxes[i] = c
		}
	} else if len(t.boxes) > 0 {
		t.traceBoxes(m)
	}
	for i, p := range t.points {
		if t.lost[i] != "" {
			continue
		}
		x, y := m.Forward(p[0], p[1])
		if !(x >= 0 && y >= 0 && x <= ow && y <= oh) {
			t.lost[i] = fmt.Sprintf("left the frame at %s", m.Op)
			continue
		}
		t.points[i] = [2]float64{x, y}
	}
	if t.mask != nil {
		out := &Mask{W: m.OutW, H: m.OutH, Labels: make([]uint16, m.OutW*m.OutH)}
		for y := range m.OutH {
			for x := range m.OutW {
				if sx, sy, ok := m.SourcePixel(x, y); ok {
					out.Labels[y*m.OutW+x] = t.mask.Labels[sy*t.mask.W+sx]
				}
			}
		}
		t.mask = out
	}
}

// traceBoxes moves boxes through a curved or piecewise map the way the pixels move:
// the new box is the bounding box of the output pixels whose centre shows a point
// of the old box. The fraction of the box still visible is not estimated through a
// warp (the warps keep the frame and fill it with the image); a box no pixel shows
// any more is dropped.
func (t *tracker) traceBoxes(m *engine.GeoMap) {
	nb := make([][4]float64, len(t.boxes))
	for i := range nb {
		nb[i] = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	}
	for y := range m.OutH {
		for x := range m.OutW {
			sx, sy := m.Inverse(float64(x)+0.5, float64(y)+0.5)
			for i, b := range t.boxes {
				if t.gone[i] == "" && sx >= b[0] && sx < b[2] && sy >= b[1] && sy < b[3] {
					n := &nb[i]
					n[0], n[1] = min(n[0], float64(x)), min(n[1], float64(y))
					n[2], n[3] = max(n[2], float64(x+1)), max(n[3], float64(y+1))
				}
			}
		}
	}
	for i, n := range nb {
		if t.gone[i] != "" {
			continue
		}
		if n[2] <= n[0] {
			t.gone[i] = fmt.Sprintf("no pixel shows it after %s", m.Op)
			continue
		}
		t.boxes[i] = n
	}
}

// result returns the annotations on the w x h output, and what was dropped.
func (t *tracker) result(w, h int) (*Annotations, []Dropped) {
	out := &Annotations{MinVisibility: t.in.MinVisibility, Mask: t.mask}
	var dropped []Dropped
	if b := t.in.Boxes; b != nil {
		nb := &Boxes{Format: b.Format, Boxes: [][4]float64{}}
		if b.Labels != nil {
			nb.Labels = []any{}
		}
		for i, box := range t.boxes {
			reason := t.gone[i]
			if reason == "" && t.vis[i] < t.in.MinVisibility {
				reason = fmt.Sprintf("visibility %.3g is below min_visibility %v", t.vis[i], t.in.MinVisibility)
			}
			if reason != "" {
				dropped = append(dropped, Dropped{Kind: "bbox", Index: i, Label: label(b.Labels, i), Reason: reason})
				continue
			}
			nb.Boxes = append(nb.Boxes, fromPixels(b.Format, box, w, h))
			if b.Labels != nil {
				nb.Labels = append(nb.Labels, b.Labels[i])
			}
		}
		out.Boxes = nb
	}
	if k := t.in.Keypoints; k != nil {
		nk := &Keypoints{Points: [][2]float64{}}
		if k.Labels != nil {
			nk.Labels = []any{}
		}
		for i, p := range t.points {
			if t.lost[i] != "" {
				dropped = append(dropped, Dropped{Kind: "keypoint", Index: i, Label: label(k.Labels, i), Reason: t.lost[i]})
				continue
			}
			nk.Points = append(nk.Points, p)
			if k.Labels != nil {
				nk.Labels = append(nk.Labels, k.Labels[i])
			}
		}
		out.Keypoints = nk
	}
	return out, dropped
}

func label(labels []any, i int) any {
	if labels == nil {
		return nil
	}
	return labels[i]
}
