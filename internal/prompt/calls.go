package prompt

import (
	"slices"
	"strings"
	"unicode"
)

// A call to an albumentations transform written in a prompt ("A.CLAHE(clip_limit=2,
// tile_grid_size=(4, 4))", "RandomResizedCrop(224, 224, scale=(0.5, 1))") means what
// it means in a training script, so it is read by the readings a pipeline file is
// read by (vocabulary/albumentations/transforms.yaml), given to the parser with
// ReadCalls: the parameters, defaults included, are the pipeline's; what the words
// around the call say of it (its p, "on everything", "prob 0.3 each", its OneOf)
// stays the prompt's.

// CallReading is how a pipeline reads one albumentations call: the entry it becomes
// and its parameters.
type CallReading struct {
	Entry  string
	Values map[string]float64
	Ranges map[string][2]float64
}

// CallReader reads the albumentations call src, exactly as the prompt wrote it, for
// an image of width x height pixels; false leaves the prompt's own reading of it
// (src is no call of Python literals, or of a class with no single-entry reading, or
// the reading leaves part of the call undone).
type CallReader func(src string, width, height int) (CallReading, bool)

// ReadCalls makes the parser read albumentations calls with f. Call it once, before
// the parser is shared.
func (p *Parser) ReadCalls(f CallReader) { p.calls = f }

// readCalls replaces the reading of each transform named by an albumentations call
// with f's reading of the call, where f can read it and the image's size is known.
// A transform's call is found by order: the tokenizer marks a word a call's name
// when "(" follows it at once, and the n-th such word is the n-th "(" of the text
// that follows a letter or a digit.
func (p *Parser) readCalls(r *Result, text string, opt Options) {
	if p.calls == nil || opt.Width <= 0 || opt.Height <= 0 {
		return
	}
	rs := []rune(strings.ToLower(text))
	orig := []rune(text)
	if len(rs) != len(orig) {
		return
	}
	type site struct{ start, end int }
	var sites []site
	for i := 1; i < len(rs); i++ {
		if rs[i] != '(' || !unicode.IsLetter(rs[i-1]) && !unicode.IsDigit(rs[i-1]) {
			continue
		}
		start := i
		for start > 0 && (identRune(rs[start-1]) || rs[start-1] == '.' && start > 1 && identRune(rs[start-2])) {
			start--
		}
		sites = append(sites, site{start, closing(rs, i)})
	}
	toks := tokenize(text)
	var calls []int
	for k, t := range toks {
		if t.call {
			calls = append(calls, k)
		}
	}
	if len(calls) != len(sites) {
		return
	}
	for ti := range r.Transforms {
		t := &r.Transforms[ti]
		n := -1
		for k := t.at; k < len(toks) && toks[k].kind == tWord; k++ {
			if toks[k].call {
				n = slices.Index(calls, k)
				break
			}
		}
		if n < 0 || sites[n].end < 0 {
			continue
		}
		src := string(orig[sites[n].start : sites[n].end+1])
		rd, ok := p.calls(src, opt.Width, opt.Height)
		if !ok {
			continue
		}
		// What the words' reading said of the call's own arguments goes with it;
		// what it said of words outside the call ("zorblax A.CLAHE(...)") stays.
		inCall := map[string]bool{}
		for _, tk := range tokenize(src) {
			inCall[tk.text] = true
		}
		kept := r.Errors[:0]
		for _, e := range r.Errors {
			if e.of != t.at+1 || !allIn(strings.Fields(e.Phrase), inCall) {
				kept = append(kept, e)
			}
		}
		r.Errors = kept
		t.Entry, t.Values, t.Ranges, t.Pending = rd.Entry, rd.Values, rd.Ranges, nil
	}
}

// allIn reports whether every word is in set.
func allIn(words []string, set map[string]bool) bool {
	for _, w := range words {
		if !set[w] {
			return false
		}
	}
	return true
}

func identRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// closing is the index of the parenthesis that closes the one at open, -1 if none;
// brackets and quoted strings inside are skipped.
func closing(rs []rune, open int) int {
	depth := 0
	var quote rune
	for k := open; k < len(rs); k++ {
		switch c := rs[k]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				if c != ')' {
					return -1
				}
				return k
			}
		}
	}
	return -1
}
