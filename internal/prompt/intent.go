package prompt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// This file reads what a prompt says besides its transforms: how many variants it
// asks for ("5 variants"), what it asks not to do ("no flips", "without blur"), and
// clauses that only say how much of the transform before them ("shift scale rotate,
// small amounts"). Their words are English (words.go); which transforms exist still
// comes only from the manifests.

// consumed marks a token already read by this file: it cuts clauses like a separator,
// so no transform takes it and no warning lists it.
func consumed(t token) token {
	return token{kind: tSep, text: t.text, pos: t.pos}
}

// readVariants reads "N variants" (versions, copies, augmentations, samples, outputs,
// augmented images) into Result.Variants and consumes the words around it that only
// ask for them ("I need", "maybe", "of each image"), so that "10" is no angle and
// "maybe" no probability.
func readVariants(r *Result, toks []token) {
	for k := 0; k < len(toks); k++ {
		// "x10", "×10" at the end of a clause: ten of each.
		if n, ok := timesCount(toks[k].text); ok && toks[k].kind == tWord && !toks[k].code && (k+1 == len(toks) || toks[k+1].kind == tSep) {
			r.Variants = n
			toks[k] = consumed(toks[k])
			continue
		}
		if n, ok := numberWords[toks[k].text]; ok && toks[k].kind == tWord && k+1 < len(toks) && variantWords[toks[k+1].text] {
			// "five variants each", "Ten variants.": a count written as a word.
			toks[k] = token{kind: tNum, text: toks[k].text, num: float64(n), pos: toks[k].pos, depth: toks[k].depth}
		}
		if k == 0 && len(toks) > 2 && toks[0].kind == tNum && toks[0].num >= 1 && toks[0].num == float64(int(toks[0].num)) && toks[1].text == "x" && toks[2].text == ":" {
			// "3x: blur 3-7 + hue shift ±10": a count of variants heading the prompt.
			r.Variants = int(toks[0].num)
			toks[0], toks[1], toks[2] = consumed(toks[0]), consumed(toks[1]), consumed(toks[2])
			k = 2
			continue
		}
		if k+1 >= len(toks) || toks[k].kind != tNum || toks[k].signed || toks[k].num != float64(int(toks[k].num)) || toks[k].num < 1 || toks[k].code {
			continue
		}
		if toks[k+1].text == "each" && (k+2 == len(toks) || toks[k+2].kind == tSep) {
			// "run this on the folder, 3 each": a count of each input's outputs.
			r.Variants = int(toks[k].num)
			toks[k], toks[k+1] = consumed(toks[k]), consumed(toks[k+1])
			k++
			continue
		}
		if k > 0 && (toks[k-1].text == "from" || toks[k-1].text == "of") {
			// "random crop 256 (from 512 imgs)": what the inputs are, not how many.
			continue
		}
		end := k + 1
		switch w := toks[k+1].text; {
		case variantWords[w]:
			end = k + 2
		case variantAdjectives[w]:
			if k+2 < len(toks) && (variantWords[toks[k+2].text] || toks[k+2].text == "images") {
				end = k + 3
			}
		}
		if end == k+1 && k+3 < len(toks) && variantAdjectives[toks[k+1].text] && toks[k+2].text == "per" && toks[k+3].kind == tWord {
			// "12 augmented per original".
			r.Variants = int(toks[k].num)
			for j := k; j <= k+3; j++ {
				toks[j] = consumed(toks[j])
			}
			k += 3
			continue
		}
		if end == k+1 && k+2 < len(toks) && toks[k+1].text == "per" && toks[k+2].kind == tWord && (k > 0 && variantLead[toks[k-1].text] ||
			variantTail[toks[k+2].text] && (k+3 == len(toks) || toks[k+3].kind == tSep) && (k == 0 || toks[k-1].kind == tSep)) {
			// "generate 5 per image", "..., 4 per image.": a count of outputs per input.
			r.Variants = int(toks[k].num)
			from := k
			if k > 0 && variantLead[toks[k-1].text] {
				from = k - 1
			}
			for j := from; j <= k+2; j++ {
				toks[j] = consumed(toks[j])
			}
			k += 2
			continue
		}
		if end == k+1 {
			continue
		}
		r.Variants = int(toks[k].num)
		start := k
		for start > 0 && toks[start-1].kind == tWord && variantLead[toks[start-1].text] {
			start--
		}
		for end < len(toks) && toks[end].kind == tWord && variantTail[toks[end].text] {
			// "per plate", "for each tile": whatever the inputs are called.
			if (toks[end].text == "per" || toks[end].text == "each") && end+1 < len(toks) && toks[end+1].kind == tWord && !variantTail[toks[end+1].text] {
				end++
			}
			end++
		}
		for j := start; j < end; j++ {
			toks[j] = consumed(toks[j])
		}
		k = end - 1
	}
}

// numberWords are counts written as words ("five variants").
var numberWords = map[string]int{
	"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
}

// timesCount reads "x10", "×10": a count of variants.
func timesCount(w string) (int, bool) {
	if !strings.HasPrefix(w, "x") && !strings.HasPrefix(w, "×") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(w, "x"), "×"))
	return n, err == nil && n >= 1
}

var variantWords = map[string]bool{
	"variants": true, "variant": true, "versions": true, "version": true, "copies": true,
	"augmentations": true, "samples": true, "outputs": true, "variations": true, "imgs": true,
	"augs": true,
}

// variantAdjectives stand between the count and the word ("12 augmented copies").
var variantAdjectives = map[string]bool{"augmented": true, "different": true, "random": true, "new": true}

// variantLead are words before "N variants" that only ask for them.
var variantLead = map[string]bool{
	"i": true, "need": true, "want": true, "give": true, "me": true, "generate": true, "create": true,
	"produce": true, "make": true, "render": true, "maybe": true, "about": true, "around": true,
	"roughly": true, "approximately": true, "please": true, "can": true, "you": true, "could": true,
	"would": true, "like": true, "get": true, "output": true, "draw": true, "just": true, "total": true,
}

