package engine

import (
	"runtime"
	"sync"
	"sync/atomic"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Streamed renders: bands with halos.
//
// A render streams when every edit can make any band of rows of its output from a
// band of rows of its input (see bandPlan): per-pixel operations need the same rows,
// neighbourhood filters need their halo (the rows their kernel reaches, measured at
// the render's scale), geometry needs the source rows its inverse map reads. A band
// of the final image is made by walking the edits backwards to find the rows each
// needs, reading those rows of the source, and running the edits forwards, each on
// the rows it was given, keeping the rows the next one needs. Filters clamp at the
// edges of the rows they are given; the halo is wide enough that no row kept depends
// on a clamp that is not an image edge, so bands compose into the whole-image
// result.
//
// Filters that average the image down to a coarse grid (the large gaussian of
// clarity and blur, the fast guided filter of denoise) would need a halo of
// hundreds of rows; they get a first pass instead: the edits before them are
// streamed over the whole image once to build the grid, which is small, and the band
// pass then interpolates from it pixel by pixel. The grid is computed by the same
// functions, on blocks placed on the frame's coordinates, as the whole-image render.
//
// Operations that need the whole image (equalize, auto_contrast, CLAHE, dehaze,
// fancy_pca, quarter turns, scale, ... see streamers) are not streamed: an export
// with one of them renders the image whole, as before.

// streamSpec says how one edit streams on an image of a given size.
type streamSpec struct {
	// whole says it cannot stream.
	whole bool
	// halo is the rows of context above and below a band the edit needs.
	halo int
	// geom, for a geometry edit, maps output bands to the input rows they read.
	geom *geomSpec
	// pre, when set, is a first pass over the whole input of the edit.
	pre *gridPass
	// rows, when set, is the input rows [a', b') that output rows [a, b) need, for
	// an edit whose reach depends on where the band lies (a spot).
	rows func(a, b int) (int, int)
}

// geomSpec is a geometry edit as a map from bands of its w x h output to bands of
// its input.
type geomSpec struct {
	w, h int
	// src returns the input rows [sa, sb) that output rows [a, b) read.
	src func(a, b int) (sa, sb int)
	// render makes output rows [a, b) from in, which holds input rows
	// [sa, sa+in.H) of an input inH rows tall.
	render func(rc *runCtx, in *Image, sa, inH, a, b int) *Image
	// view, for a crop or flip, is the edit as a move of whole pixels.
	view *pixelView
	// warp, for a resampling edit, is its inverse map.
	warp *warpInfo
}

// pixelView maps a pixel (x, y) of an edit's output to the pixel (sx*x+tx, sy*y+ty)
// of its input, sx and sy 1 or -1: a crop, a flip, or several of them.
type pixelView struct{ sx, tx, sy, ty int }

// then returns the view that applies v's map to the result of u's: v's output seen
// through u, when v is the edit after u.
func (v pixelView) then(u pixelView) pixelView {
	return pixelView{sx: v.sx * u.sx, tx: v.sx*u.tx + v.tx, sy: v.sy * u.sy, ty: v.sy*u.ty + v.ty}
}

// fetch writes to dst the rectangle [x0, x1) x [y0, y1) of the view's output (rows of
// x1-x0 pixels), reading its input's pixels with src.
func (v pixelView) fetch(src rectSource, x0, y0, x1, y1 int, dst []float32, tmp func(n int) []float32) {
	if v == (pixelView{sx: 1, sy: 1}) {
		src(x0, y0, x1, y1, dst)
		return
	}
	// The input's rectangle: the corners' images.
	ax, bx := v.sx*x0+v.tx, v.sx*(x1-1)+v.tx
	ay, by := v.sy*y0+v.ty, v.sy*(y1-1)+v.ty
	ix0, iy0 := min(ax, bx), min(ay, by)
	iw, ih := max(ax, bx)-ix0+1, max(ay, by)-iy0+1
	buf := tmp(3 * iw * ih)
	src(ix0, iy0, ix0+iw, iy0+ih, buf)
	w := x1 - x0
	for y := y0; y < y1; y++ {
		row := buf[3*iw*(v.sy*y+v.ty-iy0):]
		out := dst[3*w*(y-y0) : 3*w*(y-y0+1)]
		if v.sx == 1 {
			copy(out, row[3*(x0+v.tx-ix0):])
			continue
		}
		for x := x0; x < x1; x++ {
			k := 3 * (v.sx*x + v.tx - ix0)
			o := 3 * (x - x0)
			out[o], out[o+1], out[o+2] = row[k], row[k+1], row[k+2]
		}
	}
}

// warpInfo is warp's inverse map from an inW x inH input.
type warpInfo struct {
	inW, inH int
	mode     string
	linear   bool
	// bilinear samples 2 x 2 taps instead of the cubic's 4 x 4.
	bilinear bool
	to       func(x, y float64) (float64, float64)
	// aff, when set, is to as an affine map (rotate, affine), which the AVX2
	// loop evaluates itself.
	aff *affine
	// flipH and flipV make a bilinear warp of a whole image sample its input
	// mirrored on that axis, as if a flip had rendered it first: the same taps
	// with the same weights, read from the other side (see warpOf).
	flipH, flipV bool
	// post, when set, are row functions (of rowOps) to run on each output row
	// as soon as it is sampled, while it is in cache: the row operations after
	// the warp (see warpOf).
	post []func(d, s []float32)
}

// whole applies the edit to a whole image.
func (g *geomSpec) whole(rc *runCtx, src *Image) *Image { return g.render(rc, src, 0, src.H, 0, g.h) }

// gridPass is the first pass of an edit that works from a coarse grid of its whole
// input: rows makes the grid rows of a band of whole blocks (the band is given with
// its frame in rc), which then go back to rc's pool; finish turns the whole grid into
// what the edit reads as rc.pre.
type gridPass struct {
	sub, nc int
	rows    func(rc *runCtx, in *Image) []float32
	finish  func(rc *runCtx, grid []float32, w, h, cw, ch int) any
	// y0 and y1, when y1 > 0, are the only rows of the input the grid covers; the
	// grid's first row is then block row y0/sub.
	y0, y1 int
	// Or, for statistics that do not depend on how the rows are cut (counts), stats
	// makes a band's share and merge turns all the shares into what the edit reads.
	stats func(rc *runCtx, in *Image) any
	merge func(parts []any, w, h int) any
}

// step is one edit of a streamed render, on a inW x inH input.
type step struct {
	i                    int // the edit's index
	spec                 streamSpec
	inW, inH, outW, outH int
	// rect, for a warp that is the render's first step, says it reads the source,
	// seen through view (the crops and flips before it), a rectangle at a time.
	rect bool
	view pixelView
}

// rowSource writes rows [y0, y1) of the source image (three values a pixel) to dst.
// It may be called from several goroutines at once.
type rowSource func(y0, y1 int, dst []float32)

// rectSource writes the rectangle [x0, x1) x [y0, y1) of the source image to dst, in
// rows of x1-x0 pixels. It may be called from several goroutines at once.
type rectSource func(x0, y0, x1, y1 int, dst []float32)

// bandPlan is a streamed render of edits on a W x H source.
type bandPlan struct {
	edits []Edit
	opt   RenderOptions
	occ   []int
	steps []step
	W, H  int
	// rects reads the source (see tileCache); src reads its rows through it.
	rects rectSource
}

// src writes rows [y0, y1) of the source to dst.
func (p *bandPlan) src(y0, y1 int, dst []float32) {
	if y1 > y0 {
		p.rects(0, y0, p.W, y1, dst)
	}
}

// planBands returns the plan of a streamed render of edits (checked, in order) on a
// w x h source, or nil when some edit needs the whole image.
func planBands(edits []Edit, order []int, opt RenderOptions, w, h int) (*bandPlan, error) {
	p := &bandPlan{edits: edits, opt: opt, occ: occurrences(edits), W: w, H: h}
	p.opt.pre = map[int]any{}
	for _, i := range order {
		e := edits[i]
		if e.Strength == 0 {
			continue
		}
		st := step{i: i, inW: w, inH: h, outW: w, outH: h}
		if !bandEdit(e) {
			fn, ok := streamers[e.Op]
			if e.Op == "spot" {
				fn, ok = func(rc *runCtx, w, h int, a Args) (streamSpec, error) { return streamSpot(w, h, e) }, true
			}
			if !ok || (e.Mask != nil && !bandMask(e.Mask)) {
				return nil, nil
			}
			spec, err := fn(p.rc(i, nil), w, h, e.Args)
			if err != nil {
				return nil, darkroom.Wrap(darkroom.Code(err), err, "edit %d (%s)", i, e.Op)
			}
			if spec.whole {
				return nil, nil
			}
			if catalog[e.Op].stage == "geometry" && spec.geom == nil {
				continue // neutral
			}
			st.spec = spec
			if spec.geom != nil {
				st.outW, st.outH = spec.geom.w, spec.geom.h
				w, h = st.outW, st.outH
			}
		}
		p.steps = append(p.steps, st)
	}
	// Crops and flips followed by a warp: the warp reads the source through them, a
	// rectangle at a time, so a band of a rotation holds a band's worth of the
	// source, not every row its slant crosses.
	view := pixelView{sx: 1, sy: 1}
	for k, st := range p.steps {
		g := st.spec.geom
		if g == nil {
			break
		}
		if g.warp != nil {
			st.rect, st.view = true, view
			p.steps = append([]step{st}, p.steps[k+1:]...)
			break
		}
		if g.view == nil {
			break
		}
		view = view.then(*g.view)
	}
	return p, nil
}

// bandMask reports whether a mask is rasterized pixel by pixel on a band (a
// feathered polygon is blurred).
func bandMask(m *Mask) bool {
	return m.Shape == nil || m.Shape.Kind != "polygon" || !(m.Shape.Feather > 0)
}

// rc is the runCtx edit i runs with.
func (p *bandPlan) rc(i int, pool *bufPool) *runCtx {
	e := p.edits[i]
	return &runCtx{key: editKey(p.opt.Seed, e.Op, p.occ[i]), pool: pool, opName: e.Op, bilinear: p.opt.Interpolation == "linear"}
}

// size is the rendered image's size.
func (p *bandPlan) size() (int, int) {
	if n := len(p.steps); n > 0 {
		return p.steps[n-1].outW, p.steps[n-1].outH
	}
	return p.W, p.H
}

// halo is the rows of context all the edits need together, geometry aside.
func (p *bandPlan) halo() int {
	n := 0
	for _, s := range p.steps {
		n += s.spec.halo
	}
	return n
}

// need returns, for rows [a, b) of the output of the first n steps, the rows each of
// those steps is given: need[k] for step k, need[n] = [a, b).
func (p *bandPlan) need(n, a, b int) [][2]int {
	rng := make([][2]int, n+1)
	rng[n] = [2]int{a, b}
	for k := n - 1; k >= 0; k-- {
		s := p.steps[k]
		switch {
		case s.rect:
			a, b = 0, 0
		case s.spec.rows != nil:
			a, b = s.spec.rows(a, b)
		case s.spec.geom != nil:
			if a < b {
				a, b = s.spec.geom.src(a, b)
			}
		default:
			a, b = max(0, a-s.spec.halo), min(s.inH, b+s.spec.halo)
		}
		rng[k] = [2]int{a, b}
	}
	return rng
}

// prepare runs the first passes the plan's edits need, in render order, each over
// the output of the edits before it.
func (p *bandPlan) prepare() error {
	for k, s := range p.steps {
		g := s.spec.pre
		if g == nil {
			continue
		}
		w, h := s.inW, s.inH
		if g.stats != nil {
			rows := bandRowsFor(w)
			parts := make([]any, (h+rows-1)/rows)
			err := eachBand(len(parts), func(b int, pool *bufPool) error {
				y0, y1 := b*rows, min((b+1)*rows, h)
				m, done, err := p.renderRows(k, y0, y1, pool)
				if err != nil {
					return err
				}
				rc := p.rc(s.i, pool)
				rc.frame = frame{y0, w, h}
				parts[b] = g.stats(rc, m)
				done()
				return nil
			})
			if err != nil {
				return err
			}
			p.opt.pre[s.i] = g.merge(parts, w, h)
			continue
		}
		cw, ch := (w+g.sub-1)/g.sub, (h+g.sub-1)/g.sub
		wy0, wy1 := 0, h
		if g.y1 > 0 {
			wy0, wy1 = g.y0/g.sub*g.sub, min(h, (g.y1+g.sub-1)/g.sub*g.sub)
			ch = (wy1 - wy0 + g.sub - 1) / g.sub
		}
		grid := make([]float32, cw*ch*g.nc)
		// Bands of whole blocks, so each block's rows are summed in one band in the
		// whole-image order.
		rows := g.sub * max(1, (bandRowsFor(w)+g.sub-1)/g.sub)
		err := eachBand((wy1-wy0+rows-1)/rows, func(b int, pool *bufPool) error {
			y0, y1 := wy0+b*rows, min(wy0+(b+1)*rows, wy1)
			m, done, err := p.renderRows(k, y0, y1, pool)
			if err != nil {
				return err
			}
			rc := p.rc(s.i, pool)
			rc.frame = frame{y0, w, h}
			part := g.rows(rc, m)
			copy(grid[((y0-wy0)/g.sub)*cw*g.nc:], part)
			// The part may be any of the pool's buffers (the smallest that fits
			// can be a band's): without it back, each band would leave one to
			// the collector.
			rc.release(part)
			done()
			return nil
		})
		if err != nil {
			return err
		}
		p.opt.pre[s.i] = g.finish(p.rc(s.i, nil), grid, w, h, cw, ch)
	}
	return nil
}

// eachBand calls fn for bands 0 to n-1 on every core, in about that order (so a
// cache of source rows serves neighbours), each worker with its own pool, and
// returns the first error.
func eachBand(n int, fn func(b int, pool *bufPool) error) error {
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	parallelN(min(runtime.GOMAXPROCS(0), n), 1, func(lo, hi int) {
		pool := &bufPool{}
		defer pool.recycle()
		for {
			b := int(next.Add(1)) - 1
			if b >= n {
				return
			}
			if err := fn(b, pool); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				next.Store(int64(n))
				return
			}
		}
	})
	return first
}

