package compat

import (
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// The differ compares contracts on a model of each CUE value: the JSON values it
// accepts, as alternatives of one kind each, with their fields, bounds, patterns and
// defaults. The model is read from the value's structure (Expr, Fields, references),
// never from cue.Value.Subsume, which on v0.17.1 misjudges list element types,
// open→closed structs, regex widening and defaults. What the model cannot read (a
// custom validator, a rule computed from the value itself) is kept as written, so the
// differ can still tell "identical" from "changed, needs review".

// shape is the set of JSON values a CUE value accepts, and its default.
type shape struct {
	alts   []*alt
	def    string // canonical JSON of the default
	hasDef bool
}

type altKind uint8

const (
	kAny altKind = iota // any JSON value (CUE's top, _)
	kNull
	kBool
	kString
	kNumber
	kObject
	kArray
	kOpaque // something the differ cannot take apart; text is what it compares
)

// bound is one end of a range: a number's value, a string's length in runes, or a
// list's number of items.
type bound struct {
	v    float64
	excl bool
}

// alt is one alternative of a shape: every value of it has the same JSON kind.
type alt struct {
	kind altKind
	ref  string // the definition it was written as (#Ellipse); for matching arms

	// consts is the finite set of values (canonical JSON) of a scalar alternative;
	// nil when the kind is constrained otherwise.
	consts []string

	integer               bool   // numbers: integers only
	lo, hi                *bound // numbers: value; strings: length in runes; arrays: items
	patterns, notPatterns []string
	notEqual              []string // canonical JSON

	// objects
	fields  map[string]*field
	pfields []*patField
	closed  bool
	// rules are the comprehensions the object embeds (if a != _|_ {...}), as
	// written: constraints that depend on data, which the model cannot compare.
	rules []string

	// arrays
	prefix []*shape
	rest   *shape // nil for a closed list
	unique bool

	validators []string // calls the differ does not interpret, as written
	text       string   // kOpaque: the value as written
}

type field struct {
	required bool // must be present: `!`, or a regular field CUE cannot fill
	shape    *shape
}

// patField constrains every key that matches pattern ("" matches any key).
type patField struct {
	pattern string
	custom  bool // pattern is not a regular expression the differ reads; it is the written form
	shape   *shape
}

// maxShapeDepth bounds the walk; the contracts nest a few levels deep.
const maxShapeDepth = 48

func shapeOf(v cue.Value, depth int) *shape {
	s := &shape{}
	if contract.HasDefault(v) {
		if d, ok := v.Default(); ok {
			if j, err := canonicalJSON(d); err == nil {
				s.def, s.hasDef = j, true
			}
		}
	}
	s.alts = normalize(altsOf(v, depth, ""))
	return s
}

func altsOf(v cue.Value, depth int, ref string) []*alt {
	if depth > maxShapeDepth {
		return []*alt{opaque(v, ref)}
	}
	kind := v.IncompleteKind()
	op, args := v.Expr()
	// The arms of a disjunction are read before asking whether it is concrete: CUE
	// v0.17.1 judges an open list's validators on the empty list, so
	// [...] & list.MinItems(1) | null evaluates to null alone, and its list arm
	// would be lost.
	if v.IsConcrete() && kind&(cue.StructKind|cue.ListKind) == 0 && op != cue.OrOp {
		return []*alt{constAlt(v, ref)}
	}
	switch op {
	case cue.OrOp:
		var out []*alt
		for _, a := range args {
			for _, x := range altsOf(a, depth+1, "") {
				// An enum written as a definition (#ErrorCode: or(_codes)) keeps
				// its name, so a rule elsewhere can own it.
				if x.consts != nil && x.ref == "" {
					x.ref = ref
				}
				out = append(out, x)
			}
		}
		return out
	case cue.SelectorOp, cue.NoOp:
		if r, name, ok := resolve(v); ok {
			return altsOf(r, depth+1, name)
		}
		if op == cue.NoOp && len(args) == 1 {
			// A disjunction whose default arm another arm subsumes (*10 | int & <=100)
			// is reported as NoOp with the remaining arm as its argument.
			if aop, _ := args[0].Expr(); aop != cue.NoOp {
				return altsOf(args[0], depth+1, ref)
			}
		}
		if op == cue.SelectorOp {
			// A reference through a comprehension variable (a.#value) has no path
			// to look up; its evaluated value still has the structure.
			if e := v.Eval(); e.Exists() {
				if eop, _ := e.Expr(); eop != cue.SelectorOp {
					return altsOf(e, depth+1, ref)
				}
			}
		}
		if e, ok := letValue(v); ok {
			return altsOf(e, depth+1, ref)
		}
	}
	switch {
	case kind == cue.StructKind, op == cue.CallOp && len(args) > 0 && fmt.Sprint(args[0]) == "close":
		return []*alt{objectAlt(v, depth, ref)}
	case kind == cue.ListKind:
		return []*alt{arrayAlt(v, depth, ref)}
	case kind == cue.BottomKind:
		// A struct whose comprehensions need data (#Entry) evaluates to an
		// incomplete error but still lists its fields; so does a list whose
		// validator rejects the empty list.
		// The list test comes first: Fields does not fail on a list whose
		// validators reject the empty list ([...] & list.MinItems(1) &
		// list.MaxItems(32)), which would read as an object keyed 0, 1, ...
		for _, c := range conjuncts(v, depth) {
			if c.IncompleteKind() == cue.ListKind {
				return []*alt{arrayAlt(v, depth, ref)}
			}
		}
		if _, err := v.Fields(cue.Optional(true)); err == nil {
			return []*alt{objectAlt(v, depth, ref)}
		}
		return []*alt{opaque(v, ref)}
	}
	if op == cue.NoOp || op == cue.SelectorOp {
		return kindAlts(kind, ref)
	}
	return conjunction(v, depth, ref)
}

// resolve follows a reference (#Layer, _feather) to the value it names.
func resolve(v cue.Value) (cue.Value, string, bool) {
	pkg, p := v.ReferencePath()
	if !pkg.Exists() || p.Err() != nil || len(p.Selectors()) == 0 {
		return cue.Value{}, "", false
	}
	r := pkg.LookupPath(p)
	if !r.Exists() {
		return cue.Value{}, "", false
	}
	sels := p.Selectors()
	return r, sels[len(sels)-1].String(), true
}

// conjuncts flattens a conjunction (a & b & c) and follows references to
// conjunctions, so every bound, pattern and validator is seen.
func conjuncts(v cue.Value, depth int) []cue.Value {
	if depth > maxShapeDepth {
		return []cue.Value{v}
	}
	op, args := v.Expr()
	switch op {
	case cue.AndOp:
		var out []cue.Value
		for _, a := range args {
			out = append(out, conjuncts(a, depth+1)...)
		}
		return out
	case cue.SelectorOp, cue.NoOp:
		if r, _, ok := resolve(v); ok {
			if rop, _ := r.Expr(); rop == cue.AndOp {
				return conjuncts(r, depth+1)
			}
		}
		if op == cue.NoOp && len(args) == 1 {
			if aop, _ := args[0].Expr(); aop == cue.AndOp {
				return conjuncts(args[0], depth+1)
			}
		}
		if e, ok := letValue(v); ok {
			return conjuncts(e, depth+1)
		}
	}
	return []cue.Value{v}
}

// letValue follows a reference to a let (let max = 10; <=max, or let L = int & <=10;
// v: L). Such a reference has no path to look up and Expr only repeats it, so every
// bound behind it would be lost; its evaluated value has the structure. ok is false
// for anything else, and for a value whose evaluation reads no differently.
func letValue(v cue.Value) (cue.Value, bool) {
	if k := v.IncompleteKind(); k&(cue.StructKind|cue.ListKind) != 0 && k != cue.ListKind {
		return cue.Value{}, false
	}
	e := v.Eval()
	if !e.Exists() {
		return cue.Value{}, false
	}
	op, args := e.Expr()
	if op == cue.NoOp && len(args) == 1 {
		// A default beside it (*5 | L) leaves the let's value as the one argument.
		e = args[0]
		op, _ = e.Expr()
	}
	switch op {
	case cue.NoOp, cue.SelectorOp:
		return cue.Value{}, false
	}
	return e, true
}

func constAlt(v cue.Value, ref string) *alt {
	if v.IsNull() {
		return &alt{kind: kNull, ref: ref}
	}
	j, err := canonicalJSON(v)
	if err != nil {
		return opaque(v, ref)
	}
	a := &alt{ref: ref, consts: []string{j}}
	switch v.Kind() {
	case cue.BoolKind:
		a.kind = kBool
	case cue.StringKind:
		a.kind = kString
	case cue.IntKind:
		a.kind, a.integer = kNumber, true
	case cue.FloatKind, cue.NumberKind:
		a.kind = kNumber
	default:
		return opaque(v, ref)
	}
	return a
}

// kindAlts is a value constrained only by its kind (string, int, bool | null, _).
func kindAlts(k cue.Kind, ref string) []*alt {
	if k == cue.TopKind {
		return []*alt{{kind: kAny, ref: ref}}
	}
	var out []*alt
	if k&cue.NullKind != 0 {
		out = append(out, &alt{kind: kNull, ref: ref})
	}
	if k&cue.BoolKind != 0 {
		out = append(out, &alt{kind: kBool, ref: ref})
	}
	if k&cue.StringKind != 0 {
		out = append(out, &alt{kind: kString, ref: ref})
	}
	if k&cue.NumberKind != 0 {
		out = append(out, &alt{kind: kNumber, integer: k&cue.FloatKind == 0, ref: ref})
	}
	if k&cue.StructKind != 0 {
		out = append(out, &alt{kind: kObject, ref: ref, fields: map[string]*field{}})
	}
	if k&cue.ListKind != 0 {
		out = append(out, &alt{kind: kArray, ref: ref, rest: &shape{alts: []*alt{{kind: kAny}}}})
	}
	if len(out) == 0 {
		return []*alt{{kind: kOpaque, ref: ref, text: k.String()}}
	}
	return out
}

// conjunction builds one scalar alternative from a value's conjuncts: its kind,
// bounds, patterns and validators.
func conjunction(v cue.Value, depth int, ref string) []*alt {
	k := v.IncompleteKind()
	var a *alt
	switch {
	case k == cue.StringKind:
		a = &alt{kind: kString}
	case k&cue.NumberKind != 0 && k&^cue.NumberKind == 0:
		a = &alt{kind: kNumber, integer: k == cue.IntKind}
	case k == cue.BoolKind:
		a = &alt{kind: kBool}
	default:
		return []*alt{opaque(v, ref)}
	}
	a.ref = ref
	var consts []string
	for _, c := range conjuncts(v, depth) {
		op, args := c.Expr()
		switch op {
		case cue.GreaterThanEqualOp, cue.GreaterThanOp, cue.LessThanEqualOp, cue.LessThanOp:
			if len(args) != 1 || a.kind != kNumber {
				a.validators = append(a.validators, writtenForm(c))
				continue
			}
			f, err := args[0].Float64()
			if err != nil {
				a.validators = append(a.validators, writtenForm(c))
				continue
			}
			b := &bound{v: f, excl: op == cue.GreaterThanOp || op == cue.LessThanOp}
			if op == cue.GreaterThanEqualOp || op == cue.GreaterThanOp {
				a.lo = tighterLo(a.lo, b)
			} else {
				a.hi = tighterHi(a.hi, b)
			}
		case cue.RegexMatchOp, cue.NotRegexMatchOp:
			if len(args) != 1 {
				a.validators = append(a.validators, writtenForm(c))
				continue
			}
			re, err := args[0].String()
			if err != nil {
				a.validators = append(a.validators, writtenForm(c))
				continue
			}
			if op == cue.RegexMatchOp {
				a.patterns = appendUnique(a.patterns, re)
			} else {
				a.notPatterns = appendUnique(a.notPatterns, re)
			}
		case cue.NotEqualOp:
			if len(args) != 1 || !args[0].IsConcrete() {
				a.validators = append(a.validators, writtenForm(c))
				continue
			}
			if s, err := args[0].String(); err == nil && s == "" && a.kind == kString {
				a.lo = tighterLo(a.lo, &bound{v: 1})
				continue
			}
			if j, err := canonicalJSON(args[0]); err == nil {
				a.notEqual = appendUnique(a.notEqual, j)
			}
		case cue.CallOp:
			if !applyStringCall(a, args) {
				a.validators = append(a.validators, writtenForm(c))
			}
		default:
			if c.IsConcrete() {
				if j, err := canonicalJSON(c); err == nil {
					consts = intersectConsts(consts, []string{j})
				}
				continue
			}
			sub := normalize(altsOf(c, depth+1, ""))
			switch {
			case len(sub) == 1 && sub[0].consts != nil:
				consts = intersectConsts(consts, sub[0].consts)
			case len(sub) == 1 && sub[0].kind == a.kind:
				meet(a, sub[0])
			case len(sub) == 1 && sub[0].kind == kAny:
			case allConsts(sub):
				var all []string
				for _, s := range sub {
					all = append(all, s.consts...)
				}
				consts = intersectConsts(consts, all)
			default:
				return []*alt{opaque(v, ref)}
			}
		}
	}
	if consts != nil {
		// An enum narrowed by a bound or a pattern: the values that pass.
		c := &alt{kind: a.kind, ref: ref, integer: a.integer}
		for _, j := range consts {
			if ok, known := a.accepts(j); ok || !known {
				c.consts = append(c.consts, j)
			}
		}
		c.validators = a.validators
		return []*alt{c}
	}
	if a.integer {
		a.lo, a.hi = integerLo(a.lo), integerHi(a.hi)
	}
	return []*alt{a}
}

// applyStringCall reads the length validators of strings.
func applyStringCall(a *alt, args []cue.Value) bool {
	if len(args) != 2 || a.kind != kString {
		return false
	}
	n, err := args[1].Int64()
	if err != nil {
		return false
	}
	switch fmt.Sprint(args[0]) {
	case "strings.MinRunes":
		a.lo = tighterLo(a.lo, &bound{v: float64(n)})
	case "strings.MaxRunes":
		a.hi = tighterHi(a.hi, &bound{v: float64(n)})
	default:
		return false
	}
	return true
}

// meet adds b's constraints to a (both of one kind).
func meet(a, b *alt) {
	a.integer = a.integer || b.integer
	if b.lo != nil {
		a.lo = tighterLo(a.lo, b.lo)
	}
	if b.hi != nil {
		a.hi = tighterHi(a.hi, b.hi)
	}
	for _, p := range b.patterns {
		a.patterns = appendUnique(a.patterns, p)
	}
	for _, p := range b.notPatterns {
		a.notPatterns = appendUnique(a.notPatterns, p)
	}
	for _, p := range b.notEqual {
		a.notEqual = appendUnique(a.notEqual, p)
	}
	a.validators = append(a.validators, b.validators...)
}

func objectAlt(v cue.Value, depth int, ref string) *alt {
	a := &alt{kind: kObject, ref: ref, fields: map[string]*field{}}
	it, err := v.Fields(cue.Optional(true), cue.Patterns(true))
	if err != nil {
		return opaque(v, ref)
	}
	for it.Next() {
		sel, fv := it.Selector(), it.Value()
		switch sel.ConstraintType() {
		case cue.PatternConstraint:
			pf := &patField{shape: shapeOf(fv, depth+1)}
			re, ok := contract.PatternRegexp(sel.Pattern())
			if ok {
				pf.pattern = re
			} else {
				pf.pattern, pf.custom = writtenForm(sel.Pattern()), true
			}
			a.pfields = append(a.pfields, pf)
			continue
		case cue.RequiredConstraint:
			a.fields[sel.Unquoted()] = &field{required: true, shape: shapeOf(fv, depth+1)}
		case cue.OptionalConstraint:
			a.fields[sel.Unquoted()] = &field{shape: shapeOf(fv, depth+1)}
		default:
			// A regular field may be left out when CUE can fill it: it has a
			// default, or it is a struct or list that is complete without data.
			d, _ := fv.Default()
			a.fields[sel.Unquoted()] = &field{required: d.Validate(cue.Concrete(true)) != nil, shape: shapeOf(fv, depth+1)}
		}
	}
	a.closed = closedBeyond(v, a.pfields)
	a.rules = comprehensions(v, depth, a.fields, v.Err() != nil)
	return a
}

// readsField reports whether a comprehension's clauses name one of the fields.
func readsField(c *ast.Comprehension, fields map[string]*field) bool {
	found := false
	for _, cl := range c.Clauses {
		ast.Walk(cl, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && fields[id.Name] != nil {
				found = true
			}
			return !found
		}, nil)
	}
	return found
}

