package engine

import (
	"bytes"
	"math"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/jpegdec"
)

// Augmentation operations after geometry: the albumentations transforms that change
// values (rgb_shift, channel_shuffle, sepia, posterize, equalize, gamma), add noise
// (multiplicative_noise, iso_noise), degrade detail (emboss, downscale,
// jpeg_compression) or add weather (fog, shadow, rain). Like albumentations, which
// works on 8-bit display values, they work on display (sRGB-encoded) values; positions
// and sizes are fractions of the frame, and random ones draw from the counter hash
// keyed by the render's seed, the operation and its occurrence.

// dispMap returns a new image whose display values are fn of the source's: fn gets
// and sets one pixel's three display values.
func dispMap(rc *runCtx, src *Image, fn func(p int, c *[3]float32)) *Image {
	w := src.W
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		for p := lo * w; p < hi*w; p++ {
			i := 3 * p
			c := [3]float32{toDisp(src.Pix[i]), toDisp(src.Pix[i+1]), toDisp(src.Pix[i+2])}
			fn(p, &c)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = nonNeg(fromDisp(c[0])), nonNeg(fromDisp(c[1])), nonNeg(fromDisp(c[2]))
		}
	})
	return dst
}

// opRGBShift adds a constant to each channel (albumentations RGBShift).
//
// Arguments: red, green, blue in [-0.5, 0.5], added to the channel's display value (0
// to 1; albumentations' default shift limit of 20 levels is about 0.08). Light is
// never made negative. Example: {red: 0.1, green: 0, blue: -0.1} warms the image.
func opRGBShift(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	sr, sg, sb := r.num("red"), r.num("green"), r.num("blue")
	if r.err != nil {
		return nil, r.err
	}
	if sr == 0 && sg == 0 && sb == 0 {
		return src, nil
	}
	s := [3]float32{float32(sr), float32(sg), float32(sb)}
	return dispMap(rc, src, func(_ int, c *[3]float32) {
		c[0] += s[0]
		c[1] += s[1]
		c[2] += s[2]
	}), nil
}

// channelOrders are the orders channel_shuffle accepts, each the source channel of
// the result's red, green and blue.
var channelOrders = map[string][3]int{
	"rgb": {0, 1, 2}, "rbg": {0, 2, 1}, "grb": {1, 0, 2},
	"gbr": {1, 2, 0}, "brg": {2, 0, 1}, "bgr": {2, 1, 0},
}

// shuffledOrders are the orders "random" draws from: every one but the identity, so a
// shuffle always changes a coloured image.
var shuffledOrders = []string{"rbg", "grb", "gbr", "brg", "bgr"}

// opChannelShuffle reorders the colour channels (albumentations ChannelShuffle).
//
// Arguments: order, one of rgb (unchanged), rbg, grb, gbr, brg, bgr (the source of the
// result's red, green and blue), or random: one of the five orders other than rgb,
// drawn from the render's seed. Example: {order: "bgr"} swaps red and blue.
func opChannelShuffle(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	order := r.enum("order", "rgb", "rbg", "grb", "gbr", "brg", "bgr", "random")
	if r.err != nil {
		return nil, r.err
	}
	if order == "random" {
		order = shuffledOrders[min(int(uniform(rnd(rc.key, 0, 0, 0))*5), 4)]
	}
	if order == "rgb" {
		return src, nil
	}
	o := channelOrders[order]
	return mapRows(rc, src, func(d, s []float32) {
		for i := 0; i+2 < len(s); i += 3 {
			d[i], d[i+1], d[i+2] = s[i+o[0]], s[i+o[1]], s[i+o[2]]
		}
	}), nil
}

// sepiaMatrix is the sepia tone matrix albumentations' ToSepia applies to display RGB.
var sepiaMatrix = [3][3]float32{
	{0.393, 0.769, 0.189},
	{0.349, 0.686, 0.168},
	{0.272, 0.534, 0.131},
}

