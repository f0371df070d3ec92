package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// goodPack has three entries of one shape (only their prose differs), one of
// another, two of a third whose parameters are not in alphabetical order, and a mask: the mutations below break each part in turn.
const goodPack = `pack: corpus
description: A pack to break.
entries:
  punch_a:
    layer: L3
    category: tone
    tags: [tone]
    description: More contrast, a.
    aliases: [pop a]
    examples: [more punch a]
    parameters:
      amount: {type: number, min: 0, max: 1, default: 0.3, unit: amount, description: How much a.}
    operations:
      - op: contrast
        bind: {amount: amount}
  punch_b:
    layer: L3
    category: tone
    tags: [tone]
    description: More contrast, b.
    aliases: [pop b, pop more b]
    examples: [more punch b]
    parameters:
      amount: {type: number, min: 0, max: 1, default: 0.3, unit: amount, description: How much b.}
    operations:
      - op: contrast
        bind: {amount: amount}
  punch_c:
    layer: L3
    category: tone
    tags: [tone]
    description: More contrast, c.
    aliases: [pop c]
    examples: [more punch c]
    parameters:
      amount: {type: number, min: 0, max: 1, default: 0.3, unit: amount, description: How much c.}
    operations:
      - op: contrast
        bind: {amount: amount}
  warm_up:
    layer: L2
    category: color
    tags: [color]
    description: Warmer.
    aliases: [warm]
    examples: [make it warmer]
    operations:
      - op: exposure
        set: {ev: 0.1}
  cast_x:
    layer: L1
    category: color
    tags: [color]
    description: Shift the cast, x.
    aliases: [cast x]
    examples: [shift the cast x]
    parameters:
      tint: {type: number, min: -1, max: 1, default: 0, unit: amount, description: Tint x.}
      temperature: {type: number, min: -4000, max: 4000, default: 0, unit: kelvin, description: Kelvin x.}
    operations:
      - op: white_balance
        bind: {tint: tint, temperature: temperature}
  cast_y:
    layer: L1
    category: color
    tags: [color]
    description: Shift the cast, y.
    aliases: [cast y]
    examples: [shift the cast y]
    parameters:
      tint: {type: number, min: -1, max: 1, default: 0, unit: amount, description: Tint y.}
      temperature: {type: number, min: -4000, max: 4000, default: 0, unit: kelvin, description: Kelvin y.}
    operations:
      - op: white_balance
        bind: {tint: tint, temperature: temperature}
masks:
  top_half:
    description: The top half.
    tags: [region]
    spec: {shape: {kind: rectangle, x: 0, y: 0, width: 1, height: 0.5}}
`

// badPacks are mutations of goodPack, each as a list of replacements; vet marks the
// ones also run through the real cue vet.
var badPacks = []struct {
	name  string
	repl  []string
	vet   bool
	entry string // the entry and field the message must name, if any
}{
	{"empty description", []string{"description: More contrast, b.", `description: ""`}, true, "entries.punch_b.description"},
	{"number description", []string{"description: More contrast, b.", "description: 5"}, false, "entries.punch_b.description"},
	{"empty alias", []string{"aliases: [pop c]", `aliases: [pop c, ""]`}, true, "entries.punch_c.aliases.1"},
	{"no aliases", []string{"    aliases: [pop c]\n", ""}, false, "entries.punch_c.aliases"},
	{"empty examples", []string{"examples: [more punch a]", "examples: []"}, false, "entries.punch_a.examples"},
	{"empty parameter description", []string{"description: How much b.}", `description: ""}`}, true, "entries.punch_b.parameters.amount.description"},
	{"unknown operation", []string{"op: exposure", "op: exposur"}, true, "entries.warm_up.operations.0.op"},
	{"argument out of range", []string{"set: {ev: 0.1}", "set: {ev: 99}"}, false, "entries.warm_up.operations.0.set.ev"},
	{"bind to a missing parameter", []string{"bind: {amount: amount}\n  punch_b", "bind: {amount: amont}\n  punch_b"}, false, "entries.punch_a.operations.0.bind.amount"},
	{"default above max", []string{"default: 0.3, unit: amount, description: How much c.", "default: 3, unit: amount, description: How much c."}, false, "entries.punch_c.parameters.amount.default"},
	{"integer parameter with a float", []string{"type: number, min: 0, max: 1, default: 0.3, unit: amount, description: How much a.", "type: integer, min: 0.0, max: 1, default: 0, unit: amount, description: How much a."}, false, ""},
	{"bad layer in every entry", []string{"layer: L3", "layer: L9"}, false, "entries.punch_c.layer"},
	{"bad entry name", []string{"  warm_up:", "  Warm-Up:"}, true, `entries."Warm-Up"`},
	{"unknown entry field", []string{"    layer: L2\n", "    layer: L2\n    colour: red\n"}, false, "entries.warm_up.colour"},
	{"bad tag", []string{"tags: [color]", "tags: [Color]"}, false, "entries.warm_up.tags.0"},
	{"bad mask", []string{"kind: rectangle", "kind: rectangl"}, false, ""},
	{"no pack name", []string{"pack: corpus\n", ""}, false, ""},
	{"stray top-level field", []string{"pack: corpus\n", "pack: corpus\nversion: 2\n"}, false, ""},
	{"entries not a struct", []string{"entries:\n  punch_a:", "entries: 5\nmore:\n  punch_a:"}, false, ""},
	{"errors in several entries", []string{"layer: L2", "layer: L7", "description: More contrast, c.", `description: ""`, "op: exposure", "op: exposur"}, true, "entries.warm_up.layer"},
}

