package engine

import (
	"math"
	"slices"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Geometry maps: where each geometry operation moves a position, so that boxes,
// keypoints and label masks can follow the pixels (augmentation annotations).
//
// Positions are continuous pixel coordinates: pixel (i, j) covers [i, i+1) x [j, j+1)
// and its centre is (i+0.5, j+0.5), the convention warp samples in. Each map has an
// inverse, output position to the source position the pixels show there (for the
// warps exactly the function warp resamples through), and a forward map, source
// position to output. The maps are computed from the same arguments, with the same
// stream keys (editKey with the render's seed and the edit's occurrence) and the same
// draws, as the operations; TestGeoMapMatchesPixels renders a coordinate ramp through
// every operation and checks that the pixels show what Inverse says.

// GeoMap is how one geometry edit moves positions.
type GeoMap struct {
	// Op is the operation.
	Op string
	// InW, InH and OutW, OutH are the image's size before and after it.
	InW, InH, OutW, OutH int
	// Linear says straight lines stay straight and no two source points meet (flips,
	// quarter turns, crops, pads, scales, rotations, affine maps): the four corners of
	// a box bound where it goes. The others (perspective, elastic, grid_distortion,
	// lens_distortion, grid_shuffle) are traced pixel by pixel through Inverse.
	Linear bool
	// Border says what output positions whose source lies outside the source frame
	// show: constant (a fill, no content), reflect (the mirror image, reflect_101) or
	// edge (the nearest edge pixel).
	Border string

	inverse func(x, y float64) (float64, float64)
	forward func(x, y float64) (float64, float64)
}

// Inverse returns the source position that the output position (x, y) shows.
func (m *GeoMap) Inverse(x, y float64) (float64, float64) { return m.inverse(x, y) }

// Forward returns where the source position (x, y) lands in the output. For the
// warps without a closed-form inverse (elastic, lens_distortion) it is solved
// numerically from Inverse to well under a thousandth of a pixel where the warp is
// one to one; where it folds, one of the output positions showing (x, y) is returned.
func (m *GeoMap) Forward(x, y float64) (float64, float64) {
	if m.forward != nil {
		return m.forward(x, y)
	}
	return m.solveForward(x, y)
}

// SourcePixel returns the source pixel whose value a nearest-neighbour resampling
// shows at output pixel (x, y), and false where the output shows a constant fill:
// what a label mask takes, never mixing labels.
func (m *GeoMap) SourcePixel(x, y int) (int, int, bool) {
	sx, sy := m.inverse(float64(x)+0.5, float64(y)+0.5)
	i, oki := nearest(sx, m.InW, m.Border)
	j, okj := nearest(sy, m.InH, m.Border)
	return i, j, oki && okj
}

// nearest returns the index of the pixel whose centre is nearest to the continuous
// coordinate s on an axis of n pixels, folded into range as border says.
func nearest(s float64, n int, border string) (int, bool) {
	f := math.Floor(s)
	if f > math.MaxInt32 || f < math.MinInt32 || math.IsNaN(f) {
		return 0, false
	}
	return borderIndex(int(f), n, border)
}

// solveForward inverts Inverse by Newton's method with a finite-difference Jacobian,
// started at the point itself and, failing that, at the best of a coarse grid of
// output positions.
func (m *GeoMap) solveForward(x, y float64) (float64, float64) {
	newton := func(px, py float64) (float64, float64, float64) {
		const h = 1e-3
		best, bx, by := math.Inf(1), px, py
		for range 50 {
			fx, fy := m.inverse(px, py)
			rx, ry := fx-x, fy-y
			r := math.Hypot(rx, ry)
			if r < best {
				best, bx, by = r, px, py
			}
			if r < 1e-7 {
				break
			}
			ax, ay := m.inverse(px+h, py)
			bx2, by2 := m.inverse(px, py+h)
			j00, j10 := (ax-fx)/h, (ay-fy)/h
			j01, j11 := (bx2-fx)/h, (by2-fy)/h
			det := j00*j11 - j01*j10
			if math.Abs(det) < 1e-12 {
				break
			}
			px -= (j11*rx - j01*ry) / det
			py -= (-j10*rx + j00*ry) / det
		}
		return bx, by, best
	}
	bx, by, r := newton(x, y)
	if r < 1e-6 {
		return bx, by
	}
	step := max(1, max(m.OutW, m.OutH)/64)
	gx, gy, gr := bx, by, math.Inf(1)
	for j := 0; j < m.OutH; j += step {
		for i := 0; i < m.OutW; i += step {
			fx, fy := m.inverse(float64(i)+0.5, float64(j)+0.5)
			if d := math.Hypot(fx-x, fy-y); d < gr {
				gx, gy, gr = float64(i)+0.5, float64(j)+0.5, d
			}
		}
	}
	if cx, cy, cr := newton(gx, gy); cr < r {
		return cx, cy
	}
	return bx, by
}

// GeometryMaps returns the maps of the geometry edits of a render of a w x h image, in
// the order Render applies them, with the seed Render would use: what Render(src,
// edits, opt) does to positions. Edits of other stages, and geometry edits with
// strength 0, move nothing and get no map. The errors are Render's for the same edits.
func GeometryMaps(w, h int, edits []Edit, opt RenderOptions) ([]GeoMap, error) {
	if w <= 0 || h <= 0 {
		return nil, darkroom.Errorf(darkroom.RenderError, "geometry maps: no image %dx%d", w, h)
	}
	order, err := renderOrder(edits)
	if err != nil {
		return nil, err
	}
	occ := occurrences(edits)
	var maps []GeoMap
	for _, i := range order {
		e := edits[i]
		if catalog[e.Op].stage != "geometry" || e.Strength == 0 {
			continue
		}
		m, err := geoMap(editKey(opt.Seed, e.Op, occ[i]), w, h, e.Op, e.Args)
		if err != nil {
			return nil, darkroom.Wrap(darkroom.Code(err), err, "edit %d (%s)", i, e.Op)
		}
		maps = append(maps, m)
		w, h = m.OutW, m.OutH
	}
	return maps, nil
}

// identityMap leaves a w x h image as it is.
func identityMap(op string, w, h int) GeoMap {
	id := func(x, y float64) (float64, float64) { return x, y }
	return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Linear: true, Border: "constant", inverse: id, forward: id}
}