// opSepia tones the image brown like an old print (albumentations ToSepia).
//
// Arguments: amount in [0, 1], the blend of the sepia result on display values; 1 is
// albumentations' ToSepia (its fixed matrix, clipped at white). Example: {amount: 1}.
func opSepia(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount := r.num("amount")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	k := float32(amount)
	return dispMap(rc, src, func(_ int, c *[3]float32) {
		in := [3]float32{clamp01(c[0]), clamp01(c[1]), clamp01(c[2])}
		for j, m := range sepiaMatrix {
			s := min(m[0]*in[0]+m[1]*in[1]+m[2]*in[2], 1)
			c[j] += (s - c[j]) * k
		}
	}), nil
}

// opPosterize reduces every channel to fewer levels (albumentations Posterize).
//
// Arguments: bits in [1, 8], the bits kept of each 8-bit display value (the lower bits
// are cleared, as albumentations does): 8 leaves the image unchanged, 4 keeps 16 levels,
// 1 only black and half grey. Example: {bits: 3}.
func opPosterize(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	bits := r.integer("bits")
	if r.err != nil {
		return nil, r.err
	}
	if bits >= 8 {
		return src, nil
	}
	mask := ^(1<<(8-max(bits, 1)) - 1)
	var lut [256]float32
	for i := range lut {
		lut[i] = fromDisp(float32(i&mask) / 255)
	}
	return mapRows(rc, src, func(d, s []float32) {
		for i, v := range s {
			d[i] = lut[level8(toDisp(v))]
		}
	}), nil
}

// equalizeLUT returns the equalization map of a 256-bin histogram, as OpenCV's
// equalizeHist builds it: the cumulative count from the first used bin, scaled to 0..1.
func equalizeLUT(hist *[256]int) [257]float32 {
	var lut [257]float32
	total, first := 0, -1
	for i, n := range hist {
		total += n
		if first < 0 && n > 0 {
			first = i
		}
	}
	if first < 0 || total == hist[first] {
		for i := range lut {
			lut[i] = float32(min(i, 255)) / 255
		}
		return lut
	}
	cum := 0
	for i := range 256 {
		cum += hist[i]
		if i < first {
			continue
		}
		lut[i] = float32(cum-hist[first]) / float32(total-hist[first])
	}
	lut[256] = lut[255]
	return lut
}

// level8 is the 8-bit level (0 to 255, rounded) of display value d, as albumentations,
// which works on 8-bit images, would see it.
func level8(d float32) int { return int(clamp01(d)*255 + 0.5) }

// dispHistograms returns the 256-bin histogram of each channel's 8-bit display levels.
func dispHistograms(src *Image) [3][256]int {
	var hist [3][256]int
	for p := range src.W * src.H {
		for c := range 3 {
			hist[c][level8(toDisp(src.Pix[3*p+c]))]++
		}
	}
	return hist
}

// eqAt interpolates an equalization map at display value d in [0, 1].
func eqAt(lut *[257]float32, d float32) float32 {
	x := clamp01(d) * 255
	i := int(x)
	return lut[i] + (lut[i+1]-lut[i])*(x-float32(i))
}

// opEqualize equalizes the histogram of the whole image (albumentations Equalize).
//
// Arguments: amount in [0, 1], the blend of the equalized result; by_channels, whether
// red, green and blue are equalized each on its own histogram (albumentations' default)
// or only the luma (Rec. 601 Y' of display values, the YCbCr way), which keeps the
// colours. Histograms have 256 bins of display values, mapped as OpenCV's equalizeHist
// and interpolated between bins. Example: {amount: 1, by_channels: false}.
func opEqualize(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, byCh := r.num("amount"), r.flag("by_channels")
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	yOf := equalizeY
	luts, ok := rc.pre.(*[3][257]float32)
	if !ok {
		h := equalizeHist(src, byCh)
		luts = equalizeLUTs(&h)
	}
	k := float32(amount)
	return dispMap(rc, src, func(_ int, c *[3]float32) {
		if !byCh {
			y := yOf(c)
			dy := (eqAt(&luts[0], y) - y) * k
			c[0], c[1], c[2] = c[0]+dy, c[1]+dy, c[2]+dy
			return
		}
		for j := range 3 {
			c[j] += (eqAt(&luts[j], c[j]) - c[j]) * k
		}
	}), nil
}

