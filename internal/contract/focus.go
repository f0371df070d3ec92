package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

// A CLI call runs one tool, and CUE spends nearly all of a start-up evaluating the
// parts of the contracts package that tool does not refer to (the operation
// catalog, the manifest schema, the other tools). Focus evaluates only what the
// tool needs: the declarations its entry in tools refers to, transitively, by CUE
// itself, from the contract's own files. Everything else is evaluated in full the
// first time something asks for it (any accessor of this package, another tool's
// Check), in the same CUE context, so code that reads more of the contract gets
// what Load would have given it. The check of an entry's value stays out of that:
// the focus keeps #EntryValues (small), which the call's one check unifies.
// Whole-contract checks (a tool's undeclared error codes, the grants) are not
// evaluated again: Focus starts from a Snapshot, which exists only for contract
// files a full load passed.

// lazyFull is what a focused contract needs to evaluate the rest.
type lazyFull struct {
	ctx   *cue.Context
	fsys  fs.FS
	focus *Tool
	once  sync.Once
	full  cue.Value
}

// value is the evaluated contracts package: for a focused contract, the whole of
// it, evaluated on first use.
func (c *Contract) value() cue.Value {
	if c.lazy == nil {
		return c.Value
	}
	c.lazy.once.Do(c.loadFull)
	return c.lazy.full
}

// ensure makes t's CUE values available.
func (c *Contract) ensure(t *Tool) {
	if c.lazy != nil && t != c.lazy.focus {
		c.value()
	}
}

func (c *Contract) loadFull() {
	l := c.lazy
	overlay, _, err := sources(l.fsys, "contracts")
	if err != nil {
		l.full = l.ctx.Encode(err)
		return
	}
	insts := load.Instances([]string{"./contracts"}, &load.Config{Dir: Root, Overlay: overlay})
	if len(insts) != 1 || insts[0].Err != nil {
		l.full = l.ctx.Encode(fmt.Errorf("load contracts: %d instances", len(insts)))
		return
	}
	l.full = l.ctx.BuildInstance(insts[0])
	for _, t := range c.Tools {
		if t == l.focus {
			continue
		}
		tv := l.full.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(t.key)))
		t.params = tv.LookupPath(cue.ParsePath("params"))
		t.result = tv.LookupPath(cue.ParsePath("result"))
	}
}

// Focus makes a Snapshot able to validate the named tool's calls, with CUE, after
// evaluating only the declarations that tool's entry refers to. It fails, leaving
// the snapshot as it was, when the tool is not in the snapshot, when the files are
// not those the snapshot was taken of, when CUE does not evaluate them, or when the
// JSON Schema generated from the focused params is not, byte for byte, the one the
// full evaluation generated (the snapshot's): then the caller loads it all.
func (c *Contract) Focus(fsys fs.FS, cache *Cache, tool string) error {
	t, ok := c.byName[tool]
	if !ok || c.Value.Exists() || c.lazy != nil {
		return fmt.Errorf("focus %s: not a tool of a snapshot", tool)
	}
	files, digest, err := readSources(fsys, "contracts")
	if err != nil {
		return err
	}
	if digest != c.digest {
		return fmt.Errorf("focus %s: the contract files changed since the snapshot", tool)
	}
	// Parsing the contract files is most of what is left. The declarations an
	// earlier focus on this tool left out are blanked (spaces, newlines kept, so
	// every position stays where it was) when the cache says which they were. The
	// list is trusted as every cache entry is (a torn, edited or stale one is a
	// miss); the pruning below runs all the same, and the schema check after it
	// refuses a list that took what the tool's params need.
	key, keyed := cache.Key([]byte("focus"), []byte(digest), []byte(t.key))
	file := "focus-" + t.key + ".json"
	blanked := false
	if keyed {
		if b, hit := cache.Get(file, key); hit {
			files, blanked = blank(files, b)
		}
	}
	insts := load.Instances([]string{"./contracts"}, &load.Config{Dir: Root, Overlay: overlayOf(files)})
	if len(insts) != 1 || insts[0].Err != nil {
		return fmt.Errorf("focus %s: load contracts", tool)
	}
	inst := insts[0]
	restore, dropped := prune(inst.Files, t.key, focusRoots)
	ctx := cuecontext.New()
	v := ctx.BuildInstance(inst)
	restore()
	if err := v.Validate(); err != nil {
		return fmt.Errorf("focus %s: %s", tool, FormatError(err))
	}
	tv := v.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(t.key)))
	params, result := tv.LookupPath(cue.ParsePath("params")), tv.LookupPath(cue.ParsePath("result"))
	// The input schema is generated from the focused params and must be the
	// snapshot's byte for byte: a declaration the pruning lost would show here. The
	// output schema, larger, is left: nothing validates a result against CUE.
	in, inJSON, err := Schema(params)
	if err != nil {
		return fmt.Errorf("focus %s: input schema: %w", tool, err)
	}
	if !bytes.Equal(inJSON, t.InputSchemaJSON) {
		return fmt.Errorf("focus %s: the focused input schema differs from the snapshot's", tool)
	}
	if !v.LookupPath(cue.ParsePath("#EntryValues")).Exists() {
		return fmt.Errorf("focus %s: #EntryValues was not evaluated", tool)
	}
	t.params, t.result, t.InputSchema = params, result, in
	c.Value = v
	c.lazy = &lazyFull{ctx: ctx, fsys: fsys, focus: t}
	if keyed && !blanked {
		if b, err := json.Marshal(dropped); err == nil {
			cache.Put(file, key, b)
		}
	}
	return nil
}

