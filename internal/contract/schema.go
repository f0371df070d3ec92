package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp/syntax"
	"slices"
	"strings"

	"cuelang.org/go/cue"
)

// JSON Schema generated from CUE values, in the subset on which draft-07 and
// 2020-12 mean the same.
//
// CUE's own generator (encoding/jsonschema, v0.17) drops bounds beside defaults, drops
// defaults, turns {} into const {}, loses closedness at the top level, gives an
// accept-anything schema for structs with if-clauses and cannot reference a sibling
// field. This translator covers the subset of CUE the contracts use, inlines every
// reference (clients differ in their $ref support) and fails loudly on anything it
// does not understand, so an advertised schema is never silently looser than CUE.
//
// Hosts read these schemas with different validators: the TypeScript SDK with a
// draft-07 Ajv, others with Ajv 2020, jsonschema-go, Python's jsonschema, or plain
// `new Ajv()`. So there is no $schema key (MCP 2025-11-25 makes 2020-12 the default,
// and a 2020-12 $schema makes a draft-07 Ajv refuse to compile the schema), and only
// keywords both drafts define with the same meaning are emitted:
//
//   - type (one name, never a list: a list of types is a portability warning in MCP
//     Inspector --strict, and Ajv strict refuses unions other than with null; unions
//     are anyOf), enum, const (draft-06+);
//   - properties, required, additionalProperties (false for a closed struct, absent
//     for an open map of anything, whose default it is: an empty-string
//     patternProperties says the same, but its {} is an untyped schema to Inspector
//     --strict, and Ajv strict refuses a pattern that matches declared properties),
//     patternProperties for a map keyed by a regexp;
//   - items as one schema, with minItems, maxItems and uniqueItems: a list whose
//     elements all have the same schema. A tuple of different schemas is prefixItems
//     in 2020-12 and an items array in draft-07, and each draft ignores the other's
//     spelling (draft-07 read prefixItems + items:false as "no items at all", and
//     Ajv strict refused a prefix shorter than maxItems), so it is refused here;
//   - minimum, maximum, and exclusiveMinimum/exclusiveMaximum as numbers (draft-06+;
//     draft-04's boolean form is never written);
//   - pattern, minLength, maxLength (both count code points), not, anyOf, allOf;
//   - default and description, which are annotations in both and validate nothing.
//
// Patterns are read as ECMA-262 by Ajv, as RE2 by CUE and jsonschema-go and by
// Python's re (re.search) by Python's jsonschema, where $ also matches before a final
// newline; a pattern anchored at both ends that can never match a newline therefore
// comes with not: {pattern: "\n"}, which changes nothing for the other three.
// TestAgreement runs a corpus through CUE and four validators and requires one
// verdict.

// Schema returns the JSON Schema of v twice: as maps, for Go code that reads its
// keywords, and as the JSON clients are sent, where properties keep the contract's
// field order (maps would sort them, putting image_id after border or format).
func Schema(v cue.Value) (map[string]any, json.RawMessage, error) {
	s, err := schemaOf(v, 0)
	if err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("%v: %w", v.Path(), err)
	}
	return plain(s).(map[string]any), b, nil
}

// props is the value of properties: the schemas in the contract's field order.
type props struct {
	names   []string
	schemas map[string]any
}

