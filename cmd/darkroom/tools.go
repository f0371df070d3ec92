package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
	"github.com/darkroom-mcp/darkroom/internal/server"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// Every contract tool is also a CLI verb: its name in kebab-case (apply_primitive is
// apply-primitive), one flag per parameter derived from the tool's input schema, and
// the call goes through server.Invoke, the code path MCP uses. Nothing here restates
// a schema; the few additions below are the names issue 5 gives the command line.

const toolVerbDoc = `Arguments: IMAGE_ID first when the tool takes one, then the tool's other required
text parameters in alphabetical order; every parameter is also a flag (--kebab-case).
Flag values are JSON where the parameter takes more than text (0.7, true,
{"name": "sky_gradient"}); text parameters are taken as they are. A list of text
(--target-image-ids) repeats its flag or takes a JSON list.
--json prints the result envelope {success, data, error} as one JSON object per
line (log prints one line per history entry instead, each with its image_id);
otherwise a summary. A failure exits with its error code's exit code
(darkroom contract export lists them).`

// toolVerbAliases are verbs that are not a tool's name.
var toolVerbAliases = map[string]string{
	"preview": "render_preview",
	"export":  "export_final",
	"augment": "augment_image",
}

// jsonLines are the tools whose --json output is one line per item of a list in
// their data (NDJSON, as jq and line tools read a stream), not one envelope: the list
// field. Each line carries the data's image_id too.
var jsonLines = map[string]string{"log": "entries"}

// printJSONLines prints each item of data's list field as one JSON line.
func printJSONLines(w io.Writer, data any, list string) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(fields[list], &items); err != nil {
		return err
	}
	for _, it := range items {
		if id, ok := fields["image_id"]; ok {
			it["image_id"] = id
		}
		line, err := json.Marshal(it)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n", line)
	}
	return nil
}

// flagAliases name a parameter by another flag, where the tool has that parameter.
var flagAliases = map[string]string{
	"entry": "primitive_name", // --entry exposure, as Chemigram's CLI says it
}

// positionalExtra are optional parameters a tool takes as positional arguments
// after its required ones: `darkroom ingest PATH`.
var positionalExtra = map[string][]string{
	"ingest":        {"path"},
	"augment_image": {"path"},
}

// statelessGroups are the tool groups that never touch a workspace: their verbs do
// not open (or create) one.
var statelessGroups = map[string]bool{"contract": true, "vocabulary": true}

// toolForVerb returns the tool a verb calls.
func toolForVerb(c *contract.Contract, verb string) (*contract.Tool, bool) {
	if name, ok := toolVerbAliases[verb]; ok {
		return c.Tool(name)
	}
	if strings.Contains(verb, "_") {
		return nil, false
	}
	return c.Tool(strings.ReplaceAll(verb, "-", "_"))
}

func kebab(name string) string { return strings.ReplaceAll(name, "_", "-") }

// paramKind is how a flag's text becomes a parameter value.
type paramKind int

const (
	kindJSON       paramKind = iota // JSON, or the text itself when it is not JSON
	kindString                      // the text as it is
	kindStringList                  // repeatable: each flag one item, or one JSON list
	kindBool                        // --flag alone means true
)

// schemaTypes lists the JSON types a schema admits, "" for a schema that says none.
func schemaTypes(s map[string]any) map[string]bool {
	types := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok {
				types[x] = true
			}
		}
	case []string:
		for _, x := range t {
			types[x] = true
		}
	}
	var values []any
	if e, ok := s["enum"].([]any); ok {
		values = e
	}
	if c, ok := s["const"]; ok {
		values = append(values, c)
	}
	for _, v := range values {
		types[jsonType(v)] = true
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, _ := s[key].([]any)
		for _, b := range branches {
			if b, ok := b.(map[string]any); ok {
				for t := range schemaTypes(b) {
					types[t] = true
				}
			}
		}
	}
	if len(types) == 0 {
		types[""] = true
	}
	return types
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}

func only(types map[string]bool, want string) bool {
	for t := range types {
		if t != want && t != "null" {
			return false
		}
	}
	return types[want]
}

func kindOf(s map[string]any) paramKind {
	types := schemaTypes(s)
	switch {
	case only(types, "string"):
		return kindString
	case only(types, "boolean"):
		return kindBool
	case only(types, "array"):
		if items := arrayItems(s); items != nil && only(schemaTypes(items), "string") {
			return kindStringList
		}
	}
	return kindJSON
}

