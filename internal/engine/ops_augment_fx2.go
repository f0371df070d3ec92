package engine

import (
	"math"
)

// safeRotation is opSafeRotate's map for a w x h image rotated clockwise by deg
// degrees: the inverse, output position to source position, as an affine map about
// the centre, and the forward matrix's entries.
//
// albumentations 1.3.1's SafeRotate rotates about the centre, takes the bounding box of
// the rotated image rounded up to whole pixels (nw = ceil(h |sin| + w |cos|), nh =
// ceil(h |cos| + w |sin|)) and scales it to the canvas along each axis (w/nw, h/nh):
// forward, p' = S R (p - c) + c with c the centre. albumentations' angle turns
// counter-clockwise, darkroom's clockwise; R here is the clockwise rotation on screen
// (y down). The identity (deg 0) gives nw = w, nh = h exactly.
type safeRotation struct {
	inv                affine
	m00, m01, m10, m11 float64
	cx, cy             float64
	identity           bool
}

func safeRotate(w, h int, deg float64) safeRotation {
	if deg == 0 {
		return safeRotation{identity: true}
	}
	fw, fh := float64(w), float64(h)
	sin, cos := math.Sincos(deg * math.Pi / 180)
	as, ac := math.Abs(sin), math.Abs(cos)
	nw := math.Ceil(fh*as + fw*ac)
	nh := math.Ceil(fh*ac + fw*as)
	kx, ky := fw/nw, fh/nh
	cx, cy := fw/2, fh/2
	// Inverse: p = R^T S^-1 (p' - c) + c.
	inv := affine{ox: cx, oy: cy, a: cos / kx, b: sin / ky, e: cx, c: -sin / kx, d: cos / ky, f: cy}
	return safeRotation{inv: inv, m00: kx * cos, m01: -kx * sin, m10: ky * sin, m11: ky * cos, cx: cx, cy: cy}
}

// forward is where the source position (x, y) lands.
func (s *safeRotation) forward(x, y float64) (float64, float64) {
	px, py := x-s.cx, y-s.cy
	return s.m00*px + s.m01*py + s.cx, s.m10*px + s.m11*py + s.cy
}

// opSafeRotate rotates the image clockwise inside its own frame, shrunk so that none
// of it is cut off (albumentations SafeRotate).
//
// Arguments: angle in [-180, 180] degrees, clockwise (albumentations' limit with the
// sign turned: its angles are counter-clockwise); mode, the fill of the border the
// shrunk image leaves uncovered: reflect (reflect_101, albumentations' default),
// constant (black, border_mode 0) or edge. The rotated image's bounding box, in whole
// pixels, is scaled to the canvas along each axis, so a non-square image's aspect
// ratio changes with the angle, as albumentations' does; the canvas keeps its size.
// Resampling is the engine's warp (Catmull-Rom in linear light). Example:
// {angle: 30} turns a 600x400 image by 30 degrees shrunk to fit, about 0.74 across
// and 0.66 down.
func opSafeRotate(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	angle := r.num("angle")
	mode := r.enum("mode", "constant", "reflect", "edge")
	if r.err != nil {
		return nil, r.err
	}
	s := safeRotate(src.W, src.H, angle)
	if s.identity {
		return src, nil
	}
	return warpLinear(rc, src, src.W, src.H, mode, s.inv), nil
}

// safeRotateMap is opSafeRotate's geometry map.
func safeRotateMap(op string, w, h int, a Args) (GeoMap, error) {
	r := args{a: a}
	angle := r.num("angle")
	mode := r.enum("mode", "constant", "reflect", "edge")
	if r.err != nil {
		return GeoMap{}, r.err
	}
	s := safeRotate(w, h, angle)
	if s.identity {
		return identityMap(op, w, h), nil
	}
	return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Linear: true, Border: mode,
		inverse: s.inv.at, forward: s.forward}, nil
}
