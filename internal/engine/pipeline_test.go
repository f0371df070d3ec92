package engine

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

var opTestPhotos = []string{"chelsea", "coffee", "astronaut"}

// opSameFloats fails unless got equals want value for value (bit for bit, as an
// identity must be).
func opSameFloats(t testing.TB, what string, want, got *Image) {
	t.Helper()
	if want.W != got.W || want.H != got.H {
		t.Errorf("%s: size %dx%d, want %dx%d", what, got.W, got.H, want.W, want.H)
		return
	}
	n, first := 0, -1
	for i := range want.Pix {
		if math.Float32bits(want.Pix[i]) != math.Float32bits(got.Pix[i]) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n > 0 {
		t.Errorf("%s: %d of %d values differ; first at %d: got %v, want %v", what, n, len(want.Pix), first, got.Pix[first], want.Pix[first])
	}
}

func TestOpsSpecsCoverCatalog(t *testing.T) {
	var specs []string
	for op := range opSpecs {
		specs = append(specs, op)
	}
	slices.Sort(specs)
	if diff := cmp.Diff(specs, Operations()); diff != "" {
		t.Errorf("test argument table vs Operations() (-want +got):\n%s", diff)
	}
	for _, op := range Operations() {
		stage, ok := OpStage(op)
		if !ok || !slices.Contains(stages, stage) {
			t.Errorf("OpStage(%q) = %q, %v", op, stage, ok)
		}
	}
	if _, ok := OpStage("lomo"); ok {
		t.Error(`OpStage("lomo") reports an operation the catalog does not have`)
	}
	if !slices.IsSorted(Operations()) {
		t.Error("Operations() is not sorted")
	}
}

// An entry at its catalog defaults renders the same bytes as no entry, for every
// operation on every photo.
func TestRenderDefaultsAreIdentity(t *testing.T) {
	for _, name := range opTestPhotos {
		src := opPhoto(t, name)
		for _, op := range Operations() {
			t.Run(name+"/"+op, func(t *testing.T) {
				got := opRender(t, src, 7, opEdit(op, opDefaults(t, op)))
				opSameFloats(t, op+" at its defaults", src, got)
			})
		}
	}
}

func TestRenderDoesNotModifySource(t *testing.T) {
	src := opPhoto(t, "chelsea")
	before := src.Clone()
	for _, op := range Operations() {
		opRender(t, src, 1, opSample(t, op))
	}
	opSameFloats(t, "source after rendering every operation", before, src)
	if out := opRender(t, src, 1); &out.Pix[0] == &src.Pix[0] {
		t.Error("Render with no edits returned the source's pixels, not a copy")
	}
}

func TestRenderStrengthZeroIsIdentity(t *testing.T) {
	src := opPhoto(t, "coffee")
	for _, op := range Operations() {
		t.Run(op, func(t *testing.T) {
			e := opSample(t, op)
			e.Strength = 0
			opSameFloats(t, op+" at strength 0", src, opRender(t, src, 3, e))
		})
	}
}

// A mask that is zero everywhere (here: every luminance selected, then inverted; and a
// full-frame rectangle, inverted) leaves the image exactly as it was.
func TestRenderZeroMaskIsIdentity(t *testing.T) {
	src := opPhoto(t, "astronaut")
	masks := map[string]*Mask{
		"inverted full range": {Ranges: []RangeFilter{{Channel: "luminance", Min: 0, Max: 1}}, Invert: true},
		"inverted full frame": {Shape: &Shape{Kind: "rectangle", X: 0, Y: 0, Width: 1, Height: 1}, Invert: true},
	}
	for _, op := range Operations() {
		if st, _ := OpStage(op); st == "geometry" {
			continue
		}
		for name, m := range masks {
			t.Run(op+"/"+name, func(t *testing.T) {
				e := opSample(t, op)
				e.Mask = m
				opSameFloats(t, op+" under a zero mask", src, opRender(t, src, 3, e))
			})
		}
	}
}

func TestRenderExposureScalesExactly(t *testing.T) {
	for _, name := range opTestPhotos {
		src := opPhoto(t, name)
		for _, ev := range []float64{1, -1, 2} {
			got := opRender(t, src, 0, opEdit("exposure", Args{"ev": ev}))
			want := src.Clone()
			k := float32(math.Exp2(ev))
			for i := range want.Pix {
				want.Pix[i] *= k
			}
			opSameFloats(t, name+" exposure", want, got)
		}
	}
}

func TestRenderFlipAndQuarterTurnsAreExact(t *testing.T) {
	flip := func(h, v bool) Edit { return opEdit("flip", Args{"horizontal": h, "vertical": v}) }
	rot := func(deg float64) Edit { return opEdit("rotate", Args{"angle": deg, "auto_crop": false}) }
	tests := []struct {
		name  string
		edits []Edit
	}{
		{"flip horizontal twice", []Edit{flip(true, false), flip(true, false)}},
		{"flip vertical twice", []Edit{flip(false, true), flip(false, true)}},
		{"flip both twice", []Edit{flip(true, true), flip(true, true)}},
		{"rotate 90 four times", []Edit{rot(90), rot(90), rot(90), rot(90)}},
		{"rotate -90 four times", []Edit{rot(-90), rot(-90), rot(-90), rot(-90)}},
		{"rotate 180 twice", []Edit{rot(180), rot(-180)}},
		{"rotate 90 then -90", []Edit{rot(90), rot(-90)}},
		{"rotate 180 is flip both", []Edit{rot(180), flip(true, true)}},
	}
	for _, name := range opTestPhotos {
		src := opPhoto(t, name)
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				opSameFloats(t, tc.name, src, opRender(t, src, 0, tc.edits...))
			})
		}
	}
}

