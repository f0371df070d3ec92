package prompt

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// corpusCase is one prompt of testdata/corpus.json and what validate_prompt must say.
type corpusCase struct {
	Prompt string `json:"prompt"`
	// Size is the image's [width, height] when the case gives one.
	Size   []int  `json:"size,omitempty"`
	Strict bool   `json:"strict,omitempty"`
	Source string `json:"source,omitempty"`
	Want   []want `json:"want"`
	// Errors are substrings of the error-severity issues, in order; none means valid.
	Errors []string `json:"errors,omitempty"`
	// Ambiguous are the phrases reported as ambiguous.
	Ambiguous []string `json:"ambiguous,omitempty"`
	// Pending are parameters left pending for the image size.
	Pending []string `json:"pending,omitempty"`
	Preset  string   `json:"preset,omitempty"`
	// Unread are the words no transform took, each listed with why (Issue.Phrase).
	Unread []string `json:"unread,omitempty"`
	// Variants is the number of variants the prompt asks for ("5 variants").
	Variants int `json:"variants,omitempty"`
	// Excluded are the entries the prompt asks not to apply ("no flips").
	Excluded []string `json:"excluded,omitempty"`
}

type want struct {
	Entry  string                `json:"entry"`
	Values map[string]float64    `json:"values,omitempty"`
	Ranges map[string][2]float64 `json:"ranges,omitempty"`
	P      float64               `json:"p"`
	// Group is the albumentations container written around it in code.
	Group *Group `json:"group,omitempty"`
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	return loadCases(t, "testdata/corpus.json")
}

func loadCases(t *testing.T, name string) []corpusCase {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cases
}

func parseCase(p *Parser, c corpusCase) *Result {
	opt := Options{Strict: c.Strict}
	if len(c.Size) == 2 {
		opt.Width, opt.Height = c.Size[0], c.Size[1]
	}
	return p.Parse(c.Prompt, opt)
}

// got is the part of a Result a corpus case states.
func got(r *Result) corpusCase {
	g := corpusCase{Prompt: r.Prompt, Want: []want{}, Preset: r.Preset, Variants: r.Variants, Excluded: r.Excluded}
	for _, t := range r.Transforms {
		g.Want = append(g.Want, want{Entry: t.Entry, Values: t.Values, Ranges: t.Ranges, P: t.P, Group: t.Group})
		for _, pd := range t.Pending {
			g.Pending = append(g.Pending, t.Entry+"."+pd.Parameter)
		}
	}
	for _, e := range r.Errors {
		if e.Severity == "error" {
			g.Errors = append(g.Errors, e.Message)
		}
	}
	for _, a := range r.Ambiguities {
		g.Ambiguous = append(g.Ambiguous, a.Phrase)
	}
	for _, u := range r.Unread() {
		g.Unread = append(g.Unread, u.Phrase)
	}
	return g
}

// mismatch says how a parse differs from its case; "" when it agrees.
func mismatch(c corpusCase, r *Result) string {
	g := got(r)
	var out []string
	if diff := cmp.Diff(c.Want, g.Want, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		out = append(out, "transforms (-want +got):\n"+diff)
	}
	if len(c.Errors) != len(g.Errors) {
		out = append(out, fmt.Sprintf("errors: want %q, got %q", c.Errors, g.Errors))
	} else {
		for i := range c.Errors {
			if !strings.Contains(g.Errors[i], c.Errors[i]) {
				out = append(out, fmt.Sprintf("error %d: want %q in %q", i, c.Errors[i], g.Errors[i]))
			}
		}
	}
	if diff := cmp.Diff(c.Ambiguous, g.Ambiguous, cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "ambiguities (-want +got):\n"+diff)
	}
	if diff := cmp.Diff(c.Pending, g.Pending, cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "pending (-want +got):\n"+diff)
	}
	if diff := cmp.Diff(c.Unread, g.Unread, cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "unread (-want +got):\n"+diff)
	}
	if c.Preset != g.Preset {
		out = append(out, fmt.Sprintf("preset: want %q, got %q", c.Preset, g.Preset))
	}
	if c.Variants != g.Variants {
		out = append(out, fmt.Sprintf("variants: want %d, got %d", c.Variants, g.Variants))
	}
	if diff := cmp.Diff(c.Excluded, g.Excluded, cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "excluded (-want +got):\n"+diff)
	}
	if r.Valid != (len(c.Errors) == 0) {
		out = append(out, fmt.Sprintf("valid = %v with errors %q", r.Valid, g.Errors))
	}
	return strings.Join(out, "\n")
}

