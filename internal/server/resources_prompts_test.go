package server

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts name only tools the contract has (a renamed tool fails here), each
// takes its arguments into its text, one missing a required argument is refused,
// and image_id completes to the workspace's images.
func TestPrompts(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 32, 24))
	addImage(t, s, "hills", testPhoto(t, 32, 24))
	addImage(t, s, "beach", testPhoto(t, 32, 24))
	cs := sdkSession(t, s)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 3 {
		t.Fatalf("prompts/list: %v %v", list, err)
	}
	snake := regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)
	for _, p := range list.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "ARG-" + a.Name
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		for _, a := range p.Arguments {
			if !strings.Contains(text, "ARG-"+a.Name) {
				t.Errorf("%s: the text does not carry %s", p.Name, a.Name)
			}
		}
		bare := text
		for _, a := range p.Arguments {
			bare = strings.ReplaceAll(bare, "ARG-"+a.Name, "")
		}
		for _, w := range snake.FindAllString(bare, -1) {
			if _, ok := s.Contract.Tool(w); !ok && w != "contract_version" {
				t.Errorf("%s names %s, which is not a tool", p.Name, w)
			}
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: map[string]string{}}); err == nil {
			t.Errorf("%s without its required arguments was answered", p.Name)
		}
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "edit_to_brief"},
		Argument: mcp.CompleteParamsArgument{Name: "image_id", Value: "h"},
	})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"harbour", "hills"}) {
		t.Errorf("complete image_id h: %v %v", comp, err)
	}
}
