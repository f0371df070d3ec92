package prompt

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// quantity is a number as written, with its unit: "", "%", "deg", "px", "k", "ev", "x".
type quantity struct {
	v      float64
	signed bool
	unit   string
	text   string
	// absolute says "to" came before the number ("scale to 80%"), so a percentage of a
	// factor is the factor itself rather than a change.
	absolute bool
}

type exprKind int

const (
	one exprKind = iota
	span
	size
)

// expr is one value the words give: a number, a range or a size, for a named
// parameter or for whichever parameter its unit fits.
type expr struct {
	param string
	// params are all the parameters the name gave (param is the first): a name two
	// parameters share ("shift_limit") gives the value to each.
	params []string
	// as is how another name read the value (see reads), "" for a parameter's own.
	as   string
	kind exprKind
	a, b quantity
	w, h float64
	text string
	// random says the words ask for a random draw ("random brightness/contrast
	// 0.15"): one value of a drawn parameter is its albumentations limit.
	random bool
	// upto says the range was written "up to A": ±A for a parameter with a sign,
	// from the default to A for one without ("up to 8 holes").
	upto bool
	// side is the one way the words point an "up to" limit ("lower contrast by up
	// to 30%": -1), 0 when they point none or both.
	side int
}

// reading is what a clause's words say besides the entry.
type reading struct {
	exprs     []expr
	p         float64
	pSet      bool
	intensity float64
	dir       int // -1 towards the low end, +1 towards the high end, 0 unsaid
	issues    []string
	// named are parameters the words name without a value of their own ("translate
	// up to 10% in x and y"): a value given with no name goes to each of them.
	named []string
	// off are 0/1 switches the words turn off ("per_channel=False").
	off []string
	// added says the direction is only the word "add", which asks for the transform
	// rather than for more of something: it does not halve albumentations' ranges
	// ("add RandomBrightnessContrast").
	added bool
	// unread are arguments of albumentations code no parameter takes.
	unread []string
	// said are words read as a value no number wrote (a colour: "with black").
	said []string
	// stray are the runs of words nothing read: no parameter, value, probability,
	// intensity, direction or known filler took them ("median" in "median blur").
	stray []string
}

// read fills t from the words around its phrase, in e's units, and records what it
// could not use as issues on r.
func (p *Parser) read(r *Result, t *Transform, e *vocab.Entry, seg, phrase []token, opt Options) {
	if v := p.colourVariant(e, seg); v != nil {
		// "pad to 640x640 with black": the entry that fills with a colour.
		e, t.Entry = v, v.Name
	}
	var margin float64
	if e != nil {
		before := seg
		if seg, margin = padMargin(e, seg); margin > 0 {
			for _, tk := range before {
				r.said = append(r.said, tk.text)
			}
		}
	}
	rd := p.scan(e, seg, phrase)
	sizes := r.outputSizes
	if margin > 0 {
		// "pad 16 px on each side", "reflect-pad by 32": the image grows by the
		// margin on every side (albumentations' CropAndPad(px=16,
		// keep_size=False)), the size this entry pads to.
		if opt.Width > 0 && opt.Height > 0 {
			long := float64(max(opt.Width, opt.Height))
			setValue(t, "width", (float64(opt.Width)+2*margin)/long)
			setValue(t, "height", (float64(opt.Height)+2*margin)/long)
		} else {
			t.Pending = append(t.Pending, Pending{Parameter: "width", Pixels: float64(2 * margin), Of: "width"}, Pending{Parameter: "height", Pixels: 2 * margin, Of: "height"})
			r.issue("warning", fmt.Sprintf("%s: a margin of %g px on each side needs the image size", t.Entry, margin), "", t.Entry, "width")
		}
		if t.given == nil {
			t.given = map[string]bool{}
		}
		t.given["width"], t.given["height"] = true, true
	}
	for _, msg := range rd.issues {
		r.issue("error", t.Entry+": "+msg, "write p as a number from 0 to 1 or a percentage", t.Entry, "p")
	}
	if rd.pSet {
		t.P, t.pSet, t.pCode = rd.p, true, false
	}
	// "horizontal shear ±15°", "shear vertically": one axis of a parameter the
	// phrase names on both (affine's shear_x and shear_y).
	axis := ""
	if e != nil {
		axis = axisOf(e, seg, phrase, p.voc)
	}
	if axis != "" {
		var kept []string
		for _, u := range rd.stray {
			var ws []string
			for _, w := range strings.Fields(u) {
				if axisWords[w] == "" {
					ws = append(ws, w)
				} else {
					r.said = append(r.said, w)
				}
			}
			if len(ws) > 0 {
				kept = append(kept, strings.Join(ws, " "))
			}
		}
		rd.stray = kept
	}
	// "crop 10% off every border", "trim 5% from each edge", "20 px all around":
	// the value is every side's, left, right, top and bottom.
	var sides []string
	if e != nil {
		var words []string
		if sides, words = allSides(e, seg); len(sides) > 0 {
			r.said = append(r.said, words...)
			rd.stray = without(rd.stray, words)
		}
	}
	if e != nil && hasSizeExpr(rd) && e.Parameters["width"] != nil && e.Parameters["width"].Unit == "ratio" {
		// "RandomResizedCrop output 300x300", "output size 256x256": the size is
		// what the step puts out, its width and height.
		var ws []string
		for k, t := range seg {
			if t.kind == tWord && outputWords[t.text] {
				ws = append(ws, t.text)
				if k+1 < len(seg) && seg[k+1].text == "size" {
					ws = append(ws, "size")
				}
			}
		}
		r.said = append(r.said, ws...)
		rd.stray = without(rd.stray, ws)
	}
	if e != nil && hasSizeParams(e) && squareSaid(append(append([]token(nil), phrase...), seg...)) {
		// "pad to a 512 square", "pad to a square": the size's shape, read with it
		// (a square of the long edge, or of the size given: "a 640 px square" is
		// 640x640).
		r.said = append(r.said, "square", "squares")
		rd.stray = without(rd.stray, []string{"square", "squares"})
		for i, x := range rd.exprs {
			if x.kind == one && x.param == "" && !x.a.signed && (x.a.unit == "px" || x.a.unit == "" && x.a.v >= 2 && x.a.v == math.Trunc(x.a.v)) {
				rd.exprs[i] = expr{kind: size, w: x.a.v, h: x.a.v, text: x.text}
			}
		}
	}
	r.said = append(r.said, rd.said...)
	for _, u := range rd.unread {
		r.unread(u, fmt.Sprintf("%s: the argument %q is not read (no parameter of %s takes it)", t.Entry, u, t.Entry), "", t.Entry)
	}
	for _, u := range rd.stray {
		sugg := ""
		if near := p.nearest(strings.Fields(u)); len(near) > 0 {
			sugg = "did you mean " + quoteList(near) + "?"
		}
		r.unread(u, fmt.Sprintf("%s: %q is not read (no entry or parameter takes it); %s runs without it", t.Entry, u, t.Entry), sugg, t.Entry)
	}
	if e == nil {
		return
	}
	order := p.voc.ParameterOrder(e)
	if len(order) == 0 && !rd.pSet && len(rd.exprs) == 1 {
		// A transform that takes no value given one percentage or fraction ("hflip
		// 50%", "channel shuffle 0.1"): how often it runs, the only number it has.
		if x := rd.exprs[0]; x.kind == one && !x.a.signed && (x.a.unit == "%" && x.a.v <= 100 || x.a.unit == "" && x.a.v > 0 && x.a.v <= 1) {
			v := x.a.v
			if x.a.unit == "%" {
				v /= 100
			}
			t.P, t.pSet = round(v), true
			return
		}
	}
	if !rd.pSet && len(rd.exprs) == 1 && fullByDefault(e, order) {
		// "ToSepia 10%", "equalize 25%": albumentations' transform has no
		// strength, so a lone percentage is how often it runs, not darkroom's
		// blend amount.
		if x := rd.exprs[0]; x.kind == one && x.param == "" && !x.a.signed && x.a.unit == "%" && x.a.v <= 100 && rd.dir == 0 {
			t.P, t.pSet = round(x.a.v/100), true
			return
		}
	}
	if !rd.pSet && len(rd.exprs) == 1 && len(order) > 0 && !anyCompatible(e, order, "%") {
		// "random 90° rotations with 50%": no parameter of the transform is in a
		// percentage (random_rotate_90 draws a count of turns), so a lone one is
		// how often it runs, as for a transform that takes no value.
		if x := rd.exprs[0]; x.kind == one && x.param == "" && !x.a.signed && x.a.unit == "%" && x.a.v <= 100 && rd.dir == 0 {
			t.P, t.pSet = round(x.a.v/100), true
			rd.exprs = nil
		}
	}
	assigned := map[string]bool{}
	for k := range t.Values {
		assigned[k] = true
	}
	for k := range t.Ranges {
		assigned[k] = true
	}
	if toSquare(append(append([]token(nil), phrase...), seg...)) && hasSizeParams(e) && !assigned["width"] && !assigned["height"] {
		// "pad to square", "pad to a square with white": for a size in fractions of
		// the long edge (pad_if_needed's), a square of the long edge.
		if w, h := e.Parameters["width"], e.Parameters["height"]; w.Unit == "fraction" && w.Max > 1 && h.Max > 1 && !hasSizeExpr(rd) {
			setValue(t, "width", 1)
			setValue(t, "height", 1)
			assigned["width"], assigned["height"] = true, true
		}
	}
	for _, n := range rd.named {
		if switchParam(e.Parameters[n]) && !assigned[n] {
			// "per channel", "elementwise": a switch named with no value is on.
			setValue(t, n, 1)
			assigned[n] = true
		}
	}
	// Parameters the entry's phrase names ("brightness and contrast"), with those the
	// words name without a value ("in x and y"), share a value given with no name.
	var targets []string
	// edgeAs is how a phrase that is a parameter's name of a length an edge becomes
	// reads the value ("longest side 512", "the shorter side is 800").
	edgeAs := map[string]*vocab.ParameterName{}
	for k := range phrase {
		if name, _ := paramAt(p.voc, e, phrase, k); name != "" && !assigned[name] && !contains(targets, name) {
			targets = append(targets, name)
			if pn := paramsAt(p.voc, e, phrase, k); pn.as != nil && strings.HasSuffix(pn.as.As, "edge_px") {
				edgeAs[name] = pn.as
			}
		}
	}
	// One parameter is a target only when the phrase is its name ("shear 3 degrees":
	// affine's shear, x and y, not its angle), or when no value is given: then the
	// phrase says what to draw ("random hue shifts" draws the hue alone).
	if len(targets) == 0 || len(targets) == 1 && len(rd.exprs) > 0 && paramsAt(p.voc, e, phrase, 0).width == len(phrase) {
		targets = nil
		if pn := paramsAt(p.voc, e, phrase, 0); len(phrase) > 0 && pn.width == len(phrase) {
			for _, n := range pn.params {
				if !assigned[n] {
					targets = append(targets, n)
				}
			}
		}
	}
	if axis != "" {
		// Keep the axis said; the other one stays at its default (no shear).
		var kept []string
		for _, n := range targets {
			if o := strings.TrimSuffix(strings.TrimSuffix(n, "_x"), "_y"); o == n || strings.HasSuffix(n, "_"+axis) {
				kept = append(kept, n)
			}
		}
		targets = kept
	}
	if len(targets) == 0 {
		targets = alikeSample(e, order, assigned)
	}
	if len(targets) == 0 {
		targets = bothSides(e, order, assigned, rd)
	}
	if len(sides) > 0 {
		targets = nil
		for _, n := range sides {
			if !assigned[n] {
				targets = append(targets, n)
			}
		}
	}
	for _, n := range rd.off {
		if !assigned[n] {
			setValue(t, n, 0)
			assigned[n] = true
		}
	}
	for _, n := range rd.named {
		if !assigned[n] && !contains(targets, n) {
			targets = append(targets, n)
		}
	}
	// An augmentation draws: one unsigned value of a parameter albumentations gives
	// a limit (an angle, a shift, a brightness) is that limit, ±v, as albumentations'
	// Rotate(limit=45) and RandomBrightnessContrast(brightness_limit=0.2) read it,
	// unless the words ask for that value exactly ("by exactly 90 degrees").
	random := true
	for _, tk := range append(append([]token(nil), phrase...), seg...) {
		// Code reads as albumentations' own arguments (Affine(rotate=10) is 10).
		if exactWords[tk.text] || tk.code {
			random = false
			break
		}
	}
	shared := false
	for i, x := range rd.exprs {
		if i > 0 && i == len(rd.exprs)-1 && !rd.pSet && !t.pSet && x.kind == one && x.param == "" && x.as == "" && x.a.unit == "%" && !x.a.signed && x.a.v <= 100 && !freeFor(e, order, assigned, "%") {
			// "motion blur (kernel 3-11) 40%": a lone percentage closing the
			// step's own values, which no parameter still free takes, is how
			// often it runs.
			t.P, t.pSet = round(x.a.v/100), true
			continue
		}
		x.random = random
		switch {
		case len(x.params) > 1:
			for _, n := range x.params {
				y := x
				y.param = n
				p.assign(r, t, e, order, assigned, y, rd.dir, opt)
			}
		case x.param == "" && !shared && len(fitting(e, targets, x)) > 0 && x.kind != size:
			shared = true
			for _, n := range fitting(e, targets, x) {
				if y := x; !assigned[n] {
					if as := edgeAs[n]; as != nil && y.as == "" {
						y = reads(y, as, e.Parameters[n], false)
					}
					if of := sideWords[n]; of != "" && len(sides) > 0 {
						// A margin in pixels is of the side it cuts: the
						// width's for left and right, the height's for top
						// and bottom.
						y.a = sideUnit(y.a, of)
						y.b = sideUnit(y.b, of)
					}
					y.param = n
					p.assign(r, t, e, order, assigned, y, rd.dir, opt)
				}
			}
		default:
			p.assign(r, t, e, order, assigned, x, rd.dir, opt)
		}
	}
	for k := range assigned {
		if has(t.Values, k) || hasRange(t.Ranges, k) {
			if t.given == nil {
				t.given = map[string]bool{}
			}
			t.given[k] = true
		}
	}
	if len(order) == 0 {
		return
	}
	code := false
	for _, tk := range seg {
		code = code || tk.code
	}
	// A value no parameter took (an output size listed as unread) leaves the entry
	// as if named with none.
	p.fill(t, e, order, assigned, targets, rd, len(assigned) == 0 && len(rd.exprs) == r.outputSizes-sizes, code)
}