// closedBeyond reports whether v rejects a key that neither a field nor a pattern
// names. A pattern that matches every key leaves no such key; the object then counts
// as closed, so that only the pattern's own changes are reported.
func closedBeyond(v cue.Value, pfields []*patField) bool {
	for _, p := range pfields {
		if p.custom || p.pattern == "" {
			return true
		}
	}
	probe := cue.MakePath(cue.Str(diffProbe))
	if v.FillPath(probe, 1).LookupPath(probe).Err() != nil {
		return true
	}
	if v.Err() == nil {
		return false
	}
	// A struct that cannot be evaluated without data (#Entry, whose rules range
	// over its operations) accepts any probe, closed or not. Read it as written:
	// a definition, or a struct inside one, is closed unless it says "...".
	return inDefinition(v) && !hasEllipsis(v, 0)
}

// inDefinition reports whether v is a definition or lies inside one.
func inDefinition(v cue.Value) bool {
	for _, sel := range v.Path().Selectors() {
		if sel.IsDefinition() {
			return true
		}
	}
	_, p := v.ReferencePath()
	for _, sel := range p.Selectors() {
		if sel.IsDefinition() {
			return true
		}
	}
	return false
}

// hasEllipsis reports whether one of the struct literals v is made of ends with
// "...", following conjunctions and references as comprehensions does.
func hasEllipsis(v cue.Value, depth int) bool {
	found := false
	eachTopDecl(v, depth, func(d ast.Decl) bool {
		switch d := d.(type) {
		case *ast.Ellipsis:
			found = true
		case *ast.EmbedDecl:
			_, found = d.Expr.(*ast.Ellipsis)
		}
		return !found
	})
	return found
}