// arrayItems is the item schema of an array schema (or of its array branch).
func arrayItems(s map[string]any) map[string]any {
	if items, ok := s["items"].(map[string]any); ok {
		return items
	}
	branches, _ := s["anyOf"].([]any)
	for _, b := range branches {
		if b, ok := b.(map[string]any); ok {
			if items := arrayItems(b); items != nil {
				return items
			}
		}
	}
	return nil
}

// paramFlag is the flag of one parameter.
type paramFlag struct {
	kind   paramKind
	values []string
}

func (f *paramFlag) String() string { return strings.Join(f.values, ",") }

func (f *paramFlag) Set(v string) error {
	if len(f.values) > 0 && f.kind != kindStringList {
		return fmt.Errorf("given twice (%q and %q)", f.values[0], v)
	}
	f.values = append(f.values, v)
	return nil
}

func (f *paramFlag) IsBoolFlag() bool { return f.kind == kindBool }

// value is the parameter's value, or ok false when the flag was not given.
func (f *paramFlag) value() (v any, ok bool) {
	if len(f.values) == 0 {
		return nil, false
	}
	text := f.values[0]
	switch f.kind {
	case kindString:
		return text, true
	case kindBool:
		if b, err := strconv.ParseBool(text); err == nil {
			return b, true
		}
		return text, true // the contract says what is wrong with it
	case kindStringList:
		if len(f.values) == 1 && strings.HasPrefix(strings.TrimSpace(text), "[") && json.Valid([]byte(text)) {
			return json.RawMessage(text), true
		}
		return slices.Clone(f.values), true
	}
	if json.Valid([]byte(text)) {
		return json.RawMessage(text), true
	}
	if n, ok := peopleNumber(strings.TrimSpace(text)); ok {
		return json.RawMessage(n), true // +0.8, .8, 5.: numbers as people write them
	}
	return text, true
}

// paramOrder is how positional arguments map to parameters: names in order, then
// rest (a list parameter) takes what is left.
type paramOrder struct {
	names []string
	rest  string
}

func (p paramOrder) synopsis() string {
	var b strings.Builder
	for _, n := range p.names {
		fmt.Fprintf(&b, " %s", strings.ToUpper(n))
	}
	if p.rest != "" {
		fmt.Fprintf(&b, " %s...", strings.ToUpper(p.rest))
	}
	return b.String()
}

func toolProperties(t *contract.Tool) (map[string]map[string]any, []string) {
	props := map[string]map[string]any{}
	if ps, ok := t.InputSchema["properties"].(map[string]any); ok {
		for name, s := range ps {
			if s, ok := s.(map[string]any); ok {
				props[name] = s
			}
		}
	}
	var required []string
	switch r := t.InputSchema["required"].(type) {
	case []string:
		required = r
	case []any:
		for _, x := range r {
			if x, ok := x.(string); ok {
				required = append(required, x)
			}
		}
	}
	sort.Strings(required)
	return props, required
}

// positionals derives a tool's positional arguments from its schema: the image id
// (image_id, or another required *_image_id), the tool's extra positionals, the other
// required text parameters in alphabetical order, and a required list of text last.
func positionals(t *contract.Tool) paramOrder {
	props, required := toolProperties(t)
	var p paramOrder
	add := func(n string) {
		if !slices.Contains(p.names, n) {
			p.names = append(p.names, n)
		}
	}
	for _, n := range required {
		if (n == "image_id" || strings.HasSuffix(n, "_image_id")) && kindOf(props[n]) == kindString {
			add(n)
		}
	}
	for _, n := range positionalExtra[t.Name] {
		if _, ok := props[n]; ok {
			add(n)
		}
	}
	for _, n := range required {
		switch kindOf(props[n]) {
		case kindString:
			add(n)
		case kindStringList:
			if p.rest == "" {
				p.rest = n
			}
		}
	}
	return p
}

