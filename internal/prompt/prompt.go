package prompt

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/darkroom-mcp/darkroom/internal/resolve"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// codeP is albumentations' default p (BasicTransform's): a transform written as a call
// without p runs half the time, unless its manifest says otherwise (prompt.code_p).
const codeP = 0.5

// MaxPromptBytes bounds what Parse reads; a longer prompt is one validation error.
const MaxPromptBytes = 4096

// Parser reads prompts against one vocabulary. It is safe for concurrent use.
type Parser struct {
	voc *vocab.Vocabulary
	// words are the words of every phrase (the targets of a typo), known the words
	// that are no typo: those, parameter names and words.go's English.
	words, known map[string]bool
	root         *node
	costs        *costTable
	// examples holds each entry's example phrases as sets of content words.
	examples map[string][]map[string]bool
	// phrases lists every phrase, for suggestions.
	phrases []string
	// lacking are albumentations transforms darkroom cannot do, by the words a prompt
	// names them with ("median blur", "piecewiseaffine", "ringing overshoot"), set by Lacking.
	lacking map[string]lackingClass
	// lackingLongest is the most words of a lacking name.
	lackingLongest int
	// calls reads an albumentations call written in a prompt as a pipeline file
	// reads it, set by ReadCalls (calls.go).
	calls CallReader
	// defaults are the operations' argument defaults, set by Frames: with them a
	// pixel size is read against the size the steps before it leave (frames.go).
	defaults resolve.Defaults
}

// lackingClass is an albumentations transform darkroom cannot do and why.
type lackingClass struct{ class, why string }

// Lacking tells the parser the albumentations transforms darkroom cannot do, class
// name to why (vocabulary/albumentations/transforms.yaml's unsupported), so that a
// prompt naming one ("some defocus", "use PiecewiseAffine", "superpixels") has it listed
// with that reason instead of a near entry applied or an unknown word. A name that is
// also a phrase of the vocabulary ("random crop") stays the vocabulary's. Call it once,
// before the parser is shared.
func (p *Parser) Lacking(classes map[string]string) {
	p.lacking = map[string]lackingClass{}
	for class, why := range classes {
		words := texts(tokenize(splitCamel(class)))
		forms := [][]string{words, {strings.ToLower(class)}}
		if len(words) > 2 && words[0] == "random" {
			// RandomSizedCrop is "a sized crop" in words.
			forms = append(forms, words[1:])
		}
		for _, f := range forms {
			key := strings.Join(f, " ")
			if len(f) == 0 || p.isPhrase(f) {
				continue
			}
			p.lacking[key] = lackingClass{class: class, why: why}
			p.lackingLongest = max(p.lackingLongest, len(f))
		}
	}
}

// isPhrase says whether the words are, whole, a phrase of the vocabulary.
func (p *Parser) isPhrase(words []string) bool {
	n := p.root
	for _, w := range words {
		if n = n.next[w]; n == nil {
			return false
		}
	}
	return len(n.claims) > 0
}

// lackingNames lists and consumes the albumentations transforms darkroom cannot do
// that the prose names (see Lacking), the longest name at each place.
func (p *Parser) lackingNames(r *Result, toks []token) {
	for k := 0; k < len(toks); k++ {
		for n := min(p.lackingLongest, len(toks)-k); n >= 1; n-- {
			words := make([]string, 0, n)
			ok := true
			for _, t := range toks[k : k+n] {
				ok = ok && t.kind == tWord && !t.code && !t.call
				words = append(words, t.text)
			}
			if !ok {
				continue
			}
			c, found := p.lacking[strings.Join(words, " ")]
			if !found {
				// "random sun flares": the plural.
				words[n-1] = strings.TrimSuffix(words[n-1], "s")
				c, found = p.lacking[strings.Join(words, " ")]
			}
			if !found {
				continue
			}
			// What the clause says of it ("sun flare only rarely", "defocus bc the
			// camera focuses badly") is its own, to the clause's end or the next
			// phrase: no p or value of it goes to the transform before.
			end := k + n
			for end < len(toks) && toks[end].kind != tSep && !separators[toks[end].text] && toks[end].depth == toks[k].depth && (filler[toks[end].text] || p.root.next[toks[end].text] == nil) {
				end++
			}
			phrase := joinTokens(toks[k:end])
			r.unread(phrase, fmt.Sprintf("%q: %s is albumentations' %s, which darkroom cannot do (%s); not applied, and no other transform stands in for it", phrase, joinTokens(toks[k:k+n]), c.class, c.why), "", "")
			for j := k; j < end; j++ {
				toks[j] = consumed(toks[j])
			}
			r.lackingAt = append(r.lackingAt, toks[k].pos)
			k = end - 1
			break
		}
	}
}

type node struct {
	next map[string]*node
	// claims are the entries this phrase names (sorted), and the phrase as written.
	claims []string
	phrase string
	// example says the phrase is only an example phrase (no name or alias ends here):
	// its own words may carry an intensity or a frequency ("add a slight blur").
	example bool
}

// New indexes the vocabulary's entry names, aliases (and the words of CamelCase
// aliases) and example phrases.
func New(voc *vocab.Vocabulary) *Parser {
	p := &Parser{voc: voc, root: &node{}, costs: builtinCosts(), examples: map[string][]map[string]bool{}}
	seen := map[string]bool{}
	for _, e := range voc.Entries {
		names := []string{strings.ReplaceAll(e.Name, "_", " ")}
		for _, a := range e.Aliases {
			names = append(names, a)
			if c := splitCamel(a); c != a {
				names = append(names, c)
			}
		}
		for _, n := range names {
			p.add(n, e.Name)
			if k := strings.Join(texts(tokenize(n)), " "); !seen[k] && k != "" {
				seen[k] = true
				p.phrases = append(p.phrases, k)
			}
		}
		for _, ex := range e.Examples {
			set := map[string]bool{}
			for _, t := range tokenize(ex) {
				if t.kind == tWord && !filler[t.text] && !separators[t.text] {
					set[t.text] = true
				}
			}
			if len(set) > 0 {
				p.examples[e.Name] = append(p.examples[e.Name], set)
			}
		}
	}
	// Example phrases after every name and alias, so that an editing entry's example
	// that holds an augmentation's name ("make it brighter") does not hide it.
	for _, e := range voc.Entries {
		for _, ex := range e.Examples {
			if wholePhrase(ex) && (augmentation(e) || !p.sharedWithAugmentation(ex, e.Name)) {
				p.addExample(ex, e.Name)
			}
		}
	}
	sort.Strings(p.phrases)
	p.words, p.known = map[string]bool{}, map[string]bool{}
	var collect func(n *node)
	collect = func(n *node) {
		for w, c := range n.next {
			p.words[w] = true
			collect(c)
		}
	}
	collect(p.root)
	for _, e := range voc.Entries {
		for name, prm := range e.Parameters {
			for _, w := range strings.Split(name, "_") {
				p.known[w] = true
			}
			for _, al := range prm.Also {
				for _, w := range texts(tokenize(strings.ReplaceAll(al.Name, "_", " "))) {
					p.known[w] = true
				}
			}
		}
		for _, ex := range e.Examples {
			for _, w := range texts(tokenize(ex)) {
				p.known[w] = true
			}
		}
	}
	for _, pr := range voc.Presets {
		for _, n := range append([]string{strings.ReplaceAll(pr.Name, "_", " ")}, pr.Aliases...) {
			for _, w := range texts(tokenize(n)) {
				p.known[w] = true
			}
		}
	}
	return p
}

// correct reads a word no phrase, parameter or English word of words.go has as the
// phrase word it misspells: a word of seven letters or more, with the same first letter
// and one edit away (two for words of eight letters or more), the only such word
// ("contrst", "guassian", "brigthness"). Each correction is a warning.
func (p *Parser) correct(r *Result, toks []token) {
	for k := range toks {
		t := &toks[k]
		w := t.text
		n := utf8.RuneCountInString(w)
		if full := p.abbreviation(toks, k); full != "" {
			// "bright +-0.15", "sat 20": a parameter's name cut short before its value.
			r.issue("warning", fmt.Sprintf("%q is read as %q", w, full), "", "", "")
			t.typo, t.text = w, full
			continue
		}
		if t.kind != tWord || n < 5 || n > 30 || p.words[w] || p.known[w] || knownWord(w) || negators[w] || t.call && compositions[w] || t.code {
			continue
		}
		if stem := p.ingStem(w); stem != "" {
			// "make it look like it's snowing": the verb of a phrase that is one
			// word ("snow") names it.
			r.issue("warning", fmt.Sprintf("%q is read as %q", w, stem), "", "", "")
			t.typo, t.text = w, stem
			continue
		}
		if n < 7 {
			// A short word only for a slip that keeps its letters: two neighbours
			// swapped ("rotaet") or one doubled letter dropped ("betwen"), and one
			// target only.
			if c := p.slip(w); c != "" {
				r.issue("warning", fmt.Sprintf("%q is read as %q", w, c), "", "", "")
				t.typo, t.text = w, c
			}
			continue
		}
		if strings.HasSuffix(w, "s") && (p.words[strings.TrimSuffix(w, "s")] || p.known[strings.TrimSuffix(w, "s")]) {
			continue
		}
		limit := 1
		if n >= 8 {
			limit = 2
		}
		best, bestD, tie := "", limit+1, false
		for c := range p.words {
			if c[0] != w[0] || utf8.RuneCountInString(c) < 4 {
				continue
			}
			if inflected(w, c) || strings.HasPrefix(c, w) && utf8.RuneCountInString(c) > n+1 {
				// Another form of the word ("augmented", "mirrored"), no typo; a
				// word one letter short of it ("brightnes") is.
				best, tie = "", true
				break
			}
			d := vocab.EditDistance(w, c)
			switch {
			case d < bestD:
				best, bestD, tie = c, d, false
			case d == bestD && c != best:
				tie = true
			}
		}
		if best == "" || tie {
			continue
		}
		r.issue("warning", fmt.Sprintf("%q is read as %q", w, best), "", "", "")
		t.typo, t.text = w, best
	}
}

// ingStem returns the one-word phrase w is the -ing form of ("snowing", "raining",
// "blurring", "sharpening"), or "".
func (p *Parser) ingStem(w string) string {
	base, ok := strings.CutSuffix(w, "ing")
	if !ok || len(base) < 3 {
		return ""
	}
	stems := []string{base, base + "e"}
	if n := len(base); base[n-1] == base[n-2] {
		// "blurring"; "downscalling", a doubled letter too many, is "downscale".
		stems = append(stems, base[:n-1], base[:n-1]+"e")
	}
	for _, s := range stems {
		if p.isPhrase([]string{s}) {
			return s
		}
	}
	return ""
}

// inflected says whether w is c with an English ending ("mirrored", "augmented",
// "blurring"): another form of the word, no typo ("brightnes" is none of bright's).
func inflected(w, c string) bool {
	if !strings.HasPrefix(w, c) {
		return false
	}
	rest := strings.TrimPrefix(w, c)
	if rest == "" {
		return true
	}
	for _, suf := range []string{"s", "es", "ed", "d", "ing", "er", "ers", "ly", "ness", "en", "ened", "ening", "y", "ish", "ation", "ations", "able"} {
		if rest == suf || len(rest) == len(suf)+1 && rest[1:] == suf && rest[0] == c[len(c)-1] {
			// "blurred", "blurring": a doubled last letter before the ending.
			return true
		}
	}
	return false
}

// slipTargets are the words of words.go a slip of the keyboard is read as, besides
// the phrases' words: those that carry a range or how often.
var slipTargets = []string{"between", "probability", "degrees", "percent", "randomly", "sometimes", "rarely", "always", "chance"}

// slip returns the one word of a phrase (or of slipTargets) that w is with two
// neighbouring letters swapped or a doubled letter written once; else "".
func (p *Parser) slip(w string) string {
	found := ""
	try := func(c string) {
		if c == w || c == found {
			return
		}
		if p.words[c] || contains(slipTargets, c) {
			if found != "" {
				found = "-"
				return
			}
			found = c
		}
	}
	rs := []rune(w)
	for i := 0; i+1 < len(rs); i++ {
		sw := append([]rune(nil), rs...)
		sw[i], sw[i+1] = sw[i+1], sw[i]
		try(string(sw))
	}
	for i := range rs {
		// "betwen": the doubled letter written once.
		try(string(append(append(append([]rune(nil), rs[:i+1]...), rs[i]), rs[i+1:]...)))
	}
	if found == "-" {
		return ""
	}
	return found
}

// abbreviation returns the one parameter name of the vocabulary that the word at k
// begins, when a value follows it and the word is no phrase or English word itself;
// else "".
func (p *Parser) abbreviation(toks []token, k int) string {
	t := toks[k]
	if t.kind != tWord || t.code || utf8.RuneCountInString(t.text) < 3 || k+1 >= len(toks) || knownWord(t.text) || negators[t.text] {
		return ""
	}
	if next := toks[k+1]; next.kind != tNum && next.text != "±" {
		return ""
	}
	// The value closes its clause ("bright +-0.15,"): "cut 8 random holes" goes on.
	j := k + 1
	if toks[j].text == "±" {
		j++
	}
	for j < len(toks) && (toks[j].kind == tNum || units[toks[j].text] != "") {
		j++
	}
	if j < len(toks) && toks[j].kind != tSep && !separators[toks[j].text] {
		return ""
	}
	full := ""
	for _, e := range p.voc.Entries {
		for name := range e.Parameters {
			if name == t.text {
				return ""
			}
			if strings.HasPrefix(name, t.text) && !strings.Contains(name, "_") && name != full {
				if full != "" {
					return ""
				}
				full = name
			}
		}
	}
	if full == "" || p.words[t.text] && !strings.HasPrefix(full, t.text) {
		return ""
	}
	return full
}

// sharedWithAugmentation says whether some words of phrase are a name or an alias
// both of entry and of an augmentation entry ("brighter" in brighter's "make it
// brighter" also names random_brightness): the augmentation is what a prompt means.
func (p *Parser) sharedWithAugmentation(phrase, entry string) bool {
	toks := tokenize(phrase)
	for i := range toks {
		n := p.root
		for j := i; j < len(toks) && n != nil; j++ {
			n = n.next[toks[j].text]
			if n == nil {
				break
			}
			if n.example || !contains(n.claims, entry) {
				continue
			}
			for _, c := range n.claims {
				if e, ok := p.voc.Entry(c); ok && augmentation(e) {
					return true
				}
			}
		}
	}
	return false
}

// wholePhrase says whether an example phrase can be matched as a whole: one clause
// (no separator), no number, so that it names one transform and leaves values to the
// words around it.
func wholePhrase(ex string) bool {
	toks := tokenize(ex)
	if len(toks) < 2 {
		return false
	}
	for _, t := range toks {
		if t.kind != tWord || separators[t.text] {
			return false
		}
	}
	return true
}

func (p *Parser) addExample(phrase, entry string) {
	if n := p.add(phrase, entry); n != nil && (len(n.claims) == 1 || n.example) {
		n.example = true
	}
}