func (p *props) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range p.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.schemas[n])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// plain replaces every props by its map, for readers that index keywords.
func plain(x any) any {
	switch x := x.(type) {
	case *props:
		m := make(map[string]any, len(x.schemas))
		for k, v := range x.schemas {
			m[k] = plain(v)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = plain(v)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = plain(v)
		}
		return out
	}
	return x
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
	if d, _ := v.Default(); HasDefault(v) {
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
		// A reference through a comprehension variable (a.#value) or to a let
		// (let lim = <=16; n: int & lim) has no path to look up; its evaluated
		// value still has the structure and the bounds. (Read as a plain kind, the
		// let's bound would be dropped.)
		if e := v.Eval(); e.Exists() {
			if eop, _ := e.Expr(); eop != cue.SelectorOp && (op == cue.SelectorOp || eop != cue.NoOp) {
				return schemaOf0(e, depth+1)
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
		s := map[string]any{"type": "string", "pattern": re}
		if needsNewlineGuard(re) {
			s["not"] = map[string]any{"pattern": `\n`}
		}
		return s, nil
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
	ps := &props{schemas: map[string]any{}}
	patterns := map[string]any{}
	var anyLabel map[string]any // the schema of [string]: X
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
			re, ok := PatternRegexp(sel.Pattern())
			if !ok {
				return nil, fmt.Errorf("%v: pattern constraint %v has no JSON Schema form", v.Path(), sel.Pattern())
			}
			fs, err := schemaOf(fv, depth+1)
			if err != nil {
				return nil, err
			}
			if re == "" {
				anyLabel = fs
			} else {
				patterns[re] = fs
			}
			continue
		case cue.RequiredConstraint:
			required = append(required, sel.Unquoted())
		case cue.OptionalConstraint:
		default:
			// A regular field: required unless it has a default. A concrete regular
			// field would be filled by CUE, so the contracts mark such fields
			// required (!) instead; an unmarked one is reported.
			if !HasDefault(fv) {
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
		closeNested(v, []cue.Selector{cue.Str(sel.Unquoted())}, fs)
		ps.names = append(ps.names, sel.Unquoted())
		ps.schemas[sel.Unquoted()] = fs
	}
	if len(ps.names) > 0 {
		s["properties"] = ps
	}
	if len(patterns) > 0 {
		s["patternProperties"] = patterns
	}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	switch {
	case anyLabel != nil && len(anyLabel) == 0:
		// {[string]: _}: an open object of anything, which a bare type: object
		// says in every draft (additionalProperties: true is its default, and an
		// untyped {} under an empty-string pattern is flagged by Inspector
		// --strict). Nothing more is written: the tool list is sent whole to
		// every host, and this shape is in every tool's error.
	case anyLabel != nil:
		// [string]: X constrains declared fields too; additionalProperties does
		// not, so it is exact only when nothing is declared.
		if len(ps.names) > 0 || len(patterns) > 0 {
			return nil, fmt.Errorf("%v: [string]: beside declared fields has no JSON Schema form", v.Path())
		}
		s["additionalProperties"] = anyLabel
	case isClosed(v):
		s["additionalProperties"] = false
	}
	return s, nil
}

// HasDefault reports whether v has a default that the schema advertises: a concrete
// scalar or a non-empty list. CUE gives every open list the default [], which is not
// a default anyone wrote, and a struct's "default" is the struct itself. The contract
// differ (internal/compat) reads defaults the same way.
func HasDefault(v cue.Value) bool {
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

// closeNested marks the objects of s, the schema of the field at sels in parent,
// closed when the parent refuses an unknown field there. A struct nested in a
// definition (exif in #IngestData, the elements of diff's changed) is closed, but
// taken out of its parent it no longer says so, so isClosed alone would call it open.
func closeNested(parent cue.Value, sels []cue.Selector, s map[string]any) {
	switch s["type"] {
	case "object":
		if _, ok := s["additionalProperties"]; !ok {
			p := cue.MakePath(append(slices.Clone(sels), cue.Str(closedProbe))...)
			if parent.FillPath(p, 1).LookupPath(p).Err() != nil {
				s["additionalProperties"] = false
			}
		}
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			closeNested(parent, append(slices.Clone(sels), cue.Index(0)), items)
		}
	}
	arms, _ := s["anyOf"].([]any)
	for _, arm := range arms {
		closeNested(parent, sels, arm.(map[string]any))
	}
}

// closedProbe is a label no contract declares; asking whether a struct allows it tells
// whether the struct is closed. It is interned once.
// It matches no label pattern the contracts use (they are lower-case identifiers), so
// a definition whose only fields are [#Name]: X is seen as closed.
const closedProbe = "Darkroom closed probe"

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
	// Every element must have one schema, said once in items: a tuple of different
	// schemas has no spelling that draft-07 and 2020-12 read alike.
	var items map[string]any
	for i := range n {
		ps, err := schemaOf(v.LookupPath(cue.MakePath(cue.Index(i))), depth+1)
		if err != nil {
			return nil, err
		}
		if items != nil && !jsonEqual(items, ps) {
			return nil, fmt.Errorf("%v: a tuple of different element schemas has no form that draft-07 and 2020-12 read alike", v.Path())
		}
		items = ps
	}
	if n > 0 {
		s["minItems"] = n
	}
	if rest.Exists() {
		rs, err := schemaOf(rest, depth+1)
		if err != nil {
			return nil, err
		}
		if items != nil && !jsonEqual(items, rs) {
			return nil, fmt.Errorf("%v: list elements after the first %d have another schema, which has no form that draft-07 and 2020-12 read alike", v.Path(), n)
		}
		items = rs
	}
	if len(items) > 0 {
		s["items"] = items
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
	if len(ts) != 1 {
		// Several kinds are a disjunction, which anyOf says; a list of types is
		// refused by Ajv strict.
		return nil
	}
	return ts[0]
}

// jsonNumber keeps integral bounds integral in the generated JSON.
func jsonNumber(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// PatternRegexp returns the regular expression a pattern constraint's label must
// match: a regexp constraint, or "" for a string (any label) or a reference to one;
// false when the pattern is something else (a custom rule). The contract differ
// reads pattern fields with it too.
func PatternRegexp(p cue.Value) (string, bool) {
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

// needsNewlineGuard reports whether re (RE2 syntax, as CUE reads it) is anchored at
// both ends and can never match a newline. For such a pattern a string with a newline
// never matches in RE2 or ECMA-262, but Python's re.search lets $ match before a final
// newline; not: {pattern: "\\n"} makes Python agree and changes nothing elsewhere.
func needsNewlineGuard(re string) bool {
	r, err := syntax.Parse(re, syntax.Perl)
	if err != nil || r.Op != syntax.OpConcat || len(r.Sub) < 2 {
		return false
	}
	if r.Sub[0].Op != syntax.OpBeginText || r.Sub[len(r.Sub)-1].Op != syntax.OpEndText {
		return false
	}
	return !matchesNewline(r)
}

func matchesNewline(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpLiteral:
		return slices.Contains(r.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(r.Rune); i += 2 {
			if r.Rune[i] <= '\n' && '\n' <= r.Rune[i+1] {
				return true
			}
		}
		return false
	}
	for _, sub := range r.Sub {
		if matchesNewline(sub) {
			return true
		}
	}
	return false
}
