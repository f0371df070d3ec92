package vocab

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"darkroom/internal/contract"
)

// Checking entries one shape at a time.
//
// Where the time goes: unifying a pack with #Manifest costs CUE about a millisecond
// per entry, nearly all of it in #OperationUse (the disjunction over the catalog's
// operation names and the comprehension over the operation's arguments, evaluated
// afresh for every use), so a 4 MiB pack of eight thousand entries took 15 s. Yet
// the entries of a large pack repeat themselves: what differs from one entry to the
// next is mostly prose (its description, aliases and examples, its parameters'
// descriptions), and the schema never looks at prose beyond its own field.
//
// So a YAML or JSON pack is checked in three parts, all by CUE against the
// contract's own definitions:
//   - the prose: every distinct value of each free field (see freeFields), against
//     that field's schema as #Manifest gives it, in one unification per field;
//   - the rest of each entry, once per distinct shape: the entry with its free
//     fields replaced by one value that passed, unified with the entry schema
//     #Manifest gives (entries: [#Name]: #Entry); entries of the same shape share
//     the verdict and the #values schema;
//   - the pack without its entries (name, description, masks and any stray field),
//     unified with #Manifest, together with every entry that failed above or that
//     this path cannot take apart.
//
// The third part is what a bad pack's message comes from: it is cue vet's check of
// the same file with the passing entries left out, and entries are independent
// under #Manifest, so it prints what cue vet prints. The split is sound only while
// the free fields are independent of the rest of the entry: freeFieldsIndependent
// reads the contract's syntax for that, and when it does not hold (or the pack is
// not plain data) the whole pack is checked as one value, as before.

// freeFields are the entry fields a shape leaves out, and the parameter field.
var (
	freeFields     = []string{"description", "aliases", "examples"}
	freeParamField = "description"
)

// Checked is a pack that satisfies #Manifest.
type Checked struct {
	// top is the pack unified with #Manifest; it may lack the entries, which are
	// checked on their own.
	top     cue.Value
	entries []checkedEntry // in the pack's order
}

type checkedEntry struct {
	name   string
	json   []byte    // the entry's fields as checked
	values cue.Value // its #values schema
}

// wholeChecked is a pack checked as one value.
func wholeChecked(v cue.Value) (*Checked, error) {
	ck := &Checked{top: v}
	return ck, ck.addEntries(v.LookupPath(cue.ParsePath("entries")))
}

func (ck *Checked) addEntries(entries cue.Value) error {
	if !entries.Exists() {
		return nil
	}
	it, err := entries.Fields()
	if err != nil {
		return err
	}
	for it.Next() {
		b, err := it.Value().MarshalJSON()
		if err != nil {
			return err
		}
		ck.entries = append(ck.entries, checkedEntry{
			name:   it.Selector().Unquoted(),
			json:   b,
			values: it.Value().LookupPath(cue.MakePath(cue.Def("values"))),
		})
	}
	return nil
}

// shapePlan is what the shape check needs of a contract, worked out once.
type shapePlan struct {
	ok      bool      // the split is sound for this contract
	entries cue.Value // #Manifest.entries, to ask which names it allows
	entry   cue.Value // the schema of one entry
	free    map[string]cue.Value
	param   cue.Value // the schema of a parameter's free field
}

var plans sync.Map // *contract.Contract -> *shapePlan

func planFor(c *contract.Contract) *shapePlan {
	if p, ok := plans.Load(c); ok {
		return p.(*shapePlan)
	}
	m := c.Manifest()
	p := &shapePlan{entries: m.LookupPath(cue.ParsePath("entries")), free: map[string]cue.Value{}}
	// The schema of one entry and of one parameter, as #Manifest gives them to any
	// name its single pattern allows (onePattern checks there is just one).
	ctx := m.Context()
	p.entry = m.Unify(ctx.CompileString("entries: probe_entry: {}")).LookupPath(cue.ParsePath("entries.probe_entry"))
	withParam := p.entry.Unify(ctx.CompileString("parameters: probe_parameter: {}"))
	p.ok = p.entry.Exists() && p.entries.Allows(cue.Str("probe_entry")) &&
		onePattern(c.Syntax()) && freeFieldsIndependent(c.Syntax())
	for _, f := range freeFields {
		p.free[f] = p.entry.LookupPath(cue.MakePath(cue.Str(f).Required()))
		p.ok = p.ok && p.free[f].Exists()
	}
	p.param = withParam.LookupPath(cue.MakePath(cue.Str("parameters"), cue.Str("probe_parameter"), cue.Str(freeParamField).Required()))
	p.ok = p.ok && p.param.Exists()
	plans.Store(c, p)
	return p
}

