package engine

import (
	"math"
	"slices"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Augmentation geometry: rotate90, transpose, center_crop, pad, affine, perspective,
// elastic, grid_distortion, scale, border_crop, crop_and_pad, lens_distortion and
// grid_shuffle (albumentations RandomRotate90, Transpose, CenterCrop, PadIfNeeded,
// Affine / ShiftScaleRotate, Perspective, ElasticTransform, GridDistortion, RandomScale,
// RandomCropFromBorders, CropAndPad, OpticalDistortion, RandomGridShuffle). Like crop
// and rotate they run first, cannot be masked, and measure everything in fractions of
// the image, so a preview rendered on the proxy shows what the export will. The warps
// map each output pixel to a source position (in fractions of the frame, so random
// fields are the same at any resolution) and resample it with the Catmull-Rom cubic
// that rotate uses.

// opRotate90 turns the image by quarter turns (albumentations RandomRotate90, whose
// random number of turns is here the value a sampler draws).
//
// Arguments: turns in [0, 3], clockwise quarter turns; 0 leaves the image unchanged.
// The turns move pixels exactly, swapping width and height for 1 and 3. Example:
// {turns: 1}.
func opRotate90(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	turns := r.integer("turns")
	if r.err != nil {
		return nil, r.err
	}
	turns = ((turns % 4) + 4) % 4
	if turns == 0 {
		return src, nil
	}
	return rotateQuarter(rc, src, turns), nil
}

// opTranspose swaps rows and columns (albumentations Transpose).
//
// Arguments: diagonal, none (unchanged), main (mirror across the top-left to
// bottom-right diagonal: the pixel at (x, y) moves to (y, x), albumentations'
// Transpose) or anti (across the other diagonal, the transverse). Both swap width and
// height; applying one twice is the identity, bit for bit. Example: {diagonal: "main"}.
func opTranspose(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	diag := r.enum("diagonal", "none", "main", "anti")
	if r.err != nil {
		return nil, r.err
	}
	if diag == "none" {
		return src, nil
	}
	w, h := src.W, src.H
	dst := rc.image(h, w)
	parallelRows(w, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range h {
				sx, sy := y, x
				if diag == "anti" {
					sx, sy = w-1-y, h-1-x
				}
				s, d := 3*(sy*w+sx), 3*(y*h+x)
				dst.Pix[d], dst.Pix[d+1], dst.Pix[d+2] = src.Pix[s], src.Pix[s+1], src.Pix[s+2]
			}
		}
	})
	return dst, nil
}

// opCenterCrop keeps the centre of the image (albumentations CenterCrop).
//
// Arguments: width, height in [0.05, 1], the size kept as fractions of the image's
// width and height (1 keeps that side whole). Sizes round to whole pixels, at least
// one; the crop is centred, an odd leftover going to the right and bottom. Example:
// {width: 0.5, height: 0.5} keeps the middle quarter of the area.
func opCenterCrop(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	fw, fh := r.num("width"), r.num("height")
	if r.err != nil {
		return nil, r.err
	}
	w := min(max(1, int(math.Round(fw*float64(src.W)))), src.W)
	h := min(max(1, int(math.Round(fh*float64(src.H)))), src.H)
	if w == src.W && h == src.H {
		return src, nil
	}
	return subImage(rc, src, (src.W-w)/2, (src.H-h)/2, w, h), nil
}

// opPad pads the image to at least a size (albumentations PadIfNeeded).
//
// Arguments: width, height in [0, 2], the minimum size as fractions of the image's
// long edge (0 no minimum; {width: 1, height: 1} pads to a square); mode, how the new
// border is filled: constant (the fill grey), reflect (mirrored without repeating the
// edge pixel, albumentations' default reflect_101) or edge (the edge pixel repeated);
// fill in [0, 1], the display value of a constant border. The image is centred, an odd
// leftover going to the right and bottom. Example: {width: 1, height: 1, mode: "constant"}.
func opPad(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	fw, fh, fill := r.num("width"), r.num("height"), r.num("fill")
	mode := r.enum("mode", "constant", "reflect", "edge")
	if r.err != nil {
		return nil, r.err
	}
	long := longEdge(src)
	w := max(src.W, int(math.Round(fw*long)))
	h := max(src.H, int(math.Round(fh*long)))
	if w == src.W && h == src.H {
		return src, nil
	}
	return padBorder(rc, src, w, h, (w-src.W)/2, (h-src.H)/2, mode, fill), nil
}

