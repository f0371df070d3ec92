package engine

// Geometry in a streamed render: crops and flips as pixel moves, warps read a source rectangle per block of columns.

import (
	"math"
	"sync"
)

// geomPlan, set on a runCtx, makes warp and subImage record the map they would
// apply instead of applying it: a geometry operation that is one warp or one crop of
// its input is planned by running it on an image without pixels.
type geomPlan struct {
	spec *geomSpec
	out  *Image
}

// streamGeometry plans a geometry edit by running it with a geomPlan: it streams
// when what it returns is the recorded warp or crop (or its input, when neutral).
func streamGeometry(rc *runCtx, w, h int, a Args) (spec streamSpec, err error) {
	op := catalog[rc.opName].run
	plan := &geomPlan{}
	prc := *rc
	prc.plan = plan
	src := &Image{W: w, H: h}
	defer func() {
		// An operation that reads pixels before or after its warp cannot be planned
		// this way; it renders whole.
		if recover() != nil {
			spec, err = streamSpec{whole: true}, nil
		}
	}()
	out, err := op(&prc, src, a)
	switch {
	case err != nil:
		return streamSpec{}, err
	case out == src:
		return streamSpec{}, nil
	case plan.spec == nil || out != plan.out:
		return streamSpec{whole: true}, nil
	}
	return streamSpec{geom: plan.spec}, nil
}

// record keeps a planned geometry and returns an image of its size without pixels.
func (p *geomPlan) record(g *geomSpec) *Image {
	if p.spec != nil {
		panic("geometry: planned twice") // two warps in one operation: render it whole
	}
	p.spec, p.out = g, &Image{W: g.w, H: g.h}
	return p.out
}

// cropSpec is the geometry of the w x h rectangle at (x0, y0) of its input.
func cropSpec(x0, y0, w, h int) *geomSpec {
	return &geomSpec{
		w: w, h: h, view: &pixelView{sx: 1, tx: x0, sy: 1, ty: y0},
		src: func(a, b int) (int, int) { return y0 + a, y0 + b },
		render: func(rc *runCtx, in *Image, sa, inH, a, b int) *Image {
			dst := rc.image(w, b-a)
			parallelRows(b-a, func(lo, hi int) {
				for y := lo; y < hi; y++ {
					s := in.Pix[3*((y0+a+y-sa)*in.W+x0):]
					copy(dst.Pix[3*y*w:3*(y+1)*w], s[:3*w])
				}
			})
			return dst
		},
	}
}

// warpSpec is the geometry of warp (see there) from an inW x inH input. When linear
// is set the map is affine, so the source rows of a band lie within those of its
// corners.
func warpSpec(inW, inH, w, h int, mode string, linear bool, to func(x, y float64) (float64, float64)) *geomSpec {
	g := &warpInfo{inW: inW, inH: inH, mode: mode, linear: linear, to: to}
	src := func(a, b int) (int, int) {
		_, sa, _, sb := g.bounds(a, b, 0, w)
		return sa, sb
	}
	render := func(rc *runCtx, in *Image, sa, inH, a, b int) *Image {
		dst := rc.image(w, b-a)
		parallelRows(b-a, func(lo, hi int) {
			g.render(dst.Pix[3*w*lo:], w, in, 0, sa, a+lo, a+hi, 0, w)
		})
		return dst
	}
	return &geomSpec{w: w, h: h, src: src, render: render, warp: g}
}

// affine is an affine inverse map in the form the warps write it:
// px = (x - ox) - ox2, py = (y - oy) - oy2, and the source position
// (a*px + b*py + e, c*px + d*py + f), each operation rounded in that order.
type affine struct{ ox, ox2, oy, oy2, a, b, c, d, e, f float64 }

func (m *affine) at(x, y float64) (float64, float64) {
	px, py := x-m.ox-m.ox2, y-m.oy-m.oy2
	return m.a*px + m.b*py + m.e, m.c*px + m.d*py + m.f
}