// offsetMap shows the source with its top-left corner at (x0, y0) of a w x h output:
// crops (x0, y0 <= 0) and pads.
func offsetMap(op string, sw, sh, w, h, x0, y0 int, border string) GeoMap {
	dx, dy := float64(x0), float64(y0)
	return GeoMap{Op: op, InW: sw, InH: sh, OutW: w, OutH: h, Linear: true, Border: border,
		inverse: func(x, y float64) (float64, float64) { return x - dx, y - dy },
		forward: func(x, y float64) (float64, float64) { return x + dx, y + dy }}
}

// scaleMap stretches a sw x sh image to w x h (Resize's pixel-edge convention).
func scaleMap(op string, sw, sh, w, h int) GeoMap {
	kx, ky := float64(w)/float64(sw), float64(h)/float64(sh)
	return GeoMap{Op: op, InW: sw, InH: sh, OutW: w, OutH: h, Linear: true, Border: "edge",
		inverse: func(x, y float64) (float64, float64) { return x / kx, y / ky },
		forward: func(x, y float64) (float64, float64) { return x * kx, y * ky }}
}

// then composes: m first, then n (n's input is m's output).
func then(op string, m, n GeoMap) GeoMap {
	return GeoMap{Op: op, InW: m.InW, InH: m.InH, OutW: n.OutW, OutH: n.OutH, Linear: m.Linear && n.Linear, Border: m.Border,
		inverse: func(x, y float64) (float64, float64) { return m.inverse(n.inverse(x, y)) },
		forward: func(x, y float64) (float64, float64) { return n.forward(m.forward(x, y)) }}
}