// renderRows makes rows [a, b) of the output of the first n steps; done gives the
// band's buffers back to pool.
func (p *bandPlan) renderRows(n, a, b int, pool *bufPool) (*Image, func(), error) {
	rng := p.need(n, a, b)
	r0 := rng[0]
	owner := pool.get(3 * p.W * (r0[1] - r0[0]))
	p.src(r0[0], r0[1], owner)
	cur := &Image{W: p.W, H: r0[1] - r0[0], Pix: owner}
	for k := range n {
		s := p.steps[k]
		in0, out := rng[k][0], rng[k+1]
		if s.rect {
			m := s.spec.geom.warp.renderRect(p.rc(s.i, pool), s.outW, p.rects, s.view, out[0], out[1])
			pool.put(owner)
			owner, cur = m.Pix, m
			continue
		}
		if s.spec.geom != nil {
			m := s.spec.geom.render(p.rc(s.i, pool), cur, in0, s.inH, out[0], out[1])
			pool.put(owner)
			owner, cur = m.Pix, m
			continue
		}
		m, err := renderFrame(cur, p.edits, []int{s.i}, p.opt, frame{in0, s.inW, s.inH}, pool)
		if err != nil {
			pool.put(owner)
			return nil, nil, err
		}
		if m != cur {
			pool.put(owner)
			owner = m.Pix
		}
		// Keep the rows the next step is given.
		cur = &Image{W: m.W, H: out[1] - out[0], Pix: m.Pix[3*m.W*(out[0]-in0) : 3*m.W*(out[1]-in0)]}
	}
	return cur, func() { pool.put(owner) }, nil
}