func TestRenderQuarterTurnMovesPixels(t *testing.T) {
	src := opPhoto(t, "chelsea")
	got := opRender(t, src, 0, opEdit("rotate", Args{"angle": 90.0, "auto_crop": false}))
	if got.W != src.H || got.H != src.W {
		t.Fatalf("rotate 90: %dx%d, want %dx%d", got.W, got.H, src.H, src.W)
	}
	// Clockwise: the source's bottom left corner becomes the top left.
	for _, p := range [][2]int{{0, 0}, {5, 17}, {got.W - 1, got.H - 1}} {
		x, y := p[0], p[1]
		sx, sy := y, src.H-1-x
		want := src.Pix[3*(sy*src.W+sx) : 3*(sy*src.W+sx)+3]
		if diff := cmp.Diff(want, got.Pix[3*(y*got.W+x):3*(y*got.W+x)+3]); diff != "" {
			t.Errorf("pixel (%d, %d) (-want +got):\n%s", x, y, diff)
		}
	}
}

func TestRenderCropSizeAndContent(t *testing.T) {
	src := opPhoto(t, "coffee") // 600x400
	tests := []struct {
		left, right, top, bottom float64
		x0, y0, w, h             int
	}{
		{0.1, 0, 0, 0.25, 60, 0, 540, 300},
		{0.45, 0.45, 0.45, 0.45, 270, 180, 60, 40},
		{0.0025, 0.0025, 0, 0, 2, 0, 596, 400}, // 1.5 px rounds away from zero on both sides
		{0.001, 0, 0.001, 0, 1, 0, 599, 400},   // 0.6 px rounds to 1, 0.4 px to 0
	}
	for _, tc := range tests {
		got := opRender(t, src, 0, opEdit("crop", Args{"left": tc.left, "right": tc.right, "top": tc.top, "bottom": tc.bottom}))
		if got.W != tc.w || got.H != tc.h {
			t.Errorf("crop %v %v %v %v: %dx%d, want %dx%d", tc.left, tc.right, tc.top, tc.bottom, got.W, got.H, tc.w, tc.h)
			continue
		}
		want := NewImage(tc.w, tc.h)
		for y := range tc.h {
			copy(want.Pix[3*y*tc.w:3*(y+1)*tc.w], src.Pix[3*((tc.y0+y)*src.W+tc.x0):])
		}
		opSameFloats(t, "crop content", want, got)
	}
}

