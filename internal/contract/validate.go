package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/errors"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Limits on untrusted arguments. CUE interns every distinct object key for the life
// of the process and never frees it, so a key the contract and the vocabulary do not
// declare spends from a process-wide budget of new labels: CUE stays the only judge
// of what is allowed (a map keyed by names accepts names nobody declared), and a
// client sending endless fresh keys cannot grow memory without bound. Once the budget
// is spent, undeclared keys are refused before they reach CUE.
const (
	// MaxArgumentBytes is the stdio transport's line limit: one call's arguments,
	// an ingest's base64 photo included. It is well above the base64 of ingest's
	// 8 MiB image_b64 limit (about 10.7 MiB), so a photo up to 18 MiB sent inline
	// still reaches ingest and gets its limit_exceeded, not a framing error.
	MaxArgumentBytes = 24 << 20
	maxArgumentDepth = 16
	// maxArgumentNodes bounds the values (objects, lists, scalars) of one call's
	// arguments, for a tool whose schema admits fewer: a tool whose declared
	// bounds admit more (augment_image's 4096 boxes and 4096 keypoints with
	// labels) gets what they admit (argumentNodes), so every argument the
	// contract accepts reaches CUE.
	maxArgumentNodes = 20000
	// mapKeys is how many keys argumentNodes counts for an object keyed by names
	// (an entry's parameters): no entry declares nearly as many, and a key CUE
	// does not know for the entry is refused.
	mapKeys        = 64
	newLabelBudget = 4096
)

// FieldError is one failing field of a call: its path (dotted, list indexes as
// numbers) and a one-line message that names the value and the bound.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Check validates a call's arguments against the tool's params and returns them
// with every default filled in. A null for an optional parameter means "not given",
// so it takes its default. Integral numbers (10.0) are integers, as in JSON Schema.
// The error is a *darkroom.Error with code invalid_input whose details list the
// failing fields.
func (t *Tool) Check(raw json.RawMessage) (map[string]any, error) {
	t.contract.ensure(t)
	c := t.contract
	args, ferrs := c.decodeArgs(raw, t.argumentNodes())
	if ferrs != nil {
		return nil, invalid(t.Name, ferrs)
	}
	var out map[string]any
	var err error
	c.withEvaluator(func(ev *evaluator) { out, err = c.unify(ev.params(t), t.Name, args) })
	return out, err
}

// argumentNodes is the node cap of the tool's arguments: what its input schema
// admits at most (schemaNodes), and never less than maxArgumentNodes.
func (t *Tool) argumentNodes() int {
	if n, ok := schemaNodes(t.InputSchema); ok && n > maxArgumentNodes {
		return int(n)
	}
	return maxArgumentNodes
}

// schemaNodes is the largest number of values (as decodeArgs counts them: each
// object, list and scalar) an instance of a JSON Schema generated from CUE may
// hold: an object its declared properties, a list maxItems items, a choice its
// largest branch, an object keyed by names mapKeys keys. ok is false for a schema
// that bounds no size (a list without maxItems, a $ref).
func schemaNodes(s any) (n int64, ok bool) {
	m, isMap := s.(map[string]any)
	if !isMap {
		return 1, true // true, or a schema this walk does not know: a scalar
	}
	if _, ref := m["$ref"]; ref {
		return 0, false
	}
	best := int64(1)
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		branches, _ := m[k].([]any)
		for _, b := range branches {
			bn, ok := schemaNodes(b)
			if !ok {
				return 0, false
			}
			best = max(best, bn)
		}
	}
	own := int64(1)
	if props, _ := m["properties"].(map[string]any); props != nil {
		for _, p := range props {
			pn, ok := schemaNodes(p)
			if !ok {
				return 0, false
			}
			own += pn
		}
	}
	var keyed []any
	if pp, _ := m["patternProperties"].(map[string]any); pp != nil {
		for _, p := range pp {
			keyed = append(keyed, p)
		}
	}
	if ap, isSchema := m["additionalProperties"].(map[string]any); isSchema {
		keyed = append(keyed, ap)
	}
	for _, p := range keyed {
		pn, ok := schemaNodes(p)
		if !ok {
			return 0, false
		}
		own += mapKeys * pn
	}
	if m["type"] == "array" || m["items"] != nil {
		var maxItems int64
		switch v := m["maxItems"].(type) {
		case int64:
			maxItems = v
		case int:
			maxItems = int64(v)
		case float64:
			maxItems = int64(v)
		default:
			return 0, false
		}
		in, ok := schemaNodes(m["items"])
		if !ok {
			return 0, false
		}
		own += maxItems * in
	}
	return max(best, own), true
}

