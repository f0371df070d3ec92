package pack

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
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

// subsetAgrees reads data with the subset reader (its entries in at most pieces
// pieces) and, when it accepts it, with yaml.Extract, and reports a difference.
// It returns whether the subset reader accepted the data.
func subsetAgrees(t *testing.T, name string, data []byte, pieces int) bool {
	t.Helper()
	fname := path.Join(contract.Root, name)
	f, ok := readYAMLSubsetPieces(data, fname, pieces)
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
		if !subsetAgrees(t, src.Name, src.Data, 1) {
			t.Errorf("%s: outside the subset, read by yaml.Extract", src.Name)
		}
	}
	// A large pack's entries are read in pieces at once, to the same tree.
	small(t)
	big := Source{Name: "./big.yaml", Data: append(bigPack(minSplitBytes*2), "masks:\n  top_half:\n    description: The top half.\n    tags: [region]\n    spec: {shape: {kind: rectangle, x: 0, y: 0, width: 1, height: 0.5}}\n"...)}
	for _, pieces := range []int{2, 3, 8} {
		if !subsetAgrees(t, big.Name, big.Data, pieces) {
			t.Errorf("%s in %d pieces: outside the subset, read by yaml.Extract", big.Name, pieces)
		}
	}
	// A name in two pieces is a duplicate key.
	dup := bytes.Replace(big.Data, []byte("  big_entry_20:\n"), []byte("  big_entry_1:\n"), 1)
	if subsetAgrees(t, big.Name, dup, 2) {
		t.Errorf("a name used twice in pieces: read by the subset reader, want yaml.Extract")
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
	{"unicode", true, "a: café – “quoted” 🙂\nb: [x, café]\n"},
	{"a node after non-ASCII on its line", false, "a: [café, x]\n"},

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
		if got := subsetAgrees(t, tc.name, []byte(tc.data), 1); got != tc.in {
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
		subsetAgrees(t, "./fuzz.yaml", data, 1)
		subsetAgrees(t, "./fuzz.yaml", data, 3)
	})
}

// yamlDoc writes random YAML documents that stay mostly within the subset, with
// the scalars where YAML's reading is subtle: words YAML resolves otherwise,
// numbers at the edges of what the reader takes, folded and literal blocks with
// blank and more-indented lines, indentless sequences, comments.
type yamlDoc struct {
	rnd *rand.Rand
	b   strings.Builder
}

// docScalars are mostly in the subset; docEdges mostly not, and are picked now
// and then.
var (
	docScalars = []string{
		"text", "it's fine", "yes", "no", "on", "off", "True", "FALSE", "true", "0", "-0", "12", "-4",
		"0.25", "-0.5", "1e3", "2.5E-3", "1.0", "a, b", "a [b] {c}", "café – “q”", "a # comment",
		"a  b  ", `"quoted"`, `"esc \" \\ \n \t"`, `'single ''q'''`, `''`, `""`, "123456789012345678",
		"_under", "-x1", "Null Island", "yes please",
	}
	docEdges = []string{
		"1.", "007", "0x1F", "1e400", "null", "Null", "~", "x:y", "C#", "+5", "-x", ".5", "2001-12-14",
		`"\x41"`, `"\/"`, "1234567890123456789", "-", "a:", "*alias", "&anchor x", "!tag x", "%x", "@x",
		"[x]", "{k: v}",
	}
)

func (d *yamlDoc) pick(xs, edges []string) string {
	if len(edges) > 0 && d.rnd.IntN(25) == 0 {
		return edges[d.rnd.IntN(len(edges))]
	}
	return xs[d.rnd.IntN(len(xs))]
}

func (d *yamlDoc) key() string {
	return d.pick([]string{"a", "b", "name", "white-balance", "_x", "k9", "layer", "description", "entries", "entries"}, []string{"true", "x y", "1"})
}

func (d *yamlDoc) junk(indent int) {
	switch d.rnd.IntN(6) {
	case 0:
		d.b.WriteString("\n")
	case 1:
		fmt.Fprintf(&d.b, "%s# a comment\n", strings.Repeat(" ", d.rnd.IntN(indent+3)))
	}
}

func (d *yamlDoc) mapping(indent, depth int, first bool) {
	if depth == 0 && d.rnd.IntN(2) == 0 {
		// A pack's entries, which a large pack reads in pieces.
		d.b.WriteString("entries:\n")
		for range 2 + d.rnd.IntN(6) {
			d.junk(2)
			d.b.WriteString("  " + d.key() + ":")
			d.value(2, 1)
		}
		first = false
	}
	for i := range 1 + d.rnd.IntN(4) {
		if i > 0 || !first {
			d.junk(indent)
			d.b.WriteString(strings.Repeat(" ", indent))
		}
		d.b.WriteString(d.key() + ":")
		d.value(indent, depth)
	}
}

// value writes a value after a key's colon or a dash, and its line's end.
func (d *yamlDoc) value(indent, depth int) {
	n := 6
	if depth > 3 {
		n = 3
	}
	switch d.rnd.IntN(n) {
	case 0, 1:
		d.b.WriteString(" " + d.pick(docScalars, docEdges))
		d.eol()
	case 2:
		d.b.WriteString(" ")
		d.flow(depth)
		d.eol()
	case 3:
		d.block(indent)
	case 4:
		d.b.WriteString("\n")
		in := indent + 2 + 2*d.rnd.IntN(2)
		d.b.WriteString(strings.Repeat(" ", in))
		d.mapping(in, depth+1, true)
	case 5:
		d.b.WriteString("\n")
		in := indent + 2*d.rnd.IntN(2)
		for range 1 + d.rnd.IntN(3) {
			d.junk(in)
			d.b.WriteString(strings.Repeat(" ", in) + "-")
			if d.rnd.IntN(2) == 0 {
				d.b.WriteString(" ")
				d.mapping(in+2, depth+1, true)
			} else {
				d.value(in, depth+1)
			}
		}
	}
}

