package engine

import (
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"darkroom"
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
	to       func(x, y float64) (float64, float64)
}

// whole applies the edit to a whole image.
func (g *geomSpec) whole(rc *runCtx, src *Image) *Image { return g.render(rc, src, 0, src.H, 0, g.h) }

// gridPass is the first pass of an edit that works from a coarse grid of its whole
// input: rows makes the grid rows of a band of whole blocks (the band is given with
// its frame in rc), finish turns the whole grid into what the edit reads as rc.pre.
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

// streamer returns how an operation with arguments a streams on a w x h input. It
// parses the arguments the way the operation does and fails as it would.
type streamer func(rc *runCtx, w, h int, a Args) (streamSpec, error)

// streamers covers the operations that are not per-pixel (catalog band: false) but
// stream anyway. Those missing need the whole image.
var streamers = map[string]streamer{
	"sharpen": streamSharpen,
	"grain":   streamGrain,
	"clarity": streamClarity,
	"denoise": streamDenoise,
	"blur":    streamBlur,
	"clahe":   streamCLAHE,
	"dehaze":  streamDehaze,

	"emboss":        streamEmboss,
	"cutout":        streamPlaced,
	"morphology":    streamMorphology,
	"equalize":      streamEqualize,
	"auto_contrast": streamAutoContrast,

	"crop":            streamGeometry,
	"random_crop":     streamGeometry,
	"center_crop":     streamGeometry,
	"border_crop":     streamGeometry,
	"rotate":          streamGeometry,
	"flip":            streamGeometry,
	"affine":          streamGeometry,
	"perspective":     streamGeometry,
	"elastic":         streamGeometry,
	"grid_distortion": streamGeometry,
	"lens_distortion": streamGeometry,
	"pad":             streamGeometry,
}

// gaussHalo is the rows gaussian(sigma) reaches on either side.
func gaussHalo(sigma float64) int {
	switch {
	case !(sigma > 0.05):
		return 0
	case sigma <= exactGaussMax:
		return int(math.Ceil(3 * sigma))
	}
	r, _ := gaussBox(sigma)
	return 3 * (r + 1)
}

func streamSharpen(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, radius := r.num("amount"), r.num("radius")
	r.num("threshold")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{halo: gaussHalo(radius * float64(max(w, h)))}, nil
}

func streamGrain(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, size := r.num("amount"), r.num("size")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{halo: gaussHalo(grainSigma(size, float64(max(w, h))))}, nil
}

// largeGridPass is the first pass of a gaussianLarge of sigma on a w x h frame that
// subsamples by sub: the block averages of plane(in) (nc channels), blurred.
func largeGridPass(sub, nc int, sigma float64, plane func(rc *runCtx, in *Image) ([]float32, bool)) *gridPass {
	return &gridPass{
		sub: sub, nc: nc,
		rows: func(rc *runCtx, in *Image) []float32 {
			p, own := plane(rc, in)
			small, _, _ := shrink(rc, p, in.W, in.H, nc, sub)
			if own {
				rc.release(p)
			}
			return small
		},
		finish: func(rc *runCtx, grid []float32, w, h, cw, ch int) any {
			return blurGrid(rc, grid, w, h, cw, ch, nc, sub, sigma)
		},
	}
}

func streamClarity(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, radius := r.num("amount"), r.num("radius")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	sigma := clarityPx(radius, float64(max(w, h)))
	if sub := largeSub(sigma, w, h); sub > 0 {
		return streamSpec{pre: largeGridPass(sub, 1, sigma, func(rc *runCtx, in *Image) ([]float32, bool) {
			return lumaPlane(rc, in), true
		})}, nil
	}
	return streamSpec{halo: gaussHalo(sigma)}, nil
}

func streamBlur(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	kind := r.enum("kind", "gaussian", "box", "motion")
	radius, _ := r.num("radius"), r.num("angle")
	if r.err != nil || radius == 0 {
		return streamSpec{}, r.err
	}
	if radius < 0 {
		return streamSpec{}, darkroom.Errorf(darkroom.InvalidInput, "blur: radius %v is negative", radius)
	}
	px := min(radius*float64(max(w, h)), maxFilterRadius)
	switch kind {
	case "gaussian":
		if sub := largeSub(px, w, h); sub > 0 {
			return streamSpec{pre: largeGridPass(sub, 3, px, func(rc *runCtx, in *Image) ([]float32, bool) {
				return in.Pix, false
			})}, nil
		}
		return streamSpec{halo: gaussHalo(px)}, nil
	case "box":
		return streamSpec{halo: int(math.Round(px)) + 1}, nil
	}
	// A motion streak is sheared along rows whose positions depend on the band's
	// offset, which changes their rounding.
	return streamSpec{whole: true}, nil
}