// CheckValue validates raw against any schema value of this contract (an entry's
// #values, a #MaskSpec) exactly as Check does a tool's params; name prefixes messages.
func (c *Contract) CheckValue(schema cue.Value, name string, raw json.RawMessage) (map[string]any, error) {
	return c.check(schema, name, raw, maxArgumentNodes)
}

func (c *Contract) check(params cue.Value, name string, raw json.RawMessage, maxNodes int) (map[string]any, error) {
	args, ferrs := c.decodeArgs(raw, maxNodes)
	if ferrs != nil {
		return nil, invalid(name, ferrs)
	}
	// CUE values are not safe for concurrent evaluation.
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unify(params, name, args)
}

// unify is the one CUE evaluation of a call's data: args unified with params
// (whose context the caller holds), validated and decoded with every default
// filled. Every check of a request's data ends here, and counts itself.
func (c *Contract) unify(params cue.Value, name string, args map[string]any) (map[string]any, error) {
	evaluations.Add(1)
	return c.unifyData(params, name, args)
}

// unifyData is unify without the count: for the contract's own data files, checked
// once when first needed (see facts_augment.go), which are not a request's.
func (c *Contract) unifyData(params cue.Value, name string, args map[string]any) (map[string]any, error) {
	u := params.Unify(params.Context().Encode(args))
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return nil, invalid(name, c.fieldErrors(params, args, err))
	}
	b, err := u.MarshalJSON()
	if err != nil {
		return nil, invalid(name, c.fieldErrors(params, args, err))
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "%s: decode checked arguments", name)
	}
	return out, nil
}

func invalid(tool string, ferrs []FieldError) *darkroom.Error {
	msgs := make([]string, len(ferrs))
	fields := make([]any, len(ferrs))
	for i, f := range ferrs {
		msgs[i] = f.Message
		fields[i] = map[string]any{"path": f.Path, "message": f.Message}
	}
	return &darkroom.Error{
		Code:    darkroom.InvalidInput,
		Message: fmt.Sprintf("%s: %s", tool, strings.Join(msgs, "; ")),
		Details: map[string]any{"tool": tool, "fields": fields},
	}
}