// equalizeY is the luma equalize works on when not by channels.
func equalizeY(c *[3]float32) float32 { return 0.299*c[0] + 0.587*c[1] + 0.114*c[2] }

// equalizeHist counts the levels equalize maps: of each channel, or of the luma only.
func equalizeHist(src *Image, byCh bool) [3][256]int {
	if byCh {
		return dispHistograms(src)
	}
	var hist [3][256]int
	for p := range src.W * src.H {
		c := [3]float32{toDisp(src.Pix[3*p]), toDisp(src.Pix[3*p+1]), toDisp(src.Pix[3*p+2])}
		hist[0][level8(equalizeY(&c))]++
	}
	return hist
}

func equalizeLUTs(hist *[3][256]int) *[3][257]float32 {
	var luts [3][257]float32
	for j := range 3 {
		luts[j] = equalizeLUT(&hist[j])
	}
	return &luts
}

// opGamma raises display values to a power (albumentations RandomGamma).
//
// Arguments: gamma in [0.25, 4]: each display value v becomes v^gamma, so 1 leaves the
// image unchanged, above 1 darkens the midtones and below 1 lightens them, with black
// and white fixed (albumentations' gamma_limit 80..120 is gamma 0.8..1.2). Example:
// {gamma: 0.7}.
func opGamma(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	gamma := r.num("gamma")
	if r.err != nil {
		return nil, r.err
	}
	if gamma == 1 {
		return src, nil
	}
	lut := cachedLUT("gamma", [4]float64{gamma}, func(v float64) float64 {
		d := encodeExt(v)
		if d <= 0 {
			return v
		}
		return decodeExt(math.Pow(d, gamma))
	})
	return mapChannels(rc, src, lut, 7), nil
}

// opMultiplicativeNoise multiplies display values by random factors
// (albumentations MultiplicativeNoise).
//
// Arguments: center in [0, 2] and spread in [0, 1]: the factors are drawn uniformly
// from [center - spread, center + spread] (albumentations' multiplier range (lo, hi)
// is center (lo+hi)/2, spread (hi-lo)/2), a factor below 0 taken as 0 (albumentations
// clips the product at 0); per_channel, 1 for a factor per channel instead of one for
// all three; elementwise, 1 for a factor per pixel instead of one for the whole image
// (albumentations' defaults are both 0). spread 0 multiplies by center itself.
// Example: {center: 1, spread: 0.2, elementwise: 1}.
func opMultiplicativeNoise(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	spread, center := r.num("spread"), r.numOr("center", 1)
	perCh, elem := r.integer("per_channel") != 0, r.integer("elementwise") != 0
	if r.err != nil {
		return nil, r.err
	}
	if spread == 0 && center == 1 {
		return src, nil
	}
	s, c0 := float32(spread), float32(center)
	key, w, y0 := rc.key, src.W, rc.frameOf(src).y0
	factor := func(b uint64) float32 { return max(0, c0+s*(2*float32(b)/(1<<21)-1)) }
	factors := func(x, y int) [3]float32 {
		bits := rnd(key, x, y, 0)
		f := [3]float32{factor(bits >> 43)}
		if perCh {
			f[1] = factor(bits >> 22 & (1<<21 - 1))
			f[2] = factor(bits >> 1 & (1<<21 - 1))
		} else {
			f[1], f[2] = f[0], f[0]
		}
		return f
	}
	whole := factors(0, -1)
	return dispMap(rc, src, func(p int, c *[3]float32) {
		f := whole
		if elem {
			f = factors(p%w, y0+p/w)
		}
		c[0], c[1], c[2] = c[0]*f[0], c[1]*f[1], c[2]*f[2]
	}), nil
}