// fill gives the parameters no value reached what the words mean. An intensity word
// draws the parameters it is about (those the phrase names, else the manifest's
// prompt.sample, else the first free one) from its band of their range. An entry named
// with no value and no intensity draws prompt.sample's parameters from their ranges,
// or the first parameter from its default to the "slight" fraction of the way to the
// end the words point at. prompt.free parameters are drawn whenever nothing gave them;
// prompt.strength's parameter takes its value when the rest gave it nothing, so a
// named secondary parameter ("CLAHE with clip limit 4") does not leave the entry a
// no-op. In albumentations code (code) every parameter of prompt.sample is free: an
// argument not written keeps albumentations' default range
// (A.ColorJitter(hue=0.1) still jitters brightness, contrast and saturation).
func (p *Parser) fill(t *Transform, e *vocab.Entry, order []string, assigned map[string]bool, targets []string, rd reading, none, code bool) {
	pr := e.Prompt
	if pr == nil {
		pr = &vocab.EntryPrompt{}
	}
	free := func(n string) bool { return !assigned[n] && !has(t.Values, n) && !hasRange(t.Ranges, n) }
	var sampled []string
	for _, n := range order {
		if _, ok := pr.Sample[n]; ok && !contains(pr.Free, n) {
			sampled = append(sampled, n)
		}
	}
	switch {
	case rd.intensity > 0:
		ts := targets
		if len(ts) == 0 && len(assigned) == 0 && len(sampled) > 0 {
			ts = sampled
		}
		if len(ts) == 0 && len(assigned) == 0 {
			// With a value given ("small skew up to 2 degrees"), the word says how
			// big that value is: no other parameter is drawn for it.
			for _, n := range order {
				if !assigned[n] && (pr.Strength == nil || pr.Strength.Parameter != n || len(sampled) == 0) {
					ts = []string{n}
					break
				}
			}
		}
		for _, n := range ts {
			if !free(n) {
				continue
			}
			if rg, ok := pr.Sample[n]; ok {
				// albumentations' default range is "medium": "slight" is half of it,
				// "strong" one and a half, kept inside the parameter's range.
				prm := e.Parameters[n]
				k := rd.intensity / 0.5
				lo := max(prm.Min, prm.Default+(rg[0]-prm.Default)*k)
				hi := min(prm.Max, prm.Default+(rg[1]-prm.Default)*k)
				if kernelLimit(prm) {
					// A kernel's range starts at albumentations' smallest kernel (3):
					// the word widens or narrows it above that ("a bit of blur" is
					// kernels 3..5, "strong" 3..9), never below it.
					lo, hi = rg[0], min(prm.Max, rg[0]+(rg[1]-rg[0])*k)
				}
				drawSide(t, prm, n, [2]float64{lo, hi}, rd.sampleDir())
				continue
			}
			band(t, e.Parameters[n], n, rd.intensity, rd.dir)
		}
	case none && len(targets) > 0:
		for _, n := range targets {
			if rg, ok := pr.Sample[n]; ok {
				drawSide(t, e.Parameters[n], n, rg, rd.sampleDir())
			} else {
				slight(t, e.Parameters[n], n, rd.dir)
			}
		}
	case none && len(sampled) > 0:
		for _, n := range sampled {
			drawSide(t, e.Parameters[n], n, pr.Sample[n], rd.sampleDir())
		}
	case none:
		if pr.Strength == nil || pr.Strength.Parameter != order[0] || len(order) == 1 {
			slight(t, e.Parameters[order[0]], order[0], rd.dir)
		}
	}
	for _, n := range order {
		if rg, ok := pr.Sample[n]; ok && free(n) && (code || contains(pr.Free, n)) {
			setDrawn(t, e.Parameters[n], n, rg[0], rg[1])
		}
	}
	if s := pr.Strength; s != nil && free(s.Parameter) {
		setDrawn(t, e.Parameters[s.Parameter], s.Parameter, s.Lo, s.Hi)
	}
}

// kernelLimit says the parameter reads albumentations' blur_limit (kernel sizes).
func kernelLimit(prm *vocab.Parameter) bool {
	for _, al := range prm.Also {
		if al.As == "kernel_limit" {
			return true
		}
	}
	return false
}

func has(m map[string]float64, k string) bool { _, ok := m[k]; return ok }

func hasRange(m map[string][2]float64, k string) bool { _, ok := m[k]; return ok }

// sampleDir is the direction a prompt.sample range is cut to.
func (rd reading) sampleDir() int {
	if rd.added {
		return 0
	}
	return rd.dir
}

// drawSide draws from a prompt.sample range, the part of it on the side of the default
// the words point at ("increase brightness and contrast").
func drawSide(t *Transform, prm *vocab.Parameter, name string, rg [2]float64, dir int) {
	lo, hi := rg[0], rg[1]
	switch {
	case dir > 0 && hi > prm.Default:
		lo = max(lo, prm.Default)
	case dir < 0 && lo < prm.Default:
		hi = min(hi, prm.Default)
	}
	setDrawn(t, prm, name, lo, hi)
}

// setDrawn sets [lo, hi], or one value when they meet.
func setDrawn(t *Transform, prm *vocab.Parameter, name string, lo, hi float64) {
	if prm != nil && prm.Type == "integer" {
		lo, hi = math.Round(lo), math.Round(hi)
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		setValue(t, name, round(lo))
	} else {
		setRange(t, name, round(lo), round(hi))
	}
}

// band is the range an intensity word f draws from: for a parameter whose default lies
// inside its range and words that point nowhere, f of the way to both ends (the
// albumentations limit: "slight rotation" is ±45 degrees); otherwise from half of f to
// f of the way from the default to the end the words point at ("slight motion blur"
// streaks every variant, each its own length).
func band(t *Transform, prm *vocab.Parameter, name string, f float64, dir int) {
	d := prm.Default
	if dir == 0 && prm.Min < d && d < prm.Max {
		setDrawn(t, prm, name, d+f*(prm.Min-d), d+f*(prm.Max-d))
		return
	}
	far := farEnd(prm, dir)
	setDrawn(t, prm, name, d+f/2*(far-d), d+f*(far-d))
}

// slight samples a parameter named with no value from its default to the "slight"
// fraction of the way to the end the words point at, or to both ends when they point
// nowhere and the default lies inside the range.
func slight(t *Transform, prm *vocab.Parameter, name string, dir int) {
	lo, hi := prm.Default, prm.Default
	const f = 0.25
	if dir > 0 && prm.Default == prm.Max || dir < 0 && prm.Default == prm.Min {
		// Nothing lies that way ("add jpeg artifacts": quality is already 100).
		dir = 0
	}
	switch {
	case dir < 0 || dir == 0 && prm.Default == prm.Max:
		lo = prm.Default + f*(prm.Min-prm.Default)
	case dir > 0 || prm.Default == prm.Min:
		hi = prm.Default + f*(prm.Max-prm.Default)
	default:
		lo, hi = prm.Default+f*(prm.Min-prm.Default), prm.Default+f*(prm.Max-prm.Default)
	}
	setDrawn(t, prm, name, lo, hi)
}

// farEnd is the end of the range an intensity moves towards: the low end when the words
// say so or when the default is the high end (image_compression's quality 100), else
// the high end.
func farEnd(prm *vocab.Parameter, dir int) float64 {
	if dir < 0 && prm.Min < prm.Default || prm.Default == prm.Max {
		return prm.Min
	}
	return prm.Max
}

func setValue(t *Transform, name string, v float64) {
	if t.Values == nil {
		t.Values = map[string]float64{}
	}
	t.Values[name] = v
	delete(t.Ranges, name)
}

func setRange(t *Transform, name string, lo, hi float64) {
	if t.Ranges == nil {
		t.Ranges = map[string][2]float64{}
	}
	t.Ranges[name] = [2]float64{lo, hi}
	delete(t.Values, name)
}

