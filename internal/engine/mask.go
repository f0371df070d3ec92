package engine

import (
	"math"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Mask rasterization (contracts/mask.cue). Coordinates are normalized to the image that
// enters the edit: (0, 0) is the top left corner of the top left pixel and (1, 1) the
// bottom right corner of the bottom right one, so a point (x, y) is at pixel position
// (x*W, y*H). Lengths (ellipse radii, feather) are fractions of the long edge, like every
// size in the engine, so a circle stays round on a 3:2 image and a 1024 px preview gets
// the same mask as the full-size export. Rotations are clockwise in degrees, about the
// shape's centre, like the rotate operation.
//
// A shape gives 1 inside and 0 outside with a soft edge centred on the outline: feather
// is the width of that edge (at least one pixel, which antialiases a hard edge). The
// shape (or 1 everywhere without one) is multiplied by every range filter, then invert
// takes 1 - m, then strength scales the result.
//
// Everything costs O(pixels), with at most O(rows x polygon edges) more for polygons,
// whatever the arguments: huge radii, tiny or degenerate shapes and huge feathers take
// the same time as ordinary ones.

// maxPolygonPoints bounds the work of rasterizing a polygon; the contract allows 64.
const maxPolygonPoints = 1024

// polygonSubrows is the number of sample rows per pixel row when rasterizing a polygon;
// coverage along a row is exact, so edges get polygonSubrows+1 levels at worst.
const polygonSubrows = 8

// hueChromaFade is the display chroma over which a hue filter fades in: a grey has no
// hue, and near-greys get a hue from noise, so they must not flicker in and out.
const hueChromaFade = 0.04

func maskErr(format string, a ...any) error {
	return darkroom.Errorf(darkroom.MaskingError, format, a...)
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// maskWeights fills dst (one value per pixel of img) with mask * strength, each in
// [0, 1]. A nil mask is strength everywhere. Shapes are placed on fr, the frame img
// is a band of; the zero frame means img is the whole picture.
func maskWeights(dst []float32, img *Image, m *Mask, strength float32, fr frame) error {
	if fr.w == 0 {
		fr = wholeFrame(img)
	}
	if m == nil {
		for i := range dst {
			dst[i] = strength
		}
		return nil
	}
	if m.Shape != nil {
		if err := rasterShape(dst, img.W, img.H, fr, m.Shape); err != nil {
			return err
		}
	} else {
		for i := range dst {
			dst[i] = 1
		}
	}
	for i, rf := range m.Ranges {
		if err := applyRange(dst, img, rf); err != nil {
			return darkroom.Wrap(darkroom.MaskingError, err, "mask range %d", i)
		}
	}
	inv := m.Invert
	parallelRows(img.H, func(lo, hi int) {
		for p := lo * img.W; p < hi*img.W; p++ {
			v := dst[p]
			if inv {
				v = 1 - v
			}
			dst[p] = clamp01(v) * strength
		}
	})
	return nil
}

// ellipseReach is the distance from an ellipse's centre beyond which its weight is
// 0, with a margin, for radii rx, ry and a soft edge of edge pixels.
func ellipseReach(rx, ry, edge float64) float64 {
	return max(rx, ry)*(1+edge/(2*min(rx, ry))*(1+1e-9)) + 2
}

// ellipseRows returns the rows of frame fr outside which the ellipse s has no
// weight, and false when s is not a valid ellipse.
func ellipseRows(s *Shape, fr frame) (y0, y1 int, ok bool) {
	if s == nil || s.Kind != "ellipse" || !finite(s.Center[0], s.Center[1], s.RadiusX, s.RadiusY, s.Feather) || !(s.RadiusX > 0 && s.RadiusY > 0) || s.Feather < 0 {
		return 0, 0, false
	}
	long := float64(max(fr.w, fr.h))
	reach := ellipseReach(s.RadiusX*long, s.RadiusY*long, max(s.Feather*long, 1))
	cy := s.Center[1] * float64(fr.h)
	y0 = min(max(int(math.Floor(cy-reach)), 0), fr.h)
	y1 = min(max(int(math.Ceil(cy+reach)), y0), fr.h)
	return y0, y1, true
}

// rasterShape fills dst with the coverage of shape on a w x h band of rows of frame fr.
func rasterShape(dst []float32, w, h int, fr frame, s *Shape) error {
	long := float64(max(fr.w, fr.h))
	fw, fh := float64(fr.w), float64(fr.h)
	if !finite(s.Feather, s.Rotation) || s.Feather < 0 {
		return maskErr("mask %s: feather and rotation must be finite, feather not negative", s.Kind)
	}
	// The soft edge is at least a pixel wide, which antialiases it.
	edge := max(s.Feather*long, 1)
	switch s.Kind {
	case "gradient":
		if !finite(s.Start[0], s.Start[1], s.End[0], s.End[1]) {
			return maskErr("mask gradient: start and end must be finite")
		}
		sx, sy := s.Start[0]*fw, s.Start[1]*fh
		dx, dy := s.End[0]*fw-sx, s.End[1]*fh-sy
		l2 := dx*dx + dy*dy
		if !(l2 > 1e-12) {
			return maskErr("mask gradient: start and end are the same point, so it has no direction")
		}
		dx, dy = dx/l2, dy/l2
		fill(dst, w, h, fr.y0, func(x, y float64) float32 {
			// 1 at start, 0 at end, linear along the line between them.
			return clamp01(float32(1 - ((x-sx)*dx + (y-sy)*dy)))
		})
	case "ellipse":
		if !finite(s.Center[0], s.Center[1], s.RadiusX, s.RadiusY) || !(s.RadiusX > 0 && s.RadiusY > 0) {
			return maskErr("mask ellipse: radii must be positive and finite")
		}
		cx, cy := s.Center[0]*fw, s.Center[1]*fh
		rx, ry := s.RadiusX*long, s.RadiusY*long
		sin, cos := math.Sincos(s.Rotation * math.Pi / 180)
		// The weight is 0 where d >= edge/2 and 1 where d <= -edge/2. Since k1 lies
		// between k0/max(rx, ry) and k0/min(rx, ry), |d| >= |k0-1|*min(rx, ry), so
		// k0 alone (squared: no root) decides most pixels; a margin keeps rounding
		// from moving a pixel across.
		rmin := min(rx, ry)
		out := 1 + edge/(2*rmin)*(1+1e-9)
		out2 := out * out
		in2 := -1.0
		if in := 1 - edge/(2*rmin)*(1+1e-9); in > 0 {
			in2 = in * in
		}
		// Pixels farther from the centre than reach are all outside (k0 >= out):
		// only the ellipse's bounding square is computed, so a spot's mask costs
		// little more than clearing the frame.
		reach := ellipseReach(rx, ry, edge)
		xa := min(max(int(math.Floor(cx-reach)), 0), w)
		xb := min(max(int(math.Ceil(cx+reach)), xa), w)
		parallelRows(h, func(lo, hi int) {
			for y := lo; y < hi; y++ {
				row := dst[y*w : (y+1)*w]
				dy := float64(fr.y0+y) + 0.5 - cy
				if math.Abs(dy) > reach {
					clear(row)
					continue
				}
				clear(row[:xa])
				clear(row[xb:])
				for x := xa; x < xb; x++ {
					dx := float64(x) + 0.5 - cx
					u := (cos*dx + sin*dy) / rx
					v := (-sin*dx + cos*dy) / ry
					k02 := u*u + v*v
					if k02 >= out2 {
						row[x] = 0
						continue
					}
					if k02 < in2 {
						row[x] = 1
						continue
					}
					k0 := math.Sqrt(k02)
					k1 := math.Sqrt(u*u/(rx*rx) + v*v/(ry*ry))
					var d float64 // approximate signed distance to the outline, in pixels
					if k1 > 0 {
						d = k0 * (k0 - 1) / k1
					} else {
						d = -min(rx, ry)
					}
					row[x] = softEdge(d, edge)
				}
			}
		})
	case "rectangle":
		if !finite(s.X, s.Y, s.Width, s.Height) || !(s.Width > 0 && s.Height > 0) {
			return maskErr("mask rectangle: width and height must be positive and finite")
		}
		hw, hh := s.Width*fw/2, s.Height*fh/2
		cx, cy := s.X*fw+hw, s.Y*fh+hh
		sin, cos := math.Sincos(s.Rotation * math.Pi / 180)
		fill(dst, w, h, fr.y0, func(x, y float64) float32 {
			dx, dy := x-cx, y-cy
			qx := math.Abs(cos*dx+sin*dy) - hw
			qy := math.Abs(-sin*dx+cos*dy) - hh
			ox, oy := max(qx, 0), max(qy, 0)
			d := math.Sqrt(ox*ox+oy*oy) + min(max(qx, qy), 0)
			return softEdge(d, edge)
		})
	case "polygon":
		if len(s.Points) < 3 {
			return maskErr("mask polygon: %d points, need at least 3", len(s.Points))
		}
		if len(s.Points) > maxPolygonPoints {
			return maskErr("mask polygon: %d points, at most %d", len(s.Points), maxPolygonPoints)
		}
		pts := make([][2]float64, len(s.Points))
		for i, p := range s.Points {
			if !finite(p[0], p[1]) {
				return maskErr("mask polygon: point %d is not finite", i)
			}
			pts[i] = [2]float64{p[0] * fw, p[1] * fh}
		}
		fillPolygon(dst, w, h, fr.y0, pts)
		// A gaussian whose ±2 sigma spans the feather softens the edge the way the
		// ellipse and rectangle ramps do, and costs O(pixels) at any width.
		if sigma := polygonSigma(s, long); sigma > 0 {
			if h != fr.h {
				// The blur reaches across rows: bandEdit refuses such masks.
				return darkroom.Errorf(darkroom.InternalError, "mask polygon: a feathered polygon cannot be rasterized on a band of rows")
			}
			gaussianLarge(nil, dst, dst, w, h, 1, min(sigma, maxFilterRadius))
		}
	default:
		return maskErr("mask: unknown shape kind %q", s.Kind)
	}
	return nil
}

// polygonSigma is the gaussian sigma in pixels that feathers a polygon whose frame has
// the given long edge, 0 when the edge is only antialiased.
func polygonSigma(s *Shape, long float64) float64 {
	if sigma := s.Feather * long / 4; sigma > 0.25 {
		return sigma
	}
	return 0
}

// softEdge maps a signed distance to the outline (negative inside) to a weight, with a
// smooth ramp of the given width centred on the outline.
func softEdge(d, width float64) float32 {
	return smoothstep(float32(0.5 - d/width))
}

// fill sets dst, h rows from frame row y0, from fn at each pixel centre in frame
// coordinates, rows split across cores.
func fill(dst []float32, w, h, y0 int, fn func(x, y float64) float32) {
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row := dst[y*w : (y+1)*w]
			fy := float64(y0+y) + 0.5
			for x := range row {
				row[x] = fn(float64(x)+0.5, fy)
			}
		}
	})
}