// render writes output pixels [c0, c1) of rows [a, b) to dst (rows of stride pixels
// from its start) from in, which holds the input's columns [x0, x0+in.W) and rows
// [y0, y0+in.H), every pixel the block's taps read.
func (g *warpInfo) render(dst []float32, stride int, in *Image, x0, y0, a, b, c0, c1 int) {
	if (g.flipH || g.flipV) && (!g.bilinear || x0 != 0 || y0 != 0 || in.W != g.inW || in.H != g.inH) {
		panic("engine: a warp samples a mirrored input bilinearly from the whole image only")
	}
	var rows *affineRows
	if g.aff != nil && g.bilinear && g.mode != "reflect" && useAVX2 {
		rows = newAffineRows(g, in, x0, y0, c1-c0)
	}
	for y := a; y < b; y++ {
		row := dst[3*stride*(y-a):]
		row = row[:3*(c1-c0)]
		if rows == nil {
			g.span(row, in, x0, y0, y, c0, c0, c1)
		} else {
			// Groups of four pixels whose taps all lie inside in are sampled by
			// the AVX2 loop; the others, and the last few, here.
			n := (c1 - c0) &^ 3
			for _, k := range rows.row(row, in, y, c0, n) {
				g.span(row, in, x0, y0, y, c0, c0+int(k), c0+int(k)+4)
			}
			g.span(row, in, x0, y0, y, c0, c0+n, c1)
		}
		for _, f := range g.post {
			f(row, row)
		}
	}
}

// span writes output pixels [xa, xb) of row y to row (which starts at pixel c0).
func (g *warpInfo) span(row []float32, in *Image, x0, y0, y, c0, xa, xb int) {
	reflect, clamp := g.mode == "reflect", g.mode == "reflect" || g.mode == "edge"
	inW, inH := g.inW, g.inH
	fw, fh := float64(inW), float64(inH)
	istride := 3 * in.W
	for x := xa; x < xb; x++ {
		sx, sy := g.to(float64(x)+0.5, float64(y)+0.5)
		sx, sy = sx-0.5, sy-0.5
		if reflect {
			sx, sy = reflectCoord(sx, inW), reflectCoord(sy, inH)
		}
		o := row[3*(x-c0) : 3*(x-c0)+3 : 3*(x-c0)+3]
		if !g.bilinear {
			o[0], o[1], o[2] = sampleCubicRect(in, x0, y0, inW, inH, sx, sy, clamp)
			continue
		}
		if clamp {
			sx, sy = min(max(sx, 0), fw-1), min(max(sy, 0), fh-1)
		}
		// sampleLinearRect's arithmetic, inline, for the taps inside the input
		// (the other pixels go to it: clamping again changes nothing).
		fx, fy := math.Floor(sx), math.Floor(sy)
		if fx >= 0 && fy >= 0 && fx+1 < fw && fy+1 < fh && !g.flipH && !g.flipV {
			ix, iy := int(fx), int(fy)
			ax, ay := float32(sx-fx), float32(sy-fy)
			base := 3*(iy-y0)*in.W + 3*(ix-x0)
			p := in.Pix[base : base+6 : base+6]
			q := in.Pix[base+istride : base+istride+6 : base+istride+6]
			bx := 1 - ax
			r0, g0, b0 := bx*p[0]+ax*p[3], bx*p[1]+ax*p[4], bx*p[2]+ax*p[5]
			r1, g1, b1 := bx*q[0]+ax*q[3], bx*q[1]+ax*q[4], bx*q[2]+ax*q[5]
			by := 1 - ay
			o[0], o[1], o[2] = by*r0+ay*r1, by*g0+ay*g1, by*b0+ay*b1
			continue
		}
		o[0], o[1], o[2] = sampleLinearRect(in, x0, y0, inW, inH, sx, sy, clamp, g.flipH, g.flipV)
	}
}

// affineRows runs the AVX2 loop of a bilinear affine warp over rows of a block.
type affineRows struct {
	m    *affine
	p    affineParams
	skip []int32
}

