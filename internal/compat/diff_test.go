package compat

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		old, new string
		v        Verdict
		want     Bump
	}{
		{"0.1.0", "0.1.0", Unchanged, Bump{Needs: "none", Minimum: "0.1.0", OK: true}},
		{"0.1.0", "0.1.1", Unchanged, Bump{Needs: "none", Minimum: "0.1.0", OK: true}},
		{"0.1.0", "0.1.1", Additive, Bump{Needs: "minor", Minimum: "0.2.0"}},
		{"0.1.0", "0.2.0", Additive, Bump{Needs: "minor", Minimum: "0.2.0", OK: true}},
		{"0.1.0", "0.1.9", Breaking, Bump{Needs: "minor", Minimum: "0.2.0"}},
		{"0.1.0", "0.2.0", Breaking, Bump{Needs: "minor", Minimum: "0.2.0", OK: true}},
		{"0.1.0", "1.0.0", Breaking, Bump{Needs: "minor", Minimum: "0.2.0", OK: true}},
		{"0.1.0", "0.2.0", NeedsReview, Bump{Needs: "minor", Minimum: "0.2.0", OK: true}},
		{"1.2.3", "1.3.0", Breaking, Bump{Needs: "major", Minimum: "2.0.0"}},
		{"1.2.3", "2.0.0", Breaking, Bump{Needs: "major", Minimum: "2.0.0", OK: true}},
		{"1.2.3", "1.3.0", Additive, Bump{Needs: "minor", Minimum: "1.3.0", OK: true}},
		{"1.2.3", "1.2.4", Additive, Bump{Needs: "minor", Minimum: "1.3.0"}},
		{"1.2.3", "1.3.0", NeedsReview, Bump{Needs: "major", Minimum: "2.0.0"}},
		{"0.2.0", "0.1.0", Unchanged, Bump{Needs: "none", Minimum: "0.2.0"}},
	}
	for _, tt := range tests {
		got, err := CheckVersion(tt.old, tt.new, tt.v)
		if err != nil {
			t.Fatal(err)
		}
		got.Reason = ""
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("CheckVersion(%s, %s, %s) (-want +got):\n%s", tt.old, tt.new, tt.v, diff)
		}
	}
	if _, err := CheckVersion("1.0", "1.0.0", Unchanged); err == nil {
		t.Error("CheckVersion accepted 1.0")
	}
}

// base is a minimal contracts package: the meta-schema, two error codes and the
// definitions Load builds schemas for; each test adds tools.
const base = `package contracts

import "list"

#Semver: =~"^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$"
#Name: =~"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
#Tool: {
	name: #Name
	title: string & !=""
	description: string & !=""
	group: string
	annotations: {readOnly: bool, destructive: bool, idempotent: bool, openWorld: bool}
	since: #Semver
	deprecated?: {replacement: #Name, removeAfter: #Semver}
	params: {...}
	D=data: {...}
	result: close({success!: bool, data!: D | null, error!: #ErrorInfo | null})
	errors: [...#ErrorCode] & list.UniqueItems()
}
tools: [Name=string]: #Tool & {name: Name}
#ErrorInfo: {code!: #ErrorCode, message!: string, details!: {[string]: _}, recoverable!: bool}
#ErrorCodeSpec: {code: #ErrorCode, recoverable: bool, exit_code: int, description: string}
#OperationArgs: {}
#MaskSpec: {}
`

// codesPlus is codes with not_found added.
var codesPlus = strings.Replace(codes, `"internal_error"]`, `"internal_error", "not_found"]`, 1) +
	"error_codes: not_found: {recoverable: true, exit_code: 3, description: \"gone\"}\n"

const codes = `package contracts
_codes: ["invalid_input", "internal_error"]
#ErrorCode: or(_codes)
error_codes: {for c in _codes {(c): #ErrorCodeSpec & {code: c}}}
error_codes: invalid_input: {recoverable: true, exit_code: 2, description: "bad"}
error_codes: internal_error: {recoverable: false, exit_code: 70, description: "bug"}
`