func (p *Parser) add(phrase, entry string) *node {
	toks := tokenize(phrase)
	if len(toks) == 0 {
		return nil
	}
	n := p.root
	for _, t := range toks {
		if t.kind == tSep {
			return nil
		}
		if n.next == nil {
			n.next = map[string]*node{}
		}
		c := n.next[t.text]
		if c == nil {
			c = &node{}
			n.next[t.text] = c
		}
		n = c
	}
	if !contains(n.claims, entry) {
		n.claims = append(n.claims, entry)
		sort.Strings(n.claims)
	}
	n.phrase = strings.Join(texts(toks), " ")
	n.example = false
	return n
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Options are the settings of one parse.
type Options struct {
	// Strict makes every ambiguity a validation error.
	Strict bool
	// Width and Height are the image's size in pixels, when known: pixel values ("blur
	// 5 px", "crop 512x512") need them to become fractions. Zero: unknown, and such a
	// value stays pending (see Transform.Pending).
	Width, Height int
	// EstimateWidth and EstimateHeight are the size estimated_execution_time is for;
	// zero takes Width and Height, else DefaultEstimateSize.
	EstimateWidth, EstimateHeight int
}

// DefaultEstimateSize is the square image estimated_execution_time assumes when no
// size is stated.
const DefaultEstimateSize = 1024

// Result is what validate_prompt returns.
type Result struct {
	Prompt string `json:"prompt"`
	Valid  bool   `json:"valid"`
	// Preset is a preset the prompt names ("apply the segmentation preset"): the
	// caller runs it as augment_image {preset} does.
	Preset      string      `json:"preset,omitempty"`
	Transforms  []Transform `json:"parsed_transforms"`
	Errors      []Issue     `json:"validation_errors"`
	Suggestions []string    `json:"suggestions"`
	Ambiguities []Ambiguity `json:"ambiguities"`
	Complexity  float64     `json:"complexity_score"`
	Estimate    Estimate    `json:"estimated_execution_time"`
	// Variants is the number of variants the prompt asks for ("5 variants"), 0 when
	// it names none: augment_image's count when the request gives none.
	Variants int `json:"variants,omitempty"`
	// Excluded are the entries the prompt asks not to apply ("no flips"); none of
	// them is in Transforms.
	Excluded []string `json:"excluded,omitempty"`
	// outputSizes counts the values read as an output size no parameter takes.
	outputSizes int
	// context are presets named in clauses that do not ask for them.
	context []contextPreset
	// negated are the words of each negation ("avoid anything that distorts faces
	// like elastic"), read as what the prompt asks not to do.
	negated []string
	// bounds are the words of a bound kept on a parameter of a transform named
	// before ("keep hue at or below 0.05"), each reported as a warning.
	bounds []string
	// described are the token places of phrases that say what the images are
	// ("basically monochrome"): no example phrase makes them a transform.
	described map[int]bool
	// removals are the token places of phrases a removal verb asks to take out of the
	// images ("remove salt and pepper noise"): no transform adds them.
	removals map[int]bool
	// choiceWords are the words that asked for one transform of several ("either",
	// "one of the two"), read as a one_of group.
	choiceWords []string
	// said are the words that state the scale values are written on ("in 0-255
	// pixel units").
	said []string
	// looks are the words of a phrase before "-ish" that say what the next transform
	// looks like ("salt-and-pepper-ish pixel dropout"), each reported as a warning.
	looks []string
	// lackingAt are the places of albumentations transforms darkroom cannot do that
	// the prose named: a clause after one that only says how often is its.
	lackingAt []int
	// choices are the token places [from, to) of the sentences that ask for one
	// transform of several (choiceSentences).
	choices [][2]int
	// choiceBoth are the choices said with "never both", by their first place, to the
	// place of "both": the two transforms before it are the choice, and each one's own
	// p adds up to the group's. choiceAfter are those said with "one of:" a list, to
	// the place of the colon: the transforms after it are the choice.
	choiceBoth, choiceAfter map[int]int
	// choiceSome are the choices said with "pick 2 of the 3", by their first place,
	// to how many of the list each image gets: albumentations' SomeOf.
	choiceSome map[int]int
	// only are the kinds the prompt restricts itself to ("geometry only"), with
	// their words, checked once the prompt is read.
	only [][2]string
	// groupArgs are the words of containers' own arguments (n=2, replace=False),
	// read into their groups.
	groupArgs []string
}

// Transform is one vocabulary entry the prompt asks for, in the entry's own units.
type Transform struct {
	Entry string `json:"entry"`
	// Phrase is the words that named the entry.
	Phrase string `json:"phrase"`
	// Values are parameters given one value; Ranges those given [lo, hi] to sample
	// from. A parameter in neither takes its default.
	Values map[string]float64    `json:"parameters"`
	Ranges map[string][2]float64 `json:"ranges"`
	// Pending are pixel values waiting for the image size (Options.Width, Height).
	Pending []Pending `json:"pending,omitempty"`
	// P is the probability that the transform runs.
	P float64 `json:"p"`
	// Confidence is 1 for an entry named by its name or an alias, less when two
	// entries claim the phrase or when only an example phrase resembled the words.
	Confidence float64 `json:"confidence"`
	// pSet says the words or the code gave P; given are the parameters a value of
	// the words reached (not drawn by default): a later mention of the same entry
	// ("RandomFog ..., fog fairly often, like 70% of the time") adds to them.
	pSet  bool
	given map[string]bool
	// pCode says P is albumentations' default for a call that wrote none: a p the
	// words give each transform ("A.ISONoise() and RGBShift(...), prob 0.3 each")
	// replaces it.
	pCode bool
	// Group is the albumentations container the transform was written in
	// (A.OneOf([...], p=0.2)); nil for a transform on its own.
	Group *Group `json:"group,omitempty"`
	// at is the place in the prompt of the first token of the phrase that named it.
	at int
}

// Group is an albumentations container written in a prompt's code: its kind
// (one_of, some_of, one_or_other, sequential), its p, SomeOf's n and replace, and
// the container around it. Transforms with the same *Group are its members.
type Group struct {
	ID      int     `json:"id"`
	Kind    string  `json:"kind"`
	P       float64 `json:"p"`
	N       int     `json:"n,omitempty"`
	Replace bool    `json:"replace,omitempty"`
	Parent  *Group  `json:"parent,omitempty"`
}

// Pending is a value in pixels that becomes a fraction once the image size is known.
type Pending struct {
	Parameter string  `json:"parameter"`
	Pixels    float64 `json:"pixels"`
	// Of says which side the fraction is of: long_edge, width or height; Margin says
	// the value is the size kept by a crop (two margins of (side - pixels) / 2).
	Of     string `json:"of"`
	Margin bool   `json:"margin,omitempty"`
}

// Issue is a validation error or warning.
type Issue struct {
	Message  string `json:"message"`
	Severity string `json:"severity"` // error or warning
	// Phrase is the words of the prompt the issue left unread (not in any transform):
	// augment_image lists each in its result's skipped_transforms.
	Phrase     string `json:"phrase,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
	Entry      string `json:"entry,omitempty"`
	Parameter  string `json:"parameter,omitempty"`
	// of is 1 + the place of the transform whose words' reading said it; 0 for
	// the rest.
	of int
}

// Ambiguity is a phrase more than one entry claims.
type Ambiguity struct {
	Phrase          string   `json:"phrase"`
	Interpretations []string `json:"interpretations"`
	Chosen          string   `json:"chosen"`
}

// match is a phrase found in the token stream.
type match struct {
	start, end int // tokens [start, end)
	claims     []string
	phrase     string
	example    bool
}

// Parse reads a prompt. It never fails: what it cannot read is an Issue.
func (p *Parser) Parse(text string, opt Options) *Result {
	r := &Result{Prompt: text, Transforms: []Transform{}, Errors: []Issue{}, Suggestions: []string{}, Ambiguities: []Ambiguity{}}
	defer r.finish(p, opt)
	defer p.evenPair(r)
	if len(text) > MaxPromptBytes {
		r.issue("error", fmt.Sprintf("prompt: %d bytes is above the maximum %d", len(text), MaxPromptBytes), "split it into several prompts", "", "")
		return r
	}
	toks := tokenize(text)
	// Edits of pasted code apply once its groups are read (deferred after them).
	var edits *codeEdits
	defer func() { p.applyEdits(r, edits) }()
	spans, args := readGroups(toks)
	r.groupArgs = args
	defer p.groups(r, spans)
	random := false
	for k := range toks {
		switch t := toks[k].text; {
		case toks[k].kind == tSep && (t == "." || t == ";" || t == "!" || t == "?"):
			random = false
		case t == "random" || t == "randomly" || t == "jitter" || t == "jittered" || t == "vary" || t == "varying" || t == "varied":
			random = true
		}
		toks[k].random = random
	}
	p.correct(r, toks)
	p.lackingNames(r, toks)
	p.ampersands(toks)
	toks = p.shareWord(toks)
	toks = p.sizeInside(toks)
	toks = eitherWay(toks)
	toks = evenOdds(toks)
	toks = choiceOften(toks)
	toks = frequencyPercent(toks)
	toks = frequencyPhrases(toks)
	toks = wholeTurn(r, toks)
	toks = odds(toks)
	toks = p.oneEntryParams(toks)
	toks = p.namedParamRun(toks)
	// Before fractionWords: "as a third option" is no third of anything.
	edits = p.readEdits(r, toks)
	scaleStatements(r, toks)
	fractionWords(toks)
	readVariants(r, toks)
	choices := choiceSentences(r, toks)
	defer p.proseGroups(r, toks, choices, len(spans))
	matches := p.negate(r, toks, turnInto(toks, p.compounds(toks, p.matches(toks))))
	p.noneIsZero(r, toks, matches)
	matches = p.otherKinds(r, toks, matches)
	matches = p.explained(r, toks, matches)
	matches = p.splitAlias(toks, sameEntry(toks, matches))
	frame := opt
	var prev clause
	prevN := -1
	for _, cl := range joinModifiers(toks, clauses(toks, matches, p.joinsParameters(toks, matches))) {
		n := len(r.Transforms)
		p.clause(r, toks, cl, frame)
		if len(r.Transforms) == n+1 && prevN >= 0 && prevN+1 == n {
			p.sharedValue(r, toks, prev, cl, opt)
		}
		prev, prevN = cl, n
		frame = p.frameAfter(r.Transforms[n:], frame)
	}
	p.readCalls(r, text, opt)
	p.randomPair(r)
	p.settlePresets(r)
	p.checkOnly(r)
	if len(r.Transforms) == 0 && r.Preset == "" && !r.hasError() && len(r.Excluded) == 0 {
		r.issue("error", "prompt names no transform of the vocabulary", "name an entry or an alias, e.g. "+p.someExamples(), "", "")
	}
	return r
}

// evenPair gives albumentations' p 0.5 to both of a pair of entries that share a
// word and take no value (flip_horizontal, flip_vertical) when both are asked for on
// their own with no p ("flips (both)", "hflip vflip", "h/v flip"): both at p 1 is one
// fixed composite (a 180° turn for the flips), which no one asks for by naming two
// random transforms.
func (p *Parser) evenPair(r *Result) {
	bare := func(t *Transform) (*vocab.Entry, bool) {
		e, _ := p.voc.Entry(t.Entry)
		return e, e != nil && len(e.Parameters) == 0 && augmentation(e) && !t.pSet && t.Group == nil && t.P == 1
	}
	for i := range r.Transforms {
		a, ok := bare(&r.Transforms[i])
		if !ok {
			continue
		}
		for j := i + 1; j < len(r.Transforms); j++ {
			b, ok := bare(&r.Transforms[j])
			if !ok || a.Name == b.Name || !shareNamePart(a.Name, b.Name) {
				continue
			}
			r.Transforms[i].P, r.Transforms[j].P = 0.5, 0.5
		}
	}
}

// shareNamePart says whether two entry names have a word in common (flip_horizontal,
// flip_vertical).
func shareNamePart(a, b string) bool {
	for _, x := range strings.Split(a, "_") {
		for _, y := range strings.Split(b, "_") {
			if x == y {
				return true
			}
		}
	}
	return false
}

// noneIsZero reads "none" or "off" closing a clause right after a parameter's name
// of the transform named before it in the sentence ("Affine: scale 0.9-1.1, rotate
// ±180, shear none") as the value 0: that parameter is left out, as albumentations'
// Affine leaves shear at 0, not at darkroom's default range.
func (p *Parser) noneIsZero(r *Result, toks []token, ms []match) {
	for k := 1; k < len(toks); k++ {
		if w := toks[k].text; toks[k].kind != tWord || toks[k].code || w != "none" && w != "off" || k+1 < len(toks) && toks[k+1].kind != tSep {
			continue
		}
		j := k - 1
		for j > 0 && (toks[j].text == ":" || toks[j].text == "=") {
			j--
		}
		set := false
		for i := len(ms) - 1; i >= 0 && !set; i-- {
			m := ms[i]
			if m.end > j {
				continue
			}
			ended := false
			for q := m.end; q < j; q++ {
				ended = ended || toks[q].kind == tSep && (toks[q].text == "." || toks[q].text == ";" || toks[q].text == "!" || toks[q].text == "?")
			}
			if ended {
				break
			}
			for _, c := range m.claims {
				if e, _ := p.voc.Entry(c); e != nil && paramEndsAt(p.voc, e, toks, max(m.end, j-2), j) {
					r.said = append(r.said, toks[k].text)
					toks[k] = token{kind: tNum, text: toks[k].text, pos: toks[k].pos, depth: toks[k].depth}
					set = true
					break
				}
			}
		}
	}
}

// ampersands read "&" between two words as "and" when the three make a phrase of the
// vocabulary ("crop&pad", "crop & pad" is crop_and_pad's "crop and pad"), so that it
// is not cut into two transforms.
func (p *Parser) ampersands(toks []token) {
	for k := 1; k+1 < len(toks); k++ {
		if toks[k].text != "&" || toks[k].code || toks[k-1].kind != tWord || toks[k+1].kind != tWord {
			continue
		}
		if p.isPhrase([]string{toks[k-1].text, "and", toks[k+1].text}) {
			toks[k].text = "and"
		}
	}
}

// compounds drops a one-word phrase that a hyphen joins to the next word, a word no
// phrase and no English word of words.go has ("crop-row UAV imagery", "blur-free
// scans"): the two are one word of the prose, not the transform.
func (p *Parser) compounds(toks []token, ms []match) []match {
	out := ms[:0]
	for _, m := range ms {
		if n := m.end; m.end == m.start+1 && n < len(toks) && toks[n].hyphen && toks[n].kind == tWord && !toks[n].code && !p.words[toks[n].text] && !knownWord(toks[n].text) && toks[n].text != "ish" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// opposites are the pairs of words that say both ways when joined by "/" or "or"
// ("zoom in/out by 10%", "shift left or right 5%").
var opposites = map[[2]string]bool{
	{"in", "out"}: true, {"up", "down"}: true, {"left", "right"}: true, {"cw", "ccw"}: true,
	{"brighter", "darker"}: true, {"lighter", "darker"}: true, {"more", "less"}: true,
	{"increase", "decrease"}: true, {"plus", "minus"}: true, {"clockwise", "counterclockwise"}: true,
}

// eitherWay reads "in/out by 10%", "up or down 5": a value either way, ±v. The
// second direction word goes (it only said the other way) and a ± stands before the
// number.
func eitherWay(toks []token) []token {
	for k := 0; k+3 < len(toks); k++ {
		a, b := toks[k].text, toks[k+2].text
		if toks[k].code || (toks[k+1].text != "/" && toks[k+1].text != "or") || !opposites[[2]string{a, b}] && !opposites[[2]string{b, a}] {
			continue
		}
		n := k + 3
		for n < len(toks) && n <= k+4 && toks[n].kind == tWord && (toks[n].text == "by" || toks[n].text == "of" || toks[n].text == "to") {
			n++
		}
		if n >= len(toks) || toks[n].kind != tNum || toks[n].signed {
			continue
		}
		pm := token{kind: tWord, text: "±", pos: toks[k+1].pos}
		out := append([]token(nil), toks[:k+1]...)
		out = append(out, toks[k+3:n]...)
		out = append(out, pm)
		toks = append(out, toks[n:]...)
	}
	return toks
}

// namedParamRun reads parameter names of one augmentation that no phrase names, each
// with its value ("r ±40, g ±20, b ±20", "red +-40 green +-20 blue +-20") or listed
// with slashes before as many values ("R/G/B shift 20/20/10"), as that augmentation's
// values: albumentations' users write RGBShift's r_shift_limit, g_shift_limit and
// b_shift_limit so. The entry (an augmentation, not a geometric one, whose parameters
// or their other names are each word, distinct; the one of fewest parameters, unique)
// is named before the run, and the commas inside it no longer cut.
func (p *Parser) namedParamRun(toks []token) []token {
	inMatch := map[int]bool{}
	ms := p.matches(toks)
	for _, m := range ms {
		for k := m.start; k < m.end; k++ {
			inMatch[k] = true
		}
	}
	// namedBefore says the phrase before k in its sentence names e ("rgb shift r
	// 40 g 20 b 10" has its name already).
	namedBefore := func(e *vocab.Entry, k int) bool {
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].end > k {
				continue
			}
			for j := ms[i].end; j < k; j++ {
				if toks[j].kind == tSep && toks[j].text != "," && toks[j].text != ":" {
					return false
				}
			}
			return contains(ms[i].claims, e.Name)
		}
		return false
	}
	free := func(k int) bool {
		return k < len(toks) && toks[k].kind == tWord && !toks[k].code && !inMatch[k] && !knownWord(toks[k].text) && toks[k].text != "±"
	}
	// valueEnd is the end of a value at k (a number, signed or after ±, with its
	// unit, or a range of two), or k when there is none.
	valueEnd := func(k int) int {
		j := k
		if j < len(toks) && (toks[j].text == "±" || toks[j].text == "+-") {
			j++
		}
		if j >= len(toks) || toks[j].kind != tNum || toks[j].code {
			return k
		}
		j++
		if j < len(toks) && units[toks[j].text] != "" && toks[j].kind == tWord {
			j++
		}
		if j+1 < len(toks) && toks[j].text == "to" && toks[j+1].kind == tNum {
			j += 2
			if j < len(toks) && units[toks[j].text] != "" && toks[j].kind == tWord {
				j++
			}
		}
		return j
	}
	// entryOf is the one augmentation whose parameters the words at ks name.
	entryOf := func(ks []int) *vocab.Entry {
		var best *vocab.Entry
		tie := false
		for _, e := range p.voc.Entries {
			if !augmentation(e) || contains(e.Tags, "geometry") {
				continue
			}
			seen := map[string]bool{}
			ok := true
			for _, k := range ks {
				pn := paramsAt(p.voc, e, toks, k)
				if pn.width != 1 || len(pn.params) != 1 || seen[pn.params[0]] {
					ok = false
					break
				}
				seen[pn.params[0]] = true
			}
			switch {
			case !ok:
			case best == nil || len(e.Parameters) < len(best.Parameters):
				best, tie = e, false
			case len(e.Parameters) == len(best.Parameters):
				tie = true
			}
		}
		if tie {
			return nil
		}
		return best
	}
	name := func(e *vocab.Entry, at token) []token {
		var out []token
		for _, w := range texts(tokenize(strings.ReplaceAll(e.Name, "_", " "))) {
			t := at
			t.kind, t.text, t.typo, t.num, t.signed = tWord, w, "", 0, false
			out = append(out, t)
		}
		return out
	}
	var out []token
	for k := 0; k < len(toks); k++ {
		if !free(k) || k > 0 && toks[k-1].text == "/" {
			out = append(out, toks[k])
			continue
		}
		// "r/g/b shift 20/20/10": names joined by slashes, words of the entry's
		// name, then one value or as many joined by slashes.
		ks := []int{k}
		j := k + 1
		for j+1 < len(toks) && toks[j].text == "/" && free(j+1) {
			ks = append(ks, j+1)
			j += 2
		}
		if len(ks) >= 2 {
			e := entryOf(ks)
			if e == nil || namedBefore(e, k) {
				out = append(out, toks[k])
				continue
			}
			m := j
			for m < len(toks) && toks[m].kind == tWord && !toks[m].code && contains(strings.Split(e.Name, "_"), toks[m].text) {
				m++
			}
			var vs [][2]int
			for v := m; ; {
				end := valueEnd(v)
				if end == v {
					break
				}
				vs = append(vs, [2]int{v, end})
				if end+1 < len(toks) && toks[end].text == "/" {
					v = end + 1
					continue
				}
				break
			}
			if len(vs) != len(ks) && len(vs) != 1 {
				out = append(out, toks[k])
				continue
			}
			out = append(out, name(e, toks[k])...)
			for i, at := range ks {
				out = append(out, toks[at])
				v := vs[0]
				if len(vs) > 1 {
					v = vs[i]
				}
				out = append(out, toks[v[0]:v[1]]...)
				if i+1 < len(ks) {
					out = append(out, token{kind: tWord, text: "and", pos: toks[at].pos, depth: toks[at].depth})
				}
			}
			// The words of its name said after the names ("shift") are the
			// name written before them.
			k = vs[len(vs)-1][1] - 1
			continue
		}
		// "r ±40, g ±20, b ±20": each name with its value.
		type named struct{ at, end int }
		var run []named
		for j := k; free(j); {
			end := valueEnd(j + 1)
			if end == j+1 {
				break
			}
			run = append(run, named{j, end})
			j = end
			if j < len(toks) && (toks[j].text == "," || toks[j].text == "and") && !toks[j].code {
				j++
			}
		}
		if len(run) < 2 {
			out = append(out, toks[k])
			continue
		}
		ks = ks[:0]
		for _, n := range run {
			ks = append(ks, n.at)
		}
		e := entryOf(ks)
		if e == nil || namedBefore(e, k) {
			out = append(out, toks[k])
			continue
		}
		out = append(out, name(e, toks[k])...)
		for i, n := range run {
			out = append(out, toks[n.at:n.end]...)
			if i+1 < len(run) {
				out = append(out, token{kind: tWord, text: "and", pos: toks[n.end].pos, depth: toks[n.at].depth})
			}
		}
		k = run[len(run)-1].end - 1
	}
	return out
}

// randomPair gives each of the two transforms of a pair that take no value ("h/v
// flips", "hflip + vflip", "flip both ways": flip_horizontal and flip_vertical, the
// only entries whose names share a word no other entry's has) p 0.5 when the prompt
// asks for both and gives neither a p: both always would be one fixed turn of 180
// degrees, no augmentation; albumentations' HorizontalFlip and VerticalFlip run at
// their default p 0.5.
func (p *Parser) randomPair(r *Result) {
	for i := range r.Transforms {
		a := &r.Transforms[i]
		for j := i + 1; j < len(r.Transforms); j++ {
			b := &r.Transforms[j]
			if a.pSet || b.pSet || a.pCode || b.pCode || a.Group != nil || b.Group != nil || a.P != 1 || b.P != 1 || !p.pair(a.Entry, b.Entry) {
				continue
			}
			a.P, b.P = 0.5, 0.5
		}
	}
}

// pair says whether entries a and b take no value and share a word of their names
// that no other entry's name has.
func (p *Parser) pair(a, b string) bool {
	ea, ok1 := p.voc.Entry(a)
	eb, ok2 := p.voc.Entry(b)
	if !ok1 || !ok2 || a == b || len(ea.Parameters) > 0 || len(eb.Parameters) > 0 || !augmentation(ea) || !augmentation(eb) {
		return false
	}
	for _, w := range strings.Split(a, "_") {
		if !contains(strings.Split(b, "_"), w) {
			continue
		}
		n := 0
		for _, e := range p.voc.Entries {
			if contains(strings.Split(e.Name, "_"), w) {
				n++
			}
		}
		if n == 2 {
			return true
		}
	}
	return false
}

// wholeTurn reads a turn to any angle as the whole turn, ±180 degrees: an
// unboundedWord beside an angleWord ("rotate to any angle", "arbitrary rotations",
// "rotate freely"), "full 360" or "full circle", a range "0-360" and a bare 360
// right after an angleWord ("rotation 0-360", "rotate ±360 degrees"). Albumentations'
// Rotate(limit=180) draws from the whole turn; limit=360 draws the same angles.
func wholeTurn(r *Result, toks []token) []token {
	word := func(k int) string {
		if k >= 0 && k < len(toks) && toks[k].kind == tWord && !toks[k].code {
			return toks[k].text
		}
		return ""
	}
	turn := func(at token) []token {
		r.said = append(r.said, at.text)
		return []token{
			{kind: tWord, text: "±", pos: at.pos, depth: at.depth, random: at.random},
			{kind: tNum, text: "180", num: 180, pos: at.pos, depth: at.depth, random: at.random},
			{kind: tWord, text: "°", pos: at.pos, depth: at.depth, random: at.random},
		}
	}
	is360 := func(k int) bool {
		return k < len(toks) && toks[k].kind == tNum && !toks[k].code && math.Abs(toks[k].num) == 360
	}
	// degreeAfter is the end of a number at k with its degree word, if any.
	degreeAfter := func(k int) int {
		if units[word(k+1)] == "deg" {
			return k + 2
		}
		return k + 1
	}
	var out []token
	for k := 0; k < len(toks); k++ {
		w := word(k)
		switch {
		case unboundedWords[w] && (angleWords[word(k+1)] || angleWords[word(k-1)] || word(k-1) == "to" && angleWords[word(k-2)] || word(k+1) == "of" && angleWords[word(k+2)]):
			// "any angle", "rotate freely", "rotate to any orientation".
			out = append(out, turn(toks[k])...)
			continue
		case w == "full" && (is360(k+1) || word(k+1) == "circle" || word(k+1) == "turn"):
			// "full 360", "a full circle".
			out = append(out, turn(toks[k])...)
			k++
			r.said = append(r.said, toks[k].text)
			if is360(k) {
				k = degreeAfter(k) - 1
			}
			continue
		case toks[k].kind == tNum && toks[k].num == 0 && word(k+1) == "to" && is360(k+2) && len(out) > 0 && angleWords[out[len(out)-1].text]:
			// "rotation 0-360": any angle.
			out = append(out, turn(toks[k])...)
			k = degreeAfter(k+2) - 1
			continue
		case is360(k) && (angleWords[word(k-1)] || word(k-1) == "±" && angleWords[word(k-2)]):
			// "rotate 360 degrees", "rotate ±360".
			if word(k-1) == "±" {
				out = out[:len(out)-1]
			}
			out = append(out, turn(toks[k])...)
			k = degreeAfter(k) - 1
			continue
		}
		out = append(out, toks[k])
	}
	return out
}

// fractionWords reads "to a quarter of its resolution", "by half": a fraction word
// after a, one, to or by that no "of the images" makes a portion is a number.
// evenOdds reads "50/50" outside code ("hflip 50/50") as "half the time": even odds.
func evenOdds(toks []token) []token {
	var out []token
	for k := 0; k < len(toks); k++ {
		if toks[k].text == "50/50" && !toks[k].code {
			for _, w := range []string{"half", "the", "time"} {
				out = append(out, token{kind: tWord, text: w, pos: toks[k].pos, depth: toks[k].depth})
			}
			continue
		}
		out = append(out, toks[k])
	}
	return out
}

// shareWord reads two words joined by and, &, +, / or or that share the word after
// them ("h and v flips", "horizontal & vertical flips") or before them ("flip h and
// v", "flip lr+ud") as two phrases: "h flips and v flips", "flip h and flip v". Each
// word makes a phrase of the vocabulary with the shared one and is none alone, so
// "brightness and contrast jitter" and "salt and pepper noise" stay as they are.
func (p *Parser) shareWord(toks []token) []token {
	word := func(k int) string {
		if k >= 0 && k < len(toks) && toks[k].kind == tWord && !toks[k].code {
			return toks[k].text
		}
		return ""
	}
	phrase := func(ws ...string) bool {
		if p.isPhrase(ws) {
			return true
		}
		last := ws[len(ws)-1]
		for _, suf := range []string{"s", "es"} {
			if len(last) > len(suf)+2 && strings.HasSuffix(last, suf) {
				ws[len(ws)-1] = strings.TrimSuffix(last, suf)
				ok := p.isPhrase(ws)
				ws[len(ws)-1] = last
				if ok {
					return true
				}
			}
		}
		return false
	}
	joins := map[string]bool{"and": true, "&": true, "+": true, "/": true, "or": true}
	for k := 0; k+3 <= len(toks); k++ {
		a, j, b := word(k), word(k+1), word(k+2)
		if a == "" || b == "" || a == b || !joins[j] || opposites[[2]string{a, b}] || opposites[[2]string{b, a}] {
			// "zoom in/out by 10%" is one zoom either way (eitherWay).
			continue
		}
		if n := word(k + 3); n != "" && !phrase(a) && !phrase(b) && phrase(a, n) && phrase(b, n) {
			// "h and v flips": the word after is both's.
			id := toks[k].pos + 1
			toks[k].pair, toks[k+2].pair, toks[k+3].pair = id, id, id
			out := append([]token(nil), toks[:k+1]...)
			out = append(out, toks[k+3], toks[k+1], toks[k+2])
			toks = append(out, toks[k+3:]...)
			k += 4
			continue
		}
		h := word(k - 1)
		if hs := strings.TrimSuffix(h, "s"); hs != h && len(hs) > 2 && !phrase(h, a) && phrase(hs, a) && phrase(hs, b) {
			// "flips h+v": the plural of the word before is each one's.
			h = hs
		}
		if h != "" && !phrase(b) && phrase(h, a) && phrase(h, b) && !p.isPhrase([]string{h, a, j, b}) {
			// "flip h and v": the word before is both's.
			id := toks[k-1].pos + 1
			toks[k-1].pair, toks[k].pair, toks[k+2].pair = id, id, id
			out := append([]token(nil), toks[:k+2]...)
			out = append(out, toks[k-1])
			toks = append(out, toks[k+2:]...)
			k += 3
		}
	}
	return toks
}

// paramRunWords may stand between the phrases of a run oneEntryParams reads: the
// values, units and range words of the phrase before, and what joins two of them.
var paramRunWords = map[string]bool{
	"and": true, "&": true, "/": true, "by": true, "up": true, "to": true, "of": true, "±": true,
	"+": true, "-": true, "+-": true, "=": true, "random": true, "randomly": true, "between": true,
	"from": true, "with": true, "limit": true, "range": true, "max": true, "at": true, "most": true,
}

// oneEntryParams reads phrases that each name a transform of their own but together
// are the parameters of one augmentation ("brightness ±0.2, contrast ±0.15": the two
// limits of RandomBrightnessContrast; "hue ±10, saturation ±20" HueSaturationValue's)
// as that one transform, as albumentations' users write them: the entry, not a
// geometric one, whose parameters (or their other names) are one word of each phrase,
// the one of fewest parameters when several are (brightness and contrast are
// brightness_contrast's, not color_jitter's), then of fewest other words in its name,
// is named before the first, and the commas between them no longer cut. Only phrases
// in one sentence with nothing between them but their values and range words are
// joined (a negator, a p or a word of frequency between keeps them apart), and only
// when no transform named before them in the sentence takes the first as its own.
func (p *Parser) oneEntryParams(toks []token) []token {
	ms := p.matches(toks)
	sentenceEnd := func(t token) bool {
		return t.kind == tSep && t.text != ","
	}
	// word returns the one word of m that is not "random" nor a value's, or -1
	// (an example phrase may hold a value: "scale ±").
	word := func(m match) int {
		at := -1
		for k := m.start; k < m.end; k++ {
			if toks[k].code {
				return -1
			}
			if toks[k].kind == tNum || toks[k].text == "random" || toks[k].text == "randomly" || paramRunWords[toks[k].text] || units[toks[k].text] != "" {
				continue
			}
			if toks[k].kind != tWord {
				return -1
			}
			if at >= 0 {
				return -1
			}
			at = k
		}
		return at
	}
	joined := func(a, b match) bool {
		// Each phrase but the last carries its own value: "contrast and brightness
		// ±30%" is two limits of one change (shared), not this.
		valued := false
		for k := a.end; k < b.start; k++ {
			valued = valued || toks[k].kind == tNum
		}
		if !valued {
			return false
		}
		for k := a.end; k < b.start; k++ {
			t := toks[k]
			switch {
			case t.code || sentenceEnd(t):
				return false
			case t.kind == tNum || t.kind == tSep:
			case t.kind == tWord && (paramRunWords[t.text] || units[t.text] != ""):
			default:
				return false
			}
		}
		return true
	}
	var out []token
	done := 0
	for i := 0; i < len(ms); {
		j := i + 1
		for j < len(ms) && word(ms[j-1]) >= 0 && word(ms[j]) >= 0 && joined(ms[j-1], ms[j]) {
			j++
		}
		run := ms[i:j]
		if len(run) < 2 || word(run[0]) < 0 {
			i = j
			continue
		}
		var best *vocab.Entry
		tie := false
		for _, e := range p.voc.Entries {
			// Not a geometric one: "random scale 0.9-1.1 and translate 5%" may ask
			// for RandomScale, which resizes, beside a shift.
			if !augmentation(e) || contains(e.Tags, "geometry") {
				continue
			}
			seen := map[string]bool{}
			ok := true
			for _, m := range run {
				pn := paramsAt(p.voc, e, toks, word(m))
				if pn.width != 1 || seen[pn.params[0]] {
					ok = false
					break
				}
				seen[pn.params[0]] = true
			}
			if !ok {
				continue
			}
			// Fewest parameters, then fewest words of its name that are none of
			// the phrases' (brightness_contrast before plasma_brightness_contrast).
			extra := func(e *vocab.Entry) int {
				n := 0
				for _, w := range strings.Split(e.Name, "_") {
					in := false
					for _, m := range run {
						in = in || toks[word(m)].text == w
					}
					if !in {
						n++
					}
				}
				return n
			}
			switch {
			case best == nil || len(e.Parameters) < len(best.Parameters) || len(e.Parameters) == len(best.Parameters) && extra(e) < extra(best):
				best, tie = e, false
			case len(e.Parameters) == len(best.Parameters) && extra(e) == extra(best):
				tie = true
			}
		}
		if best == nil || tie || p.takenBefore(toks, ms[:i], run[0]) {
			i = j
			continue
		}
		all := true
		for _, m := range run {
			all = all && len(m.claims) == 1 && m.claims[0] == best.Name
		}
		if all {
			i = j
			continue
		}
		out = append(out, toks[done:run[0].start]...)
		for _, w := range texts(tokenize(strings.ReplaceAll(best.Name, "_", " "))) {
			t := toks[run[0].start]
			t.kind, t.text, t.typo = tWord, w, ""
			out = append(out, t)
		}
		// "random" inside a phrase ("random contrast") goes: it would make the
		// phrase a transform's name again; the words after it still read it.
		inRun := map[int]bool{}
		for _, m := range run {
			for k := m.start; k < m.end; k++ {
				inRun[k] = toks[k].text == "random" || toks[k].text == "randomly"
			}
		}
		last := run[len(run)-1]
		for k := run[0].start; k < last.end; k++ {
			t := toks[k]
			if inRun[k] {
				continue
			}
			if t.kind == tSep {
				t.kind, t.text = tWord, "and"
			}
			out = append(out, t)
		}
		done = last.end
		i = j
	}
	if done == 0 {
		return toks
	}
	return append(out, toks[done:]...)
}

// takenBefore says whether a transform named before m in its sentence takes m's
// words as a parameter of its own ("color jitter: brightness 0.2, contrast 0.2").
func (p *Parser) takenBefore(toks []token, before []match, m match) bool {
	for i := len(before) - 1; i >= 0; i-- {
		for k := before[i].end; k < m.start; k++ {
			if toks[k].kind == tSep && toks[k].text != "," {
				return false
			}
		}
		for _, c := range before[i].claims {
			if e, ok := p.voc.Entry(c); ok {
				for k := m.start; k < m.end; k++ {
					if paramsAt(p.voc, e, toks, k).width > 0 {
						return true
					}
				}
			}
		}
	}
	return false
}

// turnInto drops the phrase "turn" when "into" follows it in its clause before any
// number or other phrase, or "to" right before the next phrase ("turn one image in
// ten to grayscale"): "turn the daytime shots into night shots" asks to change
// what the images show, no rotation. Its words stay, listed as unread.
func turnInto(toks []token, ms []match) []match {
	var out []match
	for i, m := range ms {
		if m.end-m.start == 1 && toks[m.start].text == "turn" && !toks[m.start].code {
			next := len(toks)
			if i+1 < len(ms) {
				next = ms[i+1].start
			}
			into := false
			for j := m.end; j < next && toks[j].kind == tWord && !separators[toks[j].text]; j++ {
				into = into || toks[j].text == "into"
			}
			// "turn one image in ten to grayscale": "to" right before the next
			// phrase says what the images become, as "into" does.
			for j := m.end; !into && i+1 < len(ms) && j < next && toks[j].kind != tSep && !separators[toks[j].text]; j++ {
				if toks[j].text == "to" {
					rest := true
					for q := j + 1; q < next; q++ {
						rest = rest && toks[q].kind == tWord && filler[toks[q].text]
					}
					into = rest
				}
			}
			if into {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// choiceOften reads a lone percentage right after the words that make an "or" list
// a choice ("sharpen or emboss (one), 25%", "grid or optical distortion (one of
// them) 25%") as how often the choice runs, "25% of the time": the choice's p
// (proseGroups), not a strength of its last member.
func choiceOften(toks []token) []token {
	word := func(k int) string {
		if k >= 0 && k < len(toks) && toks[k].kind == tWord && !toks[k].code {
			return toks[k].text
		}
		return ""
	}
	or := false
	for k := 0; k < len(toks); k++ {
		if toks[k].kind == tSep && (toks[k].text == "." || toks[k].text == ";" || toks[k].text == "!" || toks[k].text == "?") {
			or = false
		}
		if word(k) == "or" {
			or = true
		}
		if !or || word(k) != "one" {
			continue
		}
		j := k + 1
		if word(j) == "of" {
			j++
			switch {
			case word(j) == "them" || word(j) == "these" || word(j) == "those":
				j++
			case word(j) == "the" && numberWords[word(j+1)] >= 2:
				j += 2
			}
		}
		for j < len(toks) && toks[j].kind == tSep && toks[j].text == "," {
			j++
		}
		if j+1 >= len(toks) || toks[j].kind != tNum || toks[j].signed || toks[j].code || toks[j+1].text != "%" || j+2 < len(toks) && toks[j+2].kind != tSep {
			continue
		}
		var out []token
		out = append(out, toks[:j+2]...)
		for _, w := range []string{"of", "the", "time"} {
			out = append(out, token{kind: tWord, text: w, pos: toks[j+1].pos, depth: toks[j+1].depth})
		}
		toks = append(out, toks[j+2:]...)
		k = j + 4
	}
	return toks
}

// frequencyPercent reads a percentage right after a word of how often ("a sun flare
// occasionally (~10%)", "rarely, like 5%") as what the word meant: "10% of the
// time", the transform's p, not a strength, in place of the word.
func frequencyPercent(toks []token) []token {
	for k := 0; k < len(toks); k++ {
		if toks[k].kind != tWord || toks[k].code || frequency[toks[k].text] == 0 || toks[k].text == "always" {
			continue
		}
		j := k + 1
		for j < len(toks) && (toks[j].kind == tWord && !toks[j].code && (approx[toks[j].text] || toks[j].text == "like" || toks[j].text == "say") || toks[j].kind == tSep && toks[j].text == ",") {
			j++
		}
		if j+1 >= len(toks) || toks[j].kind != tNum || toks[j].signed || toks[j].code || toks[j].num > 100 || toks[j+1].text != "%" {
			continue
		}
		if j+2 < len(toks) && toks[j+2].kind == tWord && (toks[j+2].text == "of" || toks[j+2].text == "chance" || toks[j+2].text == "each" || toks[j+2].text == "probability") {
			// "rarely (like 5%) each", "often, like 70% of the time": said already.
			continue
		}
		var out []token
		out = append(out, toks[:k]...)
		out = append(out, toks[k+1:j+2]...)
		for _, w := range []string{"of", "the", "time"} {
			out = append(out, token{kind: tWord, text: w, pos: toks[j+1].pos, depth: toks[j+1].depth})
		}
		toks = append(out, toks[j+2:]...)
		k = j + 3
	}
	return toks
}

// frequencyPhrases reads the phrases of how often that are made of other words ("now
// and then", "from time to time", "every so often", "once in a while") as the one word
// of frequencyPhrase: their "and" and "then" would cut the clause and "now" is filler,
// so read word by word they said nothing at all.
func frequencyPhrases(toks []token) []token {
	var out []token
	for k := 0; k < len(toks); k++ {
		n := 0
		for _, ph := range frequencyPhrase {
			if len(ph) > n && k+len(ph) <= len(toks) {
				ok := true
				for i, w := range ph {
					ok = ok && toks[k+i].kind == tWord && !toks[k+i].code && toks[k+i].text == w
				}
				if ok {
					n = len(ph)
				}
			}
		}
		if n == 0 {
			out = append(out, toks[k])
			continue
		}
		t := toks[k]
		t.text = frequencyPhraseWord
		out = append(out, t)
		k += n - 1
	}
	return out
}

// scaleStatements reads "(in 0-255 pixel units)", "on a 0-255 scale": what scale the
// prompt's values are on, no value of a transform. The words are consumed (kept in
// Result.said); a value outside its parameter's range is then read on 0..255 as
// albumentations' uint8 levels are (see albumentationsUnits).
func scaleStatements(r *Result, toks []token) {
	for k := 0; k+2 < len(toks); k++ {
		t := toks[k]
		if t.kind != tNum || t.num != 0 || t.code || toks[k+1].text != "to" && toks[k+1].text != "-" || toks[k+2].kind != tNum || toks[k+2].num != 255 && toks[k+2].num != 1 {
			continue
		}
		end := k + 3
		for end < len(toks) && toks[end].kind == tWord && scaleNouns[toks[end].text] {
			end++
		}
		from := k
		for from > 0 && toks[from-1].kind == tWord && (toks[from-1].text == "in" || toks[from-1].text == "on" || toks[from-1].text == "a") {
			from--
		}
		if end == k+3 && from == k {
			// "0-255" alone may be a range of a value ("fill 0-255").
			continue
		}
		r.said = append(r.said, joinTokens(toks[from:end]))
		for j := from; j < end; j++ {
			toks[j] = consumed(toks[j])
		}
		k = end - 1
	}
}

// odds reads how often written as odds or as a place: "1 in 10", "one in twenty",
// "2 out of 5" are p 0.1, 0.05 and 0.4; "on everything", "to every image", "on all
// images" are always; "at 30%" closing a clause ("motion blur k=9 at 30%") is 30% of
// the time, not a strength. Each becomes the words the probability readers know.
func odds(toks []token) []token {
	num := func(k int) (float64, bool) {
		if k >= len(toks) || toks[k].code {
			return 0, false
		}
		if toks[k].kind == tNum && !toks[k].signed {
			return toks[k].num, true
		}
		if n, ok := numberWords[toks[k].text]; ok && toks[k].kind == tWord {
			return float64(n), true
		}
		if toks[k].text == "one" && toks[k].kind == tWord {
			return 1, true
		}
		return 0, false
	}
	word := func(k int) string {
		if k >= 0 && k < len(toks) && toks[k].kind == tWord {
			return toks[k].text
		}
		return ""
	}
	mk := func(at token, ws ...string) []token {
		var out []token
		for _, w := range ws {
			t := token{kind: tWord, text: w, pos: at.pos, depth: at.depth, random: at.random}
			if n, err := strconv.ParseFloat(w, 64); err == nil {
				t.kind, t.num = tNum, n
			}
			out = append(out, t)
		}
		return out
	}
	var out []token
	for k := 0; k < len(toks); k++ {
		if a, ok := num(k); ok && a >= 1 && a == math.Trunc(a) {
			j := k + 1
			if w := word(j); j+1 < len(toks) && word(j+1) == "in" && (portionNouns[w] || portionNouns[w+"s"]) {
				// "one image in ten": the noun before "in" is the portion's too.
				j++
			}
			if word(j) == "out" && word(j+1) == "of" {
				j++
			}
			if word(j) == "in" || word(j) == "of" && word(j-1) == "out" {
				if b, ok := num(j + 1); ok && b > a && b == math.Trunc(b) {
					// "1 in 10 images": the noun after is the portion's.
					end := j + 2
					if portionNouns[word(end)] || word(end) == "imgs" {
						end++
					}
					out = append(out, mk(toks[k], "p", "=", strconv.FormatFloat(a/b, 'g', 6, 64))...)
					k = end - 1
					continue
				}
			}
		}
		if word(k) == "every" && word(k+1) == "single" && (word(k+2) == "one" || word(k+2) == "image" || word(k+2) == "photo" || word(k+2) == "frame") && !toks[k].code {
			// "all my images, every single one": always.
			out = append(out, mk(toks[k], "always")...)
			k += 2
			continue
		}
		if w := word(k); (w == "on" || w == "to" || w == "for") && !toks[k].code {
			n := 0
			switch {
			case word(k+1) == "everything" || word(k+1) == "all" && word(k+2) == "of" && word(k+3) == "them":
				n = 1
				if word(k+1) == "all" {
					n = 3
				}
			case (word(k+1) == "every" || word(k+1) == "each" || word(k+1) == "all") && (portionNouns[word(k+2)] || word(k+2) == "image" || word(k+2) == "photo" || word(k+2) == "imgs" || word(k+2) == "img" || word(k+2) == "frame" || word(k+2) == "sample" || word(k+2) == "one"):
				n = 2
			}
			if n > 0 {
				out = append(out, mk(toks[k], "always")...)
				k += n
				continue
			}
		}
		if toks[k].kind == tNum && !toks[k].code && !toks[k].signed && k+2 < len(toks) && (toks[k+1].text == "%" || toks[k+1].text == "percent") && word(k+2) == "overall" {
			// "30% overall": of the time, said of a group or of all.
			out = append(out, toks[k], toks[k+1])
			out = append(out, mk(toks[k+1], "of", "the", "time")...)
			k += 2
			continue
		}
		if (word(k) == "at" || word(k) == "on") && !toks[k].code && k+2 < len(toks) && toks[k+1].kind == tNum && !toks[k+1].signed && (toks[k+2].text == "%" || toks[k+2].text == "percent") {
			// So does "on 10%" ("a light gaussian blur on 10% to mimic altitude
			// changes"): on a portion of the images, whatever words say why.
			if e := k + 3; e == len(toks) || toks[e].kind == tSep || toks[e].kind == tNum || word(e) == "each" || word(e) == "overall" || word(e) == "of" || word(e) == "and" || word(e) == "chance" || word(e) == "probability" || word(k) == "on" && purposeWords[word(e)] {
				// "at 30%": how often; "of the time" makes it a portion the readers know.
				out = append(out, toks[k+1], toks[k+2])
				if word(e) != "of" && word(e) != "chance" && word(e) != "probability" {
					out = append(out, mk(toks[k+2], "of", "the", "time")...)
				}
				k += 2
				continue
			}
		}
		if (word(k) == "on" || word(k) == "for") && !toks[k].code && k+1 < len(toks) {
			// "random 90 degree rotations on half", "for a quarter": on that
			// portion of the images, closing the step.
			j := k + 1
			if word(j) == "a" || word(j) == "one" {
				j++
			}
			if f, ok := portion[word(j)]; ok && f > 0 && !intensityOnly[word(j)] {
				if e := j + 1; e == len(toks) || toks[e].kind == tSep || word(e) == "and" || word(e) == "then" || purposeWords[word(e)] {
					out = append(out, toks[j])
					out = append(out, mk(toks[j], "the", "time")...)
					k = j
					continue
				}
			}
		}
		if (word(k) == "-" || word(k) == "—" || word(k) == "–") && word(k+1) == "each" && !toks[k].code {
			// "A, B and C - each at 5%": the dash closes the list as a comma does.
			t := toks[k]
			t.kind, t.text = tSep, ","
			out = append(out, t)
			continue
		}
		if word(k) == "each" && (word(k+1) == "one" || word(k+1) == "independently" || word(k+1) == "separately") && !toks[k].code {
			// "each one independently at 5%": each, as "each at 5%".
			out = append(out, toks[k])
			for k+1 < len(toks) && (word(k+1) == "one" || word(k+1) == "independently" || word(k+1) == "separately") {
				k++
			}
			continue
		}
		if word(k) == "at" && !toks[k].code && k+1 < len(toks) && toks[k+1].kind == tNum && !toks[k+1].signed && toks[k+1].num > 0 && toks[k+1].num < 1 && (k+2 == len(toks) || toks[k+2].kind == tSep) {
			// "motion blur at 0.2, kernel up to 9": a fraction closing its clause
			// after "at" is how often, as "at 20%" is.
			out = append(out, mk(toks[k], "p", "=")...)
			out = append(out, toks[k+1])
			k++
			continue
		}
		out = append(out, toks[k])
	}
	return out
}

// intensityOnly are portion words that closing a step say how much rather than how
// many ("on some" is too vague to be a portion of images).
var intensityOnly = map[string]bool{"some": true, "few": true, "many": true}

func fractionWords(toks []token) {
	for k := 1; k < len(toks); k++ {
		f, ok := fractions[toks[k].text]
		if !ok || toks[k].code || toks[k].kind != tWord {
			continue
		}
		if w := toks[k-1].text; w != "a" && w != "one" && w != "to" && w != "by" {
			continue
		}
		if k+1 < len(toks) && toks[k+1].text == "of" {
			j := k + 2
			if j < len(toks) && (toks[j].text == "the" || toks[j].text == "them" || toks[j].text == "all") {
				j++
			}
			if j >= len(toks) || portionNouns[toks[j].text] || toks[k+2].text == "them" {
				continue
			}
		}
		if k+1 < len(toks) && (portionNouns[toks[k+1].text] || toks[k+1].text == "the") {
			// "half the images", "a third the time".
			continue
		}
		toks[k].kind, toks[k].num = tNum, f
	}
}

// fractions are the words of a fraction as numbers.
var fractions = map[string]float64{"half": 0.5, "third": 1.0 / 3, "quarter": 0.25, "fifth": 0.2, "tenth": 0.1}

// groupKinds are albumentations' containers as pipeline groups, with their default p
// in albumentations 1.3.1 (core/composition.py).
var groupKinds = map[string]struct {
	kind string
	p    float64
}{
	"oneof": {"one_of", 0.5}, "someof": {"some_of", 1}, "oneorother": {"one_or_other", 0.5}, "sequential": {"sequential", 0.5},
}

// readGroups reads the containers written in code (A.OneOf([A.Blur(), ...],
// p=0.2)): each one's kind, its own p (n, replace) from its arguments, which it
// consumes, and the token positions its brackets hold.
func readGroups(toks []token) ([]groupSpan, []string) {
	var spans []groupSpan
	var args []string
	for c, t := range toks {
		gk, ok := groupKinds[t.text]
		if !t.call || !ok {
			continue
		}
		g := &Group{ID: len(spans) + 1, Kind: gk.kind, P: gk.p}
		end := c + 1
		for end < len(toks) && toks[end].depth > t.depth {
			end++
		}
		// Its own arguments are one bracket deeper than its name: p=0.2, n=2.
		for k := c + 1; k+2 < end; k++ {
			if toks[k].depth != t.depth+1 || toks[k+1].text != "=" || toks[k].kind != tWord {
				continue
			}
			switch {
			case toks[k].text == "p" && toks[k+2].kind == tNum:
				g.P = toks[k+2].num
			case toks[k].text == "n" && toks[k+2].kind == tNum:
				g.N = int(toks[k+2].num)
			case toks[k].text == "replace":
				g.Replace = toks[k+2].text == "true"
			default:
				continue
			}
			args = append(args, joinTokens(toks[k:k+3]))
			for j := k; j <= k+2; j++ {
				toks[j] = consumed(toks[j])
			}
		}
		if g.Kind == "some_of" && g.N == 0 {
			g.N = 1
		}
		to := toks[len(toks)-1].pos + 1
		if end < len(toks) {
			to = toks[end].pos
		}
		spans = append(spans, groupSpan{g: g, from: toks[c].pos, to: to})
	}
	// The container around each: the narrowest other span that holds it.
	for i := range spans {
		best := -1
		for j := range spans {
			if i != j && spans[j].from < spans[i].from && spans[i].to <= spans[j].to && (best < 0 || spans[j].from > spans[best].from) {
				best = j
			}
		}
		if best >= 0 {
			spans[i].g.Parent = spans[best].g
		}
	}
	return spans, args
}

// groups makes each transform named inside a container's brackets its member, the
// innermost container's; a container none of whose transforms was read is listed.
func (p *Parser) groups(r *Result, spans []groupSpan) {
	used := map[*Group]bool{}
	for i := range r.Transforms {
		t := &r.Transforms[i]
		from := -1
		for _, s := range spans {
			if t.at > s.from && t.at < s.to && s.from > from {
				t.Group, from = s.g, s.from
			}
		}
		for g := t.Group; g != nil; g = g.Parent {
			used[g] = true
		}
	}
	for _, s := range spans {
		if !used[s.g] {
			r.unread(s.g.Kind, fmt.Sprintf("%s: none of its transforms was read, so it is not kept", s.g.Kind), "", "")
		}
	}
}

// choiceSentences finds the sentences that ask for one transform of several, as
// albumentations' OneOf does: "either A or B", "A or B, pick one", "one or the other,
// not both", "one of the two". It consumes the words that say so and returns each
// sentence's token places [from, to).
// listAfter says whether seg holds a list's joint outside code: "/", "or" or a comma.
func listAfter(seg []token) bool {
	for _, t := range seg {
		if !t.code && (t.text == "/" || t.text == "or" || t.text == ",") {
			return true
		}
	}
	return false
}

func choiceSentences(r *Result, toks []token) [][2]int {
	var out [][2]int
	word := func(k int) string {
		if k >= 0 && k < len(toks) && toks[k].kind == tWord && !toks[k].code {
			return toks[k].text
		}
		return ""
	}
	start, prevStart := 0, -1
	for k := 0; k <= len(toks); k++ {
		if k < len(toks) && !(toks[k].kind == tSep && (toks[k].text == "." || toks[k].text == ";" || toks[k].text == "!" || toks[k].text == "?")) {
			continue
		}
		var said []int
		or, both, after, some, back := false, -1, -1, 0, -1
		for j := start; j < k; j++ {
			switch {
			case word(j) == "or":
				or = true
			case word(j) == "either":
				said = append(said, j)
			case word(j) == "one" && word(j+1) == "or" && word(j+2) == "the" && word(j+3) == "other":
				said = append(said, j, j+1, j+2, j+3)
				j += 3
			case (word(j) == "not" || word(j) == "never") && word(j+1) == "both":
				// "ToSepia 10% and ToGray 10%, but never both on the same image":
				// the words say one of them, "or" or not; what each was given
				// adds up (proseGroups).
				said = append(said, j, j+1)
				both = toks[j+1].pos
				j++
				// "on the same image", "at once", "together": where both are not.
				if m := j + 1; word(m) == "on" || word(m) == "in" {
					m++
					for word(m) == "the" || word(m) == "a" || word(m) == "one" || word(m) == "same" {
						m++
					}
					if w := word(m); w == "image" || w == "photo" || w == "frame" || w == "sample" || portionNouns[w] {
						for q := j + 1; q <= m; q++ {
							said = append(said, q)
						}
						j = m
					}
				} else if word(m) == "together" || word(m) == "at" && word(m+1) == "once" {
					said = append(said, m)
					j = m
					if word(m) == "at" {
						said = append(said, m+1)
						j++
					}
				}
				j++
				or = true
			case (word(j) == "just" || word(j) == "only") && word(j+1) == "one" && word(j+2) != "of", word(j) == "at" && word(j+1) == "most" && word(j+2) == "one":
				// "rain, fog or snow (just one)", "at most one of them".
				n := 2
				if word(j) == "at" {
					n = 3
				}
				for i := 0; i < n; i++ {
					said = append(said, j+i)
				}
				j += n - 1
			case word(j) == "one" && word(j+1) == "of" && (j+2 < k && toks[j+2].text == ":" || word(j+2) == "the" && word(j+3) == "following"):
				// "one of: blur, median blur, motion blur": a list to choose from.
				n := 3
				if word(j+2) == "the" {
					n = 4
				}
				for i := 0; i < n; i++ {
					said = append(said, j+i)
				}
				after = toks[j+n-1].pos
				j += n - 1
				or = true
			case word(j) == "one" && word(j+1) == "of" && (j+2 >= k || toks[j+2].kind == tSep || toks[j+2].kind == tNum || frequencyWords[word(j+2)]):
				// "blur or median blur (one of, p=0.5)": "one of" closing the list.
				said = append(said, j, j+1)
				j++
				or = true
			case or && word(j) == "one" && word(j+1) != "of" && (j+1 >= k || toks[j+1].kind == tSep || toks[j+1].kind == tNum || frequencyWords[word(j+1)]) && !oneAfter[word(j-1)]:
				// "sharpen or emboss (one), 25%": one of the list before.
				said = append(said, j)
			case word(j) == "one" && word(j+1) == "of" && (word(j+2) == "them" || word(j+2) == "these" || word(j+2) == "those" || word(j+2) == "the" && (word(j+3) == "two" || word(j+3) == "three")):
				n := 3
				if word(j+2) == "the" {
					n = 4
				}
				for i := 0; i < n; i++ {
					said = append(said, j+i)
				}
				j += n - 1
			case word(j) == "one" && word(j+1) == "of" && j+2 < k && toks[j+2].kind == tWord && !toks[j+2].code && !filler[word(j+2)] && word(j+2) != "these" && word(j+2) != "those" && !frequencyWords[word(j+2)] && listAfter(toks[j+2:k]):
				// ("blur or median blur (one of, p=0.5), and jpeg": a p after "one of"
				// is the choice's, and the list is before it.)
				// "one of rain / fog / snow": the list follows without a colon.
				said = append(said, j, j+1)
				after = toks[j+1].pos
				j++
				or = true
			case someVerbs[word(j)] && countAt(toks, j+1) >= 2 && word(j+2) == "of":
				// "pick 2 of the 3", "apply two of these", "any 2 of: a, b, c":
				// albumentations' SomeOf, that many different ones of the list.
				n := 3
				switch {
				case word(j+3) == "the" && countAt(toks, j+4) >= 2:
					n = 5
				case word(j+3) == "these" || word(j+3) == "them" || word(j+3) == "those" || word(j+3) == "the" && word(j+4) == "following":
					n = 4
					if word(j+3) == "the" {
						n = 5
					}
				}
				if j+n < k && toks[j+n].text == ":" {
					// "then pick 2 of the 3: blur, noise, jpeg": the list follows.
					after = toks[j+n].pos
					n++
				} else if !listAfter(toks[j+n:k]) && prevStart >= 0 && j == start {
					// "blur, sharpen or emboss; choose 2 of them": the list is the
					// sentence before.
					back = prevStart
				}
				if j > start && (word(j-1) == "randomly" || word(j-1) == "random") {
					said = append(said, j-1)
				}
				for i := 0; i < n; i++ {
					said = append(said, j+i)
				}
				some = countAt(toks, j+1)
				j += n - 1
				or = true
			case word(j) == "someof" && countAt(toks, j+1) >= 1 && (word(j+2) == "from" || word(j+2) == "of" || j+2 < k && toks[j+2].text == ":"):
				// "SomeOf 2 from [hflip, rotate 15, hsv], always": albumentations'
				// container named in prose, its n and the list after.
				said = append(said, j, j+1, j+2)
				after = toks[j+2].pos
				some = countAt(toks, j+1)
				j += 2
				or = true
			case (word(j) == "pick" || word(j) == "choose" || word(j) == "chosen" || word(j) == "picked") && word(j+1) == "one":
				said = append(said, j, j+1)
				j++
				if word(j+1) == "randomly" || word(j+1) == "at" && word(j+2) == "random" {
					said = append(said, j+1)
					if word(j+1) == "at" {
						said = append(said, j+2)
					}
				}
			}
		}
		// "A or B" alone is a choice too ("add blur or noise 20% of the time",
		// "rain or snow on 25% of images"): albumentations' OneOf.
		if or {
			words := make([]string, 0, len(said))
			for _, j := range said {
				words = append(words, toks[j].text)
			}
			r.choiceWords = append(r.choiceWords, strings.Join(words, " "))
			for _, j := range said {
				toks[j] = consumed(toks[j])
			}
			to := toks[len(toks)-1].pos + 1
			if k < len(toks) {
				to = toks[k].pos
			}
			from := 0
			if start < len(toks) {
				from = toks[start].pos
			}
			if back >= 0 {
				from = toks[back].pos
				if n := len(out); n > 0 && out[n-1][0] == from {
					out = out[:n-1]
				}
			}
			out = append(out, [2]int{from, to})
			if r.choiceBoth == nil {
				r.choiceBoth, r.choiceAfter = map[int]int{}, map[int]int{}
			}
			if both >= 0 {
				r.choiceBoth[from] = both
			}
			if after >= 0 {
				r.choiceAfter[from] = after
			}
			if some > 0 {
				if r.choiceSome == nil {
					r.choiceSome = map[int]int{}
				}
				r.choiceSome[from] = some
			}
		}
		prevStart, start = start, k+1
	}
	r.choices = out
	return out
}

// oneAfter are the words before a "one" that is no choice ("the one", "each one",
// "at most one" is read as its own).
var oneAfter = map[string]bool{"the": true, "each": true, "any": true, "every": true, "no": true, "only": true, "just": true, "most": true, "this": true, "that": true, "which": true}

// someVerbs before a count and "of" ask for that many of a list ("pick 2 of the 3",
// "apply two of these", "any 2 of: ...").
var someVerbs = map[string]bool{"pick": true, "choose": true, "select": true, "apply": true, "any": true, "use": true, "picks": true, "chooses": true}

// countAt returns the count a number or number word at k says (2 for "2" and
// "two"), or 0.
func countAt(toks []token, k int) int {
	if k < 0 || k >= len(toks) || toks[k].code {
		return 0
	}
	if t := toks[k]; t.kind == tNum && !t.signed && t.num == float64(int(t.num)) && t.num >= 1 && t.num <= 20 {
		return int(t.num)
	}
	if toks[k].kind == tWord {
		return numberWords[toks[k].text]
	}
	return 0
}

// listBreak says whether words between two transforms end a list of choices: a
// separator word ("hflip, then either emboss or solarize") or "either", which opens one.
func listBreak(seg []token) bool {
	for _, t := range seg {
		if t.text == "either" || t.kind == tWord && separators[t.text] {
			return true
		}
	}
	return false
}

// partOfImage returns the part of the image words restrict a step to ("only on the
// moving cars", "just to the sky"), or "": "only"/"just" then on/to/in then a thing
// that is neither the images nor how often ("only on the images", "only on 10%").
func partOfImage(seg []token) string {
	for k := 0; k+2 < len(seg); k++ {
		if seg[k].code || seg[k].kind != tWord || seg[k].text != "only" && seg[k].text != "just" {
			continue
		}
		if w := seg[k+1].text; w != "on" && w != "to" && w != "in" {
			continue
		}
		j := k + 2
		for j < len(seg) && (seg[j].text == "the" || seg[j].text == "a" || seg[j].text == "some") {
			j++
		}
		end := j
		for end < len(seg) && seg[end].kind == tWord && !separators[seg[end].text] && !purposeWords[seg[end].text] {
			end++
		}
		if end == j {
			continue
		}
		thing := true
		for _, t := range seg[j:end] {
			w := t.text
			if portionNouns[w] || w == "image" || w == "photo" || w == "frame" || w == "one" || w == "ones" || w == "them" || w == "each" || w == "every" || w == "all" || frequency[w] > 0 || units[w] != "" {
				thing = false
			}
		}
		if thing {
			return joinTokens(seg[k+2 : end])
		}
	}
	return ""
}

// sizeOnly says whether the words beside a phrase are an image size and nothing a
// transform takes: a size in pixels (1024px, 256x256), words, no probability.
func sizeOnly(seg []token) bool {
	size := false
	for k, t := range seg {
		switch {
		case t.code:
			return false
		case t.kind == tSize:
			size = true
		case t.kind == tNum && k+1 < len(seg) && seg[k+1].text == "px":
			size = true
		case t.kind == tNum:
			return false
		case t.text == "%" || t.text == "p" || t.text == "=" || frequency[t.text] > 0 || portion[t.text] > 0:
			return false
		}
	}
	return size
}

// objectAfter reads "blur out faces", "pixelate the license plates", "blur the
// background": a thing in the picture right after a transform's phrase is where the
// step should run, which darkroom cannot find; it returns the thing, or "".
func objectAfter(after []token) string {
	j := 0
	for j < len(after) && !after[j].code && (after[j].text == "out" || after[j].text == "the" || after[j].text == "all" || after[j].text == "any" || after[j].text == "their" || after[j].text == "to" || after[j].text == "on" || after[j].text == "over") {
		j++
	}
	end := j
	for end < len(after) && after[end].kind == tWord && !after[end].code && pictureThings[after[end].text] {
		end++
	}
	if end == j {
		return ""
	}
	return joinTokens(after[j:end])
}

// inChoice says whether places a and b lie in one choice sentence.
func inChoice(r *Result, a, b int) bool {
	for _, c := range r.choices {
		if a >= c[0] && a < c[1] && b >= c[0] && b < c[1] {
			return true
		}
	}
	return false
}

// proseGroups makes the transforms of a choice sentence joined by "or" one one_of
// group: its p is the one the words gave the last of them ("30% overall", "p=0.3"),
// or 1, and each member's is 1 (the group draws, then runs the one it chose). A
// transform already in a container written in code keeps that one.
func (p *Parser) proseGroups(r *Result, toks []token, choices [][2]int, ids int) {
	at := map[int]int{}
	for i, t := range toks {
		at[t.pos] = i
	}
	for _, c := range choices {
		var members []int
		for i := range r.Transforms {
			if t := &r.Transforms[i]; t.Group == nil && t.at >= c[0] && t.at < c[1] {
				if a, ok := r.choiceAfter[c[0]]; ok && t.at < a {
					// "hflip, one of: blur, motion blur": the list follows the colon.
					continue
				}
				if b, ok := r.choiceBoth[c[0]]; ok && t.at > b {
					continue
				}
				members = append(members, i)
			}
		}
		if _, ok := r.choiceBoth[c[0]]; ok && len(members) > 2 {
			// "hflip, sepia 10% and gray 10%, never both": the two before it.
			members = members[len(members)-2:]
		}
		// The run of them joined by "or", each to the next; "A, B or C" is a list
		// of three, and a sentence with no "or" ("one of: blur, motion blur";
		// "A 10% and B 10%, never both") joins its list by commas and "and".
		anyOr := false
		for j := at[c[0]]; j < len(toks) && toks[j].pos < c[1]; j++ {
			anyOr = anyOr || toks[j].text == "or" && toks[j].kind == tWord && !toks[j].code
		}
		var chain []int
		for n, i := range members {
			if len(chain) > 0 {
				prev, ok1 := at[r.Transforms[chain[len(chain)-1]].at]
				cur, ok2 := at[r.Transforms[i].at]
				or := false
				for j := prev; ok1 && ok2 && j < cur; j++ {
					or = or || toks[j].text == "or" && toks[j].kind == tWord
					list := toks[j].text == "," || toks[j].text == "and" || toks[j].text == "&" || toks[j].text == "+" || toks[j].text == "/"
					if list && !anyOr {
						or = true
					}
					if toks[j].text == "," && n+1 < len(members) && !listBreak(toks[prev:cur]) && p.listHead(&r.Transforms[chain[len(chain)-1]], &r.Transforms[i], &r.Transforms[members[n+1]]) {
						// "rain, fog or snow": the comma joins when "or" joins the
						// next two.
						next, ok3 := at[r.Transforms[members[n+1]].at]
						for q := cur; ok3 && q < next; q++ {
							or = or || toks[q].text == "or" && toks[q].kind == tWord
						}
					}
				}
				if !or {
					if len(chain) >= 2 {
						break
					}
					chain = chain[:0]
				}
			}
			chain = append(chain, i)
		}
		if len(chain) < 2 {
			continue
		}
		ids++
		g := &Group{ID: ids, Kind: "one_of", P: 1}
		if n, ok := r.choiceSome[c[0]]; ok {
			g.Kind, g.N = "some_of", n
		}
		sum, each := 0.0, true
		for _, i := range chain {
			if t := &r.Transforms[i]; t.pSet && !t.pCode {
				g.P = t.P
				sum += t.P
			} else {
				each = false
			}
		}
		if _, ok := r.choiceBoth[c[0]]; each && sum <= 1 && ok {
			// "ToSepia 10% and ToGray 10%, but never both": each runs on its 10%,
			// so the choice runs on 20% and picks either alike.
			g.P = round(sum)
		}
		for _, i := range chain {
			r.Transforms[i].Group = g
			r.Transforms[i].P = 1
		}
		if !each || len(chain) == 0 {
			groupPAfter(r, toks, at, chain, g)
		}
	}
}

// listHead says whether head, before a comma, is the first of the "or" list of a
// and b ("rain, fog or snow") rather than a step of its own before it ("hflip,
// sharpen or emboss (one), 25%"; "elastic p 0.5, grid or optical distortion"): a
// step given its own p is not one of a choice, and a geometric step is no
// alternative to pixel-level ones (nor the reverse), as albumentations' OneOf lists
// are one kind.
func (p *Parser) listHead(head, a, b *Transform) bool {
	if head.pSet && !head.pCode {
		return false
	}
	geo := func(t *Transform) bool {
		e, _ := p.voc.Entry(t.Entry)
		return e != nil && contains(e.Tags, "geometry")
	}
	return geo(head) == geo(a) || geo(head) == geo(b)
}

// groupPAfter reads a p said of the group after its members, in their sentence or a
// clause of it after a semicolon ("one of rain / fog / snow, p=0.3 for the group";
// "...; that group on 60% of pages"), as the group's p when no member was given one.
// The words, left unread by their clause, are the choice's.
func groupPAfter(r *Result, toks []token, at map[int]int, chain []int, g *Group) {
	for _, i := range chain {
		if r.Transforms[i].pSet && !r.Transforms[i].pCode {
			return
		}
	}
	starts := map[int]bool{}
	for _, t := range r.Transforms {
		starts[t.at] = true
	}
	last, ok := at[r.Transforms[chain[len(chain)-1]].at]
	if !ok {
		return
	}
	end := last + 1
	for end < len(toks) && !(toks[end].kind == tSep && (toks[end].text == "." || toks[end].text == "!" || toks[end].text == "?")) && !starts[toks[end].pos] {
		end++
	}
	g0 := -1
	for k := last + 1; k < end; k++ {
		if toks[k].text == "group" && !toks[k].code {
			g0 = k
		}
	}
	if g0 < 0 {
		return
	}
	// The clause of "group": from the separator before it to the one after.
	from, to := g0, g0
	for from > last+1 && toks[from-1].kind != tSep {
		from--
	}
	for to < end && toks[to].kind != tSep {
		to++
	}
	v := -1.0
	for k := from; k < to && v < 0; k++ {
		if toks[k].kind != tNum || toks[k].signed {
			continue
		}
		switch {
		case k+1 < to && toks[k+1].text == "%":
			v = toks[k].num / 100
		case toks[k].num <= 1:
			v = toks[k].num
		}
	}
	if v < 0 || v > 1 {
		return
	}
	g.P = v
	words := map[string]bool{}
	for k := from; k < to; k++ {
		words[toks[k].text] = true
	}
	kept := r.Errors[:0]
	for _, is := range r.Errors {
		all := is.Phrase != "" && strings.Contains(" "+is.Phrase+" ", " group ")
		for _, w := range strings.Fields(is.Phrase) {
			all = all && (words[w] || filler[w] || portionNouns[w])
		}
		if all {
			r.choiceWords = append(r.choiceWords, is.Phrase)
			continue
		}
		kept = append(kept, is)
	}
	r.Errors = kept
}

// groupSpan is a container and the token positions its brackets hold.
type groupSpan struct {
	g        *Group
	from, to int
}

// matches finds vocabulary phrases, left to right, the longest at each position. A
// phrase that ends in a number does not match when a unit follows ("rotate 90
// degrees" is rotate by 90 degrees, not the alias "rotate 90").
func (p *Parser) matches(toks []token) []match {
	var out []match
	// walk finds the longest phrase from i, reading the first word as first. A word
	// may also read as its singular ("random shadows" is the phrase "random shadow",
	// "small rotations" the alias "rotation" though "rotations by 90 degrees" is
	// another alias) and a unit of degrees as "degree" ("random 90° rotation").
	var walkFrom func(n *node, j int, first string) (int, *node)
	walkFrom = func(n *node, j int, first string) (int, *node) {
		if j >= len(toks) || toks[j].kind == tSep {
			return -1, nil
		}
		w := toks[j].text
		if first != "" {
			w = first
		}
		var alts []string
		alts = append(alts, w)
		if toks[j].kind == tWord && len(w) > 4 && strings.HasSuffix(w, "s") {
			alts = append(alts, strings.TrimSuffix(w, "s"))
		}
		if units[w] == "deg" && w != "degree" {
			alts = append(alts, "degree", "degrees")
		}
		best := -1
		var bestNode *node
		for _, a := range alts {
			c := n.next[a]
			if c == nil {
				continue
			}
			b, bn := walkFrom(c, j+1, "")
			// Inside a call's parentheses only another call is a transform
			// (A.OneOf([A.Blur(), ...])); blur_limit is Blur's argument.
			here := len(c.claims) > 0 && !(toks[j].code && !toks[j].call) &&
				!(toks[j].kind == tNum && j+1 < len(toks) && units[toks[j+1].text] != "")
			if b < 0 && here {
				b, bn = j, c
			}
			if b > best {
				best, bestNode = b, bn
			}
		}
		return best, bestNode
	}
	walk := func(i int, first string) (int, *node) { return walkFrom(p.root, i, first) }
	// overlapped returns the start of a phrase that begins inside the match [i, best]
	// and is longer than it and ends past it, or i when none does.
	overlapped := func(i, best int) int {
		for k := i + 1; k <= best; k++ {
			if b, _ := walk(k, toks[k].text); b > best && b-k > best-i {
				return k
			}
		}
		return i
	}
	for i := 0; i < len(toks); {
		if toks[i].joined && !toks[i].code {
			// Inside an argument's name written in prose ("r_shift_limit"): no
			// phrase starts there.
			i++
			continue
		}
		best, bestNode := walk(i, toks[i].text)
		if toks[i].text == "randomly" {
			// "randomly crop" is the phrase "random crop".
			if b, n := walk(i, "random"); b > best {
				best, bestNode = b, n
			}
		}
		if best < 0 {
			i++
			continue
		}
		// A longer phrase that starts inside this one and ends past it is the one
		// meant: "random brightness/contrast" is brightness/contrast, not
		// random_brightness and then contrast.
		if k := overlapped(i, best); k > i {
			i = k
			continue
		}
		m := match{start: i, end: best + 1, claims: bestNode.claims, phrase: bestNode.phrase, example: bestNode.example}
		for k := i; k <= best; k++ {
			if toks[k].typo != "" {
				// A misspelt phrase is named by the words as written.
				var ws []string
				for _, t := range toks[i : best+1] {
					ws = append(ws, cmp.Or(t.typo, t.text))
				}
				m.phrase = strings.Join(ws, " ")
				break
			}
		}
		// A generic noun right after another entry's phrase is its head ("random
		// perspective warp"), not a second transform.
		if n := len(out); n > 0 && out[n-1].end == m.start && p.isHead(m) && !sameClaims(out[n-1].claims, m.claims) {
			out[n-1].end = m.end
			out[n-1].phrase += " " + m.phrase
		} else {
			out = append(out, m)
		}
		i = best + 1
	}
	return out
}

// otherKinds drops a match that is only an entry's generic noun ("blur", "noise")
// right after a word no phrase, parameter or English word of words.go knows: "median
// blur", "bilateral blur" name a kind of the operation the vocabulary does not have,
// and reading them as the entry (a box blur) would change the operation silently. The
// words are listed as not applied.
func (p *Parser) otherKinds(r *Result, toks []token, ms []match) []match {
	var kept []match
	for _, m := range ms {
		if m.end-m.start == 1 && m.start > 0 && !m.example && len(m.claims) == 1 && !toks[m.start].code {
			w := toks[m.start-1]
			e, ok := p.voc.Entry(m.claims[0])
			if ok && w.kind == tWord && !w.code && w.typo == "" && !p.words[w.text] && !p.known[w.text] && !knownWord(w.text) && !negators[w.text] &&
				(m.phrase == e.Category || p.isHead(m)) {
				phrase := w.text + " " + m.phrase
				r.unread(phrase, fmt.Sprintf("%q: no vocabulary entry is a %s; %s is another operation, so it is not applied", phrase, phrase, m.claims[0]),
					fmt.Sprintf("name %q to have it instead", strings.ReplaceAll(m.claims[0], "_", " ")), "")
				toks[m.start-1], toks[m.start] = consumed(toks[m.start-1]), consumed(toks[m.start])
				continue
			}
		}
		kept = append(kept, m)
	}
	return kept
}

// isHead says whether a match is one of its entry's prompt.heads.
func (p *Parser) isHead(m match) bool {
	for _, c := range m.claims {
		if e, ok := p.voc.Entry(c); ok && e.Prompt != nil {
			for _, h := range e.Prompt.Heads {
				if strings.Join(texts(tokenize(h)), " ") == m.phrase {
					return true
				}
			}
		}
	}
	return false
}

func sameClaims(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
}

// clause is a run of tokens between separators, with the matches inside it.
type clause struct {
	start, end int
	matches    []match
}

// clauses cuts the stream at separators that no phrase consumed; "and" inside
// "between A and B" is not one.
func clauses(toks []token, ms []match, joins func(k int) bool) []clause {
	inMatch := make([]bool, len(toks))
	for _, m := range ms {
		for k := m.start; k < m.end; k++ {
			inMatch[k] = true
		}
	}
	var out []clause
	start := 0
	cut := func(end int) {
		if end > start {
			c := clause{start: start, end: end}
			for _, m := range ms {
				if m.start >= start && m.end <= end {
					c.matches = append(c.matches, m)
				}
			}
			out = append(out, c)
		}
	}
	for k, t := range toks {
		if inMatch[k] {
			continue
		}
		sep := t.kind == tSep || t.kind == tWord && separators[t.text]
		if sep && t.text == "and" && (betweenAnd(toks, k) || joins(k)) {
			sep = false
		}
		if sep {
			cut(k)
			start = k + 1
		}
	}
	cut(len(toks))
	return out
}

// joinsParameters says whether the "and" at k joins two parameters of the entry named
// before it in the same clause ("translate up to 10% in x and y", "shift_limit and
// scale_limit"), so that it does not cut.
func (p *Parser) joinsParameters(toks []token, ms []match) func(k int) bool {
	return func(k int) bool {
		// The entry named last before k, passing over phrases that are its
		// parameters ("color jitter with brightness 0.2": brightness is its own).
		var last *match
		for i := range ms {
			if ms[i].end > k {
				break
			}
			if last != nil && p.namesParamOf(toks, *last, ms[i]) {
				continue
			}
			last = &ms[i]
		}
		if last == nil || k+1 >= len(toks) {
			return false
		}
		for j := last.end; j < k; j++ {
			if toks[j].kind == tSep {
				return false
			}
		}
		e, ok := p.voc.Entry(last.claims[0])
		if !ok || paramsAt(p.voc, e, toks, k+1).width == 0 {
			return false
		}
		// Before it, since the entry's phrase: a parameter, with or without its value
		// ("x and y", "brightness 0.2 and contrast 0.2").
		for j := last.end; j < k; j++ {
			if pn := paramsAt(p.voc, e, toks, j); pn.width > 0 {
				return true
			}
		}
		return false
	}
}

// namesParamOf says whether match m, in the same clause as prev, names a parameter of
// prev's entry rather than a transform of its own.
func (p *Parser) namesParamOf(toks []token, prev, m match) bool {
	if len(prev.claims) != 1 {
		return false
	}
	for j := prev.end; j < m.start; j++ {
		if toks[j].kind == tSep {
			return false
		}
	}
	e, ok := p.voc.Entry(prev.claims[0])
	if !ok {
		return false
	}
	if _, isParam := e.Parameters[strings.ReplaceAll(m.phrase, " ", "_")]; isParam {
		return true
	}
	return paramsAt(p.voc, e, toks, m.start).width >= m.end-m.start
}

// betweenAnd says whether the "and" at k joins the ends of a range: "between A [unit]
// and B".
func betweenAnd(toks []token, k int) bool {
	if k+1 >= len(toks) || toks[k+1].kind != tNum {
		return false
	}
	for j := k - 1; j >= 0 && j >= k-4; j-- {
		if toks[j].kind == tSep {
			return false
		}
		if toks[j].text == "between" {
			return true
		}
	}
	return false
}

// clause turns one clause into transforms. Each match owns the tokens from its start to
// the next match; words before the first belong to the first. A clause with no match
// continues the previous transform when it names one of its parameters ("gaussian
// blur, radius 0.01"), else is compared with the example phrases.
func (p *Parser) clause(r *Result, toks []token, cl clause, opt Options) {
	if len(cl.matches) == 0 && (p.fillAfter(r, toks, cl, opt) || p.notOtherFill(r, toks, cl)) || p.outputAfter(r, toks, cl, opt) {
		return
	}
	if len(cl.matches) == 0 {
		seg := toks[cl.start:cl.end]
		// A call no phrase names is an albumentations transform darkroom does not
		// have (A.MedianBlur(blur_limit=3)): its arguments are its own, not the
		// transform's before it.
		for _, t := range seg {
			if t.call && !compositions[t.text] {
				near := p.nearest([]string{t.text})
				sugg := ""
				if len(near) > 0 {
					sugg = "did you mean " + quoteList(near) + "?"
				}
				for _, c := range p.lacking {
					if strings.ToLower(c.class) == t.text {
						r.unread(joinTokens(seg), fmt.Sprintf("%q: darkroom cannot do the albumentations transform %s (%s); skipped", joinTokens(seg), c.class, c.why), "", "")
						return
					}
				}
				r.unread(joinTokens(seg), fmt.Sprintf("%q: no vocabulary entry is the albumentations transform %s; skipped", joinTokens(seg), t.text), sugg, "")
				return
			}
		}
		// "flips for aerial tiles": what comes before a "for" that says what the
		// images are (a preset's name) is read alone.
		if name, at := p.presetAt(seg); name != "" {
			for j := at - 1; j > 0; j-- {
				if seg[j].text == "for" && !seg[j].code && !describedBefore(seg[:j]) {
					p.clause(r, toks, clause{start: cl.start, end: cl.start + j}, opt)
					p.unmatched(r, seg[j:], opt)
					return
				}
			}
		}
		// "geometry only: flips both ways": a colon after words with no number
		// ends what introduces the list; each side is read alone.
		for k := cl.start; k+1 < cl.end; k++ {
			if toks[k].kind == tNum {
				break
			}
			if toks[k].text == ":" && k > cl.start && !toks[k].code && !frequencyWords[toks[k-1].text] {
				p.clause(r, toks, clause{start: cl.start, end: k}, opt)
				p.clause(r, toks, clause{start: k + 1, end: cl.end}, opt)
				return
			}
		}
		if names := p.every(seg); len(names) > 0 {
			// "both flips": each entry the word names. An aside in brackets is no
			// part of the name: its words are listed once.
			base := seg[0].depth
			for _, t := range seg {
				base = min(base, t.depth)
			}
			var words, aside, often []token
			for _, t := range seg {
				switch {
				case t.depth > base && !t.code:
					aside = append(aside, t)
				case oftenWord(t) && len(words) > 0 || frequency[t.text] > 0 && !t.code:
					// "flips half the time", "always flip both ways": how often
					// each runs.
					often = append(often, t)
				default:
					words = append(words, t)
				}
			}
			for i, name := range names {
				e, _ := p.voc.Entry(name)
				t := Transform{Entry: name, Phrase: joinTokens(words), P: 1, Confidence: 1}
				if i > 0 {
					aside = nil
				}
				p.read(r, &t, e, append(append([]token(nil), aside...), often...), words, opt)
				if !t.pSet && (seg[0].random || words[0].random || e != nil && len(e.Parameters) == 0 && augmentation(e) && randomAt(toks, match{start: cl.start, end: cl.end})) {
					// "random flips", "randomly flip": a flip at random is one
					// image in two (albumentations' HorizontalFlip, torchvision's
					// RandomHorizontalFlip), not every image.
					t.P = 0.5
				}
				r.Transforms = append(r.Transforms, t)
			}
			return
		}
		if len(r.Transforms) > 0 {
			last := &r.Transforms[len(r.Transforms)-1]
			e, _ := p.voc.Entry(last.Entry)
			// A clause that only says how often is about the transform before it
			// ("motion blur with kernel size 5 to 9, 20% of the time").
			rd := p.scan(nil, seg, nil)
			if v, ok := sharedPercent(seg); ok && !rd.pSet {
				// "posterize, equalize, sharpen — each 30%": a percentage said of
				// each of them is how often each runs.
				rd = reading{p: v, pSet: true}
			}
			if len(rd.exprs) == 1 && rd.pSet && onlyFrequency(seg) {
				// "rarely (like 5%) each": the percentage says how rare.
				if x := rd.exprs[0]; x.kind == one && x.a.unit == "%" && !x.a.signed && x.a.v <= 100 {
					rd.p, rd.exprs = x.a.v/100, nil
				}
			}
			if len(seg) > 0 && !seg[0].code && rd.pSet && len(rd.exprs) == 0 && rd.intensity == 0 && len(rd.issues) == 0 && onlyFrequency(seg) {
				lacking := map[int]bool{}
				for _, at := range r.lackingAt {
					lacking[at] = true
				}
				for j := cl.start - 1; j >= 0 && toks[j].kind == tSep; j-- {
					if lacking[toks[j].pos] && !inChoice(r, toks[j].pos, last.at) {
						// "some defocus, often": how often the transform darkroom
						// cannot do runs, not the one before it. In a choice
						// ("either motion blur or defocus, p 0.25") it is how often
						// the choice runs: the member read keeps it.
						r.unread(joinTokens(seg), fmt.Sprintf("%q: how often the transform named before it runs, which darkroom cannot do; not applied", joinTokens(seg)), "", "")
						return
					}
				}
				last.P, last.pSet = rd.p, true
				for _, t := range seg {
					if t.text == "back" {
						// "and back up": the step's way back, read with it.
						r.said = append(r.said, t.text)
					}
				}
				// "both at p=0.25", "all rarely": each transform named before it
				// whose p the words did not give. So is a bare "p .5" closing a
				// list none of whose transforms gave its own p ("bright +-0.15,
				// contrst +-0.15, gamma 80-120, p .5").
				// A p closing a choice ("one of: blur, motion blur, p=0.3") is the
				// choice's, not every transform's.
				trailing := pNotation(seg) && lastClause(toks, cl.end) && !inChoice(r, seg[0].pos, last.at)
				for i := range r.Transforms {
					trailing = trailing && (i == len(r.Transforms)-1 || !r.Transforms[i].pSet)
				}
				for _, tk := range seg {
					if trailing || tk.text == "both" || tk.text == "all" || tk.text == "each" || tk.text == "them" {
						for i := range r.Transforms {
							if tr := &r.Transforms[i]; !tr.pSet || tr.pCode {
								tr.P, tr.pSet, tr.pCode = rd.p, true, false
							}
						}
						break
					}
				}
				return
			}
			if p.moreOf(last, e, seg, rd, opt) {
				// "Cutout: 1-6 holes, each 16-32 px": a value in a unit the
				// transform before has a parameter for, still free, is its.
				if len(last.given) == 0 {
					p.rereadBare(r, last, e, seg, opt)
				} else {
					p.read(r, last, e, seg, nil, opt)
				}
				return
			}
			if kind := p.kindOf(last, seg); kind != nil {
				// "Blur slightly ... — gaussian, sigma up to 1": the word names
				// which blur, the entry its name and the head's make.
				r.issue("warning", fmt.Sprintf("%q after %s is read as %s", joinTokens(seg), last.Entry, kind.Name), "", kind.Name, "")
				last.Entry, last.Values, last.Ranges, last.Pending = kind.Name, nil, nil, nil
				last.Phrase += ", " + joinTokens(seg)
				p.read(r, last, kind, nil, seg, opt)
				return
			}
			if namesParameter(p.voc, e, seg) {
				if len(last.given) == 0 && hasNumber(seg) && cl.start > 0 && (toks[cl.start-1].text == "," || toks[cl.start-1].text == ":") {
					// "random erasing, 2-4 holes": named bare, then its values;
					// what the bare name drew gives way to them.
					p.rereadBare(r, last, e, seg, opt)
					return
				}
				p.read(r, last, e, seg, nil, opt)
				return
			}
			if len(seg) == 2 && seg[0].kind == tNum && !seg[0].signed && !seg[0].code && seg[0].num > 0 && seg[0].num <= 100 && seg[1].text == "%" && !last.pSet {
				// "motion blur kernel 7, 40 %": a lone percentage after the
				// step's values, which no parameter of it took, is how often it
				// runs.
				last.P, last.pSet = round(seg[0].num/100), true
				return
			}
		}
		p.unmatched(r, seg, opt)
		return
	}
	// A clause that starts with a parameter of the transform before it, which its own
	// clause gave values, goes on with it ("HSV jitter with hue ±5, saturation ±15"):
	// a list of its values, not another transform.
	// So does one after a transform named bare just before a comma or a colon
	// ("color jitter, brightness 0.2, contrast 0.2": its values listed after it, not a
	// brightness and a contrast step beside it); what the bare name drew gives way to
	// the values listed.
	if n := len(r.Transforms); n > 0 && hasNumber(toks[cl.start:cl.end]) {
		last := &r.Transforms[n-1]
		bare := len(last.given) == 0 && cl.start > 0 && (toks[cl.start-1].text == "," || toks[cl.start-1].text == ":") && last.at < toks[cl.start-1].pos
		if e, ok := p.voc.Entry(last.Entry); ok && (len(last.given) > 0 || bare) {
			m := cl.matches[0]
			lead := true
			for j := cl.start; j < m.start; j++ {
				lead = lead && toks[j].kind == tWord && filler[toks[j].text]
			}
			starts := paramsAt(p.voc, e, toks, cl.start).width > 0
			// "color jitter, brightness/contrast/saturation 0.4": every phrase of
			// the clause is names of its parameters.
			params := true
			for _, o := range cl.matches {
				params = params && (paramsAt(p.voc, e, toks, o.start).width == o.end-o.start || paramList(p.voc, e, toks, o.start, o.end))
			}
			if pn := paramsAt(p.voc, e, toks, m.start); (len(cl.matches) == 1 || params && starts) && (lead && pn.width == m.end-m.start || starts) {
				if bare {
					p.rereadBare(r, last, e, toks[cl.start:cl.end], opt)
					return
				}
				p.read(r, last, e, toks[cl.start:cl.end], nil, opt)
				return
			}
		}
	}
	if p.fillAfter(r, toks, cl, opt) || p.bordersAfter(r, toks, cl) || p.pOfNamed(r, toks, cl) {
		return
	}
	// A phrase that names a parameter of the entry before it in the clause is that
	// parameter, not another transform ("color jitter brightness 0.2 contrast 0.2").
	var kept []match
	for _, m := range cl.matches {
		if len(kept) > 0 {
			prev := kept[len(kept)-1]
			if len(prev.claims) == 1 {
				if e, ok := p.voc.Entry(prev.claims[0]); ok {
					if _, isParam := e.Parameters[strings.ReplaceAll(m.phrase, " ", "_")]; isParam {
						continue
					}
					// Or one of its other names ("shift ... horizontally and vertically"),
					// or a longer one the phrase opens ("crop" of "crop height").
					if pn := paramsAt(p.voc, e, toks, m.start); pn.width >= m.end-m.start {
						continue
					}
					// Or its parameters listed with slashes ("color jitter with
					// brightness/contrast/saturation 0.2"): values of it, not the
					// entry those words also name.
					if paramList(p.voc, e, toks, m.start, m.end) {
						continue
					}
					// Or what a parameter named just before is ("fill with gray"):
					// a value of it, not a transform.
					j := m.start - 1
					for j > prev.end && (toks[j].text == "with" || toks[j].text == "of" || toks[j].text == "to" || toks[j].text == "in") {
						j--
					}
					if j >= prev.end && j < m.start-1 && paramEndsAt(p.voc, e, toks, prev.end, j) {
						continue
					}
				}
			}
		}
		if n := len(kept); n > 0 && p.sameKindBefore(toks, kept[n-1], m) {
			// "resize the longest side to 512", "resize so the shorter side is
			// 800": a general word of a kind, then the exact one, is one transform,
			// the exact one, whose phrase the general word opens.
			m.start, m.phrase = kept[n-1].start, joinTokens(toks[kept[n-1].start:m.end])
			kept[n-1] = m
			continue
		}
		kept = append(kept, m)
	}
	cl.matches = p.borders(r, toks, cl, kept)
	for i, m := range cl.matches {
		from, to := m.start, cl.end
		if i == 0 {
			from = cl.start
		}
		if i+1 < len(cl.matches) {
			to = cl.matches[i+1].start
		}
		var seg []token
		seg = append(seg, toks[from:m.start]...)
		seg = append(seg, toks[m.end:to]...)
		name := p.choose(r, m, seg, opt)
		if contains(r.Excluded, name) {
			// "Don't horizontally flip — text would be mirrored": an entry the
			// prompt asks not to apply is never added by another mention of it.
			r.unread(joinTokens(toks[from:to]), fmt.Sprintf("%q names %s, which the prompt asks not to apply; not applied", joinTokens(toks[from:to]), name), "", name)
			continue
		}
		e, _ := p.voc.Entry(name)
		t := Transform{Entry: name, Phrase: m.phrase, P: 1, Confidence: 1 / float64(len(m.claims)), at: toks[m.start].pos}
		if toks[m.end-1].call {
			// Written as albumentations code: its default p.
			t.pSet, t.pCode = true, true
			t.P = codeP
			if e != nil && e.Prompt != nil && e.Prompt.CodeP != nil {
				t.P = *e.Prompt.CodeP
			}
		}
		if len(m.claims) > 1 && p.decided(m, seg) {
			t.Confidence = 0.9
		}
		if m.example {
			// An example phrase's own words count as the clause's ("add a slight blur").
			seg = append(append([]token(nil), toks[m.start:m.end]...), seg...)
			t.Confidence = round(0.9 * t.Confidence)
		}
		if e != nil && len(p.voc.ParameterOrder(e)) == 0 && !contains(e.Tags, "geometry") && !m.example && toks[m.start].kind == tWord && !toks[m.start].code && sizeOnly(seg) {
			// "1024px grayscale", "256x256 grayscale patches": a look after the
			// images' size says what they are; to_gray takes no size.
			u := joinTokens(toks[from:to])
			r.unread(u, fmt.Sprintf("%q says what the images are, not a transform to run; nothing is applied for it", u), "name the transform as a request (\"convert to gray\") to have it applied", "")
			continue
		}
		where := partOfImage(seg)
		if where == "" && !m.example {
			where = objectAfter(toks[m.end:to])
		}
		if where != "" {
			// "motion blur only on the moving cars": darkroom runs a step on the
			// whole image; run everywhere, it would do what the words rule out.
			r.unread(joinTokens(toks[from:to]), fmt.Sprintf("%q: %s runs on the whole image, not only on %s; not applied", joinTokens(toks[from:to]), name, where), "", name)
			continue
		}
		before := len(r.Errors)
		p.read(r, &t, e, seg, toks[m.start:m.end], opt)
		for k := before; k < len(r.Errors); k++ {
			// What reading this transform's words said: replaced with the words when
			// a pipeline's reading of its albumentations call replaces them (calls.go).
			r.Errors[k].of = t.at + 1
		}
		if !t.pSet && e != nil && len(e.Parameters) == 0 && augmentation(e) && randomAt(toks, m) {
			// "a random horizontal flip", "random flips": a transform with nothing
			// to draw is random only in whether it runs, albumentations' p 0.5.
			t.P = 0.5
		}
		if n := len(r.Transforms); n > 0 && mergeable(p, &r.Transforms[n-1], t, e, toks[m.start:m.end]) {
			// "affine: rotate 5 degrees, shear 3 degrees": the shear is the same
			// affine's, not a second one.
			last := &r.Transforms[n-1]
			for k, v := range t.Values {
				setValue(last, k, v)
			}
			for k, v := range t.Ranges {
				setRange(last, k, v[0], v[1])
			}
			continue
		}
		if i := p.mentioned(r, t, cl); i >= 0 {
			// The entry again, in another clause: what this mention gives is the
			// first one's ("RandomFog and RandomSunFlare ... fog fairly often, like
			// 70% of the time"; "snow + fog, winter scenes"), not a second transform.
			first := &r.Transforms[i]
			if t.pSet {
				first.P, first.pSet = t.P, true
			}
			for k := range t.given {
				if v, ok := t.Values[k]; ok {
					setValue(first, k, v)
				} else if rg, ok := t.Ranges[k]; ok {
					setRange(first, k, rg[0], rg[1])
				}
				if first.given == nil {
					first.given = map[string]bool{}
				}
				first.given[k] = true
			}
			first.Phrase += ", " + t.Phrase
			continue
		}
		eachBefore(r, toks, t, seg)
		r.Transforms = append(r.Transforms, t)
	}
}

// randomAt says whether "random" or "randomly" is in phrase m, right before it, or
// "randomly" or "at random" right after it ("flip horizontally at random").
func randomAt(toks []token, m match) bool {
	is := func(k int) bool {
		return k >= 0 && k < len(toks) && !toks[k].code && (toks[k].text == "random" || toks[k].text == "randomly")
	}
	for k := m.start - 1; k < m.end; k++ {
		if is(k) {
			return true
		}
	}
	if m.end < len(toks) && !toks[m.end].code && (toks[m.end].text == "randomly" || toks[m.end].text == "at" && is(m.end+1)) {
		return true
	}
	return false
}

// eachBefore gives the p that t's own words said of each ("h and v flips at p=0.5
// each", "flip h and v 50% each") to the transforms named before it in the same
// sentence that no words gave a p, back to the first that has one.
func eachBefore(r *Result, toks []token, t Transform, seg []token) {
	if !t.pSet || t.pCode {
		return
	}
	// "each" right after the p itself: "p=0.5 each", "50% each", "half the time
	// each", "rarely each"; not after a value ("brightness/contrast ±0.2 each with
	// p=0.6").
	isP := func(k int) bool {
		switch w := seg[k]; {
		case w.kind == tNum:
			return !w.signed && math.Abs(w.num-t.P) < 1e-9
		case w.text == "%" && k > 0 && seg[k-1].kind == tNum:
			return !seg[k-1].signed && math.Abs(seg[k-1].num/100-t.P) < 1e-9
		}
		return seg[k].text == "time" || frequency[seg[k].text] > 0
	}
	each := false
	for k, tk := range seg {
		if tk.kind == tWord && !tk.code && tk.text == "each" && (k+1 == len(seg) || seg[k+1].kind != tNum) && k > 0 && isP(k-1) {
			each = true
		}
	}
	pairOf := func(at int) int {
		for _, tk := range toks {
			if tk.pos == at {
				return tk.pair
			}
		}
		return 0
	}
	if each && pairOf(t.at) != 0 {
		// "cut random crops, flip h and v 50% each": each of the pair the
		// shared word made.
		each = false
	}
	if !each {
		// "flip h/v at 0.5", "h and v flips p .5": two phrases read from one
		// shared word are said together; a p after them is each one's.
		if n := len(r.Transforms); n > 0 {
			if prev := &r.Transforms[n-1]; !prev.pSet && prev.Group == nil && pairOf(t.at) != 0 && pairOf(prev.at) == pairOf(t.at) {
				prev.P, prev.pSet, prev.pCode = t.P, true, false
			}
		}
		return
	}
	ends := map[int]bool{}
	for _, tk := range toks {
		if tk.kind == tSep && (tk.text == "." || tk.text == ";" || tk.text == "!" || tk.text == "?") {
			ends[tk.pos] = true
		}
	}
	to := t.at
	for i := len(r.Transforms) - 1; i >= 0; i-- {
		prev := &r.Transforms[i]
		if prev.pSet && !prev.pCode {
			return
		}
		for pos := prev.at; pos < to; pos++ {
			if ends[pos] {
				return
			}
		}
		prev.P, prev.pSet, prev.pCode = t.P, true, false
		to = prev.at
	}
}

// borders reads "rotation with constant zero padding at the borders": padding named
// with or using after a transform that moves pixels is how that transform fills its
// borders, not a padding step of its own. The words, to the next transform, are
// listed: no geometric entry takes a border mode from a prompt.
func (p *Parser) borders(r *Result, toks []token, cl clause, ms []match) []match {
	var kept []match
	for i, m := range ms {
		if i > 0 && len(m.claims) == 1 {
			prev := ms[i-1]
			pe, ok1 := p.voc.Entry(prev.claims[0])
			me, ok2 := p.voc.Entry(m.claims[0])
			with := -1
			for j := prev.end; j < m.start; j++ {
				if toks[j].text == "with" || toks[j].text == "using" {
					with = j
				}
			}
			if ok1 && ok2 && with >= 0 && contains(me.Tags, "pad") && !contains(pe.Tags, "pad") && (contains(pe.Tags, "geometry") || contains(pe.Tags, "geometric")) {
				end := cl.end
				if i+1 < len(ms) {
					end = ms[i+1].start
				}
				words := joinTokens(toks[with:end])
				r.unread(words, fmt.Sprintf("%q: how %s fills its borders, not a padding step; %s takes no border mode from a prompt, so it keeps its own", words, prev.claims[0], prev.claims[0]),
					"give the pipeline as albumentations code or JSON to set the border mode", prev.claims[0])
				for j := with; j < end; j++ {
					toks[j] = consumed(toks[j])
				}
				continue
			}
		}
		kept = append(kept, m)
	}
	return kept
}

// rereadBare reads seg, the values listed after a transform named bare ("color
// jitter, brightness 0.2, contrast 0.2"), into t: the parameters its prompt.sample
// drew together for the bare name give way to them, as they would had the values come
// in the name's own clause; what else it drew (a motion blur's radius) stays unless
// given.
func (p *Parser) rereadBare(r *Result, t *Transform, e *vocab.Entry, seg []token, opt Options) {
	values, ranges := t.Values, t.Ranges
	t.Values, t.Ranges = nil, nil
	p.read(r, t, e, seg, nil, opt)
	for k, v := range values {
		if !sampled(e, k) && !has(t.Values, k) && !hasRange(t.Ranges, k) {
			setValue(t, k, v)
		}
	}
	for k, v := range ranges {
		if !sampled(e, k) && !has(t.Values, k) && !hasRange(t.Ranges, k) {
			setRange(t, k, v[0], v[1])
		}
	}
}

// sampled says whether parameter k is one of the several the entry's prompt.sample
// draws together (a jitter's brightness, contrast, saturation and hue).
func sampled(e *vocab.Entry, k string) bool {
	if e.Prompt == nil {
		return false
	}
	// A direction drawn whenever not given (prompt.free) is no magnitude of them.
	n := 0
	for s := range e.Prompt.Sample {
		if !contains(e.Prompt.Free, s) {
			n++
		}
	}
	_, ok := e.Prompt.Sample[k]
	return ok && n >= 2 && !contains(e.Prompt.Free, k)
}

// moreOf says whether a clause of values only (no word but English of words.go) gives
// values in units (px, degrees, %) that a parameter of e, still without a value of the
// words, takes.
func (p *Parser) moreOf(last *Transform, e *vocab.Entry, seg []token, rd reading, opt Options) bool {
	if e == nil || len(rd.exprs) == 0 || rd.pSet {
		return false
	}
	for k := 0; k < len(seg); k++ {
		if _, fw := fractions[seg[k].text]; seg[k].text == "%" || fw && seg[k].kind == tNum {
			// "10-20% of the image side each", "a fifth of the width": read
			// with the share.
			k += sideQualifier(seg, k+1)
			continue
		}
		if t := seg[k]; t.kind == tWord && !knownWord(t.text) || t.code {
			return false
		}
	}
	var free []string
	for _, n := range p.voc.ParameterOrder(e) {
		if !last.given[n] {
			free = append(free, n)
		}
	}
	for _, x := range rd.exprs {
		fits := false
		for _, n := range free {
			prm := e.Parameters[n]
			if x.a.unit == "" || !compatible(x.a.unit, prm) {
				continue
			}
			_, _, m1 := convert(x.a, prm, 0, opt)
			m2 := ""
			if x.kind == span {
				_, _, m2 = convert(x.b, prm, 0, opt)
			}
			fits = fits || m1 == "" && m2 == ""
		}
		if !fits {
			// Said as unread where it stands, rather than an error here.
			return false
		}
	}
	return true
}

// kindOf returns the entry a clause of one word names with the head of the transform
// before it ("blur ..., gaussian": gaussian_blur), when that transform was given no
// value of its own; else nil.
func (p *Parser) kindOf(last *Transform, seg []token) *vocab.Entry {
	if len(last.given) > 0 || last.Group != nil {
		return nil
	}
	word := ""
	for _, t := range seg {
		switch {
		case t.kind != tWord || t.code:
			return nil
		case filler[t.text]:
		case word == "":
			word = t.text
		default:
			return nil
		}
	}
	parts := strings.Split(last.Entry, "_")
	if word == "" || len(parts) != 1 {
		return nil
	}
	e, ok := p.voc.Entry(word + "_" + parts[0])
	if !ok {
		return nil
	}
	return e
}

// pOfNamed reads "noise and blur at p=0.5": words from the clause to the next comma or
// full stop that name transforms before it only by a word of their entries' names and
// say only how often are their p, not new transforms at that p.
func (p *Parser) pOfNamed(r *Result, toks []token, cl clause) bool {
	if len(r.Transforms) < 2 {
		return false
	}
	end := cl.start
	for end < len(toks) && toks[end].kind != tSep {
		end++
	}
	// "Fog fairly often, like 70% of the time": a part after a comma that only says
	// how often, with a number, says it more exactly.
	if end < len(toks) && toks[end].text == "," {
		next := end + 1
		for next < len(toks) && toks[next].kind != tSep {
			next++
		}
		if seg := toks[end+1 : next]; hasNumber(seg) && onlyFrequency(seg) {
			end = next
		}
	}
	var targets []int
	var rest []token
	var named []string
	for k := cl.start; k < end; k++ {
		t := toks[k]
		if t.kind != tWord || t.code {
			rest = append(rest, t)
			continue
		}
		found := -1
		for i := len(r.Transforms) - 1; i >= 0 && utf8.RuneCountInString(t.text) > 2; i-- {
			if strings.Contains("_"+r.Transforms[i].Entry+"_", "_"+t.text+"_") {
				found = i
				break
			}
		}
		switch {
		case found >= 0:
			targets = append(targets, found)
			named = append(named, t.text)
		case separators[t.text] || knownWord(t.text):
			rest = append(rest, t)
		default:
			return false
		}
	}
	if len(targets) == 0 {
		return false
	}
	rd := p.scan(nil, rest, nil)
	if !rd.pSet || len(rd.exprs) > 0 || len(rd.issues) > 0 {
		return false
	}
	for _, i := range targets {
		r.Transforms[i].P, r.Transforms[i].pSet, r.Transforms[i].pCode = rd.p, true, false
	}
	// The words that named them are read ("fog" of random_fog).
	r.said = append(r.said, named...)
	return true
}

// borderFills are the words of how a border is filled: a colour or a mode.
var borderFills = map[string]bool{
	"white": true, "black": true, "gray": true, "grey": true, "zero": true, "zeros": true, "zeroes": true,
	"reflect": true, "reflection": true, "reflective": true, "mirror": true, "mirrored": true, "constant": true,
	"replicate": true, "edge": true, "wrap": true, "colour": true, "color": true,
}

// bordersAfter reads "shift/scale/rotate ... . Pad with white, not reflect.": a clause
// whose only phrase is padding, with no size, that says how to fill after a transform
// that moves pixels is how that transform fills its borders, not a padding step. Its
// words are listed, as borders lists them within a clause.
func (p *Parser) bordersAfter(r *Result, toks []token, cl clause) bool {
	if len(cl.matches) != 1 || len(cl.matches[0].claims) != 1 || len(r.Transforms) == 0 {
		return false
	}
	me, ok := p.voc.Entry(cl.matches[0].claims[0])
	if !ok || !contains(me.Tags, "pad") {
		return false
	}
	prev := r.Transforms[len(r.Transforms)-1].Entry
	pe, ok := p.voc.Entry(prev)
	// Only a transform that leaves borders to fill: one that turns, shears or warps.
	if !ok || contains(pe.Tags, "pad") || !contains(pe.Tags, "affine") && !contains(pe.Tags, "rotate") && !contains(pe.Tags, "perspective") && !contains(pe.Tags, "distortion") {
		return false
	}
	fill := false
	for _, t := range toks[cl.start:cl.end] {
		if t.kind == tNum || t.kind == tSize {
			return false
		}
		fill = fill || borderFills[t.text]
	}
	if !fill {
		return false
	}
	words := joinTokens(toks[cl.start:cl.end])
	r.unread(words, fmt.Sprintf("%q: how %s fills its borders, not a padding step; %s takes no border mode from a prompt, so it keeps its own", words, prev, prev),
		"give the pipeline as albumentations code or JSON to set the border mode", prev)
	return true
}

// outputWords say that a size is what a step puts out ("output 300x300", "output
// size 224x224", "out 256x256").
var outputWords = map[string]bool{"output": true, "out": true, "outputs": true}

// outputAfter reads "random crops covering 80-100% of the area, output 300x300" and
// "random sized crop ..., resized back to 256x256": a clause that gives only a size in
// pixels, with an output word or naming a resize, right after a random crop is the
// size that crop puts out (albumentations RandomResizedCrop's and RandomSizedCrop's
// height and width), not a resize of its own. A crop whose width and height are the
// crop's own (random_crop's) gives way to the entry that does the same and resizes
// (random_resized_crop), unless its crop size was given.
func (p *Parser) outputAfter(r *Result, toks []token, cl clause, opt Options) bool {
	n := len(r.Transforms)
	if n == 0 || len(cl.matches) > 1 {
		return false
	}
	last := &r.Transforms[n-1]
	le, ok := p.voc.Entry(last.Entry)
	if !ok || last.Group != nil || !contains(le.Tags, "crop") || len(le.Operations) == 0 {
		return false
	}
	seg := toks[cl.start:cl.end]
	sizes, said := 0, false
	for _, t := range seg {
		switch {
		case t.kind == tSize:
			sizes++
		case t.kind == tWord && outputWords[t.text]:
			said = true
		}
	}
	var phrase []token
	if len(cl.matches) == 1 {
		m := cl.matches[0]
		if len(m.claims) != 1 {
			return false
		}
		me, ok := p.voc.Entry(m.claims[0])
		if !ok || !contains(me.Tags, "resize") || contains(me.Tags, "crop") {
			return false
		}
		phrase, said = toks[m.start:m.end], true
	}
	if sizes != 1 || !said {
		return false
	}
	out := le
	if w, h := le.Parameters["width"], le.Parameters["height"]; w == nil || h == nil || w.Unit != "ratio" || h.Unit != "ratio" {
		if has(last.Values, "width") || has(last.Values, "height") || hasRange(last.Ranges, "width") {
			return false
		}
		out = nil
		for _, v := range p.voc.Select(vocab.Filter{}) {
			w, h := v.Parameters["width"], v.Parameters["height"]
			if v.Name == le.Name || w == nil || h == nil || w.Unit != "ratio" || h.Unit != "ratio" || len(v.Parameters) != len(le.Parameters) || len(v.Operations) != len(le.Operations) || v.Operations[0].Op != le.Operations[0].Op {
				continue
			}
			same := true
			for name := range le.Parameters {
				_, ok := v.Parameters[name]
				same = same && ok
			}
			if same {
				out = v
				break
			}
		}
		if out == nil {
			return false
		}
		last.Entry = out.Name
	}
	for _, t := range seg {
		if t.kind == tWord && outputWords[t.text] {
			r.said = append(r.said, t.text)
		}
	}
	for _, t := range phrase {
		r.said = append(r.said, t.text)
	}
	p.read(r, last, out, seg, phrase, opt)
	return true
}

// otherFills are the border modes other than a flat colour.
var otherFills = map[string]bool{
	"reflect": true, "reflection": true, "reflective": true, "reflected": true, "mirror": true, "mirrored": true,
	"replicate": true, "replicated": true, "wrap": true, "wrapped": true,
}

// notOtherFill reads "pad to a square with white, not reflection": a clause that only
// declines a border mode other than a flat colour, right after a padding step, says
// the step fills with a flat colour: what pad_constant does already, and a
// pad_if_needed, which mirrors, becomes pad_constant (black unless a colour is given).
// Its words are read.
func (p *Parser) notOtherFill(r *Result, toks []token, cl clause) bool {
	if len(r.Transforms) == 0 {
		return false
	}
	last := &r.Transforms[len(r.Transforms)-1]
	le, ok := p.voc.Entry(last.Entry)
	if !ok || !contains(le.Tags, "pad") {
		return false
	}
	flat := le
	if fillParam(le) == "" {
		// "pad to a square, not reflection": the padding that fills with a flat
		// colour, black as albumentations' border_mode 0 with no value.
		if flat = p.withFill(le); flat == nil {
			return false
		}
	}
	neg, mode := false, false
	for _, t := range toks[cl.start:cl.end] {
		switch {
		case t.kind == tWord && negators[t.text]:
			neg = true
		case t.kind == tWord && otherFills[t.text]:
			mode = true
		case t.kind == tWord && (borderNouns[t.text] || t.text == "mode" || t.text == "the" || t.text == "a"):
		default:
			return false
		}
	}
	if !neg || !mode {
		return false
	}
	last.Entry = flat.Name
	for _, t := range toks[cl.start:cl.end] {
		r.said = append(r.said, t.text)
	}
	return true
}

// mentioned returns the index of a transform of t's entry named in an earlier clause
// that t adds nothing conflicting to (its p, or parameters the first did not give),
// or -1.
func (p *Parser) mentioned(r *Result, t Transform, cl clause) int {
	for i := range r.Transforms {
		f := &r.Transforms[i]
		if f.Entry != t.Entry {
			continue
		}
		if t.pSet && f.pSet && t.P != f.P {
			return -1
		}
		for k := range t.given {
			if f.given[k] {
				return -1
			}
		}
		return i
	}
	return -1
}

// every reads "both flips", "all flips": the entries whose names have the word, each
// of them; nil when the clause says anything else.
func (p *Parser) every(seg []token) []string {
	all, word, random := false, "", false
	base := -1
	for _, t := range seg {
		if base < 0 || t.depth < base {
			base = t.depth
		}
	}
	for _, t := range seg {
		switch {
		case t.depth > base && !t.code:
			// "flips (tissue has no orientation)": an aside in brackets.
		case word != "" && oftenWord(t) || frequency[t.text] > 0 && !t.code:
			// "flips half the time", "flips 50% each", "flips p=0.5": how
			// often, read after; "always flip both ways" before.
		case t.kind != tWord:
			return nil
		case t.text == "both" || t.text == "all":
			all = true
		case t.text == "random" || t.text == "randomly":
			random = true
		case filler[t.text] || bothWays[t.text] || welcome[t.text] || t.text == "it":
		case word == "":
			word = t.text
		default:
			return nil
		}
	}
	if word == "" {
		return nil
	}
	alone := 0
	for _, t := range seg {
		if (t.depth == base || t.code) && !oftenWord(t) {
			alone++
		}
	}
	var out, bare []string
	for _, e := range p.voc.Entries {
		for _, part := range strings.Split(e.Name, "_") {
			if part+"s" == word || part+"es" == word {
				out = append(out, e.Name)
				break
			}
			if part == word {
				bare = append(bare, e.Name)
				break
			}
		}
	}
	if len(out) == 0 && !all && len(bare) == 2 {
		// "flip 50%", "random flip", "flip it": a pair's word in the singular,
		// unqualified, is the flip everyone means by it (torchvision's
		// RandomHorizontalFlip, Ultralytics' fliplr): the horizontal one.
		for _, name := range bare {
			for _, part := range strings.Split(name, "_") {
				if part == bareOfPair {
					return []string{name}
				}
			}
		}
		return nil
	}
	if len(out) == 0 && all && len(bare) == 2 {
		// "flip both ways", "flip on both axes": the singular with both is the
		// pair too.
		out = bare
	}
	// "random flips", "flips": the plural of a pair's word (horizontal and
	// vertical) is the pair; of more kinds (blurs) it names none of them.
	if !all && !(len(out) == 2 && (random || alone == 1)) {
		return nil
	}
	return out
}

// oftenWord says whether t is a word or number of how often ("half the time", "50%
// each", "p=0.5").
func oftenWord(t token) bool {
	if t.code {
		return false
	}
	return t.kind == tNum || t.text == "%" || t.text == "=" || t.text == "each" || t.text == "the" || frequency[t.text] > 0 || frequencyWords[t.text] && t.text != "both" || portionNouns[t.text]
}

// welcome are the words that say a transform is wanted ("both flips are fine").
var welcome = map[string]bool{"are": true, "fine": true, "ok": true, "okay": true, "allowed": true, "welcome": true, "good": true}

// bothWays are the words of "both ways", "both directions", "all axes" after "both"
// or "all": which of the entries, all of them.
var bothWays = map[string]bool{"ways": true, "directions": true, "axes": true, "sides": true}

// paramEndsAt says whether a name of a parameter of e ends at token j, starting at or
// after from.
func paramEndsAt(voc *vocab.Vocabulary, e *vocab.Entry, toks []token, from, j int) bool {
	for k := from; k <= j; k++ {
		if pn := paramsAt(voc, e, toks, k); pn.width > 0 && k+pn.width-1 == j {
			return true
		}
	}
	return false
}

// mergeable says whether t, named by a phrase that is one of its entry's parameters
// ("shear"), only adds values to last, a transform of the same entry that left those
// parameters unset.
func mergeable(p *Parser, last *Transform, t Transform, e *vocab.Entry, phrase []token) bool {
	if e == nil || last.Entry != t.Entry || t.P != 1 || len(phrase) == 0 || paramsAt(p.voc, e, phrase, 0).width != len(phrase) {
		return false
	}
	for k := range t.Values {
		if _, ok := last.Values[k]; ok {
			return false
		}
		if _, ok := last.Ranges[k]; ok {
			return false
		}
	}
	for k := range t.Ranges {
		if _, ok := last.Values[k]; ok {
			return false
		}
		if _, ok := last.Ranges[k]; ok {
			return false
		}
	}
	return len(t.Values)+len(t.Ranges) > 0
}

// choose picks among the entries a phrase names: the one that can take the values the
// clause gives (units), then the one whose own name shares most words with the phrase,
// then the first by name. Unless the values decided, it is an ambiguity.
func (p *Parser) choose(r *Result, m match, seg []token, opt Options) string {
	if len(m.claims) == 1 {
		return m.claims[0]
	}
	best := rank(p.voc, m, seg)
	if !p.decided(m, seg) {
		r.Ambiguities = append(r.Ambiguities, Ambiguity{Phrase: m.phrase, Interpretations: m.claims, Chosen: best[0]})
		sev := "warning"
		if opt.Strict {
			sev = "error"
		}
		r.issue(sev, fmt.Sprintf("%q names %s; read as %s", m.phrase, strings.Join(m.claims, " and "), best[0]),
			"name the entry itself: "+strings.Join(m.claims, " or "), best[0], "")
	}
	return best[0]
}

func (p *Parser) decided(m match, seg []token) bool {
	var fit, all []*vocab.Entry
	for _, c := range m.claims {
		if e, ok := p.voc.Entry(c); ok {
			all = append(all, e)
			if takesUnits(p.voc, e, seg) > 0 {
				fit = append(fit, e)
			}
		}
	}
	if len(fit) == 1 {
		return true
	}
	if len(fit) == 0 {
		fit = all
	}
	// Of those the values leave, one is an augmentation: a prompt asks for
	// augmentations ("darker": random_brightness, not the editing taste darker).
	aug := 0
	for _, e := range fit {
		if augmentation(e) {
			aug++
		}
	}
	return aug == 1
}

// augmentation says whether e is tagged an augmentation: what a prompt names when an
// editing entry claims the same phrase.
func augmentation(e *vocab.Entry) bool {
	return e != nil && contains(e.Tags, "augmentation")
}

func rank(voc *vocab.Vocabulary, m match, seg []token) []string {
	claims := append([]string(nil), m.claims...)
	phrase := strings.Fields(m.phrase)
	score := func(name string) (int, int, bool) {
		e, _ := voc.Entry(name)
		overlap := 0
		for _, w := range strings.Split(name, "_") {
			if contains(phrase, w) {
				overlap++
			}
		}
		return takesUnits(voc, e, seg), overlap, augmentation(e)
	}
	sort.SliceStable(claims, func(i, j int) bool {
		ui, oi, ai := score(claims[i])
		uj, oj, aj := score(claims[j])
		if ui != uj {
			return ui > uj
		}
		if ai != aj {
			return ai
		}
		if oi != oj {
			return oi > oj
		}
		return claims[i] < claims[j]
	})
	return claims
}

// takesUnits counts the numbers with units in seg that one of e's parameters can take.
func takesUnits(voc *vocab.Vocabulary, e *vocab.Entry, seg []token) int {
	n := 0
	for k, t := range seg {
		if t.kind == tSize && hasSizeParams(e) {
			n++
		}
		if t.kind != tNum || k+1 >= len(seg) {
			continue
		}
		u := units[seg[k+1].text]
		if u == "" || u == "%" && k+3 < len(seg) && seg[k+2].text == "of" {
			continue
		}
		for _, name := range voc.ParameterOrder(e) {
			if compatible(u, e.Parameters[name]) {
				n++
				break
			}
		}
	}
	return n
}

func namesParameter(voc *vocab.Vocabulary, e *vocab.Entry, seg []token) bool {
	if e == nil {
		return false
	}
	for k := range seg {
		if name, _ := paramAt(voc, e, seg, k); name != "" {
			return true
		}
	}
	return false
}

// paramAt says whether the words at k name a parameter of e (see paramsAt), which
// (the first, when a name gives several) and how many tokens they take.
func paramAt(voc *vocab.Vocabulary, e *vocab.Entry, seg []token, k int) (string, int) {
	pn := paramsAt(voc, e, seg, k)
	if pn.width == 0 {
		return "", 0
	}
	return pn.params[0], pn.width
}

func hasSizeParams(e *vocab.Entry) bool {
	_, w := e.Parameters["width"]
	_, h := e.Parameters["height"]
	_, l := e.Parameters["left"]
	_, t := e.Parameters["top"]
	return w && h || l && t
}

// unmatched handles a clause no phrase named: a clause of filler words is nothing; one
// whose words resemble an example phrase is read as that example's entry with a lower
// confidence; anything else is a warning with the nearest phrases as suggestions.
func (p *Parser) unmatched(r *Result, seg []token, opt Options) {
	content := map[string]bool{}
	var words []string
	for _, t := range seg {
		if t.kind == tWord && !filler[t.text] && frequency[t.text] == 0 && intensity[t.text] == 0 && units[t.text] == "" {
			content[t.text] = true
			words = append(words, t.text)
		}
	}
	if name, at := p.presetAt(seg); name != "" {
		if !asksPreset(seg, at) {
			// Decided once the prompt is read: the preset, when the prompt names
			// no transform; context otherwise.
			r.context = append(r.context, contextPreset{name: name, seg: seg})
			return
		}
		p.takePreset(r, name, words)
		return
	}
	if tag := p.onlyKind(seg, content); tag != "" {
		r.only = append(r.only, [2]string{tag, joinTokens(seg)})
		return
	}
	if len(content) == 0 {
		if hasNumber(seg) {
			r.unread(joinTokens(seg), fmt.Sprintf("%q: a value with no transform to apply it to", joinTokens(seg)), "put the value after the transform's name", "")
		}
		return
	}
	for _, t := range seg {
		if r.described[t.pos] {
			r.unread(joinTokens(seg), fmt.Sprintf("%q says what the images are, not a transform to run; nothing is applied for it", joinTokens(seg)), "name the transform as a request (\"convert to gray\") to have it applied", "")
			return
		}
	}
	for _, t := range seg {
		if r.removals[t.pos] {
			r.unread(joinTokens(seg), fmt.Sprintf("%q asks to take something out of the images: darkroom's augmentations add effects and remove none, so nothing is applied for it", joinTokens(seg)), "clean the images before augmenting them; name a transform to add it", "")
			return
		}
	}
	bestScore, bestEntry, tie := p.exampleFor(content)
	if bestScore >= 0.5 && !tie && (negatedClause(seg) || contains(r.Excluded, bestEntry)) {
		// "no colour changes whatsoever": what the prompt asks not to do (or
		// what is left of "no color changes" once "no color" excluded the colour
		// entries) is no transform to add, even when its words are an example's.
		words := joinTokens(seg)
		r.negated = append(r.negated, words)
		if !contains(r.Excluded, bestEntry) {
			r.Excluded = append(r.Excluded, bestEntry)
		}
		r.issue("warning", fmt.Sprintf("%q: the prompt asks for none of this (%s and the like); no transform is added for it", words, bestEntry), "", bestEntry, "")
		return
	}
	if bestScore >= 0.5 && !tie {
		e, _ := p.voc.Entry(bestEntry)
		t := Transform{Entry: bestEntry, Phrase: strings.Join(words, " "), P: 1, Confidence: round(0.8 * bestScore)}
		// The words the example shares are what named the entry: read, not stray.
		var named []token
		for _, tk := range seg {
			if tk.kind == tWord && content[tk.text] && p.inExample(bestEntry, tk.text) {
				named = append(named, tk)
			}
		}
		p.read(r, &t, e, seg, named, opt)
		r.Transforms = append(r.Transforms, t)
		r.Suggestions = append(r.Suggestions, fmt.Sprintf("%q was read as %s from its example phrases; say %q to be sure", strings.Join(words, " "), bestEntry, strings.ReplaceAll(bestEntry, "_", " ")))
		return
	}
	near := p.nearest(words)
	sugg := ""
	if len(near) > 0 {
		sugg = "did you mean " + quoteList(near) + "?"
		r.Suggestions = append(r.Suggestions, fmt.Sprintf("for %q, did you mean %s?", strings.Join(words, " "), quoteList(near)))
	}
	r.unread(joinTokens(seg), fmt.Sprintf("%q names no vocabulary entry; ignored", joinTokens(seg)), sugg, "")
}

// exampleFor returns the entry whose example phrase shares the most of the content
// words (Jaccard), its score, and whether another entry ties with it.
func (p *Parser) exampleFor(content map[string]bool) (bestScore float64, bestEntry string, tie bool) {
	for _, e := range p.voc.Entries {
		for _, ex := range p.examples[e.Name] {
			inter := 0
			for w := range content {
				if ex[w] {
					inter++
				}
			}
			union := len(content) + len(ex) - inter
			s := float64(inter) / float64(union)
			switch {
			case s > bestScore+1e-9:
				bestScore, bestEntry, tie = s, e.Name, false
			case math.Abs(s-bestScore) <= 1e-9 && bestEntry != e.Name && s > 0:
				tie = true
			}
		}
	}
	return bestScore, bestEntry, tie
}

// negatedClause says whether a clause no phrase matched opens with a negator ("no
// colour changes whatsoever", "never anything photometric").
func negatedClause(seg []token) bool {
	for _, t := range seg {
		switch {
		case t.kind == tSep:
		case t.kind == tWord && (negators[t.text] || t.text == "nothing"):
			return true
		case t.kind == tWord && filler[t.text] && t.text != "nothing":
		default:
			return false
		}
	}
	return false
}

// onlyKind reads "geometry only", "only colour", "just geometric": a kind (a tag of
// the vocabulary's entries) the prompt keeps to. It returns the tag or "".
func (p *Parser) onlyKind(seg []token, content map[string]bool) string {
	only := false
	for _, t := range seg {
		only = only || t.text == "only" || t.text == "just"
	}
	if !only || len(content) != 1 {
		return ""
	}
	for w := range content {
		w = strings.ReplaceAll(w, "colour", "color")
		for _, e := range p.voc.Entries {
			if augmentation(e) && contains(e.Tags, w) {
				return w
			}
		}
	}
	return ""
}

// checkOnly holds the transforms read to the kinds the prompt keeps to: the words
// are read when every transform is of the kind, and a warning names those that are
// not.
func (p *Parser) checkOnly(r *Result) {
	for _, o := range r.only {
		var not []string
		for _, t := range r.Transforms {
			if e, ok := p.voc.Entry(t.Entry); ok && !contains(e.Tags, o[0]) {
				not = append(not, t.Entry)
			}
		}
		r.negated = append(r.negated, o[1])
		if len(not) > 0 {
			r.issue("warning", fmt.Sprintf("%q: the prompt keeps to %s transforms, but it also names %s, which are not; they are applied as asked", o[1], o[0], strings.Join(not, ", ")), "drop them or the restriction", "", "")
		}
	}
}

// takePreset sets the preset a clause names and lists the clause's other words
// ("tiles" in "for aerial tiles"), which the preset does not read.
func (p *Parser) takePreset(r *Result, name string, words []string) {
	r.Preset = name
	// Words besides the preset's name ("tiles" in "for aerial tiles") are not
	// read by it: listed.
	named := map[string]bool{}
	for _, pr := range p.voc.Presets {
		if pr.Name == name {
			for _, n := range append([]string{strings.ReplaceAll(pr.Name, "_", " ")}, pr.Aliases...) {
				for _, w := range texts(tokenize(strings.ReplaceAll(n, "_", " "))) {
					named[w] = true
				}
			}
		}
	}
	var rest []string
	for _, w := range words {
		if !named[w] && !knownWord(w) {
			rest = append(rest, w)
		}
	}
	if len(rest) > 0 {
		u := strings.Join(rest, " ")
		r.unread(u, fmt.Sprintf("%q: not read; the preset %s runs without it", u, name), "", "")
	}
}

// contextPreset is a preset named in a clause that does not ask for it ("I'm doing
// cell segmentation on microscopy images").
type contextPreset struct {
	name string
	seg  []token
}

// settlePresets decides the presets named as context: the preset when the prompt
// names nothing else ("satellite"), else listed unread with why, for the prompt's
// transforms run without it.
func (p *Parser) settlePresets(r *Result) {
	for _, c := range r.context {
		u := joinTokens(c.seg)
		var words []string
		for _, t := range c.seg {
			if t.kind == tWord && !filler[t.text] && frequency[t.text] == 0 && intensity[t.text] == 0 && units[t.text] == "" {
				words = append(words, t.text)
			}
		}
		if len(r.Transforms) == 0 && r.Preset == "" && len(words) == 1 {
			// "satellite": a prompt that is only a preset's name asks for it.
			p.takePreset(r, c.name, words)
			continue
		}
		if len(r.Transforms) == 0 && r.Preset == "" {
			// "the usual augmentations for a kaggle image classification comp",
			// "I'm doing cell segmentation": what the images are for asks for no
			// steps of its own; the preset is suggested, never run unasked.
			r.unread(u, fmt.Sprintf("%q says what the images are for, which names the preset %s; no preset runs unless asked for", u, c.name),
				fmt.Sprintf("say \"apply the %s preset\" to run it, or name the transforms", strings.ReplaceAll(c.name, "_", " ")), "")
			continue
		}
		r.unread(u, fmt.Sprintf("%q names the preset %s as what the images are; the prompt's transforms run without it", u, c.name),
			fmt.Sprintf("say \"apply the %s preset\" to add it", strings.ReplaceAll(c.name, "_", " ")), "")
	}
}

// inExample says whether w is a word of one of entry's example phrases.
func (p *Parser) inExample(entry, w string) bool {
	for _, ex := range p.examples[entry] {
		if ex[w] {
			return true
		}
	}
	return false
}

// sharedPercent reads "each 30%", "all 10 %": a word saying the value is each
// transform's and a percentage, nothing else. It returns the probability.
func sharedPercent(seg []token) (float64, bool) {
	shared, v, n := false, 0.0, 0
	for k, t := range seg {
		switch {
		case t.kind == tSep:
		case t.text == "each" || t.text == "all" || t.text == "both":
			shared = true
		case t.kind == tNum && k+1 < len(seg) && units[seg[k+1].text] == "%" && !t.signed:
			v, n = t.num/100, n+1
		case units[t.text] == "%" || t.kind == tWord && filler[t.text]:
		default:
			return 0, false
		}
	}
	return v, shared && n == 1 && v > 0 && v <= 1
}

// pNotation says whether a clause writes its probability as p ("p .5", "p=0.5").
func pNotation(seg []token) bool {
	for _, t := range seg {
		if t.text == "p" {
			return true
		}
	}
	return false
}

// lastClause says whether nothing but separators follows token end.
func lastClause(toks []token, end int) bool {
	for _, t := range toks[end:] {
		if t.kind != tSep {
			return false
		}
	}
	return true
}

// onlyFrequency says whether a clause's words are all about how often: a probability
// and the words around it, nothing a transform or a value could be.
func onlyFrequency(seg []token) bool {
	for _, t := range seg {
		if t.kind == tWord && !filler[t.text] && frequency[t.text] == 0 && units[t.text] == "" && !frequencyWords[t.text] && !portionNouns[t.text] && t.text != "back" {
			// "on roughly 30% of frames": what the portion is of; "downscale ...
			// and back up for 30% of images": the way back of the step before.
			return false
		}
	}
	return true
}

// presetIn returns the preset whose name or alias the words contain, longest first.
func (p *Parser) presetIn(seg []token) string {
	name, _ := p.presetAt(seg)
	return name
}

// presetAt is presetIn with where the preset's name starts in seg.
func (p *Parser) presetAt(seg []token) (string, int) {
	best, width, at := "", 0, -1
	for _, pr := range p.voc.Presets {
		for _, n := range append([]string{strings.ReplaceAll(pr.Name, "_", " ")}, pr.Aliases...) {
			want := texts(tokenize(strings.ReplaceAll(n, "_", " ")))
			for k := 0; k+len(want) <= len(seg); k++ {
				if strings.Join(texts(seg[k:k+len(want)]), " ") == strings.Join(want, " ") && len(want) > width {
					best, width, at = pr.Name, len(want), k
				}
			}
		}
	}
	return best, at
}

// asksPreset says whether the words around a preset's name at k ask for it ("apply
// the low light preset", "make it vintage", "for aerial tiles", "look like a cheap
// webcam") rather than say what the images are ("my cell segmentation dataset",
// "dashcam footage for lane detection": a "for" after words naming the images says
// what they are for).
func asksPreset(seg []token, k int) bool {
	for _, t := range seg {
		if t.text == "preset" {
			return true
		}
	}
	for j := max(0, k-3); j < k; j++ {
		switch seg[j].text {
		case "for":
			// "for aerial tiles", "for object detection": what the images are, or
			// are for, asks for no preset unless a verb asks ("use ... for").
		case "apply", "use", "like", "simulate", "make", "it", "look", "as":
			return true
		}
	}
	return false
}

// describedBefore says whether the word before a "for" names the images ("dashcam
// footage for", "a selfie dataset for", "scans for"): then the "for" says what they are
// for, and a preset named after it is what they are, not a request.
func describedBefore(seg []token) bool {
	for j := len(seg) - 1; j >= 0; j-- {
		t := seg[j]
		if t.kind != tWord || filler[t.text] && !imageNouns[t.text] {
			continue
		}
		return imageNouns[t.text]
	}
	return false
}

// imageNouns are words that name a set of images.
var imageNouns = map[string]bool{
	"footage": true, "photos": true, "photo": true, "images": true, "image": true, "imgs": true, "pics": true,
	"pictures": true, "frames": true, "dataset": true, "datasets": true, "data": true, "shots": true,
	"scans": true, "patches": true, "clips": true, "videos": true, "samples": true, "captures": true,
}

// nearest returns up to three phrases whose words are each within a small edit distance
// of a word given.
func (p *Parser) nearest(words []string) []string {
	type cand struct {
		phrase string
		d      int
	}
	var cs []cand
	for _, ph := range p.phrases {
		best := 99
		for _, pw := range strings.Fields(ph) {
			for _, w := range words {
				// Words over 64 characters are no typo of a phrase's, and would
				// cost the distance len(w)*len(pw) steps.
				if len(w) < 3 || len(pw) < 3 || utf8.RuneCountInString(w) > 64 || utf8.RuneCountInString(pw) > 64 {
					continue
				}
				if d := vocab.EditDistance(w, pw); d < best && d <= len(w)/3+1 {
					best = d
				}
			}
		}
		if best < 99 {
			cs = append(cs, cand{ph, best*100 + len(ph)})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].phrase < cs[j].phrase })
	var out []string
	for _, c := range cs {
		if len(out) == 3 {
			break
		}
		out = append(out, c.phrase)
	}
	return out
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

func hasNumber(seg []token) bool {
	for _, t := range seg {
		if t.kind == tNum || t.kind == tSize {
			return true
		}
	}
	return false
}

func joinTokens(seg []token) string { return strings.Join(texts(seg), " ") }

// someExamples quotes the first example phrases of the vocabulary, for a prompt that
// named nothing.
func (p *Parser) someExamples() string {
	var out []string
	for _, e := range p.voc.Entries {
		if len(e.Examples) > 0 && len(e.Parameters) > 0 {
			out = append(out, strconv.Quote(e.Examples[0]))
		}
		if len(out) == 3 {
			break
		}
	}
	return strings.Join(out, ", ")
}

func (r *Result) issue(sev, msg, sugg, entry, param string) {
	r.Errors = append(r.Errors, Issue{Message: msg, Severity: sev, Suggestion: sugg, Entry: entry, Parameter: param})
}

// issueAt is issue naming the words of the prompt it is about: a value outside its
// parameter's range names the value as written ("alpha=120" reads "120").
func (r *Result) issueAt(sev, phrase, msg, sugg, entry, param string) {
	r.Errors = append(r.Errors, Issue{Message: msg, Severity: sev, Phrase: phrase, Suggestion: sugg, Entry: entry, Parameter: param})
}

// unread records words of the prompt that no transform took, as a warning naming them.
func (r *Result) unread(phrase, msg, sugg, entry string) {
	r.Errors = append(r.Errors, Issue{Message: msg, Severity: "warning", Phrase: phrase, Suggestion: sugg, Entry: entry})
}

// Unread are the warnings that left words of the prompt out of every transform.
func (r *Result) Unread() []Issue {
	var out []Issue
	for _, e := range r.Errors {
		if e.Phrase != "" && e.Severity == "warning" {
			out = append(out, e)
		}
	}
	return out
}

func (r *Result) hasError() bool {
	for _, e := range r.Errors {
		if e.Severity == "error" {
			return true
		}
	}
	return false
}

// round keeps twelve significant digits, so that a conversion such as 15/1000 prints
// as written rather than as 0.015000000000000001.
func round(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return v
}

// sameKindBefore says whether prev, one entry, is a general word for the kind m's one
// entry is exactly, with only words between them: both resize the image (tag resize)
// and prev takes no value of its own there ("resize ... longest side").
func (p *Parser) sameKindBefore(toks []token, prev, m match) bool {
	if len(prev.claims) != 1 || len(m.claims) != 1 || prev.claims[0] == m.claims[0] {
		return false
	}
	a, ok1 := p.voc.Entry(prev.claims[0])
	b, ok2 := p.voc.Entry(m.claims[0])
	if !ok1 || !ok2 || !contains(a.Tags, "resize") || !contains(b.Tags, "resize") {
		return false
	}
	for _, t := range toks[prev.end:m.start] {
		if t.kind != tWord || t.code {
			return false
		}
	}
	return true
}

// paramList says whether toks[from:to] is two or more names of parameters of e joined
// by "/" or "&" ("brightness/contrast/saturation").
func paramList(voc *vocab.Vocabulary, e *vocab.Entry, toks []token, from, to int) bool {
	names := 0
	for k := from; k < to; {
		if toks[k].text == "/" || toks[k].text == "&" {
			k++
			continue
		}
		pn := paramsAt(voc, e, toks, k)
		if pn.width == 0 || k+pn.width > to {
			return false
		}
		names++
		k += pn.width
	}
	return names >= 2
}

// sharedValue reads "contrast and brightness jitter ±30%": a transform named bare,
// joined by "and" or "&" to the next one whose only words after its name are one
// value, takes that value too, as "brightness and contrast ±30%" gives it to both.
// prev and cl each made one transform, the last two of r.
func (p *Parser) sharedValue(r *Result, toks []token, prev, cl clause, opt Options) {
	if len(prev.matches) != 1 || len(cl.matches) != 1 || prev.end+1 != cl.start || cl.start != cl.matches[0].start {
		return
	}
	if j := toks[prev.end].text; j != "and" && j != "&" || prev.matches[0].start != prev.start || prev.matches[0].end != prev.end {
		return
	}
	first := &r.Transforms[len(r.Transforms)-2]
	if len(first.given) > 0 || first.pSet || first.Group != nil {
		return
	}
	val := toks[cl.matches[0].end:cl.end]
	nums, change := 0, false
	for _, t := range val {
		change = change || t.text == "±" || t.text == "%" || t.signed
		switch {
		case t.kind == tNum:
			nums++
		case t.kind == tWord && (t.text == "±" || t.text == "%" || t.text == "to" || t.text == "up" || t.text == "by"):
		default:
			return
		}
	}
	if nums == 0 || nums > 2 || !change {
		return
	}
	e, ok := p.voc.Entry(first.Entry)
	if !ok {
		return
	}
	save, errs := *first, len(r.Errors)
	p.rereadBare(r, first, e, val, opt)
	if len(r.Errors) > errs {
		// Not a value of this one as written ("blur and noise 20%"): it keeps its
		// own.
		*first, r.Errors = save, r.Errors[:errs]
	}
}

// sizeInside reads "random 224x224 crop", "cut random 512x512 crops" as "random crop
// 224x224": a size written inside a phrase of two words is the phrase's value.
func (p *Parser) sizeInside(toks []token) []token {
	for k := 0; k+2 < len(toks); k++ {
		a, n, b := toks[k], toks[k+1], toks[k+2]
		if a.kind != tWord || a.code || n.kind != tSize || n.code || b.kind != tWord || b.code {
			continue
		}
		w := b.text
		if !p.isPhrase([]string{a.text, w}) {
			w = strings.TrimSuffix(w, "s")
			if !p.isPhrase([]string{a.text, w}) || p.isPhrase([]string{b.text}) && !p.isPhrase([]string{w}) {
				continue
			}
		}
		toks[k+1], toks[k+2] = b, n
		k += 2
	}
	return toks
}

// fillAfter reads "pad to 1024x1024 if it ends up smaller, black padding": a clause
// whose one phrase names the transform before it or its variant that fills, with a
// colour and no number, is the colour that transform fills with (pad_if_needed
// becomes pad_constant), not a second step.
func (p *Parser) fillAfter(r *Result, toks []token, cl clause, opt Options) bool {
	n := len(r.Transforms)
	if n == 0 || len(cl.matches) > 1 || hasNumber(toks[cl.start:cl.end]) {
		return false
	}
	last := &r.Transforms[n-1]
	le, ok := p.voc.Entry(last.Entry)
	if !ok || last.Group != nil {
		return false
	}
	seg := toks[cl.start:cl.end]
	v := p.colourVariant(le, seg)
	fillWord := false
	for _, t := range seg {
		fillWord = fillWord || t.text == "fill" || t.text == "filled" || t.text == "padding" || t.text == "padded"
	}
	if v == nil || len(cl.matches) == 1 && !contains(cl.matches[0].claims, v.Name) && !contains(cl.matches[0].claims, le.Name) && !fillWord || len(cl.matches) == 0 && !fillWord {
		// "fill with black", "gray padding": a fill word says the colour is the
		// fill, even where it would name a transform (to_gray).
		return false
	}
	p.read(r, last, le, seg, nil, opt)
	return true
}
