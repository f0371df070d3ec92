package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
)

// Root is where the contract files are laid out for the CUE loader. It is not a real
// directory: every file comes from an overlay, so nothing is read from disk, and
// positions in errors are printed relative to it.
const Root = "/darkroom"

// Contract is the loaded tool surface: the version, the tools with their generated
// JSON Schemas, the error codes, and the CUE values the validator unifies with.
type Contract struct {
	Version    string
	Tools      []*Tool // sorted by name
	ErrorCodes []ErrorCode
	// Value is the evaluated contracts package; vocab unifies packs with its #Manifest.
	// Of a focused contract (Focus) it holds only what the focused tool refers to:
	// its Context is the contract's, and the accessors (Manifest, the catalog, the
	// limits) give the whole.
	Value cue.Value

	byName map[string]*Tool
	codes  map[string]ErrorCode

	// mu serializes CUE evaluation (values are not safe for concurrent use) and
	// guards labels.
	mu sync.Mutex
	// labelMu guards labels, apart from mu: every call's decoding consults them,
	// and must not wait for another call's evaluation.
	labelMu   sync.Mutex
	labels    map[string]bool
	newLabels int
	// pool holds further evaluators of the contract (each its own CUE context) for
	// checks that find mu taken: see evaluator.go.
	pool *pool
	own  *evaluator // the contract's own context's evaluator; guarded by mu

	syntax []*ast.File
	digest string
	// lazy is set on a focused contract (Focus): the rest of it is evaluated when
	// first asked for.
	lazy *lazyFull
}

// Tool is one tool of the contract.
type Tool struct {
	Name        string
	Title       string
	Description string
	Group       string
	Since       string
	Annotations Annotations
	Deprecated  *Deprecation
	Errors      []string
	// ReadsClientFiles marks a tool whose path parameter names a file on the
	// client's side (the contract's readsClientFiles).
	ReadsClientFiles bool
	// Params names the tool's parameters, in the contract's order.
	Params []string
	// InputSchema and OutputSchema are the JSON Schemas generated from the tool's
	// params and result (see Schema), as maps for code that reads their keywords.
	InputSchema  map[string]any
	OutputSchema map[string]any
	// InputSchemaJSON and OutputSchemaJSON are the same schemas as clients get them,
	// properties in the contract's field order (image_id first).
	InputSchemaJSON  json.RawMessage
	OutputSchemaJSON json.RawMessage

	contract *Contract
	key      string // its field in tools
	params   cue.Value
	result   cue.Value
}