// padBorder returns a w x h image showing src with its top-left corner at (x0, y0)
// (either may be negative, which crops), the border outside src filled by mode as
// borderIndex says, a constant border with display value fill.
func padBorder(rc *runCtx, src *Image, w, h, x0, y0 int, mode string, fill float64) *Image {
	g := padSpec(src.W, src.H, w, h, x0, y0, mode, fill)
	if rc != nil && rc.plan != nil {
		return rc.plan.record(g)
	}
	return g.whole(rc, src)
}

// padSpec is the geometry of padBorder from an inW x inH input.
func padSpec(inW, inH, w, h, x0, y0 int, mode string, fill float64) *geomSpec {
	v := fillLevel(fill)
	src := func(a, b int) (int, int) {
		lo, hi := inH, 0
		for y := a; y < b; y++ {
			if sy, ok := borderIndex(y-y0, inH, mode); ok {
				lo, hi = min(lo, sy), max(hi, sy+1)
			}
		}
		return min(lo, hi), hi
	}
	render := func(rc *runCtx, in *Image, sa, inH, a, b int) *Image {
		dst := rc.image(w, b-a)
		parallelRows(b-a, func(lo, hi int) {
			for y := a + lo; y < a+hi; y++ {
				sy, oky := borderIndex(y-y0, inH, mode)
				for x := range w {
					d := dst.Pix[3*((y-a)*w+x):]
					sx, okx := borderIndex(x-x0, in.W, mode)
					if !okx || !oky {
						d[0], d[1], d[2] = v, v, v
						continue
					}
					s := in.Pix[3*((sy-sa)*in.W+sx):]
					d[0], d[1], d[2] = s[0], s[1], s[2]
				}
			}
		})
		return dst
	}
	return &geomSpec{w: w, h: h, src: src, render: render}
}

// borderIndex maps index i of a padded axis to the source index it shows, for a
// source of n pixels, and false where the constant fill shows instead.
func borderIndex(i, n int, mode string) (int, bool) {
	if i >= 0 && i < n {
		return i, true
	}
	switch mode {
	case "edge":
		return min(max(i, 0), n-1), true
	case "reflect":
		if n == 1 {
			return 0, true
		}
		period := 2 * (n - 1)
		i %= period
		if i < 0 {
			i += period
		}
		if i >= n {
			i = period - i
		}
		return i, true
	}
	return 0, false
}

// reflectCoord folds a continuous pixel coordinate into [0, n-1] by mirroring at the
// edges (reflect_101 on pixel centres).
func reflectCoord(x float64, n int) float64 {
	if n == 1 {
		return 0
	}
	period := 2 * float64(n-1)
	x = math.Mod(x, period)
	if x < 0 {
		x += period
	}
	if x > float64(n-1) {
		x = period - x
	}
	return x
}

// warp returns a w x h image whose pixel (x, y) (its centre at x+0.5, y+0.5) shows the
// source at the position to gives, in source pixel units with centres at +0.5. Outside
// the source, mode constant shows black, reflect mirrors and edge repeats the edge.
func warp(rc *runCtx, src *Image, w, h int, mode string, to func(x, y float64) (float64, float64)) *Image {
	return warpOf(rc, src, w, h, mode, nil, to)
}

// warpLinear is warp for the affine map m.
func warpLinear(rc *runCtx, src *Image, w, h int, mode string, m affine) *Image {
	return warpOf(rc, src, w, h, mode, &m, m.at)
}

// warpOf is warp, with aff the map as an affine one when it is (the AVX2 loop and a
// held flip need it). Every operation that calls it returns its image as its own
// result, so the row functions of the row operations after it (rc.post) may run on
// each row as it is sampled.
func warpOf(rc *runCtx, src *Image, w, h int, mode string, aff *affine, to func(x, y float64) (float64, float64)) *Image {
	g := warpSpec(src.W, src.H, w, h, mode, aff != nil, to)
	g.warp.aff = aff
	g.warp.bilinear = rc != nil && rc.bilinear
	if rc != nil && rc.plan != nil {
		return rc.plan.record(g)
	}
	if rc != nil && rc.post != nil {
		g.warp.post, rc.postTaken = rc.post, true
	}
	if f := rc.heldFlipOf(src); f != nil && aff != nil && g.warp.bilinear {
		// A flip held back for this warp: sample src mirrored instead (the AVX2
		// loop reads it so at the same speed).
		g.warp.flipH, g.warp.flipV, f.taken = f.hor, f.ver, true
	}
	return g.whole(rc, src)
}