// decodeArgs parses strict JSON into Go values: one object, numbers normalized (an
// integral number becomes int64), every key known to the contract, size and depth
// bounded, and top-level nulls dropped.
func (c *Contract) decodeArgs(raw json.RawMessage, maxNodes int) (map[string]any, []FieldError) {
	if len(raw) > MaxArgumentBytes {
		return nil, []FieldError{{"", fmt.Sprintf("arguments are %d bytes, over the limit of %d", len(raw), MaxArgumentBytes)}}
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, []FieldError{{"", "arguments are not valid JSON: " + err.Error()}}
	}
	if dec.More() {
		return nil, []FieldError{{"", "arguments have data after the JSON object"}}
	}
	obj, ok := x.(map[string]any)
	if !ok {
		return nil, []FieldError{{"", fmt.Sprintf("arguments must be a JSON object, got %s", jsonKind(x))}}
	}
	nodes := 0
	var ferrs []FieldError
	var walk func(v any, path []string, depth int) any
	walk = func(v any, path []string, depth int) any {
		nodes++
		if depth > maxArgumentDepth || nodes > maxNodes {
			if len(ferrs) == 0 || ferrs[len(ferrs)-1].Message != "arguments nest too deep or are too large" {
				ferrs = append(ferrs, FieldError{strings.Join(path, "."), "arguments nest too deep or are too large"})
			}
			return nil
		}
		switch v := v.(type) {
		case json.Number:
			n, ok := normalizeNumber(v)
			if !ok {
				p := strings.Join(path, ".")
				ferrs = append(ferrs, FieldError{p, fmt.Sprintf("%s: %s is too large a number (beyond ±%.4g)", labelOf(p), shortNumber(string(v)), math.MaxFloat64)})
			}
			return n
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				p := append(slices.Clip(path), k)
				if !c.admitLabel(k) {
					ferrs = append(ferrs, FieldError{strings.Join(p, "."), fmt.Sprintf("%s: field not allowed", strings.Join(p, "."))})
					delete(v, k)
					continue
				}
				v[k] = walk(v[k], p, depth+1)
			}
			return v
		case []any:
			for i := range v {
				v[i] = walk(v[i], append(slices.Clip(path), strconv.Itoa(i)), depth+1)
			}
			return v
		}
		return v
	}
	walk(obj, nil, 0)
	if ferrs != nil {
		return nil, ferrs
	}
	for k, v := range obj {
		if v == nil {
			delete(obj, k)
		}
	}
	return obj, nil
}

// admitLabel reports whether a key may reach CUE: a declared label, or a new one
// while the budget lasts (and from then on it counts as known).
func (c *Contract) admitLabel(k string) bool {
	c.labelMu.Lock()
	defer c.labelMu.Unlock()
	if c.labels[k] {
		return true
	}
	if c.newLabels >= newLabelBudget || len(k) > 128 {
		return false
	}
	c.newLabels++
	c.labels[k] = true
	return true
}

// AllowLabels adds keys that arguments may use beyond the contract's own field
// names: the vocabulary's parameter names, which appear as keys of a value object.
func (c *Contract) AllowLabels(names ...string) {
	c.labelMu.Lock()
	defer c.labelMu.Unlock()
	for _, n := range names {
		c.labels[n] = true
	}
}

// normalizeNumber turns a JSON number into int64 when it is integral and fits, else
// float64. ok is false for a number beyond float64's range (1e400): no parameter
// can take it, and letting it through would reach a handler as +Inf or fail to
// decode after CUE (which keeps it exactly) had accepted it.
func normalizeNumber(n json.Number) (v any, ok bool) {
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return f, true
}

// labelOf names a field path in a message: the whole arguments when it is empty.
func labelOf(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}