// variantTail are words after it: "5 variants of each image", "per photo".
var variantTail = map[string]bool{
	"of": true, "each": true, "per": true, "every": true, "image": true, "photo": true, "picture": true,
	"the": true, "input": true, "source": true, "it": true, "this": true, "for": true,
	"images": true, "inputs": true, "original": true,
}

// negators say not to do what follows ("no flips", "without blur", "don't rotate").
var negators = map[string]bool{
	"no": true, "not": true, "without": true, "don't": true, "dont": true, "never": true,
	"avoid": true, "skip": true, "exclude": true, "excluding": true, "nor": true, "w/o": true,
}

// negate removes the matches a negator names and consumes their words: the prompt
// asked for them not to happen, so they are no transforms and no unread words. Each is
// reported as a warning naming the entries left out. "no flips or rotations" leaves
// out both.
func (p *Parser) negate(r *Result, toks []token, ms []match) []match {
	var kept []match
	negEnd := p.negateFamily(r, toks, ms)
	negated := false
	prevEnd := -1
	for _, m := range ms {
		neg := -1
		// A negator before the phrase in the same clause, with at most two words
		// between ("no vertical flips", "do not add any blur").
		for j := m.start - 1; j >= 0 && j >= m.start-3; j-- {
			t := toks[j]
			if t.kind != tWord {
				break
			}
			// "drop the shift-scale-rotate for now": a step of the pasted code taken
			// out ("drop 5% of the pixels" is a pixel dropout, no "the" after it).
			if negators[t.text] || t.text == "do" && j+1 < m.start && toks[j+1].text == "not" || t.text == "drop" && j+1 < m.start && toks[j+1].text == "the" {
				neg = j
				break
			}
			if !filler[t.text] && t.text != "any" && !negVerbs[t.text] && !strongWords[t.text] {
				break
			}
		}
		// "avoid anything that distorts faces like elastic or grid distortion": a
		// verb of avoiding runs to the end of its clause.
		for j := m.start - 1; neg < 0 && j >= 0; j-- {
			t := toks[j]
			if t.kind == tSep || separators[t.text] {
				break
			}
			if t.text == "avoid" || t.text == "exclude" || t.text == "excluding" || t.text == "without" {
				neg = j
			}
		}
		// "Vertical flip would be nonsense here", "mirrored text is useless",
		// "tilting not needed": a judgement after the phrase, in its clause, that
		// the transform is unwanted excludes it as a negator before it would.
		end := m.end
		if neg < 0 {
			if j := judgedUnwanted(toks, m.end); j > 0 {
				neg, end = m.start, j
			}
		}
		// "leave brightness alone", "keep the hue as is": the transform is to stay
		// undone.
		if neg < 0 {
			if j := leftAlone(toks, m.start, m.end); j > 0 {
				neg, end = m.start-1, j
				if neg > 0 && toks[neg-1].text == "leave" || neg > 0 && toks[neg-1].text == "keep" {
					neg--
				}
			}
		}
		// "no flips or rotations", "not shift hue or do any colour jitter": the
		// negation runs over "or" (and a "do any" after it).
		if o := orBefore(toks, m.start); neg < 0 && o >= 1 &&
			(negated && prevEnd == o || negEnd[o-1]) {
			neg = o
		}
		if neg < 0 && m.start > 0 && removalVerbs[toks[m.start-1].text] || neg < 0 && m.start > 1 && removalVerbs[toks[m.start-2].text] && filler[toks[m.start-1].text] {
			// "remove salt and pepper noise", "removing the blur": what the images
			// have and should lose is no effect to add; its words stay unread and
			// listed with why.
			r.removals = markWords(r.removals, toks[m.start:m.end])
			negated = false
			continue
		}
		if neg < 0 && p.namesPieces(toks, m) {
			// "steel surface defect crops", "face recognition crops 112x112": the
			// pieces the dataset is made of, not a crop to run.
			r.described = markWords(r.described, toks[m.start:m.end])
			negated = false
			continue
		}
		if neg < 0 && p.modifiesData(toks, m, ms) {
			// "grayscale chest x-rays for classification", "grayscale 1-channel":
			// a look that takes no value said of the images it opens a noun
			// phrase about is what they are, not a transform to run.
			r.described = markWords(r.described, toks[m.start:m.end])
			negated = false
			continue
		}
		if neg < 0 && describesData(toks, m.start, m.end, ms) {
			r.described = markWords(r.described, toks[m.start:m.end])
			if m.end < len(toks) && afterHedges[toks[m.end].text] {
				r.described[toks[m.end].pos] = true
			}
			// "scanners are mono anyway", "(scanned, mostly grayscale)": what the
			// images are, not a transform to run; its words stay unread and listed,
			// and a frequency word in it ("mostly") is no transform's p.
			for j := m.start - 1; j >= 0 && j >= m.start-3 && toks[j].kind == tWord && toks[j].text != "for"; j-- {
				if frequency[toks[j].text] > 0 {
					toks[j] = consumed(toks[j])
				}
			}
			negated = false
			continue
		}
		if neg < 0 {
			negated = false
			kept = append(kept, m)
			continue
		}
		if end < m.end {
			end = m.end
		}
		if b := m.end; neg < m.start && b+1 < len(toks) && beyondWords[toks[b].text] && (toks[b+1].kind == tNum || toks[b].text == "more" && b+2 < len(toks) && toks[b+1].text == "than" && toks[b+2].kind == tNum) {
			// "no rotations beyond 3 deg": a bound, the transform up to it; not
			// leaving it out.
			r.negated = append(r.negated, joinTokens(toks[neg:m.start])+" "+joinTokens(toks[b:b+2]))
			for j := neg; j < m.start; j++ {
				toks[j] = consumed(toks[j])
			}
			if toks[b].text == "more" {
				toks[b+1] = consumed(toks[b+1])
			}
			toks[b].text = "max"
			negated = false
			kept = append(kept, m)
			continue
		}
		if m.end-m.start == 1 && (positive[m.phrase] || negative[m.phrase]) && namedElsewhere(ms, m) {
			// "brightness down to -40% (only darker, never brighter)": a direction
			// word negated beside another mention of its entry says which way that
			// one goes, not that it is not wanted.
			words := joinTokens(toks[neg:end])
			r.negated = append(r.negated, words)
			for j := neg; j < end; j++ {
				toks[j] = consumed(toks[j])
			}
			r.issue("warning", fmt.Sprintf("%q: read as which way %s goes, not as leaving it out", words, m.claims[0]), "", m.claims[0], "")
			negated = false
			continue
		}
		words := joinTokens(toks[neg:end])
		r.negated = append(r.negated, words)
		for j := neg; j < end; j++ {
			toks[j] = consumed(toks[j])
		}
		r.issue("warning", fmt.Sprintf("%q: the prompt asks for no %s; none is applied", words, strings.Join(m.claims, " or ")), "", m.claims[0], "")
		r.Excluded = append(r.Excluded, m.claims...)
		negated, prevEnd = true, m.end
	}
	return kept
}

