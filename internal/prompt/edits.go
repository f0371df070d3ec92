package prompt

import (
	"fmt"
	"strings"
)

// Edits of pasted albumentations code: a prompt that pastes a pipeline
// (A.OneOf([A.GaussNoise(), A.ISONoise()], p=0.2)) and says in prose what to change
// ("bump the group to 0.5 and add multiplicative noise as a third option", "change
// the p of the rotate to 0.3", "drop the blur"). The words are English (words.go
// style); which transforms they name comes from the manifests' phrases.

// editVerbs ask to change a value of the pasted code.
var editVerbs = map[string]bool{
	"bump": true, "set": true, "change": true, "make": true, "raise": true, "lower": true, "increase": true,
	"decrease": true, "adjust": true, "turn": true, "put": true, "update": true, "reduce": true,
}

// groupWords name the container of pasted code ("the group", "the OneOf").
var groupWords = map[string]bool{
	"group": true, "oneof": true, "someof": true, "choice": true, "container": true, "block": true,
}

// addVerbs ask for a transform to join the pasted code.
var addVerbs = map[string]bool{"add": true, "include": true, "append": true, "insert": true, "put": true}

// memberWords say where an added transform goes: into the container, as one more of
// its options ("as a third option", "to the group", "inside the OneOf").
var memberWords = map[string]bool{
	"as": true, "a": true, "an": true, "the": true, "another": true, "new": true, "extra": true, "one": true,
	"second": true, "third": true, "fourth": true, "fifth": true, "last": true, "more": true,
	"option": true, "choice": true, "member": true, "alternative": true, "to": true, "into": true,
	"inside": true, "in": true, "of": true, "group": true, "oneof": true, "someof": true, "container": true, "list": true,
}

// removeVerbs take a step out of the pasted code ("drop the blur").
var removeVerbs = map[string]bool{"drop": true, "remove": true, "delete": true}

// codeEdits is what the prose says to change in the pasted code.
type codeEdits struct {
	// code are the places of tokens inside calls.
	code map[int]bool
	// groupP is the container's new p when groupSet.
	groupP   float64
	groupSet bool
	groupAt  string
	// stepP are steps named by a phrase (its words) given a new p.
	stepP []stepEdit
	// join are the places of phrases whose transform joins the container.
	join []stepEdit
	// remove are phrases whose kind of step is taken out of the code.
	remove []stepEdit
	// modify are the places of phrases whose values change the code's step that
	// takes them ("same thing but only 10 degrees of rotation").
	modify []stepEdit
}

// modifyWords say a clause after pasted code changes it rather than adding a step
// ("same thing but only 10 degrees", "rotation 10 instead").
var modifyWords = map[string]bool{"same": true, "but": true, "instead": true}

type stepEdit struct {
	claims []string
	words  []string
	p      float64
	pos    int
	text   string
}