// Annotations are the MCP tool hints.
type Annotations struct {
	ReadOnly    bool `json:"readOnly"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	OpenWorld   bool `json:"openWorld"`
}

// Deprecation says what replaces a tool and after which version it may go, and
// how its parameters are named for the replacement (Rename: old name to new; the
// others are the same).
type Deprecation struct {
	Replacement string            `json:"replacement"`
	RemoveAfter string            `json:"removeAfter"`
	Rename      map[string]string `json:"rename,omitempty"`
}

// ErrorCode is one code of the closed enum.
type ErrorCode struct {
	Code        string `json:"code"`
	Recoverable bool   `json:"recoverable"`
	ExitCode    int    `json:"exit_code"`
	Description string `json:"description"`
}

// Load reads the CUE module (cue.mod/module.cue) and the contracts package
// (contracts/*.cue) from fsys, evaluates them and builds every tool's schemas.
// fsys is laid out like the repository's Root.
func Load(fsys fs.FS) (*Contract, error) {
	ctx := cuecontext.New()
	v, files, digest, err := loadPackage(ctx, fsys, "contracts")
	if err != nil {
		return nil, err
	}
	c, err := build(v)
	if err != nil {
		return nil, err
	}
	c.syntax = files
	c.digest = digest
	c.pool = newPool(fsys)
	return c, nil
}

// Digest is a hash of the contract's source files (the module file and the
// contracts package): two contracts with the same digest say the same.
func (c *Contract) Digest() string { return c.digest }

// Evaluate runs f with the lock that serializes CUE evaluation on the contract's
// values held: code outside this package that evaluates them while the server
// runs goes through it.
func (c *Contract) Evaluate(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

// Syntax returns the parsed files of the contracts package, for code that must know
// what the contract's expressions refer to (vocab's entry check does).
func (c *Contract) Syntax() []*ast.File { return c.syntax }

// sources reads the CUE module file and the package in dir from fsys, as the
// loader's overlay, with their digest (see Digest). It evaluates nothing.
func sources(fsys fs.FS, dir string) (map[string]load.Source, string, error) {
	files, digest, err := readSources(fsys, dir)
	if err != nil {
		return nil, "", err
	}
	return overlayOf(files), digest, nil
}

// readSources is sources with each file's bytes, by its path under Root.
func readSources(fsys fs.FS, dir string) (map[string][]byte, string, error) {
	files := map[string][]byte{}
	sum := sha256.New()
	add := func(name string) error {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		files[path.Join(Root, name)] = b
		fmt.Fprintf(sum, "%s %d\n", name, len(b))
		sum.Write(b)
		return nil
	}
	if err := add("cue.mod/module.cue"); err != nil {
		return nil, "", fmt.Errorf("load contracts: %w", err)
	}
	names, err := fs.Glob(fsys, dir+"/*.cue")
	if err != nil || len(names) == 0 {
		return nil, "", fmt.Errorf("load contracts: no CUE files in %s", dir)
	}
	for _, f := range names {
		if err := add(f); err != nil {
			return nil, "", fmt.Errorf("load contracts: %w", err)
		}
	}
	return files, hex.EncodeToString(sum.Sum(nil)), nil
}

func overlayOf(files map[string][]byte) map[string]load.Source {
	overlay := map[string]load.Source{}
	for name, b := range files {
		overlay[name] = load.FromBytes(b)
	}
	return overlay
}

// loadPackage builds one package of the CUE module in fsys.
func loadPackage(ctx *cue.Context, fsys fs.FS, dir string) (cue.Value, []*ast.File, string, error) {
	overlay, digest, err := sources(fsys, dir)
	if err != nil {
		return cue.Value{}, nil, "", err
	}
	insts := load.Instances([]string{"./" + dir}, &load.Config{Dir: Root, Overlay: overlay})
	if len(insts) != 1 || insts[0].Err != nil {
		if len(insts) == 1 {
			return cue.Value{}, nil, "", fmt.Errorf("load contracts: %s", FormatError(insts[0].Err))
		}
		return cue.Value{}, nil, "", fmt.Errorf("load contracts: %d instances", len(insts))
	}
	v := ctx.BuildInstance(insts[0])
	if err := v.Validate(); err != nil {
		return cue.Value{}, nil, "", fmt.Errorf("contracts do not evaluate: %s", FormatError(err))
	}
	return v, insts[0].Files, digest, nil
}

// FormatError prints a CUE error with positions relative to the contract Root, so
// messages and goldens do not depend on where the files live.
func FormatError(err error) string {
	return errors.Details(err, &errors.Config{Cwd: Root, ToSlash: true})
}

func build(v cue.Value) (*Contract, error) {
	c := &Contract{Value: v, byName: map[string]*Tool{}, codes: map[string]ErrorCode{}, labels: map[string]bool{}}
	if err := v.LookupPath(cue.ParsePath("contract_version")).Decode(&c.Version); err != nil {
		return nil, fmt.Errorf("contract_version: %w", err)
	}
	var codes map[string]ErrorCode
	if err := v.LookupPath(cue.ParsePath("error_codes")).Decode(&codes); err != nil {
		return nil, fmt.Errorf("error_codes: %s", FormatError(err))
	}
	for _, ec := range codes {
		c.ErrorCodes = append(c.ErrorCodes, ec)
		c.codes[ec.Code] = ec
	}
	sort.Slice(c.ErrorCodes, func(i, j int) bool { return c.ErrorCodes[i].Code < c.ErrorCodes[j].Code })

	it, err := v.LookupPath(cue.ParsePath("tools")).Fields()
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	for it.Next() {
		t, err := buildTool(c, it.Value())
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", it.Selector().Unquoted(), err)
		}
		t.key = it.Selector().Unquoted()
		c.Tools = append(c.Tools, t)
		c.byName[t.Name] = t
		collectLabels(t.InputSchema, c.labels)
	}
	sort.Slice(c.Tools, func(i, j int) bool { return c.Tools[i].Name < c.Tools[j].Name })
	// Operation arguments and mask specs are checked by the same validator (render,
	// named masks, and the editing tools' mask_spec).
	for _, def := range []string{"OperationArgs", "MaskSpec"} {
		s, _, err := Schema(v.LookupPath(cue.MakePath(cue.Def(def))))
		if err != nil {
			return nil, fmt.Errorf("#%s: %w", def, err)
		}
		collectLabels(s, c.labels)
	}
	return c, nil
}

func buildTool(c *Contract, tv cue.Value) (*Tool, error) {
	var meta struct {
		Name        string       `json:"name"`
		Title       string       `json:"title"`
		Description string       `json:"description"`
		Group       string       `json:"group"`
		Since       string       `json:"since"`
		Annotations Annotations  `json:"annotations"`
		Deprecated  *Deprecation `json:"deprecated"`
		Errors      []string     `json:"errors"`
		ReadsFiles  bool         `json:"readsClientFiles"`
	}
	for _, f := range []string{"name", "title", "description", "group", "since", "annotations", "deprecated", "errors", "readsClientFiles"} {
		fv := tv.LookupPath(cue.MakePath(cue.Str(f)))
		if !fv.Exists() {
			continue
		}
		b, err := fv.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %s", f, FormatError(err))
		}
		if err := json.Unmarshal(b, map[string]any{
			"name": &meta.Name, "title": &meta.Title, "description": &meta.Description,
			"group": &meta.Group, "since": &meta.Since, "annotations": &meta.Annotations,
			"deprecated": &meta.Deprecated, "errors": &meta.Errors, "readsClientFiles": &meta.ReadsFiles,
		}[f]); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	t := &Tool{
		Name: meta.Name, Title: meta.Title, Description: meta.Description, Group: meta.Group,
		Since: meta.Since, Annotations: meta.Annotations, Deprecated: meta.Deprecated,
		Errors: meta.Errors, ReadsClientFiles: meta.ReadsFiles, contract: c,
		params: tv.LookupPath(cue.ParsePath("params")),
		result: tv.LookupPath(cue.ParsePath("result")),
	}
	for _, code := range t.Errors {
		if _, ok := c.codes[code]; !ok {
			return nil, fmt.Errorf("declares unknown error code %q", code)
		}
	}
	it, err := t.params.Fields(cue.Optional(true))
	if err != nil {
		return nil, fmt.Errorf("params: %s", FormatError(err))
	}
	for it.Next() {
		t.Params = append(t.Params, it.Selector().Unquoted())
	}
	if t.InputSchema, t.InputSchemaJSON, err = Schema(t.params); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if t.OutputSchema, t.OutputSchemaJSON, err = Schema(t.result); err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return t, nil
}

// Tool returns the tool with the given name.
func (c *Contract) Tool(name string) (*Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// ErrorCode returns the spec of an error code.
func (c *Contract) ErrorCode(code string) (ErrorCode, bool) {
	ec, ok := c.codes[code]
	return ec, ok
}

// Manifest returns the #Manifest definition that vocabulary packs are unified with.
func (c *Contract) Manifest() cue.Value {
	return c.value().LookupPath(cue.ParsePath("#Manifest"))
}

// EntryValues returns #EntryValues, the schema of an entry's parameters with
// #values, what a value for the entry may be. A focused contract evaluated it with
// its tool: checking an entry's value does not evaluate the rest of the contract.
func (c *Contract) EntryValues() cue.Value {
	return c.Value.LookupPath(cue.ParsePath("#EntryValues"))
}

// ToolNames returns the names of every tool, sorted.
func (c *Contract) ToolNames() []string {
	names := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		names[i] = t.Name
	}
	return names
}

// collectLabels records every property name a schema declares, recursively, so the
// validator can refuse an unknown key before it reaches CUE (whose label table grows
// for every distinct key and is never freed). Reading them from the generated schema
// gives exactly the keys that schema accepts.
func collectLabels(s any, labels map[string]bool) {
	switch s := s.(type) {
	case map[string]any:
		if props, ok := s["properties"].(map[string]any); ok {
			for k, v := range props {
				labels[k] = true
				collectLabels(v, labels)
			}
		}
		for _, k := range []string{"items", "additionalProperties", "not"} {
			collectLabels(s[k], labels)
		}
		for _, k := range []string{"prefixItems", "anyOf", "allOf"} {
			collectLabels(s[k], labels)
		}
		if pp, ok := s["patternProperties"].(map[string]any); ok {
			for _, v := range pp {
				collectLabels(v, labels)
			}
		}
	case []any:
		for _, x := range s {
			collectLabels(x, labels)
		}
	}
}

// KnownLabels returns the labels that collectLabels found, sorted; for tests.
func (c *Contract) KnownLabels() []string {
	var out []string
	for l := range c.labels {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}