// heldFlipOf returns the flip held back for a warp of src, if any.
func (rc *runCtx) heldFlipOf(src *Image) *heldFlip {
	if rc == nil || rc.flip == nil || rc.flip.img != src {
		return nil
	}
	return rc.flip
}

// opAffine scales, rotates, shears and shifts the image about its centre on the same
// canvas (albumentations Affine, and ShiftScaleRotate, which is its special case
// without shear).
//
// Arguments: scale in [0.25, 4] (above 1 zooms in); angle in [-180, 180] degrees,
// clockwise; shear_x and shear_y in [-45, 45] degrees (horizontal first, then
// vertical, so any pair keeps the area); translate_x and translate_y in [-0.5, 0.5],
// the shift as fractions of the width and height (positive right and down); mode, how uncovered areas are filled: constant (black, Affine's default),
// reflect (ShiftScaleRotate's default) or edge. The defaults are the identity.
// Example: {scale: 1.2, angle: 15, translate_x: 0.1, mode: "reflect"}.
func opAffine(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	scale, angle := r.num("scale"), r.num("angle")
	shx, shy := r.num("shear_x"), r.num("shear_y")
	tx, ty := r.num("translate_x"), r.num("translate_y")
	mode := r.enum("mode", "constant", "reflect", "edge")
	if r.err != nil {
		return nil, r.err
	}
	if scale == 1 && angle == 0 && shx == 0 && shy == 0 && tx == 0 && ty == 0 {
		return src, nil
	}
	if !(scale > 0) {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "affine: scale %v is not positive", scale)
	}
	// Forward map about the centre: p' = R * S * Sh * p + t. Rotation is clockwise
	// on screen (y down), so it is the usual counter-clockwise matrix in y-down axes.
	sin, cos := math.Sincos(angle * math.Pi / 180)
	kx, ky := math.Tan(shx*math.Pi/180), math.Tan(shy*math.Pi/180)
	// Sh = [[1, 0], [ky, 1]] * [[1, kx], [0, 1]] = [[1, kx], [ky, 1 + kx*ky]]: the
	// horizontal shear, then the vertical one, which keeps areas (its determinant is
	// 1) at any angles; then scale, then rotation.
	s00, s01, s10, s11 := 1.0, kx, ky, 1+kx*ky
	m00, m01 := scale*(cos*s00-sin*s10), scale*(cos*s01-sin*s11)
	m10, m11 := scale*(sin*s00+cos*s10), scale*(sin*s01+cos*s11)
	det := m00*m11 - m01*m10 // scale^2
	i00, i01, i10, i11 := m11/det, -m01/det, -m10/det, m00/det
	cx, cy := float64(src.W)/2, float64(src.H)/2
	dx, dy := tx*float64(src.W), ty*float64(src.H)
	// x-cx-dx is (x-cx)-dx: ox then ox2.
	return warpLinear(rc, src, src.W, src.H, mode, affine{ox: cx, ox2: dx, oy: cy, oy2: dy, a: i00, b: i01, e: cx, c: i10, d: i11, f: cy}), nil
}

// homography returns the projective map that takes the unit square's corners (0,0),
// (1,0), (1,1), (0,1) to the four given points, as a 3x3 matrix (Heckbert's
// square-to-quad solution).
func homography(q [4][2]float64) [9]float64 {
	x0, y0, x1, y1 := q[0][0], q[0][1], q[1][0], q[1][1]
	x2, y2, x3, y3 := q[2][0], q[2][1], q[3][0], q[3][1]
	sx, sy := x0-x1+x2-x3, y0-y1+y2-y3
	if math.Abs(sx) < 1e-15 && math.Abs(sy) < 1e-15 {
		return [9]float64{x1 - x0, x2 - x1, x0, y1 - y0, y2 - y1, y0, 0, 0, 1}
	}
	dx1, dx2, dy1, dy2 := x1-x2, x3-x2, y1-y2, y3-y2
	den := dx1*dy2 - dx2*dy1
	g := (sx*dy2 - dx2*sy) / den
	h := (dx1*sy - sx*dy1) / den
	return [9]float64{
		x1 - x0 + g*x1, x3 - x0 + h*x3, x0,
		y1 - y0 + g*y1, y3 - y0 + h*y3, y0,
		g, h, 1,
	}
}

