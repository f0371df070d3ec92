package engine

import (
	"math"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// opMask rasterizes m on a w x h grey image.
func opMask(t testing.TB, w, h int, m *Mask) []float32 {
	t.Helper()
	dst := make([]float32, w*h)
	if err := maskWeights(dst, opFlat(w, h, 0.2, 0.2, 0.2), m, 1, frame{}); err != nil {
		t.Fatalf("mask %+v: %v", m, err)
	}
	return dst
}

// opAt returns the mask value at the pixel containing normalized point (x, y).
func opAt(v []float32, w, h int, x, y float64) float32 {
	px := min(int(x*float64(w)), w-1)
	py := min(int(y*float64(h)), h-1)
	return v[py*w+px]
}

func TestMaskShapes(t *testing.T) {
	const w, h = 300, 200 // long edge 300
	tests := []struct {
		name  string
		shape Shape
		at    [][3]float64 // x, y, want
		tol   float64
	}{
		{"gradient left to right", Shape{Kind: "gradient", Start: [2]float64{0, 0.5}, End: [2]float64{1, 0.5}},
			[][3]float64{{0, 0.5, 1}, {0.5, 0.1, 0.5}, {0.25, 0.9, 0.75}, {0.999, 0.5, 0}}, 0.01},
		{"gradient beyond its ends", Shape{Kind: "gradient", Start: [2]float64{0.4, 0.4}, End: [2]float64{0.6, 0.6}},
			[][3]float64{{0.1, 0.1, 1}, {0.9, 0.9, 0}, {0.5, 0.5, 0.5}}, 0.02},
		// radius 0.2 of the long edge is 60 px; feather 0.05 is a 15 px edge
		{"ellipse", Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.2, RadiusY: 0.2, Feather: 0.05},
			[][3]float64{{0.5, 0.5, 1}, {0.5 + 45.0/300, 0.5, 1}, {0.5, 0.5 + 45.0/200, 1}, {0.5 + 60.0/300, 0.5, 0.5}, {0.5, 0.5 + 60.0/200, 0.5}, {0.5 + 80.0/300, 0.5, 0}, {0.05, 0.05, 0}}, 0.06},
		{"rotated ellipse", Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.3, RadiusY: 0.1, Rotation: 90},
			[][3]float64{{0.5, 0.5 + 80.0/200, 1}, {0.5 + 80.0/300, 0.5, 0}}, 0.01},
		{"rectangle", Shape{Kind: "rectangle", X: 0.25, Y: 0.25, Width: 0.5, Height: 0.5},
			[][3]float64{{0.5, 0.5, 1}, {0.26, 0.26, 1}, {0.24, 0.5, 0}, {0.5, 0.76, 0}}, 0.01},
		{"rotated rectangle", Shape{Kind: "rectangle", X: 0.3, Y: 0.45, Width: 0.4, Height: 0.1, Rotation: 90},
			[][3]float64{{0.5, 0.5, 1}, {0.5, 0.5 + 50.0/200, 1}, {0.65, 0.5, 0}}, 0.01},
		{"feathered rectangle", Shape{Kind: "rectangle", X: 0.25, Y: 0.25, Width: 0.5, Height: 0.5, Feather: 0.2},
			[][3]float64{{0.5, 0.5, 1}, {0.25, 0.5, 0.5}, {0.05, 0.5, 0}}, 0.03},
		{"triangle", Shape{Kind: "polygon", Points: [][2]float64{{0.1, 0.9}, {0.5, 0.1}, {0.9, 0.9}}},
			[][3]float64{{0.5, 0.6, 1}, {0.1, 0.2, 0}, {0.9, 0.2, 0}}, 0.01},
		// A pentagram crosses itself; nonzero winding fills its centre.
		{"self-intersecting star", Shape{Kind: "polygon", Points: [][2]float64{{0.5, 0.05}, {0.79, 0.95}, {0.02, 0.4}, {0.98, 0.4}, {0.21, 0.95}}},
			[][3]float64{{0.5, 0.55, 1}, {0.5, 0.3, 1}, {0.05, 0.9, 0}}, 0.01},
		{"feathered polygon", Shape{Kind: "polygon", Points: [][2]float64{{0.25, 0.25}, {0.75, 0.25}, {0.75, 0.75}, {0.25, 0.75}}, Feather: 0.2},
			[][3]float64{{0.5, 0.5, 1}, {0.25, 0.5, 0.5}, {0.02, 0.5, 0}}, 0.03},
		{"collinear polygon", Shape{Kind: "polygon", Points: [][2]float64{{0.1, 0.1}, {0.5, 0.5}, {0.9, 0.9}}},
			[][3]float64{{0.5, 0.5, 0}, {0.3, 0.3, 0}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := opMask(t, w, h, &Mask{Shape: &tc.shape})
			for _, p := range tc.at {
				if got := opAt(v, w, h, p[0], p[1]); math.Abs(float64(got)-p[2]) > tc.tol {
					t.Errorf("at (%v, %v): %v, want %v", p[0], p[1], got, p[2])
				}
			}
			for i, x := range v {
				if !(x >= 0 && x <= 1) {
					t.Fatalf("value %v at %d is outside [0, 1]", x, i)
				}
			}
		})
	}
}