func streamDenoise(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, radius := r.num("amount"), r.num("radius")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	rad := denoiseRadius(radius, float64(max(w, h)))
	sub := denoiseSub(rad)
	if sub <= 1 {
		// Two box filters of radius rad: the coefficients' window and their mean.
		return streamSpec{halo: 2 * (rad + 1)}, nil
	}
	eps := float32(denoiseSigma * amount)
	// The grid holds four channels: the guide's block averages, then the display
	// values'.
	return streamSpec{pre: &gridPass{
		sub: sub, nc: 4,
		rows: func(rc *runCtx, in *Image) []float32 {
			n := in.W * in.H
			disp, guide := rc.floats(3*n), rc.floats(n)
			denoisePlanes(in, disp, guide)
			gs, sw, sh := shrink(rc, guide, in.W, in.H, 1, sub)
			ps, _, _ := shrink(rc, disp, in.W, in.H, 3, sub)
			out := make([]float32, 4*sw*sh)
			for i := range sw * sh {
				out[4*i] = gs[i]
				copy(out[4*i+1:4*i+4], ps[3*i:3*i+3])
			}
			rc.release(disp, guide, gs, ps)
			return out
		},
		finish: func(rc *runCtx, grid []float32, w, h, cw, ch int) any {
			gs, ps := make([]float32, cw*ch), make([]float32, 3*cw*ch)
			for i := range cw * ch {
				gs[i] = grid[4*i]
				copy(ps[3*i:3*i+3], grid[4*i+1:4*i+4])
			}
			ga, gb := guidedGrids(rc, gs, ps, w, h, cw, ch, 3, rad, eps*eps, sub)
			return &[2]*blockGrid{ga, gb}
		},
	}}, nil
}

func streamCLAHE(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, clip, tiles := r.num("amount"), r.num("clip_limit"), r.integer("tiles")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	if tiles < 1 || !(clip > 0) {
		return streamSpec{}, darkroom.Errorf(darkroom.InvalidInput, "clahe: tiles %d and clip_limit %v must be positive", tiles, clip)
	}
	nx, ny := claheTiles(w, h, tiles)
	// A first pass counts the tiles' histograms; the bands then map pixel by pixel.
	return streamSpec{pre: &gridPass{
		stats: func(rc *runCtx, in *Image) any {
			hist := make([]float64, nx*ny*claheBins)
			light := claheLight(rc, in)
			claheCount(hist, light, in.W, rc.frame.y0, in.H, h, nx, ny)
			rc.release(light)
			return hist
		},
		merge: func(parts []any, w, h int) any {
			hist := make([]float64, nx*ny*claheBins)
			for _, p := range parts {
				for i, c := range p.([]float64) {
					hist[i] += c
				}
			}
			return claheMaps(hist, w, h, nx, ny, clip)
		},
	}}, nil
}

func streamDehaze(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	if amount := r.num("amount"); r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	// A first pass averages the frame down to blocks and estimates the haze on
	// them; the bands then apply it pixel by pixel.
	sub := dehazeSub(frame{0, w, h})
	return streamSpec{pre: &gridPass{
		sub: sub, nc: 3,
		rows: func(rc *runCtx, in *Image) []float32 {
			small, _, _ := shrink(rc, in.Pix, in.W, in.H, 3, sub)
			return small
		},
		finish: func(rc *runCtx, grid []float32, w, h, cw, ch int) any {
			return dehazeEstimate(rc, grid, cw, ch, sub)
		},
	}}, nil
}

// streamPlaced streams an operation that changes each pixel on its own, from where
// the pixel lies in the frame (cutout's holes): it needs no context.
func streamPlaced(rc *runCtx, w, h int, a Args) (streamSpec, error) { return streamSpec{}, nil }

func streamEmboss(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	alpha, _, size := r.num("alpha"), r.num("strength"), r.num("size")
	if r.err != nil || alpha == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{halo: embossStep(size, float64(max(w, h)))}, nil
}

func streamMorphology(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	op, size := r.enum("operation", "none", "erode", "dilate"), r.num("size")
	if r.err != nil || op == "none" {
		return streamSpec{}, r.err
	}
	// A minimum is exact in any grouping, so the van Herk blocks may start where the
	// band does; a window wider than the image is cut to it, which a band would not.
	rad := morphologyRadius(size, float64(max(w, h)))
	if rad > w {
		return streamSpec{whole: true}, nil
	}
	return streamSpec{halo: rad}, nil
}

