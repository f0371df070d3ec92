package pack

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	cueerrors "cuelang.org/go/cue/errors"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Source is a manifest to load: its name for messages (a path relative to the
// working directory, or the embedded path) and its bytes.
type Source struct {
	Name string
	Data []byte
}

// Builtin returns the packs embedded in the binary, in name order.
func Builtin() ([]Source, error) {
	return fromFS(darkroom.Files, "vocabulary")
}

// LoadBuiltin loads the built-in packs against c: Builtin then Load.
func LoadBuiltin(c *contract.Contract) (*vocab.Vocabulary, error) {
	srcs, err := Builtin()
	if err != nil {
		return nil, err
	}
	return Load(c, srcs)
}

// Dir returns the manifests (*.yaml, *.yml, *.json, *.cue) in a directory, read
// under the bounds of readPackFile and MaxTotalPackBytes.
func Dir(dir string) ([]Source, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("vocabulary directory %s: %w", DisplayPath(dir), pathless(err))
	}
	var out []Source
	for _, e := range ents {
		if e.IsDir() || !isManifest(e.Name()) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		display := DisplayPath(name)
		b, err := readPackFile(name, display)
		if err != nil {
			return nil, err
		}
		out = append(out, Source{Name: display, Data: b})
	}
	if err := checkTotal(out); err != nil {
		return nil, err
	}
	return out, nil
}

func fromFS(fsys fs.FS, dir string) ([]Source, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Source
	for _, e := range ents {
		if e.IsDir() || !isManifest(e.Name()) {
			continue
		}
		name := path.Join(dir, e.Name())
		b, err := readBounded(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Source{Name: name, Data: b})
	}
	return out, nil
}

func isManifest(name string) bool {
	switch path.Ext(name) {
	case ".yaml", ".yml", ".json", ".cue":
		return true
	}
	return false
}

func readBounded(fsys fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxPackBytes {
		return nil, tooBig(name, info.Size())
	}
	return fs.ReadFile(fsys, name)
}

// File reads one manifest file named on a command line, under the bounds of
// readPackFile.
func File(name string) (Source, error) {
	display := DisplayPath(name)
	b, err := readPackFile(name, display)
	if err != nil {
		return Source{}, err
	}
	return Source{Name: display, Data: b}, nil
}

// DisplayPath writes a path as cue vet prints it: relative to the working directory,
// starting with ./ or ../.
func DisplayPath(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil {
				name = rel
			}
		}
	}
	name = filepath.ToSlash(name)
	if !strings.HasPrefix(name, "../") && !strings.HasPrefix(name, "/") {
		name = "./" + strings.TrimPrefix(name, "./")
	}
	return name
}

// Error is a manifest that does not satisfy #Manifest; Detail is the message
// cue vet prints for it, with file, line and column.
type Error struct {
	File   string
	Detail string

	cause error // the CUE error, for the paths it names
}

func (e *Error) Error() string { return e.Detail }

// Check validates one manifest against #Manifest and returns it with defaults filled.
// The last few verdicts are remembered (by contract, name and content), because a
// check costs about a millisecond per entry inside CUE and vocab vet asks three
// times: to check a file, for its pack name, and to load it with the others.
func Check(c *contract.Contract, src Source) (*Checked, error) {
	key := checkKey{c: c, name: src.Name, sum: sha256.Sum256(src.Data)}
	checked.mu.Lock()
	for _, r := range checked.results {
		if r.checkKey == key {
			checked.mu.Unlock()
			return r.v, r.err
		}
	}
	checked.mu.Unlock()
	v, err := check(c, src)
	checked.mu.Lock()
	if len(checked.results) == maxChecked {
		checked.results = append(checked.results[:0], checked.results[1:]...)
	}
	checked.results = append(checked.results, checkResult{key, v, err})
	checked.mu.Unlock()
	return v, err
}

type checkKey struct {
	c    *contract.Contract
	name string
	sum  [sha256.Size]byte
}

type checkResult struct {
	checkKey
	v   *Checked
	err error
}

var checked struct {
	mu      sync.Mutex
	results []checkResult
}

// maxChecked is how many verdicts Check remembers: a vet or a start-up's packs.
const maxChecked = 16