// opISONoise adds camera sensor noise (albumentations ISONoise): luminance noise that
// brightens, strongest in the shadows, and colour noise that jitters the hue.
//
// Arguments: intensity in [0, 1], 0 none; color_shift in [0, 0.2], the hue jitter's
// deviation as a fraction of the colour wheel at intensity 1. As albumentations does,
// on each pixel's display HLS: lightness L gains n(1 - L)/255 where n is Poisson with
// mean 255 * intensity * (the image's standard deviation of L), drawn here as its
// normal approximation and cut at 0; hue moves by a normal deviate of deviation
// color_shift * 360 * intensity degrees. Example: {intensity: 0.5, color_shift: 0.05}.
func opISONoise(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	intensity, shift := r.num("intensity"), r.num("color_shift")
	if r.err != nil {
		return nil, r.err
	}
	if intensity == 0 {
		return src, nil
	}
	n := src.W * src.H
	var sum, sum2 float64
	for p := range n {
		i := 3 * p
		c := [3]float32{clamp01(toDisp(src.Pix[i])), clamp01(toDisp(src.Pix[i+1])), clamp01(toDisp(src.Pix[i+2]))}
		l := float64(max3(c[0], c[1], c[2])+min3(c[0], c[1], c[2])) / 2
		sum += l
		sum2 += l * l
	}
	mean := sum / float64(n)
	std := math.Sqrt(max(sum2/float64(n)-mean*mean, 0))
	lambda := std * intensity * 255
	sl := float32(math.Sqrt(lambda))
	lam := float32(lambda)
	hueSD := float32(shift * 360 * intensity)
	key, w := rc.key, src.W
	return dispMap(rc, src, func(p int, c *[3]float32) {
		bits := rnd(key, p%w, p/w, 0)
		h, l, s := toHLS(clamp01(c[0]), clamp01(c[1]), clamp01(c[2]))
		h += normal16(bits) * hueSD
		l += nonNeg(lam+sl*normal16(bits>>16)) / 255 * (1 - l)
		c[0], c[1], c[2] = fromHLS(h, min(l, 1), s)
	}), nil
}

// opEmboss gives the image a relief (albumentations Emboss).
//
// Arguments: alpha in [0, 1], the visibility of the relief (0 none); strength in
// [0, 2], its depth; size in [0.0005, 0.01], the step of the 3x3 kernel as a fraction
// of the long edge (at least one pixel). The kernel is albumentations':
// (1 - alpha) * identity + alpha * [[-1-s, -s, 0], [-s, 1, s], [0, s, 1+s]], on display
// values, edges repeated. Example: {alpha: 0.5, strength: 0.7}.
// embossStep is emboss's tap spacing in pixels on a frame of long edge long.
func embossStep(size, long float64) int { return max(1, int(math.Round(size*long))) }

func opEmboss(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	alpha, strength, size := r.num("alpha"), r.num("strength"), r.num("size")
	if r.err != nil {
		return nil, r.err
	}
	if alpha == 0 {
		return src, nil
	}
	al, s := float32(alpha), float32(strength)
	k := [3][3]float32{{-1 - s, -s, 0}, {-s, 1, s}, {0, s, 1 + s}}
	for j := range 3 {
		for i := range 3 {
			k[j][i] *= al
		}
	}
	k[1][1] += 1 - al
	return kernel3Disp(rc, src, k, embossStep(size, rc.long(src))), nil
}

// kernel3Disp convolves the display values of src with the 3x3 kernel k, its taps step
// pixels apart and edges repeated, clips the result below at 0 and returns it in linear
// light: albumentations' filter2D on 8-bit values, for emboss and sharpen_kernel.
func kernel3Disp(rc *runCtx, src *Image, k [3][3]float32, step int) *Image {
	w, h := src.W, src.H
	disp := rc.floats(len(src.Pix))
	parallelRows(h, func(lo, hi int) {
		for i := 3 * lo * w; i < 3*hi*w; i++ {
			disp[i] = toDisp(src.Pix[i])
		}
	})
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			var ys [3]int
			for j := range 3 {
				ys[j] = min(max(y+(j-1)*step, 0), h-1)
			}
			for x := range w {
				var xs [3]int
				for i := range 3 {
					xs[i] = min(max(x+(i-1)*step, 0), w-1)
				}
				for c := range 3 {
					var v float32
					for j := range 3 {
						row := disp[3*ys[j]*w:]
						v += k[j][0]*row[3*xs[0]+c] + k[j][1]*row[3*xs[1]+c] + k[j][2]*row[3*xs[2]+c]
					}
					dst.Pix[3*(y*w+x)+c] = nonNeg(fromDisp(v))
				}
			}
		}
	})
	rc.release(disp)
	return dst
}

