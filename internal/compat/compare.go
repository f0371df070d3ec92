package compat

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// polarity says which way a schema is read. Inputs (params, #Manifest, the operation
// catalog) are checked contravariantly: the new schema must accept every value the
// old one accepted. Outputs (data, the result envelope) covariantly: every new value
// must still satisfy what a reader of the old schema expects. A reader ignores keys it
// does not know, so on outputs an added field and a change of closedness are
// compatible.
type polarity uint8

const (
	input polarity = iota
	output
)

// change is one structural difference, named without polarity; changeRules gives
// its verdict and rule for each.
type change uint8

const (
	chFieldAddedRequired change = iota
	chFieldAddedOptional
	chFieldRemoved
	chOptionalToRequired
	chRequiredToOptional
	chNarrowedType
	chWidenedType
	chTightenedBound
	chWidenedBound
	chRemovedEnum
	chAddedEnum
	chChangedDefault
	chAddedDefault
	chRemovedDefault
	chClosed
	chOpened
	chChangedPattern
	chChangedValidator
)

// changeRules is the rule table of issue 4. {noun} is "param" for a tool's params
// and "field" elsewhere.
var changeRules = map[change]struct {
	in, out         Verdict
	inRule, outRule string
}{
	chFieldAddedRequired: {Breaking, Additive, "new required {noun}", "added field"},
	chFieldAddedOptional: {Additive, Additive, "new optional {noun}", "added field"},
	chFieldRemoved:       {Breaking, Breaking, "removed {noun}", "removed field"},
	chOptionalToRequired: {Breaking, Additive, "optional → required", "optional → required"},
	chRequiredToOptional: {Additive, Breaking, "required → optional", "required → optional"},
	chNarrowedType:       {Breaking, Additive, "narrowed type", "narrowed type"},
	chWidenedType:        {Additive, Breaking, "widened type", "widened type"},
	chTightenedBound:     {Breaking, Additive, "tightened bound", "narrowed bound"},
	chWidenedBound:       {Additive, Breaking, "widened bound", "widened bound"},
	chRemovedEnum:        {Breaking, Additive, "removed enum value", "removed enum value"},
	chAddedEnum:          {Additive, Breaking, "added enum value", "added enum value"},
	chChangedDefault:     {Breaking, Breaking, "changed default", "changed default"},
	chAddedDefault:       {Additive, Additive, "added default", "added default"},
	chRemovedDefault:     {Breaking, Breaking, "removed default", "removed default"},
	chClosed:             {Breaking, Additive, "closed object", "closed object"},
	chOpened:             {Additive, Additive, "opened object", "opened object"},
	chChangedPattern:     {NeedsReview, NeedsReview, "changed regular expression", "changed regular expression"},
	chChangedValidator:   {NeedsReview, NeedsReview, "changed custom validator", "changed custom validator"},
}

// comparer walks two shapes and records findings.
type comparer struct {
	pol      polarity
	tool     string
	noun     string
	skip     map[string]bool // paths another rule covers (the error code enum)
	findings []Finding
}

// ownedEnums are the enums another rule decides wherever they appear: the error
// codes (compareErrorCodes), which get_contract lists and every error carries. A
// code added is additive there too: a client of the closed enum reads a code it does
// not know by the recoverable flag and message every error carries, and a client
// that reads get_contract's list is the one written to learn new codes from it. A
// code removed is breaking by the same rule.
var ownedEnums = map[string]bool{"#ErrorCode": true}

func (c *comparer) add(path string, ch change, old, new string) {
	if c.skip[path] {
		return
	}
	r := changeRules[ch]
	f := Finding{Tool: c.tool, Path: path, Old: old, New: new, Verdict: r.in, Rule: r.inRule}
	if c.pol == output {
		f.Verdict, f.Rule = r.out, r.outRule
	}
	f.Rule = strings.ReplaceAll(f.Rule, "{noun}", c.noun)
	c.findings = append(c.findings, f)
}

