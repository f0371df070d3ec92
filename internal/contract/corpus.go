package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp/syntax"
	"sort"
	"strings"
)

// Corpus builds argument values for an input schema (a tool's InputSchema, an
// operation's arguments): the values of samples below, without null, which the
// protocol reads as "no arguments" before any schema applies. TestAgreement runs it
// through CUE and the JSON Schema validators; the contract differ runs it through
// the old and new params to back a compatible verdict.
func Corpus(schema map[string]any) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range samples(schema, 0) {
		if string(raw) != "null" {
			out = append(out, raw)
		}
	}
	return out
}

// The agreement corpus: values around every edge of a generated schema, valid and
// invalid, reaching into nested objects, lists and every arm of a union (so a
// gradient, an ellipse, a rectangle and a polygon mask each appear inside the tools'
// arguments). It reads only the generated schema; CUE and the validators then judge
// every value, and TestAgreement requires them to agree.

// maxSamples bounds the values drawn for a nested schema, so nesting does not
// multiply the corpus past what a test can run.
const maxSamples = 40

// samples returns values for schema s: its edges first (default, enum, const, each
// arm of a union, bounds), then a valid middle value when the schema admits one. The
// order is the differ's: the first call it reports rejected is the first edge.
func samples(s map[string]any, depth int) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		if r, ok := v.(json.RawMessage); ok {
			out = append(out, r)
			return
		}
		b, err := json.Marshal(v)
		if err == nil {
			out = append(out, b)
		}
	}
	if depth > 6 {
		if v, ok := validValue(s, 0); ok {
			add(v)
		}
		add(nil)
		return dedupeRaw(out)
	}
	if d, ok := s["default"]; ok {
		add(d)
	}
	for _, e := range anySlice(s["enum"]) {
		add(e)
	}
	if len(anySlice(s["enum"])) > 0 {
		add("not_in_enum")
	}
	if c, ok := s["const"]; ok {
		add(c)
		add("not_the_const")
	}
	for _, arm := range anySlice(s["anyOf"]) {
		out = append(out, samples(arm.(map[string]any), depth+1)...)
	}
	switch s["type"] {
	case "number", "integer":
		out = append(out, numberSamples(s)...)
	case "boolean":
		add(true)
		add(false)
		add(1)
		add("true")
	case "string":
		out = append(out, stringSamples(s)...)
	case "array":
		out = append(out, arraySamples(s, depth)...)
	case "object":
		out = append(out, objectSamples(s, depth)...)
	}
	out = dedupeRaw(out)
	// The bound is for values nested in others; the schema asked for keeps them all.
	if depth > 0 && len(out) > maxSamples {
		out = out[:maxSamples]
	}
	// The valid value and null stay whatever the bound cut.
	if v, ok := validValue(s, 0); ok {
		add(v)
	}
	add(nil)
	return dedupeRaw(out)
}

// goodSample is the value of s that other samples are built around: a valid one
// when the schema admits one, else the first of its samples ps.
func goodSample(s map[string]any, ps []json.RawMessage) (json.RawMessage, bool) {
	if v, ok := validValue(s, 0); ok {
		if b, err := json.Marshal(v); err == nil {
			return b, true
		}
	}
	if len(ps) == 0 {
		return nil, false
	}
	return ps[0], true
}

// bounds collects a number schema's bounds, from allOf parts too.
func bounds(s map[string]any) (lo, hi float64, hasLo, hasHi, xlo, xhi bool) {
	lo, hi = math.Inf(-1), math.Inf(1)
	parts := []map[string]any{s}
	for _, p := range anySlice(s["allOf"]) {
		parts = append(parts, p.(map[string]any))
	}
	for _, p := range parts {
		if v, ok := number(p["minimum"]); ok && v >= lo {
			lo, hasLo, xlo = v, true, false
		}
		if v, ok := number(p["exclusiveMinimum"]); ok && v >= lo {
			lo, hasLo, xlo = v, true, true
		}
		if v, ok := number(p["maximum"]); ok && v <= hi {
			hi, hasHi, xhi = v, true, false
		}
		if v, ok := number(p["exclusiveMaximum"]); ok && v <= hi {
			hi, hasHi, xhi = v, true, true
		}
	}
	return
}

func numberSamples(s map[string]any) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	integer := s["type"] == "integer"
	step := 0.001
	if integer {
		step = 1
	}
	lo, hi, hasLo, hasHi, _, _ := bounds(s)
	if hasLo {
		add(lo)
		add(lo - step)
		add(lo + step)
	}
	if hasHi {
		add(hi)
		add(hi + step)
		add(hi - step)
	}
	if hasLo && hasHi {
		mid := (lo + hi) / 2
		if integer {
			mid = math.Round(mid)
			// 10.0 for an int: JSON Schema calls it an integer, and so does the
			// contract's decoder.
			out = append(out, json.RawMessage(fmt.Sprintf("%.1f", mid)))
			add(mid + 0.5)
		}
		add(mid)
	} else {
		add(0)
		add(-1)
		add(1.5)
		add(1e9)
	}
	add("7")
	add(true)
	return out
}