// quarterMap turns a w x h image clockwise by q quarter turns (rotateQuarter).
func quarterMap(op string, w, h, q int) GeoMap {
	fw, fh := float64(w), float64(h)
	m := GeoMap{Op: op, InW: w, InH: h, OutW: h, OutH: w, Linear: true, Border: "constant"}
	switch q {
	case 1:
		m.forward = func(x, y float64) (float64, float64) { return fh - y, x }
		m.inverse = func(x, y float64) (float64, float64) { return y, fh - x }
	case 2:
		m.OutW, m.OutH = w, h
		m.forward = func(x, y float64) (float64, float64) { return fw - x, fh - y }
		m.inverse = m.forward
	default:
		m.forward = func(x, y float64) (float64, float64) { return y, fw - x }
		m.inverse = func(x, y float64) (float64, float64) { return fw - y, x }
	}
	return m
}

// geoMap is the map of one geometry operation with checked arguments on a w x h
// image, key being the edit's stream key. Each case mirrors its operation line by
// line: the same neutral cases, the same roundings, the same draws.
func geoMap(key uint64, w, h int, op string, a Args) (GeoMap, error) {
	r := args{a: a}
	fw, fh := float64(w), float64(h)
	long := float64(max(w, h))
	switch op {
	case "crop":
		left, right, top, bottom := r.num("left"), r.num("right"), r.num("top"), r.num("bottom")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		x0 := int(math.Round(left * fw))
		x1 := w - int(math.Round(right*fw))
		y0 := int(math.Round(top * fh))
		y1 := h - int(math.Round(bottom*fh))
		if x0 < 0 || y0 < 0 || x1 > w || y1 > h || x1 <= x0 || y1 <= y0 {
			return GeoMap{}, darkroom.Errorf(darkroom.InvalidInput, "crop %v, %v, %v, %v of %dx%d leaves no image", left, right, top, bottom, w, h)
		}
		return offsetMap(op, w, h, x1-x0, y1-y0, -x0, -y0, "constant"), nil

	case "random_crop":
		c, err := randomCropRect(key, w, h, a)
		if err != nil {
			return GeoMap{}, err
		}
		if c.identity {
			return identityMap(op, w, h), nil
		}
		m := offsetMap(op, w, h, c.w, c.h, -c.x0, -c.y0, "constant")
		if c.keep {
			m = then(op, m, scaleMap(op, c.w, c.h, c.outW, c.outH))
		}
		return m, nil

	case "flip":
		hor, ver := r.flag("horizontal"), r.flag("vertical")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		f := func(x, y float64) (float64, float64) {
			if hor {
				x = fw - x
			}
			if ver {
				y = fh - y
			}
			return x, y
		}
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Linear: true, Border: "constant", inverse: f, forward: f}, nil

	case "rotate":
		angle, autoCrop := r.num("angle"), r.flag("auto_crop")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		deg := math.Mod(angle, 360)
		if deg < 0 {
			deg += 360
		}
		switch deg {
		case 0:
			return identityMap(op, w, h), nil
		case 90, 180, 270:
			return quarterMap(op, w, h, int(deg)/90), nil
		}
		sin, cos := math.Sincos(deg * math.Pi / 180)
		ow, oh := w, h
		border := "constant"
		if autoCrop {
			c, s := math.Abs(cos), math.Abs(sin)
			k := min(fw/(fw*c+fh*s), fh/(fw*s+fh*c))
			ow = max(1, int(math.Floor(k*fw)))
			oh = max(1, int(math.Floor(k*fh)))
			border = "edge"
		}
		scx, scy := fw/2, fh/2
		dcx, dcy := float64(ow)/2, float64(oh)/2
		return GeoMap{Op: op, InW: w, InH: h, OutW: ow, OutH: oh, Linear: true, Border: border,
			inverse: func(x, y float64) (float64, float64) {
				px, py := x-dcx, y-dcy
				return cos*px + sin*py + scx, -sin*px + cos*py + scy
			},
			forward: func(x, y float64) (float64, float64) {
				px, py := x-scx, y-scy
				return cos*px - sin*py + dcx, sin*px + cos*py + dcy
			}}, nil

	case "safe_rotate":
		return safeRotateMap(op, w, h, a)

	case "rotate90":
		turns := r.integer("turns")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		turns = ((turns % 4) + 4) % 4
		if turns == 0 {
			return identityMap(op, w, h), nil
		}
		return quarterMap(op, w, h, turns), nil

	case "transpose":
		diag := r.enum("diagonal", "none", "main", "anti")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		m := GeoMap{Op: op, InW: w, InH: h, OutW: h, OutH: w, Linear: true, Border: "constant"}
		switch diag {
		case "none":
			return identityMap(op, w, h), nil
		case "main":
			m.forward = func(x, y float64) (float64, float64) { return y, x }
			m.inverse = m.forward
		default:
			m.forward = func(x, y float64) (float64, float64) { return fh - y, fw - x }
			m.inverse = func(x, y float64) (float64, float64) { return fw - y, fh - x }
		}
		return m, nil

	case "center_crop":
		cwf, chf := r.num("width"), r.num("height")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		cw := min(max(1, int(math.Round(cwf*fw))), w)
		ch := min(max(1, int(math.Round(chf*fh))), h)
		if cw == w && ch == h {
			return identityMap(op, w, h), nil
		}
		return offsetMap(op, w, h, cw, ch, -(w-cw)/2, -(h-ch)/2, "constant"), nil

	case "pad":
		pw, ph := r.num("width"), r.num("height")
		r.num("fill")
		mode := r.enum("mode", "constant", "reflect", "edge")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		ow := max(w, int(math.Round(pw*long)))
		oh := max(h, int(math.Round(ph*long)))
		if ow == w && oh == h {
			return identityMap(op, w, h), nil
		}
		return offsetMap(op, w, h, ow, oh, (ow-w)/2, (oh-h)/2, mode), nil

	case "affine":
		scale, angle := r.num("scale"), r.num("angle")
		shx, shy := r.num("shear_x"), r.num("shear_y")
		tx, ty := r.num("translate_x"), r.num("translate_y")
		mode := r.enum("mode", "constant", "reflect", "edge")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		if scale == 1 && angle == 0 && shx == 0 && shy == 0 && tx == 0 && ty == 0 {
			return identityMap(op, w, h), nil
		}
		if !(scale > 0) {
			return GeoMap{}, darkroom.Errorf(darkroom.InvalidInput, "affine: scale %v is not positive", scale)
		}
		sin, cos := math.Sincos(angle * math.Pi / 180)
		kx, ky := math.Tan(shx*math.Pi/180), math.Tan(shy*math.Pi/180)
		s00, s01, s10, s11 := 1.0, kx, ky, 1+kx*ky
		m00, m01 := scale*(cos*s00-sin*s10), scale*(cos*s01-sin*s11)
		m10, m11 := scale*(sin*s00+cos*s10), scale*(sin*s01+cos*s11)
		det := m00*m11 - m01*m10
		i00, i01, i10, i11 := m11/det, -m01/det, -m10/det, m00/det
		cx, cy := fw/2, fh/2
		dx, dy := tx*fw, ty*fh
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Linear: true, Border: mode,
			inverse: func(x, y float64) (float64, float64) {
				px, py := x-cx-dx, y-cy-dy
				return i00*px + i01*py + cx, i10*px + i11*py + cy
			},
			forward: func(x, y float64) (float64, float64) {
				px, py := x-cx, y-cy
				return m00*px + m01*py + cx + dx, m10*px + m11*py + cy + dy
			}}, nil

	case "perspective":
		scale := r.num("scale")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		if scale == 0 {
			return identityMap(op, w, h), nil
		}
		var off [4][2]float64
		for i := range off {
			bits := rnd(key, i, 0, 0)
			for j := range 2 {
				off[i][j] = math.Mod(math.Abs(float64(normal16(bits>>(16*j)))*scale), 0.32)
			}
		}
		quad := [4][2]float64{
			{off[0][0] * fw, off[0][1] * fh},
			{(1 - off[1][0]) * fw, off[1][1] * fh},
			{(1 - off[2][0]) * fw, (1 - off[2][1]) * fh},
			{off[3][0] * fw, (1 - off[3][1]) * fh},
		}
		m := homography(quad)
		inv := invert3(m)
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Border: "edge",
			inverse: func(x, y float64) (float64, float64) {
				u, v := x/fw, y/fh
				z := m[6]*u + m[7]*v + m[8]
				return (m[0]*u + m[1]*v + m[2]) / z, (m[3]*u + m[4]*v + m[5]) / z
			},
			forward: func(x, y float64) (float64, float64) {
				z := inv[6]*x + inv[7]*y + inv[8]
				return (inv[0]*x + inv[1]*y + inv[2]) / z * fw, (inv[3]*x + inv[4]*y + inv[5]) / z * fh
			}}, nil

	case "elastic":
		alpha, sigma := r.num("alpha"), r.num("sigma")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		if alpha == 0 {
			return identityMap(op, w, h), nil
		}
		spacing := max(sigma, 0.001) * long
		amp := alpha * long
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Border: "edge",
			inverse: func(x, y float64) (float64, float64) {
				dx := 2*float64(valueNoise(key, 0, x, y, spacing)) - 1
				dy := 2*float64(valueNoise(key, 1, x, y, spacing)) - 1
				return x + amp*dx, y + amp*dy
			}}, nil

	case "grid_distortion":
		steps, distort := r.integer("steps"), r.num("distort")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		if distort == 0 {
			return identityMap(op, w, h), nil
		}
		steps = min(max(steps, 1), 64)
		var edges [2][]float64
		for axis := range 2 {
			sizes := make([]float64, steps)
			var total float64
			for k := range sizes {
				sizes[k] = 1 + distort*(2*uniform(rnd(key, k, axis, 0))-1)
				total += sizes[k]
			}
			e := make([]float64, steps+1)
			for k, s := range sizes {
				e[k+1] = e[k] + s/total
			}
			e[steps] = 1
			edges[axis] = e
		}
		lookup := func(e []float64, u float64) float64 {
			t := min(max(u, 0), 1) * float64(steps)
			k := min(int(t), steps-1)
			return e[k] + (e[k+1]-e[k])*(t-float64(k))
		}
		// The piecewise linear map is increasing, so its inverse is the same
		// interpolation with the two lattices swapped.
		unlookup := func(e []float64, s float64) float64 {
			s = min(max(s, 0), 1)
			k := min(max(atMost(e, s)-1, 0), steps-1)
			t := (s - e[k]) / (e[k+1] - e[k])
			return (float64(k) + t) / float64(steps)
		}
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Linear: false, Border: "edge",
			inverse: func(x, y float64) (float64, float64) {
				return lookup(edges[0], x/fw) * fw, lookup(edges[1], y/fh) * fh
			},
			forward: func(x, y float64) (float64, float64) {
				return unlookup(edges[0], x/fw) * fw, unlookup(edges[1], y/fh) * fh
			}}, nil

	case "lens_distortion":
		k := r.num("k")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		if k == 0 {
			return identityMap(op, w, h), nil
		}
		cx, cy := fw/2, fh/2
		norm := 1 / math.Hypot(cx, cy)
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Border: "edge",
			inverse: func(x, y float64) (float64, float64) {
				dx, dy := x-cx, y-cy
				d2 := (dx*dx + dy*dy) * norm * norm
				f := 1 + k*d2
				return cx + dx*f, cy + dy*f
			}}, nil

	case "scale":
		f, fy, round := r.num("factor"), scaleFactorY(&r), scaleRounds(&r)
		if r.err != nil {
			return GeoMap{}, r.err
		}
		ow, oh := scaledSize(f, w, round), scaledSize(fy, h, round)
		if ow == w && oh == h {
			return identityMap(op, w, h), nil
		}
		if int64(ow)*int64(oh) > maxScaledPixels {
			return GeoMap{}, errScaleTooLarge(ow, oh)
		}
		return scaleMap(op, w, h, ow, oh), nil

	case "border_crop":
		limit := r.num("limit")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		if limit == 0 {
			return identityMap(op, w, h), nil
		}
		cut := func(c int, n int) int { return int(math.Round(uniform(rnd(key, 0, 0, c)) * limit * float64(n))) }
		x0, x1 := cut(0, w), w-cut(1, w)
		y0, y1 := cut(2, h), h-cut(3, h)
		if x1 <= x0 {
			x0, x1 = min(x0, w-1), min(x0, w-1)+1
		}
		if y1 <= y0 {
			y0, y1 = min(y0, h-1), min(y0, h-1)+1
		}
		if x0 == 0 && y0 == 0 && x1 == w && y1 == h {
			return identityMap(op, w, h), nil
		}
		return offsetMap(op, w, h, x1-x0, y1-y0, -x0, -y0, "constant"), nil

	case "crop_and_pad":
		pct, keep := r.num("percent"), r.flag("keep_size")
		r.num("fill")
		mode := r.enum("mode", "constant", "reflect", "edge")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		dx := int(math.Round(pct * fw))
		dy := int(math.Round(pct * fh))
		if dx == 0 && dy == 0 {
			return identityMap(op, w, h), nil
		}
		ow, oh := max(1, w+2*dx), max(1, h+2*dy)
		m := offsetMap(op, w, h, ow, oh, dx, dy, mode)
		if keep && (ow != w || oh != h) {
			m = then(op, m, scaleMap(op, ow, oh, w, h))
		}
		return m, nil

	case "grid_shuffle":
		cells := r.integer("cells")
		if r.err != nil {
			return GeoMap{}, r.err
		}
		cells = min(cells, min(w, h))
		if cells <= 1 {
			return identityMap(op, w, h), nil
		}
		xs, ys, from := gridShuffle(key, w, h, cells)
		to := make([][2]int, len(from))
		for d, s := range from {
			to[s[1]*cells+s[0]] = [2]int{d % cells, d / cells}
		}
		cellOf := func(e []int, v float64) int {
			return min(max(atMost(e, v)-1, 0), cells-1)
		}
		move := func(x, y float64, pick func(i, j int) [2]int) (float64, float64) {
			i, j := cellOf(xs, x), cellOf(ys, y)
			c := pick(i, j)
			return x - float64(xs[i]) + float64(xs[c[0]]), y - float64(ys[j]) + float64(ys[c[1]])
		}
		return GeoMap{Op: op, InW: w, InH: h, OutW: w, OutH: h, Border: "edge",
			inverse: func(x, y float64) (float64, float64) {
				return move(x, y, func(i, j int) [2]int { return from[j*cells+i] })
			},
			forward: func(x, y float64) (float64, float64) {
				return move(x, y, func(i, j int) [2]int { return to[j*cells+i] })
			}}, nil
	}
	return GeoMap{}, darkroom.Errorf(darkroom.InternalError, "geometry maps: no map for operation %q", op)
}

