package vocab

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	cueerrors "cuelang.org/go/cue/errors"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// Vocabulary is every loaded pack, resolved.
type Vocabulary struct {
	Packs   []Pack
	Entries []*Entry // sorted by name
	Masks   []*Mask  // sorted by name

	Presets []*Preset // sorted by name (presets.go)

	entries map[string]*Entry
	masks   map[string]*Mask

	presets        map[string]*Preset
	pendingPresets []pendingPreset
	paramOrder     map[string][]string
}

// Pack is one manifest file.
type Pack struct {
	Name        string
	Description string
	File        string
}

// Entry is one primitive, as a validated manifest declares it.
type Entry struct {
	Name        string                `json:"-"`
	Pack        string                `json:"-"`
	Layer       string                `json:"layer"`
	Category    string                `json:"category"`
	Tags        []string              `json:"tags"`
	Description string                `json:"description"`
	Aliases     []string              `json:"aliases"`
	Examples    []string              `json:"examples"`
	Parameters  map[string]*Parameter `json:"parameters"`
	Operations  []OperationUse        `json:"operations"`
	DefaultMask string                `json:"default_mask"`
	// Prompt is how a prompt reads the entry beyond its names (contracts/prompt.cue).
	Prompt *EntryPrompt `json:"prompt"`

	// values is the entry's #values schema from its validated pack, or worked out
	// from raw (the entry as checked) when first needed: see valuesSchema.
	values     cue.Value
	raw        []byte
	valuesOnce sync.Once
	valuesErr  error
}

// Source is the entry as its pack was checked (JSON): what the contract fills into
// #EntryValues to check a call's value for it with the call's other arguments.
func (e *Entry) Source() json.RawMessage { return e.raw }