func tool(name, extra, params, data string) string {
	return `tools: ` + name + `: {
	title: "T", description: "D", group: "g", since: "0.1.0"
	annotations: {readOnly: true, destructive: false, idempotent: true, openWorld: false}
	errors: ["invalid_input", "internal_error"]
	params: close({` + params + `})
	data: close({` + data + `})
	` + extra + `
}
`
}

func loadModule(t *testing.T, version, codesSrc string, tools ...string) *contract.Contract {
	t.Helper()
	fsys := fstest.MapFS{
		"cue.mod/module.cue":     {Data: []byte("module: \"test.local\"\nlanguage: version: \"v0.17.1\"\n")},
		"contracts/contract.cue": {Data: []byte(base + "contract_version: \"" + version + "\"\n")},
		"contracts/errors.cue":   {Data: []byte(codesSrc)},
		"contracts/tools.cue":    {Data: []byte("package contracts\n" + strings.Join(tools, "\n"))},
	}
	c, err := contract.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCompareContracts covers the rules on tools and error codes, and the version
// verdict, on whole contracts.
func TestCompareContracts(t *testing.T) {
	list := tool("list", "", `layer?: "L1" | "L2" | null`, `count!: int`)
	listing := tool("codes", "", ``, `codes!: [...close({code!: #ErrorCode, recoverable!: bool})]`)
	tests := []struct {
		name       string
		oldV, newV string
		oldCodes   string
		newCodes   string
		old, new   []string
		want       []Finding
		ok         bool
	}{
		{"unchanged", "0.1.0", "0.1.0", codes, codes, []string{list}, []string{list}, []Finding{}, true},
		{"tool added", "0.1.0", "0.2.0", codes, codes, []string{list}, []string{list, tool("show", "", "", "")},
			[]Finding{{Tool: "show", Old: "absent", New: "tool (T)", Verdict: Additive, Rule: "tool added"}}, true},
		{"tool removed", "0.1.0", "0.1.1", codes, codes, []string{list, tool("show", "", "", "")}, []string{list},
			[]Finding{{Tool: "show", Old: "tool (T)", New: "absent", Verdict: Breaking, Rule: "tool removed"}}, false},
		{"renamed with an alias", "0.1.0", "0.2.0", codes, codes,
			[]string{tool("show", "", "", "")},
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.3.0"}`, "", ""), tool("display", "", "", "")},
			[]Finding{
				{Tool: "display", Old: "absent", New: "tool (T)", Verdict: Additive, Rule: "tool added"},
				{Tool: "show", Path: "deprecated", Old: "not deprecated", New: "deprecated, replaced by display, removable after 0.3.0", Verdict: Additive, Rule: "tool deprecated"},
			}, true},
		{"alias removed too early", "0.2.0", "0.3.0", codes, codes,
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.3.0"}`, "", ""), tool("display", "", "", "")},
			[]string{tool("display", "", "", "")},
			[]Finding{{Tool: "show", Old: "deprecated tool, replaced by display, removable after 0.3.0", New: "absent in 0.3.0", Verdict: Breaking, Rule: "tool removed before its removeAfter"}}, true},
		{"alias removed after removeAfter", "0.3.0", "0.4.0", codes, codes,
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.3.0"}`, "", ""), tool("display", "", "", "")},
			[]string{tool("display", "", "", "")},
			[]Finding{{Tool: "show", Old: "deprecated tool, replaced by display, removable after 0.3.0", New: "absent in 0.4.0", Verdict: Additive, Rule: "deprecated tool removed"}}, true},
		{"replacement missing", "0.1.0", "0.2.0", codes, codes,
			[]string{tool("show", "", "", "")},
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.3.0"}`, "", "")},
			[]Finding{
				{Tool: "show", Path: "deprecated.replacement", Old: "not deprecated", New: "display (no such tool)", Verdict: Breaking, Rule: "replacement missing"},
				{Tool: "show", Path: "deprecated", Old: "not deprecated", New: "deprecated, replaced by display, removable after 0.3.0", Verdict: Additive, Rule: "tool deprecated"},
			}, true},
		{"annotation weakened", "0.1.0", "0.2.0", codes, codes, []string{list},
			[]string{strings.Replace(list, "readOnly: true", "readOnly: false", 1)},
			[]Finding{{Tool: "list", Path: "annotations.readOnly", Old: "true", New: "false", Verdict: Breaking, Rule: "annotation weakened"}}, true},
		{"annotation strengthened", "0.1.0", "0.2.0", codes, codes,
			[]string{strings.Replace(list, "destructive: false", "destructive: true", 1)}, []string{list},
			[]Finding{{Tool: "list", Path: "annotations.destructive", Old: "true", New: "false", Verdict: Additive, Rule: "annotation strengthened"}}, true},
		{"annotations weakened, the other two", "0.1.0", "0.2.0", codes, codes, []string{list},
			[]string{strings.NewReplacer("idempotent: true", "idempotent: false", "openWorld: false", "openWorld: true").Replace(list)},
			[]Finding{
				{Tool: "list", Path: "annotations.idempotent", Old: "true", New: "false", Verdict: Breaking, Rule: "annotation weakened"},
				{Tool: "list", Path: "annotations.openWorld", Old: "false", New: "true", Verdict: Breaking, Rule: "annotation weakened"},
			}, true},
		{"deprecation withdrawn", "0.2.0", "0.3.0", codes, codes,
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.3.0"}`, "", ""), tool("display", "", "", "")},
			[]string{tool("show", "", "", ""), tool("display", "", "", "")},
			[]Finding{{Tool: "show", Path: "deprecated", Old: "deprecated, removable after 0.3.0", New: "not deprecated", Verdict: Additive, Rule: "deprecation withdrawn"}}, true},
		{"removeAfter moved earlier", "0.2.0", "0.3.0", codes, codes,
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.5.0"}`, "", ""), tool("display", "", "", "")},
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.4.0"}`, "", ""), tool("display", "", "", "")},
			[]Finding{{Tool: "show", Path: "deprecated.removeAfter", Old: "0.5.0", New: "0.4.0", Verdict: Breaking, Rule: "removeAfter moved earlier"}}, true},
		{"removeAfter moved later", "0.2.0", "0.3.0", codes, codes,
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.4.0"}`, "", ""), tool("display", "", "", "")},
			[]string{tool("show", `deprecated: {replacement: "display", removeAfter: "0.5.0"}`, "", ""), tool("display", "", "", "")},
			[]Finding{{Tool: "show", Path: "deprecated.removeAfter", Old: "0.4.0", New: "0.5.0", Verdict: Additive, Rule: "removeAfter moved later"}}, true},
		{"error code declared and undeclared", "0.1.0", "0.2.0", codesPlus, codesPlus, []string{list},
			[]string{strings.Replace(list, `errors: ["invalid_input", "internal_error"]`, `errors: ["not_found", "internal_error"]`, 1)},
			[]Finding{
				{Tool: "list", Path: "errors.invalid_input", Old: "declared", New: "not declared", Verdict: Additive, Rule: "error code undeclared"},
				{Tool: "list", Path: "errors.not_found", Old: "not declared", New: "declared", Verdict: Additive, Rule: "error code declared"},
			}, true},
		{"error code added", "0.1.0", "0.2.0", codes,
			strings.Replace(codes, `"internal_error"]`, `"internal_error", "not_found"]`, 1) + "error_codes: not_found: {recoverable: true, exit_code: 3, description: \"gone\"}\n",
			[]string{list}, []string{list},
			[]Finding{{Tool: GroupErrors, Path: "not_found", Old: "absent", New: "recoverable, exit code 3", Verdict: Additive, Rule: "error code added"}}, true},
		// A code added to the closed enum is additive wherever the enum appears,
		// as the error-code rule says; get_contract's listing of it is not a
		// second, breaking, finding ("added enum value" on data).
		{"error code added, listed by a tool", "0.1.0", "0.2.0", codes, codesPlus,
			[]string{list, listing}, []string{list, listing},
			[]Finding{{Tool: GroupErrors, Path: "not_found", Old: "absent", New: "recoverable, exit code 3", Verdict: Additive, Rule: "error code added"}}, true},
		{"error code removed, listed by a tool", "0.2.0", "0.3.0", codesPlus, codes,
			[]string{list, listing}, []string{list, listing},
			[]Finding{{Tool: GroupErrors, Path: "not_found", Old: "recoverable, exit code 3", New: "absent", Verdict: Breaking, Rule: "error code removed"}}, true},
		{"recoverable and exit code changed", "1.0.0", "1.1.0", codes,
			strings.Replace(codes, "recoverable: false, exit_code: 70", "recoverable: true, exit_code: 71", 1),
			[]string{list}, []string{list},
			[]Finding{
				{Tool: GroupErrors, Path: "internal_error.recoverable", Old: "false", New: "true", Verdict: Breaking, Rule: "recoverable changed"},
				{Tool: GroupErrors, Path: "internal_error.exit_code", Old: "70", New: "71", Verdict: Breaking, Rule: "exit code changed"},
			}, false},
		{"params and data", "0.1.0", "0.2.0", codes, codes, []string{list},
			[]string{tool("list", "", `layer?: "L1" | null`, `count!: int, more!: bool`)},
			[]Finding{
				{Tool: "list", Path: "params.layer", Old: "enum L1|L2 or null", New: `exactly "L1" or null`, Verdict: Breaking, Rule: "removed enum value"},
				{Tool: "list", Path: "data.more", Old: "absent", New: "required boolean", Verdict: Additive, Rule: "added field"},
			}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Compare(loadModule(t, tt.oldV, tt.oldCodes, tt.old...), loadModule(t, tt.newV, tt.newCodes, tt.new...), DiffOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, d.Findings); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if d.Version.OK != tt.ok {
				t.Errorf("version ok = %v, want %v: %s", d.Version.OK, tt.ok, d.Version.Reason)
			}
		})
	}
}

