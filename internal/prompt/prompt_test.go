package prompt

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse: no prompt makes the parser panic, and every value it returns is one the
// entry accepts (inside its parameter's declared range, an integer where one is
// declared), every range is [lo, hi] with lo <= hi inside that range, p and confidence
// lie in [0, 1]; anything else must be reported, never returned.
func FuzzParse(f *testing.F) {
	p := testParser(f)
	for _, c := range []string{
		"add blur and rotate 15 degrees", "rotate between -15 and 15 degrees", "blur 5 px",
		"crop 512x512", "brightness +20%", "sometimes flip", "50% of the time add noise",
		"strong jpeg compression", "rotate ±400 degrees", "p=2 blur", "posterize 2.5 bits",
		"between and", "1e999 blur", "--5 ++ 3x", "crop 0x0", "brightness -100%", "blur -0 px",
		"rotate 90, rotate 90 and rotate 90", "clip limit of 4 clahe clahe",
	} {
		f.Add(c, 1000, 800, false)
	}
	for _, e := range p.voc.Entries {
		for _, ex := range e.Examples {
			f.Add(ex, 0, 0, true)
		}
	}
	f.Fuzz(func(t *testing.T, text string, w, h int, strict bool) {
		if w < 0 || h < 0 || w > 1<<16 || h > 1<<16 {
			return
		}
		r := p.Parse(text, Options{Width: w, Height: h, Strict: strict})
		checkResult(t, p, r)
	})
}

func checkResult(t *testing.T, p *Parser, r *Result) {
	t.Helper()
	for _, tr := range r.Transforms {
		e, ok := p.voc.Entry(tr.Entry)
		if !ok {
			t.Fatalf("%q: unknown entry %q", r.Prompt, tr.Entry)
		}
		if !(tr.P >= 0 && tr.P <= 1) || !(tr.Confidence > 0 && tr.Confidence <= 1) {
			t.Fatalf("%q: %s: p %v, confidence %v", r.Prompt, tr.Entry, tr.P, tr.Confidence)
		}
		for name, v := range tr.Values {
			prm, ok := e.Parameters[name]
			if !ok || !(v >= prm.Min && v <= prm.Max) || prm.Type == "integer" && v != math.Trunc(v) {
				t.Fatalf("%q: %s.%s = %v outside [%v, %v] (%s)", r.Prompt, tr.Entry, name, v, prm.Min, prm.Max, prm.Type)
			}
		}
		for name, rg := range tr.Ranges {
			prm, ok := e.Parameters[name]
			if !ok || !(rg[0] >= prm.Min && rg[1] <= prm.Max && rg[0] < rg[1]) {
				t.Fatalf("%q: %s.%s range %v outside [%v, %v]", r.Prompt, tr.Entry, name, rg, prm.Min, prm.Max)
			}
			if _, both := tr.Values[name]; both {
				t.Fatalf("%q: %s.%s has a value and a range", r.Prompt, tr.Entry, name)
			}
		}
	}
	for _, is := range r.Errors {
		if is.Severity != "error" && is.Severity != "warning" || is.Message == "" {
			t.Fatalf("%q: issue %+v", r.Prompt, is)
		}
	}
	if r.Valid == r.hasError() {
		t.Fatalf("%q: valid %v with errors %+v", r.Prompt, r.Valid, r.Errors)
	}
	if math.IsNaN(r.Estimate.Seconds) || r.Estimate.Seconds < 0 || math.IsNaN(r.Complexity) {
		t.Fatalf("%q: estimate %v, complexity %v", r.Prompt, r.Estimate.Seconds, r.Complexity)
	}
}