// eachTopDecl calls f with each declaration at the top level of the struct
// literals v is made of, following conjunctions (a & b) and references, until f
// returns false.
func eachTopDecl(v cue.Value, depth int, f func(ast.Decl) bool) bool {
	if depth > maxShapeDepth {
		return true
	}
	op, args := v.Expr()
	switch op {
	case cue.AndOp:
		for _, a := range args {
			if !eachTopDecl(a, depth+1, f) {
				return false
			}
		}
		return true
	case cue.SelectorOp:
		if r, _, ok := resolve(v); ok {
			return eachTopDecl(r, depth+1, f)
		}
		return true
	}
	var decls []ast.Decl
	switch n := v.Syntax(cue.Raw()).(type) {
	case *ast.StructLit:
		decls = n.Elts
	case *ast.File:
		// A struct that needs an import (list.MaxItems in one of its fields) is
		// printed as a file.
		decls = n.Decls
	}
	for _, d := range decls {
		if !f(d) {
			return false
		}
	}
	return true
}

// diffProbe is a key no pattern of the contracts matches (they are snake_case).
const diffProbe = " darkroom differ probe "

// comprehensions returns, as written, the comprehensions a struct embeds at its top
// level that are rules over its own values: their clauses read one of its fields (if
// type == "integer" {...}), or the struct cannot be evaluated without data. A
// comprehension that only generates fields from elsewhere (#OperationArgs from the
// catalog) is not a rule: the fields it generates are compared one by one.
func comprehensions(v cue.Value, depth int, fields map[string]*field, incomplete bool) []string {
	var out []string
	eachTopDecl(v, depth, func(d ast.Decl) bool {
		if c, ok := d.(*ast.Comprehension); ok && (incomplete || readsField(c, fields)) {
			out = appendUnique(out, nodeText(&ast.StructLit{Elts: []ast.Decl{c}}))
		}
		return true
	})
	slices.Sort(out)
	return out
}