// shortNumber keeps a number's text readable in a message: a client can send a
// million digits.
func shortNumber(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

var (
	reBound     = regexp.MustCompile(`^invalid value (.+) \(out of bound (<=|<|>=|>|=~|!~|!=)(.*)\)$`)
	reValidator = regexp.MustCompile(`^invalid value .* \(does not satisfy (list\.\w+)\((\d+)\)\)`)
	reConflict  = regexp.MustCompile(`^conflicting values (.+) and (.+) \(mismatched types (\w+) and (\w+)\)$`)
)

// fieldErrors turns CUE's errors into one line per failing field, naming the field,
// the value and the bound: `limit: 500 is above the maximum 100`, `layer: "L9" is not
// one of L1, L2, L3`. Raw CUE messages (many lines per disjunction arm, absolute
// positions) would not help an agent fix its call.
func (c *Contract) fieldErrors(params cue.Value, args map[string]any, err error) []FieldError {
	prefix := len(params.Path().Selectors())
	byPath := map[string][]string{}
	var order []string
	for _, e := range errors.Errors(err) {
		p := e.Path()
		if len(p) >= prefix {
			p = p[prefix:]
		}
		key := strings.Join(p, ".")
		format, fargs := e.Msg()
		if _, ok := byPath[key]; !ok {
			order = append(order, key)
		}
		byPath[key] = append(byPath[key], fmt.Sprintf(format, fargs...))
	}
	var out []FieldError
	for _, path := range order {
		if onlyMismatch(byPath[path]) && slices.ContainsFunc(order, func(q string) bool {
			return q != path && (path == "" || strings.HasPrefix(q, path+"."))
		}) {
			continue
		}
		out = append(out, FieldError{Path: path, Message: explain(params, args, path, byPath[path])})
	}
	return out
}

func explain(params cue.Value, args map[string]any, path string, msgs []string) string {
	val, present := lookupArg(args, path)
	label := path
	if label == "" {
		label = "arguments"
	}
	if present {
		if allowed := enumValues(params, path); len(allowed) > 0 {
			return fmt.Sprintf("%s: %s is not one of %s", label, show(val), strings.Join(allowed, ", "))
		}
	}
	// The most specific message wins: a disjunction such as [...T] | null reports
	// the type mismatch with null beside the real failure.
	for _, m := range msgs {
		if sm := reBound.FindStringSubmatch(m); sm != nil {
			v, op, b := sm[1], sm[2], sm[3]
			switch op {
			case "<=":
				return fmt.Sprintf("%s: %s is above the maximum %s", label, v, b)
			case "<":
				return fmt.Sprintf("%s: %s must be below %s", label, v, b)
			case ">=":
				return fmt.Sprintf("%s: %s is below the minimum %s", label, v, b)
			case ">":
				return fmt.Sprintf("%s: %s must be above %s", label, v, b)
			case "=~":
				return fmt.Sprintf("%s: %s does not match %s", label, v, b)
			case "!=":
				return fmt.Sprintf("%s: %s is not allowed", label, v)
			}
		}
		if sm := reValidator.FindStringSubmatch(m); sm != nil {
			n := 0
			if l, ok := val.([]any); ok {
				n = len(l)
			}
			switch sm[1] {
			case "list.MaxItems":
				return fmt.Sprintf("%s: %d items, more than the maximum %s", label, n, sm[2])
			case "list.MinItems":
				return fmt.Sprintf("%s: %d items, fewer than the minimum %s", label, n, sm[2])
			}
		}
	}
	for _, m := range msgs {
		switch {
		case strings.Contains(m, "field not allowed"):
			return label + ": field not allowed"
		case strings.Contains(m, "field is required but not present"), strings.HasPrefix(m, "incomplete value"):
			return label + ": required field is missing"
		}
	}
	// A disjunction such as number | {[string]: number} reports a bad member of the
	// object at the object's path ("bright" and number): name the member, so that
	// {"ev": "bright"} says which parameter is not a number.
	if obj, ok := val.(map[string]any); ok {
		for _, m := range msgs {
			sm := reConflict.FindStringSubmatch(m)
			if sm == nil || sm[3] == "struct" {
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if show(obj[k]) == sm[1] {
					return fmt.Sprintf("%s.%s: got %s, want %s", label, k, describe(obj[k]), sm[4])
				}
			}
		}
	}
	for _, m := range msgs {
		if sm := reConflict.FindStringSubmatch(m); sm != nil && present {
			return fmt.Sprintf("%s: got %s, want %s", label, describe(val), wantOf(params, path, sm))
		}
		if strings.HasPrefix(m, "incompatible list lengths") {
			return fmt.Sprintf("%s: %s", label, m)
		}
	}
	return fmt.Sprintf("%s: %s", label, msgs[len(msgs)-1])
}

// onlyMismatch reports whether a field's messages are just a failed disjunction,
// which a more specific error below it explains.
func onlyMismatch(msgs []string) bool {
	for _, m := range msgs {
		if !strings.Contains(m, "errors in empty disjunction") && !reConflict.MatchString(m) {
			return false
		}
	}
	return true
}

// lookupArg finds the argument at a dotted path.
func lookupArg(args map[string]any, path string) (any, bool) {
	if path == "" {
		return args, true
	}
	var cur any = args
	for _, s := range strings.Split(path, ".") {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// schemaAt returns the schema value at a dotted argument path.
func schemaAt(params cue.Value, path string) cue.Value {
	v := params
	if path == "" {
		return v
	}
	for _, s := range strings.Split(path, ".") {
		v = stepInto(v, s)
	}
	return v
}

// stepInto returns the schema of element or field s of v, looking into the arms of
// a disjunction (T | null, [...T] | null) when v itself has no such element.
func stepInto(v cue.Value, s string) cue.Value {
	look := func(v cue.Value) cue.Value {
		if i, err := strconv.Atoi(s); err == nil {
			n := v.LookupPath(cue.MakePath(cue.Index(i)))
			if !n.Exists() {
				n = v.LookupPath(cue.MakePath(cue.AnyIndex))
			}
			return n
		}
		n := v.LookupPath(cue.MakePath(cue.Str(s).Optional()))
		if !n.Exists() {
			n = v.LookupPath(cue.MakePath(cue.Str(s)))
		}
		return n
	}
	var find func(v cue.Value, depth int) cue.Value
	find = func(v cue.Value, depth int) cue.Value {
		n := look(v)
		if n.Exists() || depth > 3 {
			return n
		}
		// The arms of a disjunction, and the parts of a conjunction such as
		// [...T] & list.MaxItems(32).
		if op, parts := v.Expr(); op == cue.OrOp || op == cue.AndOp {
			for _, a := range parts {
				if m := find(a, depth+1); m.Exists() {
					return m
				}
			}
		}
		return n
	}
	return find(v, 0)
}

// enumValues lists the string constants a field accepts when it is an enum.
func enumValues(params cue.Value, path string) []string {
	s, err := schemaOf(schemaAt(params, path), 0)
	if err != nil {
		return nil
	}
	enum, _ := s["enum"].([]any)
	// An optional enum is anyOf [{enum}, {type: null}].
	for _, arm := range asAnySlice(s["anyOf"]) {
		if m, ok := arm.(map[string]any); ok {
			e, _ := m["enum"].([]any)
			enum = append(enum, e...)
		}
	}
	var out []string
	for _, e := range enum {
		str, ok := e.(string)
		if !ok {
			continue
		}
		out = append(out, str)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func asAnySlice(x any) []any {
	s, _ := x.([]any)
	return s
}

func wantOf(params cue.Value, path string, sm []string) string {
	s, err := schemaOf(schemaAt(params, path), 0)
	if err == nil {
		var kinds []string
		addType := func(t any) {
			switch t := t.(type) {
			case string:
				kinds = append(kinds, t)
			case []any:
				for _, x := range t {
					kinds = append(kinds, fmt.Sprint(x))
				}
			}
		}
		// An enum or const names its values: "linear", "cubic" or null says more
		// than string or null, and more than null alone.
		addValues := func(m map[string]any) {
			vals, _ := m["enum"].([]any)
			if c, ok := m["const"]; ok {
				vals = append(vals, c)
			}
			for _, x := range vals {
				b, err := json.Marshal(x)
				if err == nil && !slices.Contains(kinds, string(b)) {
					kinds = append(kinds, string(b))
				}
			}
			if len(vals) == 0 {
				addType(m["type"])
			}
		}
		addValues(s)
		if arms, ok := s["anyOf"].([]any); ok {
			for _, a := range arms {
				if m, ok := a.(map[string]any); ok {
					addValues(m)
				}
			}
		}
		switch n := len(kinds); {
		case n > 2:
			return "one of " + strings.Join(kinds[:n-1], ", ") + " or " + kinds[n-1]
		case n > 0:
			return strings.Join(kinds, " or ")
		}
	}
	return sm[4]
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + show(v)
	case int64, float64, *big.Float:
		return "number " + show(v)
	case string:
		return "string " + show(v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return show(v)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
