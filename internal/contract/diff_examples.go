package contract

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"

	"cuelang.org/go/cue"
)

// Examples that back the differ's verdicts: the agreement test's argument corpus
// (corpus and candidates, shared with TestAgreement), recorded results from the
// golden transcripts, and vocabulary packs (DiffOptions.Packs).

// exampleArguments runs the corpus of the old params through both tools: a call the
// old tool accepted and the new one rejects contradicts a compatible verdict.
func exampleArguments(ot, nt *Tool) (Finding, bool) {
	var first string
	var firstErr error
	n := 0
	for _, raw := range corpus(ot.InputSchema) {
		if _, err := ot.Check(raw); err != nil {
			continue
		}
		if _, err := nt.Check(raw); err != nil {
			n++
			if firstErr == nil {
				first, firstErr = string(raw), err
			}
		}
	}
	if n == 0 {
		return Finding{}, false
	}
	msg := strings.TrimPrefix(firstErr.Error(), nt.Name+": ")
	if n > 1 {
		msg += fmt.Sprintf(" (and %d more calls of the corpus)", n-1)
	}
	return Finding{Tool: ot.Name, Path: "params", Old: "accepted " + first, New: "rejected: " + msg, Verdict: Breaking, Rule: "example arguments rejected"}, true
}

// RecordedResult is the structuredContent of one tools/call reply in a golden
// transcript.
type RecordedResult struct {
	Source string          // file:line of the reply
	Result json.RawMessage // structuredContent
}

// RecordedResults reads the golden transcripts (*.txtar) in dir of fsys, as the
// testscripts' mcp command writes them ("--> request" on one line, "<-- reply"
// indented), and returns the structuredContent of every tools/call reply by tool.
// A missing dir has no results.
func RecordedResults(fsys fs.FS, dir string) (map[string][]RecordedResult, error) {
	out := map[string][]RecordedResult{}
	files, err := fs.Glob(fsys, path.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		for tool, rs := range transcriptResults(name, string(b)) {
			out[tool] = append(out[tool], rs...)
		}
	}
	return out, nil
}

func transcriptResults(name, text string) map[string][]RecordedResult {
	out := map[string][]RecordedResult{}
	calls := map[string]string{} // request id -> tool
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "--> "):
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(line[4:]), &req) == nil && req.Method == "tools/call" && req.ID != nil {
				calls[string(req.ID)] = req.Params.Name
			}
		case strings.HasPrefix(line, "<-- "):
			start := i
			body := line[4:]
			// A pretty-printed reply ends at the first line that closes it at the
			// margin.
			if !json.Valid([]byte(body)) {
				var b strings.Builder
				b.WriteString(body)
				for i+1 < len(lines) {
					i++
					b.WriteString("\n" + lines[i])
					if lines[i] == "}" {
						break
					}
				}
				body = b.String()
			}
			var reply struct {
				ID     json.RawMessage `json:"id"`
				Result struct {
					StructuredContent json.RawMessage `json:"structuredContent"`
				} `json:"result"`
			}
			if json.Unmarshal([]byte(body), &reply) != nil || reply.Result.StructuredContent == nil {
				continue
			}
			if tool, ok := calls[string(reply.ID)]; ok {
				out[tool] = append(out[tool], RecordedResult{Source: fmt.Sprintf("%s:%d", name, start+1), Result: reply.Result.StructuredContent})
			}
		}
	}
	return out
}