func stringSamples(s map[string]any) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	if p, ok := s["pattern"].(string); ok {
		for _, long := range []bool{false, true} {
			if ex, ok := patternExample(p, long); ok {
				add(ex)
				// $ before a final newline: Python's re.search matches it.
				add(ex + "\n")
				add("\n" + ex)
				add(strings.ToUpper(ex))
			}
		}
	}
	minLen, hasMin := number(s["minLength"])
	maxLen, hasMax := number(s["maxLength"])
	// Lengths count code points: an accented letter is two bytes in UTF-8 and one
	// unit in UTF-16, an emoji four bytes and two units.
	for _, r := range []string{"é", "😀"} {
		if hasMin {
			add(strings.Repeat(r, int(minLen)))
			add(strings.Repeat(r, max(0, int(minLen)-1)))
		}
		if hasMax {
			add(strings.Repeat(r, int(maxLen)))
			add(strings.Repeat(r, int(maxLen)+1))
		}
	}
	add("abc")
	add("snake_case_name")
	add("Not Snake")
	add("")
	add(5)
	// Dots among digits, for a pattern of digits (a version, a dotted id).
	if p, ok := s["pattern"].(string); ok && strings.Contains(p, "[0-9]") {
		add("1.2.3")
	}
	return out
}

func arraySamples(s map[string]any, depth int) []json.RawMessage {
	var out []json.RawMessage
	items, _ := s["items"].(map[string]any)
	minItems, _ := number(s["minItems"])
	maxItems, hasMax := number(s["maxItems"])
	list := func(elems ...json.RawMessage) json.RawMessage {
		parts := make([]string, len(elems))
		for i, e := range elems {
			parts[i] = string(e)
		}
		return json.RawMessage("[" + strings.Join(parts, ",") + "]")
	}
	repeat := func(e json.RawMessage, n int) json.RawMessage {
		elems := make([]json.RawMessage, n)
		for i := range elems {
			elems[i] = e
		}
		return list(elems...)
	}
	out = append(out, json.RawMessage(`[]`), json.RawMessage(`"not a list"`), json.RawMessage(`{}`))
	if items == nil {
		return out
	}
	elems := samples(items, depth+1)
	if len(elems) == 0 {
		return out
	}
	good, _ := goodSample(items, elems)
	n := max(1, int(minItems))
	out = append(out, repeat(good, n), repeat(good, max(0, n-1)), repeat(good, n+1))
	if hasMax {
		out = append(out, repeat(good, int(maxItems)), repeat(good, int(maxItems)+1))
	}
	// Each element value in the first place of an otherwise valid list.
	for _, e := range elems {
		if string(e) == string(good) {
			continue
		}
		rest := make([]json.RawMessage, 0, n)
		rest = append(rest, e)
		for len(rest) < n {
			rest = append(rest, good)
		}
		out = append(out, list(rest...))
	}
	if s["uniqueItems"] == true && n >= 1 {
		out = append(out, repeat(good, max(2, n)))
	}
	return out
}

