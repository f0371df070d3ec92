package augment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

var (
	testAugOnce sync.Once
	testAug     *Augmenter
	testAugErr  error
)

// testFacts are the contract's facts as the editor makes them (edit.AugmentFacts,
// which this package's tests cannot import).
func testFacts(c *contract.Contract, v *vocab.Vocabulary) (Facts, error) {
	defs, err := c.OperationDefaults()
	if err != nil {
		return Facts{}, err
	}
	checked, err := c.AlbumentationsMap()
	if err != nil {
		return Facts{}, err
	}
	m, err := NewAlbuMap(checked)
	if err != nil {
		return Facts{}, err
	}
	m.Defaults = defs
	explain := func(e *vocab.Entry, values json.RawMessage) error {
		var given map[string]float64
		if err := json.Unmarshal(values, &given); err != nil {
			return err
		}
		_, err := e.DerivedValues(given)
		return err
	}
	return Facts{Defaults: defs, Albumentations: m, Explain: explain}, nil
}

func augmenter(t testing.TB) *Augmenter {
	t.Helper()
	c, v := packtest.Builtin(t)
	testAugOnce.Do(func() {
		var f Facts
		if f, testAugErr = testFacts(c, v); testAugErr == nil {
			testAug = New(v, f)
		}
	})
	if testAugErr != nil {
		t.Fatalf("the contract's facts: %v", testAugErr)
	}
	return testAug
}

// testImage is a small image with structure everywhere, so that every transform
// changes its bytes.
func testImage(w, h int) *engine.Image {
	m := engine.NewImage(w, h)
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			m.Pix[i] = float32(x) / float32(w)
			m.Pix[i+1] = float32(y) / float32(h)
			m.Pix[i+2] = float32((x/7+y/5)%2) * 0.6
		}
	}
	return m
}

// mixed draws from ranges, fires steps by chance and uses the engine's seeded
// operations (random crop, noise, cutout, elastic).
var mixed = Pipeline{
	{Entry: "rotate", Params: map[string]Value{"angle": {-20, 20}}, P: 0.8},
	{Entry: "random_resized_crop", Params: map[string]Value{"scale": {0.4, 0.9}}, P: 1},
	{Entry: "brightness_contrast", Params: map[string]Value{"brightness": {-0.5, 0.5}, "contrast": Fixed(0.2)}, P: 0.7},
	{Entry: "gaussian_noise", Params: map[string]Value{"sigma": {0.02, 0.08}}, P: 1},
	{Entry: "cutout", Params: map[string]Value{"holes": {1, 4}}, P: 0.5},
	{Entry: "elastic_transform", Params: map[string]Value{"alpha": {0.01, 0.03}}, P: 0.5},
	{Entry: "flip_horizontal", P: 0.5},
}

func encodeAll(t *testing.T, vs []*Variant) [][]byte {
	t.Helper()
	out := make([][]byte, len(vs))
	for i, v := range vs {
		var b bytes.Buffer
		if err := Encode(&b, v.Image, "PNG", 0); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
	}
	return out
}

func run(t *testing.T, p Pipeline, seed uint64, count int) []*Variant {
	t.Helper()
	vs, err := augmenter(t).Run(testImage(64, 48), p, seed, count, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return vs
}

func TestSameSeedSameBytes(t *testing.T) {
	a, b := encodeAll(t, run(t, mixed, 7, 4)), encodeAll(t, run(t, mixed, 7, 4))
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("variant %d differs between two runs with seed 7", i)
		}
	}
	// The variants of one batch differ from each other, or the seed did nothing.
	for i := 1; i < len(a); i++ {
		if bytes.Equal(a[0], a[i]) {
			t.Errorf("variants 0 and %d are identical", i)
		}
	}
}

func TestSeedsDiffer(t *testing.T) {
	a, b := encodeAll(t, run(t, mixed, 7, 3)), encodeAll(t, run(t, mixed, 8, 3))
	for i := range a {
		if bytes.Equal(a[i], b[i]) {
			t.Errorf("variant %d is the same with seeds 7 and 8", i)
		}
	}
}

