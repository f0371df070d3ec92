package vocab

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
	"github.com/google/go-cmp/cmp"

	"darkroom/internal/contract"
)

// dumpSyntax writes a syntax tree as the check and its messages read it: node
// types, literals as spelled, and the position of every label, value, brace and
// bracket, but for the closing ones of block collections (which have none in the
// source). Comments and relative positions are left out (readYAMLSubset does not
// make them; nothing but formatting reads them).
func dumpSyntax(b *strings.Builder, n ast.Node, src []byte, indent string) {
	p := func(pos token.Pos) string {
		if !pos.IsValid() {
			return "nopos"
		}
		pp := pos.Position()
		return fmt.Sprintf("%s:%d:%d@%d", pp.Filename, pp.Line, pp.Column, pp.Offset)
	}
	opens := func(pos token.Pos, c byte) bool {
		return pos.IsValid() && pos.Offset() < len(src) && src[pos.Offset()] == c
	}
	switch x := n.(type) {
	case *ast.File:
		fmt.Fprintf(b, "%sfile %s\n", indent, x.Filename)
		for _, d := range x.Decls {
			dumpSyntax(b, d, src, indent+"  ")
		}
	case *ast.Field:
		fmt.Fprintf(b, "%sfield constraint=%v\n", indent, x.Constraint)
		dumpSyntax(b, x.Label, src, indent+"  label ")
		dumpSyntax(b, x.Value, src, indent+"  ")
	case *ast.Ident:
		fmt.Fprintf(b, "%sident %s %s\n", indent, x.Name, p(x.NamePos))
	case *ast.BasicLit:
		fmt.Fprintf(b, "%slit %v %s %s\n", indent, x.Kind, x.Value, p(x.ValuePos))
	case *ast.UnaryExpr:
		fmt.Fprintf(b, "%sunary %v %s\n", indent, x.Op, p(x.OpPos))
		dumpSyntax(b, x.X, src, indent+"  ")
	case *ast.StructLit:
		end := ""
		if opens(x.Lbrace, '{') {
			end = p(x.Rbrace)
		}
		fmt.Fprintf(b, "%sstruct %s %s\n", indent, p(x.Lbrace), end)
		for _, d := range x.Elts {
			dumpSyntax(b, d, src, indent+"  ")
		}
	case *ast.ListLit:
		end := ""
		if opens(x.Lbrack, '[') {
			end = p(x.Rbrack)
		}
		fmt.Fprintf(b, "%slist %s %s\n", indent, p(x.Lbrack), end)
		for _, e := range x.Elts {
			dumpSyntax(b, e, src, indent+"  ")
		}
	default:
		fmt.Fprintf(b, "%s%T\n", indent, n)
	}
}

func syntaxText(f *ast.File, src []byte) string {
	var b strings.Builder
	dumpSyntax(&b, f, src, "")
	return b.String()
}

// subsetAgrees reads data with readYAMLSubset and, when it accepts it, with
// yaml.Extract, and reports a difference. It returns whether the subset reader
// accepted the data.
func subsetAgrees(t *testing.T, name string, data []byte) bool {
	t.Helper()
	fname := path.Join(contract.Root, name)
	f, ok := readYAMLSubset(data, fname)
	if !ok {
		return false
	}
	want, err := extractYAML(Source{Name: name, Data: data}, fname)
	if err != nil {
		t.Errorf("%s: the subset reader accepted what yaml.Extract refuses (%v):\n%s", name, err, data)
		return true
	}
	if diff := cmp.Diff(syntaxText(want, data), syntaxText(f, data)); diff != "" {
		t.Errorf("%s: the subset reader's tree differs from yaml.Extract's (-Extract +subset):\n%s\ninput:\n%s", name, diff, data)
	}
	return true
}

// The packs darkroom ships, and the large generated one, are in the subset: the
// fast reading is the one they get, and it is yaml.Extract's.
func TestYAMLSubsetReadsPacks(t *testing.T) {
	srcs, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srcs = append(srcs, Source{Name: "./big.yaml", Data: bigPack(64 << 10)})
	for _, src := range srcs {
		if path.Ext(src.Name) != ".yaml" {
			continue
		}
		if !subsetAgrees(t, src.Name, src.Data) {
			t.Errorf("%s: outside the subset, read by yaml.Extract", src.Name)
		}
	}
}

