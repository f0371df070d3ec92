package server

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augmentation"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

func testServer(t testing.TB) *Server {
	t.Helper()
	c, v := packtest.Builtin(t)
	s, err := New(c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every contract tool has a handler and every handler a contract tool: a tool cannot
// be advertised without code, nor code run without a contract.
func TestHandlersMatchContract(t *testing.T) {
	s := testServer(t)
	missing, extra := s.Unmatched()
	if len(missing)+len(extra) > 0 {
		t.Fatalf("tools without handlers: %v; handlers without tools: %v", missing, extra)
	}
	var names []string
	for n := range tools() {
		names = append(names, n)
	}
	sort.Strings(names)
	if diff := cmp.Diff(s.Contract.ToolNames(), names); diff != "" {
		t.Errorf("handlers (-contract +handlers):\n%s", diff)
	}
}

// Some clients reject a whole tool list when an input schema has a top-level
// combinator, and every tool needs annotations and a title.
func TestToolSchemasAreClientFriendly(t *testing.T) {
	s := testServer(t)
	for _, tool := range s.Contract.Tools {
		mt := MCPTool(tool)
		in := tool.InputSchema
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := in[k]; ok {
				t.Errorf("%s: input schema has a top-level %s", tool.Name, k)
			}
		}
		if in["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: input and output schemas must be objects", tool.Name)
		}
		// No $schema: a 2020-12 one makes a draft-07 Ajv (plain new Ajv()) refuse
		// the schema, and MCP 2025-11-25 makes 2020-12 the default anyway.
		if _, ok := in["$schema"]; ok {
			t.Errorf("%s: input schema names a dialect: %v", tool.Name, in["$schema"])
		}
		if mt.Annotations == nil || mt.Annotations.DestructiveHint == nil || mt.Annotations.OpenWorldHint == nil || mt.Title == "" {
			t.Errorf("%s: missing annotations or title", tool.Name)
		}
		if tool.Description == "" || len(tool.Errors) == 0 {
			t.Errorf("%s: no description or no declared errors", tool.Name)
		}
	}
}

// The Go names for error codes must all be codes of the contract's closed enum.
func TestErrorCodeNamesAreInContract(t *testing.T) {
	s := testServer(t)
	for _, code := range []string{
		darkroom.InvalidInput, darkroom.NotFound, darkroom.StateError, darkroom.VersioningError,
		darkroom.MaskingError, darkroom.RenderError, darkroom.PermissionError,
		darkroom.LimitExceeded, darkroom.Unavailable, darkroom.Timeout, darkroom.InternalError,
	} {
		if _, ok := s.Contract.ErrorCode(code); !ok {
			t.Errorf("error code %q is not in contracts/errors.cue", code)
		}
	}
	if got := len(s.Contract.ErrorCodes); got != 11 {
		t.Errorf("contract has %d error codes, Go names 11", got)
	}
}

// A handler that panics yields internal_error, and the next call still works.
func TestPanicBecomesInternalError(t *testing.T) {
	s := testServer(t)
	orig := s.handlers
	s.handlers = map[string]handler{}
	for k, v := range orig {
		s.handlers[k] = v
	}
	s.handlers["get_contract"] = func(context.Context, *Server, map[string]any) (any, string, error) {
		var m map[string]int
		m["boom"]++ // nil map write
		return nil, "", nil
	}
	res := s.Call(context.Background(), "get_contract", json.RawMessage(`{}`))
	env := res.StructuredContent.(Envelope)
	if !res.IsError || env.Error == nil || env.Error.Code != darkroom.InternalError || env.Error.Recoverable {
		t.Fatalf("panic gave %+v", env)
	}
	res = s.Call(context.Background(), "list_vocabulary", json.RawMessage(`{"layer":"L2"}`))
	if res.IsError {
		t.Fatalf("server did not go on after a panic: %+v", res.StructuredContent)
	}
}

