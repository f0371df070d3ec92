package engine

import (
	"math"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Geometry: crop, random_crop, rotate, flip. These run first, cannot be masked, and may
// change the image's dimensions; everything after them (masks included) sees the new
// image.

// opCrop removes a fraction of the width or height from each edge.
//
// Arguments: left, right, top, bottom in [0, 0.45], fractions of the width (left,
// right) or height (top, bottom). Each edge's pixel count is rounded to the nearest
// integer on its own (halves away from zero), so opposite edges with equal fractions
// lose equal counts. Example: {left: 0.1, right: 0, top: 0, bottom: 0.25} on 600x400
// keeps columns 60..599 and rows 0..299, a 540x300 image.
func opCrop(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	left, right, top, bottom := r.num("left"), r.num("right"), r.num("top"), r.num("bottom")
	if r.err != nil {
		return nil, r.err
	}
	if left == 0 && right == 0 && top == 0 && bottom == 0 {
		return src, nil
	}
	x0 := int(math.Round(left * float64(src.W)))
	x1 := src.W - int(math.Round(right*float64(src.W)))
	y0 := int(math.Round(top * float64(src.H)))
	y1 := src.H - int(math.Round(bottom*float64(src.H)))
	if x0 < 0 || y0 < 0 || x1 > src.W || y1 > src.H || x1 <= x0 || y1 <= y0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "crop %v, %v, %v, %v of %dx%d leaves no image", left, right, top, bottom, src.W, src.H)
	}
	return subImage(rc, src, x0, y0, x1-x0, y1-y0), nil
}

// subImage copies the w x h rectangle at (x0, y0) of src.
func subImage(rc *runCtx, src *Image, x0, y0, w, h int) *Image {
	g := cropSpec(x0, y0, w, h)
	if rc != nil && rc.plan != nil {
		return rc.plan.record(g)
	}
	return g.whole(rc, src)
}

// opRandomCrop cuts a region at a position drawn from the render's seed: of the
// image's aspect ratio with the given fraction of its area, or of a given width and
// height (albumentations RandomCrop(height, width)); keep_size resizes it (a "random
// resized crop"), back to the source's dimensions or to out_width x out_height.
//
// Arguments: scale in [0.05, 1], the area fraction (1 keeps everything); width, height
// in [0, 1], the crop's size as fractions of the image's width and height (rounded to
// whole pixels), used instead of scale when both are above 0; keep_size, whether to
// resize the crop (Lanczos); out_width, out_height in [0.01, 4], the size keep_size
// resizes to as ratios of the source's width and height (1 and 1: the source's size);
// aspect, with height above 0 and no width, the crop's width in pixels over its height
// in pixels (albumentations RandomSizedCrop's w2h_ratio: the width is the height in
// whole pixels times aspect, truncated; wider than the image is invalid_input, as
// albumentations refuses it).
// The position is drawn as albumentations draws it: the top-left corner is
// int(u * (W - w + 1)). Example: {scale: 0.25, keep_size: false} on 600x400 gives a
// 300x200 crop somewhere in the frame; {width: 0.5, height: 0.75} a 300x300 one.
func opRandomCrop(rc *runCtx, src *Image, a Args) (*Image, error) {
	rect, err := randomCropRect(rc.key, src.W, src.H, a)
	if err != nil {
		return nil, err
	}
	if rect.identity {
		return src, nil
	}
	crop := src
	if rect.w != src.W || rect.h != src.H {
		crop = subImage(rc, src, rect.x0, rect.y0, rect.w, rect.h)
	}
	if !rect.keep {
		return crop, nil
	}
	out := Resize(crop, rect.outW, rect.outH)
	if crop != src {
		rc.release(crop.Pix)
	}
	return out, nil
}

// cropRect is where a random_crop cuts and what it resizes to.
type cropRect struct {
	x0, y0, w, h int
	keep         bool
	outW, outH   int
	identity     bool
}

