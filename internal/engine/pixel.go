package engine

import (
	"math"
	"sync"
)

// Per-pixel helpers shared by the operations: fast tabulated functions of a linear value,
// the extended sRGB encoding that perceptual operations work in, luminance, and hue.

// Rec. 709 luminance weights of linear sRGB.
const (
	lumR = 0.2126
	lumG = 0.7152
	lumB = 0.0722
)

func luma(r, g, b float32) float32 { return lumR*r + lumG*g + lumB*b }

// fnLUT tabulates a smooth function of a linear value, indexed by the value's float32
// bit pattern: the exponent and the top seven mantissa bits pick a bin (128 bins per
// octave, so the relative spacing is under 0.8% everywhere), and f is linear inside a
// bin. That keeps the relative accuracy the same from deep shadows to highlights several
// stops over 1, where a table of evenly spaced values would be either huge or coarse in
// the shadows. Building one evaluates f about 4,100 times; a lookup is a few
// instructions and is inlined into pixel loops.
//
// Bin 0 spans [0, 2^-20] and also extends linearly to negative values (which some
// operations produce); the last bin extends linearly past 2^12 (light 4096 times white).
type fnLUT struct {
	bins [lutBins + 2]lutBin
}

// lutBin is f on one bin: f(v) = a + (v - x)*s.
type lutBin struct{ x, a, s float32 }

const (
	lutLoExp = -20
	lutHiExp = 12
	lutBins  = (lutHiExp - lutLoExp) * 128
	lutLo    = (127 + lutLoExp) << 7 // bits>>16 of 2^lutLoExp
)

func newFnLUT(f func(float64) float64) *fnLUT {
	t := &fnLUT{}
	edge := func(j int) float64 { // the start of table bin j >= 1
		return float64(math.Float32frombits(uint32(lutLo+j-1) << 16))
	}
	prevX, prevF := 0.0, f(0)
	for j := 1; j < len(t.bins)+1; j++ {
		x := edge(j)
		fx := f(x)
		t.bins[j-1] = lutBin{x: float32(prevX), a: float32(prevF), s: float32((fx - prevF) / (x - prevX))}
		prevX, prevF = x, fx
	}
	return t
}

// lutCache keeps recently built tables by the operation and the arguments they were
// built from: building one evaluates its function about 4,100 times (0.4 ms), and a
// dataset run, like an agent's previews, builds the same few again and again.
var lutCache struct {
	sync.Mutex
	m map[lutKey]*fnLUT
}

type lutKey struct {
	op string
	p  [4]float64
}

// maxCachedLUTs bounds lutCache (49 KB a table); past it the cache starts again.
const maxCachedLUTs = 64

// cachedLUT returns the table op builds from the arguments p (build must depend on
// nothing else), built once while it stays in the cache.
func cachedLUT(op string, p [4]float64, build func(float64) float64) *fnLUT {
	k := lutKey{op, p}
	lutCache.Lock()
	t, ok := lutCache.m[k]
	lutCache.Unlock()
	if ok {
		return t
	}
	t = newFnLUT(build)
	lutCache.Lock()
	if lutCache.m == nil || len(lutCache.m) >= maxCachedLUTs {
		lutCache.m = make(map[lutKey]*fnLUT)
	}
	lutCache.m[k] = t
	lutCache.Unlock()
	return t
}

// apply writes f(s[i]) to d[i]; eight at a time where the CPU has AVX2, to the
// same values.
func (t *fnLUT) apply(d, s []float32) {
	d = d[:len(s)]
	if useAVX512 && useAVX2 && len(s) >= 16 {
		m := len(s) &^ 15
		lutApplyAVX512(&d[0], &s[0], m, &t.bins[0], lutLo-1, lutBins+1)
		d, s = d[m:], s[m:]
	}
	if useAVX2 && len(s) >= 8 {
		m := len(s) &^ 7
		lutApplyAVX2(&d[0], &s[0], m, &t.bins[0], lutLo-1, lutBins+1)
		d, s = d[m:], s[m:]
	}
	for i, v := range s {
		d[i] = t.at(v)
	}
}

// at returns f(v).
func (t *fnLUT) at(v float32) float32 {
	i := int32(math.Float32bits(v))>>16 - (lutLo - 1)
	b := &t.bins[min(max(i, 0), lutBins+1)]
	return b.a + (v-b.x)*b.s
}

