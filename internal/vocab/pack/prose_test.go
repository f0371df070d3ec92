package pack

import (
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"
)

// The prose matchers compiled from the contract give CUE's verdict, and CUE's
// value, on a corpus of values as the YAML and JSON readers write them: strings
// of every spelling, the empty string, other kinds, bytes, lists short and long.
func TestProseMatcherAgreesWithCUE(t *testing.T) {
	c := loadContract(t)
	p := planFor(c)
	ctx := c.Value.Context()
	yamlCorpus := []string{
		`a`, `""`, `''`, `" "`, `1`, `-1`, `1.5`, `1e3`, `null`, `~`, `true`, `yes`, `no`, `0x10`, `.inf`,
		`2001-12-14`, `"<b>&amp;</b>"`, `'single ''quoted'''`, `"esc \" \\ \t \u00e9 \U0001F600"`,
		`"\0"`, `café ✓`, "|\n  two\n  lines\n", ">-\n  folded\n  text\n", "|+\n  kept\n\n",
		`!!binary aGVsbG8=`, `!!str 12`, `{a: b}`, `[]`, `[a]`, `[""]`, `[a, ""]`, `["", a]`, `[a, 1]`,
		`[a, b, c, "d e"]`, `[[a]]`, `[a, [b]]`, `[a, null]`, `[a, {b: c}]`, `[!!binary aGVsbG8=]`,
	}
	jsonCorpus := []string{
		`"a"`, `""`, `"\u003c&\u003e"`, `"\ud83d\ude00"`, `"line\nbreak"`, `1`, `null`, `false`,
		`[]`, `["a"]`, `["a",""]`, `["a",2]`, `[["a"]]`, `{"a":"b"}`,
	}
	var exprs []ast.Expr
	var names []string
	for _, v := range yamlCorpus {
		f, err := yaml.Extract("corpus.yaml", []byte("v: "+v+"\n"))
		if err != nil {
			t.Fatalf("yaml %q: %v", v, err)
		}
		exprs = append(exprs, f.Decls[0].(*ast.Field).Value)
		names = append(names, "yaml "+v)
	}
	for _, v := range jsonCorpus {
		e, err := cuejson.Extract("corpus.json", []byte(`{"v": `+v+`}`))
		if err != nil {
			t.Fatalf("json %q: %v", v, err)
		}
		exprs = append(exprs, e.(*ast.StructLit).Elts[0].(*ast.Field).Value)
		names = append(names, "json "+v)
	}
	kinds := append(append([]string{}, freeFields...), "param")
	for _, kind := range kinds {
		m := p.prose[kind]
		if m == nil {
			t.Errorf("%s: the contract's schema did not compile to a matcher: its prose goes to CUE", kind)
			continue
		}
		schema := p.param
		if kind != "param" {
			schema = p.free[kind]
		}
		passes := 0
		for i, e := range exprs {
			v := ctx.BuildExpr(e).Unify(schema)
			cueOK := v.Validate(cue.Concrete(true)) == nil
			var want []byte
			if cueOK {
				b, err := v.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				want = b
				passes++
			}
			got, ok := m(e)
			if ok != cueOK {
				t.Errorf("%s, %s: matcher says %v, CUE says %v", kind, names[i], ok, cueOK)
				continue
			}
			if !ok {
				continue
			}
			b, err := proseJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != string(want) {
				t.Errorf("%s, %s: matcher's value %s, CUE's %s", kind, names[i], b, want)
			}
		}
		if passes == 0 || passes == len(exprs) {
			t.Errorf("%s: CUE passes %d of %d corpus values: the corpus does not tell verdicts apart", kind, passes, len(exprs))
		}
	}
}

// A schema written with anything the compiler does not know has no matcher, so
// its values go to CUE.
func TestCompileProseRefusesTheUnknown(t *testing.T) {
	for _, src := range []string{
		`string & !=""`, `[string, ...string]`, `[string]`, `(string)`,
	} {
		if compileProse(mustExpr(t, src)) == nil {
			t.Errorf("%s: no matcher, want one", src)
		}
	}
	for _, src := range []string{
		`=~"^a"`, `string | int`, `strings.MinRunes(3)`, `!="" & <="z"`, `[...]`, `#Text`, `string & =~"x"`, `"fixed"`,
	} {
		if compileProse(mustExpr(t, src)) != nil {
			t.Errorf("%s: a matcher, want none", src)
		}
	}
}

func mustExpr(t *testing.T, src string) ast.Expr {
	t.Helper()
	e, err := parser.ParseExpr("schema", src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return e
}