// fillPolygon writes to dst the fraction of each pixel that the polygon covers under the
// nonzero winding rule (a self-intersecting outline is filled without holes, as in SVG
// and most drawing tools). Each pixel row is sampled at polygonSubrows heights; at each,
// the spans between crossings are added with exact fractional coverage at their ends,
// through a difference array so a span costs O(1) whatever its length.
//
// dst holds h rows from row y0 of the frame the points are measured in.
func fillPolygon(dst []float32, w, h, y0 int, pts [][2]float64) {
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		ymin, ymax = min(ymin, p[1]), max(ymax, p[1])
	}
	type crossing struct {
		x   float64
		dir int
	}
	parallelRows(h, func(lo, hi int) {
		acc := make([]float32, w+1)
		diff := make([]float32, w+1)
		xs := make([]crossing, 0, len(pts))
		const share = 1.0 / polygonSubrows
		for y := lo; y < hi; y++ {
			row := dst[y*w : (y+1)*w]
			fy := float64(y0 + y)
			if fy+1 <= ymin || fy >= ymax {
				for i := range row {
					row[i] = 0
				}
				continue
			}
			for i := range acc {
				acc[i], diff[i] = 0, 0
			}
			for k := range polygonSubrows {
				sy := fy + (float64(k)+0.5)*share
				xs = xs[:0]
				for i, p0 := range pts {
					p1 := pts[(i+1)%len(pts)]
					if p0[1] == p1[1] {
						continue
					}
					dir := 1
					a, b := p0, p1
					if a[1] > b[1] {
						a, b, dir = b, a, -1
					}
					if sy < a[1] || sy >= b[1] {
						continue
					}
					x := a[0] + (sy-a[1])*(b[0]-a[0])/(b[1]-a[1])
					xs = append(xs, crossing{min(max(x, -1), float64(w)+1), dir})
				}
				// Insertion sort: a row crosses few edges, and sort.Slice would
				// allocate on every sample row.
				for i := 1; i < len(xs); i++ {
					for j := i; j > 0 && xs[j].x < xs[j-1].x; j-- {
						xs[j], xs[j-1] = xs[j-1], xs[j]
					}
				}
				wind := 0
				for i := 0; i+1 < len(xs); i++ {
					wind += xs[i].dir
					if wind == 0 {
						continue
					}
					addSpan(acc, diff, w, xs[i].x, xs[i+1].x, share)
				}
			}
			var run float32
			for x := range row {
				run += diff[x]
				row[x] = min(run+acc[x], 1)
			}
		}
	})
}