func check(c *contract.Contract, src Source) (*Checked, error) {
	ctx := c.Value.Context()
	var expr ast.Expr
	var err error
	// The pack is named as if it lay under the contract root (which stands for the
	// working directory): positions then sort as cue vet sorts them (absolute paths
	// first) and print as the path the user gave.
	fname := path.Join(contract.Root, src.Name)
	switch path.Ext(src.Name) {
	case ".yaml", ".yml":
		// Built as a file, as cue vet does, so errors list positions in its order.
		build := func(f *ast.File) func([]ast.Decl) cue.Value {
			return func(decls []ast.Decl) cue.Value {
				g := *f
				g.Decls = decls
				return ctx.BuildFile(&g)
			}
		}
		// A pack in the YAML that packs are written in is read without the YAML
		// library (yamlsubset.go); any other large pack is read in pieces at once
		// (yamlsplit.go). When the check of either reading fails, the pack is
		// checked again from yaml.Extract's reading of the whole, for cue vet's
		// message.
		if f, ok := readYAMLSubset(src.Data, fname); ok {
			if ck, err := checkShapes(c, src, f.Decls, build(f)); err == nil {
				return ck, nil
			}
		} else if decls, f, ok := extractYAMLPieces(src, fname, yamlPieces()); ok {
			if ck, err := checkShapes(c, src, decls, build(f)); err == nil {
				return ck, nil
			}
		}
		f, err := extractYAML(src, fname)
		if err != nil {
			return nil, err
		}
		return checkShapes(c, src, f.Decls, build(f))
	case ".json":
		expr, err = cuejson.Extract(fname, src.Data)
	case ".cue":
		if err := preflight(src); err != nil {
			return nil, err
		}
		v := ctx.CompileBytes(src.Data, cue.Filename(fname))
		if v.Err() != nil {
			return nil, &Error{File: src.Name, Detail: vetDetail(v.Err())}
		}
		return validateWhole(c, src, v)
	default:
		return nil, fmt.Errorf("%s: not a manifest (want .yaml, .yml, .json or .cue)", src.Name)
	}
	if err != nil {
		return nil, &Error{File: src.Name, Detail: vetDetail(err)}
	}
	if sl, ok := expr.(*ast.StructLit); ok {
		return checkShapes(c, src, sl.Elts, func(decls []ast.Decl) cue.Value {
			t := *sl
			t.Elts = decls
			return ctx.BuildExpr(&t)
		})
	}
	return validateWhole(c, src, ctx.BuildExpr(expr))
}

// extractYAML reads a YAML pack as CUE does, turning a panic of CUE's reader into
// a refusal naming the pack: cuelang.org/go v0.17.1 indexes out of range on input
// as small as "\r\r0", and a pack must never take the server down.
func extractYAML(src Source, fname string) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f = nil
			err = &Error{File: src.Name, Detail: fmt.Sprintf("%s: the YAML reader cannot read this pack (%v)\n", src.Name, r)}
		}
	}()
	f, err = yaml.Extract(fname, src.Data)
	if err != nil {
		return nil, &Error{File: src.Name, Detail: vetDetail(err)}
	}
	return f, nil
}

// validateWhole checks a pack as one value, as cue vet does.
func validateWhole(c *contract.Contract, src Source, data cue.Value) (*Checked, error) {
	// data first, so paths read entries.x as cue vet prints them, not #Manifest.entries.x.
	v := data.Unify(c.Manifest())
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, &Error{File: src.Name, Detail: vetDetail(err), cause: err}
	}
	ck, err := wholeChecked(v)
	if err != nil {
		return nil, &Error{File: src.Name, Detail: vetDetail(err)}
	}
	return ck, nil
}

// vetDetail prints a CUE error the way cue vet does: one block per error, positions
// relative to the working directory (the contract's own files print as
// ./contracts/..., as they would in a checkout).
func vetDetail(err error) string {
	var buf bytes.Buffer
	cueerrors.Print(&buf, err, &cueerrors.Config{Cwd: contract.Root, ToSlash: true})
	return buf.String()
}

// Name returns the pack name a valid manifest declares, or "" when it has none.
func Name(c *contract.Contract, src Source) string {
	ck, err := Check(c, src)
	if err != nil {
		return ""
	}
	return ck.pack
}

// Load checks and resolves packs. Any invalid pack fails the load with cue vet's
// message; so do names repeated across packs and default masks that do not exist.
func Load(c *contract.Contract, srcs []Source) (*vocab.Vocabulary, error) {
	return loadWith(c, srcs, func(src Source) (*Checked, error) { return Check(c, src) })
}

func loadWith(c *contract.Contract, srcs []Source, check func(Source) (*Checked, error)) (*vocab.Vocabulary, error) {
	if err := checkTotal(srcs); err != nil {
		return nil, err
	}
	b := vocab.NewBuilder()
	var perrs []string
	for _, src := range srcs {
		ck, err := check(src)
		var pe *Error
		if err != nil && !errors.As(err, &pe) {
			return nil, err // a pack refused before its check (too costly to evaluate) keeps its code
		}
		if err != nil {
			perrs = append(perrs, err.Error())
			continue
		}
		if err := b.Add(src.Name, ck.plain()); err != nil {
			perrs = append(perrs, err.Error())
		}
	}
	if len(perrs) > 0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s", strings.TrimRight(strings.Join(perrs, ""), "\n"))
	}
	voc, perrs := b.Build()
	if len(perrs) > 0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s", strings.Join(perrs, "\n"))
	}
	var params []string
	for _, e := range voc.Entries {
		params = append(params, e.ParameterNames()...)
	}
	c.AllowLabels(params...)
	if total := packBytes(srcs); total > 1<<20 {
		// Checking costs CUE hundreds of bytes of garbage per byte of pack; a server
		// that just started should not sit on it.
		debug.FreeOSMemory()
	}
	return voc, nil
}

func packBytes(srcs []Source) int64 {
	var n int64
	for _, s := range srcs {
		n += int64(len(s.Data))
	}
	return n
}
