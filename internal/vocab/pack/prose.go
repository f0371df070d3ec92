package pack

import (
	"encoding/json"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// Checking prose without CUE.
//
// The free fields' schemas are small (description!: string & !="", aliases!:
// [string & !="", ...string & !=""]), yet unifying eight thousand entries' prose
// with them cost CUE a third of a 4 MiB pack's check. So a free field whose schema
// is written only with what proseMatcher understands is checked by a matcher
// compiled from that syntax once per contract. A matcher only ever says "CUE
// accepts this, and this is its value": anything it does not recognise (another
// kind, a bytes literal, a value it cannot prove acceptable) goes to CUE as
// before, so a wrong matcher could at worst pass a value CUE would refuse, which
// TestProseMatcherAgreesWithCUE rules out on a corpus. A schema written any other
// way has no matcher, and all of its values go to CUE.

// proseMatcher reports whether CUE accepts a plain data value (as the YAML and
// JSON readers write it) for a schema, and if so, the value as Go data.
type proseMatcher func(ast.Expr) (any, bool)

// proseSchemas finds the syntax of every free field's schema: the field of that
// name in #Entry, and in #Parameter for a parameter's. ok is false unless each is
// declared exactly once, with nothing around it that could add to it (an embedded
// value in the struct other than a definition declared once, whose fields count as
// the struct's; a second declaration of the struct).
func proseSchemas(files []*ast.File) (map[string]ast.Expr, bool) {
	decls := declsByName(files)
	if len(decls["string"]) > 0 {
		return nil, false // would shadow the predeclared identifier the schemas use
	}
	fieldsOf := func(def string) (map[string]*ast.Field, bool) {
		elts, ok := structElts(decls, def)
		if !ok {
			return nil, false
		}
		out := map[string]*ast.Field{}
		for _, d := range elts {
			switch x := d.(type) {
			case *ast.Field:
				name, _, err := ast.LabelName(x.Label)
				if err != nil {
					return nil, false
				}
				if id, ok := x.Value.(*ast.Ident); ok && id.Name == "_" && x.Constraint == token.ILLEGAL {
					continue // parameters: _ names the field and adds nothing
				}
				if _, dup := out[name]; dup {
					out[name] = nil // declared twice: unify in CUE
					continue
				}
				out[name] = x
			case *ast.Comprehension, *ast.CommentGroup, *ast.Attribute:
				// freeFieldsIndependent refuses a free field declared in a comprehension.
			default:
				return nil, false
			}
		}
		return out, true
	}
	entry, ok := fieldsOf("#Entry")
	if !ok {
		return nil, false
	}
	param, ok := fieldsOf("#Parameter")
	if !ok {
		return nil, false
	}
	// The parameters are #Parameter, by #Entry's one pattern (onePattern).
	pf := entry["parameters"]
	if pf == nil {
		return nil, false
	}
	if sl, ok := pf.Value.(*ast.StructLit); !ok || len(sl.Elts) != 1 {
		return nil, false
	} else if pat, ok := sl.Elts[0].(*ast.Field); !ok {
		return nil, false
	} else if id, ok := pat.Value.(*ast.Ident); !ok || id.Name != "#Parameter" {
		return nil, false
	}
	out := map[string]ast.Expr{}
	for _, f := range freeFields {
		if entry[f] == nil || entry[f].Constraint != token.NOT {
			return nil, false
		}
		out[f] = entry[f].Value
	}
	if param[freeParamField] == nil || param[freeParamField].Constraint != token.NOT {
		return nil, false
	}
	out["param"] = param[freeParamField].Value
	return out, true
}

// compileProse compiles a schema's syntax to a matcher, or returns nil when the
// schema uses anything it does not know: the identifier string, a conjunction, a
// != string literal, a list literal with an optional ... type, parentheses.
func compileProse(e ast.Expr) proseMatcher {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return compileProse(x.X)
	case *ast.Ident:
		if x.Name != "string" {
			return nil
		}
		return func(d ast.Expr) (any, bool) { return stringOf(d) }
	case *ast.BinaryExpr:
		if x.Op != token.AND {
			return nil
		}
		a, b := compileProse(x.X), compileProse(x.Y)
		if a == nil || b == nil {
			return nil
		}
		return func(d ast.Expr) (any, bool) {
			v, ok := a(d)
			if !ok {
				return nil, false
			}
			_, ok = b(d)
			return v, ok
		}
	case *ast.UnaryExpr:
		if x.Op != token.NEQ {
			return nil
		}
		not, ok := stringOf(x.X)
		if !ok {
			return nil
		}
		// Only a string is known to pass: CUE's verdict on another kind is left to CUE.
		return func(d ast.Expr) (any, bool) {
			s, ok := stringOf(d)
			return s, ok && s != not
		}
	case *ast.ListLit:
		var elems []proseMatcher
		var rest proseMatcher
		for i, el := range x.Elts {
			if ell, ok := el.(*ast.Ellipsis); ok {
				if i != len(x.Elts)-1 || ell.Type == nil {
					return nil
				}
				if rest = compileProse(ell.Type); rest == nil {
					return nil
				}
				continue
			}
			m := compileProse(el)
			if m == nil {
				return nil
			}
			elems = append(elems, m)
		}
		return func(d ast.Expr) (any, bool) {
			l, ok := d.(*ast.ListLit)
			if !ok || len(l.Elts) < len(elems) || (rest == nil && len(l.Elts) != len(elems)) {
				return nil, false
			}
			out := make([]any, len(l.Elts))
			for i, el := range l.Elts {
				m := rest
				if i < len(elems) {
					m = elems[i]
				}
				v, ok := m(el)
				if !ok {
					return nil, false
				}
				out[i] = v
			}
			return out, true
		}
	}
	return nil
}

// stringOf returns the value of a string literal; a bytes literal ('...') or
// anything else is not one.
func stringOf(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING || !strings.HasPrefix(strings.TrimLeft(lit.Value, "#"), `"`) {
		return "", false
	}
	s, err := literal.Unquote(lit.Value)
	return s, err == nil
}

// proseJSON writes a matched value as CUE's MarshalJSON would (no HTML escaping).
func proseJSON(v any) (json.RawMessage, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n")), nil
}
