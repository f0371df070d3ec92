package raw

import "math"

// Colour: from the camera's white-balanced RGB to linear sRGB.
//
// The white balance is the as-shot neutral (AsShotNeutral, or AsShotWhiteXY seen
// through the colour matrix): each channel is multiplied by max(neutral)/neutral[c],
// so the least amplified channel keeps its scale and a grey comes out grey, as
// dcraw's -w and LibRaw do. The colour matrices ColorMatrix1/2 (XYZ to camera) and
// ForwardMatrix1/2 (white-balanced camera to XYZ D50) are interpolated for the
// as-shot white by the inverse of its correlated colour temperature between their
// CalibrationIlluminants, as the DNG specification (chapter 6) says. With forward
// matrices the result is the specification's CameraToXYZ_D50 followed by the
// Bradford-adapted XYZ D50 to sRGB matrix; without them the colour matrix is
// multiplied by sRGB's primaries and its rows normalized so the balanced neutral
// maps to white (dcraw's cam_xyz_coeff), the path dcraw and LibRaw take, so the
// two agree on the same file. BaselineExposure scales the result by 2^EV.

type mat3 [3][3]float64

func (a mat3) mul(b mat3) mat3 {
	var c mat3
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

func (a mat3) vec(v [3]float64) [3]float64 {
	var r [3]float64
	for i := range 3 {
		r[i] = a[i][0]*v[0] + a[i][1]*v[1] + a[i][2]*v[2]
	}
	return r
}

func (a mat3) inv() (mat3, bool) {
	det := a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) -
		a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) +
		a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	if math.Abs(det) < 1e-12 || math.IsNaN(det) {
		return mat3{}, false
	}
	var r mat3
	r[0][0] = (a[1][1]*a[2][2] - a[1][2]*a[2][1]) / det
	r[0][1] = (a[0][2]*a[2][1] - a[0][1]*a[2][2]) / det
	r[0][2] = (a[0][1]*a[1][2] - a[0][2]*a[1][1]) / det
	r[1][0] = (a[1][2]*a[2][0] - a[1][0]*a[2][2]) / det
	r[1][1] = (a[0][0]*a[2][2] - a[0][2]*a[2][0]) / det
	r[1][2] = (a[0][2]*a[1][0] - a[0][0]*a[1][2]) / det
	r[2][0] = (a[1][0]*a[2][1] - a[1][1]*a[2][0]) / det
	r[2][1] = (a[0][1]*a[2][0] - a[0][0]*a[2][1]) / det
	r[2][2] = (a[0][0]*a[1][1] - a[0][1]*a[1][0]) / det
	return r, true
}

func lerp(a, b mat3, g float64) mat3 {
	var r mat3
	for i := range 3 {
		for j := range 3 {
			r[i][j] = g*a[i][j] + (1-g)*b[i][j]
		}
	}
	return r
}

// XYZRGB is linear sRGB (D65) to XYZ, dcraw's xyz_rgb.
var XYZRGB = mat3{
	{0.412453, 0.357580, 0.180423},
	{0.212671, 0.715160, 0.072169},
	{0.019334, 0.119193, 0.950227},
}

// rgbXYZD50 is XYZ (D50) to linear sRGB, Bradford-adapted to D65.
var rgbXYZD50 = mat3{
	{3.1338561, -1.6168667, -0.4906146},
	{-0.9787684, 1.9161415, 0.0334540},
	{0.0719453, -0.2289914, 1.4052427},
}

// illuminantK is the colour temperature of the EXIF LightSource values DNG uses
// for CalibrationIlluminant.
var illuminantK = map[int]float64{
	1: 5500, 2: 4230, 3: 2850, 4: 5500, 9: 5500, 10: 6500, 11: 7500, 12: 6430,
	13: 5000, 14: 4150, 15: 3525, 17: 2856, 18: 4874, 19: 6774, 20: 5503,
	21: 6504, 22: 7504, 23: 5003, 24: 3200,
}

// cct is the correlated colour temperature of chromaticity x, y (McCamy).
func cct(x, y float64) float64 {
	n := (x - 0.3320) / (0.1858 - y)
	return 449*n*n*n + 3525*n*n + 6823.3*n + 5520.33
}

func (f *File) matrix(tag uint16) (mat3, bool) {
	e, ok := f.meta(tag)
	if !ok {
		return mat3{}, false
	}
	v, ok := f.t.floats(e, 9)
	if !ok || len(v) != 9 {
		return mat3{}, false
	}
	var m mat3
	for i := range 9 {
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			return mat3{}, false
		}
		m[i/3][i%3] = v[i]
	}
	return m, true
}