// scan reads probabilities, intensities, directions and values from the words.
func (p *Parser) scan(e *vocab.Entry, seg, phrase []token) reading {
	rd := reading{}
	inPhrase := map[int]bool{}
	for _, t := range phrase {
		inPhrase[t.pos] = true
	}
	// stray collects the words no branch below took, a run of neighbours as one.
	last := -2
	stray := func(k int) {
		t := seg[k]
		// A word of how many images that no construction read ("half" with no
		// "the images") is listed: it said something the result does not carry.
		// "per pixel": a unit word after a word listed is what it is per, not a
		// value's unit; listed with it.
		per := units[t.text] != "" && last == k-1 && k > 0 && seg[k-1].text == "per"
		if t.kind != tWord || inPhrase[t.pos] || knownWord(t.text) && !portionOnly(t.text) && !per {
			return
		}
		if last == k-1 && len(rd.stray) > 0 {
			rd.stray[len(rd.stray)-1] += " " + t.text
		} else {
			rd.stray = append(rd.stray, t.text)
		}
		last = k
	}
	for _, t := range append(append([]token(nil), phrase...), seg...) {
		if t.kind != tWord {
			continue
		}
		if negative[t.text] {
			rd.dir, rd.added = -1, false
		} else if positive[t.text] && rd.dir == 0 {
			rd.dir, rd.added = 1, t.text == "add"
		}
	}
	word := func(k int) string {
		if k >= 0 && k < len(seg) && seg[k].kind == tWord {
			return seg[k].text
		}
		return ""
	}
	// qty reads a number and its unit at k; it returns the tokens taken.
	qty := func(k int) (quantity, int) {
		if k >= len(seg) || seg[k].kind != tNum {
			return quantity{}, 0
		}
		q := quantity{v: seg[k].num, signed: seg[k].signed, text: seg[k].text, absolute: k > 0 && word(k-1) == "to" && word(k-2) != "up" && !(k >= 2 && seg[k-2].kind == tNum) && !(k >= 3 && seg[k-3].kind == tNum)}
		if k == 0 && len(phrase) > 0 && phrase[len(phrase)-1].text == "to" && (len(phrase) < 2 || phrase[len(phrase)-2].text != "up") {
			// "resize to 50%", "rescale to 80%": the phrase's own "to" says the
			// factor itself, as "scale to 80%" does.
			q.absolute = true
		}
		n := 1
		if u := units[word(k+1)]; u == "px" && levelWords[word(k+2)] {
			// "5-15 pixel values", "10 grey levels": on albumentations' 0..255.
			q.text += " " + word(k+1) + " " + word(k+2)
			return q, 3
		}
		if levelWords[word(k+1)] && (word(k+2) == "levels" || word(k+2) == "values") {
			return q, 3
		}
		if u := units[word(k+1)]; u != "" {
			q.unit, n = u, 2
			q.text += " " + seg[k+1].text
			if word(k+1) == "per" && word(k+2) == "cent" {
				n = 3
			}
		} else if word(k+1) == "per" && word(k+2) == "cent" {
			q.unit, n = "%", 3
		}
		if _, fw := fractions[seg[k].text]; q.unit == "%" || fw && q.unit == "" {
			// "10-20% of the image side", "a fifth of the width": a share of
			// the image's side, the fraction it already is (not a portion of
			// the images).
			if m := sideQualifier(seg, k+n); m > 0 {
				rd.said = append(rd.said, texts(seg[k+n:k+n+m])...)
				n += m
				if q.unit == "" {
					q.v, q.unit = q.v*100, "%"
				}
			}
		}
		return q, n
	}
	// kernelBefore says a kernel size is named in the clause before k.
	kernelBefore := func(k int) bool {
		for j := 0; j < k && e != nil; j++ {
			if kernelName(p.voc, e, seg, j) {
				return true
			}
		}
		return false
	}
	// value reads a number, a range or a size at k.
	var value func(k int) (expr, int)
	value = func(k int) (expr, int) {
		if k < len(seg) && seg[k].kind == tSize {
			return expr{kind: size, w: seg[k].num, h: seg[k].num2, text: seg[k].text}, 1
		}
		switch word(k) {
		case "between", "from":
			a, n := qty(k + 1)
			if n == 0 || word(k+1+n) != "and" && word(k+1+n) != "to" {
				return expr{}, 0
			}
			b, m := qty(k + 2 + n)
			if m == 0 {
				return expr{}, 0
			}
			return spanOf(a, b, joinTokens(seg[k:k+2+n+m])), 2 + n + m
		case "±":
			a, n := qty(k + 1)
			if n == 0 {
				return expr{}, 0
			}
			lo := a
			lo.v, lo.signed = -a.v, true
			a.signed = true
			return expr{kind: span, a: lo, b: a, text: joinTokens(seg[k : k+1+n])}, 1 + n
		case "max", "maximum", "most":
			// "max 8 holes", "at most 3": as "up to".
			if word(k) == "most" && word(k-1) != "at" {
				return expr{}, 0
			}
			a, n := qty(k + 1)
			if n > 0 && !a.signed {
				lo := a
				lo.v, lo.signed = -a.v, true
				return expr{kind: span, a: lo, b: a, text: joinTokens(seg[k : k+1+n]), upto: true}, 1 + n
			}
			return expr{}, 0
		case "down":
			// "brightness down to -40%": from none of the change to that much of it.
			// Unsigned ("posterize down to 5 bits") it is the value itself.
			if word(k+1) == "to" {
				if a, n := qty(k + 2); n > 0 && a.v < 0 {
					a.v, a.signed = -math.Abs(a.v), true
					zero := a
					zero.v = 0
					return expr{kind: span, a: a, b: zero, text: joinTokens(seg[k : k+2+n])}, 2 + n
				}
			}
			return expr{}, 0
		case "up":
			// "up to 15 degrees": the albumentations limit, a symmetric range.
			if word(k+1) == "to" {
				a, n := qty(k + 2)
				if n > 0 && !a.signed {
					lo := a
					lo.v, lo.signed = -a.v, true
					return expr{kind: span, a: lo, b: a, text: joinTokens(seg[k : k+2+n]), upto: true}, 2 + n
				}
			}
			return expr{}, 0
		}
		a, n := qty(k)
		if n == 0 {
			return expr{}, 0
		}
		if w := word(k + n); w == "to" || w == "and" && k > 0 && word(k-1) == "between" {
			if b, m := qty(k + n + 1); m > 0 {
				return spanOf(a, b, joinTokens(seg[k:k+n+1+m])), n + 1 + m
			}
		}
		if word(k+n) == "or" {
			// "kernel 3 or 5": two odd kernel sizes are the range of kernels between
			// them, as albumentations' blur_limit (3, 5) draws odd sizes.
			if b, m := qty(k + n + 1); m > 0 && !a.signed && !b.signed && a.v < b.v && odd(a.v) && odd(b.v) && kernelBefore(k) {
				return spanOf(a, b, joinTokens(seg[k:k+n+1+m])), n + 1 + m
			}
		}
		return expr{kind: one, a: a, text: a.text}, n
	}
	// named reads a parameter given by name at k ("radius 0.01", "angle: 90", "clip
	// limit of 4", "limit=15", "variance 10-50") or, in code, an argument no parameter
	// takes (sat_shift_limit=30: listed as unread, its value given to nothing); it
	// returns where the loop goes on.
	// ends holds albumentations 1.x's two-argument ranges in code (quality_lower=50,
	// quality_upper=80; scale_min, scale_max): each end of the parameter's range.
	type ends struct {
		lo, hi *expr
		name   string
	}
	var pairs []*ends
	named := func(k int) (int, bool) {
		t := seg[k]
		if e != nil {
			if pn := paramsAt(p.voc, e, seg, k); pn.width > 0 {
				j := k + pn.width
				if end := word(j); rangeEnds[end] != 0 && j < len(seg) && (t.code && word(j+1) == "=" || !t.code && seg[j].joined) {
					at := j + 1
					for word(at) == "=" || word(at) == ":" || word(at) == "of" || word(at) == "is" {
						at++
					}
					x, m := value(at)
					if m == 0 || x.kind != one {
						// "quality_lower" with no value: said, and not read.
						rd.unread = append(rd.unread, joinTokens(seg[k:j+1]))
						return j, true
					}
					{
						x = reads(x, pn.as, e.Parameters[pn.params[0]], true)
						x.param, x.params = pn.params[0], pn.params
						var pe *ends
						for _, q := range pairs {
							if q.name == x.param {
								pe = q
							}
						}
						if pe == nil {
							pe = &ends{name: x.param}
							pairs = append(pairs, pe)
						}
						if rangeEnds[end] < 0 {
							pe.lo = &x
						} else {
							pe.hi = &x
						}
						return at + m - 1, true
					}
				}
				if !t.code && k > 1 && word(k-1) == "/" && len(rd.named) > 0 && paramEndsAt(p.voc, e, seg, 0, k-2) {
					// "brightness/contrast/saturation 0.2": the last of names
					// listed with slashes; the value after it is each one's.
					for _, n := range pn.params {
						if !contains(rd.named, n) {
							rd.named = append(rd.named, n)
						}
					}
					return k + pn.width - 1, true
				}
				// "green goes up to +25 only", "red only goes down (-20..0)": words
				// saying which way a channel goes stand between it and its value.
				way := func(w string, j int) bool {
					return !t.code && (w == "goes" || w == "go" || w == "only" || w == "channel" || (w == "down" || w == "up") && word(j+1) != "to")
				}
				for w := word(j); w == "=" || w == ":" || w == "of" || w == "to" || w == "by" || w == "at" || w == "is" || approx[w] || way(w, j); w = word(j) {
					if way(w, j) {
						rd.said = append(rd.said, w)
					}
					j++
				}
				if sw := e.Parameters[pn.params[0]]; switchParam(sw) {
					// "per channel", "elementwise", per_channel=True: a switch
					// named is on; only 0, 1, true or false after it is its value
					// ("per channel 0.8-1.2" gives the range to another).
					if v, ok := switchWords[word(j)]; ok {
						rd.said = append(rd.said, word(j))
						rd.exprs = append(rd.exprs, expr{kind: one, a: quantity{v: v, text: word(j)}, text: word(j), param: pn.params[0], params: pn.params})
						return j, true
					}
					if x, m := value(j); m == 0 || x.kind != one || x.a.unit != "" || x.a.v != 0 && x.a.v != 1 {
						for _, n := range pn.params {
							if !contains(rd.named, n) {
								rd.named = append(rd.named, n)
							}
						}
						return k + pn.width - 1, true
					}
				}
				if x, m := value(j); m > 0 && (t.code || x.a.unit == "" && (x.kind != span || x.b.unit == "" || compatible(x.b.unit, e.Parameters[pn.params[0]])) || pn.as != nil && pn.as.As != "same" || compatible(x.a.unit, e.Parameters[pn.params[0]])) {
					// A value in a unit the parameter cannot take ("2-8 holes up
					// to 40px") is not its: it goes to one that can.
					if each := eachReading(e, pn); each != nil {
						// A name the parameters share with a reading of each
						// ("strength" of a colour jitter: 0.8s of brightness,
						// contrast and saturation, 0.2s of a turn of hue).
						for i, n := range pn.params {
							y := reads(x, each[i], e.Parameters[n], t.code)
							y.param, y.params = n, nil
							rd.exprs = append(rd.exprs, y)
						}
						return j + m - 1, true
					}
					x = reads(x, pn.as, e.Parameters[pn.params[0]], t.code)
					x.param, x.params = pn.params[0], pn.params
					rd.exprs = append(rd.exprs, x)
					return j + m - 1, true
				}
				if sw, ok := switchWords[word(j)]; ok && switchParam(e.Parameters[pn.params[0]]) {
					// "per_channel=True", "elementwise: off": a 0/1 switch set by a word.
					rd.said = append(rd.said, word(j))
					if sw == 1 {
						rd.named = append(rd.named, pn.params[0])
					} else {
						rd.off = append(rd.off, pn.params[0])
					}
					return j, true
				}
				for _, n := range pn.params {
					if !contains(rd.named, n) {
						rd.named = append(rd.named, n)
					}
				}
				// "each hole": the name as written, read.
				rd.said = append(rd.said, texts(seg[k:k+pn.width])...)
				return k + pn.width - 1, true
			}
		}
		if t.code && t.kind == tWord && !t.call && t.text != "p" {
			j := k
			for j < len(seg) && seg[j].kind == tWord && seg[j].text != "=" && !seg[j].call {
				j++
			}
			if j > k && word(j) == "=" {
				_, m := value(j + 1)
				if m == 0 {
					// A value that is no number (border_mode=cv2.BORDER_CONSTANT,
					// mode="constant"): its words, up to the next argument's name.
					for e := j + 1; e < len(seg) && seg[e].kind == tWord && seg[e].code && !seg[e].call && seg[e].arg == seg[j].arg; e++ {
						m++
					}
				}
				rd.unread = append(rd.unread, joinTokens(seg[k:j+1+m]))
				return j + m, true
			}
		}
		return k, false
	}
	positional := 0
	for k := 0; k < len(seg); k++ {
		t := seg[k]
		var ok bool
		if w := word(k); (w == "max" || w == "maximum" || w == "most" && word(k-1) == "at") && k+1 < len(seg) && seg[k+1].kind == tNum && !t.code {
			// "max 8 holes", "at most 3 shadows": a bound, not an intensity.
			if x, m := value(k); m > 0 {
				if pn := paramsAt(p.voc, e, seg, k+m); e != nil && pn.width > 0 && x.b.unit == "" {
					x = reads(x, pn.as, e.Parameters[pn.params[0]], false)
					x.param, x.params = pn.params[0], pn.params
					m += pn.width
				}
				rd.exprs = append(rd.exprs, x)
				k += m - 1
				continue
			}
		}
		if n, isNum := numberWords[word(k)]; (isNum || word(k) == "one" || word(k) == "single") && !t.code && e != nil {
			if !isNum {
				n = 1
			}
			// "one box", "two holes": a count written as a word before the name
			// of a parameter that counts.
			if pn := paramsAt(p.voc, e, seg, k+1); pn.width > 0 && (pn.as == nil || pn.as.As == "same") && e.Parameters[pn.params[0]].Unit == "count" {
				text := joinTokens(seg[k : k+1+pn.width])
				x := expr{kind: one, a: quantity{v: float64(n), text: word(k)}, text: text, param: pn.params[0], params: pn.params}
				rd.exprs = append(rd.exprs, x)
				rd.said = append(rd.said, texts(seg[k:k+1+pn.width])...)
				k += pn.width
				continue
			}
		}
		// In code, argument names come first: max_holes is no intensity word.
		if t.code && t.text != "p" {
			if k, ok = named(k); ok {
				continue
			}
		}
		if w := word(k); (w == "either" || w == "both") && bothWays[strings.TrimSuffix(word(k+1), "s")+"s"] && !t.code {
			// "up to 30% either way", "in both directions": the limit is ±, as
			// read.
			rd.said = append(rd.said, joinTokens(seg[k:k+2]))
			k++
			continue
		}
		// Probabilities: "50% of the time", "10% of samples", "30% chance", "p=0.3",
		// "with probability 0.3".
		if t.kind == tNum && word(k+1) == "%" || t.kind == tNum && word(k+1) == "percent" {
			w := word(k + 2)
			if n := portionOf(word, k+2); n > 0 || w == "chance" || w == "probability" || w == "likelihood" {
				rd.setP(t.num/100, t.text+"%")
				k += 1 + max(n, 1)
				continue
			}
		}
		if w := word(k); w == "probability" || w == "p" || w == "prob" || w == "chance" || w == "likelihood" {
			j := k + 1
			for word(j) == "of" || word(j) == "=" || word(j) == ":" || word(j) == "is" {
				j++
			}
			if q, n := qty(j); n > 0 {
				v := q.v
				if q.unit == "%" {
					v /= 100
				}
				rd.setP(v, q.text)
				k = j + n - 1
				continue
			}
		}
		// "some of them", "a few of the images", "most of the photos", "half the
		// images", "half the time": how many images, a probability.
		if f, ok := portion[word(k)]; ok {
			if n := portionOf(word, k+1); n > 0 {
				rd.setP(f, joinTokens(seg[k:k+1+n]))
				k += n
				continue
			}
		}
		// "some slightly blurry", "a few heavily rotated": a portion word before an
		// intensity word says how many images, not how much.
		if f, ok := portion[word(k)]; ok && k+1 < len(seg) && intensity[word(k+1)] > 0 && word(k+1) != "very" {
			rd.setP(f, word(k))
			continue
		}
		if f, ok := frequency[word(k)]; ok && !copulas[word(k-1)] && !(hedges[word(k)] && k+1 < len(seg) && seg[k+1].kind == tNum) {
			rd.setP(f, word(k))
			continue
		}
		// A parameter's name that starts with an intensity word ("max factor").
		if _, ok := intensity[word(k)]; ok && e != nil && paramsAt(p.voc, e, seg, k).width > 1 {
			if k, ok = named(k); ok {
				continue
			}
		}
		if f, ok := intensity[word(k)]; ok {
			if word(k) == "very" {
				if g, ok := intensity[word(k+1)]; ok {
					f = 1
					if g < 0.5 {
						f = 0.1
					}
					k++
				}
			}
			rd.intensity = f
			continue
		}
		if x, m := colourAt(seg, k); m > 0 && e != nil && fillParam(e) != "" {
			// "with black", "filled with mid gray (128)", "(114, 114, 114)": the
			// grey of the fill.
			rd.said = append(rd.said, joinTokens(seg[k:k+m]))
			x.param, x.params = fillParam(e), []string{fillParam(e)}
			rd.exprs = append(rd.exprs, x)
			k += m - 1
			continue
		}
		if k, ok = named(k); ok {
			continue
		}
		// "color jitter 0.4/0.4/0.4/0.1", "color jitter (0.4, 0.4, 0.4, 0.1)": three
		// or more numbers listed with slashes, or in prose brackets, are the call's
		// positional arguments, as albumentations reads ColorJitter(0.4, 0.4, 0.4,
		// 0.1).
		if n := listedArgs(seg, k, t, e != nil && !t.code); n >= 3 && n <= len(positionalOrder(p.voc.ParameterOrder(e), e)) {
			for i := 0; i < n; i++ {
				a, _ := qty(k + 2*i)
				x := positionalArg(p.voc, e, expr{kind: one, a: a, text: a.text}, positional)
				positional++
				if x.param == "" {
					rd.unread = append(rd.unread, fmt.Sprintf("argument %d: %s", positional, x.text))
				} else {
					rd.exprs = append(rd.exprs, x)
				}
			}
			k += 2*n - 2
			continue
		}
		if x, m := value(k); m > 0 && t.code && e != nil {
			// A positional argument of a call: the parameter in that place, when
			// it has albumentations' meaning under its own name (ColorJitter(0.4,
			// 0.4, 0.4, 0.1)); else listed as unread, never given to another.
			x = positionalArg(p.voc, e, x, positional)
			positional++
			if x.param == "" {
				rd.unread = append(rd.unread, fmt.Sprintf("argument %d: %s", positional, x.text))
			} else {
				rd.exprs = append(rd.exprs, x)
			}
			k += m - 1
			continue
		}
		if x, m := value(k); m > 0 {
			// "8 holes": the parameter after the number.
			if e != nil && x.kind == size {
				if pn := paramsAt(p.voc, e, seg, k+m); pn.width > 0 {
					x.param = pn.params[0]
					m += pn.width
				}
			}
			if e != nil && (x.kind == one && x.a.unit == "" || x.a.unit == "px" && kernelName(p.voc, e, seg, k+m)) {
				// Not a name that has its own value after it ("to 224 (scale
				// 0.6-1.0)": 224 is not the scale).
				if pn := paramsAt(p.voc, e, seg, k+m); pn.width > 0 && !valueAfter(seg, k+m+pn.width, value) {
					x = reads(x, pn.as, e.Parameters[pn.params[0]], false)
					x.param, x.params = pn.params[0], pn.params
					m += pn.width
				}
			}
			if e != nil && x.kind == one && x.param == "" && x.a.unit == "" && !x.a.signed && k+m < len(seg) {
				// "with 2 iterations": a count of something no parameter of
				// the entry is; the number is that word's, listed with it.
				if w := word(k + m); w != "" && !knownWord(w) && !p.known[w] && !p.words[w] && !inPhrase[seg[k+m].pos] {
					rd.stray = append(rd.stray, joinTokens(seg[k:k+m+1]))
					last = -2
					k += m
					continue
				}
			}
			rd.exprs = append(rd.exprs, x)
			k += m - 1
			continue
		}
		stray(k)
	}
	// The way the words point an "up to" limit, the "up" of "up to" aside.
	side := 0
	for k, t := range seg {
		if t.kind != tWord || t.code || t.text == "up" && word(k+1) == "to" || t.text == "add" {
			continue
		}
		switch {
		case negative[t.text] && side <= 0:
			side = -1
		case positive[t.text] && side >= 0:
			side = 1
		case negative[t.text] || positive[t.text]:
			side = 2
		}
	}
	if side == 2 {
		side = 0
	}
	for i := range rd.exprs {
		if rd.exprs[i].upto {
			rd.exprs[i].side = side
		}
	}
	for _, pe := range pairs {
		prm := e.Parameters[pe.name]
		lo, hi := pe.lo, pe.hi
		if lo == nil || hi == nil {
			// One end written: the other is the parameter's default.
			d := expr{kind: one, a: quantity{v: prm.Default, text: formatNumber(prm.Default)}, param: pe.name}
			if lo == nil {
				lo = &d
			} else {
				hi = &d
			}
		}
		x := spanOf(lo.a, hi.a, lo.text+", "+hi.text)
		x.param, x.params, x.as = lo.param, lo.params, "range_ends"
		rd.exprs = append(rd.exprs, x)
	}
	return rd
}