func TestVariantIndependentOfCount(t *testing.T) {
	four, eight := run(t, mixed, 11, 4), run(t, mixed, 11, 8)
	a, b := encodeAll(t, four), encodeAll(t, eight)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("variant %d differs between count 4 and count 8", i)
		}
		if diff := cmp.Diff(four[i].Applied, eight[i].Applied, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())); diff != "" {
			t.Errorf("variant %d: applied transforms differ (-count 4 +count 8):\n%s", i, diff)
		}
	}
	one, err := augmenter(t).Variant(testImage(64, 48), mixed, 11, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := encodeAll(t, []*Variant{one}); !bytes.Equal(got[0], a[3]) {
		t.Errorf("Variant(n=3) differs from Run's variant 3")
	}
}

func TestCoreCountIndependent(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	a := encodeAll(t, run(t, mixed, 5, 3))
	runtime.GOMAXPROCS(2)
	b := encodeAll(t, run(t, mixed, 5, 3))
	runtime.GOMAXPROCS(prev)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("variant %d differs between GOMAXPROCS 1 and 2", i)
		}
	}
}

// TestSampling checks what the recorded draws say: values inside their ranges,
// integers whole, fixed values as given, and p steering how often a step fires.
func TestSampling(t *testing.T) {
	vs := run(t, mixed, 3, 64)
	fired := map[string]int{}
	for _, v := range vs {
		if len(v.Skipped) != 0 {
			t.Fatalf("variant %d skipped %v", v.Index, v.Skipped)
		}
		for _, ap := range v.Applied {
			if ap.Fired {
				fired[ap.Entry]++
			}
			for _, s := range mixed {
				if s.Entry != ap.Entry {
					continue
				}
				for name, r := range s.Params {
					got := ap.Values[name]
					if got < r.Lo || got > r.Hi {
						t.Errorf("%s.%s drew %v outside [%v, %v]", ap.Entry, name, got, r.Lo, r.Hi)
					}
				}
			}
			if ap.Entry == "cutout" && ap.Values["holes"] != float64(int(ap.Values["holes"])) {
				t.Errorf("cutout.holes drew %v, not a whole number", ap.Values["holes"])
			}
		}
	}
	if fired["random_resized_crop"] != 64 || fired["gaussian_noise"] != 64 {
		t.Errorf("steps with p 1 fired %d and %d times of 64", fired["random_resized_crop"], fired["gaussian_noise"])
	}
	if n := fired["flip_horizontal"]; n < 16 || n > 48 {
		t.Errorf("a step with p 0.5 fired %d times of 64", n)
	}
}

func TestPipelineJSON(t *testing.T) {
	in := `[{"entry":"rotate","params":{"angle":[-15,15]},"p":0.7},{"entry":"flip_horizontal"},{"entry":"gaussian_noise","params":{"sigma":0.05},"p":0}]`
	var p Pipeline
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	want := Pipeline{
		{Entry: "rotate", Params: map[string]Value{"angle": {-15, 15}}, P: 0.7},
		{Entry: "flip_horizontal", P: 1},
		{Entry: "gaussian_noise", Params: map[string]Value{"sigma": Fixed(0.05)}, P: 0},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("decoded pipeline (-want +got):\n%s", diff)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back Pipeline
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("config.json does not round-trip (-want +got):\n%s", diff)
	}
	// config.json fed back reproduces the bytes.
	a := encodeAll(t, run(t, mixed, 9, 2))
	cfg, err := json.Marshal(mixed)
	if err != nil {
		t.Fatal(err)
	}
	var again Pipeline
	if err := json.Unmarshal(cfg, &again); err != nil {
		t.Fatal(err)
	}
	b := encodeAll(t, run(t, again, 9, 2))
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("variant %d differs when the pipeline goes through config.json", i)
		}
	}
	for _, bad := range []string{`[{"entry":"rotate","params":{"angle":[1,2,3]}}]`, `[{"entry":"rotate","params":{"angle":"x"}}]`} {
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s decoded without error", bad)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Pipeline
		path string
	}{
		{"p above 1", Pipeline{{Entry: "rotate", P: 1.5}}, "pipeline[0].p"},
		{"empty range", Pipeline{{Entry: "flip_horizontal", P: 1}, {Entry: "rotate", Params: map[string]Value{"angle": {10, -10}}, P: 1}}, "pipeline[1].params.angle"},
		{"unknown parameter", Pipeline{{Entry: "rotate", Params: map[string]Value{"degrees": Fixed(3)}, P: 1}}, "pipeline[0].params.degrees"},
		{"fractional integer", Pipeline{{Entry: "random_rotate_90", Params: map[string]Value{"turns": {0.5, 2}}, P: 1}}, "pipeline[0].params.turns"},
		{"range beyond the entry's", Pipeline{{Entry: "rotate", Params: map[string]Value{"angle": {0, 200}}, P: 1}}, "pipeline[0].params.angle"},
	} {
		err := augmenter(t).Check(tc.p)
		var de *darkroom.Error
		if !errors.As(err, &de) || de.Code != darkroom.InvalidInput {
			t.Errorf("%s: Check = %v, want invalid_input", tc.name, err)
			continue
		}
		if b, _ := json.Marshal(de.Details); !bytes.Contains(b, []byte(`"`+tc.path+`"`)) {
			t.Errorf("%s: details %s do not name %s (message %q)", tc.name, b, tc.path, err)
		}
	}
	if _, err := augmenter(t).Run(testImage(8, 8), mixed, 1, 65, nil); darkroom.Code(err) != darkroom.InvalidInput {
		t.Errorf("count 65: %v, want invalid_input", err)
	}
}