// histPass is a first pass that counts levels band by band (counts do not depend on
// how the rows are cut) and turns the whole image's into what the edit reads.
func histPass(count func(in *Image) [3][256]int, use func(hist *[3][256]int, w, h int) any) *gridPass {
	return &gridPass{
		stats: func(rc *runCtx, in *Image) any { return count(in) },
		merge: func(parts []any, w, h int) any {
			var sum [3][256]int
			for _, p := range parts {
				hist := p.([3][256]int)
				for c := range sum {
					for i, n := range hist[c] {
						sum[c][i] += n
					}
				}
			}
			return use(&sum, w, h)
		},
	}
}

func streamEqualize(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, byCh := r.num("amount"), r.flag("by_channels")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{pre: histPass(func(in *Image) [3][256]int { return equalizeHist(in, byCh) },
		func(hist *[3][256]int, _, _ int) any { return equalizeLUTs(hist) })}, nil
}

func streamAutoContrast(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	amount, cutoff := r.num("amount"), r.num("cutoff")
	if r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{pre: histPass(dispHistograms,
		func(hist *[3][256]int, w, h int) any { return autoContrastBounds(hist, w*h, cutoff) })}, nil
}

// streamSpot streams a spot whose mask is an ellipse (what apply_spot makes): a band
// that meets the ellipse's rows is given the rows its source lies on and, for a heal
// that blurs at full size, the blur's reach; a heal that blurs on blocks gets a first
// pass over the rows the spot reaches. Other bands run it as nothing. A spot without
// such a mask reaches the whole frame and renders whole.
func streamSpot(w, h int, e Edit) (streamSpec, error) {
	r := args{a: e.Args}
	kind := r.enum("kind", "heal", "clone")
	dx, dy := r.num("dx"), r.num("dy")
	if r.err != nil || (dx == 0 && dy == 0) {
		return streamSpec{}, r.err
	}
	if e.Mask == nil || e.Mask.Invert {
		return streamSpec{whole: true}, nil
	}
	fr := frame{0, w, h}
	my0, my1, ok := ellipseRows(e.Mask.Shape, fr)
	if !ok {
		return streamSpec{whole: true}, nil
	}
	long := float64(max(w, h))
	oy := dy * long
	sigma := min(math.Hypot(dx*long, oy)/2, maxFilterRadius)
	reach := 0
	if kind == "heal" {
		reach = spotReach(sigma, w, h)
	}
	tap := func(y int) int { return min(max(int(math.Floor(float64(y)+oy)), 0), h-1) }
	// The rows a band's part of the spot reads: its rows, their source's, the reach.
	need := func(a, b int) (int, int) {
		ra, rb := max(a, my0), min(b, my1)
		if ra >= rb {
			return a, b
		}
		lo := max(0, min(ra, tap(ra))-reach)
		hi := min(h, max(rb, tap(rb-1)+2)+reach)
		return min(a, lo), max(b, hi)
	}
	spec := streamSpec{rows: need}
	if sub := largeSub(sigma, w, h); kind == "heal" && sub > 0 {
		// The blocks every band's part may interpolate: the spot's rows and their
		// source's, with the small blur's reach and the interpolation's block.
		br := (gaussHalo(blockSigma(sigma, sub)) + 3) * sub
		y0 := max(0, min(my0, tap(my0))-br)
		y1 := min(h, max(my1, tap(max(my0, my1-1))+2)+br)
		spec.pre = &gridPass{
			sub: sub, nc: 3, y0: y0, y1: y1,
			rows: func(rc *runCtx, in *Image) []float32 {
				small, _, _ := shrink(rc, in.Pix, in.W, in.H, 3, sub)
				return small
			},
			finish: func(rc *runCtx, grid []float32, w, h, cw, ph int) any {
				blurBlocks(rc, grid, cw, ph, 3, sub, sigma)
				return &spotGrid{pix: grid, cw: cw, ch: (h + sub - 1) / sub, by0: y0 / sub, ph: ph, sub: sub}
			},
		}
	}
	return spec, nil
}

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