// Coverage is exact enough that a polygon's mask adds up to its area.
func TestMaskPolygonArea(t *testing.T) {
	const w, h = 250, 170
	pts := [][2]float64{{0.13, 0.07}, {0.91, 0.31}, {0.62, 0.96}, {0.05, 0.71}}
	v := opMask(t, w, h, &Mask{Shape: &Shape{Kind: "polygon", Points: pts}})
	var sum, area float64
	for _, x := range v {
		sum += float64(x)
	}
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		area += (p[0]*q[1] - q[0]*p[1]) / 2
	}
	area = math.Abs(area) * w * h
	if math.Abs(sum-area) > area*0.002 {
		t.Errorf("polygon coverage adds up to %v px, its area is %v", sum, area)
	}
}

// A mask drawn at twice the size and averaged down matches the mask drawn at the
// smaller size: shapes do not depend on resolution.
func TestMaskResolutionIndependent(t *testing.T) {
	shapes := []Shape{
		{Kind: "gradient", Start: [2]float64{0.2, 0.1}, End: [2]float64{0.7, 0.8}},
		{Kind: "ellipse", Center: [2]float64{0.4, 0.6}, RadiusX: 0.25, RadiusY: 0.1, Rotation: 30, Feather: 0.05},
		{Kind: "rectangle", X: 0.1, Y: 0.2, Width: 0.5, Height: 0.3, Rotation: -20, Feather: 0.1},
		{Kind: "polygon", Points: [][2]float64{{0.1, 0.1}, {0.8, 0.3}, {0.4, 0.9}}, Feather: 0.08},
	}
	for _, s := range shapes {
		small := opMask(t, 160, 100, &Mask{Shape: &s})
		big := opMask(t, 320, 200, &Mask{Shape: &s})
		var diff float64
		for y := range 100 {
			for x := range 160 {
				b := (big[2*y*320+2*x] + big[2*y*320+2*x+1] + big[(2*y+1)*320+2*x] + big[(2*y+1)*320+2*x+1]) / 4
				diff += math.Abs(float64(b - small[y*160+x]))
			}
		}
		if mean := diff / (160 * 100); mean > 0.005 {
			t.Errorf("%s: mean difference %v between 160 px and 320 px masks", s.Kind, mean)
		}
	}
}