func mutate(t *testing.T, repl []string) string {
	t.Helper()
	s := goodPack
	for i := 0; i < len(repl); i += 2 {
		if !strings.Contains(s, repl[i]) {
			t.Fatalf("mutation %q: not in the pack", repl[i])
		}
		s = strings.ReplaceAll(s, repl[i], repl[i+1])
	}
	return s
}

// wholeCheck is the check as it was before shapes: the whole pack as one value,
// which is what cue vet does.
func wholeCheck(t *testing.T, c *contract.Contract, src Source) (*Checked, error) {
	t.Helper()
	f, err := yaml.Extract(filepath.Join(contract.Root, src.Name), src.Data)
	if err != nil {
		t.Fatal(err)
	}
	return validateWhole(c, src, c.Value.Context().BuildFile(f))
}

// Every bad pack gets the same verdict and the same message, naming the file, the
// entry and the field, from the shape check as from the whole check; a good pack
// loads to the same entries either way.
func TestShapeCheckAgrees(t *testing.T) {
	c := loadContract(t)
	if !planFor(c).ok {
		t.Fatal("the contract does not allow the shape check: every pack would be checked whole")
	}
	good := Source{Name: "./good.yaml", Data: []byte(goodPack)}
	fast, err := check(c, good)
	if err != nil {
		t.Fatalf("good pack: %v", err)
	}
	whole, err := wholeCheck(t, c, good)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(entriesOf(t, whole), entriesOf(t, fast)); diff != "" {
		t.Errorf("good pack, entries (-whole +shapes):\n%s", diff)
	}
	for _, tt := range badPacks {
		src := Source{Name: "./bad.yaml", Data: []byte(mutate(t, tt.repl))}
		_, fastErr := check(c, src)
		_, wholeErr := wholeCheck(t, c, src)
		if wholeErr == nil {
			t.Errorf("%s: the whole check passes it: not a bad pack", tt.name)
			continue
		}
		if fastErr == nil || fastErr.Error() != wholeErr.Error() {
			t.Errorf("%s: shape check says\n%v\nwhole check says\n%v", tt.name, fastErr, wholeErr)
		}
		// The pack is named by the error, each problem by its path (entries.NAME.FIELD
		// for an entry) and, where the pack has the field, its position in the pack.
		var pe *Error
		if !errors.As(fastErr, &pe) || pe.File != src.Name {
			t.Errorf("%s: %#v does not name the pack %s", tt.name, fastErr, src.Name)
		}
		if tt.entry != "" && !strings.Contains(fastErr.Error(), tt.entry) {
			t.Errorf("%s: message does not name %s:\n%v", tt.name, tt.entry, fastErr)
		}
	}
}

func entriesOf(t *testing.T, ck *Checked) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, e := range ck.entries {
		var v any
		if err := json.Unmarshal(e.json, &v); err != nil {
			t.Fatal(err)
		}
		order, err := vocab.ParameterOrderOf(e.json)
		if err != nil {
			t.Fatal(err)
		}
		out[e.name] = map[string]any{"fields": v, "parameter order": order}
	}
	return out
}