// Extended sRGB: the sRGB transfer curve continued past 1 by its own formula and mirrored
// below 0 (as scRGB does), so values that exposure pushed over 1 keep their order and can
// still be recovered by a later tone operation instead of being clipped mid-pipeline.
func encodeExt(v float64) float64 {
	if v < 0 {
		return -encodeExt(-v)
	}
	if v <= 0.0031308 {
		return v * 12.92
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

func decodeExt(d float64) float64 {
	if d < 0 {
		return -decodeExt(-d)
	}
	if d <= 0.04045 {
		return d / 12.92
	}
	return math.Pow((d+0.055)/1.055, 2.4)
}

// The display encoding tables, built once at start-up (well under a millisecond).
var (
	encLUT = newFnLUT(encodeExt)
	decLUT = newFnLUT(decodeExt)
)

// toDisp encodes a linear value to an (extended) sRGB display value.
func toDisp(v float32) float32 { return encLUT.at(v) }

// fromDisp decodes an (extended) sRGB display value to linear light.
func fromDisp(d float32) float32 { return decLUT.at(d) }

// fillLevel is the linear value of a fill argument given as a display value, never
// negative: what dropout, masking and padding ops write into the pixels they fill.
func fillLevel(fill float64) float32 { return nonNeg(fromDisp(float32(fill))) }

// maxRelumGain bounds how much relum multiplies a pixel's channels: a lift of a
// near-black pixel beyond it is added as neutral grey instead, which keeps sensor noise
// in the shadows from turning into saturated colour.
const maxRelumGain = 8

// relum changes a pixel's luminance from y to yn while keeping its colour: it scales the
// channels by yn/y (at most maxRelumGain) and adds whatever luminance is still missing as
// neutral grey, so the result's luminance is exactly yn. Tone operations decide a new
// luminance and use this to apply it without shifting hue.
func relum(r, g, b, y, yn float32) (float32, float32, float32) {
	if yn < 0 {
		yn = 0
	}
	var k float32
	if y > 1e-9 {
		k = yn / y
		if k > maxRelumGain {
			k = maxRelumGain
		}
	}
	rest := yn - y*k
	return r*k + rest, g*k + rest, b*k + rest
}

// hueChroma returns the HSV/HSL hue of (r, g, b) in degrees [0, 360) and its chroma
// max - min; the hue of a grey (chroma 0) is 0.
func hueChroma(r, g, b float32) (h, c float32) {
	mx, mn := max3(r, g, b), min3(r, g, b)
	c = mx - mn
	if !(c > 0) {
		return 0, 0
	}
	switch mx {
	case r:
		h = (g - b) / c
		if h < 0 {
			h += 6
		}
	case g:
		h = (b-r)/c + 2
	default:
		h = (r-g)/c + 4
	}
	h *= 60
	if h >= 360 {
		h -= 360
	}
	return h, c
}

// withHue returns the colour with hue h (degrees, any value) and the same maximum and
// minimum channel as (mx, mn): the hue rotation of HSV/HSL, which keeps value,
// lightness and saturation.
func withHue(h, mx, mn float32) (r, g, b float32) {
	switch {
	case h >= 0 && h < 360:
	case h < 0 && h >= -360:
		h += 360
	case h >= 360 && h < 720:
		h -= 360
	default:
		h = float32(math.Mod(float64(h), 360))
		if h < 0 {
			h += 360
		}
	}
	if !(h < 360) { // rounding of h+360 for a tiny negative h
		h = 0
	}
	c := mx - mn
	hp := h / 60
	sector := int(hp)
	f := hp - float32(sector)
	up := mn + c*f   // rising channel
	down := mx - c*f // falling channel
	switch sector {
	case 0:
		return mx, up, mn
	case 1:
		return down, mx, mn
	case 2:
		return mn, mx, up
	case 3:
		return mn, down, mx
	case 4:
		return up, mn, mx
	default:
		return mx, mn, down
	}
}

// toHLS returns the HLS hue (degrees, as hueChroma), lightness and saturation of display
// values in [0, 1], as OpenCV and albumentations convert; the saturation of a pixel
// within rounding of black or white is 0.
func toHLS(r, g, b float32) (h, l, s float32) {
	mx, mn := max3(r, g, b), min3(r, g, b)
	l = (mx + mn) / 2
	if d := 1 - float32(math.Abs(float64(2*l-1))); d > 1e-6 {
		s = (mx - mn) / d
	}
	h, _ = hueChroma(r, g, b)
	return h, l, s
}

// fromHLS returns the display values of HLS hue h (degrees, any value), lightness l and
// saturation s, the inverse of toHLS.
func fromHLS(h, l, s float32) (r, g, b float32) {
	half := s * (1 - float32(math.Abs(float64(2*l-1)))) / 2
	return withHue(h, l+half, l-half)
}

// nonNeg is max(v, 0) for the per-pixel loops: the builtin max of floats orders NaN
// and signed zeros, which costs it twice the time of this branch.
func nonNeg(v float32) float32 {
	if v < 0 {
		return 0
	}
	return v
}

// min3 and max3 are the builtin min and max of three pixel values, without the
// ordering of NaNs and signed zeros that makes the builtins slow in per-pixel loops.
func min3(a, b, c float32) float32 {
	if b < a {
		a = b
	}
	if c < a {
		a = c
	}
	return a
}

func max3(a, b, c float32) float32 {
	if b > a {
		a = b
	}
	if c > a {
		a = c
	}
	return a
}

// clamp01 limits v to [0, 1], mapping NaN to 0.
func clamp01(v float32) float32 {
	if !(v > 0) {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

func smoothstep(t float32) float32 {
	t = clamp01(t)
	return t * t * (3 - 2*t)
}