func TestMaskRanges(t *testing.T) {
	// red, orange, green, blue, grey, black, white, pale red
	cols := [][3]float32{{0.8, 0.02, 0.02}, {0.8, 0.25, 0.02}, {0.02, 0.8, 0.02}, {0.02, 0.02, 0.8}, {0.2, 0.2, 0.2}, {0, 0, 0}, {1, 1, 1}, {0.8, 0.6, 0.6}}
	img := NewImage(len(cols), 1)
	for i, c := range cols {
		copy(img.Pix[3*i:], c[:])
	}
	tests := []struct {
		name string
		rf   RangeFilter
		want []float32
		tol  float32
	}{
		{"reds across 0 degrees", RangeFilter{Channel: "hue", Min: 330, Max: 30}, []float32{1, 0, 0, 0, 0, 0, 0, 1}, 0},
		{"greens", RangeFilter{Channel: "hue", Min: 90, Max: 150}, []float32{0, 0, 1, 0, 0, 0, 0, 0}, 0},
		{"the whole circle", RangeFilter{Channel: "hue", Min: 0, Max: 360}, []float32{1, 1, 1, 1, 1, 1, 1, 1}, 0},
		{"luminance shadows", RangeFilter{Channel: "luminance", Min: 0, Max: 0.3}, []float32{0, 0, 0, 0, 0, 1, 0, 0}, 0},
		{"luminance with feather", RangeFilter{Channel: "luminance", Min: 0.9, Max: 1, Feather: 0.5}, nil, 0},
		{"saturated colours", RangeFilter{Channel: "saturation", Min: 0.7, Max: 1}, []float32{1, 1, 1, 1, 0, 0, 0, 0}, 0},
		{"bright lightness", RangeFilter{Channel: "lightness", Min: 0.99, Max: 1}, []float32{0, 0, 0, 0, 0, 0, 1, 0}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := make([]float32, img.W)
			if err := maskWeights(v, img, &Mask{Ranges: []RangeFilter{tc.rf}}, 1, frame{}); err != nil {
				t.Fatal(err)
			}
			if tc.want == nil { // feathered: monotone in luminance and strictly between at grey
				g := v[4]
				if !(g > 0 && g < 1 && v[6] == 1 && v[5] == 0) {
					t.Errorf("feathered luminance range: grey %v, white %v, black %v", g, v[6], v[5])
				}
				return
			}
			for i := range v {
				if math.Abs(float64(v[i]-tc.want[i])) > float64(tc.tol) {
					t.Errorf("colour %v: %v, want %v", cols[i], v[i], tc.want[i])
				}
			}
		})
	}
	// Hue feather: orange is 20-odd degrees past a range ending at 0.
	v := make([]float32, img.W)
	if err := maskWeights(v, img, &Mask{Ranges: []RangeFilter{{Channel: "hue", Min: 300, Max: 0, Feather: 60}}}, 1, frame{}); err != nil {
		t.Fatal(err)
	}
	if !(v[1] > 0.3 && v[1] < 0.9 && v[0] > 0.9 && v[2] == 0) {
		t.Errorf("hue feather: red %v, orange %v, green %v", v[0], v[1], v[2])
	}
}

func TestMaskIntersectInvertStrength(t *testing.T) {
	const w, h = 120, 80
	img := NewImage(w, h)
	for x := range w { // a horizontal luminance ramp
		for y := range h {
			l := fromDisp(float32(x) / (w - 1))
			img.Pix[3*(y*w+x)], img.Pix[3*(y*w+x)+1], img.Pix[3*(y*w+x)+2] = l, l, l
		}
	}
	shape := &Shape{Kind: "rectangle", X: 0, Y: 0, Width: 1, Height: 0.5}
	rng := []RangeFilter{{Channel: "luminance", Min: 0.5, Max: 1}}
	get := func(m *Mask, strength float32) []float32 {
		v := make([]float32, w*h)
		if err := maskWeights(v, img, m, strength, frame{}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	both := get(&Mask{Shape: shape, Ranges: rng}, 1)
	inv := get(&Mask{Shape: shape, Ranges: rng, Invert: true}, 1)
	half := get(&Mask{Shape: shape, Ranges: rng}, 0.5)
	for _, p := range [][2]int{{10, 10}, {100, 10}, {10, 70}, {100, 70}} {
		i := p[1]*w + p[0]
		want := float32(0)
		if p[0] > 60 && p[1] < 40 {
			want = 1
		}
		if both[i] != want || inv[i] != 1-want || half[i] != want/2 {
			t.Errorf("pixel %v: mask %v, inverted %v, at strength 0.5 %v; want %v", p, both[i], inv[i], half[i], want)
		}
	}
}

func TestMaskErrors(t *testing.T) {
	nan := math.NaN()
	tests := map[string]*Mask{
		"unknown kind":          {Shape: &Shape{Kind: "star"}},
		"degenerate gradient":   {Shape: &Shape{Kind: "gradient", Start: [2]float64{0.3, 0.3}, End: [2]float64{0.3, 0.3}}},
		"NaN gradient":          {Shape: &Shape{Kind: "gradient", Start: [2]float64{nan, 0}, End: [2]float64{1, 1}}},
		"zero radius":           {Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0, RadiusY: 0.1}},
		"infinite radius":       {Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: math.Inf(1), RadiusY: 0.1}},
		"negative feather":      {Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.1, RadiusY: 0.1, Feather: -1}},
		"NaN rotation":          {Shape: &Shape{Kind: "rectangle", Width: 0.1, Height: 0.1, Rotation: nan}},
		"empty rectangle":       {Shape: &Shape{Kind: "rectangle", Width: 0, Height: 0.1}},
		"two-point polygon":     {Shape: &Shape{Kind: "polygon", Points: [][2]float64{{0, 0}, {1, 1}}}},
		"NaN polygon point":     {Shape: &Shape{Kind: "polygon", Points: [][2]float64{{0, 0}, {1, nan}, {0, 1}}}},
		"too many points":       {Shape: &Shape{Kind: "polygon", Points: make([][2]float64, maxPolygonPoints+1)}},
		"unknown range channel": {Ranges: []RangeFilter{{Channel: "warmth", Max: 1}}},
		"NaN range":             {Ranges: []RangeFilter{{Channel: "hue", Min: nan, Max: 30}}},
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			err := maskWeights(make([]float32, 12), opFlat(4, 3, 0.1, 0.1, 0.1), m, 1, frame{})
			if got := darkroom.Code(err); err == nil || got != darkroom.MaskingError {
				t.Errorf("error %v with code %s, want masking_error", err, got)
			}
		})
	}
}