// randomCropRect is random_crop's geometry on a w x h image with stream key key, one
// function for the operation and its box map (geoMap).
func randomCropRect(key uint64, W, H int, a Args) (cropRect, error) {
	r := args{a: a}
	scale, keep := r.num("scale"), r.flag("keep_size")
	fw, fh := r.numOr("width", 0), r.numOr("height", 0)
	ow, oh := r.numOr("out_width", 1), r.numOr("out_height", 1)
	aspect := r.numOr("aspect", 0)
	if r.err != nil {
		return cropRect{}, r.err
	}
	if !(scale > 0 && scale <= 1) {
		return cropRect{}, darkroom.Errorf(darkroom.InvalidInput, "random_crop: scale %v is outside (0, 1]", scale)
	}
	if fw < 0 || fw > 1 || fh < 0 || fh > 1 {
		return cropRect{}, darkroom.Errorf(darkroom.InvalidInput, "random_crop: width %v, height %v are outside [0, 1]", fw, fh)
	}
	if !(ow > 0 && oh > 0) {
		return cropRect{}, darkroom.Errorf(darkroom.InvalidInput, "random_crop: out_width %v, out_height %v are not above 0", ow, oh)
	}
	if aspect < 0 {
		return cropRect{}, darkroom.Errorf(darkroom.InvalidInput, "random_crop: aspect %v is negative", aspect)
	}
	c := cropRect{w: W, h: H, keep: keep, outW: W, outH: H}
	if fh > 0 && fw == 0 && aspect > 0 {
		// albumentations RandomSizedCrop: crop_width = int(crop_height * w2h_ratio).
		c.h = min(max(1, int(math.Round(fh*float64(H)))), H)
		c.w = int(float64(c.h) * aspect)
		if c.w < 1 || c.w > W {
			return cropRect{}, darkroom.Errorf(darkroom.InvalidInput, "random_crop: a crop %d px high at aspect %v is %d px wide, outside the image's width of %d px", c.h, aspect, c.w, W)
		}
	} else if fw > 0 && fh > 0 {
		c.w = min(max(1, int(math.Round(fw*float64(W)))), W)
		c.h = min(max(1, int(math.Round(fh*float64(H)))), H)
	} else if scale != 1 {
		side := math.Sqrt(scale)
		c.w = min(max(1, int(math.Round(side*float64(W)))), W)
		c.h = min(max(1, int(math.Round(side*float64(H)))), H)
	}
	if keep {
		c.outW, c.outH = max(1, int(math.Round(ow*float64(W)))), max(1, int(math.Round(oh*float64(H))))
		if int64(c.outW)*int64(c.outH) > maxScaledPixels {
			return cropRect{}, errScaleTooLarge(c.outW, c.outH)
		}
	}
	if c.w == W && c.h == H && (!keep || c.outW == W && c.outH == H) {
		c.identity = true
		return c, nil
	}
	c.x0 = min(int(uniform(rnd(key, 0, 0, 0))*float64(W-c.w+1)), W-c.w)
	c.y0 = min(int(uniform(rnd(key, 0, 0, 1))*float64(H-c.h+1)), H-c.h)
	return c, nil
}

// opFlip mirrors the image. Flipping twice is the identity, bit for bit.
//
// Arguments: horizontal (mirror left to right), vertical (mirror top to bottom).
// Example: {horizontal: true, vertical: false}.
func opFlip(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	hor, ver := r.flag("horizontal"), r.flag("vertical")
	if r.err != nil {
		return nil, r.err
	}
	if !hor && !ver {
		return src, nil
	}
	g := flipSpec(src.W, src.H, hor, ver)
	if rc != nil && rc.plan != nil {
		return rc.plan.record(g), nil
	}
	return g.whole(rc, src), nil
}

// flipSpec is the geometry of a flip of a w x h image.
func flipSpec(w, h int, hor, ver bool) *geomSpec {
	v := &pixelView{sx: 1, sy: 1}
	if hor {
		v.sx, v.tx = -1, w-1
	}
	if ver {
		v.sy, v.ty = -1, h-1
	}
	return &geomSpec{
		w: w, h: h, view: v,
		src: func(a, b int) (int, int) {
			if ver {
				return h - b, h - a
			}
			return a, b
		},
		render: func(rc *runCtx, in *Image, sa, inH, a, b int) *Image {
			dst := rc.image(w, b-a)
			parallelRows(b-a, func(lo, hi int) {
				for j := lo; j < hi; j++ {
					sy := a + j
					if ver {
						sy = h - 1 - sy
					}
					s := in.Pix[3*(sy-sa)*w : 3*(sy-sa+1)*w]
					d := dst.Pix[3*j*w : 3*(j+1)*w]
					if !hor {
						copy(d, s)
						continue
					}
					flipRow(d, s, w)
				}
			})
			return dst
		},
	}
}

// rotateDegrees is a clockwise angle in degrees as opRotate reads it, in [0, 360).
func rotateDegrees(angle float64) float64 {
	deg := math.Mod(angle, 360)
	if deg < 0 {
		deg += 360
	}
	return deg
}

// quarterTurn reports whether opRotate turns by angle without resampling: a
// multiple of 90 degrees (0 included).
func quarterTurn(angle float64) bool {
	switch rotateDegrees(angle) {
	case 0, 90, 180, 270:
		return true
	}
	return false
}

