package compat

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// Examples that back the differ's verdicts: the agreement test's argument corpus
// (contract.Corpus, shared with TestAgreement), recorded results from the
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
	// Placeholders are the stand-ins the transcript wrote for values it could not
	// know (see placeholders): a string that holds one is not judged.
	Placeholders []string
}

// The testscripts' mcp command writes a transcript that does not depend on the run:
// a value captured with `let NAME /pointer` (a random proposal id) is written $NAME
// everywhere, the script's directory $WORK, an RFC 3339 time "<time>" and image data
// "<png 1234 bytes 64x48>". Those strings are not what the server sent, so no schema
// may judge them; the rest of the result still is.
var (
	fixedPlaceholders = []string{"$WORK", "<time>"}
	imagePlaceholder  = regexp.MustCompile(`^<[a-z0-9]+ [0-9]+ bytes [0-9]+x[0-9]+>$`)
)

// placeholders returns the stand-ins of a transcript: the fixed ones and $NAME for
// every `let NAME /pointer` line of the archive.
func placeholders(text string) []string {
	out := slices.Clone(fixedPlaceholders)
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "let" && strings.HasPrefix(f[2], "/") {
			out = appendUnique(out, "$"+f[1])
		}
	}
	return out
}

// isPlaceholder reports whether a recorded string holds a stand-in.
func (r RecordedResult) isPlaceholder(s string) bool {
	if imagePlaceholder.MatchString(s) {
		return true
	}
	for _, p := range r.Placeholders {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
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
	stand := placeholders(text)
	for _, r := range contract.Transcript(name, text) {
		out[r.Tool] = append(out[r.Tool], RecordedResult{Source: r.Source, Result: r.Result, Placeholders: stand})
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
		unknown := map[string]bool{}
		data = r.mask(prune(data, s), s, nil, unknown)
		b, err := json.Marshal(data)
		if err != nil {
			continue
		}
		// A stand-in becomes _ (any value): the rest is checked, and what CUE then
		// finds incomplete at that path is the stand-in, not the result.
		src := strings.ReplaceAll(string(b), unknownMarkJSON, "_")
		v := schema.Context().CompileString(src)
		err = v.Err()
		if err == nil {
			err = judged(schema, schema.Unify(v).Validate(cue.Concrete(true)), unknown)
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

// unknownMark replaces a stand-in before the data is written as CUE; it is then
// written _ . No JSON a server sends holds it.
const unknownMark = "\x00darkroom: unknown\x00"

var unknownMarkJSON = func() string {
	b, _ := json.Marshal(unknownMark)
	return string(b)
}()

// mask replaces every string that holds a stand-in by unknownMark and records its
// path (selectors joined by "."); an object key that holds one is dropped with its
// value (a client of the old data cannot have relied on an unknown key). A string
// where the old data has an enum another rule owns (an error code) is masked too:
// that rule has judged it.
func (r RecordedResult) mask(x any, s *shape, path []string, unknown map[string]bool) any {
	switch x := x.(type) {
	case string:
		if r.isPlaceholder(x) || s != nil && ownedEnum(s) {
			unknown[strings.Join(path, ".")] = true
			return unknownMark
		}
	case map[string]any:
		o := (*alt)(nil)
		if s != nil {
			o = objectFor(x, s)
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			if r.isPlaceholder(k) {
				continue
			}
			var fs *shape
			if o != nil {
				if f := o.fields[k]; f != nil {
					fs = f.shape
				} else if f := patternFor(o, k); f != nil {
					fs = f.shape
				}
			}
			out[k] = r.mask(v, fs, append(slices.Clone(path), k), unknown)
		}
		return out
	case []any:
		var arr *alt
		if s != nil {
			if arrays := altsOfKind(s.alts, kArray); len(arrays) == 1 {
				arr = arrays[0]
			}
		}
		out := make([]any, len(x))
		for i, v := range x {
			var es *shape
			if arr != nil {
				es = arr.elem(i)
			}
			out[i] = r.mask(v, es, append(slices.Clone(path), strconv.Itoa(i)), unknown)
		}
		return out
	}
	return x
}

func ownedEnum(s *shape) bool {
	for _, a := range s.alts {
		if a.consts != nil && ownedEnums[a.ref] {
			return true
		}
	}
	return false
}

// judged drops from err the errors at the paths of stand-ins: those say only that
// the value there is unknown.
func judged(schema cue.Value, err error, unknown map[string]bool) error {
	if err == nil || len(unknown) == 0 {
		return err
	}
	base := len(schema.Path().Selectors())
	var kept []cueerrors.Error
	for _, e := range cueerrors.Errors(err) {
		p := e.Path()
		if len(p) >= base && unknown[strings.Join(p[base:], ".")] {
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		return nil
	}
	var out cueerrors.Error
	for _, e := range kept {
		out = cueerrors.Append(out, e)
	}
	return out
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
