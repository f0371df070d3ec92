package augment

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
)

// shape writes a pipeline's tree: steps as entry:p, groups as kind(p n replace)[...].
func shape(p Pipeline) string {
	var w func(nodes []node) string
	w = func(nodes []node) string {
		var parts []string
		for _, nd := range nodes {
			if nd.g == nil {
				parts = append(parts, fmt.Sprintf("%s:%v", p[nd.t].Entry, p[nd.t].P))
				continue
			}
			g := nd.g
			head := fmt.Sprintf("%s(%v", g.Kind, g.P)
			if g.Kind == "some_of" {
				head += fmt.Sprintf(" n%d replace=%v", g.N, g.Replace)
			}
			parts = append(parts, head+")["+w(nd.kids)+"]")
		}
		return strings.Join(parts, ", ")
	}
	return w(p.tree(0, len(p), 0))
}

// nestedWant is nested.json (make_testdata.py) as darkroom reads it: containers
// three deep, Normalize (which darkroom cannot do) left out of its OneOf, the
// Sequential picked by the SomeOf a group of weight 0.5 whose first transform runs
// whatever its p.
const nestedWant = "flip_horizontal:0.5, " +
	"some_of(0.9 n2 replace=false)[one_of(1)[blur:1, gaussian_blur:0], " +
	"sequential(0.5)[shift_scale_rotate:1, one_or_other(0.3)[random_gamma:1, to_gray:1]], rgb_shift:0.5], " +
	"one_or_other(0.6)[one_of(1)[flip_vertical:0.5, transpose:0.5], one_of(1)[random_brightness:0.5, to_sepia:0.5]]"

// TestImportNested: a pipeline albumentations 1.3.1 saved with containers three deep
// loads with its nesting, names the transform it cannot do and where it sits, and
// runs: the same seed gives the same bytes.
func TestImportNested(t *testing.T) {
	a := augmenter(t)
	imp := importFile(t, "nested.json", 600, 400)
	if got := shape(imp.Pipeline); got != nestedWant {
		t.Errorf("nested.json read as\n%s\nwant\n%s", got, nestedWant)
	}
	var skipped []string
	for _, s := range imp.Skipped {
		skipped = append(skipped, s.Entry+": "+s.Reason+" ["+s.Code+"]")
	}
	want := []string{"Normalize: darkroom writes image files; normalisation to floats belongs in the training loop (in OneOf in SomeOf) [invalid_input]"}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if imp.BoxFormat != "pascal_voc" {
		t.Errorf("bbox_params format read as %q", imp.BoxFormat)
	}
	run := func() []*Variant {
		vs, err := a.Run(testImage(600, 400), imp.Pipeline, 7, 8, nil)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return vs
	}
	first, again := run(), run()
	for i := range first {
		if !slices.Equal(first[i].Image.Pix, again[i].Image.Pix) {
			t.Errorf("variant %d: the same seed gave different pixels", i)
		}
		for _, ap := range first[i].Applied {
			if ap.Entry == "gaussian_blur" && ap.Fired {
				t.Errorf("variant %d: gaussian_blur (p 0 in its OneOf) fired", i)
			}
		}
	}
}

// TestNestedTooDeep: containers nested deeper than the contract's bound are refused
// with limit_exceeded, in an albumentations pipeline and in darkroom's own.
func TestNestedTooDeep(t *testing.T) {
	a, m := augmenter(t), albuMap(t)
	if m.MaxGroupDepth < 2 {
		t.Fatalf("max_group_depth %d from the contract", m.MaxGroupDepth)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "albumentations", "too-deep.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Import(data, a.Vocab, 100, 100)
	if darkroom.Code(err) != darkroom.LimitExceeded || !strings.Contains(err.Error(), fmt.Sprintf("at most %d deep", m.MaxGroupDepth)) {
		t.Errorf("too-deep.json: %v", err)
	}
	// As deep as allowed runs; one more is refused.
	chain := func(depth int) *Group {
		var g *Group
		for d := range depth {
			g = &Group{ID: d, Kind: "sequential", P: 1, N: 1, Replace: true, Parent: g}
		}
		return g
	}
	ok := Pipeline{{Entry: "flip_horizontal", P: 1, Group: chain(m.MaxGroupDepth)}}
	if _, err := a.Run(testImage(8, 8), ok, 1, 1, nil); err != nil {
		t.Errorf("groups %d deep: %v", m.MaxGroupDepth, err)
	}
	deep := Pipeline{{Entry: "flip_horizontal", P: 1, Group: chain(m.MaxGroupDepth + 1)}}
	if err := a.Check(deep); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("groups %d deep: %v", m.MaxGroupDepth+1, err)
	}
}