// describeParam is a flag's help: the schema's description, else its type.
func describeParam(s map[string]any) string {
	var parts []string
	if d, ok := s["description"].(string); ok {
		parts = append(parts, d)
	}
	types := schemaTypes(s)
	delete(types, "null")
	var ts []string
	for t := range types {
		if t != "" {
			ts = append(ts, t)
		}
	}
	sort.Strings(ts)
	if e, ok := s["enum"].([]any); ok {
		var vals []string
		for _, v := range e {
			if v != nil {
				vals = append(vals, fmt.Sprint(v))
			}
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	} else if len(ts) > 0 {
		parts = append(parts, strings.Join(ts, " or "))
	}
	if d, ok := s["default"]; ok {
		b, _ := json.Marshal(d)
		parts = append(parts, "default "+string(b))
	}
	return strings.Join(parts, "; ")
}

// toolCmd runs the verb of a tool. found is false when no tool has that verb.
func (m *Main) toolCmd(ctx context.Context, verb string, args []string) (found bool, err error) {
	// Setting up (the contract, the packs' verdicts, the server) allocates a few
	// MiB on a heap that starts small; the tool itself runs at the default.
	gcPercent := debug.SetGCPercent(startupGCPercent)
	defer debug.SetGCPercent(gcPercent)
	m.setupDone = func() { debug.SetGCPercent(gcPercent) }
	m.focus(verb)
	c, err := m.loadContract()
	if err != nil {
		return false, err
	}
	t, ok := toolForVerb(c, verb)
	if !ok {
		return false, nil
	}
	return true, m.runTool(ctx, verb, t, args)
}

func (m *Main) runTool(ctx context.Context, verb string, t *contract.Tool, args []string) error {
	props, _ := toolProperties(t)
	order := positionals(t)
	stateful := !statelessGroups[t.Group]

	fs := m.flags(verb, "")
	jsonOut := fs.Bool("json", false, "print the result envelope as one JSON object per line")
	var vocabDirs multiFlag
	fs.Var(&vocabDirs, "vocab", "directory of extra vocabulary packs, as serve was given (repeatable)")
	var wf workspaceFlags
	if stateful {
		wf.register(fs, "a directory ingest may read photos from (repeatable; default: the working directory)")
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	flags := map[string]*paramFlag{}
	for _, n := range names {
		if fs.Lookup(kebab(n)) != nil {
			return darkroom.Errorf(darkroom.InternalError, "%s: parameter %s clashes with a common flag", t.Name, n)
		}
		f := &paramFlag{kind: kindOf(props[n])}
		flags[n] = f
		fs.Var(f, kebab(n), describeParam(props[n]))
	}
	for alias, n := range flagAliases {
		if f, ok := flags[n]; ok {
			fs.Var(f, alias, "the same as --"+kebab(n))
		}
	}
	var params multiFlag
	if _, ok := props["value"]; ok {
		fs.Var(&params, "param", "NAME=V: one parameter of the entry's value (repeatable); may repeat --value's parameter when they agree")
	}
	var shardCount *int
	if t.Name == "augment_dataset" {
		shardCount = fs.Int("shard-count", 0, "with --shard auto in a Kubernetes Indexed Job: the Job's completions (the shard count)")
	}
	var exportOut string
	if t.Name == "export_final" {
		fs.StringVar(&exportOut, "output", "", "also copy the export to this `FILE` (relative to the working directory); the workspace keeps its copy under exports/")
	}
	var b64File string
	if _, ok := props["image_b64"]; ok {
		fs.StringVar(&b64File, "b64-file", "", "a photo file to send as image_b64 (base64-encoded here; - for stdin)")
	}
	fs.Usage = func() {
		m.usageShown = true
		fmt.Fprintf(fs.Output(), "usage: darkroom %s%s [flags]\n\n%s\n\n%s\n\nflags:\n", verb, order.synopsis(), t.Description, toolVerbDoc)
		fs.PrintDefaults()
	}

	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	for i, text := range pos {
		var n string
		switch {
		case i < len(order.names):
			n = order.names[i]
		case order.rest != "":
			n = order.rest
		default:
			return usagef("%s: too many arguments %q (usage: darkroom %s%s [flags])", verb, pos[i:], verb, order.synopsis())
		}
		f := flags[n]
		if len(f.values) > 0 && (f.kind != kindStringList || i < len(order.names)) {
			return usagef("%s: %s given both as an argument and as --%s", verb, n, kebab(n))
		}
		f.values = append(f.values, text)
	}

	call := map[string]any{}
	for _, n := range names {
		if n == "pipeline" {
			if v, ok, err := m.pipelineFile(flags[n]); err != nil {
				return err
			} else if ok {
				call[n] = v
				continue
			}
		}
		if v, ok := flags[n].value(); ok {
			call[n] = v
		}
	}
	// --value and --param are read once the vocabulary is loaded: ADR-079 names the
	// entry's parameter in their errors.
	var valueText *string
	if f, ok := flags["value"]; ok && len(f.values) > 0 {
		valueText = &f.values[0]
		delete(call, "value")
	}
	if shardCount != nil {
		if err := shardAuto(call, *shardCount, os.Getenv); err != nil {
			return err
		}
	}
	if b64File != "" {
		if _, ok := call["image_b64"]; ok {
			return usagef("%s: give --image-b64 or --b64-file, not both", verb)
		}
		data, err := m.readInput(b64File)
		if err != nil {
			return err
		}
		call["image_b64"] = base64.StdEncoding.EncodeToString(data)
	}

	var ws *workspace.Workspace
	if stateful {
		// The user named the photo on their own command line, so the CLI may read
		// under the working directory unless told otherwise.
		cwd, err := os.Getwd()
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "working directory")
		}
		if ws, err = wf.open([]string{cwd}); err != nil {
			return err
		}
		if out, ok := call["output"].(string); ok && t.Name == "augment_dataset" {
			// A relative --output is relative to the working directory, as on any
			// command line, and the user who named it may write there: the working
			// directory is the write root unless --allow-write-root says otherwise.
			if len(wf.write) == 0 {
				if err := ws.AllowWrite(cwd); err != nil {
					return err
				}
			}
			if !filepath.IsAbs(out) && out != "" && !dataset.IsBucketURL(out) {
				call["output"] = filepath.Join(cwd, out)
			}
		}
	}
	s, err := m.newServer(vocabDirs, ws)
	if err != nil {
		return err
	}
	if m.setupDone != nil {
		m.setupDone()
	}
	var env server.Envelope
	var summary string
	if valueText != nil || len(params) > 0 {
		name, _ := call["primitive_name"].(string)
		e, _ := s.Vocab.Entry(name)
		v, err := entryValue(e, valueText, params)
		switch {
		case err == nil:
			call["value"] = v
		case darkroom.Code(err) == darkroom.InvalidInput:
			env = s.Failure(t.Name, err)
		default:
			return err
		}
	}
	if env.Error == nil {
		raw, err := json.Marshal(call)
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "%s: arguments", verb)
		}
		// A terminal shows the call's progress as a bar on stderr (progress.go);
		// piped, or with --json, nothing is drawn.
		bar := (*progressBar)(nil)
		if !*jsonOut && isTerminal(m.Stderr) {
			bar = newProgressBar(m.Stderr, verb)
			ctx = server.WithProgress(ctx, bar.Update)
		}
		env, summary = s.Invoke(ctx, t.Name, raw)
		if bar != nil {
			bar.Finish()
		}
	}
	if exportOut != "" && env.Success {
		if err := copyExport(ws, env.Data, exportOut); err != nil {
			return err
		}
		summary += "; copied to " + exportOut
	}
	if note := server.DeprecationNote(t); note != "" {
		fmt.Fprintf(m.Stderr, "darkroom: note: %s\n", note)
	}
	if list := jsonLines[t.Name]; *jsonOut && env.Success && list != "" {
		if err := printJSONLines(m.Stdout, env.Data, list); err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "%s: result", verb)
		}
	} else if *jsonOut {
		line, err := json.Marshal(env)
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "%s: result", verb)
		}
		fmt.Fprintf(m.Stdout, "%s\n", line)
	}
	if !env.Success {
		fmt.Fprintf(m.Stderr, "darkroom: %s: %s\n", env.Error.Code, env.Error.Message)
		return errReported{code: m.exitCode(env.Error.Code)}
	}
	if !*jsonOut {
		if summary != "" {
			fmt.Fprintln(m.Stdout, summary)
		}
		data, err := json.Marshal(env.Data)
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "%s: result", verb)
		}
		_, givenID := call["image_id"]
		if err := printData(m.Stdout, data, givenID); err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "%s: print result", verb)
		}
	}
	return nil
}