func TestRenderRunsInStageOrder(t *testing.T) {
	src := opPhoto(t, "chelsea")
	exposure := opEdit("exposure", Args{"ev": 0.5})
	contrast := opSample(t, "contrast")
	vignette := opSample(t, "vignette")
	crop := opSample(t, "crop")
	want := opRender(t, opRender(t, opRender(t, opRender(t, src, 0, crop), 0, exposure), 0, contrast), 0, vignette)
	for _, order := range [][]Edit{
		{vignette, contrast, exposure, crop},
		{contrast, crop, vignette, exposure},
		{crop, exposure, contrast, vignette},
	} {
		opSameFloats(t, "stage order", want, opRender(t, src, 0, order...))
	}
	// Within a stage, list order is kept: contrast then curve differs from curve then
	// contrast, and each matches doing them one at a time.
	curve := opSample(t, "curve")
	a := opRender(t, src, 0, contrast, curve)
	opSameFloats(t, "contrast then curve", opRender(t, opRender(t, src, 0, contrast), 0, curve), a)
	b := opRender(t, src, 0, curve, contrast)
	if slices.Equal(a.Pix, b.Pix) {
		t.Error("contrast and curve commute, so this test cannot tell their order")
	}
}

func TestRenderBlendsByMaskAndStrength(t *testing.T) {
	src := opPhoto(t, "coffee")
	left := &Mask{Shape: &Shape{Kind: "rectangle", X: 0, Y: 0, Width: 0.5, Height: 1}}
	e := opEdit("exposure", Args{"ev": 1.0})
	e.Mask = left
	got := opRender(t, src, 0, e)
	for y := 0; y < src.H; y += 37 {
		for _, x := range []int{0, 100, 298, 302, 450, 599} {
			i := 3 * (y*src.W + x)
			want := src.Pix[i]
			if x < 299 {
				want *= 2
			}
			if x != 299 && x != 300 && got.Pix[i] != want {
				t.Errorf("masked exposure at (%d, %d): %v, want %v", x, y, got.Pix[i], want)
			}
		}
	}
	half := opEdit("exposure", Args{"ev": 1.0})
	half.Strength = 0.25
	got = opRender(t, src, 0, half)
	for i := 0; i < len(src.Pix); i += 997 {
		if want := src.Pix[i] * 1.25; math.Abs(float64(got.Pix[i]-want)) > 1e-6 {
			t.Fatalf("strength 0.25 of +1 EV at %d: %v, want %v", i, got.Pix[i], want)
		}
	}
}

// Geometry is all or nothing: any strength above 0 applies it fully.
func TestRenderGeometryIgnoresPartialStrength(t *testing.T) {
	src := opPhoto(t, "chelsea")
	for _, op := range []string{"rotate", "crop", "flip", "random_crop"} {
		full := opSample(t, op)
		half := full
		half.Strength = 0.5
		opSameFloats(t, op+" at strength 0.5", opRender(t, src, 2, full), opRender(t, src, 2, half))
	}
}

func TestRenderErrors(t *testing.T) {
	src := opPhoto(t, "chelsea")
	tests := []struct {
		name string
		src  *Image
		edit Edit
		code string
	}{
		{"unknown operation", src, opEdit("lomo", Args{}), darkroom.InvalidInput},
		{"missing argument", src, opEdit("exposure", Args{}), darkroom.InvalidInput},
		{"argument of the wrong type", src, opEdit("exposure", Args{"ev": "one"}), darkroom.InvalidInput},
		{"NaN argument", src, opEdit("exposure", Args{"ev": math.NaN()}), darkroom.InvalidInput},
		{"unknown enum value", src, opEdit("blur", Args{"kind": "lens", "radius": 0.01, "angle": 0.0}), darkroom.InvalidInput},
		{"curve inputs not increasing", src, opEdit("curve", Args{"channel": "rgb", "points": [][2]float64{{0, 0}, {0.5, 0.2}, {0.5, 0.8}, {1, 1}}}), darkroom.InvalidInput},
		{"strength above 1", src, Edit{Op: "exposure", Args: Args{"ev": 1.0}, Strength: 1.5}, darkroom.InvalidInput},
		{"strength NaN", src, Edit{Op: "exposure", Args: Args{"ev": 1.0}, Strength: math.NaN()}, darkroom.InvalidInput},
		{"mask on geometry", src, Edit{Op: "flip", Args: Args{"horizontal": true, "vertical": false}, Strength: 1, Mask: &Mask{Invert: true}}, darkroom.MaskingError},
		{"bad mask", src, Edit{Op: "exposure", Args: Args{"ev": 1.0}, Strength: 1, Mask: &Mask{Shape: &Shape{Kind: "star"}}}, darkroom.MaskingError},
		{"no source", nil, opEdit("exposure", Args{"ev": 1.0}), darkroom.RenderError},
		{"malformed source", &Image{W: 3, H: 3, Pix: make([]float32, 5)}, opEdit("exposure", Args{"ev": 1.0}), darkroom.RenderError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(tc.src, []Edit{tc.edit}, RenderOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			if got := darkroom.Code(err); got != tc.code {
				t.Errorf("code %s, want %s (error: %v)", got, tc.code, err)
			}
			if msg := err.Error(); msg == "" || msg[0] < 'a' || msg[0] > 'z' {
				t.Errorf("error %q does not start in lower case", msg)
			}
		})
	}
}