// opRotate turns the image clockwise.
//
// Arguments: angle in [-180, 180] degrees, clockwise; auto_crop. Multiples of 90 are
// lossless transposes that swap width and height (rotating by 90 four times is the
// identity, bit for bit). Other angles resample with a Catmull-Rom cubic in linear light
// and keep the canvas, filling the uncovered corners with black, or with auto_crop cut
// to the largest centred rectangle of the image's aspect ratio that the rotated image
// covers entirely. Example: {angle: 3.5, auto_crop: true} straightens a tilted horizon.
func opRotate(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	angle, autoCrop := r.num("angle"), r.flag("auto_crop")
	if r.err != nil {
		return nil, r.err
	}
	deg := rotateDegrees(angle)
	switch {
	case deg == 0:
		return src, nil
	case quarterTurn(angle):
		return rotateQuarter(rc, src, int(deg)/90), nil
	}
	theta := deg * math.Pi / 180
	sin, cos := math.Sincos(theta)
	w, h := src.W, src.H
	if autoCrop {
		c, s := math.Abs(cos), math.Abs(sin)
		fw, fh := float64(src.W), float64(src.H)
		k := min(fw/(fw*c+fh*s), fh/(fw*s+fh*c))
		w = max(1, int(math.Floor(k*fw)))
		h = max(1, int(math.Floor(k*fh)))
	}
	scx, scy := float64(src.W)/2, float64(src.H)/2
	dcx, dcy := float64(w)/2, float64(h)/2
	mode := "constant"
	if autoCrop {
		mode = "edge"
	}
	// The inverse rotation takes an output position to the source.
	return warpLinear(rc, src, w, h, mode, affine{ox: dcx, oy: dcy, a: cos, b: sin, e: scx, c: -sin, d: cos, f: scy}), nil
}

// flipRow writes to d the row of w pixels s mirrored: d's pixel x is s's pixel
// w-1-x. Eight pixels at a time where the CPU has AVX2, then as 12-byte moves.
func flipRow(d, s []float32, w int) {
	d, s = d[:3*w], s[:3*w]
	x := 0
	if useAVX2 && w >= 8 {
		x = w &^ 7
		flipRowAVX2(&d[0], &s[0], x, w)
	}
	for k := 3 * (w - 1 - x); x < w; x, k = x+1, k-3 {
		*(*[3]float32)(d[3*x : 3*x+3]) = *(*[3]float32)(s[k : k+3])
	}
}

// rotateQuarter rotates clockwise by q quarter turns (1, 2 or 3) by moving pixels.
func rotateQuarter(rc *runCtx, src *Image, q int) *Image {
	w, h := src.W, src.H
	ow, oh := h, w
	if q == 2 {
		ow, oh = w, h
	}
	dst := rc.image(ow, oh)
	parallelRows(oh, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range ow {
				var sx, sy int
				switch q {
				case 1:
					sx, sy = y, h-1-x
				case 2:
					sx, sy = w-1-x, h-1-y
				default:
					sx, sy = w-1-y, x
				}
				s, d := 3*(sy*w+sx), 3*(y*ow+x)
				dst.Pix[d], dst.Pix[d+1], dst.Pix[d+2] = src.Pix[s], src.Pix[s+1], src.Pix[s+2]
			}
		}
	})
	return dst
}

// catmullRom returns the four Catmull-Rom weights for a sample at fraction t past the
// second tap.
func catmullRom(t float64) [4]float32 {
	t2, t3 := t*t, t*t*t
	return [4]float32{
		float32(-0.5*t3 + t2 - 0.5*t),
		float32(1.5*t3 - 2.5*t2 + 1),
		float32(-1.5*t3 + 2*t2 + 0.5*t),
		float32(0.5*t3 - 0.5*t2),
	}
}

// sampleCubic interpolates src at pixel coordinates (x, y) (pixel centres at integers)
// with a Catmull-Rom cubic. Taps outside the image are black, which antialiases the
// border of a rotated image, or repeat the edge when clampEdge is set. The result is
// clipped at 0: the cubic's overshoot must not make negative light.
func sampleCubic(src *Image, x, y float64, clampEdge bool) (float32, float32, float32) {
	return sampleCubicRect(src, 0, 0, src.W, src.H, x, y, clampEdge)
}