// Extreme but finite arguments finish, quickly, with every value in [0, 1].
func TestMaskExtremeArguments(t *testing.T) {
	masks := []*Mask{
		{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 1e300, RadiusY: 1e-300, Rotation: 179.9, Feather: 0.5}},
		{Shape: &Shape{Kind: "ellipse", Center: [2]float64{-1e12, 1e12}, RadiusX: 2, RadiusY: 2, Feather: 1e9}},
		{Shape: &Shape{Kind: "rectangle", X: 1e300, Y: -1e300, Width: 1e300, Height: 1e-300, Rotation: -180}},
		{Shape: &Shape{Kind: "gradient", Start: [2]float64{0, 0}, End: [2]float64{1e-150, 0}}},
		{Shape: &Shape{Kind: "polygon", Points: [][2]float64{{-1e300, -1e300}, {1e300, 0}, {0, 1e300}, {0.5, 0.5}}, Feather: 1e6}},
		{Ranges: []RangeFilter{{Channel: "hue", Min: 1e300, Max: -1e300, Feather: 1e300}, {Channel: "saturation", Min: 2, Max: -1}}},
	}
	for i, m := range masks {
		v := make([]float32, 64*48)
		if err := maskWeights(v, opPhotoSmall(t), m, 1, frame{}); err != nil {
			continue // a refusal is fine; a hang or a panic is not
		}
		for j, x := range v {
			if !(x >= 0 && x <= 1) {
				t.Errorf("mask %d: value %v at %d", i, x, j)
				break
			}
		}
	}
}

// opPhotoSmall is chelsea averaged down to 64x48-ish (cropped to exactly 64x48).
func opPhotoSmall(t testing.TB) *Image {
	s := opShrink(opPhoto(t, "chelsea"), 6) // 75x50
	out := NewImage(64, 48)
	for y := range 48 {
		copy(out.Pix[3*y*64:3*(y+1)*64], s.Pix[3*y*s.W:])
	}
	return out
}

// The ellipse's shortcuts (pixels far inside or outside never take a square root)
// give exactly the weights of its distance formula everywhere.
func TestEllipseShortcutsExact(t *testing.T) {
	const w, h = 97, 61
	long := float64(w)
	for _, s := range []Shape{
		{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.3, RadiusY: 0.1, Rotation: 33, Feather: 0.05},
		{Kind: "ellipse", Center: [2]float64{0.2, 0.7}, RadiusX: 0.004, RadiusY: 0.02, Feather: 0},
		{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.2, RadiusY: 0.2, Feather: 1},
		{Kind: "ellipse", Center: [2]float64{1.5, -0.5}, RadiusX: 1.2, RadiusY: 0.9, Rotation: -80, Feather: 0.3},
	} {
		got := make([]float32, w*h)
		if err := rasterShape(got, w, h, frame{0, w, h}, &s); err != nil {
			t.Fatal(err)
		}
		cx, cy := s.Center[0]*w, s.Center[1]*h
		rx, ry := s.RadiusX*long, s.RadiusY*long
		edge := max(s.Feather*long, 1)
		sin, cos := math.Sincos(s.Rotation * math.Pi / 180)
		for y := range h {
			for x := range w {
				dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
				u := (cos*dx + sin*dy) / rx
				v := (-sin*dx + cos*dy) / ry
				k0 := math.Sqrt(u*u + v*v)
				k1 := math.Sqrt(u*u/(rx*rx) + v*v/(ry*ry))
				d := -min(rx, ry)
				if k1 > 0 {
					d = k0 * (k0 - 1) / k1
				}
				if want := softEdge(d, edge); got[y*w+x] != want {
					t.Fatalf("%+v: pixel (%d, %d) weighs %v, the formula %v", s, x, y, got[y*w+x], want)
				}
			}
		}
	}
}