// blanks are the byte ranges, by file, of the declarations a focus leaves out,
// with their comments.
type blanks map[string][][2]int

// blank returns files with the ranges payload names replaced by spaces (newlines
// kept), and whether it did; a payload that does not fit the files changes nothing.
func blank(files map[string][]byte, payload []byte) (map[string][]byte, bool) {
	var bl blanks
	if json.Unmarshal(payload, &bl) != nil {
		return files, false
	}
	out := maps.Clone(files)
	for name, ranges := range bl {
		src, ok := files[name]
		if !ok {
			return files, false
		}
		b := slices.Clone(src)
		for _, r := range ranges {
			if r[0] < 0 || r[0] > r[1] || r[1] > len(b) {
				return files, false
			}
			for i := r[0]; i < r[1]; i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
		}
		out[name] = b
	}
	return out, true
}

// focusRoots are the top-level declarations a focus keeps besides the tool's entry:
// tools, and #EntryValues, the schema an entry's value is checked against, which
// every tool that takes an entry and a value needs (augment_dataset's pipeline,
// apply_primitive's value) and which is small: #Parameter and the names it uses.
var focusRoots = []string{"tools", "#EntryValues"}

// prune leaves in files the declarations that tools' entry key (none for "") and
// the top-level declarations roots need: the package clauses and imports, every
// declaration without a plain name (embeddings, comprehensions, aliased or dynamic
// fields), the roots (for a focus, focusRoots) but never other tools' entries, and
// every named top-level declaration an identifier in a kept one names,
// transitively. An identifier is taken for a reference whatever it stands for, so
// a field that merely shares a top-level name keeps that declaration too: more is
// evaluated, never less. restore puts the files back as they were; dropped are the
// byte ranges of what was left out.
func prune(files []*ast.File, key string, roots []string) (restore func(), dropped blanks) {
	saved := make([][]ast.Decl, len(files))
	for i, f := range files {
		saved[i] = f.Decls
	}
	restore = func() {
		for i, f := range files {
			f.Decls = saved[i]
		}
	}
	need := map[string]bool{}
	for _, r := range roots {
		need[r] = true
	}
	for grew := true; grew; {
		grew = false
		for _, f := range files {
			for _, d := range f.Decls {
				name, other := declName(d, key)
				if other || name != "" && !need[name] {
					continue
				}
				ast.Walk(d, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && !need[id.Name] {
						need[id.Name], grew = true, true
					}
					return true
				}, nil)
			}
		}
	}
	dropped = blanks{}
	drop := func(f *ast.File, n ast.Node) {
		start, end := n.Pos().Offset(), n.End().Offset()
		for _, cg := range ast.Comments(n) {
			start, end = min(start, cg.Pos().Offset()), max(end, cg.End().Offset())
		}
		dropped[f.Filename] = append(dropped[f.Filename], [2]int{start, end})
	}
	for _, f := range files {
		var decls []ast.Decl
		used := map[string]bool{}
		for _, d := range f.Decls {
			if name, other := declName(d, key); !other && (name == "" || need[name]) {
				decls = append(decls, d)
				if _, imp := d.(*ast.ImportDecl); !imp {
					ast.Walk(d, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok {
							used[id.Name] = true
						}
						return true
					}, nil)
				}
				continue
			}
			drop(f, d)
		}
		// An import only dropped declarations used would be an error in the blanked
		// file ("imported and not used"): it goes with them there.
		for _, d := range decls {
			imp, ok := d.(*ast.ImportDecl)
			if !ok {
				continue
			}
			var unused []*ast.ImportSpec
			for _, spec := range imp.Specs {
				if !used[importName(spec)] {
					unused = append(unused, spec)
				}
			}
			if len(unused) == len(imp.Specs) {
				drop(f, imp)
				continue
			}
			for _, spec := range unused {
				drop(f, spec)
			}
		}
		f.Decls = decls
	}
	return restore, dropped
}

// importName is the name an import binds in its file.
func importName(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	p, err := strconv.Unquote(spec.Path.Value)
	if err != nil {
		return ""
	}
	return path.Base(p)
}

// declName is the name a top-level declaration binds ("" for one that binds none
// plainly), and whether it is the entry of a tool other than key
// (tools: other: {...}).
func declName(d ast.Decl, key string) (name string, otherTool bool) {
	switch d := d.(type) {
	case *ast.Field:
		id, ok := d.Label.(*ast.Ident)
		if !ok {
			return "", false
		}
		if id.Name == "tools" {
			if s, ok := d.Value.(*ast.StructLit); ok && len(s.Elts) == 1 {
				if f, ok := s.Elts[0].(*ast.Field); ok {
					if l, ok := f.Label.(*ast.Ident); ok && l.Name != key {
						return "tools", true
					}
				}
			}
		}
		return id.Name, false
	case *ast.LetClause:
		return d.Ident.Name, false
	}
	return "", false
}
