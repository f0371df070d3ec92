package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Corpus builds argument objects for an object schema (a tool's InputSchema): the
// minimal valid object, then each property at its edges. TestAgreement runs it through
// CUE and JSON Schema validators; the contract differ runs it through the old and new
// params to back a compatible verdict.
func Corpus(schema map[string]any) []json.RawMessage { return corpus(schema) }

// corpus builds argument objects for an object schema: the minimal valid object,
// then each property in turn set to boundary, wrong-type, null and (for integers)
// 10.0-style values, plus an unknown field and a missing required field.
func corpus(schema map[string]any) []json.RawMessage {
	props, _ := schema["properties"].(map[string]any)
	var required []string
	for _, r := range asSlice(schema["required"]) {
		required = append(required, r.(string))
	}
	base := map[string]json.RawMessage{}
	for _, r := range required {
		p, _ := props[r].(map[string]any)
		if vals := candidates(p); len(vals) > 0 {
			base[r] = vals[0]
		} else {
			base[r] = json.RawMessage(`null`)
		}
	}
	var out []json.RawMessage
	emit := func(m map[string]json.RawMessage) {
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	emit(base)
	emit(with(base, "not_a_field", json.RawMessage(`1`)))
	for _, r := range required {
		m := with(base, "", nil)
		delete(m, r)
		emit(m)
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range candidates(asMap(props[n])) {
			emit(with(base, n, v))
		}
		emit(with(base, n, json.RawMessage(`null`)))
	}
	out = append(out, json.RawMessage(`[]`), json.RawMessage(`"x"`))
	return out
}

func with(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	c := make(map[string]json.RawMessage, len(m)+1)
	for kk, vv := range m {
		c[kk] = vv
	}
	if k != "" {
		c[k] = v
	}
	return c
}

func asSlice(x any) []any {
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

// candidates returns values around a schema's edges, valid first when there is one.
func candidates(s map[string]any) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		if r, ok := v.(json.RawMessage); ok {
			out = append(out, r)
			return
		}
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	if d, ok := s["default"]; ok {
		add(d)
	}
	for _, e := range asSlice(s["enum"]) {
		add(e)
	}
	if len(asSlice(s["enum"])) > 0 {
		add("not_in_enum")
	}
	if cst, ok := s["const"]; ok {
		add(cst)
		add("not_the_const")
	}
	for _, arm := range asSlice(s["anyOf"]) {
		out = append(out, candidates(arm.(map[string]any))...)
	}
	switch typeOf(s) {
	case "number", "integer":
		lo, hasLo := num(s["minimum"])
		hi, hasHi := num(s["maximum"])
		xlo, hasXlo := num(s["exclusiveMinimum"])
		xhi, hasXhi := num(s["exclusiveMaximum"])
		integer := typeOf(s) == "integer"
		step := 0.001
		if integer {
			step = 1
		}
		if hasLo {
			add(lo)
			add(lo - step)
		}
		if hasHi {
			add(hi)
			add(hi + step)
		}
		if hasXlo {
			add(xlo)
			add(xlo + step)
		}
		if hasXhi {
			add(xhi)
			add(xhi - step)
		}
		if hasLo && hasHi {
			mid := (lo + hi) / 2
			if integer {
				mid = math.Round(mid)
				// 10.0 for an int: JSON Schema calls it an integer, and so do we.
				add(json.RawMessage(fmt.Sprintf("%.1f", mid)))
				add(mid + 0.5)
			}
			add(mid)
		}
		if !hasLo && !hasHi {
			add(0)
			add(-1)
			add(1.5)
		}
		add("7")
		add(true)
	case "boolean":
		add(true)
		add(false)
		add(1)
		add("true")
	case "string":
		add("abc")
		add("snake_case_name")
		add("Not Snake")
		add("")
		add(5)
		if p, ok := s["pattern"].(string); ok && strings.Contains(p, "[0-9]") {
			add("1.2.3")
		}
	case "array":
		add([]any{})
		if items, ok := s["items"].(map[string]any); ok {
			for _, v := range candidates(items)[:min(3, len(candidates(items)))] {
				add(json.RawMessage("[" + string(v) + "]"))
			}
			if mx, ok := num(s["maxItems"]); ok {
				vals := candidates(items)
				over := make([]string, int(mx)+1)
				for i := range over {
					over[i] = string(vals[0])
				}
				add(json.RawMessage("[" + strings.Join(over, ",") + "]"))
			}
		}
		if prefix := asSlice(s["prefixItems"]); len(prefix) > 0 {
			var elems []string
			for _, p := range prefix {
				elems = append(elems, string(candidates(p.(map[string]any))[0]))
			}
			add(json.RawMessage("[" + strings.Join(elems, ",") + "]"))
			add(json.RawMessage("[" + strings.Join(elems[:len(elems)-1], ",") + "]"))
		}
		add("not a list")
	case "object":
		for _, o := range corpus(s)[:min(6, len(corpus(s)))] {
			add(o)
		}
		add(map[string]any{"unknown": 1})
		add(7)
	}
	return dedupe(out)
}

func typeOf(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

func num(x any) (float64, bool) {
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

func dedupe(in []json.RawMessage) []json.RawMessage {
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

func asMap(x any) map[string]any {
	m, _ := x.(map[string]any)
	return m
}