// shapes compares the values at path. nowRequired says the field became required,
// which already explains a default that went away.
func (c *comparer) shapes(path string, o, n *shape, nowRequired bool) {
	if c.skip[path] || o.key() == n.key() {
		return
	}
	c.values(path, o, n)
	switch {
	case o.hasDef && n.hasDef && o.def != n.def:
		c.add(path, chChangedDefault, "default "+o.def, "default "+n.def)
	case !o.hasDef && n.hasDef:
		c.add(path, chAddedDefault, "no default", "default "+n.def)
	case o.hasDef && !n.hasDef && !nowRequired:
		c.add(path, chRemovedDefault, "default "+o.def, "no default")
	}
}

func (c *comparer) values(path string, o, n *shape) {
	if altListKey(o.alts) == altListKey(n.alts) {
		return
	}
	od, nd := describeAlts(o.alts), describeAlts(n.alts)
	if hasKind(o.alts, kOpaque) || hasKind(n.alts, kOpaque) {
		c.add(path, chChangedValidator, od, nd)
		return
	}
	oAny, nAny := hasKind(o.alts, kAny), hasKind(n.alts, kAny)
	switch {
	case oAny && nAny:
		return
	case oAny:
		c.add(path, chNarrowedType, od, nd)
		return
	case nAny:
		c.add(path, chWidenedType, od, nd)
		return
	}
	lost, gained := false, false
	for _, k := range []altKind{kNull, kBool, kString, kNumber, kObject, kArray} {
		ho, hn := hasKind(o.alts, k), hasKind(n.alts, k)
		lost = lost || ho && !hn
		gained = gained || hn && !ho
	}
	if lost {
		c.add(path, chNarrowedType, od, nd)
	}
	if gained {
		c.add(path, chWidenedType, od, nd)
	}
	for _, k := range []altKind{kBool, kString, kNumber, kObject, kArray} {
		oa, na := altsOfKind(o.alts, k), altsOfKind(n.alts, k)
		if len(oa) == 0 || len(na) == 0 {
			continue
		}
		switch k {
		case kObject:
			c.objects(path, oa, na, od, nd)
		case kArray:
			c.arrays(path, oa, na, od, nd)
		default:
			c.scalars(path, oa, na, od, nd)
		}
	}
}

// scalars compares the alternatives of one scalar kind: an enum and at most one
// constrained alternative on each side. od and nd describe the whole values.
func (c *comparer) scalars(path string, oa, na []*alt, od, nd string) {
	oEnum, oCons := splitConsts(oa)
	nEnum, nCons := splitConsts(na)
	if len(oCons) > 1 || len(nCons) > 1 {
		if altListKey(oa) != altListKey(na) {
			c.add(path, chChangedValidator, od, nd)
		}
		return
	}
	var oc, nc *alt
	if len(oCons) == 1 {
		oc = oCons[0]
	}
	if len(nCons) == 1 {
		nc = nCons[0]
	}
	switch {
	case oc != nil && nc != nil:
		c.constraints(path, oc, nc, od, nd)
	case oc != nil:
		c.add(path, chNarrowedType, od, nd)
	case nc != nil:
		c.add(path, chWidenedType, od, nd)
	}
	if oEnum != nil && nEnum != nil && oEnum.ref == nEnum.ref && ownedEnums[oEnum.ref] && oc == nil && nc == nil {
		return
	}
	removed, unknownR := notCovered(oEnum, nEnum, nc)
	added, unknownA := notCovered(nEnum, oEnum, oc)
	if len(removed)+len(added) > 0 && utf8.RuneCountInString(od+nd) > 160 {
		// A long enum reads better as what changed.
		od, nd = enumSummary(oEnum, nil, nil), enumSummary(nEnum, added, removed)
	}
	if len(removed) > 0 {
		c.add(path, chRemovedEnum, od, nd)
	}
	if len(added) > 0 {
		c.add(path, chAddedEnum, od, nd)
	}
	if unknownR || unknownA {
		c.add(path, chChangedValidator, od, nd)
	}
}

func enumSummary(enum *alt, added, removed []string) string {
	n := 0
	if enum != nil {
		n = len(enum.consts)
	}
	d := fmt.Sprintf("enum of %d values", n)
	for _, x := range []struct {
		verb string
		vals []string
	}{{"adds", added}, {"drops", removed}} {
		if len(x.vals) == 0 {
			continue
		}
		var vs []string
		for _, v := range x.vals {
			vs = append(vs, plainConst(v))
		}
		d += ", " + x.verb + " " + strings.Join(vs, "|")
	}
	return d
}