// subsetCases are small documents at the subset's edges: in says whether the
// subset reader reads them (otherwise yaml.Extract does).
var subsetCases = []struct {
	name string
	in   bool
	data string
}{
	{"scalars", true, "a: text with spaces, commas and it's apostrophe\nb: 3\nc: -4\nd: 0.25\ne: -0.5\nf: 1e3\ng: true\nh: False\ni: yes\nj: \"quoted \\\" \\\\ \\n\"\nk: 'single ''quoted'''\nl: 0\nm: -0\n"},
	{"comments and blank lines", true, "# head\n\na: 1 # trailing\n\n  # indented comment\nb:\n  # before\n  c: x\n\n"},
	{"no final newline", true, "a: 1\nb: [x, y]"},
	{"nested", true, "entries:\n  one:\n    tags: [a, b]\n    parameters:\n      amount: {type: number, min: 0, max: 1, description: \"How much.\"}\n    operations:\n      - op: contrast\n        bind: {amount: amount}\n      - op: exposure\n        set: {ev: 0.1}\n"},
	{"indentless sequence", true, "a:\n- x\n- y: 1\n  z: 2\nb: 1\n"},
	{"flow nesting", true, "a: [{b: 1, c: [x, 'y']}, [], {}]\nb: {}\n"},
	{"folded", true, "a: >-\n  one\n  two\n\n  three\n\n\n  four\nb: >\n  clip\n\nc: 1\n"},
	{"literal", true, "a: |\n  one\n    more\n  two\n\nb: |-\n  x\n"},
	{"block scalar at the end", true, "a: >-\n  last"},
	{"block scalar in a sequence", true, "a:\n  - >-\n    folded item\n  - b: |\n      lit\n"},
	{"keys with dashes", true, "white-balance_2: 1\n"},
	{"unicode", true, "a: café – “quoted” 🙂\n"},

	{"null value", false, "a:\nb: 1\n"},
	{"null word", false, "a: null\n"},
	{"tilde", false, "a: ~\n"},
	{"anchor", false, "a: &x 1\nb: *x\n"},
	{"tag", false, "a: !!str 1\n"},
	{"duplicate key", false, "a: 1\na: 2\n"},
	{"duplicate flow key", false, "a: {b: 1, b: 2}\n"},
	{"multi-line plain", false, "a: one\n  two\n"},
	{"multi-line quoted", false, "a: \"one\n  two\"\n"},
	{"multi-line flow", false, "a: [x,\n  y]\n"},
	{"octal-looking", false, "a: 012\n"},
	{"hex", false, "a: 0x1F\n"},
	{"float overflow", false, "a: 1e400\n"},
	{"plus sign", false, "a: +1\n"},
	{"timestamp", false, "a: 2001-12-14\n"},
	{"inf", false, "a: .inf\n"},
	{"documents", false, "a: 1\n---\nb: 2\n"},
	{"tab", false, "a:\t1\n"},
	{"carriage return", false, "a: 1\r\n"},
	{"colon in value", false, "a: b: c\n"},
	{"hash in value", false, "a: C#\n"},
	{"keep chomping", false, "a: |+\n  x\n\n"},
	{"indentation indicator", false, "a: |2\n   x\n"},
	{"more-indented folded line", false, "a: >\n  x\n    y\n"},
	{"trailing comma", false, "a: [x, y,]\n"},
	{"quoted key", false, "\"a\": 1\n"},
	{"numeric key", false, "1: a\n"},
	{"top-level list", false, "- a\n"},
	{"empty", false, ""},
	{"rare escape", false, "a: \"\\x41\"\n"},
	{"merge key", false, "<<: {a: 1}\n"},
	{"bad indentation", false, "a:\n  b: 1\n   c: 2\n"},
	{"many keys", true, manyKeys(40, "")},
	{"a duplicate among many keys", false, manyKeys(40, "k3: again\n")},
	{"a duplicate among many flow keys", false, "a: {" + strings.TrimSuffix(strings.ReplaceAll(manyKeys(20, "k7: x\n"), "\n", ", "), ", ") + "}\n"},
}

// manyKeys is a mapping of n keys, then extra.
func manyKeys(n int, extra string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d: %d\n", i, i)
	}
	return b.String() + extra
}

// Each case is read by the subset reader or not, as it says, and when it is, the
// reading is yaml.Extract's.
func TestYAMLSubsetCases(t *testing.T) {
	for _, tc := range subsetCases {
		if got := subsetAgrees(t, tc.name, []byte(tc.data)); got != tc.in {
			t.Errorf("%s: read by the subset reader %v, want %v", tc.name, got, tc.in)
		}
	}
}

// FuzzYAMLSubset holds the subset reader to yaml.Extract: whatever it accepts, it
// reads as yaml.Extract does.
func FuzzYAMLSubset(f *testing.F) {
	for _, tc := range subsetCases {
		f.Add([]byte(tc.data))
	}
	srcs, err := Builtin()
	if err != nil {
		f.Fatal(err)
	}
	for _, src := range srcs {
		if path.Ext(src.Name) == ".yaml" {
			f.Add(src.Data)
		}
	}
	f.Add(bigPack(4 << 10))
	f.Fuzz(func(t *testing.T, data []byte) {
		subsetAgrees(t, "./fuzz.yaml", data)
	})
}
