package pack

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/encoding/yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// A large pack read in pieces is the pack read whole: the same data, every entry
// at the same line.
func TestYAMLPiecesAreTheWhole(t *testing.T) {
	c := loadContract(t)
	src := Source{Name: "./big.yaml", Data: append(bigPack(minSplitBytes*2), "masks:\n  top_half:\n    description: The top half.\n    tags: [region]\n    spec: {shape: {kind: rectangle, x: 0, y: 0, width: 1, height: 0.5}}\n"...)}
	fname := filepath.Join(contract.Root, src.Name)
	whole, err := yaml.Extract(fname, src.Data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := c.Value.Context()
	wantJSON, err := ctx.BuildFile(whole).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	wantLines := entryLines(whole.Decls)
	for _, pieces := range []int{2, 3, 8} {
		decls, f, ok := extractYAMLPieces(src, fname, pieces)
		if !ok {
			t.Fatalf("%d pieces: read whole, want pieces", pieces)
		}
		g := *f
		g.Decls = decls
		got, err := ctx.BuildFile(&g).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wantJSON) {
			t.Errorf("%d pieces: the data differs from the whole reading", pieces)
		}
		if diff := cmp.Diff(wantLines, entryLines(decls)); diff != "" {
			t.Errorf("%d pieces: entry lines (-whole +pieces):\n%s", pieces, diff)
		}
	}
}

func entryLines(decls []ast.Decl) map[string]int {
	out := map[string]int{}
	for _, d := range decls {
		f := d.(*ast.Field)
		if name, _, _ := ast.LabelName(f.Label); name != "entries" {
			continue
		}
		for _, e := range f.Value.(*ast.StructLit).Elts {
			ef := e.(*ast.Field)
			name, _, _ := ast.LabelName(ef.Label)
			out[name] = ef.Pos().Line()
			// A field inside the entry, for positions past the cut's own line.
			out[name+".description"] = ef.Value.(*ast.StructLit).Elts[3].Pos().Line()
		}
	}
	return out
}

// What reading in pieces cannot take apart is read whole, and a large bad pack
// gets cue vet's message: an alias across pieces, a quoted scalar running over a
// line that looks like an entry, a name used in two pieces, an error in the last
// piece, the first entry at another indentation.
func TestYAMLPiecesFallBack(t *testing.T) {
	c := loadContract(t)
	small(t)
	big := string(bigPack(minSplitBytes * 2))
	n := strings.Count(big, "  big_entry_")
	lastEntry := "  big_entry_" + itoa(n-1) + ":\n"
	tests := []struct {
		name   string
		data   string
		pieces bool // still read in pieces
	}{
		{"alias across pieces", strings.Replace(strings.Replace(big, "tags: [tone, generated]", "tags: &t [tone, generated]", 1),
			lastEntry+"    layer: L3\n    category: tone\n    tags: [tone, generated]", lastEntry+"    layer: L3\n    category: tone\n    tags: *t", 1), false},
		{"quoted scalar over an entry-like line", strings.Replace(big, "description: Generated entry number "+itoa(n/2)+",",
			"description: \"Generated\n  looks_like_entry:\n      entry number "+itoa(n/2)+",\"", 1), false},
		{"a name in two pieces", strings.Replace(big, lastEntry, "  big_entry_0:\n", 1), false},
		{"bad value in the last piece", strings.Replace(big, lastEntry+"    layer: L3", lastEntry+"    layer: L9", 1), true},
		{"empty description in the last piece", strings.Replace(big, "Generated entry number "+itoa(n-1)+", more contrast by amount.", `""`, 1), true},
		{"first entry at another indentation", strings.Replace(big, "entries:\n  big_entry_0:\n", "entries:\n    big_entry_0:\n", 1), false},
	}
	for _, tt := range tests {
		if tt.data == big {
			t.Fatalf("%s: the mutation did not apply", tt.name)
		}
		src := Source{Name: "./big.yaml", Data: []byte(tt.data)}
		_, _, ok := extractYAMLPieces(src, filepath.Join(contract.Root, src.Name), 2)
		if ok != tt.pieces {
			t.Errorf("%s: read in pieces %v, want %v", tt.name, ok, tt.pieces)
		}
		_, gotErr := check(c, src)
		wantErr := wholeCheckErr(c, src)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Errorf("%s: check says\n%v\nthe whole check says\n%v", tt.name, gotErr, wantErr)
		}
	}
}

// wholeCheckErr is the whole check's verdict, a reading error included.
func wholeCheckErr(c *contract.Contract, src Source) error {
	f, err := extractYAML(src, filepath.Join(contract.Root, src.Name))
	if err != nil {
		return err
	}
	_, err = validateWhole(c, src, c.Value.Context().BuildFile(f))
	return err
}

// small lets packs of a few entries be read in pieces, for tests that also
// check them whole (about a millisecond per entry).
func small(t *testing.T) {
	old := minSplitBytes
	minSplitBytes = 8 << 10
	t.Cleanup(func() { minSplitBytes = old })
}

func itoa(i int) string { return strconv.Itoa(i) }
