package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"github.com/google/jsonschema-go/jsonschema"
)

func loadTestContract(t testing.TB) *Contract {
	t.Helper()
	c, err := Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAgreement runs a corpus of arguments through CUE (Tool.Check, the server's own
// path) and through the advertised JSON Schema checked by a JSON Schema 2020-12
// validator, and requires the same verdict for every case: what a client validates
// before sending is exactly what the server accepts.
func TestAgreement(t *testing.T) {
	c := loadTestContract(t)
	type target struct {
		name   string
		schema map[string]any
		check  func(json.RawMessage) error
	}
	var targets []target
	for _, tool := range c.Tools {
		targets = append(targets, target{"tool " + tool.Name, tool.InputSchema, func(raw json.RawMessage) error {
			_, err := tool.Check(raw)
			return err
		}})
	}
	// Each catalog operation's arguments: what render and the vocabulary accept.
	ops, err := c.Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		def := c.Value.LookupPath(cue.MakePath(cue.Def("OperationArgs"), cue.Str(op.Name)))
		schema, err := Schema(def)
		if err != nil {
			t.Fatalf("operation %s: %v", op.Name, err)
		}
		targets = append(targets, target{"operation " + op.Name, schema, func(raw json.RawMessage) error {
			var args map[string]any
			if err := json.Unmarshal(raw, &args); err != nil {
				return err
			}
			_, err := c.check(def, op.Name, raw)
			return err
		}})
	}
	mask, err := Schema(c.Value.LookupPath(cue.ParsePath("#MaskSpec")))
	if err != nil {
		t.Fatal(err)
	}
	maskDef := c.Value.LookupPath(cue.ParsePath("#MaskSpec"))
	targets = append(targets, target{"#MaskSpec", mask, func(raw json.RawMessage) error {
		_, err := c.check(maskDef, "mask_spec", raw)
		return err
	}})

	total, accepted := 0, 0
	for _, tg := range targets {
		b, _ := json.Marshal(tg.schema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: schema: %v", tg.name, err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: schema does not resolve: %v", tg.name, err)
		}
		for _, raw := range corpus(tg.schema) {
			total++
			var inst any
			if err := json.Unmarshal(raw, &inst); err != nil {
				t.Fatalf("%s: corpus case %s is not JSON", tg.name, raw)
			}
			schemaErr := resolved.Validate(inst)
			cueErr := tg.check(raw)
			if (schemaErr == nil) != (cueErr == nil) {
				t.Errorf("%s: %s\n  JSON Schema: %v\n  CUE:         %v", tg.name, raw, errOrOK(schemaErr), errOrOK(cueErr))
			}
			if cueErr == nil {
				accepted++
			}
		}
	}
	// A corpus that is all valid or all invalid would test nothing.
	if accepted == 0 || accepted == total {
		t.Fatalf("corpus of %d cases had %d accepted: not a test", total, accepted)
	}
	t.Logf("%d cases over %d targets, %d accepted by both", total, len(targets), accepted)
}

func errOrOK(err error) string {
	if err == nil {
		return "accepted"
	}
	return "rejected: " + err.Error()
}

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
		vals := candidates(props[r].(map[string]any))
		base[r] = vals[0]
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
		for _, v := range candidates(props[n].(map[string]any)) {
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
