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
)

// Descriptions of shapes for people who have never read CUE: JSON types with their
// ranges ("integer 1..100", "enum L1|L2|L3 or null", "list of string (at most 16
// items)"), never CUE syntax, except for a custom rule, which is shown as written.

func describeShape(s *shape) string {
	d := describeAlts(s.alts)
	if s.hasDef {
		d += ", default " + s.def
	}
	return d
}

func describeField(f *field) string {
	if f.required {
		return "required " + describeShape(f.shape)
	}
	return "optional " + describeShape(f.shape)
}

func describeAlts(alts []*alt) string {
	if len(alts) == 0 {
		return "nothing"
	}
	var parts []string
	objects := altsOfKind(alts, kObject)
	unionDone := false
	for _, a := range alts {
		if a.kind == kObject && (len(objects) > 1 || discriminator(objects) != "") {
			if unionDone {
				continue
			}
			unionDone = true
			if d := discriminator(objects); d != "" {
				var vals []string
				for _, o := range objects {
					vals = append(vals, plainConst(o.fields[d].shape.alts[0].consts[0]))
				}
				parts = append(parts, fmt.Sprintf("object with %s %s", d, strings.Join(vals, "|")))
				continue
			}
			var ds []string
			for _, o := range objects {
				ds = append(ds, describeAlt(o))
			}
			parts = append(parts, strings.Join(ds, " or "))
			continue
		}
		parts = append(parts, describeAlt(a))
	}
	return strings.Join(parts, " or ")
}

func describeAlt(a *alt) string {
	switch a.kind {
	case kAny:
		return "any value"
	case kNull:
		return "null"
	case kOpaque:
		return "custom rule " + truncate(a.text, 80)
	}
	if a.consts != nil {
		return describeEnum(a)
	}
	var d string
	switch a.kind {
	case kBool:
		d = "boolean"
	case kNumber:
		d = "number"
		if a.integer {
			d = "integer"
		}
		if r := rangeText(a.lo, a.hi); r != "" {
			d += " " + r
		}
	case kString:
		d = describeString(a)
	case kObject:
		d = describeObject(a)
	case kArray:
		d = describeArray(a)
	}
	if len(a.notEqual) > 0 {
		var vs []string
		for _, v := range a.notEqual {
			vs = append(vs, plainConst(v))
		}
		d += " other than " + strings.Join(vs, ", ")
	}
	for _, v := range a.validators {
		d += " (custom check " + truncate(v, 60) + ")"
	}
	return d
}