func splitConsts(alts []*alt) (enum *alt, constrained []*alt) {
	for _, a := range alts {
		if a.consts != nil && enum == nil && len(a.validators) == 0 {
			enum = a
			continue
		}
		constrained = append(constrained, a)
	}
	return enum, constrained
}

// notCovered returns the values of enum that are neither in other nor accepted by
// cons, and reports whether that could not be decided for some.
func notCovered(enum, other, cons *alt) (missing []string, unknown bool) {
	if enum == nil {
		return nil, false
	}
	for _, v := range enum.consts {
		if other != nil && slices.Contains(other.consts, v) {
			continue
		}
		if cons != nil {
			ok, known := cons.accepts(v)
			if !known {
				unknown = true
				continue
			}
			if ok {
				continue
			}
		}
		missing = append(missing, v)
	}
	return missing, unknown
}

// constraints compares two constrained alternatives of one scalar kind.
func (c *comparer) constraints(path string, o, n *alt, od, nd string) {
	if o.kind == kNumber {
		switch {
		case o.integer && !n.integer:
			c.add(path, chWidenedType, od, nd)
		case !o.integer && n.integer:
			c.add(path, chNarrowedType, od, nd)
		}
	}
	lo, hi := cmpLo(o.lo, n.lo), cmpHi(o.hi, n.hi)
	if lo > 0 || hi > 0 {
		c.add(path, chTightenedBound, od, nd)
	}
	if lo < 0 || hi < 0 {
		c.add(path, chWidenedBound, od, nd)
	}
	c.patternSet(path, o.patterns, n.patterns, od, nd)
	c.patternSet(path, o.notPatterns, n.notPatterns, od, nd)
	if !sameSet(o.notEqual, n.notEqual) {
		if !subset(o.notEqual, n.notEqual) {
			c.add(path, chWidenedType, od, nd)
		}
		if !subset(n.notEqual, o.notEqual) {
			c.add(path, chNarrowedType, od, nd)
		}
	}
	if !sameSet(o.validators, n.validators) {
		c.add(path, chChangedValidator, od, nd)
	}
}

// patternSet compares two sets of pattern constraints, =~ or !~: each rejects values,
// so one added beside the old ones narrows, one dropped widens, and a changed one
// cannot be decided.
func (c *comparer) patternSet(path string, o, n []string, od, nd string) {
	switch {
	case sameSet(o, n):
	case subset(o, n):
		c.add(path, chNarrowedType, od, nd)
	case subset(n, o):
		c.add(path, chWidenedType, od, nd)
	default:
		c.add(path, chChangedPattern, od, nd)
	}
}

// cmpLo is 1 when the new lower bound is tighter, -1 when it is looser.
func cmpLo(o, n *bound) int {
	switch {
	case o == nil && n == nil:
		return 0
	case o == nil:
		return 1
	case n == nil:
		return -1
	case n.v > o.v, n.v == o.v && n.excl && !o.excl:
		return 1
	case n.v < o.v, n.v == o.v && !n.excl && o.excl:
		return -1
	}
	return 0
}

// cmpHi is 1 when the new upper bound is tighter, -1 when it is looser.
func cmpHi(o, n *bound) int {
	switch {
	case o == nil && n == nil:
		return 0
	case o == nil:
		return 1
	case n == nil:
		return -1
	case n.v < o.v, n.v == o.v && n.excl && !o.excl:
		return 1
	case n.v > o.v, n.v == o.v && !n.excl && o.excl:
		return -1
	}
	return 0
}