// sampleLinearRect is sampleCubicRect with a bilinear kernel: the 2 x 2 taps
// floor(x) .. floor(x)+1, taps outside the w x h input reading black unless
// clampEdge (then x and y are clamped first, as the cubic does). With hor or ver
// the input is src mirrored on that axis (src then holds the whole image): tap
// (i, j) reads src's pixel (w-1-i, j), (i, h-1-j) or both.
func sampleLinearRect(src *Image, x0, y0, w, h int, x, y float64, clampEdge, hor, ver bool) (float32, float32, float32) {
	if clampEdge {
		x = min(max(x, 0), float64(w-1))
		y = min(max(y, 0), float64(h-1))
	}
	fx, fy := math.Floor(x), math.Floor(y)
	if fx < -1 || fy < -1 || fx > float64(w) || fy > float64(h) {
		return 0, 0, 0
	}
	ix, iy := int(fx), int(fy)
	ax, ay := float32(x-fx), float32(y-fy)
	// at is the offset of tap (i, j) in src.
	at := func(i, j int) int {
		if hor {
			i = w - 1 - i
		}
		if ver {
			j = h - 1 - j
		}
		return 3 * ((j-y0)*src.W + i - x0)
	}
	if ix >= 0 && iy >= 0 && ix+1 < w && iy+1 < h {
		p0, p1 := src.Pix[at(ix, iy):][:3], src.Pix[at(ix+1, iy):][:3]
		q0, q1 := src.Pix[at(ix, iy+1):][:3], src.Pix[at(ix+1, iy+1):][:3]
		bx := 1 - ax
		r0, g0, b0 := bx*p0[0]+ax*p1[0], bx*p0[1]+ax*p1[1], bx*p0[2]+ax*p1[2]
		r1, g1, b1 := bx*q0[0]+ax*q1[0], bx*q0[1]+ax*q1[1], bx*q0[2]+ax*q1[2]
		by := 1 - ay
		return by*r0 + ay*r1, by*g0 + ay*g1, by*b0 + ay*b1
	}
	// At the border: clamp (a clamped x or y already lies inside, and its second
	// tap has weight 0 when it is the last row or column) or read black.
	wx := [2]float32{1 - ax, ax}
	wy := [2]float32{1 - ay, ay}
	var r, g, b float32
	for j := range 2 {
		yy := iy + j
		if yy < 0 || yy >= h {
			if !clampEdge {
				continue
			}
			yy = min(max(yy, 0), h-1)
		}
		for i := range 2 {
			xx := ix + i
			if xx < 0 || xx >= w {
				if !clampEdge {
					continue
				}
				xx = min(max(xx, 0), w-1)
			}
			p := src.Pix[at(xx, yy):]
			k := wy[j] * wx[i]
			r += k * p[0]
			g += k * p[1]
			b += k * p[2]
		}
	}
	return r, g, b
}

// sampleCubicRect is sampleCubic on an image w x h of which src holds the rectangle
// of columns [x0, x0+src.W) and rows [y0, y0+src.H), which must include every
// pixel the taps read.
func sampleCubicRect(src *Image, x0, y0, w, h int, x, y float64, clampEdge bool) (float32, float32, float32) {
	if clampEdge {
		x = min(max(x, 0), float64(w-1))
		y = min(max(y, 0), float64(h-1))
	}
	fx, fy := math.Floor(x), math.Floor(y)
	if fx < -3 || fy < -3 || fx > float64(w)+2 || fy > float64(h)+2 {
		return 0, 0, 0
	}
	ix, iy := int(fx)-1, int(fy)-1
	wx, wy := catmullRom(x-fx), catmullRom(y-fy)
	var r, g, b float32
	if ix >= 0 && iy >= 0 && ix+3 < w && iy+3 < h {
		// All 16 taps inside: no per-tap checks.
		stride := 3 * src.W
		base := 3 * ((iy-y0)*src.W + ix - x0)
		for j := range 4 {
			p := src.Pix[base+j*stride : base+j*stride+12]
			rr := wx[0]*p[0] + wx[1]*p[3] + wx[2]*p[6] + wx[3]*p[9]
			gg := wx[0]*p[1] + wx[1]*p[4] + wx[2]*p[7] + wx[3]*p[10]
			bb := wx[0]*p[2] + wx[1]*p[5] + wx[2]*p[8] + wx[3]*p[11]
			r += wy[j] * rr
			g += wy[j] * gg
			b += wy[j] * bb
		}
		return max(r, 0), max(g, 0), max(b, 0)
	}
	for j := range 4 {
		yy := iy + j
		if clampEdge {
			yy = min(max(yy, 0), h-1)
		} else if yy < 0 || yy >= h {
			continue
		}
		var rr, gg, bb float32
		for i := range 4 {
			xx := ix + i
			if clampEdge {
				xx = min(max(xx, 0), w-1)
			} else if xx < 0 || xx >= w {
				continue
			}
			p := src.Pix[3*((yy-y0)*src.W+xx-x0):]
			rr += wx[i] * p[0]
			gg += wx[i] * p[1]
			bb += wx[i] * p[2]
		}
		r += wy[j] * rr
		g += wy[j] * gg
		b += wy[j] * bb
	}
	return max(r, 0), max(g, 0), max(b, 0)
}