// addSpan adds weight times the coverage of [a, b) to the pixels of one row: partial end
// pixels directly into acc, whole pixels in between through the difference array diff.
func addSpan(acc, diff []float32, w int, a, b, weight float64) {
	a, b = max(a, 0), min(b, float64(w))
	if !(b > a) {
		return
	}
	ia, ib := int(a), int(b)
	if ia == ib {
		acc[ia] += float32((b - a) * weight)
		return
	}
	acc[ia] += float32((float64(ia+1) - a) * weight)
	diff[ia+1] += float32(weight)
	diff[ib] -= float32(weight)
	if ib < w {
		acc[ib] += float32((b - float64(ib)) * weight)
	}
}

// applyRange multiplies dst by the weight of range filter rf on the pixels of img.
// Luminance is the display (sRGB-encoded) value of the Rec. 709 luminance; hue,
// saturation and lightness are HSL on display values. A value inside [min, max] weighs
// 1, falling linearly to 0 at feather outside either end. Hue ranges wrap (min 330,
// max 30 selects reds) and fade out towards greys, which have no hue.
func applyRange(dst []float32, img *Image, rf RangeFilter) error {
	if !finite(rf.Min, rf.Max, rf.Feather) || rf.Feather < 0 {
		return maskErr("range %s: min, max and feather must be finite, feather not negative", rf.Channel)
	}
	lo, hi, f := float32(rf.Min), float32(rf.Max), float32(rf.Feather)
	var weight func(r, g, b float32) float32
	switch rf.Channel {
	case "luminance":
		weight = func(r, g, b float32) float32 {
			return rangeWeight(clamp01(toDisp(luma(r, g, b))), lo, hi, f)
		}
	case "lightness":
		weight = func(r, g, b float32) float32 {
			r, g, b = dispRGB(r, g, b)
			return rangeWeight((max(r, g, b)+min(r, g, b))/2, lo, hi, f)
		}
	case "saturation":
		weight = func(r, g, b float32) float32 {
			r, g, b = dispRGB(r, g, b)
			mx, mn := max(r, g, b), min(r, g, b)
			var s float32
			if l := (mx + mn) / 2; mx > mn {
				s = (mx - mn) / (1 - float32(math.Abs(float64(2*l-1))))
			}
			return rangeWeight(clamp01(s), lo, hi, f)
		}
	case "hue":
		arc := hi - lo
		if arc < 0 {
			arc += 360
		}
		if arc >= 360 {
			return nil // the whole circle, greys included
		}
		weight = func(r, g, b float32) float32 {
			h, c := hueChroma(dispRGB(r, g, b))
			o := h - lo
			if o < 0 {
				o += 360
			}
			var wt float32 = 1
			if o > arc {
				d := min(o-arc, 360-o)
				if f <= 0 {
					return 0
				}
				wt = clamp01(1 - d/f)
			}
			return wt * clamp01(c/hueChromaFade)
		}
	default:
		return maskErr("range: unknown channel %q", rf.Channel)
	}
	parallelRows(img.H, func(y0, y1 int) {
		for p := y0 * img.W; p < y1*img.W; p++ {
			if dst[p] == 0 {
				continue
			}
			dst[p] *= weight(img.Pix[3*p], img.Pix[3*p+1], img.Pix[3*p+2])
		}
	})
	return nil
}

// dispRGB converts linear RGB to display values clamped to [0, 1].
func dispRGB(r, g, b float32) (float32, float32, float32) {
	return clamp01(toDisp(r)), clamp01(toDisp(g)), clamp01(toDisp(b))
}

func rangeWeight(v, lo, hi, f float32) float32 {
	if v >= lo && v <= hi {
		return 1
	}
	if !(f > 0) {
		return 0
	}
	d := max(lo-v, v-hi)
	return clamp01(1 - d/f)
}
