package engine

import (
	"math"
	"slices"
	"testing"
)

// opSub returns the w x h part of m at (x0, y0).
func opSub(m *Image, x0, y0, w, h int) *Image {
	out := NewImage(w, h)
	for y := range h {
		copy(out.Pix[3*y*w:3*(y+1)*w], m.Pix[3*((y0+y)*m.W+x0):3*((y0+y)*m.W+x0+w)])
	}
	return out
}

// opBlockRMS is the root mean square difference of the display lumas of a and b
// averaged over blocks of f x f pixels: how far their coarse brightness differs.
func opBlockRMS(a, b *Image, f int) float64 {
	la, lb := opLuma(opShrink(a, f)), opLuma(opShrink(b, f))
	var s float64
	for i := range la {
		s += (la[i] - lb[i]) * (la[i] - lb[i])
	}
	return math.Sqrt(s / float64(len(la)))
}

// opDisc is the mean linear RGB of m over the disc of radius r pixels at (cx, cy).
func opDisc(m *Image, cx, cy, r float64) [3]float64 {
	var s [3]float64
	n := 0
	for y := range m.H {
		for x := range m.W {
			if math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) > r {
				continue
			}
			for c := range 3 {
				s[c] += float64(m.Pix[3*(y*m.W+x)+c])
			}
			n++
		}
	}
	for c := range s {
		s[c] /= float64(n)
	}
	return s
}

func spotEdit(kind string, dx, dy float64, m *Mask) Edit {
	return Edit{Op: "spot", Args: Args{"kind": kind, "dx": dx, "dy": dy}, Mask: m, Strength: 1}
}

// Clone by whole pixels copies values exactly, in both directions, and repeats the
// border past the edges; half a pixel averages neighbours.
func TestSpotCloneShifts(t *testing.T) {
	src := opPhoto(t, "chelsea") // 451x300
	long := float64(src.W)
	out := opRender(t, src, 1, spotEdit("clone", -10/long, 7/long, nil))
	for _, p := range [][2]int{{10, 0}, {200, 150}, {450, 292}} {
		x, y := p[0], p[1]
		for c := range 3 {
			if got, want := out.Pix[3*(y*src.W+x)+c], src.Pix[3*((y+7)*src.W+x-10)+c]; got != want {
				t.Errorf("clone (-10, +7) px at (%d, %d) channel %d: %v, want the source's %v", x, y, c, got, want)
			}
		}
	}
	// Past the left edge the first column repeats.
	if got, want := out.Pix[3*(0*src.W+3)], src.Pix[3*(7*src.W+0)]; got != want {
		t.Errorf("clone past the left edge: %v, want the border's %v", got, want)
	}
	half := opRender(t, src, 1, spotEdit("clone", 0.5/long, 0, nil))
	i := 3 * (100*src.W + 100)
	if got, want := half.Pix[i], (src.Pix[i]+src.Pix[i+3])/2; math.Abs(float64(got-want)) > 1e-6 {
		t.Errorf("clone by half a pixel: %v, want the mean of the neighbours %v", got, want)
	}
}

// Healing a dark blemish on a textured surface from a clean source: the spot takes
// the surroundings' brightness and colour (unlike the blemish) and the source's
// texture (unlike a flat fill), and nothing outside the mask changes.
func TestSpotHealRemovesBlemish(t *testing.T) {
	const w, h = 200, 120
	src := NewImage(w, h)
	for y := range h {
		for x := range w {
			// A warm surface brightening to the right, with a fine checker texture.
			v := 0.2 + 0.1*float64(x)/w
			if (x/2+y/2)%2 == 0 {
				v *= 1.2
			}
			i := 3 * (y*w + x)
			src.Pix[i], src.Pix[i+1], src.Pix[i+2] = float32(v*1.1), float32(v), float32(v*0.8)
		}
	}
	clean := src.Clone()
	cx, cy, r := 100.0, 60.0, 10.0
	for y := range h {
		for x := range w {
			if math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) < 6 {
				i := 3 * (y*w + x)
				src.Pix[i], src.Pix[i+1], src.Pix[i+2] = 0.02, 0.03, 0.05
			}
		}
	}
	mask := &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{cx / w, cy / h}, RadiusX: r / w, RadiusY: r / w, Feather: 0.3 * r / w}}
	// The source 2.5 radii to the right, whole pixels so the texture lines up.
	healed := opRender(t, src, 1, spotEdit("heal", 2.5*r/w, 0, mask))
	want := opDisc(clean, cx, cy, 5)
	got := opDisc(healed, cx, cy, 5)
	blemish := opDisc(src, cx, cy, 5)
	for c := range 3 {
		if math.Abs(got[c]-want[c]) > 0.1*math.Abs(blemish[c]-want[c]) {
			t.Errorf("channel %d inside the spot: %v, want about the clean %v (blemish %v)", c, got[c], want[c], blemish[c])
		}
	}
	// Texture: neighbouring pixels still differ as much as on the clean surface.
	tex := func(m *Image) float64 {
		var s float64
		for y := int(cy) - 3; y < int(cy)+3; y++ {
			for x := int(cx) - 3; x < int(cx)+3; x++ {
				s += math.Abs(float64(m.Pix[3*(y*w+x+1)+1] - m.Pix[3*(y*w+x)+1]))
			}
		}
		return s
	}
	if got, want := tex(healed), tex(clean); math.Abs(got-want) > 0.25*want {
		t.Errorf("texture inside the healed spot %v, want about the surface's %v", got, want)
	}
	for _, p := range [][2]int{{10, 10}, {150, 100}, {100, 20}} {
		i := 3 * (p[1]*w + p[0])
		if healed.Pix[i] != src.Pix[i] {
			t.Errorf("pixel %v outside the spot changed: %v -> %v", p, src.Pix[i], healed.Pix[i])
		}
	}
}