// beyondWords after a negated phrase and before a number bound it ("no rotations
// beyond 3 deg", "no shift over 10%", "no more than 5 degrees of rotation").
var beyondWords = map[string]bool{"beyond": true, "over": true, "above": true, "exceeding": true, "past": true, "more": true}

// namedElsewhere says whether another match claims the same entry as m.
func namedElsewhere(ms []match, m match) bool {
	for _, o := range ms {
		if o.start != m.start && sameClaims(o.claims, m.claims) {
			return true
		}
	}
	return false
}

// unwantedWords judge a transform named before them in their clause as not wanted.
var unwantedWords = map[string]bool{
	"nonsense": true, "useless": true, "pointless": true, "unnecessary": true, "unneeded": true,
	"harmful": true, "unwanted": true, "counterproductive": true,
}

// judgedUnwanted returns the end of a judgement that the phrase ending at from is not
// wanted ("would be nonsense", "is useless", "not needed", "makes no sense"), read to
// the end of the phrase's clause; 0 when there is none. Another transform before the
// judgement ends the search: the judgement is that one's.
func judgedUnwanted(toks []token, from int) int {
	for j := from; j < len(toks) && j < from+6; j++ {
		t := toks[j]
		if t.kind == tSep || separators[t.text] {
			return 0
		}
		if t.kind != tWord {
			continue
		}
		if unwantedWords[t.text] {
			return j + 1
		}
		if j+1 < len(toks) && (t.text == "not" && (toks[j+1].text == "needed" || toks[j+1].text == "necessary" || toks[j+1].text == "wanted" || toks[j+1].text == "useful" ||
			toks[j+1].text == "ok" || toks[j+1].text == "okay" || toks[j+1].text == "allowed" || toks[j+1].text == "fine" || toks[j+1].text == "acceptable") ||
			t.text == "no" && toks[j+1].text == "sense") {
			return j + 2
		}
		if t.text == "never" && (j == from || j == from+1 && (toks[from].text == "is" || toks[from].text == "are")) {
			// "invert never", "hflip is never ok": the phrase is not to run.
			return j + 1
		}
	}
	return 0
}

// markWords adds the places of toks to set (made when nil): words of the prompt read
// as what the images are, or have and should lose, rather than as a transform.
func markWords(set map[int]bool, toks []token) map[int]bool {
	if set == nil {
		set = map[int]bool{}
	}
	for _, t := range toks {
		set[t.pos] = true
	}
	return set
}

// orBefore returns the index of an "or"/"nor" right before the phrase at start,
// with at most "do" and "any" between ("or do any colour jitter"), or -1.
func orBefore(toks []token, start int) int {
	for j := start - 1; j >= 0 && j >= start-3; j-- {
		switch t := toks[j]; {
		case t.text == "/" && j == start-1:
			// "no flips/transpose", "no hue / sat / rgb shifts": a list's slash.
			return j
		case t.kind != tWord:
			return -1
		case t.text == "or" || t.text == "nor":
			return j
		case t.text != "do" && t.text != "any":
			return -1
		}
	}
	return -1
}

// leftAlone says whether the phrase from start to end is one the prompt says to leave
// as it is ("leave brightness alone", "keep the hue as is", "leave value untouched"):
// it returns the index after the words that say so, or 0.
func leftAlone(toks []token, start, end int) int {
	j := start - 1
	if j >= 0 && toks[j].text == "the" {
		j--
	}
	if j < 0 || toks[j].kind != tWord || toks[j].text != "leave" && toks[j].text != "keep" {
		return 0
	}
	for k := end; k < len(toks) && k < end+3; k++ {
		switch t := toks[k]; {
		case t.kind != tWord:
			return 0
		case t.text == "alone" || t.text == "untouched" || t.text == "unchanged":
			return k + 1
		case t.text == "as" && k+1 < len(toks) && toks[k+1].text == "is":
			return k + 2
		}
	}
	return 0
}

// negVerbs between a negator and a phrase still say not to do it ("don't touch hue",
// "never alter the colours").
// strongWords say how much of a transform a negator rules out ("no heavy blur"): the
// negation reaches the transform past them.
var strongWords = map[string]bool{"heavy": true, "strong": true, "big": true, "large": true, "extreme": true, "aggressive": true, "crazy": true, "wild": true}

var negVerbs = map[string]bool{"touch": true, "alter": true, "modify": true, "mess": true, "tamper": true, "play": true}

// dataNouns after a one-word phrase make it part of a name of what the images are
// ("night shift footage"), not a transform.
var dataNouns = map[string]bool{
	"footage": true, "videos": true, "video": true, "clips": true, "scans": true, "tiles": true, "shots": true,
	"frames": true, "images": true, "photos": true, "pictures": true, "cameras": true, "camera": true, "cams": true, "data": true, "dataset": true,
}