// onePattern reports whether #Manifest constrains its entries, and an entry its
// parameters, by one pattern and nothing else (entries: {[#Name]: #Entry}), so that
// every entry name the pattern allows gets the same schema. It reads the syntax:
// the pattern's value cannot be looked up through the API for a pattern other than
// [string].
func onePattern(files []*ast.File) bool {
	found := 0
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			name, _, _ := ast.LabelName(fd.Label)
			var inner string
			switch name {
			case "#Manifest":
				inner = "entries"
			case "#Entry":
				inner = "parameters"
			default:
				continue
			}
			found++
			sl, ok := fd.Value.(*ast.StructLit)
			if !ok {
				return false
			}
			for _, d := range sl.Elts {
				x, ok := d.(*ast.Field)
				if !ok {
					continue
				}
				if n, _, _ := ast.LabelName(x.Label); n != inner {
					continue
				}
				v := x.Value
				if sl, ok := v.(*ast.StructLit); !ok || len(sl.Elts) != 1 {
					return false
				} else if pf, ok := sl.Elts[0].(*ast.Field); !ok {
					return false
				} else if _, ok := pf.Label.(*ast.ListLit); !ok {
					return false
				}
			}
		}
	}
	return found == 2
}

// freeFieldsIndependent reports whether nothing in the contract can tie a free
// field to anything else: no expression names one (as an identifier, a selector or
// a string), and no field of that name is declared inside a comprehension, where a
// condition on other fields could constrain it. It is deliberately blunt: it looks
// at every file of the package, so a reference anywhere turns the split off.
func freeFieldsIndependent(files []*ast.File) bool {
	free := map[string]bool{freeParamField: true}
	for _, f := range freeFields {
		free[f] = true
	}
	if len(files) == 0 {
		return false
	}
	ok := true
	var walk func(n ast.Node, inComprehension bool)
	walk = func(n ast.Node, inComprehension bool) {
		ast.Walk(n, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Field:
				// A computed label, (name): ..., is left to the checks on
				// references: for it to name a free field, the contract would have
				// to spell the name somewhere.
				name, _, _ := ast.LabelName(x.Label)
				if free[name] && inComprehension {
					ok = false
				}
				if _, isIdent := x.Label.(*ast.Ident); !isIdent {
					walk(x.Label, inComprehension)
				}
				if x.Value != nil {
					walk(x.Value, inComprehension)
				}
				return false
			case *ast.Comprehension:
				walk(x.Value, true)
				for _, cl := range x.Clauses {
					walk(cl, true)
				}
				return false
			case *ast.Ident:
				if free[x.Name] {
					ok = false
				}
			case *ast.BasicLit:
				if s := strings.Trim(x.Value, `"'#`); free[s] {
					ok = false
				}
			}
			return true
		}, nil)
	}
	for _, f := range files {
		walk(f, false)
	}
	return ok
}

// slotKey names a free field's value in the pack for the batch check: which field,
// and the value's text.
type slotUse struct {
	field string // "description", "aliases", ..., or "parameters.NAME.description"
	kind  string // the schema it is checked against: a free field, or "param"
	key   string
	expr  ast.Expr
}

// entryShape is one entry taken apart.
type entryShape struct {
	name  string
	field *ast.Field
	key   string
	slots []slotUse
}