// Parameter is one value an entry takes.
type Parameter struct {
	Name        string  `json:"-"`
	Type        string  `json:"type"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	Default     float64 `json:"default"`
	Unit        string  `json:"unit"`
	Description string  `json:"description"`
	// Also are other names a prompt or albumentations code gives the parameter.
	Also []ParameterName `json:"also"`
}

// EntryPrompt is an entry's #EntryPrompt: what a prompt that names it draws, its
// strength parameter and the generic nouns among its aliases.
type EntryPrompt struct {
	Sample   map[string][2]float64 `json:"sample"`
	Free     []string              `json:"free"`
	Strength *Strength             `json:"strength"`
	Heads    []string              `json:"heads"`
	CodeP    *float64              `json:"code_p"`
}

// Strength is the parameter without which an entry does nothing, and the value it
// takes when a prompt gives other parameters but not it: Lo == Hi for one value.
type Strength struct {
	Parameter string
	Lo, Hi    float64
}

// UnmarshalJSON reads value as a number or as [lo, hi].
func (s *Strength) UnmarshalJSON(b []byte) error {
	var raw struct {
		Parameter string          `json:"parameter"`
		Value     json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.Parameter = raw.Parameter
	var v float64
	if json.Unmarshal(raw.Value, &v) == nil {
		s.Lo, s.Hi = v, v
		return nil
	}
	var r [2]float64
	if err := json.Unmarshal(raw.Value, &r); err != nil {
		return fmt.Errorf("strength.value: %w", err)
	}
	s.Lo, s.Hi = r[0], r[1]
	return nil
}

// ParameterName is another name of a parameter and how a value given with it reads
// (#ParameterName).
type ParameterName struct {
	Name   string  `json:"name"`
	As     string  `json:"as"`
	Code   bool    `json:"code"`
	Negate bool    `json:"negate"`
	Scale  float64 `json:"scale"`
}

// OperationUse is one engine operation an entry drives.
type OperationUse struct {
	Op   string            `json:"op"`
	Set  map[string]any    `json:"set"`
	Bind map[string]string `json:"bind"`
}

// Mask is a named mask; Spec is the #MaskSpec with its defaults filled in.
type Mask struct {
	Name        string         `json:"-"`
	Pack        string         `json:"-"`
	Description string         `json:"description"`
	Tags        []string       `json:"tags"`
	Spec        map[string]any `json:"spec"`
}

// ParameterNames returns the entry's parameter names, sorted.
func (e *Entry) ParameterNames() []string {
	names := make([]string, 0, len(e.Parameters))
	for n := range e.Parameters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ValueShape says what apply_primitive's value is for this entry: "none", "scalar"
// (one parameter) or "object" (several).
func (e *Entry) ValueShape() string {
	switch len(e.Parameters) {
	case 0:
		return "none"
	case 1:
		return "scalar"
	}
	return "object"
}

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
func LoadBuiltin(c *contract.Contract) (*Vocabulary, error) {
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

// PackError is a manifest that does not satisfy #Manifest; Detail is the message
// cue vet prints for it, with file, line and column.
type PackError struct {
	File   string
	Detail string

	cause error // the CUE error, for the paths it names
}

func (e *PackError) Error() string { return e.Detail }

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
			return nil, &PackError{File: src.Name, Detail: vetDetail(v.Err())}
		}
		return validateWhole(c, src, v)
	default:
		return nil, fmt.Errorf("%s: not a manifest (want .yaml, .yml, .json or .cue)", src.Name)
	}
	if err != nil {
		return nil, &PackError{File: src.Name, Detail: vetDetail(err)}
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
			err = &PackError{File: src.Name, Detail: fmt.Sprintf("%s: the YAML reader cannot read this pack (%v)\n", src.Name, r)}
		}
	}()
	f, err = yaml.Extract(fname, src.Data)
	if err != nil {
		return nil, &PackError{File: src.Name, Detail: vetDetail(err)}
	}
	return f, nil
}

// validateWhole checks a pack as one value, as cue vet does.
func validateWhole(c *contract.Contract, src Source, data cue.Value) (*Checked, error) {
	// data first, so paths read entries.x as cue vet prints them, not #Manifest.entries.x.
	v := data.Unify(c.Manifest())
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, &PackError{File: src.Name, Detail: vetDetail(err), cause: err}
	}
	ck, err := wholeChecked(v)
	if err != nil {
		return nil, &PackError{File: src.Name, Detail: vetDetail(err)}
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

// PackName returns the pack name a valid manifest declares, or "" when it has none.
func PackName(c *contract.Contract, src Source) string {
	ck, err := Check(c, src)
	if err != nil {
		return ""
	}
	return ck.pack
}

// Load checks and resolves packs. Any invalid pack fails the load with cue vet's
// message; so do names repeated across packs and default masks that do not exist.
func Load(c *contract.Contract, srcs []Source) (*Vocabulary, error) {
	return loadWith(c, srcs, func(src Source) (*Checked, error) { return Check(c, src) })
}

func loadWith(c *contract.Contract, srcs []Source, check func(Source) (*Checked, error)) (*Vocabulary, error) {
	if err := checkTotal(srcs); err != nil {
		return nil, err
	}
	voc := &Vocabulary{entries: map[string]*Entry{}, masks: map[string]*Mask{}}
	var perrs []string
	for _, src := range srcs {
		ck, err := check(src)
		var pe *PackError
		if err != nil && !errors.As(err, &pe) {
			return nil, err // a pack refused before its check (too costly to evaluate) keeps its code
		}
		if err != nil {
			perrs = append(perrs, err.Error())
			continue
		}
		if err := voc.add(src, ck); err != nil {
			perrs = append(perrs, err.Error())
		} else if err := voc.addPresets(src, ck); err != nil {
			perrs = append(perrs, err.Error())
		}
	}
	if len(perrs) > 0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s", strings.TrimRight(strings.Join(perrs, ""), "\n"))
	}
	for _, e := range voc.Entries {
		if e.DefaultMask != "" && voc.masks[e.DefaultMask] == nil {
			perrs = append(perrs, fmt.Sprintf("entries.%s.default_mask: no mask named %q in any pack (pack %s)", e.Name, e.DefaultMask, e.Pack))
		}
	}
	perrs = append(perrs, voc.resolvePresets()...)
	if len(perrs) > 0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s", strings.Join(perrs, "\n"))
	}
	sort.Slice(voc.Entries, func(i, j int) bool { return voc.Entries[i].Name < voc.Entries[j].Name })
	sort.Slice(voc.Masks, func(i, j int) bool { return voc.Masks[i].Name < voc.Masks[j].Name })
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

func (voc *Vocabulary) add(src Source, ck *Checked) error {
	m := struct {
		Pack        string
		Description string
		Entries     map[string]*Entry
		Masks       map[string]*Mask
	}{Pack: ck.pack, Description: ck.description, Entries: map[string]*Entry{}}
	if len(ck.masks) > 0 {
		if err := json.Unmarshal(ck.masks, &m.Masks); err != nil {
			return fmt.Errorf("%s: masks: %w", src.Name, err)
		}
	}
	values := map[string]cue.Value{}
	for _, ce := range ck.entries {
		var e Entry
		if err := json.Unmarshal(ce.json, &e); err != nil {
			return fmt.Errorf("%s: entries.%s: %w", src.Name, ce.name, err)
		}
		e.raw = ce.json
		m.Entries[ce.name] = &e
		values[ce.name] = ce.values
	}
	for _, p := range voc.Packs {
		if p.Name == m.Pack {
			return fmt.Errorf("%s: pack name %q is already used by %s\n", src.Name, m.Pack, p.File)
		}
	}
	voc.Packs = append(voc.Packs, Pack{Name: m.Pack, Description: m.Description, File: src.Name})
	var dups []string
	for _, name := range slices.Sorted(maps.Keys(m.Entries)) {
		e := m.Entries[name]
		if old := voc.entries[name]; old != nil {
			dups = append(dups, fmt.Sprintf("%s: entries.%s: already defined by pack %s\n", src.Name, name, old.Pack))
			continue
		}
		e.Name, e.Pack = name, m.Pack
		e.values = values[name]
		for pn, p := range e.Parameters {
			p.Name = pn
		}
		voc.entries[name] = e
		voc.Entries = append(voc.Entries, e)
	}
	for _, name := range slices.Sorted(maps.Keys(m.Masks)) {
		mk := m.Masks[name]
		if old := voc.masks[name]; old != nil {
			dups = append(dups, fmt.Sprintf("%s: masks.%s: already defined by pack %s\n", src.Name, name, old.Pack))
			continue
		}
		mk.Name, mk.Pack = name, m.Pack
		voc.masks[name] = mk
		voc.Masks = append(voc.Masks, mk)
	}
	if dups != nil {
		return fmt.Errorf("%s", strings.Join(dups, ""))
	}
	return nil
}

// Entry returns the entry with the given name.
func (voc *Vocabulary) Entry(name string) (*Entry, bool) {
	e, ok := voc.entries[name]
	return e, ok
}

// Mask returns the named mask.
func (voc *Vocabulary) Mask(name string) (*Mask, bool) {
	m, ok := voc.masks[name]
	return m, ok
}

// Filter selects entries: by layer, by category, and by tags (an entry must carry
// every one). Empty criteria select everything.
type Filter struct {
	Layer    string
	Category string
	Tags     []string
}

// Select returns the entries that pass f, sorted by name.
func (voc *Vocabulary) Select(f Filter) []*Entry {
	var out []*Entry
	for _, e := range voc.Entries {
		if f.Layer != "" && e.Layer != f.Layer || f.Category != "" && e.Category != f.Category || !hasAll(e.Tags, f.Tags) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// SelectMasks returns the masks that carry every tag, sorted by name.
func (voc *Vocabulary) SelectMasks(tags []string) []*Mask {
	var out []*Mask
	for _, m := range voc.Masks {
		if hasAll(m.Tags, tags) {
			out = append(out, m)
		}
	}
	return out
}

// Categories returns the categories in use, sorted.
func (voc *Vocabulary) Categories() []string {
	var out []string
	for _, e := range voc.Entries {
		if !slices.Contains(out, e.Category) {
			out = append(out, e.Category)
		}
	}
	sort.Strings(out)
	return out
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// Values checks the value an agent passes for an entry (ADR-079): nothing for an
// entry without parameters, a scalar for one parameter, an object keyed by parameter
// name for several (or for one, as a pipeline step's params give it: {"ev": 0.6} is
// the same as 0.6; a tool's value refuses that form, see ShapeError). The wrong shape, an unknown parameter or a value outside
// its range is invalid_input naming the parameter, the value and the range
// (`exposure: ev: 9 is outside [-4, 4]`); nothing is clamped. Omitted parameters take
// their defaults.
func (voc *Vocabulary) Values(c *contract.Contract, e *Entry, value json.RawMessage) (map[string]float64, error) {
	value = bytes.TrimSpace(value)
	given := len(value) > 0 && string(value) != "null"
	names := e.ParameterNames()
	var obj json.RawMessage
	switch {
	case len(names) == 0:
		if given {
			return nil, valueError(e, "value", "%s takes no value", e.Name)
		}
		return map[string]float64{}, nil
	case !given:
		obj = json.RawMessage(`{}`)
	case value[0] == '{':
		obj = value
	default:
		if len(names) > 1 {
			return nil, valueError(e, "value", "%s takes an object with %s, not a scalar", e.Name, strings.Join(names, ", "))
		}
		b, err := json.Marshal(map[string]json.RawMessage{names[0]: value})
		if err != nil {
			return nil, valueError(e, "value", "%s: %v", e.Name, err)
		}
		obj = b
	}
	schema, err := e.valuesSchema(c)
	if err != nil {
		return nil, err
	}
	checked, err := c.CheckValue(schema, e.Name, obj)
	if err != nil {
		var de *darkroom.Error
		if errors.As(err, &de) {
			e.explainRanges(de, obj)
			de.Details["entry"] = e.Name
			if len(names) == 1 {
				// A scalar's path is the parameter: say so.
				de.Details["parameter"] = names[0]
			}
		}
		return nil, err
	}
	out := make(map[string]float64, len(checked))
	for k, v := range checked {
		f, ok := v.(float64)
		if !ok {
			return nil, darkroom.Errorf(darkroom.InternalError, "%s: parameter %s checked to %T", e.Name, k, v)
		}
		out[k] = f
	}
	return out, nil
}

// ShapeError is ADR-079's refusal of a tool's value in the object form for a
// one-parameter entry (it takes a number); nil for any other value.
func (e *Entry) ShapeError(value json.RawMessage) error {
	value = bytes.TrimSpace(value)
	if names := e.ParameterNames(); len(names) == 1 && len(value) > 0 && value[0] == '{' {
		return valueError(e, "value", "%s takes a number for %s, not an object", e.Name, names[0])
	}
	return nil
}

// explainRanges rewrites the message of each parameter whose number lies outside its
// declared range so that it says the range, not just the bound crossed: ADR-079
// wants `ev: 9 is outside [-4, 4]` rather than `ev: 9 is above the maximum 4`. The
// value is printed as the caller wrote it.
func (e *Entry) explainRanges(de *darkroom.Error, obj json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var given map[string]any
	if dec.Decode(&given) != nil {
		return
	}
	fields, _ := de.Details["fields"].([]any)
	msgs := make([]string, 0, len(fields))
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		if fm == nil {
			continue
		}
		path, _ := fm["path"].(string)
		if p, ok := e.Parameters[path]; ok {
			if n, ok := given[path].(json.Number); ok {
				if x, err := n.Float64(); err == nil && (x < p.Min || x > p.Max) {
					fm["message"] = fmt.Sprintf("%s: %s is outside [%s, %s]", path, n, formatNumber(p.Min), formatNumber(p.Max))
					fm["range"] = []any{p.Min, p.Max}
				}
			}
		}
		if m, ok := fm["message"].(string); ok {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) > 0 {
		de.Message = fmt.Sprintf("%s: %s", e.Name, strings.Join(msgs, "; "))
	}
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func valueError(e *Entry, field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &darkroom.Error{Code: darkroom.InvalidInput, Message: msg, Details: map[string]any{
		"entry": e.Name, "fields": []any{map[string]any{"path": field, "message": msg}},
	}}
}

// OperationCall is one engine operation with the arguments an entry gives it; the
// catalog fills in the rest with their neutral defaults.
type OperationCall struct {
	Op   string
	Args map[string]any
}

// Calls expands the entry into operation calls: fixed arguments as set, bound ones
// from values, a parameter missing from values taking its default. Values are
// assumed checked against the parameters' ranges.
func (e *Entry) Calls(values map[string]float64) []OperationCall {
	calls := make([]OperationCall, len(e.Operations))
	for i, u := range e.Operations {
		args := map[string]any{}
		for k, v := range u.Set {
			args[k] = v
		}
		for arg, param := range u.Bind {
			v, ok := values[param]
			if !ok {
				v = e.Parameters[param].Default
			}
			args[arg] = v
		}
		calls[i] = OperationCall{Op: u.Op, Args: args}
	}
	return calls
}

// valuesSchema returns the entry's #values schema. An entry whose pack's verdict came
// from the cache has none yet: it is the entry's parameters, as checked, filled
// into the contract's #EntryValues, once. That needs neither the rest of the entry
// schema nor the operation catalog, which a focused contract has not evaluated.
func (e *Entry) valuesSchema(c *contract.Contract) (cue.Value, error) {
	e.valuesOnce.Do(func() {
		if e.values.Exists() {
			return
		}
		c.Evaluate(func() {
			v := c.EntryValues()
			params := cue.ParsePath("parameters")
			if p := v.Context().CompileBytes(e.raw).LookupPath(params); p.Exists() {
				v = v.FillPath(params, p)
			}
			v = v.LookupPath(cue.MakePath(cue.Def("values")))
			if err := v.Err(); err != nil {
				e.valuesErr = darkroom.Errorf(darkroom.InternalError, "%s: #values: %s", e.Name, contract.FormatError(err))
				return
			}
			e.values = v
		})
	})
	return e.values, e.valuesErr
}