// bandRowsFor is the rows of a band of a streamed render of a w-pixel-wide image
// whose float rows fit exportBandBytes.
func bandRowsFor(w int) int { return max(1, exportBandBytes/(12*w)) }

// memRects is the rectSource of an image in memory.
func memRects(m *Image) rectSource {
	return func(x0, y0, x1, y1 int, dst []float32) {
		w := x1 - x0
		for y := y0; y < y1; y++ {
			copy(dst[3*w*(y-y0):3*w*(y-y0+1)], m.Pix[3*(y*m.W+x0):3*(y*m.W+x1)])
		}
	}
}

// renderBands renders edits on src band by band, bands of rows rows, with the
// streamed render's code; it returns nil when some edit needs the whole image. The
// result equals Render's (see TestBandsMatchWhole).
func renderBands(src *Image, edits []Edit, opt RenderOptions, rows int) (*Image, error) {
	order, err := renderOrder(edits)
	if err != nil {
		return nil, err
	}
	p, err := planBands(edits, order, opt, src.W, src.H)
	if p == nil || err != nil {
		return nil, err
	}
	p.rects = memRects(src)
	if err := p.prepare(); err != nil {
		return nil, err
	}
	w, h := p.size()
	out := NewImage(w, h)
	pool := &bufPool{}
	for y0 := 0; y0 < h; y0 += rows {
		y1 := min(y0+rows, h)
		m, done, err := p.renderRows(len(p.steps), y0, y1, pool)
		if err != nil {
			return nil, err
		}
		copy(out.Pix[3*y0*w:3*y1*w], m.Pix)
		done()
	}
	return out, nil
}