// splitEntry takes an entry apart into its shape key and its free values. ok is
// false for anything but plain data.
func splitEntry(name string, f *ast.Field) (entryShape, bool) {
	es := entryShape{name: name, field: f}
	sl, ok := f.Value.(*ast.StructLit)
	if !ok {
		return es, false
	}
	var b strings.Builder
	b.WriteByte('{')
	for _, d := range sl.Elts {
		fd, ok := d.(*ast.Field)
		if !ok || fd.Constraint != 0 {
			return es, false
		}
		label, _, err := ast.LabelName(fd.Label)
		if err != nil {
			return es, false
		}
		fmt.Fprintf(&b, "%q:", label)
		switch {
		case isFree(label):
			k, ok := dataKey(fd.Value)
			if !ok {
				return es, false
			}
			es.slots = append(es.slots, slotUse{field: label, kind: label, key: k, expr: fd.Value})
			b.WriteString("\x00")
		case label == "parameters":
			ps, ok := fd.Value.(*ast.StructLit)
			if !ok {
				k, ok := dataKey(fd.Value)
				if !ok {
					return es, false
				}
				b.WriteString(k)
				break
			}
			b.WriteByte('{')
			for _, pd := range ps.Elts {
				pf, ok := pd.(*ast.Field)
				if !ok || pf.Constraint != 0 {
					return es, false
				}
				pname, _, err := ast.LabelName(pf.Label)
				if err != nil {
					return es, false
				}
				fmt.Fprintf(&b, "%q:", pname)
				pv, ok := pf.Value.(*ast.StructLit)
				if !ok {
					k, ok := dataKey(pf.Value)
					if !ok {
						return es, false
					}
					b.WriteString(k)
					b.WriteByte(',')
					continue
				}
				b.WriteByte('{')
				for _, xd := range pv.Elts {
					xf, ok := xd.(*ast.Field)
					if !ok || xf.Constraint != 0 {
						return es, false
					}
					xname, _, err := ast.LabelName(xf.Label)
					if err != nil {
						return es, false
					}
					fmt.Fprintf(&b, "%q:", xname)
					k, ok := dataKey(xf.Value)
					if !ok {
						return es, false
					}
					if xname == freeParamField {
						es.slots = append(es.slots, slotUse{field: "parameters\x00" + pname, kind: "param", key: k, expr: xf.Value})
						b.WriteString("\x00")
					} else {
						b.WriteString(k)
					}
					b.WriteByte(',')
				}
				b.WriteString("},")
			}
			b.WriteByte('}')
		default:
			k, ok := dataKey(fd.Value)
			if !ok {
				return es, false
			}
			b.WriteString(k)
		}
		b.WriteByte(',')
	}
	b.WriteByte('}')
	es.key = b.String()
	return es, true
}

func isFree(label string) bool {
	for _, f := range freeFields {
		if f == label {
			return true
		}
	}
	return false
}

// dataKey writes plain data (what a YAML or JSON reader produces) as text that
// tells apart every two values CUE tells apart: literals keep their kind and their
// spelling (1 and 1.0 differ, as int and float do). ok is false for anything else.
func dataKey(e ast.Expr) (string, bool) {
	var b strings.Builder
	ok := writeKey(&b, e)
	return b.String(), ok
}