// TestCorpus runs validate_prompt's parser on every prompt of testdata/corpus.json
// (albumentations-mcp's README and example prompts among them) and requires the
// entries, values, ranges, probabilities, errors, ambiguities and pending conversions
// each case states.
func TestCorpus(t *testing.T) {
	p := testParser(t)
	cases := loadCorpus(t)
	if len(cases) < 60 {
		t.Fatalf("the corpus has %d prompts; it must keep at least 60", len(cases))
	}
	fromPeer := 0
	for _, c := range cases {
		if c.Source == "albumentations-mcp" {
			fromPeer++
		}
		if len(c.Want) == 0 && len(c.Errors) == 0 && c.Preset == "" {
			t.Errorf("%q states nothing: a case must want a transform, an error or a preset", c.Prompt)
		}
		if m := mismatch(c, parseCase(p, c)); m != "" {
			t.Errorf("%q:\n%s", c.Prompt, m)
		}
	}
	if fromPeer < 15 {
		t.Errorf("%d prompts come from albumentations-mcp; keep at least 15", fromPeer)
	}
}

// TestCorpusCatchesWrongExpectations guards TestCorpus against comparing nothing: every
// case, with one expectation made wrong (an entry renamed, a value, range or p moved,
// an error dropped), must be reported as a mismatch.
func TestCorpusCatchesWrongExpectations(t *testing.T) {
	p := testParser(t)
	for _, c := range loadCorpus(t) {
		r := parseCase(p, c)
		var wrong []corpusCase
		if len(c.Want) > 0 {
			w := clone(c)
			w.Want[0].Entry += "_x"
			wrong = append(wrong, w)
			w = clone(c)
			w.Want[0].P = c.Want[0].P/2 + 0.01
			wrong = append(wrong, w)
			for k, v := range c.Want[0].Values {
				w = clone(c)
				w.Want[0].Values[k] = v + 0.001
				wrong = append(wrong, w)
			}
			for k, v := range c.Want[0].Ranges {
				w = clone(c)
				w.Want[0].Ranges[k] = [2]float64{v[0], v[1] + 0.001}
				wrong = append(wrong, w)
			}
			w = clone(c)
			w.Want = w.Want[1:]
			wrong = append(wrong, w)
		}
		if len(c.Errors) > 0 {
			w := clone(c)
			w.Errors = nil
			wrong = append(wrong, w)
		} else {
			w := clone(c)
			w.Errors = []string{"an error"}
			wrong = append(wrong, w)
		}
		for i, w := range wrong {
			if mismatch(w, r) == "" {
				t.Errorf("%q: wrong expectation %d passed: %+v", c.Prompt, i, w.Want)
			}
		}
	}
}

func clone(c corpusCase) corpusCase {
	b, _ := json.Marshal(c)
	var out corpusCase
	_ = json.Unmarshal(b, &out)
	return out
}

