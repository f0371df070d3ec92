package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"cuelang.org/go/cue"
)

// JSON Schema (draft 2020-12) generated from CUE values.
//
// CUE's own generator (encoding/jsonschema, v0.17) drops bounds beside defaults, drops
// defaults, turns {} into const {}, loses closedness at the top level, gives an
// accept-anything schema for structs with if-clauses and cannot reference a sibling
// field. This translator covers the subset of CUE the contracts use, inlines every
// reference (clients differ in their $ref support) and fails loudly on anything it
// does not understand, so an advertised schema is never silently looser than CUE.
// TestAgreement runs a corpus through both and requires the same verdicts.

const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// Schema returns the JSON Schema of v, with the $schema keyword.
func Schema(v cue.Value) (map[string]any, error) {
	s, err := schemaOf(v, 0)
	if err != nil {
		return nil, err
	}
	s["$schema"] = schemaDialect
	return s, nil
}

// maxSchemaDepth bounds recursion; the contracts nest a few levels deep.
const maxSchemaDepth = 32

func schemaOf(v cue.Value, depth int) (map[string]any, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("%v: schema nests deeper than %d levels", v.Path(), maxSchemaDepth)
	}
	s, err := schemaOf0(v, depth)
	if err != nil {
		return nil, err
	}
	if d, _ := v.Default(); hasDefault(v) {
		var x any
		if err := d.Decode(&x); err == nil {
			s["default"] = x
		}
	}
	if doc := docString(v); doc != "" {
		if _, ok := s["description"]; !ok {
			s["description"] = doc
		}
	}
	return s, nil
}

func schemaOf0(v cue.Value, depth int) (map[string]any, error) {
	op, args := v.Expr()
	if op == cue.SelectorOp || op == cue.NoOp {
		// A reference (#Layer, _feather): translate what it refers to, which keeps
		// its disjunctions and bounds.
		if depth > maxSchemaDepth {
			return nil, fmt.Errorf("%v: references nest deeper than %d levels", v.Path(), maxSchemaDepth)
		}
		if pkg, p := v.ReferencePath(); pkg.Exists() && p.Err() == nil && len(p.Selectors()) > 0 {
			if r := pkg.LookupPath(p); r.Exists() {
				return schemaOf0(r, depth+1)
			}
		}
		if op == cue.SelectorOp {
			// A reference through a comprehension variable (a.#value) has no
			// path to look up; its evaluated value still has the structure.
			if e := v.Eval(); e.Exists() {
				if eop, _ := e.Expr(); eop != cue.SelectorOp {
					return schemaOf0(e, depth+1)
				}
			}
		}
	}
	switch op {
	case cue.OrOp:
		return anyOf(args, depth)
	case cue.AndOp:
		kind := v.IncompleteKind()
		if kind == cue.StructKind {
			return structSchema(v, depth)
		}
		s := map[string]any{}
		if t := jsonType(kind); t != nil {
			s["type"] = t
		}
		for _, a := range args {
			as, err := schemaOf(a, depth+1)
			if err != nil {
				return nil, err
			}
			merge(s, as)
		}
		return s, nil
	case cue.GreaterThanEqualOp, cue.GreaterThanOp, cue.LessThanEqualOp, cue.LessThanOp:
		if len(args) != 1 {
			return nil, fmt.Errorf("%v: binary comparison has no JSON Schema form", v.Path())
		}
		n, err := args[0].Float64()
		if err != nil {
			return nil, fmt.Errorf("%v: bound %v is not a number", v.Path(), args[0])
		}
		key := map[cue.Op]string{
			cue.GreaterThanEqualOp: "minimum", cue.GreaterThanOp: "exclusiveMinimum",
			cue.LessThanEqualOp: "maximum", cue.LessThanOp: "exclusiveMaximum",
		}[op]
		return map[string]any{"type": "number", key: jsonNumber(n)}, nil
	case cue.RegexMatchOp:
		re, err := args[0].String()
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "string", "pattern": re}, nil
	case cue.NotRegexMatchOp:
		re, err := args[0].String()
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "string", "not": map[string]any{"pattern": re}}, nil
	case cue.NotEqualOp:
		if len(args) != 1 || !args[0].IsConcrete() {
			return nil, fmt.Errorf("%v: != needs one concrete operand", v.Path())
		}
		if str, err := args[0].String(); err == nil && str == "" {
			return map[string]any{"type": "string", "minLength": 1}, nil
		}
		var x any
		if err := args[0].Decode(&x); err != nil {
			return nil, err
		}
		return map[string]any{"not": map[string]any{"const": x}}, nil
	case cue.CallOp:
		if fmt.Sprint(args[0]) == "close" {
			s, err := structSchema(v, depth)
			if err != nil {
				return nil, err
			}
			s["additionalProperties"] = false
			return s, nil
		}
		s := map[string]any{}
		if t := jsonType(v.IncompleteKind()); t != nil {
			s["type"] = t
		}
		if err := applyCall(s, args); err != nil {
			return nil, fmt.Errorf("%v: %w", v.Path(), err)
		}
		return s, nil
	}

	kind := v.IncompleteKind()
	switch {
	case v.IsNull():
		return map[string]any{"type": "null"}, nil
	case kind == cue.StructKind:
		return structSchema(v, depth)
	case kind == cue.ListKind:
		return listSchema(v, depth)
	case v.IsConcrete():
		var x any
		if err := v.Decode(&x); err != nil {
			return nil, err
		}
		return map[string]any{"const": x}, nil
	case kind == cue.TopKind:
		return map[string]any{}, nil
	}
	t := jsonType(kind)
	if t == nil {
		return nil, fmt.Errorf("%v: kind %v has no JSON Schema form", v.Path(), kind)
	}
	return map[string]any{"type": t}, nil
}