var opSeeded = []string{"grain", "noise", "cutout", "random_crop",
	"channel_shuffle", "multiplicative_noise", "iso_noise", "fog", "shadow", "rain", "perspective", "elastic", "grid_distortion",
	"grid_shuffle", "channel_dropout", "shot_noise", "salt_and_pepper", "pixel_dropout",
	"random_tone_curve", "fancy_pca", "grid_dropout", "plasma", "xy_masking", "border_crop", "glass_blur"}

func TestRenderSeeds(t *testing.T) {
	src := opPhoto(t, "coffee")
	for _, op := range opSeeded {
		t.Run(op, func(t *testing.T) {
			e := opSample(t, op)
			a := opRender(t, src, 42, e)
			opSameFloats(t, "same seed", a, opRender(t, src, 42, e))
			b := opRender(t, src, 43, e)
			if a.W == b.W && a.H == b.H && slices.Equal(a.Pix, b.Pix) {
				t.Error("seeds 42 and 43 render the same bytes")
			}
			// Two entries of one operation draw different numbers.
			// A random crop twice and a shuffle twice may land where one would.
			if op != "random_crop" && op != "channel_shuffle" && op != "channel_dropout" && op != "border_crop" {
				twice := opRender(t, src, 42, e, e)
				once := opRender(t, a, 42, e)
				if slices.Equal(twice.Pix, once.Pix) {
					t.Error("the second entry reused the first entry's random numbers")
				}
			}
		})
	}
}

// The bytes do not depend on how many cores split the rows.
func TestRenderIndependentOfCores(t *testing.T) {
	src := opPhoto(t, "astronaut")
	var edits []Edit
	for _, op := range Operations() {
		if op != "random_crop" && op != "crop" && op != "rotate" {
			edits = append(edits, opSample(t, op))
		}
	}
	prev := runtime.GOMAXPROCS(1)
	one := opRender(t, src, 9, edits...)
	runtime.GOMAXPROCS(5)
	five := opRender(t, src, 9, edits...)
	runtime.GOMAXPROCS(prev)
	opSameFloats(t, "1 core vs 5", one, five)
}

// An unrelated edit does not reshuffle a seeded one's random numbers.
func TestRenderSeedStableAcrossUnrelatedEdits(t *testing.T) {
	src := opPhoto(t, "chelsea")
	grain := opSample(t, "grain")
	a := opRender(t, src, 5, grain)
	b := opRender(t, src, 5, opEdit("exposure", Args{"ev": 0.0}), grain)
	opSameFloats(t, "grain after a neutral exposure", a, b)
}

