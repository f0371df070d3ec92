package engine

// How each operation streams: its halo, its first pass over a coarse grid or a histogram, or the rows its geometry reads.

import (
	"math"

	darkroom "github.com/darkroom-mcp/darkroom"
)

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
	"safe_rotate":   streamGeometry,
	"gravel":        streamPlaced,
	"cutout":        streamPlaced,
	"morphology":    streamMorphology,
	"equalize":      streamEqualize,
	"auto_contrast": streamAutoContrast,
	"contrast_mean": streamContrastMean,

	"median_blur":    streamMedianBlur,
	"defocus":        streamDefocus,
	"sharpen_kernel": streamSharpenKernel,

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

// streamMedianBlur: a median reads rad rows on either side; columns are clamped to
// the image, which a band has whole.
func streamMedianBlur(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	radius := r.num("radius")
	if r.err != nil {
		return streamSpec{}, r.err
	}
	return streamSpec{halo: medianRadius(radius, float64(max(w, h)))}, nil
}

// streamDefocus: the disc reaches its radius in rows, the gaussian after it its own.
func streamDefocus(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	radius, alias := r.num("radius"), r.num("alias_blur")
	if r.err != nil || radius == 0 {
		return streamSpec{}, r.err
	}
	long := float64(max(w, h))
	_, ri := defocusRadius(radius, long)
	halo := ri
	if sg := min(alias*long, maxFilterRadius); sg > 0 {
		halo += gaussHalo(sg)
	}
	return streamSpec{halo: halo}, nil
}

// streamSharpenKernel: the 3x3 kernel reaches its step in rows.
func streamSharpenKernel(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	alpha, _, size := r.num("alpha"), r.num("lightness"), r.num("size")
	if r.err != nil || alpha == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{halo: embossStep(size, float64(max(w, h)))}, nil
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

// streamContrastMean: the mean grey is the whole frame's, counted on its display
// histograms before the bands run.
func streamContrastMean(rc *runCtx, w, h int, a Args) (streamSpec, error) {
	r := args{a: a}
	if amount := r.num("amount"); r.err != nil || amount == 0 {
		return streamSpec{}, r.err
	}
	return streamSpec{pre: histPass(dispHistograms,
		func(hist *[3][256]int, w, h int) any { return meanGrey(hist, w*h) })}, nil
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