// render writes output pixels [c0, c1) of rows [a, b) to dst (rows of stride pixels
// from its start) from in, which holds the input's columns [x0, x0+in.W) and rows
// [y0, y0+in.H), every pixel the block's taps read.
func (g *warpInfo) render(dst []float32, stride int, in *Image, x0, y0, a, b, c0, c1 int) {
	for y := a; y < b; y++ {
		row := dst[3*stride*(y-a):]
		for x := c0; x < c1; x++ {
			sx, sy := g.to(float64(x)+0.5, float64(y)+0.5)
			sx, sy = sx-0.5, sy-0.5
			i := 3 * (x - c0)
			switch g.mode {
			case "reflect":
				sx, sy = reflectCoord(sx, g.inW), reflectCoord(sy, g.inH)
				row[i], row[i+1], row[i+2] = sampleCubicRect(in, x0, y0, g.inW, g.inH, sx, sy, true)
			case "edge":
				row[i], row[i+1], row[i+2] = sampleCubicRect(in, x0, y0, g.inW, g.inH, sx, sy, true)
			default:
				row[i], row[i+1], row[i+2] = sampleCubicRect(in, x0, y0, g.inW, g.inH, sx, sy, false)
			}
		}
	}
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
	return &runCtx{key: editKey(p.opt.Seed, e.Op, p.occ[i]), pool: pool, opName: e.Op}
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

// tileCache converts tiles of a decoded image on demand, keeping the most recently
// used up to a bound: the bands of a streamed render overlap (their halos, and the
// blocks of a rotation), and each pixel is then converted about once. A tile being
// read is never dropped, and a dropped tile's pixels are reused for the next, so a
// streamed export makes almost no garbage for the collector to wait for.
type tileCache struct {
	conv   rectSource
	w, h   int
	tw, th int
	max    int // tiles kept
	mu     sync.Mutex
	tiles  map[[2]int]*tile
	free   [][]float32
	tick   int64
}

type tile struct {
	ready chan struct{}
	pix   []float32
	used  int64
	refs  int // readers holding it
}

// newTileCache caches conv, which converts rectangles of a w x h image whose
// columns are whole tiles of tw and rows whole tiles of th (or the image's end).
func newTileCache(conv rectSource, w, h, tw, th int, maxBytes int64) *tileCache {
	per := int64(12 * tw * th)
	return &tileCache{conv: conv, w: w, h: h, tw: tw, th: th, max: int(max(8, maxBytes/per)), tiles: map[[2]int]*tile{}}
}

// read is a rectSource.
func (c *tileCache) read(x0, y0, x1, y1 int, dst []float32) {
	w := x1 - x0
	for ty := y0 / c.th; ty*c.th < y1; ty++ {
		for tx := x0 / c.tw; tx*c.tw < x1; tx++ {
			t := c.get(tx, ty)
			ax, ay := tx*c.tw, ty*c.th
			tw := min(c.tw, c.w-ax)
			a, b := max(x0, ax), min(x1, ax+tw)
			for y := max(y0, ay); y < min(y1, ay+c.th); y++ {
				copy(dst[3*(w*(y-y0)+a-x0):3*(w*(y-y0)+b-x0)], t.pix[3*(tw*(y-ay)+a-ax):3*(tw*(y-ay)+b-ax)])
			}
			c.mu.Lock()
			t.refs--
			c.mu.Unlock()
		}
	}
}

// get returns tile (tx, ty), converted, with a reference the caller gives back.
func (c *tileCache) get(tx, ty int) *tile {
	key := [2]int{tx, ty}
	c.mu.Lock()
	c.tick++
	t := c.tiles[key]
	if t != nil {
		t.used = c.tick
		t.refs++
		c.mu.Unlock()
		<-t.ready
		if t.pix == nil {
			panic("tile cache: a conversion failed")
		}
		return t
	}
	t = &tile{ready: make(chan struct{}), used: c.tick, refs: 1}
	c.tiles[key] = t
	c.evict()
	x0, y0 := tx*c.tw, ty*c.th
	x1, y1 := min(x0+c.tw, c.w), min(y0+c.th, c.h)
	n := 3 * (x1 - x0) * (y1 - y0)
	var pix []float32
	if k := len(c.free) - 1; k >= 0 && cap(c.free[k]) >= n {
		pix, c.free = c.free[k][:n], c.free[:k]
	}
	c.mu.Unlock()
	defer close(t.ready)
	if pix == nil {
		pix = make([]float32, n)
	}
	c.conv(x0, y0, x1, y1, pix)
	t.pix = pix
	return t
}

// evict drops the least recently used tiles that no one reads while there are more
// than max, keeping their pixels for reuse. c.mu is held.
func (c *tileCache) evict() {
	for len(c.tiles) > c.max {
		var old [2]int
		oldest := int64(math.MaxInt64)
		for k, v := range c.tiles {
			if v.refs == 0 && v.used < oldest {
				old, oldest = k, v.used
			}
		}
		if oldest == math.MaxInt64 {
			return // all in use: the bound gives way until some are released
		}
		if t := c.tiles[old]; t.pix != nil && len(c.free) < 8 {
			c.free = append(c.free, t.pix)
		}
		delete(c.tiles, old)
	}
}

// bandRows is the height of the bands an export of the plan renders: those of a
// band export, taller where the halos would otherwise be most of each band's work.
func (p *bandPlan) bandRows() int {
	w, _ := p.size()
	base := bandRowsFor(w)
	return max(base, min(2*p.halo(), 4*base))
}

// bandBytes bounds what one band of rows rows holds at once: for each edit, the rows
// it is given, three values a pixel, in about four buffers (its input, its output and
// an operation's scratch); and the widest of the edits.
func (p *bandPlan) bandBytes(rows int) int64 {
	_, h := p.size()
	y0 := max(0, h/2-rows/2)
	rng := p.need(len(p.steps), y0, min(h, y0+rows))
	most := int64(12*p.W) * int64(rng[0][1]-rng[0][0])
	for k, s := range p.steps {
		most = max(most, int64(12*s.outW)*int64(rng[k+1][1]-rng[k+1][0]), int64(12*s.inW)*int64(rng[k][1]-rng[k][0]))
	}
	return 4 * most
}

// cacheBytes is the bound of the cache of source rows: what the bands in flight
// read, with room for their neighbours.
func (p *bandPlan) cacheBytes(rows int) int64 {
	_, h := p.size()
	y0 := max(0, h/2-rows/2)
	r := p.need(len(p.steps), y0, min(h, y0+rows))[0]
	procs := int64(runtime.GOMAXPROCS(0))
	if len(p.steps) > 0 && p.steps[0].rect {
		// A warp reads a rectangle a column block: the tiles they cross.
		s := p.steps[0]
		a := p.need(len(p.steps), y0, min(h, y0+rows))[1]
		var area int64
		for c0 := 0; c0 < s.outW; c0 += warpBlock {
			x0, ya, x1, yb := s.spec.geom.warp.bounds(a[0], a[1], c0, min(c0+warpBlock, s.outW))
			area += int64(x1-x0+cacheTileWidth) * int64(yb-ya+cacheTileRows)
		}
		// The bands in flight; the next band's overlap is converted again, which
		// costs less than holding it.
		return 12 * area * procs
	}
	return int64(12*p.W) * (int64(r[1]-r[0])*(procs+1) + 2*cacheTileRows)
}

// exportCost is the decode budget a streamed export of the plan takes besides the
// decoder's image: its bands in flight, the cache of source rows and, for a PNG or
// TIFF, the float image the encoder reads.
func (p *bandPlan) exportCost(format string) int64 {
	rows := p.bandRows()
	procs := int64(runtime.GOMAXPROCS(0))
	c := procs*p.bandBytes(rows) + p.cacheBytes(rows)
	if format != "jpeg" {
		w, h := p.size()
		c += floatBytes(w, h)
	}
	return c
}

// heapGuard keeps a streamed export's heap near what it holds: the collector would
// otherwise let garbage (encoded strips, scratch rows) grow the heap to twice the live
// memory, and the live memory of a streamed export is mostly the decoder's image and
// the file's bytes, which never become garbage: at 96 MP that doubling alone is
// hundreds of megabytes. When the heap's objects exceed the live memory of the last
// collection by slack, check collects; the buffers are pointer-free, so a collection
// costs milliseconds.
type heapGuard struct {
	slack   uint64
	mu      sync.Mutex
	live    uint64
	samples []metrics.Sample
}

func newHeapGuard(slack uint64) *heapGuard {
	g := &heapGuard{slack: slack, samples: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}}
	g.read()
	return g
}

// read returns the heap's objects and notes the live memory. g.mu is held or g is
// not yet shared.
func (g *heapGuard) read() uint64 {
	metrics.Read(g.samples)
	if g.samples[1].Value.Kind() == metrics.KindUint64 {
		g.live = g.samples[1].Value.Uint64()
	}
	if g.samples[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return g.samples[0].Value.Uint64()
}

func (g *heapGuard) check() {
	if !g.mu.TryLock() {
		return // another band is checking
	}
	defer g.mu.Unlock()
	if objects := g.read(); objects > g.live+g.slack {
		runtime.GC()
		g.read()
	}
}
