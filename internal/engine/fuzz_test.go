package engine

import (
	"encoding/binary"
	"math"
	"testing"
)

// Fuzz tests: mask rasterization with extreme arguments, and every operation with any
// in-range arguments. Neither may panic or hang; a render of in-range arguments must
// succeed with finite pixels.

func FuzzMask(f *testing.F) {
	f.Add(uint8(0), 0.5, 0.5, 0.2, 0.3, 0.0, 0.05, uint8(3), uint64(1), uint8(0), 0.0, 1.0, 0.0, false)
	f.Add(uint8(1), 0.5, 0.5, 2.0, 1e-9, 45.0, 0.5, uint8(0), uint64(2), uint8(1), 330.0, 30.0, 180.0, true)
	f.Add(uint8(2), -1e300, 1e300, 1e300, 1e-300, -180.0, 0.0, uint8(0), uint64(3), uint8(2), 0.9, 0.1, 1.0, false)
	f.Add(uint8(3), 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, uint8(64), uint64(4), uint8(3), 0.0, 0.0, 0.0, true)
	f.Add(uint8(3), math.NaN(), math.Inf(1), 0.0, 0.0, 0.0, 0.5, uint8(5), uint64(5), uint8(4), math.Inf(-1), math.NaN(), 0.0, true)
	img := opFlat(37, 23, 0.3, 0.2, 0.1)
	for p := range img.W * img.H {
		img.Pix[3*p] = float32(p%37) / 37
	}
	kinds := []string{"gradient", "ellipse", "rectangle", "polygon", "blob"}
	channels := []string{"luminance", "hue", "saturation", "lightness", "depth"}
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c, d, rot, feather float64, npts uint8, ptSeed uint64, ch uint8, rmin, rmax, rfeather float64, invert bool) {
		s := &Shape{
			Kind: kinds[int(kind)%len(kinds)], Start: [2]float64{a, b}, End: [2]float64{c, d},
			Center: [2]float64{a, b}, RadiusX: c, RadiusY: d, X: a, Y: b, Width: c, Height: d,
			Rotation: rot, Feather: feather,
		}
		for i := range int(npts) {
			v := mix64(ptSeed + uint64(i))
			// Points anywhere from far outside the image to inside, some repeated.
			s.Points = append(s.Points, [2]float64{
				float64(int32(v))/float64(1<<20) + a*float64(i%2),
				float64(int32(v>>32))/float64(1<<20) + b*float64(i%3),
			})
		}
		m := &Mask{Shape: s, Invert: invert, Ranges: []RangeFilter{{Channel: channels[int(ch)%len(channels)], Min: rmin, Max: rmax, Feather: rfeather}}}
		v := make([]float32, img.W*img.H)
		if err := maskWeights(v, img, m, 0.7, frame{}); err != nil {
			return
		}
		for i, x := range v {
			if !(x >= 0 && x <= 0.7) {
				t.Fatalf("mask value %v at %d outside [0, strength]", x, i)
			}
		}
	})
}

// opFuzzArgs builds arguments for op from data: each number or integer in its catalog
// range, each boolean and enum from a byte, points strictly increasing in [0, 1].
func opFuzzArgs(op string, data []byte) Args {
	next := func() uint64 {
		var b [8]byte
		n := copy(b[:], data)
		data = data[n:]
		return binary.LittleEndian.Uint64(b[:])
	}
	a := Args{}
	for _, s := range opSpecs[op] {
		v := next()
		switch s.kind {
		case "number":
			u := float64(v>>11) / (1 << 53)
			switch v & 7 { // the ends of the range are the riskiest values
			case 0:
				u = 0
			case 1:
				u = 1
			}
			a[s.name] = s.min + u*(s.max-s.min)
		case "integer":
			a[s.name] = s.min + float64(v%uint64(s.max-s.min+1))
		case "boolean":
			a[s.name] = v&1 == 1
		case "enum":
			a[s.name] = s.values[v%uint64(len(s.values))]
		case "points":
			n := 2 + int(v%uint64(s.max-1))
			pts := make([][2]float64, n)
			x := 0.0
			for i := range pts {
				r := next()
				x += (1 - x) * (float64(r&0xffff) + 1) / 65537 / float64(n-i)
				if i == 0 && r&(1<<20) != 0 {
					x = 0
				}
				pts[i] = [2]float64{x, float64(r>>32) / (1 << 32)}
			}
			a[s.name] = pts
		}
	}
	return a
}

func FuzzRender(f *testing.F) {
	for i := range len(opSpecs) {
		f.Add(uint8(i), uint64(i), []byte("seed data for the fuzzer, long enough to fill several arguments....."))
	}
	f.Add(uint8(0), uint64(0), []byte{})
	f.Add(uint8(7), uint64(1), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0})
	img := opShrink(opPhoto(f, "chelsea"), 12) // 37x25
	ops := Operations()
	f.Fuzz(func(t *testing.T, opi uint8, seed uint64, data []byte) {
		op := ops[int(opi)%len(ops)]
		a := opFuzzArgs(op, data)
		out, err := Render(img, []Edit{opEdit(op, a)}, RenderOptions{Seed: seed})
		if err != nil {
			t.Fatalf("%s %v: %v", op, a, err)
		}
		for i, v := range out.Pix {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s %v: value %v at %d", op, a, v, i)
			}
		}
	})
}

// Curves from arbitrary points: sorted input never fails; bad input is refused, never
// a panic or a NaN.
func FuzzCurve(f *testing.F) {
	f.Add([]byte{0, 0, 255, 255})
	f.Add([]byte{0, 255, 128, 0, 255, 255})
	f.Add([]byte{10, 10, 10, 200, 20, 30})
	img := opShrink(opPhoto(f, "coffee"), 20) // 30x20
	f.Fuzz(func(t *testing.T, data []byte) {
		var pts [][2]float64
		for i := 0; i+1 < len(data) && len(pts) < 16; i += 2 {
			pts = append(pts, [2]float64{float64(data[i]) / 255, float64(data[i+1]) / 255})
		}
		out, err := Render(img, []Edit{opEdit("curve", Args{"points": pts, "channel": "rgb"})}, RenderOptions{})
		increasing := len(pts) >= 2
		for i := 1; i < len(pts); i++ {
			increasing = increasing && pts[i][0] > pts[i-1][0]
		}
		if increasing != (err == nil) {
			t.Fatalf("points %v: error %v", pts, err)
		}
		if err != nil {
			return
		}
		for i, v := range out.Pix {
			if !(v >= 0 && v <= 1.0001) {
				t.Fatalf("points %v: value %v at %d", pts, v, i)
			}
		}
	})
}