// opPerspective moves the image's corners inwards by seeded random amounts and
// stretches that quadrilateral back over the whole frame (albumentations Perspective
// with keep_size).
//
// Arguments: scale in [0, 0.3], the deviation of the corner offsets as fractions of the
// width and height: each is the absolute value of a normal deviate of that deviation,
// folded below 0.32 as albumentations does; 0 leaves the image unchanged. Example:
// {scale: 0.08}.
func opPerspective(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	scale := r.num("scale")
	if r.err != nil {
		return nil, r.err
	}
	if scale == 0 {
		return src, nil
	}
	var off [4][2]float64
	for i := range off {
		bits := rnd(rc.key, i, 0, 0)
		for j := range 2 {
			off[i][j] = math.Mod(math.Abs(float64(normal16(bits>>(16*j)))*scale), 0.32)
		}
	}
	fw, fh := float64(src.W), float64(src.H)
	quad := [4][2]float64{
		{off[0][0] * fw, off[0][1] * fh},
		{(1 - off[1][0]) * fw, off[1][1] * fh},
		{(1 - off[2][0]) * fw, (1 - off[2][1]) * fh},
		{off[3][0] * fw, (1 - off[3][1]) * fh},
	}
	m := homography(quad)
	return warp(rc, src, src.W, src.H, "edge", func(x, y float64) (float64, float64) {
		u, v := x/fw, y/fh
		z := m[6]*u + m[7]*v + m[8]
		return (m[0]*u + m[1]*v + m[2]) / z, (m[3]*u + m[4]*v + m[5]) / z
	}), nil
}

// opElastic bends the image with a smooth random displacement field (albumentations
// ElasticTransform).
//
// Arguments: alpha in [0, 0.2], the largest displacement as a fraction of the long
// edge (0 none); sigma in [0.01, 0.25], the smoothness: the size of the field's
// features as a fraction of the long edge. The field is uniform random values in
// [-1, 1] on a lattice of that spacing, fixed on the frame in fractions (so a preview
// bends like the export), interpolated smoothly and scaled by alpha; edges repeat.
// albumentations blurs per-pixel noise with a gaussian instead, which makes its alpha
// depend on the resolution. Example: {alpha: 0.03, sigma: 0.05}.
func opElastic(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	alpha, sigma := r.num("alpha"), r.num("sigma")
	if r.err != nil {
		return nil, r.err
	}
	if alpha == 0 {
		return src, nil
	}
	long := longEdge(src)
	spacing := max(sigma, 0.001) * long
	amp := alpha * long
	key := rc.key
	return warp(rc, src, src.W, src.H, "edge", func(x, y float64) (float64, float64) {
		dx := 2*float64(valueNoise(key, 0, x, y, spacing)) - 1
		dy := 2*float64(valueNoise(key, 1, x, y, spacing)) - 1
		return x + amp*dx, y + amp*dy
	}), nil
}

// opGridDistortion stretches and squeezes the image along a grid (albumentations
// GridDistortion).
//
// Arguments: steps in [2, 16], the number of grid cells along each axis; distort in
// [0, 0.6], how much each cell's width or height may change: every column and row of
// cells gets a seeded size factor in [1 - distort, 1 + distort], the sizes are
// rescaled to fill the frame, and the image is mapped piecewise linearly, so the
// borders stay in place. 0 leaves the image unchanged. Example: {steps: 5, distort: 0.3}.
func opGridDistortion(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	steps, distort := r.integer("steps"), r.num("distort")
	if r.err != nil {
		return nil, r.err
	}
	if distort == 0 {
		return src, nil
	}
	steps = min(max(steps, 1), 64)
	// edges[axis][k] is where the k-th grid line of the output falls in the source,
	// as a fraction; output lines are evenly spaced.
	var edges [2][]float64
	for axis := range 2 {
		sizes := make([]float64, steps)
		var total float64
		for k := range sizes {
			sizes[k] = 1 + distort*(2*uniform(rnd(rc.key, k, axis, 0))-1)
			total += sizes[k]
		}
		e := make([]float64, steps+1)
		for k, s := range sizes {
			e[k+1] = e[k] + s/total
		}
		e[steps] = 1
		edges[axis] = e
	}
	fw, fh := float64(src.W), float64(src.H)
	lookup := func(e []float64, u float64) float64 {
		t := min(max(u, 0), 1) * float64(steps)
		k := min(int(t), steps-1)
		return e[k] + (e[k+1]-e[k])*(t-float64(k))
	}
	return warp(rc, src, src.W, src.H, "edge", func(x, y float64) (float64, float64) {
		return lookup(edges[0], x/fw) * fw, lookup(edges[1], y/fh) * fh
	}), nil
}