// requestWords ask for what follows them ("make them blurry", "should be blurry"):
// no description of the images.
var requestWords = map[string]bool{
	"make": true, "add": true, "apply": true, "use": true, "give": true, "want": true, "need": true,
	"please": true, "do": true, "should": true, "must": true, "could": true, "would": true, "can": true,
	"will": true, "to": true, "let": true, "may": true, "might": true,
}

// dataHedges before a phrase closing its clause say how the images are ("basically
// monochrome"), not what to do to them.
var dataHedges = map[string]bool{
	"basically": true, "essentially": true, "mainly": true, "largely": true, "predominantly": true,
	"mostly": true, "entirely": true, "anyway": true, "already": true, "inherently": true, "naturally": true,
}

// afterHedges after a phrase that ends its clause say the images already are so
// ("grayscale already", "blurry anyway").
var afterHedges = map[string]bool{"already": true, "anyway": true}

// removalVerbs before a phrase ask to take it out of the images ("remove salt and
// pepper noise", "get rid of blur").
var removalVerbs = map[string]bool{"remove": true, "removing": true, "removes": true, "eliminate": true, "denoise": true, "rid": true, "suppress": true}

// pieceNouns name the pieces a dataset is cut into ("defect crops", "recognition
// crops", "tissue patches").
var pieceNouns = map[string]bool{"crops": true, "patches": true, "chips": true, "cutouts": true}

// namesPieces says whether a one-word phrase of pieceNouns ends a noun phrase that
// opens its clause and whose other words no phrase has and no request or negator
// is ("steel surface defect crops, ...", "face recognition crops 112x112: ..."): it
// names what the images are. "random crops", "center crops" keep a phrase's word.
func (p *Parser) namesPieces(toks []token, m match) bool {
	if m.end != m.start+1 || !pieceNouns[toks[m.start].text] || m.start == 0 || toks[m.start-1].kind != tWord {
		return false
	}
	for j := m.start - 1; j >= 0 && toks[j].kind != tSep; j-- {
		t := toks[j]
		if t.kind != tWord || t.code || t.depth > 0 || p.words[t.text] || knownWord(t.text) || requestWords[t.text] || negators[t.text] {
			return false
		}
	}
	return true
}

// variationWords say that what the phrase before them names varies ("hue/sat
// jitter").
var variationWords = map[string]bool{"jitter": true, "jitters": true, "jittering": true, "shift": true, "shifts": true, "variation": true, "variations": true}

// geometric says whether any of the entries moves pixels.
func (p *Parser) geometric(claims []string) bool {
	for _, c := range claims {
		if e, _ := p.voc.Entry(c); e != nil && contains(e.Tags, "geometry") {
			return true
		}
	}
	return false
}

// operationNouns after a look's word name the look as an operation ("grayscale
// conversion", "sepia filter"), not the images.
var operationNouns = map[string]bool{
	"conversion": true, "convert": true, "transform": true, "transformation": true, "augmentation": true,
	"aug": true, "augs": true, "filter": true, "effect": true, "mode": true, "version": true, "versions": true,
	"look": true, "variant": true, "variants": true, "step": true, "op": true, "copy": true, "copies": true,
}

// modifiesData says whether m, a phrase of looks that take no value and move no
// pixel (to_gray), opens its clause as the adjective of a noun phrase no phrase reads
// ("grayscale chest x-rays for classification — rotate ...", "steel scratches,
// grayscale 1-channel. flips"): it says what the images are. A request word, a value
// or a p after it, or a noun of the operation ("grayscale conversion") keeps it a
// transform.
func (p *Parser) modifiesData(toks []token, m match, ms []match) bool {
	if m.start > 0 && toks[m.start-1].kind != tSep || m.end >= len(toks) || toks[m.start].code {
		return false
	}
	for _, c := range m.claims {
		e, _ := p.voc.Entry(c)
		if e == nil || len(e.Parameters) != 0 || contains(e.Tags, "geometry") || !augmentation(e) {
			return false
		}
	}
	starts := map[int]bool{}
	for _, o := range ms {
		starts[o.start] = true
	}
	j, count := m.end, false
	if toks[j].kind == tNum && !toks[j].signed && j+1 < len(toks) {
		count = true
		// "grayscale 1-channel", "grayscale 16-bit": a count of what the images have.
		j++
		for j < len(toks) && toks[j].text == "-" {
			j++
		}
		if j >= len(toks) || toks[j].text == "%" {
			return false
		}
	}
	t := toks[j]
	if t.kind != tWord || t.code || starts[j] || !count && knownWord(t.text) || requestWords[t.text] || operationNouns[t.text] || negators[t.text] {
		return false
	}
	if count {
		j++
	}
	// The rest of the clause holds no value or p: "grayscale images 10% of the time"
	// asks for it.
	for k := j; k < len(toks) && toks[k].kind != tSep && !starts[k]; k++ {
		if toks[k].kind == tNum || toks[k].kind == tSize || frequency[toks[k].text] > 0 || frequencyWords[toks[k].text] && toks[k].text != "images" && toks[k].text != "cases" {
			return false
		}
	}
	return true
}