// entryValue builds apply_primitive's value from --value and --param NAME=V as
// ADR-079 decides: --param works for any entry (for a one-parameter entry it is the
// same as --value); --value and --param may both name a parameter when they agree,
// and a disagreement is invalid_input naming both values. Numbers are read as people
// write them (+0.4, .5, 1e-2, 5.); anything else is invalid_input naming the
// parameter. e is nil for an entry the vocabulary does not have: the server then
// says so. Ranges and unknown parameters are the server's to judge.
func entryValue(e *vocab.Entry, valueText *string, params []string) (any, error) {
	entry, single := "value", ""
	if e != nil {
		entry = e.Name
		if names := e.ParameterNames(); len(names) == 1 {
			single = names[0]
		}
	}
	// Paths are as the server gives them for a value: the parameter's name.
	fail := func(param, format string, args ...any) error {
		path := param
		if path == "" {
			path = "value"
		}
		msg := fmt.Sprintf(format, args...)
		details := map[string]any{"fields": []any{map[string]any{"path": path, "message": msg}}}
		if e != nil {
			details["entry"] = e.Name
			if param != "" {
				details["parameter"] = param
			}
		}
		return &darkroom.Error{Code: darkroom.InvalidInput, Message: msg, Details: details}
	}
	notNumber := func(param, flagText string) error {
		switch {
		case e == nil:
			return fail(param, "%s is not a number", flagText)
		case param == "":
			return fail(param, "%s: %s is not a number", entry, flagText)
		}
		return fail(param, "%s: %s: %s is not a number", entry, param, flagText)
	}

	var scalar json.RawMessage // --value as a number
	obj := map[string]json.RawMessage{}
	from := map[string]string{} // which flag gave each of obj's members
	if valueText != nil {
		text := strings.TrimSpace(*valueText)
		switch {
		case strings.HasPrefix(text, "{"):
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(text), &m); err != nil {
				return nil, fail("", "%s: --value %s is neither a number nor a JSON object: %v", entry, strconv.Quote(text), err)
			}
			for k, v := range m {
				obj[k], from[k] = v, "--value "+text
			}
		case text == "null":
			scalar = json.RawMessage("null")
		default:
			n, ok := peopleNumber(text)
			if !ok {
				return nil, notNumber(single, "--value "+strconv.Quote(text))
			}
			scalar = json.RawMessage(n)
		}
	}
	seen := map[string]bool{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("--param %q is not NAME=VALUE", p)
		}
		if seen[k] {
			return nil, usagef("--param %s given twice", k)
		}
		seen[k] = true
		n, ok := peopleNumber(strings.TrimSpace(v))
		if !ok {
			return nil, notNumber(k, "--param "+k+"="+strconv.Quote(v))
		}
		if old, ok := obj[k]; ok {
			if !sameNumber(old, n) {
				return nil, fail(k, "%s: %s: %s and --param %s=%s disagree", entry, k, from[k], k, v)
			}
			continue
		}
		if k == single && scalar != nil {
			if !sameNumber(scalar, n) {
				return nil, fail(k, "%s: %s: --value %s and --param %s=%s disagree", entry, k, strings.TrimSpace(*valueText), k, v)
			}
			continue
		}
		obj[k], from[k] = json.RawMessage(n), "--param "+k+"="+v
	}
	switch {
	case scalar != nil && len(obj) == 0:
		return scalar, nil
	case scalar != nil && single != "":
		// A one-parameter entry given other parameters too: the object form lets the
		// server name the unknown ones.
		obj[single] = scalar
	case scalar != nil:
		// A scalar for an entry of several parameters (or none): the server says
		// what the entry takes.
		return scalar, nil
	case single != "" && len(obj) == 1 && strings.HasPrefix(from[single], "--param "):
		// --param on a one-parameter entry is --value: the server takes a number
		// for it (ADR-079), and an object only for several parameters.
		return obj[single], nil
	}
	return obj, nil
}