// affineParams is what warpAffineAVX2 reads (warp_amd64.s relies on its layout:
// eight-byte fields in this order).
type affineParams struct {
	ox, ox2, a, c    float64
	bpy, dpy, e, f   float64
	fwm1, fhm1       float64 // the clamp's bounds (edge mode)
	fw, fh           float64
	x0, y0, inW, lim int64 // lim: the largest tap offset whose seven floats and the next row's lie in the input (the AVX-512 loop reads one past the six taps)
	clamp            int64
	xm, ym           int64 // -1 for an axis the input is sampled mirrored on (x0 or y0 is then 1-n)
	ahead            int64 // bytes from a pixel's taps to where the same pixel two rows down reads (prefetched)
}

// newAffineRows prepares the loop for blocks of w pixels read from in, or returns
// nil when the loop cannot take them (offsets beyond 32 bits).
func newAffineRows(g *warpInfo, in *Image, x0, y0, w int) *affineRows {
	lim := len(in.Pix) - 3*in.W - 7
	if lim < 0 || len(in.Pix) > math.MaxInt32 {
		return nil
	}
	m := g.aff
	r := &affineRows{m: m, skip: make([]int32, w/4+1)}
	r.p = affineParams{ox: m.ox, ox2: m.ox2, a: m.a, c: m.c, e: m.e, f: m.f,
		fwm1: float64(g.inW) - 1, fhm1: float64(g.inH) - 1, fw: float64(g.inW), fh: float64(g.inH),
		x0: int64(x0), y0: int64(y0), inW: int64(in.W), lim: int64(lim)}
	if g.mode == "edge" {
		r.p.clamp = 1
	}
	if g.flipH {
		r.p.xm, r.p.x0 = -1, 1-int64(g.inW)
	}
	if g.flipV {
		r.p.ym, r.p.y0 = -1, 1-int64(g.inH)
	}
	// Two output rows down, a pixel reads (2b, 2d) further into the input (the other
	// way on a mirrored axis): rows the caches do not hold yet on a slanted map,
	// whose diagonal the hardware's prefetchers do not follow, so the loops prefetch
	// them. Only a hint: prefetching never faults, wherever it points.
	dx, dy := math.Round(2*m.b), math.Round(2*m.d)
	if g.flipH {
		dx = -dx
	}
	if g.flipV {
		dy = -dy
	}
	if math.Abs(dx) < 1<<20 && math.Abs(dy) < 1<<20 {
		r.p.ahead = 12 * (int64(dx) + int64(dy)*int64(in.W))
	}
	return r
}

// row samples the groups of four of the first n pixels of row y (n a multiple of
// 4, the row starting at pixel c0) and returns the offsets of the groups it left.
func (r *affineRows) row(row []float32, in *Image, y, c0, n int) []int32 {
	if n == 0 {
		return nil
	}
	py := float64(y) + 0.5 - r.m.oy - r.m.oy2
	r.p.bpy, r.p.dpy = r.m.b*py, r.m.d*py
	if !useAVX512 {
		k := warpAffineAVX2(&row[0], &in.Pix[0], n, float64(c0)+0.5, &r.p, &r.skip[0])
		return r.skip[:k]
	}
	n8 := n &^ 7
	k := 0
	if n8 > 0 {
		k = warpAffineAVX512(&row[0], &in.Pix[0], n8, float64(c0)+0.5, &r.p, &r.skip[0])
	}
	if n8 < n {
		// The last group of four.
		if warpAffineAVX2(&row[3*n8], &in.Pix[0], 4, float64(c0+n8)+0.5, &r.p, &r.skip[k]) > 0 {
			r.skip[k] = int32(n8)
			k++
		}
	}
	return r.skip[:k]
}