// opDownscale lowers the resolution and scales back up (albumentations Downscale), as
// a low-resolution camera or an upscaled thumbnail would.
//
// Arguments: scale in [0.05, 1], the side of the small image as a fraction of the
// image's (1 unchanged, 0.25 a quarter); interpolation, nearest (blocky, albumentations'
// default), linear or lanczos, used both ways. Example: {scale: 0.25}.
func opDownscale(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	scale := r.num("scale")
	interp := r.enum("interpolation", "nearest", "linear", "lanczos")
	if r.err != nil {
		return nil, r.err
	}
	if scale >= 1 {
		return src, nil
	}
	sw := max(1, int(math.Round(scale*float64(src.W))))
	sh := max(1, int(math.Round(scale*float64(src.H))))
	if sw == src.W && sh == src.H {
		return src, nil
	}
	switch interp {
	case "lanczos":
		small := Resize(src, sw, sh)
		return Resize(small, src.W, src.H), nil
	case "linear":
		small := resizeLinear(rc, src, sw, sh)
		out := resizeLinear(rc, small, src.W, src.H)
		rc.release(small.Pix)
		return out, nil
	}
	small := resizeNearest(rc, src, sw, sh)
	out := resizeNearest(rc, small, src.W, src.H)
	rc.release(small.Pix)
	return out, nil
}

// resizeNearest samples src at the centre of each output pixel.
func resizeNearest(rc *runCtx, src *Image, w, h int) *Image {
	dst := rc.image(w, h)
	xs := make([]int, w)
	for x := range xs {
		xs[x] = min(int((float64(x)+0.5)*float64(src.W)/float64(w)), src.W-1)
	}
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			sy := min(int((float64(y)+0.5)*float64(src.H)/float64(h)), src.H-1)
			s := src.Pix[3*sy*src.W:]
			d := dst.Pix[3*y*w:]
			for x, sx := range xs {
				d[3*x], d[3*x+1], d[3*x+2] = s[3*sx], s[3*sx+1], s[3*sx+2]
			}
		}
	})
	return dst
}

// resizeLinear interpolates src bilinearly at the centre of each output pixel.
func resizeLinear(rc *runCtx, src *Image, w, h int) *Image {
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			fy := (float64(y)+0.5)*float64(src.H)/float64(h) - 0.5
			for x := range w {
				fx := (float64(x)+0.5)*float64(src.W)/float64(w) - 0.5
				r, g, b := sampleLinear(src, fx, fy)
				i := 3 * (y*w + x)
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = r, g, b
			}
		}
	})
	return dst
}

// sampleLinear interpolates src bilinearly at pixel coordinates (x, y), repeating the
// edge outside.
func sampleLinear(src *Image, x, y float64) (float32, float32, float32) {
	x = min(max(x, 0), float64(src.W-1))
	y = min(max(y, 0), float64(src.H-1))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, src.W-1), min(y0+1, src.H-1)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	var out [3]float32
	for c := range 3 {
		a := src.Pix[3*(y0*src.W+x0)+c]*(1-fx) + src.Pix[3*(y0*src.W+x1)+c]*fx
		b := src.Pix[3*(y1*src.W+x0)+c]*(1-fx) + src.Pix[3*(y1*src.W+x1)+c]*fx
		out[c] = a*(1-fy) + b*fy
	}
	return out[0], out[1], out[2]
}

// opJPEGCompression gives the image JPEG artefacts (albumentations ImageCompression):
// it is encoded as a baseline 4:2:0 JPEG at the given quality with the project's own
// encoder and decoded again.
//
// Arguments: quality in [1, 100]; 100 means no compression at all (the image is left
// unchanged), lower is worse (albumentations' default range is 99..100, a visible
// degradation starts around 30). Like every JPEG, the round trip clips light above white.
// The 8x8 blocks are pixels of the image being rendered, so a preview shows them
// coarser than the export. Example: {quality: 10}.
func opJPEGCompression(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	q := r.integer("quality")
	if r.err != nil {
		return nil, r.err
	}
	if q >= 100 {
		return src, nil
	}
	var buf bytes.Buffer
	if err := encodeJPEG(&buf, src, EncodeOptions{Format: "jpeg", Quality: max(q, 1)}); err != nil {
		return nil, darkroom.Wrap(darkroom.RenderError, err, "jpeg_compression: encode")
	}
	m, err := jpegdec.Decode(&buf, jpegdec.Options{})
	if err != nil {
		return nil, darkroom.Wrap(darkroom.RenderError, err, "jpeg_compression: decode")
	}
	conv, _ := converter(m)
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			conv(y, dst.Pix[3*y*src.W:3*(y+1)*src.W])
		}
	})
	jpegdec.Release(m)
	return dst, nil
}