func describeEnum(a *alt) string {
	if len(a.consts) == 0 {
		return "nothing"
	}
	if len(a.consts) == 1 {
		return "exactly " + a.consts[0]
	}
	vs := make([]string, len(a.consts))
	for i, c := range a.consts {
		vs[i] = plainConst(c)
	}
	return "enum " + strings.Join(vs, "|")
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

// plainConst writes a constant without JSON quotes when it reads as a plain word.
func plainConst(j string) string {
	var s string
	if err := json.Unmarshal([]byte(j), &s); err == nil && plainWord.MatchString(s) {
		return s
	}
	return j
}

func describeString(a *alt) string {
	d := "string"
	switch {
	case a.lo != nil && a.lo.v == 1 && a.hi == nil:
		d = "non-empty string"
	case a.lo != nil || a.hi != nil:
		d = "string of " + countText(a.lo, a.hi, "character")
	}
	for i, p := range a.patterns {
		if i == 0 {
			d += " matching " + p
		} else {
			d += " and " + p
		}
	}
	for _, p := range a.notPatterns {
		d += " not matching " + p
	}
	return d
}

func describeObject(a *alt) string {
	names := make([]string, 0, len(a.fields))
	for n := range a.fields {
		names = append(names, n)
	}
	slices.Sort(names)
	switch {
	case len(names) > 0:
		if len(names) > 5 {
			names = append(names[:5], "…")
		}
		return "object with fields " + strings.Join(names, ", ")
	case len(a.pfields) > 0:
		var ks []string
		for _, p := range a.pfields {
			ks = append(ks, keysText(p)+": "+describeShape(p.shape))
		}
		return "object with " + strings.Join(ks, "; ")
	case a.closed:
		return "empty object"
	}
	return "object"
}

func keysText(p *patField) string {
	switch {
	case p.custom:
		return "keys " + truncate(p.pattern, 60)
	case p.pattern == "":
		return "any keys"
	}
	return "keys matching " + p.pattern
}

func describeArray(a *alt) string {
	if a.rest == nil {
		items := make([]string, len(a.prefix))
		for i, p := range a.prefix {
			items[i] = describeShape(p)
		}
		return "list [" + strings.Join(items, ", ") + "]"
	}
	d := "list of "
	if a.unique {
		d = "list of unique "
	}
	restKey := a.rest.key()
	uniform := true
	for _, p := range a.prefix {
		uniform = uniform && p.key() == restKey
	}
	if uniform {
		d += itemsText(a.rest)
	} else {
		items := make([]string, len(a.prefix))
		for i, p := range a.prefix {
			items[i] = describeShape(p)
		}
		d = strings.TrimSuffix(d, " of ") + " [" + strings.Join(items, ", ") + ", then " + describeShape(a.rest) + "]"
	}
	if a.lo != nil || a.hi != nil {
		d += " (" + countText(a.lo, a.hi, "item") + ")"
	}
	return d
}

// itemsText describes a list's items, by their kind alone when the full description
// is long: a change to the items is reported at the items' own path.
func itemsText(s *shape) string {
	d := describeShape(s)
	if utf8.RuneCountInString(d) <= 32 {
		return d
	}
	if len(s.alts) == 1 {
		switch a := s.alts[0]; a.kind {
		case kString:
			return "strings"
		case kNumber:
			if a.integer {
				return "integers"
			}
			return "numbers"
		case kObject:
			return "objects"
		case kArray:
			return "lists"
		}
	}
	return "items"
}

// rangeText writes a number's bounds: 0..5 when both are inclusive, else >0 and <=2.
func rangeText(lo, hi *bound) string {
	switch {
	case lo == nil && hi == nil:
		return ""
	case lo != nil && hi != nil && !lo.excl && !hi.excl:
		return fmtNum(lo.v) + ".." + fmtNum(hi.v)
	}
	var parts []string
	if lo != nil {
		op := ">="
		if lo.excl {
			op = ">"
		}
		parts = append(parts, op+fmtNum(lo.v))
	}
	if hi != nil {
		op := "<="
		if hi.excl {
			op = "<"
		}
		parts = append(parts, op+fmtNum(hi.v))
	}
	return strings.Join(parts, " and ")
}

// countText writes a count range (lengths and item counts are integers).
func countText(lo, hi *bound, unit string) string {
	plural := func(n float64) string {
		if n == 1 {
			return unit
		}
		return unit + "s"
	}
	switch {
	case lo != nil && hi != nil && lo.v == hi.v:
		return fmt.Sprintf("exactly %s %s", fmtNum(lo.v), plural(lo.v))
	case lo != nil && hi != nil:
		return fmt.Sprintf("%s..%s %s", fmtNum(lo.v), fmtNum(hi.v), plural(hi.v))
	case lo != nil:
		return fmt.Sprintf("at least %s %s", fmtNum(lo.v), plural(lo.v))
	case hi != nil:
		return fmt.Sprintf("at most %s %s", fmtNum(hi.v), plural(hi.v))
	}
	return ""
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func rulesText(rules []string) string {
	if len(rules) == 0 {
		return "no custom rule"
	}
	var out []string
	for _, r := range rules {
		out = append(out, truncate(r, 80))
	}
	return "custom rule " + strings.Join(out, "; ")
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