// A handler returning a code its tool does not declare is reported as internal_error.
func TestUndeclaredCodeBecomesInternalError(t *testing.T) {
	s := testServer(t)
	s.handlers = map[string]handler{"get_contract": func(context.Context, *Server, map[string]any) (any, string, error) {
		return nil, "", darkroom.Errorf(darkroom.VersioningError, "not a code get_contract declares")
	}}
	env, _ := s.Invoke(context.Background(), "get_contract", nil)
	if env.Error == nil || env.Error.Code != darkroom.InternalError || env.Error.Details["undeclared_code"] != darkroom.VersioningError {
		t.Fatalf("got %+v", env.Error)
	}
}

// Calls through the SDK's client: the structured result is the envelope and the text
// is a one-line summary; an invalid call is isError with invalid_input and the path.
func TestCallThroughClient(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	cs := sdkSession(t, s)

	tests := []struct {
		args      map[string]any
		wantError bool
		wantCode  string
		wantPath  string
	}{
		{map[string]any{"layer": "L2"}, false, "", ""},
		{map[string]any{"layer": nil, "tags": nil}, false, "", ""},
		{map[string]any{"layer": "L9"}, true, "invalid_input", "layer"},
		{map[string]any{"tags": []any{"ok", "Not OK"}}, true, "invalid_input", "tags.1"},
		{map[string]any{"limit": 5}, true, "invalid_input", "limit"},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_vocabulary", Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env struct {
			Success bool `json:"success"`
			Error   *struct {
				Code    string `json:"code"`
				Details struct {
					Fields []struct {
						Path string `json:"path"`
					} `json:"fields"`
				} `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		if res.IsError != tt.wantError || env.Success == tt.wantError {
			t.Errorf("%v: isError=%v success=%v", tt.args, res.IsError, env.Success)
			continue
		}
		// content: the summary, then the envelope as JSON for hosts that forward only
		// content to the model.
		if len(res.Content) != 2 || res.Content[0].(*mcp.TextContent).Text == "" {
			t.Errorf("%v: want a text summary and the envelope, got %v", tt.args, res.Content)
		} else if text, ok := res.Content[1].(*mcp.TextContent); !ok {
			t.Errorf("%v: content[1] is %T, want the envelope as text", tt.args, res.Content[1])
		} else {
			var got, want any
			if err := json.Unmarshal([]byte(text.Text), &got); err != nil {
				t.Errorf("%v: content[1] is not JSON: %v", tt.args, err)
			}
			json.Unmarshal(b, &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%v: content[1] is not the envelope (-want +got):\n%s", tt.args, diff)
			}
		}
		if tt.wantError {
			if env.Error.Code != tt.wantCode || len(env.Error.Details.Fields) == 0 || env.Error.Details.Fields[0].Path != tt.wantPath {
				t.Errorf("%v: got %s", tt.args, b)
			}
		}
	}
}

// newTestServer is a server over c and v with workspace ws, every tool wired.
func newTestServer(c *contract.Contract, v *vocab.Vocabulary, ws *workspace.Workspace) *Server {
	e := edit.New(c.Facts(), v, nil)
	s := &Server{Editor: e, Contract: c, aug: augmentation.New(e), handlers: tools()}
	s.Judge = s
	s.Workspace = ws
	return s
}

// The contract says which tools read files the client names (readsClientFiles), and
// the server asks for the client's roots only for those. A tool that takes a path
// and does not say so would read it under --allow-root alone.
func TestToolsThatTakeAPathReadClientFiles(t *testing.T) {
	s := testServer(t)
	n := 0
	for _, tool := range s.Contract.Tools {
		props, _ := tool.InputSchema["properties"].(map[string]any)
		_, path := props["path"]
		_, input := props["input"] // augment_dataset's folder
		if (path || input) != tool.ReadsClientFiles {
			t.Errorf("%s: a path or input parameter %v, readsClientFiles %v", tool.Name, path || input, tool.ReadsClientFiles)
		}
		if tool.ReadsClientFiles {
			n++
		}
	}
	if n == 0 {
		t.Error("no tool reads client files: ingest does")
	}
}
