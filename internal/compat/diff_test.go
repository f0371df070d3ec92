package compat

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"darkroom/internal/contract"
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
	c, err := contract.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	return c
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