// recordedResults checks the data of recorded results against the old tool's data,
// as a client of the old contract reads it: keys the old data does not declare are
// dropped first, then CUE validates what is left.
func recordedResults(oc *Contract, ot *Tool, results []RecordedResult) (Finding, bool) {
	schema := toolField(oc, ot.Name, "data")
	if len(results) == 0 || !schema.Exists() {
		return Finding{}, false
	}
	s := shapeOf(schema, 0)
	n := 0
	var first RecordedResult
	var firstErr string
	for _, r := range results {
		var env struct {
			Success bool            `json:"success"`
			Data    json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(r.Result, &env); err != nil || !env.Success || len(env.Data) == 0 || string(env.Data) == "null" {
			continue
		}
		var data any
		if err := json.Unmarshal(env.Data, &data); err != nil {
			continue
		}
		b, err := json.Marshal(prune(data, s))
		if err != nil {
			continue
		}
		v := schema.Context().CompileBytes(b)
		err = v.Err()
		if err == nil {
			err = schema.Unify(v).Validate(cue.Concrete(true))
		}
		if err != nil {
			n++
			if first.Source == "" {
				first = r
				firstErr = strings.ReplaceAll(errorSummary(FormatError(err)), "tools."+ot.Name+".", "")
			}
		}
	}
	if n == 0 {
		return Finding{}, false
	}
	if n > 1 {
		firstErr += fmt.Sprintf(" (and %d more recorded results)", n-1)
	}
	return Finding{Tool: ot.Name, Path: "data", Old: "recorded result " + first.Source, New: "rejected by the old data: " + firstErr, Verdict: Breaking, Rule: "recorded result rejected"}, true
}

// prune drops the keys of x that the shape's closed objects do not declare, the way
// a client ignores what it does not know. A union of objects is followed only when
// the discriminating field picks one arm.
func prune(x any, s *shape) any {
	switch x := x.(type) {
	case map[string]any:
		o := objectFor(x, s)
		if o == nil {
			return x
		}
		out := map[string]any{}
		for k, v := range x {
			if f := o.fields[k]; f != nil {
				out[k] = prune(v, f.shape)
			} else if f := patternFor(o, k); f != nil {
				out[k] = prune(v, f.shape)
			} else if !o.closed {
				out[k] = v
			}
		}
		return out
	case []any:
		arrays := altsOfKind(s.alts, kArray)
		if len(arrays) != 1 {
			return x
		}
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = v
			if e := arrays[0].elem(i); e != nil {
				out[i] = prune(v, e)
			}
		}
		return out
	}
	return x
}

func objectFor(x map[string]any, s *shape) *alt {
	objects := altsOfKind(s.alts, kObject)
	if len(objects) == 1 {
		return objects[0]
	}
	d := discriminator(objects)
	if d == "" || len(objects) == 0 {
		return nil
	}
	b, err := json.Marshal(x[d])
	if err != nil {
		return nil
	}
	for _, o := range objects {
		if o.fields[d].shape.alts[0].consts[0] == string(b) {
			return o
		}
	}
	return nil
}

