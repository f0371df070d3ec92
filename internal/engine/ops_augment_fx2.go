package engine

import (
	"math"
	"slices"
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

// maxFlareCircles bounds sun_flare's ghost circles (the catalog allows 20).
const maxFlareCircles = 32

// flareGhost is one of sun_flare's ghost circles, in pixels of the frame.
type flareGhost struct {
	x, y, r2 float64
	alpha    float32
	color    [3]float32
}

// opSunFlare draws a sun flare (albumentations RandomSunFlare): a bright source that
// fades outwards and faint coloured ghost circles along a line through it.
//
// Arguments: radius in [0, 1], the source's radius as a fraction of the long edge (0
// draws no source; albumentations' src_radius 400 px is 0.4 of a 1000 px image);
// circles in [0, 20], the number of ghosts (0 none); angle in [0, 360] degrees, the
// direction of their line, clockwise from the right as on screen (albumentations'
// angle_lower..upper in turns); roi_left, roi_top, roi_right, roi_bottom, the region
// of the frame (fractions of its width and height) where the source's centre is drawn
// (albumentations' flare_roi, default the top half); red, green, blue, the source's
// colour as display values (albumentations' src_color / 255). The centre, each ghost's
// place on the line, size, opacity and colour come from the seed. As in albumentations:
// each ghost, opacity 0.05..0.2 and each channel of its colour up to 50 levels under
// the source's, is blended over the image, and a pixel under a ghost is pulled to that
// ghost's colour again by every later ghost's opacity (OpenCV's addWeighted over an
// overlay that keeps its circles); ghost radii are k^3/640 of the frame's height for
// a whole k in 1..4: albumentations' for a 640 px tall image (its radii are k^3 pixels
// for k up to h/100 - 2, so they grow with the pixel height: 8 px at most on a 400 px
// tall image, 512 px on a 1000 px one); the source is src_radius/10 discs from 1 px to the
// radius, the i-th of n blended with opacity ((n-1-i)/(n-1))^3, so a pixel at distance
// d keeps (C - v) times the product of (1 - opacity) over the discs that reach it.
// Blends are on display values. Example: {radius: 0.3, circles: 8, angle: 30}.
func opSunFlare(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	radius, circles, angle := r.num("radius"), r.integer("circles"), r.num("angle")
	x0, y0, x1, y1 := r.num("roi_left"), r.num("roi_top"), r.num("roi_right"), r.num("roi_bottom")
	col := [3]float64{r.num("red"), r.num("green"), r.num("blue")}
	if r.err != nil {
		return nil, r.err
	}
	circles = min(circles, maxFlareCircles)
	fr := rc.frameOf(src)
	fw, fh := float64(fr.w), float64(fr.h)
	long := max(fw, fh)
	R := radius * long
	steps := int(R / 10)
	if circles <= 0 && steps < 2 {
		return src, nil
	}
	key, w := rc.key, src.W
	// The source's centre, anywhere in the region (a region given backwards is
	// read in order).
	ux, uy := uniform(rnd(key, 0, 0, 0)), uniform(rnd(key, 0, 0, 1))
	cx := (min(x0, x1) + ux*math.Abs(x1-x0)) * fw
	cy := (min(y0, y1) + uy*math.Abs(y1-y0)) * fh
	sin, cos := math.Sincos(angle * math.Pi / 180)
	ghosts := make([]flareGhost, circles)
	for i := range ghosts {
		g := &ghosts[i]
		// A point of the line whose x runs over the frame's width, as
		// albumentations' t from -cx to w - cx.
		t := -cx + uniform(rnd(key, i, 1, 0))*fw
		g.x, g.y = cx+t*cos, cy+t*sin
		k := 1 + math.Floor(uniform(rnd(key, i, 1, 1))*4)
		gr := k * k * k / 640 * fh
		g.r2 = gr * gr
		g.alpha = float32(0.05 + 0.15*uniform(rnd(key, i, 1, 2)))
		for c := range 3 {
			lo := max(col[c]-50.0/255, 0)
			g.color[c] = float32(lo + uniform(rnd(key, i, 2, c))*(col[c]-lo))
		}
	}
	// keep[j] is the product of (1 - opacity) over the source's discs j..n-1: what a
	// pixel that the j-th disc is the first to reach keeps of its own value.
	var keep []float64
	if steps >= 2 {
		keep = make([]float64, steps+1)
		keep[steps] = 1
		for i := steps - 1; i >= 0; i-- {
			a := float64(steps-1-i) / float64(steps-1)
			keep[i] = keep[i+1] * (1 - a*a*a)
		}
	}
	srcCol := [3]float32{float32(col[0]), float32(col[1]), float32(col[2])}
	return dispMap(rc, src, func(p int, c *[3]float32) {
		x, y := float64(p%w)+0.5, float64(fr.y0+p/w)+0.5
		over := *c
		for i := range ghosts {
			g := &ghosts[i]
			if dx, dy := x-g.x, y-g.y; dx*dx+dy*dy <= g.r2 {
				over = g.color
			}
			for j := range 3 {
				c[j] += (over[j] - c[j]) * g.alpha
			}
		}
		if keep == nil {
			return
		}
		d := math.Hypot(x-cx, y-cy)
		if d > R {
			return
		}
		j := max(0, int(math.Ceil((d-1)*float64(steps-1)/(R-1))))
		k := float32(keep[min(j, steps)])
		for i := range 3 {
			c[i] = srcCol[i] - (srcCol[i]-c[i])*k
		}
	}), nil
}

// spatterColors are albumentations' Spatter colours (display values): rain a light
// yellowish white (238, 238, 175), mud a dark brown (20, 42, 63).
var spatterColors = map[string][3]float32{
	"rain": {238.0 / 255, 238.0 / 255, 175.0 / 255},
	"mud":  {20.0 / 255, 42.0 / 255, 63.0 / 255},
}

// mudCore is the depth in the liquid layer (0 at the cut, 1 at its highest) where
// spatter's mud begins: measured so that, at albumentations' defaults, the mud covers
// as much of a photo as albumentations' (about 3%).
const mudCore = 0.52

// spatterSamples is how many places of the frame spatter measures its liquid layer at
// to find the level above which the given share of the frame is wet.
const spatterSamples = 4096

// opSpatter spatters the lens with rain drops or mud (albumentations Spatter).
//
// Arguments: amount in [0, 1], 0 none: rain, how bright the drops are (albumentations'
// intensity, 0.6 by default); mud, the opacity of the mud (albumentations' mud is
// opaque, 1); mode, rain or mud; coverage in [0.02, 0.8], the share of the frame the
// liquid covers (albumentations' defaults, a layer of mean 0.65 and deviation 0.3
// smoothed with sigma 2 and cut at 0.68, cover about a quarter); size in [0.001,
// 0.05], the scale of the splashes as a fraction of the long edge (albumentations'
// sigma of 2 px is 0.004 of a 500 px image). As in albumentations, a smooth random
// liquid layer is cut at a level; rain adds the colour times amount inside the drops,
// strongest where the layer is highest (albumentations normalises its drops by their
// maximum); mud covers the image with the colour where the layer, blurred, stays
// above 1.2 times the cut (mud's solid cores), nothing at the thin edges. The layer is
// two octaves of seeded value noise with cells of 3 and 1.3 times size; the level is
// the share's quantile over spatterSamples seeded places of the frame, so the
// coverage holds at any resolution. Blends are on display values. Example:
// {amount: 0.6, mode: "rain"}.
func opSpatter(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, coverage, size := r.num("amount"), r.num("coverage"), r.num("size")
	mode := r.enum("mode", "rain", "mud")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	fr := rc.frameOf(src)
	long := float64(max(fr.w, fr.h))
	key, w := rc.key, src.W
	cell := max(size*long, 0.5) * 3
	layer := func(x, y float64) float32 {
		return 0.7*valueNoise(key, 0, x, y, cell) + 0.3*valueNoise(key, 1, x, y, cell/2.3)
	}
	levels := make([]float32, spatterSamples)
	for i := range levels {
		levels[i] = layer(uniform(rnd(key, i, 3, 0))*float64(fr.w), uniform(rnd(key, i, 3, 1))*float64(fr.h))
	}
	slices.Sort(levels)
	cut := levels[min(int((1-coverage)*spatterSamples), spatterSamples-1)]
	top := levels[spatterSamples-1]
	span := max(top-cut, 1e-6)
	col, amt := spatterColors[mode], float32(amount)
	return dispMap(rc, src, func(p int, c *[3]float32) {
		x, y := float64(p%w)+0.5, float64(fr.y0+p/w)+0.5
		l := layer(x, y)
		if l <= cut {
			return
		}
		// depth runs from 0 at the cut to 1 at the layer's highest.
		depth := min((l-cut)/span, 1)
		if mode == "rain" {
			for j := range 3 {
				c[j] = min(c[j]+col[j]*amt*depth, 1)
			}
			return
		}
		// Mud: the cores, where a blurred wet mask stays above 1.2 times the cut
		// (0.816 of albumentations' 0.68): the deepest part of the wet share, from
		// 0.816 opaque to solid.
		if depth < mudCore {
			return
		}
		m := min(0.816+(depth-mudCore), 1) * amt
		for j := range 3 {
			c[j] += (col[j] - c[j]) * m
		}
	}), nil
}

// gravelRef is the frame height, in pixels, at which gravel's sizes are
// albumentations' pixels (patches of up to 200 x 30, stones of 1 to 3, one stone per 10
// square pixels), as sun_flare's ghosts are: albumentations' are pixels at any size.
const gravelRef = 640

// maxGravelStones bounds the stones of one patch (albumentations' largest patch, 200
// x 30 pixels, has 600).
const maxGravelStones = 600

// opGravel scatters gravel over patches of the road (albumentations RandomGravel).
//
// Arguments: patches in [0, 10], the number of patches (0 none; albumentations'
// number_of_patches, 2); roi_left, roi_top, roi_right, roi_bottom, the region the
// patches lie in as fractions of the width and height (albumentations' gravel_roi,
// 0.1, 0.4, 0.9, 0.9). As albumentations means it: each patch is a seeded rectangle of
// the region, drawn as albumentations draws it, up to 200 x 30 pixels of a 640 px tall
// image, strewn with one stone per 10 square pixels of that image, each a square of
// side 1 to 3 of its pixels whose HLS lightness is set to a seeded level from 0 to
// 254/255, hue and saturation kept (albumentations 1.3.1 swaps rows and columns when
// it draws the stones and keeps only their top-left quarter; darkroom draws them where
// the patches are). Sizes scale with the long edge. Example: {patches: 2}.
func opGravel(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	patches := r.integer("patches")
	x0, y0, x1, y1 := r.num("roi_left"), r.num("roi_top"), r.num("roi_right"), r.num("roi_bottom")
	if r.err != nil {
		return nil, r.err
	}
	if patches <= 0 {
		return src, nil
	}
	fr := rc.frameOf(src)
	w, h, fy0 := fr.w, fr.h, fr.y0
	fw, fh := float64(w), float64(h)
	unit := fh / gravelRef // frame pixels per reference pixel
	rx0, rx1 := min(x0, x1)*fw, max(x0, x1)*fw
	ry0, ry1 := min(y0, y1)*fh, max(y0, y1)*fh
	type stone struct {
		x0, y0, x1, y1 int
		level          float32
	}
	var stones []stone
	for p := range patches {
		// As albumentations draws a patch: a far corner anywhere in the region, a
		// near one between the region's start and it, the size cut at 200 x 30
		// reference pixels.
		qx := rx0 + uniform(rnd(rc.key, p, 0, 0))*(rx1-rx0)
		qy := ry0 + uniform(rnd(rc.key, p, 0, 1))*(ry1-ry0)
		px := rx0 + uniform(rnd(rc.key, p, 0, 2))*(qx-rx0)
		py := ry0 + uniform(rnd(rc.key, p, 0, 3))*(qy-ry0)
		pw, ph := min(qx-px, 200*unit), min(qy-py, 30*unit)
		n := min(int(pw*ph/(unit*unit)/10), maxGravelStones)
		for i := range n {
			sx := px + uniform(rnd(rc.key, p, 1+i, 0))*pw
			sy := py + uniform(rnd(rc.key, p, 1+i, 1))*ph
			side := max(1, int(math.Round((1+math.Floor(uniform(rnd(rc.key, p, 1+i, 2))*3))*unit)))
			ix, iy := int(sx), int(sy)
			stones = append(stones, stone{max(ix-side/2, 0), max(iy-side/2, 0), min(ix-side/2+side, w), min(iy-side/2+side, h),
				float32(math.Floor(uniform(rnd(rc.key, p, 1+i, 3))*255) / 255)})
		}
	}
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for _, s := range stones {
			for y := max(s.y0-fy0, lo); y < min(s.y1-fy0, hi); y++ {
				for x := s.x0; x < s.x1; x++ {
					c := pix[3*(y*src.W+x) : 3*(y*src.W+x)+3]
					setLightness(c, s.level)
				}
			}
		}
	})
	return dst, nil
}

// setLightness sets the HLS lightness of the linear pixel c to the display level l,
// keeping its hue and HLS saturation: each channel keeps its place between the
// pixel's smallest and largest, with the chroma the saturation gives at l.
func setLightness(c []float32, l float32) {
	d := [3]float32{toDisp(c[0]), toDisp(c[1]), toDisp(c[2])}
	mx, mn := max(d[0], d[1], d[2]), min(d[0], d[1], d[2])
	if mx-mn < 1e-6 {
		v := fromDisp(l)
		c[0], c[1], c[2] = v, v, v
		return
	}
	old := (mx + mn) / 2
	sat := (mx - mn) / (1 - float32(math.Abs(float64(2*old-1))))
	chroma := (1 - float32(math.Abs(float64(2*l-1)))) * min(sat, 1)
	for j := range 3 {
		c[j] = fromDisp(min(max(l+chroma*((d[j]-mn)/(mx-mn)-0.5), 0), 1))
	}
}
