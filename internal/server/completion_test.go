package server

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// freeText are the prompt arguments a user types rather than picks: a brief, a
// recipe in words, a folder, a number, a diff. Every other argument of a prompt or
// resource template names a known value and must complete.
var freeText = map[string]bool{"brief": true, "recipe": true, "input": true, "variants": true, "change": true}

// completion/complete through a real MCP client session: image ids, an image's
// branches and tags (from the image_id the host resolved first), vocabulary
// entries, named masks and presets, each filtered by what was typed; nothing for a
// free-text argument, and nothing for refs before an image is named.
func TestCompletions(t *testing.T) {
	s := editServer(t)
	for _, id := range []string{"harbour", "hills", "beach"} {
		addImage(t, s, id, testPhoto(t, 32, 24))
	}
	mustCall(t, s, "branch", map[string]any{"image_id": "harbour", "name": "moody"})
	mustCall(t, s, "tag", map[string]any{"image_id": "harbour", "name": "client_pick"})
	cs := sdkSession(t, s)
	ctx := context.Background()

	prompt := func(name string) *mcp.CompleteReference {
		return &mcp.CompleteReference{Type: "ref/prompt", Name: name}
	}
	resource := func(uri string) *mcp.CompleteReference { return &mcp.CompleteReference{Type: "ref/resource", URI: uri} }
	onHarbour := &mcp.CompleteContext{Arguments: map[string]string{"image_id": "harbour"}}
	for _, c := range []struct {
		name    string
		ref     *mcp.CompleteReference
		arg     string
		value   string
		context *mcp.CompleteContext
		want    []string
	}{
		{"prompt image ids", prompt("edit_to_brief"), "image_id", "h", nil, []string{"harbour", "hills"}},
		{"state template image ids", resource(imagesURI + "{image_id}/state"), "image_id", "b", nil, []string{"beach"}},
		{"preview template image ids", resource(imagesURI + "{image_id}/preview"), "image_id", "", nil, []string{"beach", "harbour", "hills"}},
		{"branches then tags", prompt("edit_to_brief"), "from", "", onHarbour, []string{"main", "moody", "baseline", "client_pick"}},
		{"refs typed", prompt("edit_to_brief"), "from", "m", onHarbour, []string{"main", "moody"}},
		{"refs of another image", prompt("edit_to_brief"), "from", "", &mcp.CompleteContext{Arguments: map[string]string{"image_id": "hills"}}, []string{"main", "baseline"}},
		{"refs before an image", prompt("edit_to_brief"), "from", "", nil, []string{}},
		{"refs of no such image", prompt("edit_to_brief"), "from", "", &mcp.CompleteContext{Arguments: map[string]string{"image_id": "nowhere"}}, []string{}},
		{"entries", prompt("edit_to_brief"), "look", "expo", nil, []string{"exposure"}},
		{"masks", prompt("edit_to_brief"), "region", "sky", nil, []string{"sky_gradient"}},
		{"masks typed nothing", prompt("edit_to_brief"), "region", "s", nil, []string{"shadows_range", "skin_tones", "sky_gradient"}},
		{"presets", prompt("augment_dataset"), "preset", "d", nil, []string{"detection_safe", "document_scan"}},
		{"free text", prompt("edit_to_brief"), "brief", "", nil, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: c.ref, Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.value}, Context: c.context})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Completion.Values, c.want) || res.Completion.Total != len(c.want) {
				t.Errorf("complete %s %q: %v (total %d), want %v", c.arg, c.value, res.Completion.Values, res.Completion.Total, c.want)
			}
		})
	}

	// Every argument that is not free text completes to something here.
	names := map[string]bool{"image_id": true}
	pl, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pl.Prompts {
		for _, a := range p.Arguments {
			names[a.Name] = true
		}
	}
	for n := range names {
		if freeText[n] {
			continue
		}
		args := &mcp.CompleteContext{Arguments: map[string]string{"image_id": "harbour"}}
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: prompt("edit_to_brief"), Argument: mcp.CompleteParamsArgument{Name: n}, Context: args})
		if err != nil || len(res.Completion.Values) == 0 {
			t.Errorf("argument %s names a known value but completes to nothing (%v)", n, err)
		}
	}
}
