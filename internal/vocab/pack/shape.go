package pack

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
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
// So a YAML or JSON pack is checked in two parts, both by CUE against the
// contract's own definitions:
//   - the pack through #Manifest, as cue vet checks it, but with only the first
//     entry of each shape: an entry's shape is the entry without its free fields
//     (see freeFields), literals spelled as written;
//   - every other entry's free values, each distinct one once, against its field's
//     schema as #Manifest gives it, a batch of values to a unification.
// An entry whose shape was checked and whose own prose passed has the verdict (and
// the checked fields) of the entry that stood for its shape. An entry this path
// cannot take apart, or whose prose failed, goes into the first part on its own
// account; when the entry standing for a shape fails, its shape's entries are
// checked again with it, so a bad pack's message is what cue vet prints for the
// whole file (entries are independent under #Manifest). For a pack of eight
// thousand entries of a few shapes that is two unifications instead of eight
// thousand #Entry evaluations.
//
// The split is sound only while the free fields are independent of the rest of the
// entry: freeFieldsIndependent reads the contract's syntax for that, and when it
// does not hold (or the pack is not plain data) the whole pack is checked as one
// value, as before.

// freeFields are the entry fields a shape leaves out, and the parameter field.
var (
	freeFields     = []string{"description", "aliases", "examples"}
	freeParamField = "description"
)

// Checked is a pack that satisfies #Manifest.
type Checked struct {
	pack, description string
	masks             json.RawMessage // with their defaults filled in
	presets           json.RawMessage
	entries           []checkedEntry // in the pack's order
}

type checkedEntry struct {
	name string
	json []byte // the entry's fields as checked
}

// plain is the verdict as the vocabulary is built from it.
func (ck *Checked) plain() *vocab.Checked {
	out := &vocab.Checked{Pack: ck.pack, Description: ck.description, Masks: ck.masks, Presets: ck.presets}
	for _, e := range ck.entries {
		out.Entries = append(out.Entries, vocab.CheckedEntry{Name: e.name, JSON: e.json})
	}
	return out
}

// wholeChecked is a pack checked as one value.
func wholeChecked(v cue.Value) (*Checked, error) {
	ck := &Checked{}
	for _, f := range []struct {
		name string
		dst  any
	}{{"pack", &ck.pack}, {"description", &ck.description}, {"masks", &ck.masks}, {"presets", &ck.presets}} {
		fv := v.LookupPath(cue.ParsePath(f.name))
		if !fv.Exists() {
			continue
		}
		b, err := fv.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, f.dst); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
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
		ck.entries = append(ck.entries, checkedEntry{name: it.Selector().Unquoted(), json: b})
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
	// prose are the free fields' schemas compiled to Go, by kind, where they
	// could be (prose.go); a kind without one is checked by CUE.
	prose map[string]proseMatcher
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
	p.prose = map[string]proseMatcher{}
	if exprs, ok := proseSchemas(c.Syntax()); ok {
		for kind, e := range exprs {
			if m := compileProse(e); m != nil {
				p.prose[kind] = m
			}
		}
	}
	plans.Store(c, p)
	return p
}

// slotUse is a free field's value in the pack for the batch check: which field,
// and the value's text.
type slotUse struct {
	field string // "description", "aliases", "examples", or "parameters\x00NAME" (a parameter's description)
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
	// Room for the entry's free fields and a parameter's, appended one by one.
	es := entryShape{name: name, field: f, slots: make([]slotUse, 0, len(freeFields)+2)}
	sl, ok := f.Value.(*ast.StructLit)
	if !ok {
		return es, false
	}
	var b strings.Builder
	b.Grow(512)
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
		writeLabel(&b, label)
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
				if !writeKey(&b, fd.Value) {
					return es, false
				}
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
				writeLabel(&b, pname)
				pv, ok := pf.Value.(*ast.StructLit)
				if !ok {
					if !writeKey(&b, pf.Value) {
						return es, false
					}
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
					writeLabel(&b, xname)
					if xname == freeParamField {
						k, ok := dataKey(xf.Value)
						if !ok {
							return es, false
						}
						es.slots = append(es.slots, slotUse{field: "parameters\x00" + pname, kind: "param", key: k, expr: xf.Value})
						b.WriteString("\x00")
					} else if !writeKey(&b, xf.Value) {
						return es, false
					}
					b.WriteByte(',')
				}
				b.WriteString("},")
			}
			b.WriteByte('}')
		default:
			if !writeKey(&b, fd.Value) {
				return es, false
			}
		}
		b.WriteByte(',')
	}
	b.WriteByte('}')
	es.key = b.String()
	return es, true
}

// writeLabel writes a field's name into a shape key, quoted so that no name can
// run into what follows it.
func writeLabel(b *strings.Builder, label string) {
	var buf [64]byte
	b.Write(strconv.AppendQuote(buf[:0], label))
	b.WriteByte(':')
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
	b.Grow(96) // a line of prose, without growing the buffer several times
	ok := writeKey(&b, e)
	return b.String(), ok
}