// readEdits reads, when the prompt pastes code, the prose clauses that edit it. A
// clause that sets the container's p ("bump the group to 0.5", "set the OneOf p to
// 0.6") or a step's ("change the p of the rotate to 0.3") is consumed; a clause that
// adds a transform "as a third option" or "to the group" keeps its transform and
// consumes the words that say where it goes; "drop the X" is left to negate (the
// entry it names) and recorded so the code's steps of X's kind go too; a clause that
// says "same ... but" or "instead" with a phrase and a value changes the code's one
// step that has the parameters it gives ("same thing but only 10 degrees of
// rotation").
func (p *Parser) readEdits(r *Result, toks []token) *codeEdits {
	ed := &codeEdits{code: map[int]bool{}}
	for _, t := range toks {
		if t.code || t.call {
			ed.code[t.pos] = true
		}
	}
	if len(ed.code) == 0 {
		return ed
	}
	ms := p.matches(toks)
	consume := func(a, b int) {
		for k := a; k < b; k++ {
			if toks[k].kind != tSep {
				r.said = append(r.said, toks[k].text)
				toks[k] = consumed(toks[k])
			}
		}
	}
	start := 0
	for k := 0; k <= len(toks); k++ {
		if k < len(toks) && !(toks[k].kind == tSep || toks[k].code || toks[k].call || toks[k].text == "and" || toks[k].text == "then") {
			continue
		}
		a, b := start, k
		start = k + 1
		if b-a < 2 {
			continue
		}
		var inCl []match
		for _, m := range ms {
			if m.start >= a && m.end <= b {
				inCl = append(inCl, m)
			}
		}
		var nums []int
		verb, pWord, group := false, false, false
		for j := a; j < b; j++ {
			switch w := toks[j].text; {
			case toks[j].kind == tNum:
				nums = append(nums, j)
			case editVerbs[w]:
				verb = true
			case w == "p" || w == "prob" || w == "probability" || w == "chance":
				pWord = true
			case groupWords[w]:
				group = true
			}
		}
		pv := func() (float64, bool) {
			if len(nums) != 1 {
				return 0, false
			}
			t := toks[nums[0]]
			v := t.num
			if nums[0]+1 < b && toks[nums[0]+1].text == "%" {
				v /= 100
			}
			return v, !t.signed && v >= 0 && v <= 1
		}
		first := toks[a].text
		switch {
		case group && len(inCl) == 0 && (verb || pWord):
			// "bump the group to 0.5", "set the OneOf p to 0.6".
			if v, ok := pv(); ok {
				ed.groupP, ed.groupSet, ed.groupAt = v, true, joinTokens(toks[a:b])
				consume(a, b)
			}
		case len(inCl) == 1 && verb && pWord && !group:
			// "change the p of the rotate to 0.3".
			if v, ok := pv(); ok {
				m := inCl[0]
				ed.stepP = append(ed.stepP, stepEdit{claims: m.claims, words: texts(toks[m.start:m.end]), p: v, text: joinTokens(toks[a:b])})
				consume(a, b)
			}
		case len(inCl) == 1 && addVerbs[first] && len(nums) == 0:
			// "add multiplicative noise as a third option", "add X to the group".
			m := inCl[0]
			e := b
			for e > m.end && memberWords[toks[e-1].text] {
				e--
			}
			ref := false
			for j := e; j < b; j++ {
				w := toks[j].text
				ref = ref || groupWords[w] || w == "option" || w == "choice" || w == "member" || w == "alternative"
			}
			if ref {
				ed.join = append(ed.join, stepEdit{claims: m.claims, pos: toks[m.start].pos, text: joinTokens(toks[a:b])})
				consume(e, b)
			}
		case len(inCl) == 1 && len(nums) > 0 && !addVerbs[first] && anyWord(toks[a:b], modifyWords):
			// "same thing but only 10 degrees of rotation".
			m := inCl[0]
			ed.modify = append(ed.modify, stepEdit{claims: m.claims, pos: toks[m.start].pos, text: joinTokens(toks[a:b])})
			for j := a; j < b; j++ {
				if w := toks[j].text; modifyWords[w] || w == "thing" {
					r.said = append(r.said, w)
					toks[j] = consumed(toks[j])
				}
			}
		case len(inCl) == 1 && removeVerbs[first]:
			m := inCl[0]
			ed.remove = append(ed.remove, stepEdit{claims: m.claims, words: texts(toks[m.start:m.end]), text: joinTokens(toks[a:b])})
		}
	}
	return ed
}