// Every example phrase a manifest gives for an entry must parse to that entry, with
// values the entry accepts: the examples are what the listing tools show agents, and
// what the parser falls back on.
//
// A few examples need more than words and units to read (what a parser without a
// language model cannot do); they are listed with the reason, and the test fails
// when one of them starts to parse, so the list only shrinks.
func TestExamplesParseToTheirEntry(t *testing.T) {
	beyond := map[string]string{
		"make it a bit out of focus and rotate 10 degrees": "out of focus is gaussian_blur's alias, not blur's",
		"blur it a little and add noise":                   "blur is the box blur entry's name",
		"make it brighter":                                 "brighter also names random_brightness: a prompt asks for augmentations",
		"a little brighter":                                "brighter also names random_brightness: a prompt asks for augmentations",
		"brighten it up a lot":                             "brighten also names random_brightness: a prompt asks for augmentations",
		"make it darker":                                   "darker also names random_brightness: a prompt asks for augmentations",
		"a bit darker":                                     "darker also names random_brightness: a prompt asks for augmentations",
		"darken the photo a little":                        "darken also names random_brightness: a prompt asks for augmentations",
		"push the shadows towards blue and the highlights towards yellow": "a colour direction per tonal range",
		"it's underexposed, lift it half a stop":                          "half a stop is a number in words",
		"dramatic high-contrast black and white":                          "three phrases, one look",
		"the photo is underexposed, start from a brighter baseline":       "brighter is an entry of its own",
		"the photo is overexposed, start from a darker baseline":          "darker is an entry of its own",
		"turn it one quarter, turns 1":                                    "turn is rotate's alias",
		"cast 2 shadows":                                                  "a number inside the phrase cast shadows",
		"zoom 1.1 and rotate -15":                                         "two clauses, one entry",
		"make the portrait softer and more flattering":                    "softer is an entry of its own",
		"white balance temperature 600 tint 0.1":                          "white balance temperature is the temperature entry's alias",
	}
	p := testParser(t)
	n := 0
	for _, e := range p.voc.Entries {
		for _, ex := range e.Examples {
			n++
			r := p.Parse(ex, Options{Width: 1000, Height: 1000})
			checkResult(t, p, r)
			found := false
			for _, tr := range r.Transforms {
				found = found || tr.Entry == e.Name
			}
			if why, ok := beyond[ex]; ok {
				if found {
					t.Errorf("%s example %q now parses (it was listed: %s): take it off the list", e.Name, ex, why)
				}
				continue
			}
			if !found {
				var got []string
				for _, tr := range r.Transforms {
					got = append(got, tr.Entry)
				}
				t.Errorf("%s example %q parses to %v", e.Name, ex, got)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d example phrases checked", n)
	}
}

// The parser knows only what the manifests say: a pack that adds an alias extends it.
func TestDataDriven(t *testing.T) {
	p := testParser(t)
	r := p.Parse("add some wibble", Options{})
	if len(r.Transforms) != 0 {
		t.Fatalf("wibble parsed to %+v before any pack declared it", r.Transforms)
	}
	e, _ := p.voc.Entry("gaussian_noise")
	saved := e.Aliases
	e.Aliases = append(append([]string(nil), saved...), "wibble")
	defer func() { e.Aliases = saved }()
	r = New(p.voc).Parse("add some wibble", Options{})
	if len(r.Transforms) != 1 || r.Transforms[0].Entry != "gaussian_noise" {
		t.Fatalf("with the alias wibble: %+v", r.Transforms)
	}
}

// Intensity words are documented fractions f of the way from a parameter's default to
// the end of its range, and they draw: from f/2 to f of the way towards the end the
// words point at, or f of the way to both ends when they point nowhere and the default
// lies inside the range, so variants of "slight motion blur" differ.
func TestIntensity(t *testing.T) {
	p := testParser(t)
	tests := []struct {
		prompt string
		entry  string
		param  string
		want   [2]float64
	}{
		{"slight gaussian noise", "gaussian_noise", "sigma", [2]float64{0.125 * 0.2, 0.25 * 0.2}},
		{"medium gaussian noise", "gaussian_noise", "sigma", [2]float64{0.25 * 0.2, 0.5 * 0.2}},
		{"strong gaussian noise", "gaussian_noise", "sigma", [2]float64{0.375 * 0.2, 0.75 * 0.2}},
		{"extreme gaussian noise", "gaussian_noise", "sigma", [2]float64{0.5 * 0.2, 0.2}},
		{"very slight gaussian noise", "gaussian_noise", "sigma", [2]float64{0.05 * 0.2, 0.1 * 0.2}},
		// Towards the low end when the words say so, from an interior default.
		{"slightly decrease contrast", "contrast", "amount", [2]float64{-0.25, -0.125}},
		// Both ways when they say nothing.
		{"slight rotation", "rotate", "angle", [2]float64{-45, 45}},
		// quality's default is its top: stronger compression is lower quality.
		{"medium jpeg compression", "image_compression", "quality", [2]float64{51, 75}},
		// The direction of a motion blur is drawn whatever its length.
		{"slight motion blur", "motion_blur", "angle", [2]float64{-180, 180}},
	}
	for _, tt := range tests {
		r := p.Parse(tt.prompt, Options{})
		if len(r.Transforms) != 1 || r.Transforms[0].Entry != tt.entry {
			t.Errorf("%q: %+v", tt.prompt, r.Transforms)
			continue
		}
		got, ok := r.Transforms[0].Ranges[tt.param]
		if !ok || math.Abs(got[0]-tt.want[0]) > 1e-9 || math.Abs(got[1]-tt.want[1]) > 1e-9 {
			t.Errorf("%q: %s = %v (values %v), want the range %v", tt.prompt, tt.param, got, r.Transforms[0].Values, tt.want)
		}
	}
}

// estimated_execution_time comes from the measured table: it scales with the pixels,
// with p, and adds up per transform.
func TestEstimate(t *testing.T) {
	p := testParser(t)
	if len(p.costs.NsPerPixel) < 50 {
		t.Fatalf("costs.json prices %d operations", len(p.costs.NsPerPixel))
	}
	ops := map[string]bool{}
	for _, e := range p.voc.Entries {
		for _, u := range e.Operations {
			ops[u.Op] = true
		}
	}
	for op := range ops {
		if _, ok := p.costs.NsPerPixel[op]; !ok && op != "spot" {
			t.Errorf("costs.json has no price for %s: regenerate it (see costgen)", op)
		}
	}
	small := p.Parse("gaussian blur 0.01 and add noise", Options{EstimateWidth: 1000, EstimateHeight: 1000})
	big := p.Parse("gaussian blur 0.01 and add noise", Options{EstimateWidth: 2000, EstimateHeight: 2000})
	half := p.Parse("gaussian blur 0.01 and add noise half the time", Options{EstimateWidth: 1000, EstimateHeight: 1000})
	if small.Estimate.Seconds <= 0 || math.Abs(big.Estimate.Seconds/small.Estimate.Seconds-4) > 0.05 {
		t.Errorf("estimate %v s at 1000x1000, %v s at 2000x2000; want 4 times", small.Estimate.Seconds, big.Estimate.Seconds)
	}
	blur := p.costs.NsPerPixel["blur"] * 1e6 * 1e-9
	noise := p.costs.NsPerPixel["noise"] * 1e6 * 1e-9
	want := []TransformTime{{"gaussian_blur", sig(blur, 3)}, {"gaussian_noise", sig(noise, 3)}}
	if diff := cmp.Diff(want, small.Estimate.Per); diff != "" {
		t.Errorf("per transform (-want +got):\n%s", diff)
	}
	if got := half.Estimate.Per[1].Seconds; math.Abs(got-sig(noise/2, 3)) > 1e-12 {
		t.Errorf("noise at p 0.5 costs %v, want %v", got, sig(noise/2, 3))
	}
	if !strings.Contains(small.Estimate.Basis, "costs.json") {
		t.Errorf("basis %q", small.Estimate.Basis)
	}
}

// The JSON of a Result is validate_prompt's data: the field names albumentations-mcp
// clients read, empty lists and objects rather than null.
func TestResultJSON(t *testing.T) {
	p := testParser(t)
	b, err := json.Marshal(p.Parse("sometimes flip horizontally and rotate by exactly 15 degrees", Options{}))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"ambiguities", "complexity_score", "estimated_execution_time", "parsed_transforms", "prompt", "suggestions", "valid", "validation_errors"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	ts := got["parsed_transforms"].([]any)
	flip := ts[0].(map[string]any)
	wantFlip := map[string]any{"entry": "flip_horizontal", "phrase": "flip horizontally", "parameters": map[string]any{}, "ranges": map[string]any{}, "p": 0.5, "confidence": 1.0}
	if diff := cmp.Diff(wantFlip, flip); diff != "" {
		t.Errorf("flip (-want +got):\n%s", diff)
	}
	if got["complexity_score"] != 2.5 {
		t.Errorf("complexity_score = %v, want 2.5 (two transforms, one with p below 1)", got["complexity_score"])
	}
	for _, k := range []string{"validation_errors", "suggestions", "ambiguities"} {
		if l, ok := got[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", k, got[k])
		}
	}
}

// TestOneSidedRangeSaid: a range of sizes with no sign on a parameter that shifts
// either way ("hue 5-10") is read as written, and a warning says it is one-sided; a
// range with signs, a ± or a direction word says nothing.
func TestOneSidedRangeSaid(t *testing.T) {
	p := testParser(t)
	for prompt, want := range map[string]bool{
		"some hue shifts (not too crazy, maybe 5-10)": true,
		"rotate 10-20 degrees":                        true,
		"hue ±10":                                     false,
		"rotate -20..20":                              false,
		"rotate clockwise 10-20 degrees":              false,
	} {
		r := p.Parse(prompt, Options{})
		said := false
		for _, is := range r.Errors {
			said = said || strings.Contains(is.Message, "is read as one-sided")
		}
		if said != want {
			t.Errorf("%q: one-sided warning %v, want %v (%+v)", prompt, said, want, r.Errors)
		}
	}
}

// TestLacking: an albumentations transform darkroom cannot do, named in prose or code,
// is listed with why and no near entry stands in for it; the rest of the prompt is
// still read, and a name that is also a vocabulary phrase stays the vocabulary's.
func TestLacking(t *testing.T) {
	p := New(testParser(t).voc)
	p.Lacking(map[string]string{
		"RingingOvershoot": "no sinc filter", "PiecewiseAffine": "no piecewise affine warp", "AdvancedBlur": "no anisotropic blur",
		"Superpixels": "no superpixels", "RandomCrop": "crops by area",
	})
	for _, c := range []struct {
		prompt string
		want   []string // entries read
		unread string   // the phrase listed
		why    string
	}{
		{"hflip and some piecewise affine, often", []string{"flip_horizontal"}, "piecewise affine", "no piecewise affine warp"},
		{"ringing overshoot k=5, then rotate 10", []string{"rotate"}, "ringing overshoot k = 5", "no sinc filter"},
		{"advanced blur in the top half; vflip", []string{"flip_vertical"}, "advanced blur in the top half", "no anisotropic blur"},
		{"A.Superpixels(p_replace=0.1), hflip", []string{"flip_horizontal"}, "superpixels p replace = 0.1", "no superpixels"},
		{"random crop 50%", []string{"random_crop"}, "", ""},
	} {
		r := p.Parse(c.prompt, Options{Width: 1000, Height: 800})
		var got []string
		for _, tr := range r.Transforms {
			got = append(got, tr.Entry)
			if tr.P != 1 && !(strings.HasPrefix(tr.Entry, "flip_") && tr.P == 0.5) {
				t.Errorf("%q: %s at p %v, want its default (1, a flip 0.5): no p said of the lacking transform is another's", c.prompt, tr.Entry, tr.P)
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q: entries (-want +got):\n%s", c.prompt, diff)
		}
		if c.unread == "" {
			continue
		}
		found := false
		for _, u := range r.Unread() {
			found = found || u.Phrase == c.unread && strings.Contains(u.Message, c.why)
		}
		if !found {
			t.Errorf("%q: %q not listed with %q; unread: %+v", c.prompt, c.unread, c.why, r.Unread())
		}
	}
}

// TestFaultedStepLeftOut: a step whose value darkroom cannot take is left out and named
// with why, and the rest of the prompt runs (as a pipeline's out-of-range transform is
// skipped); nothing runs in its place. With nothing left, or in strict mode, the prompt
// stays invalid.
func TestFaultedStepLeftOut(t *testing.T) {
	p := testParser(t)
	for _, c := range []struct {
		prompt string
		strict bool
		valid  bool
		kept   []string
		unread string
	}{
		{"flip horizontally, elastic transform sigma 4, rotate 10", false, true, []string{"flip_horizontal", "rotate"}, "elastic transform"},
		{"rotate 200 degrees and flip vertically", false, true, []string{"flip_vertical"}, "rotate"},
		{"rotate 200 degrees and flip vertically", true, false, []string{"rotate", "flip_vertical"}, ""},
		{"rotate 200 degrees", false, false, []string{"rotate"}, ""},
	} {
		r := p.Parse(c.prompt, Options{Strict: c.strict, Width: 1024, Height: 768})
		var got []string
		for _, tr := range r.Transforms {
			got = append(got, tr.Entry)
		}
		if r.Valid != c.valid || !slices.Equal(got, c.kept) {
			t.Errorf("%q strict %v: valid %v steps %v, want %v %v (%+v)", c.prompt, c.strict, r.Valid, got, c.valid, c.kept, r.Errors)
			continue
		}
		said := 0
		for _, is := range r.Unread() {
			if is.Phrase == c.unread && strings.Contains(is.Message, "not applied") && strings.Contains(is.Message, "is outside") {
				said++
			}
		}
		if c.unread != "" && said != 1 {
			t.Errorf("%q: %q listed %d times as left out with its range, want once: %+v", c.prompt, c.unread, said, r.Errors)
		}
	}
}