// bounds returns the input rectangle [x0, x1) x [y0, y1) that the output pixels
// [c0, c1) of rows [a, b) read (empty when they read nothing).
func (g *warpInfo) bounds(a, b, c0, c1 int) (x0, y0, x1, y1 int) {
	inW, inH := g.inW, g.inH
	clampEdge := g.mode != "constant"
	// at returns the position pixel (x, y) samples, folded or clamped as the
	// sampler does, and false when it samples nothing (all black) unless all.
	at := func(x, y int, all bool) (float64, float64, bool) {
		sx, sy := g.to(float64(x)+0.5, float64(y)+0.5)
		sx, sy = sx-0.5, sy-0.5
		if g.mode == "reflect" {
			sx, sy = reflectCoord(sx, inW), reflectCoord(sy, inH)
		}
		if clampEdge {
			sx, sy = min(max(sx, 0), float64(inW-1)), min(max(sy, 0), float64(inH-1))
		}
		fx, fy := math.Floor(sx), math.Floor(sy)
		if math.IsNaN(sx) || math.IsNaN(sy) || (!all && (fx < -3 || fy < -3 || fx > float64(inW)+2 || fy > float64(inH)+2)) {
			return 0, 0, false
		}
		return sx, sy, true
	}
	lx, ly, hx, hy := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	if g.linear && g.mode != "reflect" {
		for _, y := range []int{a, b - 1} {
			for _, x := range []int{c0, c1 - 1} {
				// A corner bounds the block even where it samples nothing.
				if sx, sy, ok := at(x, y, true); ok {
					lx, ly, hx, hy = min(lx, sx), min(ly, sy), max(hx, sx), max(hy, sy)
				}
			}
		}
		// A margin of a pixel for the rounding of the corners' positions.
		lx, ly, hx, hy = lx-1, ly-1, hx+1, hy+1
	} else {
		var mu sync.Mutex
		parallelRows(b-a, func(ya, yb int) {
			l, m, u, v := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for y := a + ya; y < a+yb; y++ {
				for x := c0; x < c1; x++ {
					if sx, sy, ok := at(x, y, false); ok {
						l, m, u, v = min(l, sx), min(m, sy), max(u, sx), max(v, sy)
					}
				}
			}
			mu.Lock()
			lx, ly, hx, hy = min(lx, l), min(ly, m), max(hx, u), max(hy, v)
			mu.Unlock()
		})
	}
	if lx > hx || ly > hy {
		return 0, 0, 0, 0
	}
	// The cubic's taps are floor(s)-1 .. floor(s)+2.
	span := func(lo, hi float64, n int) (int, int) {
		s0 := min(max(int(math.Floor(max(lo, -8)))-1, 0), n)
		s1 := min(max(int(math.Floor(min(hi, float64(n)+8)))+3, 0), n)
		return s0, max(s0, s1)
	}
	x0, x1 = span(lx, hx, inW)
	y0, y1 = span(ly, hy, inH)
	return x0, y0, x1, y1
}

// warpBlock is the width of the column blocks a warp read through a rectSource
// renders: each block's input is a small rectangle, however slanted the map.
const warpBlock = 256

// renderRect makes output rows [a, b) of a warp whose input is the source seen
// through view, read a rectangle at a time.
func (g *warpInfo) renderRect(rc *runCtx, w int, src rectSource, view pixelView, a, b int) *Image {
	dst := rc.image(w, b-a)
	n := (w + warpBlock - 1) / warpBlock
	parallelN(n, 1, func(lo, hi int) {
		var buf, tmp []float32
		grow := func(b *[]float32, n int) []float32 {
			if cap(*b) < n {
				*b = make([]float32, n)
			}
			return (*b)[:n]
		}
		for k := lo; k < hi; k++ {
			c0, c1 := k*warpBlock, min((k+1)*warpBlock, w)
			x0, y0, x1, y1 := g.bounds(a, b, c0, c1)
			in := &Image{W: x1 - x0, H: y1 - y0, Pix: grow(&buf, 3*(x1-x0)*(y1-y0))}
			if x1 > x0 && y1 > y0 {
				view.fetch(src, x0, y0, x1, y1, in.Pix, func(n int) []float32 { return grow(&tmp, n) })
			}
			g.render(dst.Pix[3*c0:], w, in, x0, y0, a, b, c0, c1)
		}
	})
	return dst
}