// applyEdits makes the edits once the code's steps and groups are read.
func (p *Parser) applyEdits(r *Result, ed *codeEdits) {
	if ed == nil || len(ed.code) == 0 {
		return
	}
	fromCode := func(t Transform) bool { return ed.code[t.at] }
	// kindOf says whether t is the step a phrase names: its entry, or, when no
	// step of the code is, one whose name has a word of the phrase ("the blur" of
	// GaussianBlur).
	named := func(s stepEdit) []int {
		var exact, kind []int
		for i, t := range r.Transforms {
			if !fromCode(t) {
				continue
			}
			if contains(s.claims, t.Entry) {
				exact = append(exact, i)
				continue
			}
			for _, w := range s.words {
				if len(w) > 2 && contains(strings.Split(t.Entry, "_"), w) {
					kind = append(kind, i)
					break
				}
			}
		}
		if len(exact) > 0 {
			return exact
		}
		return kind
	}
	var group *Group
	for _, t := range r.Transforms {
		if t.Group != nil && fromCode(t) {
			g := t.Group
			for g.Parent != nil {
				g = g.Parent
			}
			if group != nil && group != g {
				group = nil
				break
			}
			group = g
		}
	}
	if ed.groupSet {
		if group == nil {
			r.unread(ed.groupAt, fmt.Sprintf("%q: the pasted code has no one container whose p it sets; not applied", ed.groupAt), "write the p inside the code", "")
		} else {
			group.P = ed.groupP
		}
	}
	for _, s := range ed.stepP {
		is := named(s)
		if len(is) == 0 {
			r.unread(s.text, fmt.Sprintf("%q: no step of the pasted code is that; not applied", s.text), "", "")
			continue
		}
		for _, i := range is {
			r.Transforms[i].P, r.Transforms[i].pSet, r.Transforms[i].pCode = s.p, true, false
		}
	}
	for _, s := range ed.join {
		for i := range r.Transforms {
			t := &r.Transforms[i]
			if t.at != s.pos || t.Group != nil || fromCode(*t) {
				continue
			}
			if group == nil {
				r.unread(s.text, fmt.Sprintf("%q: the pasted code has no one container to add it to; added on its own", s.text), "", t.Entry)
				break
			}
			// One more option of the container, with albumentations' default p as
			// a call with none has (a weight inside OneOf).
			t.Group = group
			t.P, t.pSet, t.pCode = codeP, true, true
			if e, ok := p.voc.Entry(t.Entry); ok && e.Prompt != nil && e.Prompt.CodeP != nil {
				t.P = *e.Prompt.CodeP
			}
			r.issue("warning", fmt.Sprintf("%q: %s joins the pasted %s", s.text, t.Entry, group.Kind), "", t.Entry, "")
		}
	}
	for _, s := range ed.modify {
		// The code's one step that has every parameter the words gave takes
		// their values; the words add no step of their own.
		at := -1
		for i, t := range r.Transforms {
			if t.at == s.pos && !fromCode(t) && len(t.given) > 0 {
				at = i
			}
		}
		if at < 0 {
			continue
		}
		mod := r.Transforms[at]
		target := -1
		for i, t := range r.Transforms {
			e, ok := p.voc.Entry(t.Entry)
			if !fromCode(t) || !ok {
				continue
			}
			all := true
			for k := range mod.given {
				_, has := e.Parameters[k]
				all = all && has
			}
			if all {
				if target >= 0 {
					target = -2
					break
				}
				target = i
			}
		}
		if target < 0 {
			continue
		}
		tg := &r.Transforms[target]
		for k := range mod.given {
			delete(tg.Values, k)
			delete(tg.Ranges, k)
			if v, ok := mod.Values[k]; ok {
				setValue(tg, k, v)
			}
			if rg, ok := mod.Ranges[k]; ok {
				setRange(tg, k, rg[0], rg[1])
			}
		}
		// The words that named it are read: they said which step changes.
		r.said = append(r.said, strings.Fields(mod.Phrase)...)
		r.Transforms = append(r.Transforms[:at], r.Transforms[at+1:]...)
		r.issue("warning", fmt.Sprintf("%q: changes the pasted %s", s.text, tg.Entry), "", tg.Entry, "")
	}
	for _, s := range ed.remove {
		is := named(s)
		if len(is) == 0 {
			continue
		}
		drop := map[int]bool{}
		var names []string
		for _, i := range is {
			drop[i] = true
			names = append(names, r.Transforms[i].Entry)
		}
		var kept []Transform
		for i, t := range r.Transforms {
			if !drop[i] {
				kept = append(kept, t)
			}
		}
		r.Transforms = kept
		r.issue("warning", fmt.Sprintf("%q: %s taken out of the pasted code", s.text, strings.Join(names, ", ")), "", names[0], "")
	}
}

// anyWord says whether a token of seg is one of words.
func anyWord(seg []token, words map[string]bool) bool {
	for _, t := range seg {
		if t.kind == tWord && words[t.text] {
			return true
		}
	}
	return false
}