// TestCorpusDraft prints a case for each prompt in $DARKROOM_PROMPT_DRAFT (one a line),
// as the parser reads it: a starting point to check by hand before adding a case.
func TestCorpusDraft(t *testing.T) {
	in := os.Getenv("DARKROOM_PROMPT_DRAFT")
	if in == "" {
		t.Skip("set DARKROOM_PROMPT_DRAFT to draft corpus cases")
	}
	p := testParser(t)
	var out []corpusCase
	for _, line := range strings.Split(strings.TrimSpace(in), "\n") {
		c := corpusCase{Prompt: line}
		if strings.Contains(line, "px") || strings.Contains(line, "x2") || strings.Contains(line, "x5") {
			c.Size = []int{1000, 800}
		}
		g := got(parseCase(p, c))
		g.Size = c.Size
		out = append(out, g)
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	t.Logf("\n%s", b)
}

// TestEngineerCorpus reads testdata/engineer.json: prompts written the way dataset
// engineers write them (albumentations' own units and names, its code pasted from a
// notebook, the phrasing of issues and agent prompts), none of them in corpus.json.
// Each must read as albumentations means it: every parameter a multi-parameter word
// names, limits as symmetric ranges, variances, kernel sizes and crop sizes converted,
// intensities drawn from ranges, the default p of code, and every word no transform
// took listed in unread.
func TestEngineerCorpus(t *testing.T) {
	p := testParser(t)
	cases := loadCases(t, "testdata/engineer.json")
	if len(cases) < 40 {
		t.Fatalf("engineer.json has %d prompts; it must keep at least 40", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range loadCorpus(t) {
		seen[c.Prompt] = true
	}
	for _, c := range cases {
		if seen[c.Prompt] {
			t.Errorf("%q is also in corpus.json: engineer.json holds prompts the parser was not built on", c.Prompt)
		}
		if m := mismatch(c, parseCase(p, c)); m != "" {
			t.Errorf("%q:\n%s", c.Prompt, m)
		}
	}
}

// TestEveryWordAccounted is the no-silent-change invariant over both corpora: every
// word of every prompt is read (it is a word of a transform's phrase, of a parameter
// name of a transform's entry, of an example phrase that named the entry, of a
// negation, a variant count or a preset, or English of words.go that says how much,
// how often, which way or nothing) or it is in an unread phrase of the result. A word
// inside a transform's span that nothing took ("median" in "median blur with kernel
// 5") must be listed, never dropped.
func TestEveryWordAccounted(t *testing.T) {
	p := testParser(t)
	cases := append(loadCorpus(t), loadCases(t, "testdata/engineer.json")...)
	for _, c := range cases {
		r := parseCase(p, c)
		read := map[string]bool{}
		words := func(s string) {
			for _, tk := range tokenize(strings.ReplaceAll(s, "_", " ")) {
				read[tk.text] = true
			}
		}
		for _, tr := range r.Transforms {
			words(tr.Phrase)
			if e, ok := p.voc.Entry(tr.Entry); ok {
				for name, prm := range e.Parameters {
					words(name)
					for _, al := range prm.Also {
						words(al.Name)
					}
				}
				if tr.Confidence < 1 {
					for _, ex := range p.examples[tr.Entry] {
						for w := range ex {
							read[w] = true
						}
					}
				}
			}
		}
		for _, u := range r.Unread() {
			words(u.Phrase)
		}
		for _, said := range [][]string{r.Excluded, r.negated, r.groupArgs, r.bounds, r.choiceWords, r.said, r.looks} {
			for _, x := range said {
				words(x)
			}
		}
		if r.Preset != "" {
			words(r.Preset)
			for _, pr := range p.voc.Presets {
				if pr.Name == r.Preset {
					for _, a := range pr.Aliases {
						words(a)
					}
				}
			}
		}
		// What a portion is of ("10% of samples") is read with it: a transform's p.
		portioned := false
		for _, tr := range r.Transforms {
			portioned = portioned || tr.P < 1 || tr.Group != nil && tr.Group.P < 1
		}
		// A word read as another ("sat" as saturation, "contrst" as contrast) is
		// read when that one is.
		for _, is := range r.Errors {
			if m := readAs.FindStringSubmatch(is.Message); m != nil && (read[m[2]] || knownWord(m[2])) {
				read[m[1]] = true
			}
		}
		for _, tk := range odds(evenOdds(tokenize(c.Prompt))) {
			w := tk.text
			if portioned && portionNouns[w] || tk.code && rangeEnds[w] != 0 {
				// quality_upper=80: "upper" is read with "quality" as the end of its range.
				continue
			}
			if tk.kind != tWord || read[w] || read[strings.TrimSuffix(w, "s")] || knownWord(w) || negators[w] || r.Variants > 0 && (variantWords[w] || numberWords[w] > 0 || timesOK(w) || variantLead[w] || variantTail[w] || variantAdjectives[w]) || tk.call {
				continue
			}
			t.Errorf("%q: the word %q is neither read nor listed as unread (unread: %q)", c.Prompt, w, got(r).Unread)
		}
	}
}

var readAs = regexp.MustCompile(`^"([^"]+)" is read as "([^"]+)"$`)

func timesOK(w string) bool { _, ok := timesCount(w); return ok }