// describesData says whether the phrase starting at start is the predicate of a copula
// ("scanners are mono", "the frames are often blurry") or opens a parenthesis with a
// frequency word ("(scanned, mostly grayscale, ...)"): it says what the images are.
func describesData(toks []token, start, end int, ms []match) bool {
	// "Dental xrays (grayscale).": a phrase that is all a parenthesis holds, right
	// after a word no phrase took, says what that word's images are.
	if t := toks[start]; t.depth > 0 && !t.code && start > 0 && toks[start-1].depth < t.depth && toks[start-1].kind == tWord && (end == len(toks) || toks[end].depth < t.depth) {
		named := false
		for _, m := range ms {
			named = named || m.end == start
		}
		if !named {
			return true
		}
	}
	// "chest x-rays (grayscale saved as 3ch)": a phrase opening a parenthesis right
	// after a word no phrase took, the rest of which says how the images were made
	// (a participle: saved, stored, converted) and names nothing else, says what
	// the images are too.
	if t := toks[start]; t.depth > 0 && !t.code && start > 0 && toks[start-1].depth < t.depth && toks[start-1].kind == tWord && !knownWord(toks[start-1].text) {
		close := end
		for close < len(toks) && toks[close].depth >= t.depth {
			close++
		}
		named, made := false, false
		for _, m := range ms {
			named = named || m.end == start || m.start >= end && m.start < close
		}
		for j := end; j < close; j++ {
			w := toks[j]
			made = made || w.kind == tWord && len(w.text) > 4 && strings.HasSuffix(w.text, "ed")
		}
		if !named && made {
			return true
		}
	}
	// "night shift footage": a one-word phrase between a word no phrase takes and a
	// noun of images is a compound noun naming the images.
	if end == start+1 && start > 0 && end < len(toks) && dataNouns[toks[end].text] && toks[start-1].kind == tWord && !toks[start-1].code && !knownWord(toks[start-1].text) && !negators[toks[start-1].text] {
		named := false
		for _, m := range ms {
			named = named || m.end == start
		}
		if !named {
			return true
		}
	}
	// "animals are often partly occluded by vegetation, and blurry when moving": an
	// adjective ("blurry", "rotated") later in a sentence whose verb is a copula, with
	// no phrase between, says how the images are.
	if w := toks[start].text; end == start+1 && (strings.HasSuffix(w, "y") || strings.HasSuffix(w, "ed")) {
		for j := start - 1; j >= 0; j-- {
			t := toks[j]
			if t.kind == tSep && t.text != "," || t.code {
				break
			}
			between := false
			for _, m := range ms {
				between = between || m.start > j && m.end <= start
			}
			if between || t.kind == tWord && requestWords[t.text] {
				break
			}
			if t.kind == tWord && copulas[t.text] {
				// "it should be slightly blurry" asks for it.
				return j == 0 || !requestWords[toks[j-1].text]
			}
		}
	}
	// "gaussian blur now and then for out-of-focus scans": a phrase between "for" and
	// a noun of images says which images the transform before is for.
	if start > 0 && toks[start-1].text == "for" && end < len(toks) && dataNouns[toks[end].text] {
		return true
	}
	// "grayscale already", "mono anyway": a hedge right after a phrase that ends its
	// clause says the images are so.
	if end < len(toks) && afterHedges[toks[end].text] && (end+1 == len(toks) || toks[end+1].kind == tSep) {
		return true
	}
	// "IR cameras so basically monochrome": a hedge of how the images are before a
	// phrase that ends its clause.
	if start > 0 && dataHedges[toks[start-1].text] && (end == len(toks) || toks[end].kind == tSep || toks[end].text == "anyway") {
		return true
	}
	for j := start - 1; j >= 0 && j >= start-3; j-- {
		t := toks[j]
		if t.kind == tWord && copulas[t.text] {
			if j >= 2 && toks[j-1].text == "it" && (toks[j-2].text == "like" || toks[j-2].text == "if") {
				// "make it look like it is raining", "as if it were foggy": how the
				// images should look, asked for.
				return false
			}
			return j+1 == start || j+2 == start || frequency[toks[j+1].text] > 0 || toks[j+1].text == "all" || toks[j+1].text == "already"
		}
		if t.kind == tWord && frequency[t.text] > 0 && j+1 == start && t.depth > 0 && !t.code {
			return true
		}
		if t.kind != tWord || !(frequency[t.text] > 0 || t.text == "all" || t.text == "already") {
			return false
		}
	}
	return false
}

// shadeWords say which shade of a colour ("filled with mid gray (128)"): between a
// fill word and its colour they keep the colour the fill's.
var shadeWords = map[string]bool{
	"a": true, "mid": true, "middle": true, "medium": true, "light": true, "dark": true, "pure": true,
	"solid": true, "neutral": true, "plain": true, "constant": true,
}

// fillWords before a look word make it the colour a transform fills with ("cutout
// filled w/ gray (128)"), not a transform.
var fillWords = map[string]bool{"filled": true, "fill": true, "filling": true, "fills": true, "padded": true}