func (d *yamlDoc) eol() {
	if d.rnd.IntN(5) == 0 {
		d.b.WriteString("  # trailing")
	}
	d.b.WriteString("\n")
}

func (d *yamlDoc) flow(depth int) {
	open, close := "[", "]"
	isMap := d.rnd.IntN(2) == 0
	if isMap {
		open, close = "{", "}"
	}
	d.b.WriteString(open)
	for i := range d.rnd.IntN(4) {
		if i > 0 {
			d.b.WriteString(", ")
		}
		if isMap {
			d.b.WriteString(d.key() + ": ")
		}
		if depth < 4 && d.rnd.IntN(5) == 0 {
			d.flow(depth + 1)
		} else {
			d.b.WriteString(d.pick(docScalars, docEdges))
		}
	}
	d.b.WriteString(close)
}

func (d *yamlDoc) block(indent int) {
	d.b.WriteString(" " + d.pick([]string{"|", "|-", ">", ">-"}, []string{"|+", ">2"}) + "\n")
	in := indent + 2 + 2*d.rnd.IntN(2)
	for i := range 1 + d.rnd.IntN(5) {
		switch r := d.rnd.IntN(8); {
		case r == 0 && i > 0:
			d.b.WriteString("\n")
		case r == 1 && i > 0:
			d.b.WriteString(strings.Repeat(" ", in-1) + "\n")
		case r == 2:
			d.b.WriteString(strings.Repeat(" ", in+2) + "indented more\n")
		default:
			d.b.WriteString(strings.Repeat(" ", in) + d.pick(docScalars, docEdges) + "\n")
		}
	}
	if d.rnd.IntN(3) == 0 {
		d.b.WriteString("\n")
	}
}

// Random documents the subset reader takes are read as yaml.Extract reads them,
// and it takes enough of them for that to mean something.
func TestYAMLSubsetRandomDocuments(t *testing.T) {
	old := minSplitBytes
	minSplitBytes = 0
	t.Cleanup(func() { minSplitBytes = old })
	const n = 3000
	taken := 0
	for seed := range uint64(n) {
		d := &yamlDoc{rnd: rand.New(rand.NewPCG(seed, 1))}
		d.mapping(0, 0, true)
		data := d.b.String()
		if d.rnd.IntN(4) == 0 {
			data = strings.TrimSuffix(data, "\n")
		}
		if subsetAgrees(t, fmt.Sprintf("./doc%d.yaml", seed), []byte(data), 1) {
			taken++
		}
		// And a slip of the hand: a space added, a byte dropped, a line repeated.
		lines := strings.SplitAfter(data, "\n")
		k := d.rnd.IntN(len(lines))
		switch l := lines[k]; d.rnd.IntN(3) {
		case 0:
			at := d.rnd.IntN(len(l) + 1)
			lines[k] = l[:at] + " " + l[at:]
		case 1:
			if len(l) > 0 {
				at := d.rnd.IntN(len(l))
				lines[k] = l[:at] + l[at+1:]
			}
		case 2:
			lines[k] = l + l
		}
		slip := []byte(strings.Join(lines, ""))
		subsetAgrees(t, fmt.Sprintf("./doc%d-slip.yaml", seed), slip, 1)
		// Both again with the entries (any top-level mapping named so) in pieces.
		subsetAgrees(t, fmt.Sprintf("./doc%d.yaml", seed), []byte(data), 1+int(seed%4))
		subsetAgrees(t, fmt.Sprintf("./doc%d-slip.yaml", seed), slip, 1+int(seed%4))
	}
	t.Logf("the subset reader took %d of %d documents", taken, n)
	if taken < n/10 {
		t.Errorf("the subset reader took %d of %d documents: too few for the comparison to mean much", taken, n)
	}
}

// A bad pack the subset reader takes gets cue vet's message, positions included:
// the message the check of yaml.Extract's reading gives.
func TestYAMLSubsetBadPackMessages(t *testing.T) {
	c := loadContract(t)
	good := string(bigPack(8 << 10))
	for _, tc := range []struct{ name, from, to string }{
		{"bad layer", "layer: L3", "layer: L9"},
		{"empty description", "description: Generated entry number 3,", "description: \"\"\n    x_desc: Generated entry number 3,"},
		{"unknown field", "    category: tone\n", "    category: tone\n    colour: red\n"},
		{"unknown operation", "op: exposure", "op: no_such_op"},
		{"range", "max: 1,", "max: -1,"},
		{"int for string", "unit: amount", "unit: 7"},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		if bad == good {
			t.Fatalf("%s: the mutation did not apply", tc.name)
		}
		src := Source{Name: "./bad.yaml", Data: []byte(bad)}
		if _, ok := readYAMLSubset(src.Data, path.Join(contract.Root, src.Name)); !ok {
			t.Fatalf("%s: not in the subset, so not a test of it", tc.name)
		}
		_, got := check(c, src)
		want := wholeCheckErr(c, src)
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("%s: check says\n%v\nthe whole check says\n%v", tc.name, got, want)
		}
		if got != nil && !strings.Contains(got.Error(), "./bad.yaml:") {
			t.Errorf("%s: %v, want a position in ./bad.yaml", tc.name, got)
		}
	}
}