// Heal on an image without detail is nearly the image itself: a smooth gradient has no
// texture to bring, and its brightness stays where it was.
func TestSpotHealKeepsSmoothImage(t *testing.T) {
	const w, h = 320, 200
	src := NewImage(w, h)
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			v := float32(0.1 + 0.4*float64(x)/w)
			src.Pix[i], src.Pix[i+1], src.Pix[i+2] = v, v*0.9, v*0.7
		}
	}
	out := opRender(t, src, 1, spotEdit("heal", 0.05, -0.025, nil))
	worst := 0.0
	// Away from the borders, where the blur repeats the edge and bends the gradient.
	for y := 60; y < h-60; y++ {
		for x := 60; x < w-60; x++ {
			for c := range 3 {
				i := 3*(y*w+x) + c
				worst = max(worst, math.Abs(float64(out.Pix[i]-src.Pix[i])))
			}
		}
	}
	if worst > 0.005 {
		t.Errorf("heal changed a smooth gradient by up to %v away from the borders", worst)
	}
	clone := opRender(t, src, 1, spotEdit("clone", 0.05, -0.025, nil))
	if d := math.Abs(float64(clone.Pix[3*(100*w+160)] - src.Pix[3*(100*w+160)])); d < 0.015 {
		t.Errorf("clone of a gradient barely moved it (%v): the comparison above tests nothing", d)
	}
}

// A tiny offset heals to nearly nothing: heal is continuous at its neutral value.
func TestSpotHealTendsToIdentity(t *testing.T) {
	src := opShrink(opPhoto(t, "coffee"), 4)
	out := opRender(t, src, 1, spotEdit("heal", 1e-4, 0, nil))
	worst := 0.0
	for i := range src.Pix {
		worst = max(worst, math.Abs(float64(out.Pix[i]-src.Pix[i])))
	}
	if worst > 0.01 {
		t.Errorf("heal by 1e-4 of the long edge changed values by up to %v", worst)
	}
}

// A masked spot renders only the rectangle its mask reaches, and gives exactly the
// pixels of the spot rendered over the whole frame and blended by the mask: heal
// (with its blur at full size and on blocks) and clone, in the middle, at the edges
// (where the source clamps) and with the source partly outside the frame.
func TestSpotIsLocal(t *testing.T) {
	src := opPhoto(t, "coffee")
	long := float64(max(src.W, src.H))
	places := []struct{ cx, cy, r, dx, dy float64 }{
		{0.5, 0.5, 0.03, 0.08, 0.02},  // the blur on blocks (sigma 25 px)
		{0.3, 0.6, 0.01, 0.01, -0.01}, // the blur at full size (sigma 4 px)
		{0.02, 0.97, 0.04, -0.1, 0.05},
		{0.97, 0.05, 0.05, 0.2, -0.3},
	}
	for _, kind := range []string{"heal", "clone"} {
		for _, p := range places {
			mask := &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{p.cx, p.cy}, RadiusX: p.r * long / float64(src.W), RadiusY: p.r * long / float64(src.H), Feather: p.r / 3}}
			e := spotEdit(kind, p.dx, p.dy, mask)
			e.Strength = 0.9
			got := opRender(t, src, 1, e)
			// The whole frame, then the mask's blend.
			whole, err := opSpot(&runCtx{}, src, e.Args)
			if err != nil {
				t.Fatal(err)
			}
			weight := make([]float32, src.W*src.H)
			if err := maskWeights(weight, src, mask, 0.9, frame{}); err != nil {
				t.Fatal(err)
			}
			blend(whole, src, weight, 0, src.H)
			if !slices.Equal(got.Pix, whole.Pix) {
				maxd, _ := ioDiff(t, whole, got)
				t.Errorf("%s at %v: the local spot differs from the whole frame's by up to %g", kind, p, maxd)
			}
		}
	}
}

// BenchmarkSpot heals spots (0.01 of the long edge, the source 2.5 radii away, as
// apply_spot makes them) on the 24-megapixel photo after an exposure, so that the
// render owns the image the spots go on, as in a preview or an export: the cost of a
// spot is the difference from "exposure", and "10 spots" shows how it adds up.
// "frame" is one heal without a mask, the whole frame.
func BenchmarkSpot(b *testing.B) {
	data := ioLarge(b)
	src, err := Decode(data, DecodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	exposure := opEdit("exposure", Args{"ev": 0.3})
	spots := func(n int) []Edit {
		edits := []Edit{exposure}
		for i := range n {
			mask := &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.1 + 0.08*float64(i), 0.5}, RadiusX: 0.01, RadiusY: 0.015, Feather: 0.004}}
			edits = append(edits, spotEdit("heal", 0.025, 0, mask))
		}
		return edits
	}
	for _, tc := range []struct {
		name  string
		edits []Edit
	}{
		{"exposure", spots(0)},
		{"1 spot", spots(1)},
		{"10 spots", spots(10)},
		{"frame", []Edit{exposure, spotEdit("heal", 0.025, 0, nil)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			defer ioCPUMeter(b)()
			for b.Loop() {
				if _, err := Render(src.Image, tc.edits, RenderOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