// TestNestedCheck: the members of a nested group are consecutive and describe it,
// and its parents, the same way.
func TestNestedCheck(t *testing.T) {
	a := augmenter(t)
	outer := &Group{ID: 0, Kind: "some_of", P: 1, N: 1, Replace: true}
	inner := &Group{ID: 1, Kind: "one_of", P: 1, N: 1, Replace: true, Parent: outer}
	other := &Group{ID: 1, Kind: "one_of", P: 0.5, N: 1, Replace: true, Parent: outer}
	self := &Group{ID: 0, Kind: "one_of", P: 1, N: 1, Replace: true, Parent: outer}
	step := func(g *Group) Step { return Step{Entry: "flip_horizontal", P: 1, Group: g} }
	for _, tc := range []struct {
		name string
		p    Pipeline
		want string // "" when it passes
	}{
		{"nested", Pipeline{step(outer), step(inner), step(inner)}, ""},
		{"described differently", Pipeline{step(inner), step(other)}, "pipeline[1].group: group 1 is described differently"},
		{"not consecutive", Pipeline{step(inner), step(outer), step(nil), step(outer)}, "pipeline[3].group: the members of group 0 are not consecutive"},
		{"holds itself", Pipeline{step(self)}, "pipeline[0].group.parent: group 0 holds itself"},
		{"one_or_other of three members", Pipeline{
			step(&Group{ID: 2, Kind: "one_or_other", P: 1, N: 1, Parent: outer}),
			step(&Group{ID: 2, Kind: "one_or_other", P: 1, N: 1, Parent: outer}),
			step(&Group{ID: 2, Kind: "one_or_other", P: 1, N: 1, Parent: outer})}, "a one_or_other group has 2 members, not 3"},
	} {
		err := a.Check(tc.p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestNestedFiring: nested containers choose as albumentations 1.3.1's do
// (core/composition.py), checked on nested.json over many seeds against the
// probabilities its rules give, and exactly where they leave no chance.
func TestNestedFiring(t *testing.T) {
	p := importFile(t, "nested.json", 600, 400).Pipeline
	// The SomeOf (p 0.9) draws 2 of 3 without replacement, weights 1, 0.5, 0.5
	// normalised to 1/2, 1/4, 1/4: drawn one after the other, each among those not
	// yet drawn (numpy's choice gives that distribution), the OneOf is among the two
	// in 1/2 + 2 (1/4)(1/2)/(3/4) = 5/6 of the draws, each other member in 7/12.
	// Measured with albumentations 1.3.1 itself on 40000 seeds, markers of the same p
	// in the same containers (scripts/albumentations/nested_frequencies.py), in the
	// order of want: 0.751, 0, 0.528, 0.160, 0.367, 0.521, 0.300, 0.298, 0.201,
	// 0.201, 0.502.
	const some = 0.9
	want := map[string]float64{
		"blur":               some * 5 / 6,
		"gaussian_blur":      0,
		"shift_scale_rotate": some * 7 / 12,       // the Sequential's first transform runs when it is picked
		"random_gamma":       some * 7 / 12 * 0.3, // OneOrOther: the first with its p
		"to_gray":            some * 7 / 12 * 0.7,
		"rgb_shift":          some * 7 / 12,
		"flip_vertical":      0.6 * 0.5,
		"transpose":          0.6 * 0.5,
		"random_brightness":  0.4 * 0.5,
		"to_sepia":           0.4 * 0.5,
		"flip_horizontal":    0.5,
	}
	const n = 20000
	count := map[string]int{}
	reordered := 0
	for v := range n {
		evs := p.firing(3, v)
		var order []string
		for _, e := range evs {
			if e.fired {
				count[p[e.t].Entry]++
				order = append(order, p[e.t].Entry)
			}
		}
		// Exactly one of each OneOf's members runs when its container picks it;
		// the SomeOf's two run in the order drawn.
		if slices.Contains(order, "rgb_shift") && slices.Contains(order, "blur") && slices.Index(order, "rgb_shift") < slices.Index(order, "blur") {
			reordered++
		}
		if !reflect.DeepEqual(evs, p.firing(3, v)) {
			t.Fatalf("variant %d: draws differ between calls", v)
		}
	}
	for entry, w := range want {
		got := float64(count[entry]) / n
		// Four standard deviations of a share of n draws.
		tol := 4 * math.Sqrt(w*(1-w)/n)
		if math.Abs(got-w) > tol || w == 0 && got != 0 {
			t.Errorf("%s fired in %.4f of variants, want %.4f ± %.4f", entry, got, w, tol)
		}
	}
	// The OneOf drawn second, after RGBShift: (1/4)(1/2)/(3/4) = 1/6 of the draws.
	if r := float64(reordered) / n; math.Abs(r-some/6) > 0.01 {
		t.Errorf("rgb_shift ran before blur in %.4f of variants, want %.4f", r, some/6)
	}
}

// TestSomeOfReplace: a SomeOf with replacement runs a member drawn twice twice, with
// values drawn anew, as albumentations does.
func TestSomeOfReplace(t *testing.T) {
	a := augmenter(t)
	g := &Group{ID: 0, Kind: "some_of", P: 1, N: 2, Replace: true}
	p := Pipeline{
		{Entry: "rotate", P: 1, Group: g, Params: map[string]Value{"angle": {-30, 30}}},
		{Entry: "flip_horizontal", P: 1, Group: g},
	}
	const n = 8000
	twice := 0
	for v := range n {
		runs := 0
		for _, e := range p.firing(5, v) {
			if e.t == 0 && e.fired {
				runs++
			}
		}
		if runs == 2 {
			twice++
		}
	}
	if r := float64(twice) / n; math.Abs(r-0.25) > 0.02 {
		t.Errorf("rotate drawn twice in %.3f of variants, want 0.25", r)
	}
	// Rendered: the two rotations of a variant draw different angles, and both
	// are in the variant's record.
	rot, _ := a.Vocab.Entry("rotate")
	found := false
	for v := 0; v < 64 && !found; v++ {
		var angles []float64
		for _, e := range p.firing(5, v) {
			if e.t == 0 && e.fired {
				angles = append(angles, sample(repKey(stepKey(5, v, 0), e.rep), p[0], rot)["angle"])
			}
		}
		if len(angles) == 2 {
			found = true
			if angles[0] == angles[1] {
				t.Errorf("variant %d: rotate ran twice with the same angle %v", v, angles[0])
			}
			vs, err := a.Run(testImage(32, 24), p, 5, v+1, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rec []float64
			for _, ap := range vs[v].Applied {
				if ap.Entry == "rotate" && ap.Fired {
					rec = append(rec, ap.Values["angle"])
				}
			}
			if !slices.Equal(rec, angles) {
				t.Errorf("variant %d: applied rotations %v, want %v", v, rec, angles)
			}
		}
	}
	if !found {
		t.Error("no variant drew rotate twice")
	}
}

// TestExportNested: albumentations.json keeps the nesting. nested-roundtrip.json is
// darkroom's albumentations.json for nested.json loaded with A.from_dict and written
// again with A.to_dict by albumentations 1.3.1 (scripts/albumentations/
// nested_roundtrip.py): the same containers, p, n and replace, every parameter
// darkroom writes kept, and it reads back into the same pipeline.
func TestExportNested(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	imp := importFile(t, "nested.json", 600, 400)
	out, skipped, err := m.Export(imp.Pipeline, voc, 600, 400, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	var ours, theirs map[string]any
	if err := json.Unmarshal(out, &ours); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "albumentations", "nested-roundtrip.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &theirs); err != nil {
		t.Fatal(err)
	}
	sameTransform(t, "transform", ours["transform"].(map[string]any), theirs["transform"].(map[string]any))
	back, err := m.Import(data, voc, 600, 400)
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(back.Pipeline); got != nestedWant {
		t.Errorf("read back as\n%s\nwant\n%s", got, nestedWant)
	}
	dropWrittenDefaults(voc, imp.Pipeline, back.Pipeline)
	if diff := cmp.Diff(imp.Pipeline, back.Pipeline); diff != "" {
		t.Errorf("read back (-written +read):\n%s", diff)
	}
}

// sameTransform requires albumentations' dict to hold every key darkroom wrote with
// the same value (a scalar v as albumentations keeps it, or as the range [v, v] it
// reads it as), and the same transforms, in order.
func sameTransform(t *testing.T, at string, ours, theirs map[string]any) {
	t.Helper()
	for k, v := range ours {
		if k == "transforms" {
			continue
		}
		// A scalar albumentations turned into the range [v, v] means what it meant.
		if x, ok := v.(float64); ok && reflect.DeepEqual(normal(theirs[k]), []any{x, x}) {
			continue
		}
		if !reflect.DeepEqual(normal(v), normal(theirs[k])) {
			t.Errorf("%s.%s: darkroom wrote %s, albumentations has %s", at, k, fmtAny(v), fmtAny(theirs[k]))
		}
	}
	a, b := children(ours), children(theirs)
	if len(a) != len(b) {
		t.Errorf("%s: darkroom wrote %d transforms, albumentations has %d", at, len(a), len(b))
		return
	}
	for i := range a {
		sameTransform(t, fmt.Sprintf("%s.transforms[%d]", at, i), a[i].(map[string]any), b[i].(map[string]any))
	}
}

// TestImportForceApply: albumentations 1.3.1 calls a member its container picked with
// force_apply, so it runs whatever its p, and a picked Sequential hands force_apply on
// to its first transform only (measured with the library: HorizontalFlip ran in 1.000
// of 4000 seeds, VerticalFlip in 0.505); a Sequential reached without being picked
// runs whatever its own p.
func TestImportForceApply(t *testing.T) {
	a, m := augmenter(t), albuMap(t)
	for _, tc := range []struct{ name, transform, want string }{
		{"picked Sequential", `{"__class_fullname__": "OneOf", "p": 1, "transforms": [{"__class_fullname__": "Sequential", "p": 0.5, "transforms": [
			{"__class_fullname__": "HorizontalFlip", "p": 0.5}, {"__class_fullname__": "VerticalFlip", "p": 0.5}]}]}`,
			"one_of(1)[sequential(0.5)[flip_horizontal:1, flip_vertical:0.5]]"},
		{"Sequential on its own", `{"__class_fullname__": "Sequential", "p": 0.5, "transforms": [
			{"__class_fullname__": "HorizontalFlip", "p": 0.5}, {"__class_fullname__": "VerticalFlip", "p": 0.5}]}`,
			"flip_horizontal:0.5, flip_vertical:0.5"},
		{"picked Sequential's first a OneOf", `{"__class_fullname__": "SomeOf", "n": 1, "p": 1, "transforms": [{"__class_fullname__": "Sequential", "p": 0.5, "transforms": [
			{"__class_fullname__": "OneOf", "p": 0.2, "transforms": [{"__class_fullname__": "HorizontalFlip", "p": 0.5}]}, {"__class_fullname__": "VerticalFlip", "p": 0.5}]}]}`,
			"some_of(1 n1 replace=true)[sequential(0.5)[one_of(1)[flip_horizontal:0.5], flip_vertical:0.5]]"},
		{"a Compose with p in a OneOf", `{"__class_fullname__": "OneOf", "p": 0.8, "transforms": [{"__class_fullname__": "Compose", "p": 0.3, "transforms": [
			{"__class_fullname__": "HorizontalFlip", "p": 0.5}]}, {"__class_fullname__": "VerticalFlip", "p": 0.7}]}`,
			"one_of(0.8)[sequential(0.3)[flip_horizontal:0.5], flip_vertical:0.7]"},
	} {
		raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [` + tc.transform + `]}}`
		imp, err := m.Import([]byte(raw), a.Vocab, 100, 100)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := shape(imp.Pipeline); got != tc.want {
			t.Errorf("%s: read as\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	// Run: a sequential group picked runs whatever its p, its members with theirs.
	imp, err := m.Import([]byte(`{"transform": {"__class_fullname__": "Compose", "transforms": [{"__class_fullname__": "OneOf", "p": 1, "transforms": [{"__class_fullname__": "Sequential", "p": 0.5, "transforms": [
			{"__class_fullname__": "HorizontalFlip", "p": 0.5}, {"__class_fullname__": "VerticalFlip", "p": 0.5}]}]}]}}`), a.Vocab, 100, 100)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	count := [2]int{}
	for v := range n {
		for _, e := range imp.Pipeline.firing(9, v) {
			if e.fired {
				count[e.t]++
			}
		}
	}
	if count[0] != n || math.Abs(float64(count[1])/n-0.5) > 0.03 {
		t.Errorf("HorizontalFlip ran %d and VerticalFlip %d times in %d, want %d and about %d", count[0], count[1], n, n, n/2)
	}
}
