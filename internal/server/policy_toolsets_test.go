package server

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// --toolsets and --read-only: the server lists exactly the contract's tools of the
// chosen groups that are annotated readOnly, and a tool it does not offer cannot be
// called.
func TestToolFilter(t *testing.T) {
	c, v := packtest.Builtin(t)
	f := ToolFilter{Groups: []string{"history", "render"}, ReadOnly: true}
	if err := f.Check(c); err != nil {
		t.Fatal(err)
	}
	if err := (ToolFilter{Groups: []string{"nope"}}).Check(c); err == nil {
		t.Error("an unknown toolset was accepted")
	}
	s, err := New(c, v, nil, WithTools(f))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := sdkSession(t, s)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range list.Tools {
		listed[tool.Name] = true
	}
	for _, tool := range c.Tools {
		want := tool.Annotations.ReadOnly && (tool.Group == "history" || tool.Group == "render")
		if listed[tool.Name] != want {
			t.Errorf("%s (group %s, readOnly %v): listed %v", tool.Name, tool.Group, tool.Annotations.ReadOnly, listed[tool.Name])
		}
	}
	if len(listed) == 0 {
		t.Fatal("no tool listed")
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "apply_primitive", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Error("apply_primitive, not offered, was called")
	}
}