// atMost returns how many values of the increasing slice e are at most v.
func atMost[T int | float64](e []T, v float64) int {
	n := 0
	for _, x := range e {
		if float64(x) <= v {
			n++
		}
	}
	return n
}

// gridShuffle returns opGridShuffle's cell edges and, for the output cell at (i, j),
// from[j*cells+i], the source cell it shows: the same grouping by size and the same
// Fisher-Yates draws as the operation.
func gridShuffle(key uint64, w, h, cells int) (xs, ys []int, from [][2]int) {
	xs, ys = make([]int, cells+1), make([]int, cells+1)
	for i := range xs {
		xs[i] = i * w / cells
		ys[i] = i * h / cells
	}
	groups := map[[2]int][][2]int{}
	var order [][2]int
	for j := range cells {
		for i := range cells {
			s := [2]int{xs[i+1] - xs[i], ys[j+1] - ys[j]}
			if _, ok := groups[s]; !ok {
				order = append(order, s)
			}
			groups[s] = append(groups[s], [2]int{i, j})
		}
	}
	from = make([][2]int, cells*cells)
	draw := 0
	for _, s := range order {
		g := groups[s]
		perm := slices.Clone(g)
		for i := len(perm) - 1; i > 0; i-- {
			j := int(uniform(rnd(key, draw, 0, 0)) * float64(i+1))
			draw++
			perm[i], perm[min(j, i)] = perm[min(j, i)], perm[i]
		}
		for i, c := range g {
			from[c[1]*cells+c[0]] = perm[i]
		}
	}
	return xs, ys, from
}

// invert3 inverts a 3x3 matrix (row-major); a projective map's inverse up to scale.
func invert3(m [9]float64) [9]float64 {
	a, b, c, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	return [9]float64{
		e*i - f*h, c*h - b*i, b*f - c*e,
		f*g - d*i, a*i - c*g, c*d - a*f,
		d*h - e*g, b*g - a*h, a*e - b*d,
	}
}
