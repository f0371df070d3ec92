package contract

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// recorded is one tools/call result of a golden transcript, placeholders substituted.
type recorded struct {
	source string // file:line
	tool   string
	result json.RawMessage // structuredContent
}

// structuredContent starts a tool result in a golden, indented or on one line.
var structuredContent = regexp.MustCompile(`"structuredContent":\s*\{`)

// placeholder is a testscript variable in a golden ($WORK, $FIRST).
var placeholder = regexp.MustCompile(`\$([A-Z][A-Z0-9_]*)`)

// servesFixture finds a script that serves another contract module than the
// repository's: its results answer to that fixture, not to c.
var servesFixture = regexp.MustCompile(`(?m)^[^#\n]*--contracts `)

// letLine is the mcp command's `let NAME /json/pointer`, which names a value of the
// previous call's result.
var letLine = regexp.MustCompile(`^let ([A-Z][A-Z0-9_]*) (/\S*)$`)

// goldenResults reads every tools/call reply of the goldens (the *.golden files of
// testscripts/*.txtar; transcripts nested in contract-diff fixtures, and those of a
// server started with --contracts, belong to fixture contracts). A placeholder is replaced by a plausible real value: $WORK by a
// directory, a `let` variable by the shortest string its field's pattern admits.
// A result holding any other placeholder, or answering to a fixture contract, is
// skipped (and counted), never judged.
func goldenResults(t *testing.T, c *Contract, dir string) (results []recorded, skipped int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens in %s: %v", dir, err)
	}
	work := t.TempDir()
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The differ's own scripts hold fixture transcripts for fixture contracts.
		if servesFixture.Match(ar.Comment) || strings.HasPrefix(filepath.Base(f), "contract_diff_") {
			for _, af := range ar.Files {
				if strings.HasSuffix(af.Name, ".golden") {
					skipped += len(structuredContent.FindAllIndex(af.Data, -1))
				}
			}
			continue
		}
		values := map[string]string{"WORK": work}
		for _, af := range ar.Files {
			if !strings.HasSuffix(af.Name, ".txtar") {
				letValues(t, c, string(af.Data), values)
			}
		}
		for _, af := range ar.Files {
			if !strings.HasSuffix(af.Name, ".golden") {
				continue
			}
			for _, r := range Transcript(filepath.Base(f)+"/"+af.Name, string(af.Data)) {
				text, ok := substitute(string(r.Result), values)
				if !ok {
					skipped++
					continue
				}
				results = append(results, recorded{r.Source, r.Tool, json.RawMessage(text)})
			}
		}
	}
	return results, skipped
}

// letValues finds the `let` lines of a session script and gives each variable a
// value its field's schema admits.
func letValues(t *testing.T, c *Contract, script string, values map[string]string) {
	var tool string
	for _, line := range strings.Split(script, "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && (fields[0] == "call" || fields[0] == "setup") {
			tool = fields[1]
		}
		m := letLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		ct, ok := c.Tool(tool)
		if !ok {
			t.Fatalf("let %s follows a call of unknown tool %q", m[1], tool)
		}
		s := schemaAtPointer(ct.OutputSchema, m[2])
		if p, ok := s["pattern"].(string); ok {
			if ex, ok := patternExample(p, false); ok {
				values[m[1]] = ex
			}
		}
	}
}

// schemaAtPointer follows a JSON pointer through properties, items and the arms of
// anyOf; it returns nil when the pointer leads nowhere.
func schemaAtPointer(s map[string]any, ptr string) map[string]any {
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		var next map[string]any
		for _, cand := range append([]any{s}, anySlice(s["anyOf"])...) {
			cs := mapOf(cand)
			if p := mapOf(mapOf(cs["properties"])[tok]); p != nil {
				next = p
				break
			}
			if it := mapOf(cs["items"]); it != nil {
				next = it
				break
			}
		}
		if next == nil {
			return nil
		}
		s = next
	}
	return s
}

// substitute replaces every placeholder; it reports false when one has no value.
func substitute(text string, values map[string]string) (string, bool) {
	ok := true
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		v, found := values[m[1:]]
		if !found {
			ok = false
			return m
		}
		b, _ := json.Marshal(v)
		return string(b[1 : len(b)-1]) // inside a JSON string
	})
	return out, ok
}

// TestRecordedResultsFound guards the extraction: every tools/call reply with
// structured content in the goldens is read, so a change of transcript format cannot
// quietly leave TestAgreement with nothing recorded to judge.
func TestRecordedResultsFound(t *testing.T) {
	c := loadTestContract(t)
	results, skipped := goldenResults(t, c, "../../testscripts")
	want := 0
	files, _ := filepath.Glob("../../testscripts/*.txtar")
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, af := range ar.Files {
			if strings.HasSuffix(af.Name, ".golden") {
				want += len(structuredContent.FindAllIndex(af.Data, -1))
			}
		}
	}
	if len(results)+skipped != want || want == 0 {
		t.Fatalf("read %d results (+%d skipped), the goldens hold %d", len(results), skipped, want)
	}
	tools := map[string]bool{}
	for _, r := range results {
		tools[r.tool] = true
		if placeholder.Match(r.result) {
			t.Errorf("%s: placeholder left in %s", r.source, r.result)
		}
	}
	t.Logf("%d recorded results of %d tools, %d skipped for a placeholder without a value", len(results), len(tools), skipped)
}
