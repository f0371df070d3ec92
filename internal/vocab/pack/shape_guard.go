package pack

// When the shape check may stand in for the whole check: what #Manifest reads of an entry, read from its syntax.

import (
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
)

// onePattern reports whether #Manifest constrains its entries, and #Entry its
// parameters, by one pattern and nothing else (entries: {[#Name]: #Entry}), so that
// every entry name the pattern allows gets the same schema. Another declaration of
// #Manifest may only say entries: _ (presets.cue does). #Entry's fields include
// those of the definitions it embeds (#EntryValues), which may repeat the pattern
// with the same label: any name one allows, the other does. It reads the syntax:
// the pattern's value cannot be looked up through the API for a pattern other than
// [string].
func onePattern(files []*ast.File) bool {
	decls := declsByName(files)
	// labels are the pattern labels constraining inner among elts, as written; ok
	// is false when inner is declared any other way but _.
	labels := func(elts []ast.Decl, inner string) (labels []string, ok bool) {
		for _, d := range elts {
			switch x := d.(type) {
			case *ast.EmbedDecl:
				return nil, false
			case *ast.Field:
				if n, _, _ := ast.LabelName(x.Label); n != inner {
					continue
				}
				if id, ok := x.Value.(*ast.Ident); ok && id.Name == "_" {
					continue
				}
				sl, ok := x.Value.(*ast.StructLit)
				if !ok || len(sl.Elts) != 1 {
					return nil, false
				}
				pf, ok := sl.Elts[0].(*ast.Field)
				if !ok {
					return nil, false
				}
				if _, ok := pf.Label.(*ast.ListLit); !ok {
					return nil, false
				}
				b, err := format.Node(pf.Label)
				if err != nil {
					return nil, false
				}
				labels = append(labels, string(b))
			}
		}
		return labels, true
	}
	var manifest []string
	for _, fd := range decls["#Manifest"] {
		sl, ok := fd.Value.(*ast.StructLit)
		if !ok {
			return false
		}
		l, ok := labels(sl.Elts, "entries")
		if !ok {
			return false
		}
		manifest = append(manifest, l...)
	}
	elts, ok := structElts(decls, "#Entry")
	if !ok {
		return false
	}
	entry, ok := labels(elts, "parameters")
	if !ok || len(entry) == 0 {
		return false
	}
	for _, l := range entry[1:] {
		if l != entry[0] {
			return false
		}
	}
	return len(manifest) == 1
}

// declsByName indexes the package's top-level fields by label.
func declsByName(files []*ast.File) map[string][]*ast.Field {
	decls := map[string][]*ast.Field{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				name, _, _ := ast.LabelName(fd.Label)
				decls[name] = append(decls[name], fd)
			}
		}
	}
	return decls
}

// structElts returns the elements of def's struct, with those of each definition it
// embeds in the embedding's place (#Entry embeds #EntryValues). ok is false unless
// def and every definition it embeds is declared exactly once, as a struct literal,
// and every embedding is a plain reference to such a definition.
func structElts(decls map[string][]*ast.Field, def string) ([]ast.Decl, bool) {
	var out []ast.Decl
	seen := map[string]bool{}
	var add func(def string) bool
	add = func(def string) bool {
		if seen[def] || len(decls[def]) != 1 {
			return false
		}
		seen[def] = true
		sl, ok := decls[def][0].Value.(*ast.StructLit)
		if !ok {
			return false
		}
		for _, d := range sl.Elts {
			if e, ok := d.(*ast.EmbedDecl); ok {
				id, ok := e.Expr.(*ast.Ident)
				if !ok || !strings.HasPrefix(id.Name, "#") || !add(id.Name) {
					return false
				}
				continue
			}
			out = append(out, d)
		}
		return true
	}
	return out, add(def)
}

// freeFieldsIndependent reports whether nothing in the contract can tie a free
// field to anything else: no expression names one (as an identifier, a selector or
// a string), and no field of that name is declared inside a comprehension, where a
// condition on other fields could constrain it. It is deliberately blunt: it looks
// at every declaration a pack can meet (manifestDecls), so a reference anywhere in
// them turns the split off.
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
	for _, d := range manifestDecls(files) {
		walk(d, false)
	}
	return ok
}

// manifestDecls returns the package's top-level declarations a pack can meet:
// #Manifest and, transitively, every top-level field its expressions name. Nothing
// else in the package is unified with a pack, so nothing else can constrain one
// (grants.cue reading grants[g].description, say, does not).
func manifestDecls(files []*ast.File) []ast.Node {
	byName := map[string][]ast.Node{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				if name, _, err := ast.LabelName(fd.Label); err == nil {
					byName[name] = append(byName[name], fd)
				}
			}
		}
	}
	var out []ast.Node
	seen := map[string]bool{}
	queue := []string{"#Manifest"}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, d := range byName[name] {
			out = append(out, d)
			ast.Walk(d, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && byName[id.Name] != nil && !seen[id.Name] {
					queue = append(queue, id.Name)
				}
				return true
			}, nil)
		}
	}
	return out
}

// freeBatch is how many free values one unification checks.
const freeBatch = 128