// valueAfter says whether a value follows at k, past the words that join a name to it.
func valueAfter(seg []token, k int, value func(int) (expr, int)) bool {
	for k < len(seg) && seg[k].kind == tWord && (seg[k].text == "=" || seg[k].text == ":" || seg[k].text == "of" || seg[k].text == "is") {
		k++
	}
	_, n := value(k)
	return n > 0
}

// odd says v is an odd whole number, as a kernel's size is.
func odd(v float64) bool { return v == math.Trunc(v) && math.Mod(v, 2) == 1 }

// kernelName says whether the words at k name a kernel size of e ("a 3 to 5 pixel
// kernel": pixels of a kernel, not of a radius).
func kernelName(voc *vocab.Vocabulary, e *vocab.Entry, seg []token, k int) bool {
	pn := paramsAt(voc, e, seg, k)
	return pn.width > 0 && pn.as != nil && (pn.as.As == "kernel_px" || pn.as.As == "kernel_limit")
}

// portionOf reads the words after a portion ("half", "10%") that say it is of the
// images: "of them", "the images", "of the time", "of samples". It returns how many
// words they are, 0 when they are not such words.
func portionOf(word func(int) string, k int) int {
	j := k
	if word(j) == "of" {
		j++
	}
	switch word(j) {
	case "them", "these", "those":
		if j > k {
			return j + 1 - k
		}
		return 0
	case "the", "all":
		j++
		if word(j) == "the" {
			j++
		}
	}
	if portionNouns[word(j)] && (j > k || word(j) != "time") {
		return j + 1 - k
	}
	return 0
}

// portionOnly says whether w says only how many images ("half", "most"): words that
// mean something only with what they are a portion of.
func portionOnly(w string) bool {
	_, po := portion[w]
	return po && !filler[w] && intensity[w] == 0
}