// maxScaledPixels bounds what scale may make: 4x of a large photo would be huge.
const maxScaledPixels = 200_000_000

// opScale resizes the image by a factor (albumentations RandomScale, whose random
// factor is here the value a sampler draws), with the Lanczos filter of Resize.
//
// Arguments: factor in [0.01, 4]; 1 leaves the image unchanged; factor_y in [0, 4],
// the height's own factor when above 0 (albumentations Resize(height, width): the
// width by factor, the height by factor_y); round (default false) rounds each side to
// the nearest pixel instead of truncating it (0.5 of 451 is 225, or 226 with round), at
// least one. A result above 200 megapixels is refused (limit_exceeded).
// Example: {factor: 0.5}; {factor: 0.5, factor_y: 0.75, round: true} makes 600x400
// 300x300.
func opScale(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	f, fy, round := r.num("factor"), scaleFactorY(&r), scaleRounds(&r)
	if r.err != nil {
		return nil, r.err
	}
	w, h := scaledSize(f, src.W, round), scaledSize(fy, src.H, round)
	if w == src.W && h == src.H {
		return src, nil
	}
	if int64(w)*int64(h) > maxScaledPixels {
		return nil, errScaleTooLarge(w, h)
	}
	return Resize(src, w, h), nil
}

// scaledSize is a side of n pixels scaled by f as albumentations sizes it, at least one
// pixel: truncated as RandomScale does (geometric.functional.scale: int(n * f); 0.5 of
// 451 is 225), or rounded as LongestMaxSize and SmallestMaxSize do (round(n * f)), so a
// pipeline run by both gives images of one size.
func scaledSize(f float64, n int, round bool) int {
	if round {
		return max(1, int(math.RoundToEven(f*float64(n))))
	}
	return max(1, int(math.Trunc(f*float64(n))))
}

// scaleFactorY reads scale's factor_y: the height's factor, factor itself when it is 0
// or absent (the edits written before it).
func scaleFactorY(r *args) float64 {
	if fy := r.numOr("factor_y", 0); fy > 0 {
		return fy
	}
	return r.num("factor")
}

// scaleRounds reads scale's round, false when absent (the edits written before it).
func scaleRounds(r *args) bool {
	if _, ok := r.a["round"]; !ok {
		return false
	}
	return r.flag("round")
}

func errScaleTooLarge(w, h int) error {
	return darkroom.Errorf(darkroom.LimitExceeded, "scale: the result %dx%d is over %d pixels", w, h, maxScaledPixels)
}

// opBorderCrop cuts seeded random amounts from each border (albumentations
// RandomCropFromBorders).
//
// Arguments: limit in [0, 0.45]: each side loses a fraction of the width (left,
// right) or height (top, bottom) drawn uniformly from [0, limit]; 0 leaves the image
// unchanged. Amounts round to whole pixels; at least one pixel stays. Example:
// {limit: 0.2}.
func opBorderCrop(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	limit := r.num("limit")
	if r.err != nil {
		return nil, r.err
	}
	if limit == 0 {
		return src, nil
	}
	cut := func(c int, n int) int { return int(math.Round(uniform(rnd(rc.key, 0, 0, c)) * limit * float64(n))) }
	x0, x1 := cut(0, src.W), src.W-cut(1, src.W)
	y0, y1 := cut(2, src.H), src.H-cut(3, src.H)
	if x1 <= x0 {
		x0, x1 = min(x0, src.W-1), min(x0, src.W-1)+1
	}
	if y1 <= y0 {
		y0, y1 = min(y0, src.H-1), min(y0, src.H-1)+1
	}
	if x0 == 0 && y0 == 0 && x1 == src.W && y1 == src.H {
		return src, nil
	}
	return subImage(rc, src, x0, y0, x1-x0, y1-y0), nil
}