// An edit whose mask reaches only some rows leaves every other row exactly as it was,
// and renders the rows it reaches as the unmasked edit does where the mask is 1:
// whether the operation renders only those rows (a band operation) or the whole image
// (a blur, which reaches across rows).
func TestMaskedRowsOnly(t *testing.T) {
	src := opPhoto(t, "coffee")
	band := &Mask{Shape: &Shape{Kind: "rectangle", X: -0.1, Y: 0.3, Width: 1.2, Height: 0.2}}
	for _, op := range []string{"saturation", "vignette", "noise", "blur"} {
		whole := opRender(t, src, 5, opSample(t, op))
		e := opSample(t, op)
		e.Mask = band
		got := opRender(t, src, 5, e)
		w := src.W
		for y := range src.H {
			row := got.Pix[3*y*w : 3*(y+1)*w]
			switch {
			case y < int(0.3*float64(src.H))-2 || y > int(0.5*float64(src.H))+2:
				if !slices.Equal(row, src.Pix[3*y*w:3*(y+1)*w]) {
					t.Errorf("%s: row %d is outside the mask but changed", op, y)
				}
			case y > int(0.3*float64(src.H))+2 && y < int(0.5*float64(src.H))-2:
				if !slices.Equal(row, whole.Pix[3*y*w:3*(y+1)*w]) {
					t.Errorf("%s: row %d is inside the mask but differs from the unmasked edit", op, y)
				}
			}
		}
	}
}

// Renders hand the buffers they drop to later renders: an image a render returned
// must never be one of them, whatever operations made it.
func TestRenderResultsOutliveLaterRenders(t *testing.T) {
	src := opShrink(opPhoto(t, "coffee"), 4)
	var outs []*Image
	var copies [][]float32
	for _, op := range Operations() {
		e := opSample(t, op)
		if maskable := catalog[op].stage != "geometry"; maskable {
			e.Strength = 0.6
		}
		out := opRender(t, src, 9, e, opSample(t, "exposure"), opSample(t, "saturation"))
		outs = append(outs, out)
		copies = append(copies, slices.Clone(out.Pix))
	}
	for _, op := range Operations() {
		opRender(t, src, 10, opSample(t, op), opSample(t, "noise"))
	}
	for i, op := range Operations() {
		if !slices.Equal(outs[i].Pix, copies[i]) {
			t.Errorf("the render with %s changed after later renders", op)
		}
	}
}

// RenderOwned renders what Render renders, bit for bit. Per-pixel tone edits change
// the given image in place; anything else leaves it to be recycled; and a render
// that fails leaves it as it was, even when an edit before the failing one was
// read (the pixels are written only once every edit is).
func TestRenderOwned(t *testing.T) {
	src := opPhoto(t, "chelsea")
	exposure := Edit{Op: "exposure", Args: Args{"ev": 0.4}, Strength: 1}
	contrast := Edit{Op: "contrast", Args: Args{"amount": 0.3}, Strength: 1}
	flip := Edit{Op: "flip", Args: Args{"horizontal": true, "vertical": false}, Strength: 1}
	half := exposure
	half.Strength = 0.5
	for _, c := range []struct {
		name    string
		edits   []Edit
		inPlace bool
	}{
		{"tone", []Edit{exposure, contrast}, true},
		{"nothing", nil, true},
		{"flip then tone", []Edit{flip, exposure}, false},
		{"half strength", []Edit{half}, false},
	} {
		want, err := Render(src, c.edits, RenderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		given := src.Clone()
		got, err := RenderOwned(given, c.edits, RenderOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if i, ok := sameBits(got.Pix, want.Pix); !ok || got.W != want.W {
			t.Fatalf("%s: value %d differs from Render's", c.name, i)
		}
		if inPlace := len(given.Pix) > 0 && &got.Pix[0] == &given.Pix[0]; inPlace != c.inPlace {
			t.Errorf("%s: rendered in place %v, want %v", c.name, inPlace, c.inPlace)
		}
	}
	bad := Edit{Op: "contrast", Args: Args{"amount": "much"}, Strength: 1}
	for _, edits := range [][]Edit{{exposure, bad}, {flip, bad}} {
		given := src.Clone()
		if _, err := RenderOwned(given, edits, RenderOptions{}); err == nil {
			t.Fatalf("%s, %s: no error for a contrast of %q", edits[0].Op, edits[1].Op, "much")
		}
		if i, ok := sameBits(given.Pix, src.Pix); !ok {
			t.Errorf("%s, %s: the failed render changed value %d of the given image", edits[0].Op, edits[1].Op, i)
		}
	}
}