// objects compares the object alternatives: one each, or the arms of a union
// matched by a discriminating field (kind: "ellipse"), else by definition name.
func (c *comparer) objects(path string, oa, na []*alt, od, nd string) {
	if len(oa) == 1 && len(na) == 1 {
		c.object(path, oa[0], na[0])
		return
	}
	label := armLabeler(append(slices.Clone(oa), na...))
	om, nm := map[string]*alt{}, map[string]*alt{}
	var order []string
	for i, a := range oa {
		l := label(a, i)
		om[l] = a
		order = append(order, l)
	}
	for i, a := range na {
		l := label(a, i)
		nm[l] = a
		if _, ok := om[l]; !ok {
			order = append(order, l)
		}
	}
	removed, added := false, false
	for _, l := range order {
		o, inO := om[l]
		n, inN := nm[l]
		switch {
		case inO && inN:
			c.object(path+"["+l+"]", o, n)
		case inO:
			removed = true
		default:
			added = true
		}
	}
	if removed {
		c.add(path, chNarrowedType, od, nd)
	}
	if added {
		c.add(path, chWidenedType, od, nd)
	}
}

// armLabeler names the arms of an object union: by the field every arm has with
// one constant value, else by definition name, else by position.
func armLabeler(arms []*alt) func(*alt, int) string {
	if d := discriminator(arms); d != "" {
		return func(a *alt, _ int) string {
			return d + "=" + plainConst(a.fields[d].shape.alts[0].consts[0])
		}
	}
	refs := map[string]bool{}
	for _, a := range arms {
		refs[a.ref] = true
	}
	return func(a *alt, i int) string {
		if a.ref != "" && !refs[""] {
			return strings.TrimPrefix(a.ref, "#")
		}
		return fmt.Sprint(i + 1)
	}
}

func discriminator(arms []*alt) string {
	var names []string
	for n := range arms[0].fields {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ok := true
		for _, a := range arms {
			f, has := a.fields[n]
			if !has || len(f.shape.alts) != 1 || len(f.shape.alts[0].consts) != 1 {
				ok = false
				break
			}
		}
		if ok {
			return n
		}
	}
	return ""
}