// opCropAndPad crops (negative percent) or pads (positive) every side by a fraction of
// its dimension (albumentations CropAndPad with one value for all sides), and with
// keep_size resizes the result back to the source's size (Lanczos).
//
// Arguments: percent in [-0.3, 0.3], a fraction of the width for the left and right
// sides and of the height for the top and bottom, rounded to whole pixels; mode, the
// padded border: constant (the fill grey), reflect or edge; fill in [0, 1], the display
// value of a constant border; keep_size. 0 leaves the image unchanged. Example:
// {percent: 0.1, mode: "reflect"}.
func opCropAndPad(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	pct, fill, keep := r.num("percent"), r.num("fill"), r.flag("keep_size")
	mode := r.enum("mode", "constant", "reflect", "edge")
	if r.err != nil {
		return nil, r.err
	}
	dx := int(math.Round(pct * float64(src.W)))
	dy := int(math.Round(pct * float64(src.H)))
	if dx == 0 && dy == 0 {
		return src, nil
	}
	w, h := max(1, src.W+2*dx), max(1, src.H+2*dy)
	out := padBorder(rc, src, w, h, dx, dy, mode, fill)
	if !keep || (w == src.W && h == src.H) {
		return out, nil
	}
	back := Resize(out, src.W, src.H)
	rc.release(out.Pix)
	return back, nil
}

// opLensDistortion bends straight lines like a lens (albumentations
// OpticalDistortion's radial model): barrel for positive k, pincushion for negative.
//
// Arguments: k in [-0.5, 0.5]: an output point at distance d from the centre (d is a
// fraction of half the diagonal, 1 at the corners) shows the source at d * (1 + k d^2),
// so positive k shows more of the source towards the corners and straight lines bow
// outwards (barrel), negative k bows them inwards (pincushion); 0 leaves the image
// unchanged. Edges repeat. Example: {k: 0.2}.
func opLensDistortion(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	k := r.num("k")
	if r.err != nil {
		return nil, r.err
	}
	if k == 0 {
		return src, nil
	}
	cx, cy := float64(src.W)/2, float64(src.H)/2
	norm := 1 / math.Hypot(cx, cy)
	return warp(rc, src, src.W, src.H, "edge", func(x, y float64) (float64, float64) {
		dx, dy := x-cx, y-cy
		d2 := (dx*dx + dy*dy) * norm * norm
		f := 1 + k*d2
		return cx + dx*f, cy + dy*f
	}), nil
}

// opGridShuffle cuts the image into a grid of cells and shuffles them (albumentations
// RandomGridShuffle).
//
// Arguments: cells in [1, 8], the cells along each side (1 leaves the image
// unchanged); the permutation comes from the seed. Cell edges round to whole pixels,
// so cells of one row or column may differ by a pixel and only cells of equal size
// swap; with cells dividing the sides every cell may go anywhere. Example: {cells: 3}.
func opGridShuffle(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	cells := r.integer("cells")
	if r.err != nil {
		return nil, r.err
	}
	cells = min(cells, min(src.W, src.H))
	if cells <= 1 {
		return src, nil
	}
	xs, ys := make([]int, cells+1), make([]int, cells+1)
	for i := range xs {
		xs[i] = i * src.W / cells
		ys[i] = i * src.H / cells
	}
	type cell struct{ x, y int }
	// Group cells by size; shuffle within each group (Fisher-Yates from the seed).
	groups := map[[2]int][]cell{}
	var order [][2]int
	for j := range cells {
		for i := range cells {
			s := [2]int{xs[i+1] - xs[i], ys[j+1] - ys[j]}
			if _, ok := groups[s]; !ok {
				order = append(order, s)
			}
			groups[s] = append(groups[s], cell{i, j})
		}
	}
	from := map[cell]cell{}
	draw := 0
	for _, s := range order {
		g := groups[s]
		perm := slices.Clone(g)
		for i := len(perm) - 1; i > 0; i-- {
			j := int(uniform(rnd(rc.key, draw, 0, 0)) * float64(i+1))
			draw++
			perm[i], perm[min(j, i)] = perm[min(j, i)], perm[i]
		}
		for i, c := range g {
			from[c] = perm[i]
		}
	}
	dst := rc.image(src.W, src.H)
	for to, fr := range from {
		w := xs[to.x+1] - xs[to.x]
		for y := range ys[to.y+1] - ys[to.y] {
			d := dst.Pix[3*((ys[to.y]+y)*src.W+xs[to.x]):]
			s := src.Pix[3*((ys[fr.y]+y)*src.W+xs[fr.x]):]
			copy(d[:3*w], s[:3*w])
		}
	}
	return dst, nil
}