// anyOf builds a disjunction. Arms that are all constants (or null) become one enum,
// which reads better to an agent than a list of consts.
func anyOf(arms []cue.Value, depth int) (map[string]any, error) {
	arms = dropSubsumed(arms)
	if len(arms) == 1 {
		return schemaOf(arms[0], depth+1)
	}
	var schemas []map[string]any
	for _, a := range arms {
		s, err := schemaOf(a, depth+1)
		if err != nil {
			return nil, err
		}
		delete(s, "default")
		// Flatten nested disjunctions such as (#Layer | null).
		if inner, ok := s["anyOf"].([]any); ok && len(s) == 1 {
			for _, x := range inner {
				schemas = append(schemas, x.(map[string]any))
			}
			continue
		}
		if enum, ok := s["enum"].([]any); ok && len(s) == 1 {
			for _, x := range enum {
				schemas = append(schemas, map[string]any{"const": x})
			}
			continue
		}
		schemas = append(schemas, s)
	}
	var enum []any
	for _, s := range schemas {
		switch {
		case len(s) == 1 && s["const"] != nil:
			enum = append(enum, s["const"])
		case len(s) == 1 && s["type"] == "null":
			enum = append(enum, nil)
		default:
			enum = nil
		}
		if enum == nil {
			break
		}
	}
	if len(enum) == len(schemas) {
		return map[string]any{"enum": enum}, nil
	}
	out := make([]any, len(schemas))
	for i, s := range schemas {
		out[i] = s
	}
	return map[string]any{"anyOf": out}, nil
}

// dropSubsumed removes constant arms that another arm accepts: the default arm of
// (*10 | int) adds nothing to the set of accepted values.
func dropSubsumed(arms []cue.Value) []cue.Value {
	var out []cue.Value
	for i, a := range arms {
		covered := false
		if a.IsConcrete() && a.IncompleteKind()&(cue.StructKind|cue.ListKind) == 0 {
			for j, b := range arms {
				if j != i && !b.IsConcrete() && b.Unify(a).Err() == nil {
					covered = true
					break
				}
			}
		}
		if !covered {
			out = append(out, a)
		}
	}
	return out
}