// explained drops a phrase that only explains another one, so that two words for one
// operation are not two transforms; the dropped words stay unread and listed:
//   - a colour after a fill word is the fill of the transform before it ("filled w/
//     gray");
//   - a transform named in a parenthesis right after another one is what the one
//     before means ("a blue-green color cast (RGB shift with r -30..0, ...)"): the
//     parenthesis, the more exact, is kept;
//   - "like" or "such as" between two phrases of one kind in one clause ("sensor
//     noise like a cheap phone at high ISO") makes the second an example of the
//     first: the example, the more exact, is kept.
func (p *Parser) explained(r *Result, toks []token, ms []match) []match {
	drop := make([]bool, len(ms))
	for i, m := range ms {
		for j := m.start - 1; j >= 0 && j >= m.start-3 && toks[j].kind == tWord; j-- {
			if fillWords[toks[j].text] {
				drop[i] = true
				break
			}
			if toks[j].text != "with" && toks[j].text != "w/" && toks[j].text != "w" && toks[j].text != "/" && toks[j].text != "by" && toks[j].text != "in" && !shadeWords[toks[j].text] {
				break
			}
		}
		if i == 0 {
			continue
		}
		if prev := ms[i-1]; prev.end+1 == m.start && toks[prev.end].text == "ish" {
			// "salt-and-pepper-ish pixel dropout": the phrase before "-ish" says
			// what the one after looks like; only the one after is a transform.
			drop[i-1] = true
			words := joinTokens(toks[prev.start : prev.end+1])
			for j := prev.start; j <= prev.end; j++ {
				toks[j] = consumed(toks[j])
			}
			r.looks = append(r.looks, words)
			r.issue("warning", fmt.Sprintf("%q: read as what %s looks like, not as a transform of its own", words, strings.Join(m.claims, " or ")), "", m.claims[0], "")
		}
		if p.colourOfFill(toks, ms[i-1], m) {
			// "pad to square with dark gray": the colour the pad fills with.
			drop[i] = true
			continue
		}
		if m.start >= 2 && toks[m.start-1].text == "the" && (toks[m.start-2].text == "for" || toks[m.start-2].text == "on" || toks[m.start-2].text == "to") && m.end == m.start+1 {
			// "p 0.8 for the noise": "the noise" is the noise named before
			// ("sensor noise like ... ISO"), whose p this is.
			for k := i - 1; k >= 0; k-- {
				if !drop[k] && len(ms[k].claims) == 1 && strings.Contains("_"+ms[k].claims[0]+"_", "_"+toks[m.start].text+"_") {
					ms[i].claims = ms[k].claims
					break
				}
			}
		}
		prev := ms[i-1]
		between := prev.end <= m.start
		for j := prev.end; j < m.start && between; {
			// "hue/sat jitter": what the phrase before names, its parameters.
			w, n := toks[j].text, 0
			for _, c := range prev.claims {
				if e, _ := p.voc.Entry(c); e != nil && n == 0 {
					n = paramsAt(p.voc, e, toks, j).width
				}
			}
			between = toks[j].kind == tWord && !toks[j].code && (w == "/" || w == "&" || n > 0)
			j += max(n, 1)
		}
		if m.end == m.start+1 && between && variationWords[toks[m.start].text] && !toks[m.start].code && !p.geometric(prev.claims) {
			// "hue/sat jitter", "hue/sat shift": a word of variation right after
			// the phrase of what varies says it varies, no transform of its own
			// (color_jitter, shift_scale_rotate).
			drop[i] = true
			continue
		}
		if t := toks[m.start]; t.depth > toks[prev.end-1].depth && !t.code && m.start > prev.end && m.end < len(toks) && toks[m.end].kind == tNum {
			// "optical distortion (distort 0.05, shift 0.05)": a name and a value
			// inside the parenthesis after a transform, not at its start, is a
			// parameter of that transform, not a step of its own; its words stay
			// unread and listed when the transform has no such parameter.
			open := m.start
			for open > prev.end && toks[open-1].depth >= t.depth {
				open--
			}
			if open == prev.end && open < m.start {
				drop[i] = true
			}
		}
		if t := toks[m.start]; t.depth > toks[prev.end-1].depth && !t.code && m.start == prev.end {
			drop[i-1] = true
		}
		if toks[m.start-1].text == "keep" || toks[m.start-1].text == "keeping" {
			// "I'd keep hue at or below 0.05": a bound on a parameter of a
			// transform named before, not another transform.
			for _, q := range ms[:i] {
				if drop[i] || !p.hasParameter(q.claims, m.phrase) {
					continue
				}
				drop[i] = true
				end := m.end
				for j := m.end; j < len(toks) && j < m.end+5 && toks[j].kind != tSep; j++ {
					if toks[j].kind == tNum {
						end = j + 1
						break
					}
				}
				words := joinTokens(toks[m.start-1 : end])
				r.bounds = append(r.bounds, words)
				for j := m.start - 1; j < end; j++ {
					toks[j] = consumed(toks[j])
				}
				r.issue("warning", fmt.Sprintf("%q: a bound on %s's %s, read as no second transform; the value %s is given is the one applied", words, q.claims[0], m.phrase, q.claims[0]), "", q.claims[0], m.phrase)
			}
		}
		if p.colonSpells(toks, prev, m) {
			// "push the color balance around a lot: r ±40, g ±20, b ±20": the
			// augmentation a colon's list names says what the editing entry
			// before the colon meant.
			drop[i-1] = true
		}
		if v := toks[m.start-1].text; (v == "via" || v == "using" || v == "through") && sameClause(toks, prev.end, m.start) {
			// "random scale 0.5-1.5 via affine": the operation done by the entry
			// named after via.
			drop[i-1] = true
		}
		if sameKind(prev, m) {
			for j := prev.end; j < m.start; j++ {
				if toks[j].kind == tSep || separators[toks[j].text] {
					break
				}
				if toks[j].text == "like" || toks[j].text == "such" && j+1 < m.start && toks[j+1].text == "as" {
					drop[i-1] = true
					break
				}
			}
		}
	}
	var out []match
	for i, m := range ms {
		if !drop[i] {
			out = append(out, m)
		}
	}
	return out
}

// colonSpells says whether m, right after a colon that closes prev's words in one
// sentence, names an augmentation of the kind (category, or a tag) of prev's editing
// entries: the list after the colon spells out what prev only named.
func (p *Parser) colonSpells(toks []token, prev, m match) bool {
	colon := false
	for j := prev.end; j < m.start; j++ {
		switch t := toks[j]; {
		case t.code || t.kind == tSep && t.text != ":":
			return false
		case t.text == ":":
			colon = true
		case colon:
			return false
		}
	}
	if !colon || len(m.claims) != 1 {
		return false
	}
	aug, ok := p.voc.Entry(m.claims[0])
	if !ok || !augmentation(aug) {
		return false
	}
	for _, c := range prev.claims {
		if e, ok := p.voc.Entry(c); !ok || augmentation(e) || e.Category != aug.Category && !contains(e.Tags, aug.Category) {
			return false
		}
	}
	return true
}

// hasParameter says whether one of the entries has a parameter named name.
func (p *Parser) hasParameter(entries []string, name string) bool {
	for _, e := range p.voc.Entries {
		for _, c := range entries {
			if e.Name == c {
				if _, ok := e.Parameters[name]; ok {
					return true
				}
			}
		}
	}
	return false
}