func writeKey(b *strings.Builder, e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		fmt.Fprintf(b, "%d:%s", x.Kind, x.Value)
	case *ast.Ident:
		// null, true and false, as the JSON reader writes them.
		switch x.Name {
		case "null", "true", "false":
			b.WriteString(x.Name)
		default:
			return false
		}
	case *ast.UnaryExpr:
		// A negative number.
		lit, ok := x.X.(*ast.BasicLit)
		if !ok {
			return false
		}
		fmt.Fprintf(b, "%s%d:%s", x.Op, lit.Kind, lit.Value)
	case *ast.ListLit:
		b.WriteByte('[')
		for _, el := range x.Elts {
			if !writeKey(b, el) {
				return false
			}
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case *ast.StructLit:
		b.WriteByte('{')
		for _, d := range x.Elts {
			f, ok := d.(*ast.Field)
			if !ok || f.Constraint != 0 {
				return false
			}
			label, _, err := ast.LabelName(f.Label)
			if err != nil {
				return false
			}
			fmt.Fprintf(b, "%q:", label)
			if !writeKey(b, f.Value) {
				return false
			}
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// checkShapes checks a pack of plain data (decls are its top-level declarations;
// build makes a CUE value of a pack with other declarations) as the comment at the
// top of this file says.
func checkShapes(c *contract.Contract, src Source, decls []ast.Decl, build func([]ast.Decl) cue.Value) (*Checked, error) {
	whole := func() (*Checked, error) { return validateWhole(c, src, build(decls)) }
	p := planFor(c)
	if !p.ok {
		return whole()
	}
	at := -1
	for i, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		name, _, err := ast.LabelName(f.Label)
		if err != nil {
			return whole()
		}
		if name == "entries" {
			if at >= 0 {
				return whole()
			}
			at = i
		}
	}
	if at < 0 {
		return whole()
	}
	entriesField := decls[at].(*ast.Field)
	sl, ok := entriesField.Value.(*ast.StructLit)
	if !ok || entriesField.Constraint != 0 {
		return whole()
	}

	// Take every entry apart; what cannot be goes to the whole check.
	var slow []ast.Decl
	var shapes []entryShape
	seen := map[string]bool{}
	for _, d := range sl.Elts {
		f, ok := d.(*ast.Field)
		if !ok {
			return whole()
		}
		name, _, err := ast.LabelName(f.Label)
		if err != nil || seen[name] {
			return whole() // duplicate names unify in CUE: leave that to it
		}
		seen[name] = true
		es, ok := splitEntry(name, f)
		if !ok || f.Constraint != 0 || !p.entries.Allows(cue.Str(name)) {
			slow = append(slow, d)
			continue
		}
		shapes = append(shapes, es)
	}

	// The free values: each distinct one, by field, in one unification.
	ctx := c.Value.Context()
	passed := map[string]map[string]bool{} // kind -> key -> passed
	reps := map[string]ast.Expr{}          // kind -> a value that passed
	values := map[string]map[string]json.RawMessage{}
	byKind := map[string][]slotUse{}
	for _, es := range shapes {
		for _, s := range es.slots {
			if passed[s.kind] == nil {
				passed[s.kind] = map[string]bool{}
				values[s.kind] = map[string]json.RawMessage{}
			}
			if _, dup := passed[s.kind][s.key]; !dup {
				passed[s.kind][s.key] = false
				byKind[s.kind] = append(byKind[s.kind], s)
			}
		}
	}
	for kind, uses := range byKind {
		schema := p.param
		if kind != "param" {
			schema = p.free[kind]
		}
		if err := checkFree(ctx, schema, uses, passed[kind], values[kind]); err != nil {
			return nil, err
		}
		for _, u := range uses {
			if passed[kind][u.key] {
				reps[kind] = u.expr
				break
			}
		}
	}

	// The rest, once per shape.
	type verdict struct {
		ok     bool
		fields map[string]json.RawMessage
		values cue.Value
	}
	verdicts := map[string]*verdict{}
	var fast []*entryShape
	for i := range shapes {
		es := &shapes[i]
		good := true
		for _, s := range es.slots {
			good = good && passed[s.kind][s.key]
		}
		if !good {
			slow = append(slow, es.field)
			continue
		}
		v := verdicts[es.key]
		if v == nil {
			v = &verdict{}
			verdicts[es.key] = v
			u := ctx.BuildExpr(substitute(es.field.Value.(*ast.StructLit), reps)).Unify(p.entry)
			if u.Validate(cue.Concrete(true)) == nil {
				if b, err := u.MarshalJSON(); err == nil && json.Unmarshal(b, &v.fields) == nil {
					v.ok = true
					v.values = u.LookupPath(cue.MakePath(cue.Def("values")))
				}
			}
		}
		if !v.ok {
			slow = append(slow, es.field)
			continue
		}
		fast = append(fast, es)
	}

	// The pack without the entries that passed: cue vet's check, and its message.
	rest := make([]ast.Decl, len(decls))
	copy(rest, decls)
	ef := *entriesField
	esl := *sl
	esl.Elts = slow
	ef.Value = &esl
	rest[at] = &ef
	ck, err := validateWhole(c, src, build(rest))
	if err != nil {
		return nil, err
	}
	slowChecked := map[string]checkedEntry{}
	for _, e := range ck.entries {
		slowChecked[e.name] = e
	}
	ck.entries = ck.entries[:0]
	fi := 0
	for _, d := range sl.Elts {
		name, _, _ := ast.LabelName(d.(*ast.Field).Label)
		if e, ok := slowChecked[name]; ok {
			ck.entries = append(ck.entries, e)
			continue
		}
		es := fast[fi]
		fi++
		v := verdicts[es.key]
		b, err := withFree(v.fields, es.slots, values)
		if err != nil {
			return nil, fmt.Errorf("%s: entries.%s: %w", src.Name, name, err)
		}
		ck.entries = append(ck.entries, checkedEntry{name: name, json: b, values: v.values})
	}
	return ck, nil
}

// checkFree unifies every distinct value of one free field with its schema, as the
// fields of one struct, and marks which passed; a failure is then found by checking
// the values one by one (a bad pack's message comes from the whole check anyway).
func checkFree(ctx *cue.Context, schema cue.Value, uses []slotUse, passed map[string]bool, values map[string]json.RawMessage) error {
	elts := make([]ast.Decl, len(uses))
	for i, u := range uses {
		elts[i] = &ast.Field{Label: ast.NewString(fmt.Sprint(i)), Value: u.expr}
	}
	all := ctx.BuildExpr(&ast.StructLit{Elts: elts}).FillPath(cue.MakePath(cue.AnyString), schema)
	if all.Validate(cue.Concrete(true)) == nil {
		var got []json.RawMessage
		b, err := all.MarshalJSON()
		if err != nil {
			return err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		got = make([]json.RawMessage, len(uses))
		for i := range uses {
			got[i] = m[fmt.Sprint(i)]
		}
		for i, u := range uses {
			passed[u.key] = true
			values[u.key] = got[i]
		}
		return nil
	}
	for _, u := range uses {
		v := ctx.BuildExpr(u.expr).Unify(schema)
		if v.Validate(cue.Concrete(true)) != nil {
			continue
		}
		b, err := v.MarshalJSON()
		if err != nil {
			continue
		}
		passed[u.key] = true
		values[u.key] = b
	}
	return nil
}

// substitute returns the entry with each free field's value replaced by reps'.
func substitute(sl *ast.StructLit, reps map[string]ast.Expr) *ast.StructLit {
	out := &ast.StructLit{Elts: make([]ast.Decl, len(sl.Elts))}
	for i, d := range sl.Elts {
		f := d.(*ast.Field)
		label, _, _ := ast.LabelName(f.Label)
		switch {
		case isFree(label):
			f = &ast.Field{Label: f.Label, Value: reps[label]}
		case label == "parameters":
			if ps, ok := f.Value.(*ast.StructLit); ok {
				nps := &ast.StructLit{Elts: make([]ast.Decl, len(ps.Elts))}
				for j, pd := range ps.Elts {
					pf := pd.(*ast.Field)
					if pv, ok := pf.Value.(*ast.StructLit); ok {
						npv := &ast.StructLit{Elts: make([]ast.Decl, len(pv.Elts))}
						for k, xd := range pv.Elts {
							xf := xd.(*ast.Field)
							if name, _, _ := ast.LabelName(xf.Label); name == freeParamField {
								xf = &ast.Field{Label: xf.Label, Value: reps["param"]}
							}
							npv.Elts[k] = xf
						}
						pf = &ast.Field{Label: pf.Label, Value: npv}
					}
					nps.Elts[j] = pf
				}
				f = &ast.Field{Label: f.Label, Value: nps}
			}
		}
		out.Elts[i] = f
	}
	return out
}

// withFree writes an entry's checked fields with its own free values put back.
func withFree(fields map[string]json.RawMessage, slots []slotUse, values map[string]map[string]json.RawMessage) ([]byte, error) {
	out := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		out[k] = v
	}
	var params map[string]map[string]json.RawMessage
	for _, s := range slots {
		v := values[s.kind][s.key]
		if s.kind != "param" {
			out[s.field] = v
			continue
		}
		if params == nil {
			if err := json.Unmarshal(fields["parameters"], &params); err != nil {
				return nil, err
			}
		}
		pname := strings.TrimPrefix(s.field, "parameters\x00")
		if params[pname] == nil {
			return nil, fmt.Errorf("parameter %s missing from its checked shape", pname)
		}
		params[pname][freeParamField] = v
	}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		out["parameters"] = b
	}
	return json.Marshal(out)
}