func TestSkippedUnknownEntry(t *testing.T) {
	p := Pipeline{{Entry: "no_such_entry", P: 1}, {Entry: "flip_horizontal", P: 1}}
	vs := run(t, p, 1, 1)
	want := []Skipped{{Entry: "no_such_entry", Reason: `no vocabulary entry "no_such_entry"`, Code: darkroom.NotFound}}
	if diff := cmp.Diff(want, vs[0].Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(vs[0].Applied) != 1 || !vs[0].Applied[0].Fired {
		t.Errorf("the flip after the skipped step was not applied: %+v", vs[0].Applied)
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[string]string{"PNG": "png", "jpeg": "jpeg", "JPG": "jpeg", "WEBP": "webp", "webp": "webp"} {
		if got, err := Format(in); err != nil || got != want {
			t.Errorf("Format(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Format("gif"); darkroom.Code(err) != darkroom.InvalidInput {
		t.Errorf("Format(gif): %v, want invalid_input", err)
	}
}

// TestDefaultMask: an entry with a default mask is applied through it, as on the
// editing path: dramatic_sky (sky_gradient, the top of the frame) darkens the top
// and leaves the bottom row exactly as it was.
func TestDefaultMask(t *testing.T) {
	src := testImage(64, 48)
	v := run(t, Pipeline{{Entry: "dramatic_sky", P: 1}}, 1, 1)[0]
	last := 3 * 47 * 64
	if !slices.Equal(v.Image.Pix[last:], src.Pix[last:]) {
		t.Error("dramatic_sky changed the bottom row, outside its sky mask")
	}
	if slices.Equal(v.Image.Pix[:3*64], src.Pix[:3*64]) {
		t.Error("dramatic_sky left the top row unchanged")
	}
}

// A step's interpolation: linear unless it asks for cubic, which renders its warp
// differently; a step with no warp renders the same either way; any other value is
// refused naming the field.
func TestStepInterpolation(t *testing.T) {
	a := augmenter(t)
	src := testImage(96, 64)
	render := func(s Step) []float32 {
		t.Helper()
		v, err := a.Variant(src, Pipeline{s}, 3, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Skipped) > 0 {
			t.Fatalf("skipped: %+v", v.Skipped)
		}
		return v.Image.Pix
	}
	rot := Step{Entry: "rotate", P: 1, Params: map[string]Value{"angle": Fixed(10)}}
	def, lin := render(rot), render(Step{Entry: rot.Entry, P: 1, Params: rot.Params, Interpolation: "linear"})
	cub := render(Step{Entry: rot.Entry, P: 1, Params: rot.Params, Interpolation: "cubic"})
	if !slices.Equal(def, lin) {
		t.Error("the default is not linear")
	}
	if slices.Equal(lin, cub) {
		t.Error("cubic renders the rotation as linear does")
	}
	flip := Step{Entry: "flip_horizontal", P: 1}
	if !slices.Equal(render(flip), render(Step{Entry: flip.Entry, P: 1, Interpolation: "cubic"})) {
		t.Error("a flip depends on the interpolation")
	}
	err := a.Check(Pipeline{flip, {Entry: rot.Entry, P: 1, Interpolation: "nearest"}})
	if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(fmt.Sprint(err), "pipeline[1]") {
		t.Errorf("interpolation nearest: %v, want invalid_input naming pipeline[1]", err)
	}
}

// Remembered operation checks answer what the contract answers, call after call:
// the same arguments again, other values, and arguments the contract refuses.
// TestCheckRemembered: one Augmenter checking pipelines again and again (as a
// dataset run does, once per image) answers each as a fresh check does, whatever
// it accepted before.
func TestCheckRemembered(t *testing.T) {
	a := augmenter(t)
	rot := func(lo, hi float64) Pipeline {
		return Pipeline{{Entry: "flip_horizontal", P: 1}, {Entry: "rotate", Params: map[string]Value{"angle": {lo, hi}}, P: 0.5}}
	}
	for i, p := range []Pipeline{
		rot(-10, 10), rot(-10, 10), rot(-10, 200), rot(-10, 10), rot(10, -10), rot(-10, 10.000000001), rot(-10, 180.0000001),
		{{Entry: "rotate", P: 1}}, {{Entry: "rotate", P: 1.5}}, {{Entry: "rotate", P: 1, Interpolation: "nearest"}},
	} {
		want := augmenter(t).Check(p)
		got := a.Check(p)
		if (want == nil) != (got == nil) || darkroom.Code(want) != darkroom.Code(got) {
			t.Errorf("pipeline %d: Check = %v after the others, %v fresh", i, got, want)
		}
	}
}

// A variant that owns its source (a dataset worker's decoded image, changed in place
// by tone steps) has every value of the variant made from a borrowed one, which
// leaves the source alone, whichever steps fire.
func TestVariantOwnedSameAsVariant(t *testing.T) {
	a := augmenter(t)
	src := testImage(64, 48)
	tone := Step{Entry: "brightness_contrast", Params: map[string]Value{"brightness": {-0.5, 0.5}, "contrast": Fixed(0.3)}, P: 0.7}
	for _, p := range []Pipeline{append(Pipeline{tone}, mixed...), append(slices.Clone(mixed), tone)} {
		for n := range 8 {
			want, err := a.Variant(src, p, 7, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			given := src.Clone()
			got, err := a.VariantOwned(given, p, 7, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Image.Pix, want.Image.Pix) || got.OutW != want.OutW {
				t.Errorf("variant %d of a pipeline starting with %s: the owned source gives other values", n, p[0].Entry)
			}
		}
	}
	if !slices.Equal(src.Pix, testImage(64, 48).Pix) {
		t.Error("Variant changed the image it was lent")
	}
}

// A variant evaluates nothing with CUE: its steps' values were checked with the
// pipeline, and their edits are completed from the contract's facts.
func TestVariantsEvaluateNothing(t *testing.T) {
	a := augmenter(t)
	p := Pipeline{
		{Entry: "flip_horizontal", P: 1},
		{Entry: "rotate", P: 1, Params: map[string]Value{"angle": {-10, 10}}},
		{Entry: "brightness_contrast", P: 0.5, Params: map[string]Value{"brightness": Fixed(0.26), "contrast": {0.1, 0.2}}},
		{Entry: "gaussian_blur", P: 1, Params: map[string]Value{"radius": Fixed(0.00146)}},
		{Entry: "vignette", P: 1},
		{Entry: "no_such_entry", P: 1},
	}
	if err := a.Check(p); err != nil {
		t.Fatal(err)
	}
	before := contract.Evaluations()
	for n := range 4 {
		v, err := a.Variant(testImage(32, 24), p, 3, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Skipped) != 1 {
			t.Errorf("variant %d skipped %v, want only no_such_entry", n, v.Skipped)
		}
	}
	if n := contract.Evaluations() - before; n != 0 {
		t.Errorf("4 variants of a checked pipeline made %d CUE evaluations, want 0", n)
	}
}

// A step of flips rendered together with the warp after it gives the variant of
// rendering the steps one by one: the same pixels, records, annotations and
// dropped annotations, wherever the flips stand, whatever fires between, with the
// source lent or given.
func TestHeldFlipSameAsStepByStep(t *testing.T) {
	a := augmenter(t)
	src := testImage(64, 48)
	flipH := Step{Entry: "flip_horizontal", P: 0.7}
	flipV := Step{Entry: "flip_vertical", P: 0.7}
	rotate := Step{Entry: "rotate", Params: map[string]Value{"angle": {-30, 30}}, P: 0.8}
	affine := Step{Entry: "affine", Params: map[string]Value{"scale": {0.8, 1.2}, "translate_x": {-0.1, 0.1}}, P: 1}
	tone := Step{Entry: "brightness_contrast", Params: map[string]Value{"brightness": {-0.3, 0.3}}, P: 0.5}
	blur := Step{Entry: "gaussian_blur", Params: map[string]Value{"radius": Fixed(0.01)}, P: 1}
	pipelines := []Pipeline{
		{flipH, rotate},
		{flipV, affine, tone},
		{flipH, flipV, rotate, blur},
		{flipH, tone, rotate},
		{flipV, {Entry: "no_such_entry", P: 1}, affine},
		{rotate, flipH},
		{flipH, blur, affine},
		{flipH, {Entry: "rotate", Params: map[string]Value{"angle": Fixed(90)}, P: 1}},
	}
	boxes := [][4]float64{{3, 4, 30, 30}, {40, 2, 63, 20}}
	for pi, p := range pipelines {
		for n := range 8 {
			for _, own := range []bool{false, true} {
				ann := &Annotations{Boxes: &Boxes{Format: "pascal_voc", Boxes: boxes}, Keypoints: &Keypoints{Points: [][2]float64{{10, 10}, {60, 40}}}}
				img := src
				if own {
					img = src.Clone()
				}
				got, err := a.checkedVariant(img, p, 11, n, ann, own)
				if err != nil {
					t.Fatal(err)
				}
				want := stepByStep(t, a, src, p, 11, n, ann)
				name := fmt.Sprintf("pipeline %d, variant %d, own %v", pi, n, own)
				if !slices.Equal(got.Image.Pix, want.Image.Pix) || got.OutW != want.OutW || got.OutH != want.OutH {
					t.Errorf("%s: the pixels differ from rendering step by step", name)
				}
				got.Image, want.Image = nil, nil
				if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())); diff != "" {
					t.Errorf("%s: (-step by step +held)\n%s", name, diff)
				}
			}
		}
	}
	if !slices.Equal(src.Pix, testImage(64, 48).Pix) {
		t.Error("a variant changed the image it was lent")
	}
}

// stepByStep is the reference for a variant: each fired step rendered on its own
// with engine.Render, one after the other, its geometry maps moving the
// annotations, a step that fails skipped.
func stepByStep(t *testing.T, a *Augmenter, src *engine.Image, p Pipeline, seed uint64, n int, ann *Annotations) *Variant {
	t.Helper()
	v := &Variant{Index: n, InW: src.W, InH: src.H}
	tr := newTracker(ann, src.W, src.H)
	cur := src.Clone()
	for _, ev := range p.firing(seed, n) {
		s := p[ev.t]
		e, ok := a.Vocab.Entry(s.Entry)
		if !ok {
			v.Skipped = append(v.Skipped, Skipped{s.Entry, fmt.Sprintf("no vocabulary entry %q", s.Entry), darkroom.NotFound})
			continue
		}
		key := repKey(stepKey(seed, n, ev.t), ev.rep)
		values := sample(key, s, e)
		rec := Applied{Entry: s.Entry, Values: values, P: s.P, Fired: ev.fired}
		if !rec.Fired {
			v.Applied = append(v.Applied, rec)
			continue
		}
		edits, err := a.edits(e, values)
		opt := s.renderOptions(renderSeed(key))
		var maps []engine.GeoMap
		if err == nil && tr != nil {
			maps, err = engine.GeometryMaps(cur.W, cur.H, edits, opt)
		}
		var out *engine.Image
		if err == nil {
			out, err = engine.Render(cur, edits, opt)
		}
		if err != nil {
			v.Skipped = append(v.Skipped, Skipped{s.Entry, err.Error(), darkroom.Code(err)})
			continue
		}
		for m := range maps {
			tr.apply(&maps[m])
		}
		cur = out
		v.Applied = append(v.Applied, rec)
	}
	v.Image, v.OutW, v.OutH = cur, cur.W, cur.H
	if tr != nil {
		v.Annotations, v.Dropped = tr.result(cur.W, cur.H)
	}
	return v
}