func writeKey(b *strings.Builder, e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		b.WriteString(strconv.Itoa(int(x.Kind)))
		b.WriteByte(':')
		b.WriteString(x.Value)
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
		b.WriteString(x.Op.String())
		b.WriteString(strconv.Itoa(int(lit.Kind)))
		b.WriteByte(':')
		b.WriteString(lit.Value)
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
			writeLabel(b, label)
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
		switch name {
		case "entries":
			if at >= 0 {
				return whole()
			}
			at = i
		case "presets":
			// Presets name entries of their own pack (presets.cue): every entry
			// must be there for them.
			return whole()
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

	// Take every entry apart. The first entry of each shape stands for it and is
	// checked whole; so is what cannot be taken apart.
	type entry struct {
		entryShape
		rep  *entry // the entry checked whole for this shape; itself for the first
		slow bool   // checked whole, on its own account
	}
	entries := make([]*entry, len(sl.Elts))
	reps := map[string]*entry{}
	seen := map[string]bool{}
	for i, d := range sl.Elts {
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
		e := &entry{entryShape: es}
		entries[i] = e
		switch {
		case !ok || f.Constraint != 0 || !p.entries.Allows(cue.Str(name)):
			e.slow = true
			e.rep = e
		case reps[es.key] == nil:
			reps[es.key] = e
			e.rep = e
		default:
			e.rep = reps[es.key]
		}
	}

	// The prose of the other entries: each distinct value, by field, against the
	// field's schema.
	ctx := c.Value.Context()
	passed := map[string]map[string]bool{} // kind -> key -> passed
	values := map[string]map[string]json.RawMessage{}
	byKind := map[string][]slotUse{}
	for _, e := range entries {
		if e.rep == e {
			continue
		}
		for _, s := range e.slots {
			if passed[s.kind] == nil {
				passed[s.kind] = map[string]bool{}
				values[s.kind] = map[string]json.RawMessage{}
			}
			if _, dup := passed[s.kind][s.key]; dup {
				continue
			}
			passed[s.kind][s.key] = false
			if m := p.prose[s.kind]; m != nil {
				if v, ok := m(s.expr); ok {
					b, err := proseJSON(v)
					if err != nil {
						return nil, err
					}
					passed[s.kind][s.key] = true
					values[s.kind][s.key] = b
					continue
				}
			}
			byKind[s.kind] = append(byKind[s.kind], s)
		}
	}
	for kind, uses := range byKind {
		schema := p.param
		if kind != "param" {
			schema = p.free[kind]
		}
		// In batches: CUE finds a struct's fields by a linear search, so one struct
		// of every value would cost the square of their number.
		for len(uses) > 0 {
			n := min(len(uses), freeBatch)
			if err := checkFree(ctx, schema, uses[:n], passed[kind], values[kind]); err != nil {
				return nil, err
			}
			uses = uses[n:]
		}
	}
	for _, e := range entries {
		for _, s := range e.slots {
			if e.rep != e && !passed[s.kind][s.key] {
				e.slow = true
			}
		}
	}

	// The pack with only the entries that stand for others or are checked on their
	// own account: cue vet's check, and its message. When an entry that stands for
	// others fails, they fail as it does: check them all, for cue vet's message.
	pruned := func(keep func(*entry) bool) []ast.Decl {
		var elts []ast.Decl
		for i, e := range entries {
			if keep(e) {
				elts = append(elts, sl.Elts[i])
			}
		}
		rest := make([]ast.Decl, len(decls))
		copy(rest, decls)
		ef := *entriesField
		esl := *sl
		esl.Elts = elts
		ef.Value = &esl
		rest[at] = &ef
		return rest
	}
	ck, err := validateWhole(c, src, build(pruned(func(e *entry) bool { return e.rep == e || e.slow })))
	if err != nil {
		failed := failedEntries(err)
		if len(failed) == 0 {
			return nil, err
		}
		_, err2 := validateWhole(c, src, build(pruned(func(e *entry) bool {
			return e.rep == e || e.slow || failed[e.rep.name]
		})))
		if err2 == nil {
			return nil, err // cannot be: the same entries fail
		}
		return nil, err2
	}
	checked := map[string]checkedEntry{}
	for _, e := range ck.entries {
		checked[e.name] = e
	}
	ck.entries = ck.entries[:0]
	templates := map[string]*entryTemplate{}
	for _, e := range entries {
		if ce, ok := checked[e.name]; ok {
			ck.entries = append(ck.entries, ce)
			continue
		}
		rep, ok := checked[e.rep.name]
		if !ok {
			return nil, fmt.Errorf("%s: entries.%s: the entry standing for its shape was not checked", src.Name, e.name)
		}
		t := templates[e.rep.name]
		if t == nil {
			if t, err = newTemplate(rep.json); err != nil {
				return nil, fmt.Errorf("%s: entries.%s: %w", src.Name, e.rep.name, err)
			}
			templates[e.rep.name] = t
		}
		b, err := t.withFree(e.slots, values)
		if err != nil {
			return nil, fmt.Errorf("%s: entries.%s: %w", src.Name, e.name, err)
		}
		ck.entries = append(ck.entries, checkedEntry{name: e.name, json: b})
	}
	return ck, nil
}

// failedEntries returns the names of the entries a check's errors are in.
func failedEntries(err error) map[string]bool {
	var pe *Error
	if !errors.As(err, &pe) || pe.cause == nil {
		return nil
	}
	out := map[string]bool{}
	for _, e := range cueerrors.Errors(pe.cause) {
		if path := e.Path(); len(path) >= 2 && path[0] == "entries" {
			name := path[1]
			if n, err := strconv.Unquote(name); err == nil {
				name = n
			}
			out[name] = true
		}
	}
	return out
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