func (c *comparer) object(path string, o, n *alt) {
	names := make([]string, 0, len(o.fields)+len(n.fields))
	for name := range o.fields {
		names = append(names, name)
	}
	for name := range n.fields {
		if _, ok := o.fields[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		p := joinPath(path, name)
		fo, inO := o.fields[name]
		fn, inN := n.fields[name]
		switch {
		case inO && inN:
			c.field(p, fo, fn)
		case inN:
			if impl := c.implicit(o, name); impl != nil {
				c.field(p, impl, fn)
			} else if fn.required {
				c.add(p, chFieldAddedRequired, "absent", describeField(fn))
			} else {
				c.add(p, chFieldAddedOptional, "absent", describeField(fn))
			}
		default:
			if impl := patternFor(n, name); impl != nil {
				c.field(p, fo, impl)
			} else {
				c.add(p, chFieldRemoved, describeField(fo), "absent")
			}
		}
	}
	c.patterns(path, o, n)
	switch {
	case !o.closed && n.closed:
		c.add(path, chClosed, "open object (other fields allowed)", "closed object (no other fields)")
	case o.closed && !n.closed:
		c.add(path, chOpened, "closed object (no other fields)", "open object (other fields allowed)")
	}
	if !slices.Equal(o.rules, n.rules) {
		c.add(path, chChangedValidator, rulesText(o.rules), rulesText(n.rules))
	}
	if !sameSet(o.validators, n.validators) {
		c.add(path, chChangedValidator, describeAlt(o), describeAlt(n))
	}
}

// implicit is what an old object said about a key it did not declare: a pattern
// it matched, or (for inputs) any value when the object was open.
func (c *comparer) implicit(o *alt, name string) *field {
	if f := patternFor(o, name); f != nil {
		return f
	}
	if c.pol == input && !o.closed {
		return &field{shape: &shape{alts: []*alt{{kind: kAny}}}}
	}
	return nil
}

func patternFor(a *alt, name string) *field {
	for _, p := range a.pfields {
		if p.custom {
			continue
		}
		if re, err := regexp.Compile(p.pattern); err == nil && re.MatchString(name) {
			return &field{shape: p.shape}
		}
	}
	return nil
}

func (c *comparer) patterns(path string, o, n *alt) {
	key := func(p *patField) string { return fmt.Sprintf("%v %s", p.custom, p.pattern) }
	nm := map[string]*patField{}
	for _, p := range n.pfields {
		nm[key(p)] = p
	}
	single := len(o.pfields) <= 1 && len(n.pfields) <= 1
	at := func(p *patField) string {
		if single {
			return path + ".*"
		}
		return path + ".{" + p.pattern + "}"
	}
	var oOnly, nOnly []*patField
	for _, p := range o.pfields {
		if q, ok := nm[key(p)]; ok {
			c.shapes(at(p), p.shape, q.shape, false)
			delete(nm, key(p))
			continue
		}
		oOnly = append(oOnly, p)
	}
	for _, p := range n.pfields {
		if _, ok := nm[key(p)]; ok {
			nOnly = append(nOnly, p)
		}
	}
	if len(oOnly) == 1 && len(nOnly) == 1 {
		ch := chChangedPattern
		if oOnly[0].custom || nOnly[0].custom {
			ch = chChangedValidator
		}
		c.add(path+".*", ch, keysText(oOnly[0]), keysText(nOnly[0]))
		c.shapes(path+".*", oOnly[0].shape, nOnly[0].shape, false)
		return
	}
	for _, p := range oOnly {
		c.add(at(p), chFieldRemoved, keysText(p)+": "+describeShape(p.shape), "absent")
	}
	for _, p := range nOnly {
		c.add(at(p), chFieldAddedOptional, "absent", keysText(p)+": "+describeShape(p.shape))
	}
}

func (c *comparer) field(path string, fo, fn *field) {
	switch {
	case fo.required && !fn.required:
		c.add(path, chRequiredToOptional, "required", "optional")
	case !fo.required && fn.required:
		c.add(path, chOptionalToRequired, "optional", "required")
	}
	c.shapes(path, fo.shape, fn.shape, fn.required && !fo.required)
}

func (c *comparer) arrays(path string, oa, na []*alt, od, nd string) {
	if len(oa) == 1 && len(na) == 1 {
		c.array(path, oa[0], na[0], od, nd)
		return
	}
	if altListKey(oa) != altListKey(na) {
		c.add(path, chChangedValidator, od, nd)
	}
}

func (c *comparer) array(path string, o, n *alt, od, nd string) {
	lo, hi := cmpLo(o.lo, n.lo), cmpHi(o.hi, n.hi)
	if lo > 0 || hi > 0 {
		c.add(path, chTightenedBound, od, nd)
	}
	if lo < 0 || hi < 0 {
		c.add(path, chWidenedBound, od, nd)
	}
	switch {
	case !o.unique && n.unique:
		c.add(path, chNarrowedType, od, nd)
	case o.unique && !n.unique:
		c.add(path, chWidenedType, od, nd)
	}
	for i := 0; i < max(len(o.prefix), len(n.prefix)); i++ {
		oe, ne := o.elem(i), n.elem(i)
		if oe == nil || ne == nil {
			continue // the item counts say it
		}
		// An item written like the rest on both sides is compared once, as the rest.
		if o.rest != nil && n.rest != nil && oe.key() == o.rest.key() && ne.key() == n.rest.key() {
			continue
		}
		c.shapes(fmt.Sprintf("%s[%d]", path, i), oe, ne, false)
	}
	if o.rest != nil && n.rest != nil {
		c.shapes(path+"[]", o.rest, n.rest, false)
	}
	if !sameSet(o.validators, n.validators) {
		c.add(path, chChangedValidator, od, nd)
	}
}

func (a *alt) elem(i int) *shape {
	if i < len(a.prefix) {
		return a.prefix[i]
	}
	return a.rest
}

func hasKind(alts []*alt, k altKind) bool {
	for _, a := range alts {
		if a.kind == k {
			return true
		}
	}
	return false
}

func altsOfKind(alts []*alt, k altKind) []*alt {
	var out []*alt
	for _, a := range alts {
		if a.kind == k {
			out = append(out, a)
		}
	}
	return out
}

func altListKey(alts []*alt) string {
	return (&shape{alts: alts}).key()
}

func sameSet(a, b []string) bool {
	return subset(a, b) && subset(b, a)
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

var identLabel = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// joinPath adds a key to a path: params.layer, or params["odd key"].
func joinPath(path, name string) string {
	if !identLabel.MatchString(name) {
		return fmt.Sprintf("%s[%q]", path, name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}