// sameClause says whether no clause boundary lies in toks[from:to].
func sameClause(toks []token, from, to int) bool {
	for j := from; j < to; j++ {
		if toks[j].kind == tSep || separators[toks[j].text] {
			return false
		}
	}
	return true
}

// sameKind says whether two phrases claim entries sharing a word of their names
// (gaussian_noise and iso_noise are both noise).
func sameKind(a, b match) bool {
	for _, x := range a.claims {
		for _, y := range b.claims {
			for _, w := range strings.Split(x, "_") {
				if len(w) > 2 && strings.Contains("_"+y+"_", "_"+w+"_") {
					return true
				}
			}
		}
	}
	return false
}

// negateFamily reads a negator before a word no phrase matched that is a word of
// entries' names ("no flips": flip_horizontal and flip_vertical; "without noise").
// It returns the last token of each such negation, so that "no flips or crops" runs
// on over "or".
func (p *Parser) negateFamily(r *Result, toks []token, ms []match) map[int]bool {
	ends := map[int]bool{}
	inMatch := make([]bool, len(toks))
	for _, m := range ms {
		for k := m.start; k < m.end; k++ {
			inMatch[k] = true
		}
	}
	for k, t := range toks {
		// "no flipping or cropping": the negation runs on over "or" here too.
		onOver := (t.text == "or" || t.text == "nor") && ends[k-1]
		if t.kind != tWord || !negators[t.text] && !onOver || inMatch[k] {
			continue
		}
		j := k + 1
		for j < len(toks) && toks[j].kind == tWord && (filler[toks[j].text] || toks[j].text == "any") && !inMatch[j] {
			j++
		}
		if j >= len(toks) || toks[j].kind != tWord || inMatch[j] {
			continue
		}
		w := toks[j].text
		if w == "needed" || w == "necessary" || w == "wanted" || w == "useful" {
			// "tilting not needed": a judgement of the word before, no entry's name.
			continue
		}
		var family []string
		for _, e := range p.voc.Entries {
			parts := strings.Split(e.Name, "_")
			for i, part := range parts {
				if part == w || part+"s" == w || part+"es" == w {
					family = append(family, e.Name)
					break
				}
				// "no flipping", "no scaling": the verb's -ing or -ion form, of
				// the first or last word of a name (not shift_scale_rotate's
				// scale), and not of an entry a phrase before it names ("shift
				// 10 px, no scaling or rotation" keeps the shift).
				if (i == 0 || i == len(parts)-1) && actionForm(w, part) && !claimed(ms, k, e.Name) {
					family = append(family, e.Name)
					break
				}
			}
		}
		if len(family) == 0 {
			continue
		}
		words := joinTokens(toks[k : j+1])
		r.negated = append(r.negated, words)
		for i := k; i <= j; i++ {
			toks[i] = consumed(toks[i])
		}
		r.issue("warning", fmt.Sprintf("%q: the prompt asks for no %s; none is applied", words, strings.Join(family, ", ")), "", family[0], "")
		r.Excluded = append(r.Excluded, family...)
		ends[j] = true
	}
	return ends
}

// actionForm says whether w is the -ing or -ion form of the verb v ("flipping",
// "scaling", "rotation", "cropping").
func actionForm(w, v string) bool {
	stem := strings.TrimSuffix(v, "e")
	for _, f := range []string{v + "ing", stem + "ing", v + v[len(v)-1:] + "ing", stem + "ion", stem + "ions"} {
		if w == f {
			return true
		}
	}
	return false
}

// claimed says whether a phrase of ms before place k names entry name.
func claimed(ms []match, k int, name string) bool {
	for _, m := range ms {
		if m.end <= k && contains(m.claims, name) {
			return true
		}
	}
	return false
}

// modifierOnly says whether a clause only says how much or how often ("small
// amounts", "slightly", "50% of the time"): words of intensity, frequency, units and
// filler, and no number.
func modifierOnly(seg []token) bool {
	has := false
	for _, t := range seg {
		switch {
		case t.kind == tSep:
		case t.kind != tWord:
			return false
		case intensity[t.text] > 0:
			has = true
		case filler[t.text] || frequency[t.text] > 0 || frequencyWords[t.text] || units[t.text] != "" || t.text == "amounts":
		default:
			return false
		}
	}
	return has
}

// eachPiece says whether a clause with no phrase says the size of each piece the
// transform before makes ("up to 6 holes, each at most 32x32 px", "8 holes, each 16 px"):
// "each" and a size in pixels.
func eachPiece(seg []token) bool {
	if len(seg) < 2 || seg[0].kind != tWord || seg[0].text != "each" {
		return false
	}
	for _, t := range seg {
		if t.kind == tSize || t.kind == tWord && (units[t.text] == "px") {
			return hasNumber(seg)
		}
	}
	return false
}

// joinModifiers joins a clause that only says how much to the clause before it, so its
// intensity reads as that transform's ("shift scale rotate, small amounts").
func joinModifiers(toks []token, cls []clause) []clause {
	var out []clause
	for _, c := range cls {
		if n := len(out); n > 0 && len(c.matches) == 0 && (len(out[n-1].matches) > 0 && modifierOnly(toks[c.start:c.end]) || eachPiece(toks[c.start:c.end])) {
			out[n-1].end = c.end
			continue
		}
		out = append(out, c)
	}
	return out
}