func structSchema(v cue.Value, depth int) (map[string]any, error) {
	s := map[string]any{"type": "object"}
	props := map[string]any{}
	patterns := map[string]any{}
	var required []string
	it, err := v.Fields(cue.Optional(true), cue.Patterns(true))
	if err != nil {
		return nil, fmt.Errorf("%v: %w", v.Path(), err)
	}
	for it.Next() {
		sel := it.Selector()
		fv := it.Value()
		switch sel.ConstraintType() {
		case cue.PatternConstraint:
			re, ok := patternRegexp(sel.Pattern())
			if !ok {
				return nil, fmt.Errorf("%v: pattern constraint %v has no JSON Schema form", v.Path(), sel.Pattern())
			}
			ps, err := schemaOf(fv, depth+1)
			if err != nil {
				return nil, err
			}
			patterns[re] = ps
			continue
		case cue.RequiredConstraint:
			required = append(required, sel.Unquoted())
		case cue.OptionalConstraint:
		default:
			// A regular field: required unless it has a default. A concrete regular
			// field would be filled by CUE, so the contracts mark such fields
			// required (!) instead; an unmarked one is reported.
			if !hasDefault(fv) {
				if fv.IsConcrete() && fv.Kind()&(cue.StructKind|cue.ListKind) == 0 {
					return nil, fmt.Errorf("%v: concrete regular field %s: mark it required (!) or give it a default", v.Path(), sel.Unquoted())
				}
				required = append(required, sel.Unquoted())
			}
		}
		fs, err := schemaOf(fv, depth+1)
		if err != nil {
			return nil, err
		}
		props[sel.Unquoted()] = fs
	}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(patterns) > 0 {
		s["patternProperties"] = patterns
	}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	if isClosed(v) {
		s["additionalProperties"] = false
	}
	return s, nil
}

// hasDefault reports whether v has a default that the schema advertises. CUE gives
// every open list the default [], which is not a default anyone wrote.
func hasDefault(v cue.Value) bool {
	d, ok := v.Default()
	if !ok || d.Validate(cue.Concrete(true)) != nil || d.Kind() == cue.StructKind {
		return false
	}
	if d.Kind() == cue.ListKind {
		n, err := d.Len().Int64()
		return err == nil && n > 0
	}
	return true
}

// isClosed reports whether v rejects fields it does not declare.
// (cue.Value.Allows answers wrongly for a closed definition unified with {...}.)
func isClosed(v cue.Value) bool {
	probe := cue.MakePath(cue.Str(closedProbe))
	return v.FillPath(probe, 1).LookupPath(probe).Err() != nil
}

// closedProbe is a label no contract declares; asking whether a struct allows it tells
// whether the struct is closed. It is interned once.
const closedProbe = "darkroom_closed_probe"

func listSchema(v cue.Value, depth int) (map[string]any, error) {
	s := map[string]any{"type": "array"}
	rest := v.LookupPath(cue.MakePath(cue.AnyIndex))
	var n int64
	lenv := v.Len()
	if rest.Exists() {
		// An open list's length is int & >=N, N the length of its prefix.
		if op, args := lenv.Expr(); op == cue.AndOp && len(args) == 2 {
			if op2, args2 := args[1].Expr(); op2 == cue.GreaterThanEqualOp {
				n, _ = args2[0].Int64()
			}
		}
	} else {
		var err error
		if n, err = lenv.Int64(); err != nil {
			return nil, fmt.Errorf("%v: list length %v has no JSON Schema form", v.Path(), lenv)
		}
		s["maxItems"] = n
	}
	if n > 0 {
		prefix := make([]any, n)
		for i := range n {
			ps, err := schemaOf(v.LookupPath(cue.MakePath(cue.Index(i))), depth+1)
			if err != nil {
				return nil, err
			}
			prefix[i] = ps
		}
		s["prefixItems"] = prefix
		s["minItems"] = n
	}
	if rest.Exists() {
		rs, err := schemaOf(rest, depth+1)
		if err != nil {
			return nil, err
		}
		if len(rs) > 0 {
			s["items"] = rs
		}
	} else {
		s["items"] = false
	}
	return s, nil
}