func objectSamples(s map[string]any, depth int) []json.RawMessage {
	var out []json.RawMessage
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range anySlice(s["required"]) {
		required[r.(string)] = true
	}
	if r, ok := s["required"].([]string); ok {
		for _, n := range r {
			required[n] = true
		}
	}
	base := map[string]json.RawMessage{}
	full := map[string]json.RawMessage{}
	propSamples := map[string][]json.RawMessage{}
	for _, n := range names {
		ps := samples(props[n].(map[string]any), depth+1)
		propSamples[n] = ps
		good, ok := goodSample(props[n].(map[string]any), ps)
		if !ok {
			continue
		}
		full[n] = good
		if required[n] {
			base[n] = good
		}
	}
	emit := func(m map[string]json.RawMessage) {
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	emit(base)
	emit(withKey(base, "not_a_field", json.RawMessage(`1`)))
	emit(withKey(base, "Not A Field", json.RawMessage(`1`)))
	for _, n := range names {
		if required[n] {
			m := withKey(base, "", nil)
			delete(m, n)
			emit(m)
		}
	}
	for pat, ps := range mapOf(s["patternProperties"]) {
		if key, ok := patternExample(pat, false); ok {
			for _, v := range samples(ps.(map[string]any), depth+1) {
				emit(withKey(base, key, v))
			}
		}
	}
	// Every sample of every property, in an otherwise minimal object; the
	// property's samples are spread out so each property gets some.
	budget := max(4, 3*maxSamples/max(1, len(names)))
	for _, n := range names {
		for i, v := range propSamples[n] {
			if i >= budget {
				break
			}
			emit(withKey(base, n, v))
		}
		emit(withKey(base, n, json.RawMessage(`null`)))
	}
	emit(full)
	out = append(out, json.RawMessage(`7`), json.RawMessage(`[]`), json.RawMessage(`"x"`))
	return out
}

// validValue builds a value the schema accepts, when it can tell.
func validValue(s map[string]any, depth int) (any, bool) {
	if depth > 12 {
		return nil, false
	}
	if d, ok := s["default"]; ok {
		return d, true
	}
	if c, ok := s["const"]; ok {
		return c, true
	}
	if e := anySlice(s["enum"]); len(e) > 0 {
		return e[0], true
	}
	for _, arm := range anySlice(s["anyOf"]) {
		if v, ok := validValue(arm.(map[string]any), depth+1); ok {
			return v, true
		}
	}
	switch s["type"] {
	case "null":
		return nil, true
	case "boolean":
		return true, true
	case "number", "integer":
		lo, hi, hasLo, hasHi, xlo, _ := bounds(s)
		switch {
		case hasLo && hasHi:
			v := (lo + hi) / 2
			if s["type"] == "integer" {
				v = math.Ceil(v)
			}
			return v, true
		case hasLo && xlo:
			return lo + 1, true
		case hasLo:
			return lo, true
		case hasHi:
			return math.Min(hi, 0), true
		}
		return 1, true
	case "string":
		if p, ok := s["pattern"].(string); ok {
			return patternExample(p, false)
		}
		n, _ := number(s["minLength"])
		return strings.Repeat("a", max(1, int(n))), true
	case "array":
		n, _ := number(s["minItems"])
		items, _ := s["items"].(map[string]any)
		if n == 0 || items == nil {
			return []any{}, true
		}
		e, ok := validValue(items, depth+1)
		out := make([]any, int(n))
		for i := range out {
			out[i] = e
		}
		return out, ok
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		var req []string
		if r, ok := s["required"].([]string); ok {
			req = r
		}
		for _, r := range anySlice(s["required"]) {
			req = append(req, r.(string))
		}
		for _, r := range req {
			p, _ := props[r].(map[string]any)
			v, ok := validValue(p, depth+1)
			if !ok {
				return nil, false
			}
			out[r] = v
		}
		return out, true
	}
	return nil, false
}

// patternExample returns a string the regular expression matches: the shortest,
// or a longer one (repeats at their maximum or once more than the minimum, the
// last alternative).
func patternExample(re string, long bool) (string, bool) {
	r, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !genString(&b, r.Simplify(), long) {
		return "", false
	}
	return b.String(), true
}

func genString(b *strings.Builder, r *syntax.Regexp, long bool) bool {
	switch r.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return true
	case syntax.OpLiteral:
		b.WriteString(string(r.Rune))
		return true
	case syntax.OpCharClass:
		if len(r.Rune) == 0 {
			return false
		}
		if long {
			b.WriteRune(r.Rune[len(r.Rune)-1])
		} else {
			b.WriteRune(r.Rune[0])
		}
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
		return true
	case syntax.OpCapture:
		return genString(b, r.Sub[0], long)
	case syntax.OpStar, syntax.OpQuest:
		if long {
			return genString(b, r.Sub[0], long)
		}
		return true
	case syntax.OpPlus:
		n := 1
		if long {
			n = 2
		}
		for range n {
			if !genString(b, r.Sub[0], long) {
				return false
			}
		}
		return true
	case syntax.OpRepeat:
		n := r.Min
		if long {
			n = max(r.Max, r.Min+1)
		}
		for range n {
			if !genString(b, r.Sub[0], long) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, sub := range r.Sub {
			if !genString(b, sub, long) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		if long {
			return genString(b, r.Sub[len(r.Sub)-1], long)
		}
		return genString(b, r.Sub[0], long)
	}
	return false
}

func withKey(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	c := make(map[string]json.RawMessage, len(m)+1)
	for kk, vv := range m {
		c[kk] = vv
	}
	if k != "" {
		c[k] = v
	}
	return c
}

func anySlice(x any) []any {
	switch x := x.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}

func mapOf(x any) map[string]any {
	m, _ := x.(map[string]any)
	return m
}

func number(x any) (float64, bool) {
	switch v := x.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	}
	return 0, false
}

func dedupeRaw(in []json.RawMessage) []json.RawMessage {
	seen := map[string]bool{}
	var out []json.RawMessage
	for _, r := range in {
		if !seen[string(r)] {
			seen[string(r)] = true
			out = append(out, r)
		}
	}
	return out
}