// The real cue vet, at the version go.mod pins, prints what the shape check prints.
func TestShapeCheckAgreesWithCueVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the cue command")
	}
	out, err := exec.Command("go", "tool", "-n", "cue").Output()
	if err != nil {
		t.Skipf("no cue command: %v", err)
	}
	cueBin := strings.TrimSpace(string(out))
	dir := t.TempDir()
	copyTree(t, "../../../cue.mod", filepath.Join(dir, "cue.mod"))
	copyTree(t, "../../../contracts", filepath.Join(dir, "contracts"))
	c := loadContract(t)
	ran := 0
	for _, tt := range badPacks {
		if !tt.vet {
			continue
		}
		ran++
		data := mutate(t, tt.repl)
		if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(cueBin, "vet", "-c", "-d", "#Manifest", "./contracts", "./bad.yaml")
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if cmd.Run() == nil {
			t.Errorf("%s: cue vet passes it", tt.name)
			continue
		}
		_, err := check(c, Source{Name: "./bad.yaml", Data: []byte(data)})
		if err == nil || err.Error() != stderr.String() {
			t.Errorf("%s: darkroom says\n%v\ncue vet says\n%s", tt.name, err, stderr.String())
		}
	}
	if ran < 3 {
		t.Fatalf("only %d packs went through cue vet", ran)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A contract where a free field is read by another field turns the shape check off,
// so such a pack is checked whole.
func TestFreeFieldsIndependent(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"#Entry: {description!: string & !=\"\", layer!: string}", true},
		{"#Entry: {description!: string, summary: description}", false},
		{"#Entry: {aliases!: [...string], n: len(aliases)}", false},
		{"#Entry: {layer!: string, if layer == \"L1\" {description: =~\"^Fix\"}}", false},
		{"#Entry: {x: _, y: x[\"examples\"]}", false},
		// What a pack never meets cannot constrain it.
		{"#Entry: {description!: string}\ngrants: a: description: \"x\"\nknown: grants.a.description", true},
	} {
		f, err := parseCUE("#Manifest: entries: [string]: #Entry\n" + tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := freeFieldsIndependent([]*ast.File{f}); got != tt.want {
			t.Errorf("%s: independent = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// The shape check stands in for the whole check only when every parameter name gets
// the same schema: #Entry's parameters, its embedded definitions' included, are one
// pattern (repeated with the same label at most), and nothing else is embedded.
func TestOnePatternFollowsEmbeddings(t *testing.T) {
	const manifest = "#Manifest: entries: {[#Name]: #Entry}\n"
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"#Entry: {parameters: {[#Name]: #Parameter}}", true},
		{"#Entry: {parameters: _, #V}\n#V: {parameters: {[#Name]: #Parameter}}", true},
		{"#Entry: {parameters: {[#Name]: #Parameter}, #V}\n#V: {parameters: {[#Name]: #Parameter}}", true},
		// Another label: a name one allows, the other may not.
		{"#Entry: {parameters: {[#Name]: #Parameter}, #V}\n#V: {parameters: {[=~\"^a\"]: #Parameter}}", false},
		{"#Entry: {parameters: _}", false},
		{"#Entry: {parameters: {[#Name]: #Parameter}, {parameters: x: {}}}", false},
		{"#Entry: {parameters: _, V}\nV: {parameters: {[#Name]: #Parameter}}", false},
		{"#Entry: {parameters: _, #V}\n#V: {parameters: {[#Name]: #Parameter}}\n#V: {}", false},
		{"#Entry: {parameters: _, #V}\n#V: {parameters: {[#Name]: #Parameter}, #Entry}", false},
	} {
		f, err := parseCUE(manifest + tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := onePattern([]*ast.File{f}); got != tt.want {
			t.Errorf("%s: one pattern = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func parseCUE(src string) (*ast.File, error) { return parser.ParseFile("x.cue", src) }

// JSON packs take the same path: the same verdicts and messages as the whole check.
func TestShapeCheckJSON(t *testing.T) {
	c := loadContract(t)
	entry := func(name, layer, desc string) string {
		return `"` + name + `": {"layer": "` + layer + `", "category": "tone", "tags": ["tone"], "description": "` + desc + `",
			"aliases": ["a ` + name + `"], "examples": ["e ` + name + `"],
			"parameters": {"zeta": {"type": "number", "min": 0, "max": 1, "default": 0.5, "unit": "amount", "description": "Unused ` + name + `."},
				"amount": {"type": "number", "min": 0, "max": 1, "default": 0.5, "unit": "amount", "description": "How much."}},
			"operations": [{"op": "contrast", "bind": {"amount": "amount"}}]}`
	}
	pack := func(entries ...string) []byte {
		return []byte(`{"pack": "json_pack", "description": "A JSON pack.", "entries": {` + strings.Join(entries, ",\n") + `}}`)
	}
	for _, tt := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"good", pack(entry("one", "L3", "One."), entry("two", "L3", "Two."), entry("three", "L3", "Three.")), true},
		{"bad layer in a shape", pack(entry("one", "L3", "One."), entry("two", "L8", "Two."), entry("three", "L8", "Three.")), false},
		{"empty description", pack(entry("one", "L3", "One."), entry("two", "L3", ""), entry("three", "L3", "Three.")), false},
	} {
		src := Source{Name: "./p.json", Data: tt.data}
		fast, fastErr := check(c, src)
		expr, err := cuejson.Extract(filepath.Join(contract.Root, src.Name), src.Data)
		if err != nil {
			t.Fatal(err)
		}
		whole, wholeErr := validateWhole(c, src, c.Value.Context().BuildExpr(expr))
		if (wholeErr == nil) != tt.ok {
			t.Fatalf("%s: whole check: %v", tt.name, wholeErr)
		}
		if tt.ok {
			if fastErr != nil {
				t.Errorf("%s: %v", tt.name, fastErr)
			} else if diff := cmp.Diff(entriesOf(t, whole), entriesOf(t, fast)); diff != "" {
				t.Errorf("%s: entries (-whole +shapes):\n%s", tt.name, diff)
			}
			// ParameterOrder reads the manifest's order from the checked JSON.
			for i, e := range fast.entries {
				got, _ := vocab.ParameterOrderOf(e.json)
				if want := []string{"zeta", "amount"}; !slices.Equal(got, want) {
					t.Errorf("%s: entry %d (%s): parameter order %v, want %v", tt.name, i, e.name, got, want)
				}
			}
			continue
		}
		if fastErr == nil || fastErr.Error() != wholeErr.Error() {
			t.Errorf("%s: shape check says\n%v\nwhole check says\n%v", tt.name, fastErr, wholeErr)
		}
	}
}
