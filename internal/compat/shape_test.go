package compat

import (
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"
)

// shapeFrom compiles src (the value of v, or a file defining v) and builds its shape.
func shapeFrom(t *testing.T, src string) *shape {
	t.Helper()
	if !strings.Contains(src, "v:") {
		src = "v: " + src
	}
	var imports []string
	for _, pkg := range []string{"list", "strings"} {
		if strings.Contains(src, pkg+".") {
			imports = append(imports, "import \""+pkg+"\"\n")
		}
	}
	val := cuecontext.New().CompileString(strings.Join(imports, "") + src)
	if val.Err() != nil {
		t.Fatalf("compile %q: %v", src, val.Err())
	}
	return shapeOf(val.LookupPath(cue.ParsePath("v")), 0)
}

type row struct{ Path, Old, New string }

func rows(fs []Finding) map[string][]row {
	out := map[string][]row{}
	for _, f := range fs {
		k := string(f.Verdict) + ": " + f.Rule
		out[k] = append(out[k], row{f.Path, f.Old, f.New})
	}
	return out
}

// TestCompareShapes runs every structural rule in both directions and on both
// polarities. want maps "verdict: rule" to the findings; an empty want means no
// finding.
func TestCompareShapes(t *testing.T) {
	type tc struct {
		name     string
		pol      polarity
		old, new string
		want     map[string][]row
	}
	tests := []tc{
		// Params (inputs).
		{"new required param", input, `close({a?: int})`, `close({a?: int, b!: string})`,
			map[string][]row{"breaking: new required param": {{"b", "absent", "required string"}}}},
		{"removed required param", input, `close({a?: int, b!: string})`, `close({a?: int})`,
			map[string][]row{"breaking: removed param": {{"b", "required string", "absent"}}}},
		{"new optional param", input, `close({a?: int})`, `close({a?: int, b?: int & >=1 & <=100 | null})`,
			map[string][]row{"additive: new optional param": {{"b", "absent", "optional integer 1..100 or null"}}}},
		{"removed optional param", input, `close({a?: int, b?: int})`, `close({a?: int})`,
			map[string][]row{"breaking: removed param": {{"b", "optional integer", "absent"}}}},
		{"optional to required", input, `close({a?: int})`, `close({a!: int})`,
			map[string][]row{"breaking: optional → required": {{"a", "optional", "required"}}}},
		{"required to optional", input, `close({a!: int})`, `close({a?: int})`,
			map[string][]row{"additive: required → optional": {{"a", "required", "optional"}}}},
		{"regular field with default is optional", input, `close({a!: int})`, `close({a: *3 | int})`,
			map[string][]row{
				"additive: required → optional": {{"a", "required", "optional"}},
				"additive: added default":       {{"a", "no default", "default 3"}},
			}},
		{"default dropped and now required", input, `close({a: *3 | int})`, `close({a: int})`,
			map[string][]row{"breaking: optional → required": {{"a", "optional", "required"}}}},
		{"narrowed type", input, `{a?: int | string}`, `{a?: int}`,
			map[string][]row{"breaking: narrowed type": {{"a", "integer or string", "integer"}}}},
		{"widened type", input, `{a?: int}`, `{a?: int | string}`,
			map[string][]row{"additive: widened type": {{"a", "integer", "integer or string"}}}},
		{"integer to number", input, `int`, `number`,
			map[string][]row{"additive: widened type": {{"", "integer", "number"}}}},
		{"number to integer", input, `number`, `int`,
			map[string][]row{"breaking: narrowed type": {{"", "number", "integer"}}}},
		{"null removed", input, `int | null`, `int`,
			map[string][]row{"breaking: narrowed type": {{"", "integer or null", "integer"}}}},
		{"null added", input, `int`, `int | null`,
			map[string][]row{"additive: widened type": {{"", "integer", "integer or null"}}}},
		{"tightened bound", input, `int & >=0 & <=10`, `int & >=0 & <=5`,
			map[string][]row{"breaking: tightened bound": {{"", "integer 0..10", "integer 0..5"}}}},
		{"widened bound", input, `int & >=0 & <=5`, `int & >=0 & <=10`,
			map[string][]row{"additive: widened bound": {{"", "integer 0..5", "integer 0..10"}}}},
		{"exclusive bound tightens", input, `number & >=0`, `number & >0`,
			map[string][]row{"breaking: tightened bound": {{"", "number >=0", "number >0"}}}},
		{"exclusive bound widens", input, `number & >0 & <=1`, `number & >=0 & <=1`,
			map[string][]row{"additive: widened bound": {{"", "number >0 and <=1", "number 0..1"}}}},
		{"integer >0 is >=1", input, `int & >0 & <10`, `int & >=1 & <=9`, nil},
		{"bound beside a default", input, `*10 | int & >=1 & <=100`, `*10 | int & >=1 & <=50`,
			map[string][]row{"breaking: tightened bound": {{"", "integer 1..100", "integer 1..50"}}}},
		{"bound moved one way and the other", input, `number & >=0 & <=1`, `number & >=0.5 & <=2`,
			map[string][]row{
				"breaking: tightened bound": {{"", "number 0..1", "number 0.5..2"}},
				"additive: widened bound":   {{"", "number 0..1", "number 0.5..2"}},
			}},
		{"tightened length", input, `string & strings.MaxRunes(10)`, `string & strings.MaxRunes(5)`,
			map[string][]row{"breaking: tightened bound": {{"", "string of at most 10 characters", "string of at most 5 characters"}}}},
		{"non-empty", input, `string`, `string & !=""`,
			map[string][]row{"breaking: tightened bound": {{"", "string", "non-empty string"}}}},
		{"removed enum value", input, `"L1" | "L2" | "L3"`, `"L1" | "L2"`,
			map[string][]row{"breaking: removed enum value": {{"", "enum L1|L2|L3", "enum L1|L2"}}}},
		{"added enum value", input, `"L1" | "L2"`, `"L1" | "L2" | "L3"`,
			map[string][]row{"additive: added enum value": {{"", "enum L1|L2", "enum L1|L2|L3"}}}},
		{"enum value replaced", input, `"a" | "b"`, `"a" | "c"`,
			map[string][]row{
				"breaking: removed enum value": {{"", "enum a|b", "enum a|c"}},
				"additive: added enum value":   {{"", "enum a|b", "enum a|c"}},
			}},
		{"long enum", input,
			`"alpha_one" | "alpha_two" | "alpha_three" | "alpha_four" | "alpha_five" | "alpha_six" | "alpha_seven" | "alpha_eight" | "alpha_nine"`,
			`"alpha_one" | "alpha_two" | "alpha_three" | "alpha_four" | "alpha_five" | "alpha_six" | "alpha_seven" | "alpha_eight" | "alpha_ten"`,
			map[string][]row{
				"breaking: removed enum value": {{"", "enum of 9 values", "enum of 9 values, adds alpha_ten, drops alpha_nine"}},
				"additive: added enum value":   {{"", "enum of 9 values", "enum of 9 values, adds alpha_ten, drops alpha_nine"}},
			}},
		{"enum to string", input, `"a" | "b"`, `string`,
			map[string][]row{"additive: widened type": {{"", "enum a|b", "string"}}}},
		{"string to enum", input, `string`, `"a" | "b"`,
			map[string][]row{"breaking: narrowed type": {{"", "string", "enum a|b"}}}},
		{"enum to a pattern that drops a value", input, `"ab" | "b"`, `=~"^a"`,
			map[string][]row{
				"additive: widened type":       {{"", "enum ab|b", "string matching ^a"}},
				"breaking: removed enum value": {{"", "enum ab|b", "string matching ^a"}},
			}},
		{"changed default", input, `*1 | int`, `*2 | int`,
			map[string][]row{"breaking: changed default": {{"", "default 1", "default 2"}}}},
		{"changed default back", input, `*2 | int`, `*1 | int`,
			map[string][]row{"breaking: changed default": {{"", "default 2", "default 1"}}}},
		{"default of an enum", input, `*"a" | "b"`, `"a" | *"b"`,
			map[string][]row{"breaking: changed default": {{"", `default "a"`, `default "b"`}}}},
		{"open to closed", input, `{a?: int, ...}`, `close({a?: int})`,
			map[string][]row{"breaking: closed object": {{"", "open object (other fields allowed)", "closed object (no other fields)"}}}},
		{"closed to open", input, `close({a?: int})`, `{a?: int, ...}`,
			map[string][]row{"additive: opened object": {{"", "closed object (no other fields)", "open object (other fields allowed)"}}}},
		{"typed field in an open object", input, `{...}`, `{a?: int, ...}`,
			map[string][]row{"breaking: narrowed type": {{"a", "any value", "integer"}}}},
		{"changed regular expression", input, `=~"^ab"`, `=~"^a"`,
			map[string][]row{"needs review: changed regular expression": {{"", "string matching ^ab", "string matching ^a"}}}},
		{"pattern added", input, `string`, `string & =~"^a"`,
			map[string][]row{"breaking: narrowed type": {{"", "string", "string matching ^a"}}}},
		{"pattern removed", input, `string & =~"^a"`, `string`,
			map[string][]row{"additive: widened type": {{"", "string matching ^a", "string"}}}},
		{"changed custom validator", input, `string & strings.HasPrefix("a")`, `string & strings.HasPrefix("b")`,
			map[string][]row{"needs review: changed custom validator": {{"", `string (custom check strings.HasPrefix("a"))`, `string (custom check strings.HasPrefix("b"))`}}}},
		{"identical custom validator", input, `string & strings.HasPrefix("a")`, `string & strings.HasPrefix("a")`, nil},
		{"changed rule", input, `{a?: int, if a != _|_ {b!: int}}`, `{a?: int, if a != _|_ {b!: string}}`,
			map[string][]row{"needs review: changed custom validator": {{"", "custom rule { if a != _|_ { b!: int } }", "custom rule { if a != _|_ { b!: string } }"}}}},

		// Lists.
		{"list element type", input, `[...int]`, `[...number]`,
			map[string][]row{"additive: widened type": {{"[]", "integer", "number"}}}},
		{"list element narrowed", input, `[...number]`, `[...int]`,
			map[string][]row{"breaking: narrowed type": {{"[]", "number", "integer"}}}},
		{"fewer items", input, `[...int] & list.MaxItems(16)`, `[...int] & list.MaxItems(8)`,
			map[string][]row{"breaking: tightened bound": {{"", "list of integer (at most 16 items)", "list of integer (at most 8 items)"}}}},
		{"more items", input, `[...int] & list.MaxItems(8)`, `[...int] & list.MaxItems(16)`,
			map[string][]row{"additive: widened bound": {{"", "list of integer (at most 8 items)", "list of integer (at most 16 items)"}}}},
		{"at least one item", input, `[...string]`, `[string, ...string]`,
			map[string][]row{"breaking: tightened bound": {{"", "list of string", "list of string (at least 1 item)"}}}},
		{"tuple element", input, `[number & >=0 & <=1, number]`, `[number & >=0 & <=2, number]`,
			map[string][]row{"additive: widened bound": {{"[0]", "number 0..1", "number 0..2"}}}},
		{"tuple grows", input, `[int, int]`, `[int, int, int]`,
			map[string][]row{
				"breaking: tightened bound": {{"", "list [integer, integer]", "list [integer, integer, integer]"}},
				"additive: widened bound":   {{"", "list [integer, integer]", "list [integer, integer, integer]"}},
			}},
		{"unique items", input, `[...int]`, `[...int] & list.UniqueItems()`,
			map[string][]row{"breaking: narrowed type": {{"", "list of integer", "list of unique integer"}}}},
		{"list of objects", input, `[...close({n!: int})]`, `[...close({n!: int, m?: bool})]`,
			map[string][]row{"additive: new optional param": {{"[].m", "absent", "optional boolean"}}}},

		// Nested structs and disjunctions.
		{"nested bound", input, `close({o?: close({p!: int & <=5})})`, `close({o?: close({p!: int & <=3})})`,
			map[string][]row{"breaking: tightened bound": {{"o.p", "integer <=5", "integer <=3"}}}},
		{"union arm removed", input,
			"#A: {kind!: \"a\", x?: int}\n#B: {kind!: \"b\", y?: int}\nv: #A | #B | null",
			"#A: {kind!: \"a\", x?: int}\nv: #A | null",
			map[string][]row{"breaking: narrowed type": {{"", "object with kind a|b or null", "object with kind a or null"}}}},
		{"union arm added", input,
			"#A: {kind!: \"a\", x?: int}\nv: #A",
			"#A: {kind!: \"a\", x?: int}\n#B: {kind!: \"b\", y?: int}\nv: #A | #B",
			map[string][]row{"additive: widened type": {{"", "object with kind a", "object with kind a|b"}}}},
		{"union arm changed", input,
			"#A: {kind!: \"a\", x?: int & <=5}\n#B: {kind!: \"b\", y?: int}\nv: #A | #B",
			"#A: {kind!: \"a\", x?: int & <=4}\n#B: {kind!: \"b\", y?: int}\nv: #A | #B",
			map[string][]row{"breaking: tightened bound": {{"[kind=a].x", "integer <=5", "integer <=4"}}}},
		{"pattern fields", input, `close({[=~"^a"]: int})`, `close({[=~"^[a-z]"]: int & >=0})`,
			map[string][]row{
				"needs review: changed regular expression": {{".*", "keys matching ^a", "keys matching ^[a-z]"}},
				"breaking: tightened bound":                {{".*", "integer", "integer >=0"}},
			}},
		{"named field moved into a pattern", input, `close({a!: int})`, `close({[string]: int})`,
			map[string][]row{
				"additive: required → optional": {{"a", "required", "optional"}},
				"additive: new optional param":  {{".*", "absent", "any keys: integer"}},
			}},

		// Misses of issue 9, each failing before its fix.
		// A list bounded both ways was read as an object keyed 0, 1, ... (CUE
		// judges the open list's validators on []), so nothing was reported.
		{"list bounded both ways, cut", input, `[...int] & list.MinItems(1) & list.MaxItems(32)`, `[...int] & list.MinItems(1) & list.MaxItems(16)`,
			map[string][]row{"breaking: tightened bound": {{"", "list of integer (1..32 items)", "list of integer (1..16 items)"}}}},
		{"list bounded both ways, raised", input, `[...int] & list.MinItems(1) & list.MaxItems(32)`, `[...int] & list.MinItems(1) & list.MaxItems(64)`,
			map[string][]row{"additive: widened bound": {{"", "list of integer (1..32 items)", "list of integer (1..64 items)"}}}},
		{"list bounded both ways, minimum raised", input, `[...int] & list.MinItems(1) & list.MaxItems(32)`, `[...int] & list.MinItems(2) & list.MaxItems(32)`,
			map[string][]row{"breaking: tightened bound": {{"", "list of integer (1..32 items)", "list of integer (2..32 items)"}}}},
		// ... and with | null it evaluated to null alone: adding null read as a
		// change of type both ways (breaking).
		{"null added to a bounded list", input, `close({a!: [...int] & list.MinItems(1) & list.MaxItems(32)})`, `close({a!: [...int] & list.MinItems(1) & list.MaxItems(32) | null})`,
			map[string][]row{"additive: widened type": {{"a", "list of integer (1..32 items)", "list of integer (1..32 items) or null"}}}},
		{"null dropped from a bounded list", input, `close({a!: [...int] & list.MinItems(1) & list.MaxItems(32) | null})`, `close({a!: [...int] & list.MinItems(1) & list.MaxItems(32)})`,
			map[string][]row{"breaking: narrowed type": {{"a", "list of integer (1..32 items) or null", "list of integer (1..32 items)"}}}},
		// A constraint written through a let was lost: Expr only repeats the
		// reference.
		{"let-bound constraint tightened", input, "let L = int & >=1 & <=10\nv: L", "let L = int & >=1 & <=5\nv: L",
			map[string][]row{"breaking: tightened bound": {{"", "integer 1..10", "integer 1..5"}}}},
		{"let-bound constraint widened", input, "let L = int & >=1 & <=5\nv: L", "let L = int & >=1 & <=10\nv: L",
			map[string][]row{"additive: widened bound": {{"", "integer 1..5", "integer 1..10"}}}},
		{"let-bound bound beside a default", input, "let L = int & >=1 & <=10\nv: *5 | L", "let L = int & >=1 & <=5\nv: *5 | L",
			map[string][]row{"breaking: tightened bound": {{"", "integer 1..10", "integer 1..5"}}}},
		{"let-bound bound in a conjunction", input, "let b = <=10\nv: int & b", "let b = <=5\nv: int & b",
			map[string][]row{"breaking: tightened bound": {{"", "integer <=10", "integer <=5"}}}},
		{"let-bound maximum of items", input, "let M = 10\nv: close({a?: [...int] & list.MaxItems(M) | null})", "let M = 5\nv: close({a?: [...int] & list.MaxItems(M) | null})",
			map[string][]row{"breaking: tightened bound": {{"a", "list of integer (at most 10 items) or null", "list of integer (at most 5 items) or null"}}}},
		// A list.* call in one field made CUE print the struct as a file, and its
		// untouched rule read as removed.
		{"list call beside a rule", input, `{a!: [...string], b?: int, if b != _|_ {c!: int}}`, `{a!: [...string] & list.MaxItems(4), b?: int, if b != _|_ {c!: int}}`,
			map[string][]row{"breaking: tightened bound": {{"a", "list of string", "list of string (at most 4 items)"}}}},
		// A struct that cannot be evaluated without data accepts any probe key, so
		// a closed #Entry read as open and opening it went unreported.
		{"opened struct that needs data", input, entryLike(""), entryLike("..."),
			map[string][]row{"additive: opened object": {{".*", "closed object (no other fields)", "open object (other fields allowed)"}}}},
		{"closed struct that needs data", input, entryLike("..."), entryLike(""),
			map[string][]row{"breaking: closed object": {{".*", "open object (other fields allowed)", "closed object (no other fields)"}}}},
		{"nested data struct opened", output, "#D: {o!: {a!: int}}\nv: #D", "#D: {o!: {a!: int, ...}}\nv: #D",
			map[string][]row{"additive: opened object": {{"o", "closed object (no other fields)", "open object (other fields allowed)"}}}},
		{"nested data struct closed", output, "#D: {o!: {a!: int, ...}}\nv: #D", "#D: {o!: {a!: int}}\nv: #D",
			map[string][]row{"additive: closed object": {{"o", "open object (other fields allowed)", "closed object (no other fields)"}}}},
		{"nested struct of a list item opened", output, "#I: {a!: int}\nv: close({o!: [...#I]})", "#I: {a!: int, ...}\nv: close({o!: [...#I]})",
			map[string][]row{"additive: opened object": {{"o[]", "closed object (no other fields)", "open object (other fields allowed)"}}}},

		// Data (outputs): the same changes, read covariantly.
		{"data added field", output, `close({a!: int})`, `close({a!: int, b!: string})`,
			map[string][]row{"additive: added field": {{"b", "absent", "required string"}}}},
		{"data removed field", output, `close({a!: int, b?: string})`, `close({a!: int})`,
			map[string][]row{"breaking: removed field": {{"b", "optional string", "absent"}}}},
		{"data required to optional", output, `close({a!: int})`, `close({a?: int})`,
			map[string][]row{"breaking: required → optional": {{"a", "required", "optional"}}}},
		{"data optional to required", output, `close({a?: int})`, `close({a!: int})`,
			map[string][]row{"additive: optional → required": {{"a", "optional", "required"}}}},
		{"data widened type", output, `int`, `int | null`,
			map[string][]row{"breaking: widened type": {{"", "integer", "integer or null"}}}},
		{"data narrowed type", output, `int | null`, `int`,
			map[string][]row{"additive: narrowed type": {{"", "integer or null", "integer"}}}},
		{"data widened bound", output, `int & >=0 & <=5`, `int & >=0`,
			map[string][]row{"breaking: widened bound": {{"", "integer 0..5", "integer >=0"}}}},
		{"data narrowed bound", output, `int & >=0`, `int & >=0 & <=5`,
			map[string][]row{"additive: narrowed bound": {{"", "integer >=0", "integer 0..5"}}}},
		{"data added enum value", output, `"a" | "b"`, `"a" | "b" | "c"`,
			map[string][]row{"breaking: added enum value": {{"", "enum a|b", "enum a|b|c"}}}},
		{"data removed enum value", output, `"a" | "b" | "c"`, `"a" | "b"`,
			map[string][]row{"additive: removed enum value": {{"", "enum a|b|c", "enum a|b"}}}},
		{"data opened", output, `close({a!: int})`, `{a!: int, ...}`,
			map[string][]row{"additive: opened object": {{"", "closed object (no other fields)", "open object (other fields allowed)"}}}},
		{"data list element widened", output, `[...int]`, `[...number]`,
			map[string][]row{"breaking: widened type": {{"[]", "integer", "number"}}}},
		{"data unchanged", output, `close({a!: int, b?: [...string]})`, `close({b?: [...string], a!: int})`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &comparer{pol: tt.pol, noun: "param"}
			c.shapes("", shapeFrom(t, tt.old), shapeFrom(t, tt.new), false)
			want := tt.want
			if want == nil {
				want = map[string][]row{}
			}
			if diff := cmp.Diff(want, rows(c.findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// entryLike is a struct like #Entry: a definition with a rule over its own list, so
// it does not evaluate without data; extra is "..." to open it.
func entryLike(extra string) string {
	return "#E: {ops!: [...{bind?: string}], params: {[string]: int}, for u in ops if u.bind != _|_ {params: (u.bind): >=0}, " + extra + "}\nv: {[string]: #E}"
}

// TestRuleTable is the table of docs/contract-review.md, row by row, each change in
// both directions and read both ways: as params (input) and as data (output). Only
// the verdicts and rules are compared here; TestCompareShapes checks paths and
// descriptions.
func TestRuleTable(t *testing.T) {
	const (
		newReq   = "breaking: new required param"
		newOpt   = "additive: new optional param"
		addedF   = "additive: added field"
		remP     = "breaking: removed param"
		remF     = "breaking: removed field"
		toReqIn  = "breaking: optional → required"
		toReqOut = "additive: optional → required"
		toOptIn  = "additive: required → optional"
		toOptOut = "breaking: required → optional"
		narIn    = "breaking: narrowed type"
		narOut   = "additive: narrowed type"
		widIn    = "additive: widened type"
		widOut   = "breaking: widened type"
		tightIn  = "breaking: tightened bound"
		tightOut = "additive: narrowed bound"
		wideBIn  = "additive: widened bound"
		wideBOut = "breaking: widened bound"
		remEIn   = "breaking: removed enum value"
		remEOut  = "additive: removed enum value"
		addEIn   = "additive: added enum value"
		addEOut  = "breaking: added enum value"
		chDef    = "breaking: changed default"
		remDef   = "breaking: removed default"
		addDef   = "additive: added default"
		closIn   = "breaking: closed object"
		closOut  = "additive: closed object"
		opened   = "additive: opened object"
		regex    = "needs review: changed regular expression"
		custom   = "needs review: changed custom validator"
	)
	tests := []struct {
		class    string
		old, new string
		in, out  []string
	}{
		{"field added, required", `close({})`, `close({a!: int})`, []string{newReq}, []string{addedF}},
		{"field added, optional", `close({})`, `close({a?: int})`, []string{newOpt}, []string{addedF}},
		{"field removed, required", `close({a!: int})`, `close({})`, []string{remP}, []string{remF}},
		{"field removed, optional", `close({a?: int})`, `close({})`, []string{remP}, []string{remF}},
		{"optional → required", `close({a?: int})`, `close({a!: int})`, []string{toReqIn}, []string{toReqOut}},
		{"required → optional", `close({a!: int})`, `close({a?: int})`, []string{toOptIn}, []string{toOptOut}},
		{"a kind dropped", `int | string`, `int`, []string{narIn}, []string{narOut}},
		{"a kind added", `int`, `int | string`, []string{widIn}, []string{widOut}},
		{"null dropped", `string | null`, `string`, []string{narIn}, []string{narOut}},
		{"null added", `string`, `string | null`, []string{widIn}, []string{widOut}},
		{"number → integer", `number`, `int`, []string{narIn}, []string{narOut}},
		{"integer → number", `int`, `number`, []string{widIn}, []string{widOut}},
		{"a pattern added", `string`, `=~"^a"`, []string{narIn}, []string{narOut}},
		{"a pattern dropped", `=~"^a"`, `string`, []string{widIn}, []string{widOut}},
		{"list items made unique", `[...int]`, `[...int] & list.UniqueItems()`, []string{narIn}, []string{narOut}},
		{"list items no longer unique", `[...int] & list.UniqueItems()`, `[...int]`, []string{widIn}, []string{widOut}},
		{"maximum lowered", `int & <=10`, `int & <=5`, []string{tightIn}, []string{tightOut}},
		{"maximum raised", `int & <=5`, `int & <=10`, []string{wideBIn}, []string{wideBOut}},
		{">=0 → >0", `number & >=0`, `number & >0`, []string{tightIn}, []string{tightOut}},
		{">0 → >=0", `number & >0`, `number & >=0`, []string{wideBIn}, []string{wideBOut}},
		{"bound added", `number`, `number & <=1`, []string{tightIn}, []string{tightOut}},
		{"bound dropped", `number & <=1`, `number`, []string{wideBIn}, []string{wideBOut}},
		{"length tightened", `strings.MaxRunes(10)`, `strings.MaxRunes(5)`, []string{tightIn}, []string{tightOut}},
		{"length widened", `strings.MaxRunes(5)`, `strings.MaxRunes(10)`, []string{wideBIn}, []string{wideBOut}},
		{"non-empty required", `string`, `string & !=""`, []string{tightIn}, []string{tightOut}},
		{"empty allowed", `string & !=""`, `string`, []string{wideBIn}, []string{wideBOut}},
		{"fewer items", `[...int] & list.MaxItems(8)`, `[...int] & list.MaxItems(4)`, []string{tightIn}, []string{tightOut}},
		{"more items", `[...int] & list.MaxItems(4)`, `[...int] & list.MaxItems(8)`, []string{wideBIn}, []string{wideBOut}},
		{"more items needed", `[...int] & list.MinItems(1) & list.MaxItems(8)`, `[...int] & list.MinItems(2) & list.MaxItems(8)`, []string{tightIn}, []string{tightOut}},
		{"fewer items needed", `[...int] & list.MinItems(2) & list.MaxItems(8)`, `[...int] & list.MinItems(1) & list.MaxItems(8)`, []string{wideBIn}, []string{wideBOut}},
		{"enum value removed", `"a" | "b"`, `"a"`, []string{remEIn}, []string{remEOut}},
		{"enum value added", `"a"`, `"a" | "b"`, []string{addEIn}, []string{addEOut}},
		{"default changed", `close({a?: *1 | int})`, `close({a?: *2 | int})`, []string{chDef}, []string{chDef}},
		{"default changed back", `close({a?: *2 | int})`, `close({a?: *1 | int})`, []string{chDef}, []string{chDef}},
		{"default removed", `close({a?: *1 | int})`, `close({a?: int})`, []string{remDef}, []string{remDef}},
		{"default added", `close({a?: int})`, `close({a?: *1 | int})`, []string{addDef}, []string{addDef}},
		{"open → closed", `{a?: int, ...}`, `close({a?: int})`, []string{closIn}, []string{closOut}},
		{"closed → open", `close({a?: int})`, `{a?: int, ...}`, []string{opened}, []string{opened}},
		{"regular expression changed", `=~"^ab"`, `=~"^a"`, []string{regex}, []string{regex}},
		{"regular expression changed back", `=~"^a"`, `=~"^ab"`, []string{regex}, []string{regex}},
		{"custom validator changed", `strings.HasPrefix("a")`, `strings.HasPrefix("b")`, []string{custom}, []string{custom}},
		{"custom validator added", `string`, `string & strings.HasSuffix("b")`, []string{custom}, []string{custom}},
		{"custom validator removed", `string & strings.HasSuffix("b")`, `string`, []string{custom}, []string{custom}},
		{"rule changed", `{a?: int, if a != _|_ {b!: int}}`, `{a?: int, if a != _|_ {b!: string}}`, []string{custom}, []string{custom}},
		{"rule added", `{a?: int, b?: int}`, `{a?: int, b?: int, if a != _|_ {b!: int}}`, []string{custom}, []string{custom}},
		{"rule removed", `{a?: int, b?: int, if a != _|_ {b!: int}}`, `{a?: int, b?: int}`, []string{custom}, []string{custom}},
		// The other classes the doc lists under "needs review".
		{"a pattern replaced beside another", `=~"^a" & =~"b$"`, `=~"^a" & =~"c$"`, []string{regex}, []string{regex}},
		{"key set of a pattern field changed", `close({[or(["a", "b"])]: int})`, `close({[or(["a", "c"])]: int})`, []string{custom}, []string{custom}},
		{"two constrained alternatives of a kind", `int & <5 | int & >10`, `int & <4 | int & >10`, []string{custom}, []string{custom}},
		{"a union of list shapes", `[...int] | [...string]`, `[...int] | [...bool]`, []string{custom}, []string{custom}},
		{"unchanged custom parts", `close({a?: string, [or(["a", "b"])]: strings.HasPrefix("x"), if a != _|_ {b: "x1"}})`, `close({a?: string, [or(["a", "b"])]: strings.HasPrefix("x"), if a != _|_ {b: "x1"}})`, nil, nil},
	}
	for _, tt := range tests {
		for _, p := range []struct {
			name string
			pol  polarity
			want []string
		}{{"params", input, tt.in}, {"data", output, tt.out}} {
			t.Run(tt.class+"/"+p.name, func(t *testing.T) {
				c := &comparer{pol: p.pol, noun: "param"}
				c.shapes("", shapeFrom(t, tt.old), shapeFrom(t, tt.new), false)
				var got []string
				for _, f := range c.findings {
					got = append(got, string(f.Verdict)+": "+f.Rule)
				}
				if diff := cmp.Diff(p.want, got); diff != "" {
					t.Errorf("%s → %s (-want +got):\n%s", tt.old, tt.new, diff)
				}
			})
		}
	}
}
