package compat

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue"
)

// Operations on the alternatives of a shape: merging enums, deciding whether an
// alternative accepts a constant, combining bounds, and the canonical key two shapes
// are compared by.

// normalize merges the constant alternatives of each kind into one enum, drops
// constants that a constrained alternative of the same kind accepts anyway, and
// lets "any value" absorb everything.
func normalize(alts []*alt) []*alt {
	for _, a := range alts {
		if a.kind == kAny {
			return []*alt{{kind: kAny}}
		}
	}
	var out []*alt
	enums := map[altKind]*alt{}
	seen := map[string]bool{}
	for _, a := range alts {
		switch {
		case a.kind == kNull:
			if seen["null"] {
				continue
			}
			seen["null"] = true
			out = append(out, a)
		case a.consts != nil && len(a.validators) == 0:
			e, ok := enums[a.kind]
			if !ok {
				e = &alt{kind: a.kind, integer: a.kind == kNumber, ref: a.ref}
				enums[a.kind] = e
				out = append(out, e)
			}
			for _, c := range a.consts {
				e.consts = appendUnique(e.consts, c)
				if a.kind == kNumber && !isIntegral(c) {
					e.integer = false
				}
			}
			if e.ref != a.ref {
				e.ref = ""
			}
		default:
			k := a.key()
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, a)
		}
	}
	// Drop constants that a constrained alternative accepts.
	var final []*alt
	for _, a := range out {
		if a.consts != nil && len(a.validators) == 0 {
			var keep []string
			for _, c := range a.consts {
				covered := false
				for _, b := range out {
					if b != a && b.kind == a.kind && b.consts == nil {
						if ok, known := b.accepts(c); ok && known {
							covered = true
						}
					}
				}
				if !covered {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 {
				continue
			}
			a.consts = keep
			if a.kind == kBool && len(a.consts) == 2 {
				a.consts = nil
			}
		}
		final = append(final, a)
	}
	slices.SortStableFunc(final, func(x, y *alt) int { return int(kindOrder(x.kind)) - int(kindOrder(y.kind)) })
	return final
}

// kindOrder lists numbers before strings and null last, so "integer or string" and
// "enum L1|L2 or null" read naturally.
func kindOrder(k altKind) int {
	return map[altKind]int{kAny: 0, kNumber: 1, kString: 2, kBool: 3, kObject: 4, kArray: 5, kOpaque: 6, kNull: 7}[k]
}

func allConsts(alts []*alt) bool {
	for _, a := range alts {
		if a.consts == nil {
			return false
		}
	}
	return len(alts) > 0
}

func intersectConsts(have, add []string) []string {
	if have == nil {
		return slices.Clone(add)
	}
	var out []string
	for _, h := range have {
		if slices.Contains(add, h) {
			out = append(out, h)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func compareConsts(a, b string) int {
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	if ea == nil && eb == nil {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(a, b)
}

func isIntegral(j string) bool {
	f, err := strconv.ParseFloat(j, 64)
	return err == nil && f == math.Trunc(f)
}

// accepts reports whether a constrained scalar alternative accepts a constant, and
// whether it could tell (a custom validator or a bad pattern makes it unknown).
func (a *alt) accepts(j string) (ok, known bool) {
	if a.consts != nil {
		return slices.Contains(a.consts, j), true
	}
	if slices.Contains(a.notEqual, j) {
		return false, true
	}
	known = len(a.validators) == 0
	switch a.kind {
	case kAny:
		return true, true
	case kBool:
		return j == "true" || j == "false", known
	case kNumber:
		f, err := strconv.ParseFloat(j, 64)
		if err != nil {
			return false, true
		}
		if a.integer && f != math.Trunc(f) {
			return false, true
		}
		return inRange(f, a.lo, a.hi), known
	case kString:
		var s string
		if err := json.Unmarshal([]byte(j), &s); err != nil {
			return false, true
		}
		n := float64(utf8.RuneCountInString(s))
		if !inRange(n, a.lo, a.hi) {
			return false, true
		}
		for _, p := range a.patterns {
			re, err := regexp.Compile(p)
			if err != nil {
				return false, false
			}
			if !re.MatchString(s) {
				return false, true
			}
		}
		for _, p := range a.notPatterns {
			re, err := regexp.Compile(p)
			if err != nil {
				return false, false
			}
			if re.MatchString(s) {
				return false, true
			}
		}
		return true, known
	}
	return false, false
}

func inRange(f float64, lo, hi *bound) bool {
	if lo != nil && (f < lo.v || lo.excl && f == lo.v) {
		return false
	}
	if hi != nil && (f > hi.v || hi.excl && f == hi.v) {
		return false
	}
	return true
}

func tighterLo(a, b *bound) *bound {
	if a == nil || b.v > a.v || b.v == a.v && b.excl {
		return b
	}
	return a
}

func tighterHi(a, b *bound) *bound {
	if a == nil || b.v < a.v || b.v == a.v && b.excl {
		return b
	}
	return a
}

// integerLo and integerHi write an integer's bounds inclusively: >0 is >=1.
func integerLo(b *bound) *bound {
	if b == nil {
		return nil
	}
	v := math.Ceil(b.v)
	if b.excl && v == b.v {
		v++
	}
	return &bound{v: v}
}

func integerHi(b *bound) *bound {
	if b == nil {
		return nil
	}
	v := math.Floor(b.v)
	if b.excl && v == b.v {
		v--
	}
	return &bound{v: v}
}

// canonicalJSON is a concrete value as compact JSON with sorted keys.
func canonicalJSON(v cue.Value) (string, error) {
	var x any
	if err := v.Decode(&x); err != nil {
		return "", err
	}
	b, err := json.Marshal(x)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// key is a canonical form of a shape: equal keys mean the same set of values and
// the same default.
func (s *shape) key() string {
	if s == nil {
		return "<nil>"
	}
	var b strings.Builder
	for i, a := range s.alts {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(a.key())
	}
	if s.hasDef {
		b.WriteString(" *" + s.def)
	}
	return b.String()
}

func (a *alt) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "k%d", a.kind)
	if a.consts != nil {
		c := slices.Clone(a.consts)
		slices.SortFunc(c, compareConsts)
		fmt.Fprintf(&b, " consts%v", c)
	}
	if a.integer {
		b.WriteString(" int")
	}
	for _, x := range []struct {
		name string
		b    *bound
	}{{"lo", a.lo}, {"hi", a.hi}} {
		if x.b != nil {
			fmt.Fprintf(&b, " %s%v/%v", x.name, x.b.v, x.b.excl)
		}
	}
	for _, x := range []struct {
		name string
		l    []string
	}{{"re", a.patterns}, {"nre", a.notPatterns}, {"ne", a.notEqual}, {"call", a.validators}, {"rule", a.rules}} {
		if len(x.l) > 0 {
			l := slices.Clone(x.l)
			slices.Sort(l)
			fmt.Fprintf(&b, " %s%q", x.name, l)
		}
	}
	if a.kind == kObject {
		names := make([]string, 0, len(a.fields))
		for n := range a.fields {
			names = append(names, n)
		}
		slices.Sort(names)
		b.WriteString(" {")
		for _, n := range names {
			f := a.fields[n]
			mark := "?"
			if f.required {
				mark = "!"
			}
			fmt.Fprintf(&b, "%q%s: %s; ", n, mark, f.shape.key())
		}
		for _, p := range a.pfields {
			fmt.Fprintf(&b, "[%q%v]: %s; ", p.pattern, p.custom, p.shape.key())
		}
		fmt.Fprintf(&b, "closed=%v}", a.closed)
	}
	if a.kind == kArray {
		b.WriteString(" [")
		for _, p := range a.prefix {
			b.WriteString(p.key() + ", ")
		}
		if a.rest != nil {
			b.WriteString("..." + a.rest.key())
		}
		b.WriteString("]")
		if a.unique {
			b.WriteString(" unique")
		}
	}
	if a.kind == kOpaque {
		b.WriteString(" " + a.text)
	}
	return b.String()
}