// sameEntry merges a phrase that names only the entry the phrase before it in the
// same clause named ("occlusion / cutout", "downscale to simulate low resolution"):
// two words for one transform are not two transforms.
func sameEntry(toks []token, ms []match) []match {
	var out []match
	for _, m := range ms {
		if n := len(out); n > 0 && len(m.claims) == 1 && len(out[n-1].claims) == 1 && m.claims[0] == out[n-1].claims[0] {
			sep := false
			for j := out[n-1].end; j < m.start; j++ {
				if toks[j].kind == tSep || separators[toks[j].text] {
					sep = true
				}
			}
			if !sep {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// albumentationsUnits reads a bare number (no unit, no parameter name) that is outside
// prm's range in one of prm's albumentations units, when exactly that reading puts it
// inside: "random gamma 80 to 120" is RandomGamma's gamma_limit (a percentage), "RGB
// shift up to 15" RGBShift's levels on 0..255, "blur 3 to 7" kernel sizes. The units
// come from the parameter's also names (the manifest); the reading is reported.
func (p *Parser) albumentationsUnits(r *Result, e *vocab.Entry, prm *vocab.Parameter, x expr, dir int, opt Options) (expr, bool) {
	if x.as != "" && x.as != "same" || x.a.unit != "" || x.kind == span && x.b.unit != "" {
		return x, false
	}
	fits := func(y expr) bool {
		_, p1, m1 := convert(y.a, prm, dir, opt)
		if m1 != "" || p1 != nil {
			return false
		}
		if y.kind == span {
			_, p2, m2 := convert(y.b, prm, dir, opt)
			return m2 == "" && p2 == nil
		}
		return true
	}
	if fits(x) {
		return x, false
	}
	// A bare kernel size is albumentations' blur_limit ("motion blur 7" is 3..7)
	// before it is one size; a kernel named as such ("kernel 5") was read already.
	for _, kind := range []string{"percent", "level_255", "variance_255", "kernel_limit", "kernel_px", "limit", "px"} {
		for i := range prm.Also {
			al := &prm.Also[i]
			// A range or a signed value through a limit only when the limit scales
			// it to the parameter's unit ("saturation ±15" of HSV's 0..255 S).
			if al.As != kind || kind == "limit" && (x.kind != one || x.a.signed) && (al.Scale == 0 || al.Scale == 1) || x.as == "same" && (kind == "variance_255" || kind == "kernel_limit" || kind == "kernel_px") {
				continue
			}
			y := reads(x, al, prm, true)
			y.param, y.params = x.param, x.params
			if fits(y) || kind == "px" && opt.Width <= 0 && pendingFits(y, prm, dir, opt) {
				// A size in pixels with no image yet ("glass blur sigma 0.7" in
				// validate_prompt) stays pixels until augment_image has the image.
				r.issue("warning", fmt.Sprintf("%s: %s: %q is outside [%s, %s]; read in albumentations' %s", e.Name, prm.Name, x.text, formatNumber(prm.Min), formatNumber(prm.Max), al.Name),
					"write the value in the parameter's own unit to be sure", e.Name, prm.Name)
				return y, true
			}
		}
	}
	// A level of 0..1 given on 0..255 ("std 5-15 pixel values", "fill 128"):
	// albumentations' uint8 levels.
	if prm.Unit == "level" && prm.Max <= 1 {
		y := x
		y.a.v /= 255
		y.b.v /= 255
		if fits(y) && (x.a.v > 1 || x.kind == span && x.b.v > 1) {
			r.issue("warning", fmt.Sprintf("%s: %s: %q is outside [%s, %s]; read as a level of 0..255", e.Name, prm.Name, x.text, formatNumber(prm.Min), formatNumber(prm.Max)),
				"write the value from 0 to 1 to be sure", e.Name, prm.Name)
			return y, true
		}
	}
	// A factor around 1 for a change around 0 ("contrast 0.8-1.2", "max factor
	// 1.1-1.3" of a zoom blur): albumentations' factors, the change is factor - 1
	// (in stops for a parameter in EV).
	if prm.Default == 0 && prm.Min >= -1 && (prm.Unit == "amount" || prm.Unit == "ratio" || prm.Unit == "level" || prm.Unit == "ev") {
		y := x
		ok := true
		each := func(q quantity) quantity {
			if q.v <= 0 || q.v > 3 || q.signed {
				ok = false
				return q
			}
			if prm.Unit == "ev" {
				q.v = math.Log2(q.v)
			} else {
				q.v--
			}
			q.signed = true
			return q
		}
		y.a = each(y.a)
		if y.kind == span {
			y.b = each(y.b)
		}
		if ok && prm.Min == 0 && y.kind == span && y.a.v < 0 && y.b.v > 0 {
			// "multiplicative noise 0.9-1.1": factors either side of 1 for a
			// half width around it are that half width, 0.1.
			y.kind, y.a.v, y.a.signed = one, math.Max(-y.a.v, y.b.v), false
		}
		if ok && (x.kind == span || x.a.v > 1) && fits(y) {
			r.issue("warning", fmt.Sprintf("%s: %s: %q is outside [%s, %s]; read as a factor (%s of change)", e.Name, prm.Name, x.text, formatNumber(prm.Min), formatNumber(prm.Max), "factor - 1"),
				"write the change itself to be sure", e.Name, prm.Name)
			return y, true
		}
	}
	return x, false
}

// pendingFits says whether each end of y reads as pixels waiting for the image size.
func pendingFits(y expr, prm *vocab.Parameter, dir int, opt Options) bool {
	_, p1, m1 := convert(y.a, prm, dir, opt)
	if m1 != "" || p1 == nil {
		return false
	}
	if y.kind == span {
		_, p2, m2 := convert(y.b, prm, dir, opt)
		return m2 == "" && p2 != nil
	}
	return true
}

// alikeSample are the parameters a value given with no name goes to when the entry's
// prompt.sample draws two or more parameters of one unit ("RGB shift up to 15" shifts
// red, green and blue, as RGBShift's one limit per channel does): none otherwise.
func alikeSample(e *vocab.Entry, order []string, assigned map[string]bool) []string {
	if e.Prompt == nil || len(e.Prompt.Sample) < 2 {
		return nil
	}
	var out []string
	unit := ""
	for _, n := range order {
		if _, ok := e.Prompt.Sample[n]; !ok {
			continue
		}
		if unit != "" && e.Parameters[n].Unit != unit || assigned[n] {
			return nil
		}
		unit = e.Parameters[n].Unit
		out = append(out, n)
	}
	return out
}
