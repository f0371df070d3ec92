package server

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// aliasContract is the repository's contract plus one more file in contracts/.
func aliasContract(t *testing.T, extra string) (*contract.Contract, error) {
	t.Helper()
	fsys := fstest.MapFS{}
	root := os.DirFS("../..")
	for _, pat := range []string{"cue.mod/module.cue", "contracts/*.cue"} {
		names, err := fs.Glob(root, pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			b, err := fs.ReadFile(root, n)
			if err != nil {
				t.Fatal(err)
			}
			fsys[n] = &fstest.MapFile{Data: b}
		}
	}
	fsys["contracts/zz_alias.cue"] = &fstest.MapFile{Data: []byte("package contracts\n\n" + extra)}
	return contract.Load(fsys)
}

// listPrimitives is a deprecated alias of list_vocabulary; deprecated and params
// vary by case.
func listPrimitives(deprecated, params, data string, errors string) string {
	if data == "" {
		data = "#ListVocabularyData"
	}
	if errors == "" {
		errors = `["invalid_input", "permission_error", "limit_exceeded", "timeout", "internal_error"]`
	}
	return `tools: list_primitives: {
	title: "List primitives"
	description: "List the editing primitives."
	group: "vocabulary"
	since: "0.1.0"
	annotations: {readOnly: true, destructive: false, idempotent: true, openWorld: false}
	deprecated: ` + deprecated + `
	params: ` + params + `
	data: ` + data + `
	errors: ` + errors + `
}
`
}

// A deprecated tool is served only when its replacement can serve it; what would
// go wrong is refused at start-up, naming the alias.
func TestCheckAliases(t *testing.T) {
	same := `{layer?: #Layer | null, tags?: [...#Name] | null, category?: #Name | null}`
	renamed := `{level?: #Layer | null, tags?: [...#Name] | null, category?: #Name | null}`
	tests := []struct {
		name, cue, want string // want: "" for a contract that is served
	}{
		{"identical arguments", listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0"}`, same, "", ""), ""},
		{"renamed argument", listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0", rename: {level: "layer"}}`, renamed, "", ""), ""},
		{"no such replacement", listPrimitives(`{replacement: "list_everything", removeAfter: "0.3.0"}`, same, "", ""),
			"list_primitives: replacement list_everything is not a tool"},
		{"replacement deprecated too", listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0"}`, same, "", "") +
			`tools: list_vocabulary: deprecated: {replacement: "list_available_transforms", removeAfter: "0.3.0"}`,
			"list_primitives: replacement list_vocabulary is deprecated too"},
		{"rename from a parameter the alias lacks", listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0", rename: {tier: "layer"}}`, renamed, "", ""),
			"list_primitives: rename tier: list_primitives has no parameter tier"},
		{"rename to a parameter the replacement lacks", listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0", rename: {level: "tier"}}`, renamed, "", ""),
			"list_primitives: rename level: list_vocabulary has no parameter tier"},
		{"an error code the alias does not declare", listPrimitives(`{replacement: "get_state", removeAfter: "0.3.0"}`, `{image_id!: #ImageID}`, "#GetStateData", ""),
			"list_primitives: does not declare not_found, which its replacement get_state returns"},
		{"other data", listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0"}`, same, `{names!: [...string]}`, ""),
			"list_primitives: its data is not its replacement list_vocabulary's data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := aliasContract(t, tt.cue)
			if err != nil {
				t.Fatalf("contract: %v", err)
			}
			err = checkAliases(c)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// The alias answers what its replacement answers for the renamed arguments, errors
// included, and says it is deprecated in the text and in _meta.
func TestAliasServesReplacement(t *testing.T) {
	c, err := aliasContract(t, listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0", rename: {level: "layer"}}`,
		`{level?: #Layer | null, tags?: [...#Name] | null, category?: #Name | null}`, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	_, v := packtest.Builtin(t)
	s, err := New(c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ old, new string }{
		{`{"level": "L2", "tags": ["film"]}`, `{"layer": "L2", "tags": ["film"]}`},
		{`{}`, `{}`},
		{`{"category": "look"}`, `{"category": "look"}`},
		{`{"level": "L9"}`, `{"layer": "L9"}`},
	} {
		got := s.Call(context.Background(), "list_primitives", json.RawMessage(tt.old))
		want := s.Call(context.Background(), "list_vocabulary", json.RawMessage(tt.new))
		if diff := cmp.Diff(want.IsError, got.IsError); diff != "" {
			t.Errorf("%s: isError (-want +got):\n%s", tt.old, diff)
		}
		if !got.IsError {
			if diff := cmp.Diff(want.StructuredContent, got.StructuredContent); diff != "" {
				t.Errorf("%s: structuredContent (-want +got):\n%s", tt.old, diff)
			}
		}
		text := got.Content[0].(interface{ MarshalJSON() ([]byte, error) })
		b, _ := text.MarshalJSON()
		if !strings.Contains(string(b), "list_primitives is deprecated, use list_vocabulary") {
			t.Errorf("%s: the text does not say the tool is deprecated: %s", tt.old, b)
		}
		if d, ok := got.Meta[deprecationMeta].(map[string]any); !ok || d["replacement"] != "list_vocabulary" || d["removeAfter"] != "0.3.0" {
			t.Errorf("%s: _meta = %v", tt.old, got.Meta)
		}
	}
}

// A deprecated tool's call that the transport refuses before it runs (a message over
// the line limit) says it is deprecated as a call that ran does: the note in the
// summary line and the _meta key. Both come from one shaping path.
func TestErrorResultOfDeprecatedTool(t *testing.T) {
	c, err := aliasContract(t, listPrimitives(`{replacement: "list_vocabulary", removeAfter: "0.3.0"}`,
		`{layer?: #Layer | null, tags?: [...#Name] | null, category?: #Name | null}`, "", `["invalid_input", "permission_error", "limit_exceeded", "timeout", "internal_error"]`))
	if err != nil {
		t.Fatal(err)
	}
	_, v := packtest.Builtin(t)
	s, err := New(c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := s.errorResult("list_primitives", darkroom.Errorf(darkroom.LimitExceeded, "list_primitives: the message is too long"))
	if res == nil {
		t.Fatal("no error result for a declared code")
	}
	if _, ok := res.Meta[deprecationMeta]; !ok {
		t.Errorf("_meta of the refused call: %v, want %s", res.Meta, deprecationMeta)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "list_primitives is deprecated, use list_vocabulary") {
		t.Errorf("summary of the refused call %q does not say the tool is deprecated", text)
	}
}