// valueNoise is smooth random noise in [0, 1] on a lattice of the given spacing in
// frame pixels: random values at lattice points (from key), interpolated with a
// smoothstep. It depends only on the frame position, so a band renders it as the whole
// image does.
func valueNoise(key uint64, c int, x, y, spacing float64) float32 {
	gx, gy := x/spacing, y/spacing
	ix, iy := math.Floor(gx), math.Floor(gy)
	fx, fy := float32(gx-ix), float32(gy-iy)
	at := func(i, j int) float32 { return float32(uniform(rnd(key, i, j, c))) }
	i, j := int(ix), int(iy)
	sx, sy := fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	top := at(i, j) + (at(i+1, j)-at(i, j))*sx
	bot := at(i, j+1) + (at(i+1, j+1)-at(i, j+1))*sx
	return top + (bot-top)*sy
}

// fogLevel is the display value of fog.
const fogLevel = 0.85

// opFog veils the image in uneven fog (albumentations RandomFog).
//
// Arguments: density in [0, 1], 0 none; 1 hides most of the scene. The fog's opacity
// is density times a smooth seeded pattern between 0.5 and 1 (two octaves of value
// noise with cells of a quarter and a tenth of the long edge), blended towards a light
// grey on display values. Example: {density: 0.5}.
func opFog(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	density := r.num("density")
	if r.err != nil {
		return nil, r.err
	}
	if density == 0 {
		return src, nil
	}
	fr := rc.frameOf(src)
	long := float64(max(fr.w, fr.h))
	key, w := rc.key, src.W
	d := float32(density)
	return dispMap(rc, src, func(p int, c *[3]float32) {
		x, y := float64(p%w)+0.5, float64(fr.y0+p/w)+0.5
		n := 0.65*valueNoise(key, 0, x, y, 0.25*long) + 0.35*valueNoise(key, 1, x, y, 0.1*long)
		f := d * (0.5 + 0.5*n)
		for j := range 3 {
			c[j] += (fogLevel - c[j]) * f
		}
	}), nil
}

// maxShadows bounds shadow's polygon count (the catalog allows 5).
const maxShadows = 16

// shadowVertices is the vertex count of each shadow polygon (albumentations'
// shadow_dimension).
const shadowVertices = 5

// opShadow casts dark polygons on the lower half of the image (albumentations
// RandomShadow with its default region, the bottom half).
//
// Arguments: count in [0, 5], the number of shadows (0 none); intensity in [0, 1], how
// much a shadow darkens (display values are multiplied by 1 - intensity; albumentations'
// default 0.5). Each shadow is a polygon of five vertices drawn from the seed anywhere
// across the width and in the bottom half of the height, filled even-odd; overlapping
// shadows darken once. Example: {count: 2, intensity: 0.5}.
func opShadow(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	count, intensity := r.integer("count"), r.num("intensity")
	if r.err != nil {
		return nil, r.err
	}
	if count <= 0 || intensity == 0 {
		return src, nil
	}
	count = min(count, maxShadows)
	fr := rc.frameOf(src)
	polys := make([][shadowVertices][2]float64, count)
	for i := range polys {
		for v := range shadowVertices {
			polys[i][v] = [2]float64{
				uniform(rnd(rc.key, i, v, 0)) * float64(fr.w),
				(0.5 + 0.5*uniform(rnd(rc.key, i, v, 1))) * float64(fr.h),
			}
		}
	}
	k := float32(1 - intensity)
	w := src.W
	dst := copyRows(rc, src, func(pix []float32, lo, hi int) {
		for y := max(lo, int(0.5*float64(fr.h))-fr.y0-1); y < hi; y++ {
			py := float64(fr.y0+y) + 0.5
			for x := range w {
				for _, poly := range polys {
					if insidePolygon(poly[:], float64(x)+0.5, py) {
						// Shaded pixels only: the others are copied bit for bit.
						d := pix[3*(y*w+x):]
						for c := range 3 {
							d[c] = fromDisp(toDisp(d[c]) * k)
						}
						break
					}
				}
			}
		}
	})
	return dst, nil
}