// applyCall adds the keywords of a validator call such as list.MaxItems(16).
func applyCall(s map[string]any, args []cue.Value) error {
	fn := fmt.Sprint(args[0])
	intArg := func() (int64, error) {
		if len(args) != 2 {
			return 0, fmt.Errorf("%s takes one argument", fn)
		}
		return args[1].Int64()
	}
	switch fn {
	case "list.MaxItems", "list.MinItems":
		n, err := intArg()
		if err != nil {
			return err
		}
		key := "maxItems"
		if fn == "list.MinItems" {
			key = "minItems"
		}
		if old, ok := s[key].(int64); ok && (key == "maxItems" && old < n || key == "minItems" && old > n) {
			return nil
		}
		s[key] = n
	case "list.UniqueItems":
		s["uniqueItems"] = true
	case "strings.MinRunes", "strings.MaxRunes":
		n, err := intArg()
		if err != nil {
			return err
		}
		s[map[string]string{"strings.MinRunes": "minLength", "strings.MaxRunes": "maxLength"}[fn]] = n
	default:
		return fmt.Errorf("validator %s has no JSON Schema form", fn)
	}
	return nil
}

// merge adds b's keywords to a. Keywords both have with different values go into
// allOf, which keeps the schema exact if not pretty.
func merge(a, b map[string]any) {
	for k, bv := range b {
		if k == "type" {
			// The conjunction's kind is already in a; a bound says "number" even
			// when the field is an int.
			if _, ok := a["type"]; ok {
				continue
			}
		}
		av, ok := a[k]
		if !ok {
			a[k] = bv
			continue
		}
		if jsonEqual(av, bv) {
			continue
		}
		all, _ := a["allOf"].([]any)
		a["allOf"] = append(all, map[string]any{k: bv})
	}
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func jsonType(k cue.Kind) any {
	var ts []string
	for _, kt := range []struct {
		k cue.Kind
		t string
	}{
		{cue.NullKind, "null"}, {cue.BoolKind, "boolean"}, {cue.StringKind, "string"},
		{cue.StructKind, "object"}, {cue.ListKind, "array"},
	} {
		if k&kt.k != 0 {
			ts = append(ts, kt.t)
		}
	}
	switch {
	case k&cue.NumberKind == cue.NumberKind, k&cue.FloatKind != 0:
		ts = append(ts, "number")
	case k&cue.IntKind != 0:
		ts = append(ts, "integer")
	}
	switch len(ts) {
	case 0:
		return nil
	case 1:
		return ts[0]
	}
	return ts
}

// jsonNumber keeps integral bounds integral in the generated JSON.
func jsonNumber(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// patternRegexp returns the regular expression a pattern constraint's label must
// match: a regexp constraint, a string (any label), or a reference to one.
func patternRegexp(p cue.Value) (string, bool) {
	op, args := p.Expr()
	switch op {
	case cue.RegexMatchOp:
		re, err := args[0].String()
		return re, err == nil
	case cue.NoOp, cue.SelectorOp:
		if p.IncompleteKind() == cue.StringKind && !p.IsConcrete() {
			return "", true
		}
	}
	return "", false
}

// docString is the doc comment of v's field, one paragraph per line kept.
func docString(v cue.Value) string {
	var parts []string
	for _, cg := range v.Doc() {
		if t := strings.TrimSpace(cg.Text()); t != "" {
			parts = append(parts, strings.Join(strings.Fields(t), " "))
		}
	}
	return strings.Join(parts, " ")
}