func arrayAlt(v cue.Value, depth int, ref string) *alt {
	a := &alt{kind: kArray, ref: ref}
	lit := v
	if v.IncompleteKind() != cue.ListKind {
		for _, c := range conjuncts(v, depth) {
			if c.IncompleteKind() == cue.ListKind {
				lit = c
				break
			}
		}
	}
	n := 0
	for ; n < 1024; n++ {
		e := lit.LookupPath(cue.MakePath(cue.Index(n)))
		if !e.Exists() {
			break
		}
		a.prefix = append(a.prefix, shapeOf(e, depth+1))
	}
	if rest := lit.LookupPath(cue.MakePath(cue.AnyIndex)); rest.Exists() {
		a.rest = shapeOf(rest, depth+1)
		if n > 0 {
			a.lo = &bound{v: float64(n)}
		}
	} else {
		a.lo, a.hi = &bound{v: float64(n)}, &bound{v: float64(n)}
	}
	for _, c := range conjuncts(v, depth) {
		op, args := c.Expr()
		if op != cue.CallOp || len(args) == 0 {
			continue
		}
		// A validator without arguments prints with its parentheses.
		fn := strings.TrimSuffix(fmt.Sprint(args[0]), "()")
		var n int64
		var err error
		if len(args) == 2 {
			n, err = args[1].Int64()
		}
		switch {
		case fn == "list.MaxItems" && len(args) == 2 && err == nil:
			a.hi = tighterHi(a.hi, &bound{v: float64(n)})
		case fn == "list.MinItems" && len(args) == 2 && err == nil:
			a.lo = tighterLo(a.lo, &bound{v: float64(n)})
		case fn == "list.UniqueItems" && len(args) == 1:
			a.unique = true
		default:
			a.validators = append(a.validators, writtenForm(c))
		}
	}
	if a.lo != nil && a.lo.v == 0 {
		a.lo = nil
	}
	return a
}

func opaque(v cue.Value, ref string) *alt {
	return &alt{kind: kOpaque, ref: ref, text: writtenForm(v)}
}

// writtenForm is a value as its CUE source reads, on one line.
func writtenForm(v cue.Value) string {
	return nodeText(v.Syntax(cue.Raw()))
}

func nodeText(n ast.Node) (text string) {
	// The formatter panics on some nodes it cannot print on their own.
	defer func() {
		if recover() != nil {
			text = fmt.Sprintf("%T", n)
		}
	}()
	b, err := format.Node(n)
	if err != nil {
		return fmt.Sprint(n)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.Index(l, " // "); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "import ") && !strings.HasPrefix(l, "//") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}