// insidePolygon reports whether (x, y) is inside poly by the even-odd rule.
func insidePolygon(poly [][2]float64, x, y float64) bool {
	in := false
	j := len(poly) - 1
	for i, p := range poly {
		q := poly[j]
		if (p[1] > y) != (q[1] > y) && x < (q[0]-p[0])*(y-p[1])/(q[1]-p[1])+p[0] {
			in = !in
		}
		j = i
	}
	return in
}

// Rain drops: at amount 1 this many drops fall on the frame; their colour is
// albumentations' drop_color (200, 200, 200) and their width about 0.15% of the long
// edge (at least a pixel).
const (
	rainDrops  = 1500
	rainLevel  = 200.0 / 255
	rainWidth  = 0.0015
	rainOpaque = 0.8
)

// opRain draws seeded rain streaks and dims the scene (albumentations RandomRain).
//
// Arguments: amount in [0, 1], the density of drops (1 is 1500 drops on the frame, 0
// none); length in [0.01, 0.1], a drop's length as a fraction of the long edge; slant
// in [-45, 45], degrees from vertical, positive leaning right at the bottom;
// brightness in [0.3, 1], what the scene's display values are multiplied by when it
// rains (albumentations' brightness_coefficient 0.7). Drops are antialiased light-grey
// lines. Example: {amount: 0.5, slant: 10}.
func opRain(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	amount, length, slant, bright := r.num("amount"), r.num("length"), r.num("slant"), r.num("brightness")
	if r.err != nil {
		return nil, r.err
	}
	drops := int(math.Round(amount * rainDrops))
	if drops == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	long := longEdge(src)
	b := float32(bright)
	dst := dispMap(rc, src, func(_ int, c *[3]float32) {
		c[0], c[1], c[2] = c[0]*b, c[1]*b, c[2]*b
	})
	sin, cos := math.Sincos(slant * math.Pi / 180)
	dx, dy := -sin*length*long, cos*length*long
	half := max(rainWidth*long, 1) / 2
	drop := fromDisp(rainLevel)
	for i := range drops {
		x0 := uniform(rnd(rc.key, i, 0, 0))*(float64(w)+math.Abs(dx)) - max(dx, 0)
		y0 := uniform(rnd(rc.key, i, 0, 1))*(float64(h)+dy) - dy
		xa, xb := int(math.Floor(min(x0, x0+dx)-half-1)), int(math.Ceil(max(x0, x0+dx)+half+1))
		ya, yb := int(math.Floor(y0-half-1)), int(math.Ceil(y0+dy+half+1))
		for y := max(ya, 0); y < min(yb, h); y++ {
			for x := max(xa, 0); x < min(xb, w); x++ {
				d := segmentDistance(float64(x)+0.5, float64(y)+0.5, x0, y0, x0+dx, y0+dy)
				cov := float32(min(max(half+0.5-d, 0), 1)) * rainOpaque
				if cov <= 0 {
					continue
				}
				p := dst.Pix[3*(y*w+x):]
				for c := range 3 {
					p[c] += (drop - p[c]) * cov
				}
			}
		}
	}
	return dst, nil
}

// segmentDistance is the distance from (px, py) to the segment (ax, ay)-(bx, by).
func segmentDistance(px, py, ax, ay, bx, by float64) float64 {
	vx, vy := bx-ax, by-ay
	t := 0.0
	if l := vx*vx + vy*vy; l > 0 {
		t = min(max(((px-ax)*vx+(py-ay)*vy)/l, 0), 1)
	}
	return math.Hypot(px-ax-t*vx, py-ay-t*vy)
}
