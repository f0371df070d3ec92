package compat

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"cuelang.org/go/cue"

	"darkroom/internal/contract"
)

// Examples that back the differ's verdicts: the agreement test's argument corpus
// (corpus and candidates, shared with TestAgreement), recorded results from the
// golden transcripts, and vocabulary packs (DiffOptions.Packs).

// exampleArguments runs the corpus of the old params through both tools: a call the
// old tool accepted and the new one rejects contradicts a compatible verdict.
func exampleArguments(ot, nt *contract.Tool) (Finding, bool) {
	var first string
	var firstErr error
	n := 0
	for _, raw := range contract.Corpus(ot.InputSchema) {
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
func recordedResults(oc *contract.Contract, ot *contract.Tool, results []RecordedResult) (Finding, bool) {
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
				firstErr = strings.ReplaceAll(errorSummary(contract.FormatError(err)), "tools."+ot.Name+".", "")
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