// peopleNumber reads a number as people write it on a command line (+0.4, .5, 5.,
// 1e-2, -3) and returns it as JSON number text; ok is false for anything else
// (words, hex, inf, nan). The range is the server's to judge, 1e400 included.
func peopleNumber(text string) (string, bool) {
	if !reNumber.MatchString(text) {
		return "", false
	}
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimLeft(text, "+-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(text), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if hasExp {
		out += "e" + exp
	}
	if neg {
		out = "-" + out
	}
	return out, true
}

var reNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// sameNumber reports whether two JSON numbers are equal as numbers (0.5 and .50).
func sameNumber(a json.RawMessage, b string) bool {
	x, errA := strconv.ParseFloat(string(bytes.TrimSpace(a)), 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x == y
}

func (m *Main) readInput(name string) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(m.Stdin)
		if err != nil {
			return nil, darkroom.Wrap(darkroom.InvalidInput, err, "read stdin")
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.NotFound, err, "read %s", name)
	}
	return b, nil
}

// copyExport copies the file an export wrote under the workspace to out (relative
// to the working directory), atomically: a reader never sees half of it.
func copyExport(ws *workspace.Workspace, data any, out string) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "export: result")
	}
	var d struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(raw, &d); err != nil || d.Path == "" {
		return darkroom.Errorf(darkroom.InternalError, "export: the result names no file")
	}
	src, err := os.Open(filepath.Join(ws.Root, filepath.FromSlash(d.Path)))
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "export: open %s", d.Path)
	}
	defer src.Close()
	if err := fsx.WriteFileFrom(out, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	}, nil); err != nil {
		code := darkroom.PermissionError
		if errors.Is(err, fs.ErrNotExist) {
			code = darkroom.NotFound
		}
		return darkroom.Wrap(code, err, "--output %s", out)
	}
	return nil
}