func (f *File) colour() error {
	cm1, ok1 := f.matrix(tagColorMatrix1)
	cm2, ok2 := f.matrix(tagColorMatrix2)
	if !ok1 {
		return invalid("ColorMatrix1 is missing or malformed (monochrome DNGs are not supported)")
	}
	temp := func(tag uint16) float64 {
		if e, ok := f.meta(tag); ok {
			if v, ok := f.t.uint(e, 0); ok {
				if k, ok := illuminantK[int(v)]; ok {
					return k
				}
			}
		}
		return 6504
	}
	t1, t2 := temp(tagIlluminant1), temp(tagIlluminant2)
	// weight returns the share of the first matrix at temperature k.
	weight := func(k float64) float64 {
		if !ok2 || t1 == t2 {
			return 1
		}
		g := (1/k - 1/t2) / (1/t1 - 1/t2)
		return min(1, max(0, g))
	}
	if !ok2 {
		cm2 = cm1
	}
	if e, ok := f.meta(tagAnalogBalance); ok {
		if v, ok := f.t.floats(e, 3); ok && len(v) == 3 && v[0] > 0 && v[1] > 0 && v[2] > 0 && (v[0] != 1 || v[1] != 1 || v[2] != 1) {
			f.Warnings = append(f.Warnings, "the DNG's AnalogBalance was not applied")
		}
	}

	// The as-shot white, as a camera neutral and as a chromaticity.
	g := 0.5
	if !ok2 {
		g = 1
	}
	var neutral [3]float64
	haveNeutral := false
	if e, ok := f.meta(tagAsShotNeutral); ok {
		if v, ok := f.t.floats(e, 3); ok && len(v) == 3 && v[0] > 0 && v[1] > 0 && v[2] > 0 {
			neutral, haveNeutral = [3]float64{v[0], v[1], v[2]}, true
		}
	}
	xy := [2]float64{0.3127, 0.3290} // D65 when the file says nothing
	if !haveNeutral {
		if e, ok := f.meta(tagAsShotWhiteXY); ok {
			if v, ok := f.t.floats(e, 2); ok && len(v) == 2 && v[0] > 0 && v[1] > 0 && v[0]+v[1] < 1 {
				xy = [2]float64{v[0], v[1]}
			}
		}
		g = weight(cct(xy[0], xy[1]))
		neutral = lerp(cm1, cm2, g).vec([3]float64{xy[0] / xy[1], 1, (1 - xy[0] - xy[1]) / xy[1]})
	} else {
		for range 8 {
			inv, ok := lerp(cm1, cm2, g).inv()
			if !ok {
				return invalid("the colour matrix is singular")
			}
			xyz := inv.vec(neutral)
			s := xyz[0] + xyz[1] + xyz[2]
			if s <= 0 {
				break
			}
			xy = [2]float64{xyz[0] / s, xyz[1] / s}
			g = weight(cct(xy[0], xy[1]))
		}
	}
	nmax := max(neutral[0], neutral[1], neutral[2])
	if !(nmax > 0) || neutral[0] <= 0 || neutral[1] <= 0 || neutral[2] <= 0 {
		return invalid("the as-shot white balance is not positive")
	}
	for c := range 3 {
		f.neutral[c] = neutral[c] / nmax
	}

	var m mat3
	fm1, okf1 := f.matrix(tagForwardMatrix1)
	fm2, okf2 := f.matrix(tagForwardMatrix2)
	if okf1 {
		if !okf2 {
			fm2 = fm1
		}
		// The balanced data is camera/neutral*max(neutral) = camera/f.neutral.
		m = rgbXYZD50.mul(lerp(fm1, fm2, g))
		f.forward = true
	} else {
		camRGB := lerp(cm1, cm2, g).mul(XYZRGB)
		for i := range 3 {
			s := camRGB[i][0] + camRGB[i][1] + camRGB[i][2]
			if s == 0 {
				return invalid("the colour matrix maps white to black")
			}
			for j := range 3 {
				camRGB[i][j] /= s
			}
		}
		var ok bool
		if m, ok = camRGB.inv(); !ok {
			return invalid("the colour matrix is singular")
		}
	}
	k := math.Exp2(f.baselineEVFromHeader())
	for i := range 3 {
		for j := range 3 {
			f.rgbCam[i][j] = m[i][j] * k
		}
	}
	return nil
}

// baselineEVFromHeader reads BaselineExposure (metadata runs after colour).
func (f *File) baselineEVFromHeader() float64 {
	if e, ok := f.meta(tagBaselineExposure); ok {
		if v, ok := f.t.float(e, 0); ok && v >= -10 && v <= 10 {
			return v
		}
	}
	return 0
}