// The examples catch what the structure misses: each check must fail on a change
// that breaks its example and pass on one that does not.
func TestExamples(t *testing.T) {
	old := loadModule(t, "0.1.0", codes, tool("list", "", `limit?: int & >=1 & <=100 | null`, `kind!: "a" | "b"`))
	narrower := loadModule(t, "0.1.0", codes, tool("list", "", `limit?: int & >=1 & <=50 | null`, `kind!: "a"`))
	wider := loadModule(t, "0.1.0", codes, tool("list", "", `limit?: int & >=0 & <=500 | null, page?: int`, `kind!: "a" | "b" | "c"`))
	ot, _ := old.Tool("list")
	nt, _ := narrower.Tool("list")
	wt, _ := wider.Tool("list")

	// A required param that takes any value has no candidates of its own: the
	// corpus must not fail on it (null, its stand-in, is dropped and so rejected).
	anyOld := loadModule(t, "0.1.0", codes, tool("list", "", `id!: _`, ``))
	anyNew := loadModule(t, "0.1.0", codes, tool("list", "", `id!: string`, ``))
	at, _ := anyOld.Tool("list")
	ant, _ := anyNew.Tool("list")
	if f, ok := exampleArguments(at, ant); ok {
		t.Errorf("any → string: got %+v, want no example the old tool accepts", f)
	}

	f, ok := exampleArguments(ot, nt)
	if !ok || f.Rule != "example arguments rejected" || f.Old != `accepted {"limit":100}` {
		t.Errorf("narrowed params: got %+v, %v; want the call with limit 100 rejected", f, ok)
	}
	if f, ok := exampleArguments(ot, wt); ok {
		t.Errorf("widened params: got %+v, want no counterexample", f)
	}

	recorded := `--> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list","arguments":{}}}
<-- {
  "jsonrpc": "2.0",
  "id": 1,
  "result": {
    "structuredContent": {
      "success": true,
      "data": {"kind": "c", "extra": 1},
      "error": null
    }
  }
}
--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list","arguments":{}}}
<-- {"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"success":true,"data":{"kind":"a","extra":1},"error":null}}}
--> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
<-- {"jsonrpc":"2.0","id":3,"result":{"tools":[]}}
`
	results, err := RecordedResults(fstest.MapFS{"testscripts/list.txtar": {Data: []byte("# a transcript\n-- golden --\n" + recorded)}}, "testscripts")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results["list"] {
		var x any
		if err := json.Unmarshal(r.Result, &x); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(x)
		got = append(got, r.Source+" "+string(b))
	}
	want := []string{
		`testscripts/list.txtar:4 {"data":{"extra":1,"kind":"c"},"error":null,"success":true}`,
		`testscripts/list.txtar:16 {"data":{"extra":1,"kind":"a"},"error":null,"success":true}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("recorded results (-want +got):\n%s", diff)
	}
	// "c" is not a kind the old schema knows; the unknown key "extra" is fine.
	f, ok = recordedResults(old, ot, results["list"])
	if !ok || f.Old != "recorded result testscripts/list.txtar:4" || strings.Contains(f.New, "more") {
		t.Errorf("got %+v, %v; want only the first result rejected", f, ok)
	}
	if f, ok := recordedResults(old, ot, results["list"][1:]); ok {
		t.Errorf("got %+v, want the second result accepted", f)
	}
}

// The project's own contract compared with itself has no finding, with its own
// goldens' recorded results as examples, and every part of it is read structurally:
// nothing is left as an opaque custom rule.
func TestCompareOwnContract(t *testing.T) {
	c := loadTestContract(t)
	results, err := RecordedResults(os.DirFS("../.."), "testscripts")
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no recorded results in testscripts/")
	}
	d, err := Compare(c, loadTestContract(t), DiffOptions{Results: results})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Findings) != 0 || !d.Version.OK || len(d.Unchanged) != len(c.Tools) {
		t.Errorf("self-diff: %d findings, version %+v, %d of %d tools unchanged: %+v", len(d.Findings), d.Version, len(d.Unchanged), len(c.Tools), d.Findings)
	}
	var walk func(where string, s *shape)
	walk = func(where string, s *shape) {
		if s == nil {
			return
		}
		for _, a := range s.alts {
			if a.kind == kOpaque {
				t.Errorf("%s: opaque: %s", where, a.text)
			}
			for n, f := range a.fields {
				walk(where+"."+n, f.shape)
			}
			for _, p := range a.pfields {
				walk(where+".*", p.shape)
			}
			for i, p := range a.prefix {
				walk(where+"["+string(rune('0'+i))+"]", p)
			}
			walk(where+"[]", a.rest)
		}
	}
	for _, tl := range c.Tools {
		walk(tl.Name+".params", shapeOf(toolField(c, tl.Name, "params"), 0))
		walk(tl.Name+".data", shapeOf(toolField(c, tl.Name, "data"), 0))
	}
	walk("#Manifest", shapeOf(c.Manifest(), 0))
}

func loadTestContract(t testing.TB) *contract.Contract {
	t.Helper()
	return packtest.Contract(t)
}

// Stand-ins the transcripts write for values they cannot know ($NAME of a `let`,
// $WORK, <time>) are skipped, never judged; everything else of the same result still
// is, and a $WORD that no `let` declares is an ordinary string.
func TestRecordedPlaceholders(t *testing.T) {
	data := `id!: =~"^p[0-9a-f]{12}$", kind!: "a" | "b", at!: =~"^[0-9]{4}-", path!: =~"^/", ` +
		`pending!: [...close({id!: =~"^p[0-9a-f]{12}$", n!: int})], ` +
		`mask!: close({kind!: "ellipse", id!: =~"^p"}) | close({kind!: "gradient", angle!: number})`
	old := loadModule(t, "0.1.0", codes, tool("list", "", ``, data))
	ot, _ := old.Tool("list")
	reply := func(id int, data string) string {
		return `--> {"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"list","arguments":{}}}
<-- {"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"structuredContent":{"success":true,"data":` + data + `,"error":null}}}
`
	}
	tests := []struct {
		name, data string
		rejected   string // "" when accepted
	}{
		{"stand-ins only",
			`{"id":"$ID","kind":"a","at":"<time>","path":"$WORK/ws","pending":[{"id":"$OTHER","n":1}],"mask":{"kind":"ellipse","id":"$ID"}}`, ""},
		{"a real error beside stand-ins",
			`{"id":"$ID","kind":"c","at":"<time>","path":"$WORK/ws","pending":[{"id":"$OTHER","n":1}],"mask":{"kind":"ellipse","id":"$ID"}}`, "kind"},
		{"a real error inside a list beside a stand-in",
			`{"id":"$ID","kind":"a","at":"<time>","path":"/ws","pending":[{"id":"$OTHER","n":"x"}],"mask":{"kind":"ellipse","id":"$ID"}}`, "pending"},
		{"an undeclared $WORD is judged",
			`{"id":"$NOPE","kind":"a","at":"<time>","path":"/ws","pending":[],"mask":{"kind":"gradient","angle":1}}`, "id"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			archive := "# a transcript\n-- session --\nlet ID /data/id\nlet OTHER /data/id\n-- golden --\n" + reply(i+1, tt.data)
			results, err := RecordedResults(fstest.MapFS{"testscripts/list.txtar": {Data: []byte(archive)}}, "testscripts")
			if err != nil {
				t.Fatal(err)
			}
			if len(results["list"]) != 1 {
				t.Fatalf("got %d recorded results, want 1", len(results["list"]))
			}
			f, rejected := recordedResults(old, ot, results["list"])
			switch {
			case tt.rejected == "" && rejected:
				t.Errorf("got %q, want the result accepted", f.New)
			case tt.rejected != "" && !rejected:
				t.Errorf("accepted, want it rejected at %s", tt.rejected)
			case tt.rejected != "" && !strings.Contains(f.New, "data."+tt.rejected):
				t.Errorf("got %q, want the rejection at data.%s", f.New, tt.rejected)
			}
		})
	}
}

// get_contract's recorded result lists the new code: the old data's enum does not
// know it, and that is the error-code rule's to judge, not a rejected example.
func TestRecordedOwnedEnum(t *testing.T) {
	listing := tool("codes", "", ``, `codes!: [...close({code!: #ErrorCode, recoverable!: bool})]`)
	archive := `--> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"codes","arguments":{}}}
<-- {"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"success":true,"data":{"codes":[{"code":"not_found","recoverable":true},{"code":"internal_error","recoverable":false}]},"error":null}}}
--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"codes","arguments":{}}}
<-- {"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"success":true,"data":{"codes":[{"code":"not_found","recoverable":"yes"}]},"error":null}}}
`
	results, err := RecordedResults(fstest.MapFS{"testscripts/codes.txtar": {Data: []byte(archive)}}, "testscripts")
	if err != nil {
		t.Fatal(err)
	}
	old := loadModule(t, "0.1.0", codes, listing)
	d, err := Compare(old, loadModule(t, "0.2.0", codesPlus, listing), DiffOptions{Results: map[string][]RecordedResult{"codes": results["codes"][:1]}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{{Tool: GroupErrors, Path: "not_found", Old: "absent", New: "recoverable, exit code 3", Verdict: Additive, Rule: "error code added"}}
	if diff := cmp.Diff(want, d.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// The rest of the same result is still judged.
	ot, _ := old.Tool("codes")
	if f, ok := recordedResults(old, ot, results["codes"][1:]); !ok || !strings.Contains(f.New, "recoverable") {
		t.Errorf("got %+v, %v; want the second result rejected at recoverable", f, ok)
	}
}
