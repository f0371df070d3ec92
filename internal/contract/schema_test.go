package contract

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"
)

// portableKeywords are the keywords the generator may emit: each means the same in
// draft-07 and 2020-12 (schema.go says why each is allowed). A keyword outside this
// list fails the test until someone has checked it in both drafts and in the
// validators of TestAgreement.
var portableKeywords = []string{
	"additionalProperties", "allOf", "anyOf", "const", "default", "description", "enum",
	"exclusiveMaximum", "exclusiveMinimum", "items", "maxItems", "maxLength", "maximum",
	"minItems", "minLength", "minimum", "not", "pattern", "patternProperties",
	"properties", "required", "type", "uniqueItems",
}

// walkSchema calls f on every subschema of s with its JSON pointer.
func walkSchema(s any, ptr string, f func(ptr string, s map[string]any)) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	f(ptr, m)
	for _, k := range []string{"properties", "patternProperties"} {
		for name, sub := range mapOf(m[k]) {
			walkSchema(sub, ptr+"/"+k+"/"+name, f)
		}
	}
	for _, k := range []string{"items", "not", "additionalProperties"} {
		walkSchema(m[k], ptr+"/"+k, f)
	}
	for _, k := range []string{"anyOf", "allOf"} {
		for i, sub := range anySlice(m[k]) {
			walkSchema(sub, ptr+"/"+k+"/"+string(rune('0'+i)), f)
		}
	}
}

// TestSchemaPortable checks every advertised schema for what one dialect or one
// host reads differently: a keyword outside the portable list, a $schema key, a list
// of types (Ajv strict refuses it, Inspector --strict warns), a boolean schema where
// an object is expected, an untyped schema that constrains nothing, a tuple.
func TestSchemaPortable(t *testing.T) {
	c := loadTestContract(t)
	used := map[string]int{}
	for _, tool := range c.Tools {
		for kind, raw := range map[string]json.RawMessage{"input": tool.InputSchemaJSON, "output": tool.OutputSchemaJSON} {
			var s any
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("%s %s: %v", tool.Name, kind, err)
			}
			walkSchema(s, "", func(ptr string, m map[string]any) {
				where := tool.Name + " " + kind + "Schema" + ptr
				if len(m) == 0 {
					t.Errorf("%s: an untyped {} accepts anything", where)
				}
				for k, v := range m {
					used[k]++
					if !slices.Contains(portableKeywords, k) {
						t.Errorf("%s: keyword %s is not in the portable subset", where, k)
					}
					if _, isBool := v.(bool); isBool && (k == "items" || k == "not") {
						t.Errorf("%s: %s is a boolean schema", where, k)
					}
				}
				if _, ok := m["type"].([]any); ok {
					t.Errorf("%s: type is a list", where)
				}
				if p, ok := m["patternProperties"].(map[string]any); ok {
					if _, empty := p[""]; empty {
						t.Errorf("%s: empty-string patternProperties", where)
					}
				}
			})
		}
	}
	var kws []string
	for k := range used {
		kws = append(kws, k)
	}
	slices.Sort(kws)
	t.Logf("keywords emitted: %s", strings.Join(kws, ", "))
}

// TestSchemaPropertyOrder: properties go on the wire in the contract's field order,
// so image_id leads the image-scoped tools (RFC-010), not Go's alphabetical map
// order that put it after border or format.
func TestSchemaPropertyOrder(t *testing.T) {
	c := loadTestContract(t)
	n := 0
	for _, tool := range c.Tools {
		var s struct {
			Properties json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchemaJSON, &s); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
		var keys []string
		if len(s.Properties) > 0 {
			dec.Token() // {
			for dec.More() {
				k, _ := dec.Token()
				keys = append(keys, k.(string))
				var skip json.RawMessage
				dec.Decode(&skip)
			}
		}
		// The contract's order, read from CUE.
		var want []string
		it, err := tool.params.Fields(cue.Optional(true))
		if err != nil {
			t.Fatal(err)
		}
		for it.Next() {
			want = append(want, it.Selector().Unquoted())
		}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("%s: property order (-contract +wire):\n%s", tool.Name, diff)
		}
		if slices.Contains(keys, "image_id") && tool.Name != "ingest" {
			n++
			if keys[0] != "image_id" {
				t.Errorf("%s: image_id is not the first property: %v", tool.Name, keys)
			}
		}
	}
	if n == 0 {
		t.Fatal("no image-scoped tool found")
	}
}

// TestSchemaFixtures pins the generator's translation of the constructs the
// contracts use, including a constraint reached through a let, which an earlier
// generator dropped (int & lim gave a bare integer).
func TestSchemaFixtures(t *testing.T) {
	tests := []struct {
		name, cue string
		want      string
	}{
		{"let bound", `let lim = <=16
x: int & lim`, `{"maximum":16,"type":"integer"}`},
		{"let pattern", `let re = =~"^[a-z]+$"
x: string & re`, `{"not":{"pattern":"\\n"},"pattern":"^[a-z]+$","type":"string"}`},
		{"let struct", `let s = {a!: int & >2}
x: s`, `{"properties":{"a":{"exclusiveMinimum":2,"type":"integer"}},"required":["a"],"type":"object"}`},
		{"point", `x: [number & >=0 & <=1, number & >=0 & <=1]`,
			`{"items":{"maximum":1,"minimum":0,"type":"number"},"maxItems":2,"minItems":2,"type":"array"}`},
		{"open list with a prefix", `x: [int, int, ...int]`, `{"items":{"type":"integer"},"minItems":2,"type":"array"}`},
		{"open map of anything", `x: {[string]: _}`, `{"type":"object"}`},
		{"closed map keyed by a pattern", `#M: {[=~"^[a-z]+$"]: number}
x: #M`, `{"additionalProperties":false,"patternProperties":{"^[a-z]+$":{"type":"number"}},"type":"object"}`},
		{"nullable int", `x: int | null`, `{"anyOf":[{"type":"integer"},{"type":"null"}]}`},
		{"field order", `x: {zeta!: int, alpha!: int, mid?: int}`,
			`{"properties":{"zeta":{"type":"integer"},"alpha":{"type":"integer"},"mid":{"type":"integer"}},"required":["alpha","zeta"],"type":"object"}`},
		{"nested closed struct", `#D: {outer!: {inner!: int}}
x: #D`, `{"additionalProperties":false,"properties":{"outer":{"additionalProperties":false,"properties":{"inner":{"type":"integer"}},"required":["inner"],"type":"object"}},"required":["outer"],"type":"object"}`},
		{"pattern that may hold a newline", `x: =~"^a(.|\n)*$"`, `{"pattern":"^a(.|\n)*$","type":"string"}`},
	}
	ctx := cuecontext.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ctx.CompileString(tt.cue)
			if v.Err() != nil {
				t.Fatal(v.Err())
			}
			_, got, err := Schema(v.LookupPath(cue.ParsePath("x")))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaRefusesTuples: a list whose elements have different schemas has no
// spelling that draft-07 and 2020-12 read alike, so the generator refuses it rather
// than emit prefixItems, which a draft-07 reader ignores.
func TestSchemaRefusesTuples(t *testing.T) {
	ctx := cuecontext.New()
	for _, src := range []string{`x: [int, string]`, `x: [int, ...string]`} {
		v := ctx.CompileString(src)
		if _, _, err := Schema(v.LookupPath(cue.ParsePath("x"))); err == nil || !strings.Contains(err.Error(), "draft-07") {
			t.Errorf("%s: got %v, want an error about draft-07", src, err)
		}
	}
}