// corpus builds argument objects for an object schema: the minimal valid object,
// then each property in turn set to boundary, wrong-type, null and (for integers)
// 10.0-style values, plus an unknown field and a missing required field.
func corpus(schema map[string]any) []json.RawMessage {
	props, _ := schema["properties"].(map[string]any)
	var required []string
	for _, r := range asSlice(schema["required"]) {
		required = append(required, r.(string))
	}
	base := map[string]json.RawMessage{}
	for _, r := range required {
		p, _ := props[r].(map[string]any)
		if vals := candidates(p); len(vals) > 0 {
			base[r] = vals[0]
		} else {
			base[r] = json.RawMessage(`null`)
		}
	}
	var out []json.RawMessage
	emit := func(m map[string]json.RawMessage) {
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	emit(base)
	emit(with(base, "not_a_field", json.RawMessage(`1`)))
	for _, r := range required {
		m := with(base, "", nil)
		delete(m, r)
		emit(m)
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range candidates(asMap(props[n])) {
			emit(with(base, n, v))
		}
		emit(with(base, n, json.RawMessage(`null`)))
	}
	out = append(out, json.RawMessage(`[]`), json.RawMessage(`"x"`))
	return out
}

func with(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	c := make(map[string]json.RawMessage, len(m)+1)
	for kk, vv := range m {
		c[kk] = vv
	}
	if k != "" {
		c[k] = v
	}
	return c
}

func asSlice(x any) []any {
	switch x := x.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}

// candidates returns values around a schema's edges, valid first when there is one.
func candidates(s map[string]any) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		if r, ok := v.(json.RawMessage); ok {
			out = append(out, r)
			return
		}
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	if d, ok := s["default"]; ok {
		add(d)
	}
	for _, e := range asSlice(s["enum"]) {
		add(e)
	}
	if len(asSlice(s["enum"])) > 0 {
		add("not_in_enum")
	}
	if cst, ok := s["const"]; ok {
		add(cst)
		add("not_the_const")
	}
	for _, arm := range asSlice(s["anyOf"]) {
		out = append(out, candidates(arm.(map[string]any))...)
	}
	switch typeOf(s) {
	case "number", "integer":
		lo, hasLo := num(s["minimum"])
		hi, hasHi := num(s["maximum"])
		xlo, hasXlo := num(s["exclusiveMinimum"])
		xhi, hasXhi := num(s["exclusiveMaximum"])
		integer := typeOf(s) == "integer"
		step := 0.001
		if integer {
			step = 1
		}
		if hasLo {
			add(lo)
			add(lo - step)
		}
		if hasHi {
			add(hi)
			add(hi + step)
		}
		if hasXlo {
			add(xlo)
			add(xlo + step)
		}
		if hasXhi {
			add(xhi)
			add(xhi - step)
		}
		if hasLo && hasHi {
			mid := (lo + hi) / 2
			if integer {
				mid = math.Round(mid)
				// 10.0 for an int: JSON Schema calls it an integer, and so do we.
				add(json.RawMessage(fmt.Sprintf("%.1f", mid)))
				add(mid + 0.5)
			}
			add(mid)
		}
		if !hasLo && !hasHi {
			add(0)
			add(-1)
			add(1.5)
		}
		add("7")
		add(true)
	case "boolean":
		add(true)
		add(false)
		add(1)
		add("true")
	case "string":
		add("abc")
		add("snake_case_name")
		add("Not Snake")
		add("")
		add(5)
		if p, ok := s["pattern"].(string); ok && strings.Contains(p, "[0-9]") {
			add("1.2.3")
		}
	case "array":
		add([]any{})
		if items, ok := s["items"].(map[string]any); ok {
			for _, v := range candidates(items)[:min(3, len(candidates(items)))] {
				add(json.RawMessage("[" + string(v) + "]"))
			}
			if mx, ok := num(s["maxItems"]); ok {
				vals := candidates(items)
				over := make([]string, int(mx)+1)
				for i := range over {
					over[i] = string(vals[0])
				}
				add(json.RawMessage("[" + strings.Join(over, ",") + "]"))
			}
		}
		if prefix := asSlice(s["prefixItems"]); len(prefix) > 0 {
			var elems []string
			for _, p := range prefix {
				elems = append(elems, string(candidates(p.(map[string]any))[0]))
			}
			add(json.RawMessage("[" + strings.Join(elems, ",") + "]"))
			add(json.RawMessage("[" + strings.Join(elems[:len(elems)-1], ",") + "]"))
		}
		add("not a list")
	case "object":
		for _, o := range corpus(s)[:min(6, len(corpus(s)))] {
			add(o)
		}
		add(map[string]any{"unknown": 1})
		add(7)
	}
	return dedupe(out)
}

func typeOf(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

func num(x any) (float64, bool) {
	switch v := x.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	}
	return 0, false
}

func dedupe(in []json.RawMessage) []json.RawMessage {
	seen := map[string]bool{}
	var out []json.RawMessage
	for _, r := range in {
		if !seen[string(r)] {
			seen[string(r)] = true
			out = append(out, r)
		}
	}
	return out
}

func asMap(x any) map[string]any {
	m, _ := x.(map[string]any)
	return m
}