// knownWord says whether a word is one of words.go's: English that says how much, how
// often, which way, in what unit, or nothing a transform needs.
func knownWord(w string) bool {
	_, i := intensity[w]
	_, f := frequency[w]
	_, po := portion[w]
	if filler[w] || i || f || po || negative[w] || positive[w] || separators[w] || units[w] != "" || frequencyWords[w] || compositions[w] || levelWords[w] && w != "gray" && w != "grey" || exactWords[w] {
		return true
	}
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func spanOf(a, b quantity, text string) expr {
	// "between -15 and 15 degrees": the unit written once counts for both ends.
	if a.unit == "" {
		a.unit = b.unit
	}
	if b.unit == "" {
		b.unit = a.unit
	}
	if a.unit == "%" && !a.signed && !b.signed && (a.v >= 100) != (b.v >= 100) {
		// "between 50% and 150% of its size": ends on both sides of 100% are
		// the factor itself, not changes.
		a.absolute, b.absolute = true, true
	}
	return expr{kind: span, a: a, b: b, text: text}
}

func (rd *reading) setP(v float64, text string) {
	if v < 0 || v > 1 || math.IsNaN(v) {
		rd.issues = append(rd.issues, fmt.Sprintf("p: %s is outside [0, 1]", text))
		return
	}
	rd.p, rd.pSet = v, true
}

// compatible says whether a number in unit u can be a value of prm.
func compatible(u string, prm *vocab.Parameter) bool {
	switch u {
	case "":
		return true
	case "deg":
		return prm.Unit == "degrees"
	case "px":
		return prm.Unit == "fraction"
	case "long_edge", "short_edge":
		return prm.Unit == "ratio"
	case "width", "height":
		return prm.Unit == "ratio" || prm.Unit == "fraction"
	case "%":
		switch prm.Unit {
		case "fraction", "amount", "level", "weight", "ev", "ratio":
			return true
		}
	case "k":
		return prm.Unit == "kelvin"
	case "ev":
		return prm.Unit == "ev"
	case "x":
		return prm.Unit == "ratio"
	}
	return false
}

var unitNames = map[string]string{"deg": "degrees", "px": "pixels", "%": "a percentage", "k": "kelvin", "ev": "stops (EV)", "x": "a factor"}

// assign gives x to a parameter: the one it names, else the first in the manifest's
// order that is still free and takes its unit.
func (p *Parser) assign(r *Result, t *Transform, e *vocab.Entry, order []string, assigned map[string]bool, x expr, dir int, opt Options) {
	if len(order) == 0 {
		r.unread(x.text, fmt.Sprintf("%s takes no value; %q ignored", e.Name, x.text), "", e.Name)
		return
	}
	if x.kind == size {
		p.assignSize(r, t, e, assigned, x, opt)
		return
	}
	name := x.param
	if name == "" {
		for _, n := range order {
			// A switch takes only a value its name gives ("per_channel=1").
			if !assigned[n] && !switchParam(e.Parameters[n]) && compatible(x.a.unit, e.Parameters[n]) && (x.kind == one || compatible(x.b.unit, e.Parameters[n])) {
				name = n
				break
			}
		}
	}
	if name == "" {
		var have []string
		for _, n := range order {
			have = append(have, fmt.Sprintf("%s in %s", n, e.Parameters[n].Unit))
		}
		if x.a.unit != "" && !anyCompatible(e, order, x.a.unit) {
			r.issue("error", fmt.Sprintf("%s: %q: no parameter of %s is in %s (%s)", e.Name, x.text, e.Name, unitNames[x.a.unit], strings.Join(have, ", ")),
				"give the value in the parameter's unit", e.Name, "")
			return
		}
		r.unread(x.text, fmt.Sprintf("%s: %q ignored: every parameter already has a value", e.Name, x.text), "name the parameter: "+strings.Join(order, ", "), e.Name)
		return
	}
	prm := e.Parameters[name]
	// "random resized crop to 224": a whole number after "to", with no unit and no
	// parameter named, that the parameter's range cannot hold is the output size in
	// pixels albumentations' height and width give; no parameter takes it, so it is
	// listed and the parameter keeps what it would have had.
	takesSize := hasSizeParams(e) || areaParam(e) != ""
	// A fraction with no other reading cannot be 224 either: an output size
	// ("random resized crop 224").
	sizeLike := prm.Unit == "fraction" && !otherUnits(prm)
	if x.kind == one && (x.a.absolute || takesSize || sizeLike) && x.a.unit == "" && x.param == "" && x.a.v >= 16 && x.a.v == math.Trunc(x.a.v) && (x.a.v < prm.Min || x.a.v > prm.Max) {
		if takesSize {
			// An entry that takes a size: a square of that side ("center crop to 224",
			// "random crop 512").
			p.assignSize(r, t, e, assigned, expr{kind: size, w: x.a.v, h: x.a.v, text: x.text}, opt)
			return
		}
		r.outputSizes++
		said := x.text
		if x.a.absolute {
			said = "to " + x.text
		}
		r.unread(said, fmt.Sprintf("%s: %q reads as an output size in pixels, which no parameter of %s takes (it keeps the image's size); not applied", e.Name, said, e.Name),
			"resize the images to that size separately", e.Name)
		return
	}
	assigned[name] = true
	if x.upto && x.kind == span && prm.Min >= 0 && x.a.v < 0 {
		// "sigma up to 1.5" of a parameter with no sign: from none, never below.
		x.a.v, x.a.signed = prm.Min, false
	}
	x, _ = p.albumentationsUnits(r, e, prm, x, dir, opt)
	x = drawnLimit(e, name, prm, x, dir)
	if x.upto && x.kind == span && prm.Min >= 0 && (x.as == "" || x.as == "same" || x.as == "px") {
		if lo, hi, ok := upTo(prm, x, dir, opt); ok {
			setDrawn(t, prm, name, lo, hi)
			return
		}
	}
	if x.kind == one {
		v, pend, msg := convert(x.a, prm, dir, opt)
		switch {
		case msg != "":
			r.issueAt("error", x.text, fmt.Sprintf("%s: %s", e.Name, msg), rangeHint(prm), e.Name, name)
		case pend != nil:
			t.Pending = append(t.Pending, *pend)
			r.issue("warning", fmt.Sprintf("%s: %s: %s needs the image size to become a fraction of the long edge", e.Name, name, x.text),
				"give the image's width and height (augment_image converts it from the image)", e.Name, name)
		default:
			setValue(t, name, v)
		}
		return
	}
	// The ends of a range keep their own signs; only a change of a factor reads which
	// way ("zoom out between 10% and 20%").
	// A range written without signs takes the direction the words give ("darker by
	// 10-30%" is -30%..-10%): both ends are a change that way.
	sdir := 0
	if prm.Unit == "ratio" || !x.a.signed && !x.b.signed {
		sdir = dir
	}
	lo, pl, m1 := convert(x.a, prm, sdir, opt)
	hi, ph, m2 := convert(x.b, prm, sdir, opt)
	if m1 != "" || m2 != "" {
		for _, m := range []string{m1, m2} {
			if m != "" {
				r.issueAt("error", x.text, fmt.Sprintf("%s: %s", e.Name, m), rangeHint(prm), e.Name, name)
			}
		}
		return
	}
	if pl != nil || ph != nil {
		for _, pd := range []*Pending{pl, ph} {
			if pd != nil {
				t.Pending = append(t.Pending, *pd)
			}
		}
		r.issue("warning", fmt.Sprintf("%s: %s: %s needs the image size to become a fraction of the long edge", e.Name, name, x.text),
			"give the image's width and height (augment_image converts it from the image)", e.Name, name)
		return
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if x.upto && x.side != 0 && lo < prm.Default && prm.Default < hi {
		// "lower contrast by up to 30%": the limit only on the side the words
		// point at, from none of the change to all of it.
		if x.side < 0 {
			hi = prm.Default
		} else {
			lo = prm.Default
		}
	}
	if lo == hi {
		setValue(t, name, lo)
		return
	}
	if sdir == 0 && !x.a.signed && !x.b.signed && lo > 0 && prm.Min < 0 && prm.Min == -prm.Max {
		// "some hue shifts, maybe 5-10": a range of sizes on a parameter that
		// shifts either way may mean ±10; it is read as written, and said.
		r.issue("warning", fmt.Sprintf("%s: %s: %q is read as one-sided, %s to %s; a shift either way of up to %s is written ±%s", e.Name, name, x.text, formatNumber(lo), formatNumber(hi), x.b.text, x.b.text),
			"write ±"+x.b.text+" for shifts either way", e.Name, name)
	}
	setRange(t, name, lo, hi)
}

// otherUnits says whether prm has an albumentations reading of a bare number in
// another unit (a kernel size, a limit, 255 levels).
func otherUnits(prm *vocab.Parameter) bool {
	for _, al := range prm.Also {
		if al.As != "same" {
			return true
		}
	}
	return false
}

// upTo reads "up to A" for a parameter with no negative values, where ±A cannot be
// meant: from the default to A ("blur up to 5 px", "up to 8 holes", one hole at
// least for a count whose default is none), or, for a default inside the range
// (a factor around 1), A's mirror around the default to A ("scale up to 1.2" is
// 0.8..1.2, albumentations' limit). ok is false when A does not convert; the
// caller then reports it.
func upTo(prm *vocab.Parameter, x expr, dir int, opt Options) (float64, float64, bool) {
	hi, pend, msg := convert(x.b, prm, dir, opt)
	if msg != "" || pend != nil {
		return 0, 0, false
	}
	d := prm.Default
	switch {
	case d <= prm.Min:
		lo := d
		if prm.Unit == "count" && lo < 1 && hi >= 1 {
			lo = 1
		}
		return lo, hi, true
	case d >= prm.Max:
		return min(hi, d), max(hi, d), true
	case x.b.unit == "%" && prm.Unit == "ratio":
		// "zoom up to 20%": the change both ways, as written.
		lo, _, m := convert(x.a, prm, dir, opt)
		if m != "" {
			return 0, 0, false
		}
		return min(lo, hi), max(lo, hi), true
	}
	if prm.Unit == "ratio" {
		// A factor around its default: albumentations' limit both ways.
		lo := max(prm.Min, 2*d-hi)
		return min(lo, hi), max(lo, hi), true
	}
	// A size or an amount: anything up to it.
	return min(prm.Min, hi), hi, true
}

// drawnLimit reads one unsigned value, with no direction, that the words ask to draw
// ("random"), given to a parameter the entry draws around its default (prompt.sample,
// on both sides of it), as albumentations reads that parameter's limit: "random
// brightness/contrast 0.15" is limits of ±0.15, "random shift 5%" ±5%. A value in the parameter's own
// limit name was read so already. A symmetric range with no unit on an exposure in
// stops that has a limit_fraction name is that limit too ("brightness ±0.2" is ±20%).
func drawnLimit(e *vocab.Entry, name string, prm *vocab.Parameter, x expr, dir int) expr {
	if x.kind == span && x.as == "" && x.a.unit == "" && x.b.unit == "" && x.a.v == -x.b.v && augmentation(e) {
		// "brightness ±0.2" of an exposure in stops: albumentations' brightness_limit,
		// ±20%, as "brightness 0.2" and "brightness ±20%" are, not ±0.2 EV; "hue
		// ±0.05" of ColorJitter a twentieth of a turn, as "hue 0.05" is.
		for i := range prm.Also {
			if al := &prm.Also[i]; al.As == "limit_fraction" && !al.Code && prm.Unit == "ev" || al.As == "turn_fraction" && x.b.v <= 0.5 {
				y := reads(x, al, prm, false)
				y.param, y.params = x.param, x.params
				return y
			}
		}
	}
	if x.kind != one || !x.random || x.a.signed || dir != 0 || !(prm.Min < prm.Default && prm.Default < prm.Max) {
		return x
	}
	symmetric := func() expr {
		// Only an augmentation's magnitude: a direction (a motion blur's angle,
		// prompt.free) is one, and an editing entry's value is as written.
		if !augmentation(e) || e.Prompt != nil && contains(e.Prompt.Free, name) {
			return x
		}
		// A change around a default of none, with no limit name of its own ("RGB
		// shift 20" of 255 levels, "shear 3 degrees"): ±v.
		if prm.Default == 0 {
			lo := x.a
			lo.v, lo.signed = -x.a.v, true
			x.a.signed = true
			x.kind, x.a, x.b = span, lo, x.a
		}
		return x
	}
	if x.as == "level_255" || x.as == "same" || x.as == "percent" {
		return symmetric()
	}
	if x.as != "" {
		return x
	}
	for i := range prm.Also {
		if al := &prm.Also[i]; al.As == "turn_fraction" && x.a.unit == "" && x.a.v <= 0.5 {
			// ColorJitter's hue of at most half a turn ("hue 0.05"): no hue
			// rotation is a twentieth of a degree.
			y := reads(x, al, prm, false)
			y.param, y.params = x.param, x.params
			return y
		}
		if al := &prm.Also[i]; al.As == "limit" || al.As == "limit_fraction" {
			y := reads(x, al, prm, false)
			// The value as written, in its own unit: only its reading is the limit's.
			if al.Scale != 0 {
				y.a.v, y.b.v = y.a.v/al.Scale, y.b.v/al.Scale
			}
			y.param, y.params = x.param, x.params
			return y
		}
	}
	return symmetric()
}

func anyCompatible(e *vocab.Entry, order []string, u string) bool {
	for _, n := range order {
		if compatible(u, e.Parameters[n]) {
			return true
		}
	}
	return false
}

func rangeHint(prm *vocab.Parameter) string {
	return fmt.Sprintf("use a value from %s to %s (%s)", formatNumber(prm.Min), formatNumber(prm.Max), prm.Unit)
}

// convert turns a quantity into prm's own unit and checks it against prm's range; it
// never clamps. A value in pixels with no image size is pending.
func convert(q quantity, prm *vocab.Parameter, dir int, opt Options) (float64, *Pending, string) {
	v := q.v
	if dir < 0 && !q.signed && prm.Min < 0 && v > 0 {
		v = -v
	}
	if !compatible(q.unit, prm) {
		return 0, nil, fmt.Sprintf("%s: %s is not in %s's unit (%s)", prm.Name, q.text, prm.Name, prm.Unit)
	}
	switch q.unit {
	case "px":
		long := max(opt.Width, opt.Height)
		if long <= 0 {
			return 0, &Pending{Parameter: prm.Name, Pixels: v, Of: "long_edge"}, ""
		}
		v /= float64(long)
	case "long_edge", "short_edge", "width", "height":
		// The length the image's long or short edge, width or height becomes (or
		// a crop keeps): over that side.
		edge := max(opt.Width, opt.Height)
		switch q.unit {
		case "short_edge":
			edge = min(opt.Width, opt.Height)
		case "width":
			edge = opt.Width
		case "height":
			edge = opt.Height
		}
		if edge <= 0 {
			return 0, &Pending{Parameter: prm.Name, Pixels: v, Of: q.unit}, ""
		}
		v /= float64(edge)
	case "%":
		switch {
		case prm.Unit == "ev":
			if v <= -100 {
				return 0, nil, fmt.Sprintf("%s: %s is not a change of light (at most -100%%)", prm.Name, q.text)
			}
			v = math.Log2(1 + v/100)
		case prm.Unit == "level" && prm.Max > 1:
			// A level on a 0..max scale (image_compression's quality): a percentage of max.
			v = v / 100 * prm.Max
		case prm.Unit == "ratio" && prm.Default == 1 && prm.Min < 1 && prm.Max > 1 && !q.absolute && v < 100:
			// A factor around 1 (a zoom, a scale): a percentage is a change, "zoom in
			// 10%" is 1.1 and "zoom out 10%" 0.9; "to 80%" and "120%" are the factor.
			if dir < 0 {
				v = 1 - v/100
			} else {
				v = 1 + v/100
			}
		default:
			v /= 100
		}
	}
	v = round(v)
	if v < prm.Min || v > prm.Max || math.IsNaN(v) {
		return 0, nil, fmt.Sprintf("%s: %s is outside [%s, %s]", prm.Name, describe(q, v), formatNumber(prm.Min), formatNumber(prm.Max))
	}
	if prm.Type == "integer" && v != math.Trunc(v) {
		return 0, nil, fmt.Sprintf("%s: %s is not an integer", prm.Name, q.text)
	}
	return v, nil, ""
}

// describe writes the value as given and, when converted, what it became.
func describe(q quantity, v float64) string {
	if q.unit == "" || q.unit == "deg" || q.unit == "k" || q.unit == "ev" || q.unit == "x" {
		return formatNumber(v)
	}
	return fmt.Sprintf("%s (%s)", formatNumber(v), q.text)
}

// assignSize gives a size in pixels to width and height parameters (fractions of the
// image's width and height) or, for an entry that cuts margins (left, right, top,
// bottom), to the margins of a centred crop of that size.
func (p *Parser) assignSize(r *Result, t *Transform, e *vocab.Entry, assigned map[string]bool, x expr, opt Options) {
	_, hasW := e.Parameters["width"]
	_, hasL := e.Parameters["left"]
	known := opt.Width > 0 && opt.Height > 0
	type part struct {
		name string
		px   float64
		side int
		of   string
		half bool
	}
	var parts []part
	switch {
	case hasW:
		parts = []part{{"width", x.w, opt.Width, "width", false}, {"height", x.h, opt.Height, "height", false}}
		if w := e.Parameters["width"]; w.Max > 1 && w.Unit == "fraction" {
			// A size that may pass the image's (pad_if_needed's minimum size) is in
			// fractions of the long edge, as its manifest declares both sides.
			long := max(opt.Width, opt.Height)
			parts = []part{{"width", x.w, long, "long_edge", false}, {"height", x.h, long, "long_edge", false}}
		}
	case hasL:
		parts = []part{{"left", x.w, opt.Width, "width", true}, {"right", x.w, opt.Width, "width", true},
			{"top", x.h, opt.Height, "height", true}, {"bottom", x.h, opt.Height, "height", true}}
	default:
		if name := areaParam(e); name != "" {
			p.assignArea(r, t, e, assigned, name, x, opt)
			return
		}
		// A square grid ("grid shuffle 4x4", "8x8 tiles") is the count of a
		// parameter counting cells, tiles or steps.
		if x.w == x.h {
			for _, n := range p.voc.ParameterOrder(e) {
				if prm := e.Parameters[n]; prm.Unit == "count" && (x.param == n || x.param == "" && !anyCompatible(e, p.voc.ParameterOrder(e), "px")) && x.w >= prm.Min && x.w <= prm.Max && !assigned[n] {
					assigned[n] = true
					setValue(t, n, x.w)
					return
				}
			}
		}
		// A square (a hole of 32x32 pixels) is one side in pixels, for an entry
		// whose sizes are fractions of the long edge (cutout's size).
		if x.w == x.h {
			side := expr{kind: one, a: quantity{v: x.w, unit: "px", text: x.text}, text: x.text}
			if anyCompatible(e, p.voc.ParameterOrder(e), "px") {
				p.assign(r, t, e, p.voc.ParameterOrder(e), assigned, side, 0, opt)
				return
			}
		}
		r.issue("error", fmt.Sprintf("%s: %q: %s takes no size", e.Name, x.text, e.Name), "a size suits an entry with width and height", e.Name, "")
		return
	}
	for _, pt := range parts {
		prm, ok := e.Parameters[pt.name]
		if !ok {
			continue
		}
		assigned[pt.name] = true
		if !known {
			t.Pending = append(t.Pending, Pending{Parameter: pt.name, Pixels: pt.px, Of: pt.of, Margin: pt.half})
			continue
		}
		v := pt.px / float64(pt.side)
		if pt.half {
			v = (float64(pt.side) - pt.px) / 2 / float64(pt.side)
		}
		v = round(v)
		if v < prm.Min || v > prm.Max {
			r.issue("error", fmt.Sprintf("%s: %s: %s (%s on a %dx%d image) is outside [%s, %s]", e.Name, pt.name, formatNumber(v), x.text, opt.Width, opt.Height, formatNumber(prm.Min), formatNumber(prm.Max)),
				rangeHint(prm), e.Name, pt.name)
			continue
		}
		setValue(t, pt.name, v)
	}
	if !known {
		r.issue("warning", fmt.Sprintf("%s: %s needs the image size to become fractions of it", e.Name, x.text),
			"give the image's width and height (augment_image converts it from the image)", e.Name, "")
	}
}

func formatNumber(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", f), "0"), ".")
}

// finish fills what depends on the whole parse: validity, complexity, the estimate.
func (r *Result) finish(p *Parser, opt Options) {
	for i := range r.Transforms {
		// A flip or transpose with no p said ("hflip, rotate 10") runs at
		// albumentations' p 0.5: always run, it would mirror every image, a dataset
		// turned, not augmented. A group's member keeps its weight.
		t := &r.Transforms[i]
		if e, ok := p.voc.Entry(t.Entry); ok && contains(e.Tags, "flip") && augmentation(e) && len(e.Parameters) == 0 && !t.pSet && !t.pCode && t.P == 1 && t.Group == nil {
			t.P = 0.5
			if i+1 < len(r.Transforms) {
				// "hflip and vflip 100% of the time": the p the pair's second
				// is given is the first's too.
				if n := r.Transforms[i+1]; n.pSet && n.Group == nil && n.Entry != t.Entry && flipEntry(p, n.Entry) {
					t.P = n.P
				}
			}
		}
	}
	r.leaveOutFaulted(opt)
	r.Valid = !r.hasError()
	for i := range r.Transforms {
		// JSON readers get {} rather than null for "no parameters given".
		if r.Transforms[i].Values == nil {
			r.Transforms[i].Values = map[string]float64{}
		}
		if r.Transforms[i].Ranges == nil {
			r.Transforms[i].Ranges = map[string][2]float64{}
		}
	}
	c := 0.0
	for _, t := range r.Transforms {
		c++
		c += float64(len(t.Ranges))
		if t.P < 1 {
			c += 0.5
		}
	}
	r.Complexity = c
	w, h := opt.EstimateWidth, opt.EstimateHeight
	if w <= 0 || h <= 0 {
		w, h = opt.Width, opt.Height
	}
	if w <= 0 || h <= 0 {
		w, h = DefaultEstimateSize, DefaultEstimateSize
	}
	r.Estimate = p.Estimate(r.Transforms, w, h)
	sort.SliceStable(r.Errors, func(i, j int) bool { return r.Errors[i].Severity == "error" && r.Errors[j].Severity != "error" })
}

// flipEntry says whether name is an entry of the flip family (flips, transpose).
func flipEntry(p *Parser, name string) bool {
	e, ok := p.voc.Entry(name)
	return ok && contains(e.Tags, "flip")
}

// leaveOutFaulted leaves out each step whose words gave a value darkroom cannot take
// (outside its parameter's range, a size the entry has no side for) and says so as a
// warning naming the step's words, so the rest of the prompt runs, as a pipeline's
// transform with such a value is skipped (augment's albumentations reading): "elastic
// sigma 4, flip" flips and lists "elastic" with the range. The errors stay errors (the
// prompt invalid) in strict mode, when every step is at fault (nothing would run) and
// when an error is not a step's.
func (r *Result) leaveOutFaulted(opt Options) {
	if opt.Strict {
		return
	}
	owner := make([]int, len(r.Errors)) // the index of the step an error is about, -1 for none
	bad := map[int]bool{}
	for i, e := range r.Errors {
		owner[i] = -1
		if e.Severity != "error" {
			continue
		}
		best := -1
		for j, t := range r.Transforms {
			// The step read from the words the error is of; a transform merged into
			// an earlier one of its entry ("affine: rotate 5, shear 90") is that one.
			if e.of > 0 && t.Entry == e.Entry && t.at <= e.of-1 && (best < 0 || t.at > r.Transforms[best].at) {
				best = j
			}
		}
		if best < 0 {
			return
		}
		owner[i], bad[best] = best, true
	}
	if len(bad) == 0 || len(bad) == len(r.Transforms) && r.Preset == "" {
		return
	}
	// One warning a step left out, with every reason its words gave (a "±200" is
	// two values out of range, one phrase to list).
	first := map[int]int{}
	kept := r.Errors[:0]
	for i, e := range r.Errors {
		j := owner[i]
		if j < 0 {
			kept = append(kept, e)
			continue
		}
		if k, ok := first[j]; ok {
			kept[k].Message += "; " + e.Message
			continue
		}
		t := r.Transforms[j]
		e.Severity, e.Phrase = "warning", t.Phrase
		e.Message = fmt.Sprintf("%q (%s) not applied: %s", t.Phrase, t.Entry, e.Message)
		first[j] = len(kept)
		kept = append(kept, e)
	}
	r.Errors = kept
	steps := r.Transforms[:0]
	for j, t := range r.Transforms {
		if !bad[j] {
			steps = append(steps, t)
		}
	}
	r.Transforms = steps
}

// areaParam is the parameter of e that reads a size in pixels as an area (also with
// as: area_px), or "".
func areaParam(e *vocab.Entry) string {
	for name, prm := range e.Parameters {
		for _, al := range prm.Also {
			if al.As == "area_px" {
				return name
			}
		}
	}
	return ""
}

// assignArea gives a size WxH to a parameter that is an area fraction: a crop that
// keeps the image's aspect ratio is as large as the size asked for, and the warning
// says the shape is not kept.
func (p *Parser) assignArea(r *Result, t *Transform, e *vocab.Entry, assigned map[string]bool, name string, x expr, opt Options) {
	prm := e.Parameters[name]
	assigned[name] = true
	if opt.Width <= 0 || opt.Height <= 0 {
		t.Pending = append(t.Pending, Pending{Parameter: name, Pixels: x.w * x.h, Of: "area"})
		r.issue("warning", fmt.Sprintf("%s: %s needs the image size to become a fraction of its area", e.Name, x.text),
			"give the image's width and height (augment_image converts it from the image)", e.Name, name)
		return
	}
	v := round(x.w * x.h / float64(opt.Width*opt.Height))
	if v < prm.Min || v > prm.Max || x.w > float64(opt.Width) || x.h > float64(opt.Height) {
		r.issue("error", fmt.Sprintf("%s: %s: %s does not fit in the %dx%d image (%s of its area; the range is [%s, %s])", e.Name, name, x.text, opt.Width, opt.Height, formatNumber(v), formatNumber(prm.Min), formatNumber(prm.Max)),
			rangeHint(prm), e.Name, name)
		return
	}
	setValue(t, name, v)
	if x.w*float64(opt.Height) != x.h*float64(opt.Width) {
		r.issue("warning", fmt.Sprintf("%s keeps the image's aspect ratio: %s is read as its area, %s of the %dx%d image", e.Name, x.text, formatNumber(v), opt.Width, opt.Height),
			"for an exact size use center_crop", e.Name, name)
	}
}

// fillParam is e's parameter of the grey it fills with: a level named fill, or with
// another name of a fill ("fill_value"); "" when e has none.
func fillParam(e *vocab.Entry) string {
	if e == nil {
		return ""
	}
	for name, prm := range e.Parameters {
		if prm.Unit != "level" {
			continue
		}
		if strings.Contains(name, "fill") {
			return name
		}
		for _, al := range prm.Also {
			if strings.Contains(al.Name, "fill") {
				return name
			}
		}
	}
	return ""
}

// colourAt reads a grey at k: a colour word ("black", "white", "mid gray", after a
// fill word: "filled with dark gray"; a number right after it, "gray (128)", says the
// level, on 0..255 when above 1) or three equal numbers in brackets ("(114, 114,
// 114)", a level on 0..255). It returns the value and the tokens taken, 0 when there
// is none.
func colourAt(seg []token, k int) (expr, int) {
	j := k
	if j < len(seg) && fillWords[seg[j].text] {
		// "filled with dark gray": the fill word with its colour.
		j++
		for j < len(seg) && (seg[j].text == "with" || seg[j].text == "w" || seg[j].text == "/" || seg[j].text == "w/") {
			j++
		}
	}
	shade := 0.0
	for j < len(seg) && seg[j].kind == tWord && shadeWords[seg[j].text] && seg[j].text != "a" {
		shade += shadeLevels[seg[j].text]
		j++
	}
	if j < len(seg) && seg[j].kind == tWord {
		lv, ok := colourLevels[seg[j].text]
		if !ok {
			return expr{}, 0
		}
		if lv == 0.5 {
			// "dark gray", "light grey": a quarter of the way to black or white.
			lv += shade
		}
		n := j - k + 1
		if j+1 < len(seg) && borderNouns[seg[j+1].text] {
			// "black borders", "white background": what the colour fills.
			n++
			j++
		}
		if j+1 < len(seg) && seg[j+1].kind == tNum && !seg[j+1].signed && seg[j+1].num >= 0 && seg[j+1].num <= 255 {
			// "gray (128)": the number says the level, on 0..255 above 1.
			v := seg[j+1].num
			if v > 1 {
				v /= 255
			}
			text := joinTokens(seg[k : j+2])
			return expr{kind: one, a: quantity{v: round(v), text: text}, text: text}, n + 1
		}
		return expr{kind: one, a: quantity{v: lv, text: joinTokens(seg[k : j+1])}, text: joinTokens(seg[k : j+1])}, n
	}
	if j != k || k >= len(seg) || seg[k].kind != tNum || seg[k].depth == 0 || k > 0 && seg[k-1].kind == tNum && seg[k-1].depth == seg[k].depth {
		return expr{}, 0
	}
	var vals []float64
	for j = k; j < len(seg) && seg[j].depth == seg[k].depth; j++ {
		switch {
		case seg[j].kind == tNum:
			vals = append(vals, seg[j].num)
		case seg[j].text == "," || seg[j].text == "to" && len(vals) > 0 && j+1 < len(seg) && seg[j+1].kind == tNum:
			// A tuple's comma, which the tokenizer writes as a range's "to".
		default:
			return expr{}, 0
		}
	}
	if len(vals) != 3 || vals[0] != vals[1] || vals[1] != vals[2] || vals[0] < 0 || vals[0] > 255 || seg[k].signed {
		return expr{}, 0
	}
	text := joinTokens(seg[k:j])
	return expr{kind: one, a: quantity{v: round(vals[0] / 255), text: text}, text: text}, j - k
}

// colourVariant is the entry that does what e does with a fill colour, when e fills
// with none and seg names a colour: the same operations, e's parameters and one grey
// to fill with (pad_if_needed's is pad_constant). nil otherwise.
func (p *Parser) colourVariant(e *vocab.Entry, seg []token) *vocab.Entry {
	if e == nil || fillParam(e) != "" {
		return nil
	}
	colour := false
	for k := range seg {
		if _, n := colourAt(seg, k); n > 0 {
			colour = true
			break
		}
	}
	if !colour {
		return nil
	}
	return p.withFill(e)
}

// withFill is the entry that does what e does with a grey to fill with: the same
// operations, e's parameters and one fill (pad_if_needed's is pad_constant); nil when
// there is none.
func (p *Parser) withFill(e *vocab.Entry) *vocab.Entry {
	for _, v := range p.voc.Select(vocab.Filter{}) {
		fill := fillParam(v)
		if v.Name == e.Name || fill == "" || len(v.Parameters) != len(e.Parameters)+1 || len(v.Operations) != len(e.Operations) {
			continue
		}
		same := true
		for name := range e.Parameters {
			if _, ok := v.Parameters[name]; !ok {
				same = false
			}
		}
		for i := range e.Operations {
			same = same && e.Operations[i].Op == v.Operations[i].Op
		}
		if same {
			return v
		}
	}
	return nil
}

// toSquare says whether the words ask for a square: "to square", "to a square",
// "into a square".
func toSquare(toks []token) bool {
	for k, t := range toks {
		if t.kind == tWord && (t.text == "square" || t.text == "squares") && k > 0 {
			j := k - 1
			if toks[j].text == "a" && j > 0 {
				j--
			}
			if toks[j].text == "to" || toks[j].text == "into" {
				return true
			}
		}
	}
	return false
}

// sideWords are the margins an entry may cut or add, each with the side of the image
// it is a share of.
var sideWords = map[string]string{"left": "width", "right": "width", "top": "height", "bottom": "height"}

// allSides finds words that give a value to every side ("every border", "each edge",
// "all four sides", "on all sides", "all around", "all round") for an entry with a
// parameter for each side (crop's left, right, top, bottom). It returns those
// parameters and the words read, with the "off" or "from"
// that says where the value is taken ("crop 10% off every border").
func allSides(e *vocab.Entry, seg []token) ([]string, []string) {
	for n := range sideWords {
		if _, ok := e.Parameters[n]; !ok {
			return nil, nil
		}
	}
	word := func(k int) string {
		if k >= 0 && k < len(seg) && seg[k].kind == tWord {
			return seg[k].text
		}
		return ""
	}
	for k := range seg {
		var words []string
		switch w := word(k); {
		case (w == "all" || w == "every" || w == "each") && sideNoun(word(k+1)):
			words = []string{w, word(k + 1)}
		case w == "all" && word(k+1) == "four" && sideNoun(word(k+2)):
			words = []string{w, "four", word(k + 2)}
		case w == "all" && (word(k+1) == "around" || word(k+1) == "round"):
			words = []string{w, word(k + 1)}
		default:
			continue
		}
		for _, pre := range []string{"off", "from", "on", "at"} {
			for _, t := range seg {
				if t.kind == tWord && t.text == pre {
					words = append(words, pre)
				}
			}
		}
		return []string{"left", "right", "top", "bottom"}, words
	}
	return nil, nil
}

func sideNoun(w string) bool {
	switch w {
	case "border", "borders", "side", "sides", "edge", "edges":
		return true
	}
	return false
}

// sideUnit makes a pixel margin one of the image's side of (width or height).
func sideUnit(q quantity, of string) quantity {
	if q.unit == "px" {
		q.unit = of
	}
	return q
}

// without is xs with the words of ws taken out of each run (a run left empty is
// dropped).
func without(xs, ws []string) []string {
	var out []string
	for _, x := range xs {
		var kept []string
		for _, w := range strings.Fields(x) {
			if !contains(ws, w) {
				kept = append(kept, w)
			}
		}
		if len(kept) > 0 {
			out = append(out, strings.Join(kept, " "))
		}
	}
	return out
}

// eachReading is, for another name several parameters share that reads differently
// for some of them (a colour jitter's "strength"), each parameter's own reading of
// it, in pn.params' order; nil when the name reads alike for all.
func eachReading(e *vocab.Entry, pn paramName) []*vocab.ParameterName {
	if pn.as == nil || len(pn.params) < 2 {
		return nil
	}
	var out []*vocab.ParameterName
	alike := true
	for _, n := range pn.params {
		var found *vocab.ParameterName
		for i := range e.Parameters[n].Also {
			if al := &e.Parameters[n].Also[i]; al.Name == pn.as.Name && al.Code == pn.as.Code {
				found = al
				break
			}
		}
		if found == nil {
			return nil
		}
		alike = alike && found.As == pn.as.As && found.Scale == pn.as.Scale && found.Negate == pn.as.Negate
		out = append(out, found)
	}
	if alike {
		return nil
	}
	return out
}

// sideQualifier is how many words at k say that a percentage is of the image's side
// ("of the image side", "of the width", "of the shorter side", "of the image's
// height"), 0 when they do not.
func sideQualifier(seg []token, k int) int {
	word := func(j int) string {
		if j >= 0 && j < len(seg) && seg[j].kind == tWord {
			return seg[j].text
		}
		return ""
	}
	j := k
	if word(j) != "of" {
		return 0
	}
	j++
	for word(j) == "the" || word(j) == "its" || word(j) == "each" || word(j) == "image" || word(j) == "image's" || word(j) == "images" || word(j) == "photo" || word(j) == "picture" {
		j++
	}
	switch word(j) {
	case "long", "longer", "longest", "short", "shorter", "shortest", "smaller", "smallest", "larger", "largest":
		j++
	}
	switch word(j) {
	case "side", "sides", "width", "height", "edge", "edges", "dimension", "dimensions":
		return j + 1 - k
	}
	return 0
}

// fitting are the targets whose unit takes x's ("patches of 32-64 px" names the
// holes, a count, but its pixels are a hole's size): all of them when x has no unit.
func fitting(e *vocab.Entry, targets []string, x expr) []string {
	u := x.a.unit
	if u == "" && x.kind == span {
		u = x.b.unit
	}
	if u == "" {
		return targets
	}
	var out []string
	for _, n := range targets {
		if prm := e.Parameters[n]; prm != nil && compatible(u, prm) {
			out = append(out, n)
		}
	}
	return out
}

// bothSides are the width and height of an entry that has only those two, as factors
// of the image's sides (resize's): a factor given with no name ("resize to 50%",
// "resize to half") scales both, as a size WxH would; none otherwise.
func bothSides(e *vocab.Entry, order []string, assigned map[string]bool, rd reading) []string {
	w, okw := e.Parameters["width"]
	h, okh := e.Parameters["height"]
	if len(order) != 2 || !okw || !okh || w.Unit != "ratio" || h.Unit != "ratio" || assigned["width"] || assigned["height"] {
		return nil
	}
	for _, x := range rd.exprs {
		// A whole number in pixels ("resize to 224") is an output size, read
		// elsewhere; a factor is a percentage or a number the ratio holds.
		if x.kind != one || x.param != "" || !(x.a.unit == "%" || x.a.unit == "x" || x.a.unit == "" && x.a.v <= w.Max) {
			return nil
		}
	}
	return []string{"width", "height"}
}

// squareSaid says whether the words ask for a square, of the long edge or of a size
// given: "to square", "to a square", "into a square", "to a 512 square", "to a 640 px
// square".
func squareSaid(toks []token) bool {
	if toSquare(toks) {
		return true
	}
	for k, t := range toks {
		if t.kind != tWord || t.text != "square" && t.text != "squares" || k < 2 {
			continue
		}
		j := k - 1
		if toks[j].kind == tWord && units[toks[j].text] == "px" {
			j--
		}
		if j < 1 || toks[j].kind != tNum {
			continue
		}
		j--
		if toks[j].text == "a" && j > 0 {
			j--
		}
		if toks[j].text == "to" || toks[j].text == "into" {
			return true
		}
	}
	return false
}

// hasSizeExpr says whether the words give a size: WxH, or a value of a width or height.
func hasSizeExpr(rd reading) bool {
	for _, x := range rd.exprs {
		if x.kind == size || x.param == "width" || x.param == "height" || x.param == "" && x.a.unit != "" {
			return true
		}
	}
	return false
}

// positionalOrder is the parameters a call's positional arguments fill, in order: the
// manifest's order, or, when only some parameters have albumentations' own name in
// code, those (A.RandomCrop(512, 512) is height and width, not random_crop's area).
func positionalOrder(order []string, e *vocab.Entry) []string {
	var named []string
	for _, n := range order {
		for _, al := range e.Parameters[n].Also {
			if al.Code && al.Name == n {
				named = append(named, n)
				break
			}
		}
	}
	if len(named) == 0 || len(named) == len(order) {
		return order
	}
	return named
}

// colourOfFill says whether m, one colour word after "with" (and shades: "with dark
// gray"), is the colour prev fills with, prev being in the same clause and an entry
// that fills (or has a variant that does): no transform of its own ("gray" is no
// to_gray there).
func (p *Parser) colourOfFill(toks []token, prev, m match) bool {
	if m.end != m.start+1 || len(prev.claims) != 1 || !sameClause(toks, prev.end, m.start) {
		return false
	}
	if _, ok := colourLevels[toks[m.start].text]; !ok {
		return false
	}
	j := m.start - 1
	for j > prev.end && shadeWords[toks[j].text] {
		j--
	}
	if j < prev.end || toks[j].text != "with" && toks[j].text != "w" && toks[j].text != "/" {
		return false
	}
	e, ok := p.voc.Entry(prev.claims[0])
	return ok && (fillParam(e) != "" || p.withFill(e) != nil)
}

// positionalArg reads x as the call's positional argument at place i: the parameter in
// that place, when it has albumentations' meaning under its own name; x.param stays
// empty when none takes it.
func positionalArg(voc *vocab.Vocabulary, e *vocab.Entry, x expr, i int) expr {
	order := positionalOrder(voc.ParameterOrder(e), e)
	if i >= len(order) {
		return x
	}
	n := order[i]
	for k := range e.Parameters[n].Also {
		if al := &e.Parameters[n].Also[k]; al.Code && al.Name == n {
			x = reads(x, al, e.Parameters[n], true)
			x.param, x.params = n, []string{n}
			break
		}
	}
	// Else the parameter's albumentations name that says how its value reads
	// (RGBShift(15, 15, 15): r_shift_limit, g_, b_, each ±15).
	for k := range e.Parameters[n].Also {
		if al := &e.Parameters[n].Also[k]; x.param == "" && (al.As == "limit" || al.As == "limit_fraction" || al.As == "turn_fraction" || al.As == "variance_255" || al.As == "kernel_limit") {
			x = reads(x, al, e.Parameters[n], true)
			x.param, x.params = n, []string{n}
		}
	}
	return x
}

// listedArgs counts the numbers listed from k in prose: unsigned, with no unit, each
// after a slash ("0.4/0.4/0.4/0.1") or, inside brackets, a comma ("(0.4, 0.4, 0.4,
// 0.1)", which the tokenizer joins with "to"). 0 when k starts no such list, or ok is
// false.
func listedArgs(seg []token, k int, t token, ok bool) int {
	if !ok || t.kind != tNum || t.signed || k > 0 && (seg[k-1].kind == tNum || seg[k-1].text == "/" || seg[k-1].text == "to") {
		return 0
	}
	n := 0
	for j := k; j < len(seg) && seg[j].kind == tNum && !seg[j].signed && !seg[j].code; j += 2 {
		n++
		if j+1 < len(seg) && seg[j+1].kind == tNum {
			return 0
		}
		if j+1 >= len(seg) || !(seg[j+1].text == "/" || seg[j+1].text == "to" && seg[j].depth > 0 && seg[j+1].depth > 0) {
			break
		}
	}
	return n
}

// fullByDefault says whether every parameter of e is darkroom's own amount (no
// albumentations name) that defaults to its full effect (its maximum): a blend of a
// transform that in albumentations takes no value (ToSepia, Equalize).
func fullByDefault(e *vocab.Entry, order []string) bool {
	if len(order) == 0 {
		return false
	}
	for _, n := range order {
		prm := e.Parameters[n]
		if len(prm.Also) > 0 || prm.Default != prm.Max || prm.Unit != "amount" {
			return false
		}
	}
	return true
}

// axisWords are the words that say one axis: x for horizontal, y for vertical.
var axisWords = map[string]string{"horizontal": "x", "horizontally": "x", "vertical": "y", "vertically": "y"}

// axisOf says which axis ("x" or "y") the words choose of a parameter the phrase names
// on both (affine's "shear" is shear_x and shear_y), when they say one and only one
// and no parameter of e takes the word as its name; "" otherwise.
func axisOf(e *vocab.Entry, seg, phrase []token, voc *vocab.Vocabulary) string {
	axis := ""
	for _, t := range append(append([]token(nil), phrase...), seg...) {
		a := axisWords[t.text]
		if a == "" || t.code {
			continue
		}
		if axis != "" && axis != a {
			return ""
		}
		axis = a
	}
	if axis == "" {
		return ""
	}
	for k := range seg {
		if axisWords[seg[k].text] != "" && paramsAt(voc, e, seg, k).width > 0 {
			return ""
		}
	}
	pn := paramsAt(voc, e, phrase, 0)
	if len(phrase) == 0 || pn.width != len(phrase) {
		return ""
	}
	x, y := false, false
	for _, n := range pn.params {
		x = x || strings.HasSuffix(n, "_x")
		y = y || strings.HasSuffix(n, "_y")
	}
	if !x || !y {
		return ""
	}
	return axis
}

// padMargin finds a margin in pixels on every side ("16 px each side", "by 32 px",
// "32 px on all sides", "a 16 px border") for an entry that pads to a size that may
// pass the image's (pad_if_needed's width and height): it returns the words without
// it and the margin, or seg and 0.
func padMargin(e *vocab.Entry, seg []token) ([]token, float64) {
	w, okW := e.Parameters["width"]
	h, okH := e.Parameters["height"]
	if !okW || !okH || w.Unit != "fraction" || w.Max <= 1 || h.Max <= 1 {
		return seg, 0
	}
	word := func(k int) string {
		if k >= 0 && k < len(seg) && seg[k].kind == tWord && !seg[k].code {
			return seg[k].text
		}
		return ""
	}
	for k, t := range seg {
		if t.kind != tNum || t.code || t.signed || t.num <= 0 {
			continue
		}
		end := k + 1
		if word(end) == "px" || word(end) == "pixels" || word(end) == "pixel" {
			end++
		}
		after := end
		for word(after) == "on" || word(after) == "each" || word(after) == "every" || word(after) == "all" || word(after) == "per" || word(after) == "of" || word(after) == "padding" {
			after++
		}
		side := word(after) == "side" || word(after) == "sides" || word(after) == "around" || word(after) == "border" || word(after) == "margin"
		if side && after > end || word(after) == "border" || word(after) == "margin" || word(after) == "around" {
			end = after + 1
		} else if word(k-1) == "by" && end > k+1 || word(k-1) == "by" && end == len(seg) {
			// "pad by 16 px", "reflect-pad by 32".
			k--
		} else {
			continue
		}
		out := append(append([]token(nil), seg[:k]...), seg[end:]...)
		return out, t.num
	}
	return seg, 0
}

// freeFor says a parameter of e no value has reached yet takes the unit u.
func freeFor(e *vocab.Entry, order []string, assigned map[string]bool, u string) bool {
	for _, n := range order {
		if !assigned[n] && compatible(u, e.Parameters[n]) {
			return true
		}
	}
	return false
}

// switchParam says whether prm is a switch: a whole number that is 0 (off) or 1 (on),
// as albumentations' elementwise and per_channel are.
func switchParam(prm *vocab.Parameter) bool {
	return prm != nil && prm.Type == "integer" && prm.Min == 0 && prm.Max == 1
}
