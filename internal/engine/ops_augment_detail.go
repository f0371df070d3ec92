package engine

import "math"

// Augmentation operations of the detail stage added after the first set
// (ops_augment.go): zoom_blur, glass_blur, morphology and chromatic_aberration
// (albumentations ZoomBlur, GlassBlur, Morphological, ChromaticAberration).

// zoomSamples is how many scaled copies zoom_blur averages.
const zoomSamples = 16

// opZoomBlur blurs radially from the centre, as when zooming during the exposure
// (albumentations ZoomBlur).
//
// Arguments: amount in [0, 0.3]: the average of the image scaled about its centre by
// every factor from 1 to 1 + amount (16 copies, bilinear); 0 leaves it unchanged.
// Example: {amount: 0.1}.
func opZoomBlur(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	cx, cy := float64(w)/2, float64(h)/2
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			py := float64(y) + 0.5 - cy
			for x := range w {
				px := float64(x) + 0.5 - cx
				var sr, sg, sb float32
				for k := range zoomSamples {
					z := 1 / (1 + amount*float64(k)/(zoomSamples-1))
					r, g, b := sampleLinear(src, px*z+cx-0.5, py*z+cy-0.5)
					sr, sg, sb = sr+r, sg+g, sb+b
				}
				i := 3 * (y*w + x)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = sr/zoomSamples, sg/zoomSamples, sb/zoomSamples
			}
		}
	})
	return dst, nil
}

// opGlassBlur blurs the image as if seen through frosted glass (albumentations
// GlassBlur): a gaussian blur, every pixel replaced by a seeded random neighbour
// within a distance, and a second gaussian blur.
//
// Arguments: sigma in [0, 0.01], the gaussian's sigma as a fraction of the long edge
// (0 skips the blurs); delta in [0, 0.02], the largest displacement as a fraction of
// the long edge (0 leaves the image unchanged; at least a pixel otherwise). Example:
// {sigma: 0.001, delta: 0.005}.
func opGlassBlur(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	sigma, delta := r.num("sigma"), r.num("delta")
	if r.err != nil {
		return nil, r.err
	}
	if delta == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	long := longEdge(src)
	sg := min(sigma*long, maxFilterRadius)
	d := max(1, int(math.Round(delta*long)))
	tmp := rc.floats(len(src.Pix))
	blurred := rc.image(w, h)
	if sg > 0 {
		gaussian(blurred.Pix, src.Pix, tmp, w, h, 3, sg)
	} else {
		copy(blurred.Pix, src.Pix)
	}
	dst := rc.image(w, h)
	key := rc.key
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				bits := rnd(key, x, y, 0)
				dx := int(uniform(bits)*float64(2*d+1)) - d
				dy := int(uniform(mix64(bits))*float64(2*d+1)) - d
				sx, sy := min(max(x+dx, 0), w-1), min(max(y+dy, 0), h-1)
				i, j := 3*(y*w+x), 3*(sy*w+sx)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = blurred.Pix[j], blurred.Pix[j+1], blurred.Pix[j+2]
			}
		}
	})
	if sg > 0 {
		gaussian(dst.Pix, dst.Pix, tmp, w, h, 3, sg)
	}
	rc.release(tmp, blurred.Pix)
	return dst, nil
}

// opMorphology erodes or dilates the image (albumentations Morphological): each
// channel becomes the minimum (erode, darker areas grow) or maximum (dilate, lighter
// areas grow) over a square around each pixel.
//
// Arguments: operation, none (unchanged), erode or dilate; size in [0.0005, 0.02], the
// square's half side as a fraction of the long edge (at least a pixel). Example:
// {operation: "dilate", size: 0.003}.
// morphologyRadius is the window's half-width in pixels on a frame of long edge long.
func morphologyRadius(size, long float64) int { return max(1, int(math.Round(size*long))) }

func opMorphology(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	op := r.enum("operation", "none", "erode", "dilate")
	size := r.num("size")
	if r.err != nil {
		return nil, r.err
	}
	if op == "none" {
		return src, nil
	}
	rad := morphologyRadius(size, rc.long(src))
	w, h, n := src.W, src.H, src.W*src.H
	plane, out := rc.floats(n), rc.floats(n)
	dst := rc.image(w, h)
	sign := float32(1)
	if op == "dilate" {
		sign = -1
	}
	for c := range 3 {
		for p := range n {
			plane[p] = sign * src.Pix[3*p+c]
		}
		minFilter(rc, out, plane, w, h, rad)
		for p := range n {
			dst.Pix[3*p+c] = sign * out[p]
		}
	}
	rc.release(plane, out)
	return dst, nil
}

// opChromaticAberration shifts the red and blue channels radially, as a lens that
// focuses colours at different sizes (albumentations ChromaticAberration).
//
// Arguments: amount in [-0.02, 0.02]: red is scaled about the centre by 1 + amount and
// blue by 1 - amount (positive gives red fringes outwards and blue inwards at the
// edges); 0 leaves the image unchanged. Green stays. Example: {amount: 0.005}.
func opChromaticAberration(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	cx, cy := float64(w)/2, float64(h)/2
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			py := float64(y) + 0.5 - cy
			for x := range w {
				px := float64(x) + 0.5 - cx
				i := 3 * (y*w + x)
				// The red channel magnified by 1 + amount shows the source at the
				// position divided by it.
				kr, kb := 1/(1+amount), 1/(1-amount)
				rr, _, _ := sampleLinear(src, px*kr+cx-0.5, py*kr+cy-0.5)
				_, _, bb := sampleLinear(src, px*kb+cx-0.5, py*kb+cy-0.5)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = rr, src.Pix[i+1], bb
			}
		}
	})
	return dst, nil
}
