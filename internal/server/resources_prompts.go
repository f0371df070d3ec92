package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts are the main workflows, written for the model that drives the tools:
// each names the tools in the order they are used and takes the arguments the
// workflow needs. Arguments that name a known value (an image, a branch or tag, an
// entry, a mask, a preset) complete to them (completion.go).
var prompts = []struct {
	prompt *mcp.Prompt
	text   func(args map[string]string) (string, error)
}{
	{
		prompt: &mcp.Prompt{
			Name:        "edit_to_brief",
			Title:       "Edit a photo to a brief",
			Description: "Edit one workspace image until it meets a brief, previewing as you go, and export it.",
			Arguments: []*mcp.PromptArgument{
				{Name: "image_id", Description: "The image to edit (ingest it first).", Required: true},
				{Name: "brief", Description: "What the edit should achieve, in the user's words.", Required: true},
				{Name: "from", Description: "A branch or tag of the image to start from (default: where its HEAD is)."},
				{Name: "look", Description: "A vocabulary entry to try first (list_vocabulary), such as a look."},
				{Name: "region", Description: "A named mask (list_masks_vocabulary) when only that part of the photo should change."},
			},
		},
		text: func(a map[string]string) (string, error) {
			start := ""
			if a["from"] != "" {
				start += fmt.Sprintf("Start from %q: checkout it first.\n", a["from"])
			}
			if a["look"] != "" {
				start += fmt.Sprintf("Try the entry %q first.\n", a["look"])
			}
			if a["region"] != "" {
				start += fmt.Sprintf("Only the region of the named mask %q should change: apply it with that mask (apply_primitive or apply_per_region).\n", a["region"])
			}
			if start != "" {
				start = "\n" + start
			}
			return fmt.Sprintf("Edit the image %q to this brief: %s\n%s\n"+
				"1. read_context for %[1]q (the user's tastes and the image's notes) and get_state.\n"+
				"2. list_vocabulary to find the entries the brief needs; list_masks_vocabulary if only part of the photo should change.\n"+
				"3. apply_primitive one entry at a time (apply_per_region for a masked change), render_preview after each step and look at it.\n"+
				"4. snapshot with a label when a step works; checkout or remove_module when it does not.\n"+
				"5. When the preview meets the brief, compare it with the baseline, then export_final.\n"+
				"If an adjustment the brief needs is missing, log_vocabulary_gap says so.", a["image_id"], a["brief"], start), nil
		},
	},
	{
		prompt: &mcp.Prompt{
			Name:        "augment_dataset",
			Title:       "Augment a dataset",
			Description: "Turn a description of the augmentations wanted into a validated recipe and run it over a folder.",
			Arguments: []*mcp.PromptArgument{
				{Name: "input", Description: "The folder of images to augment (under a root the server allows).", Required: true},
				{Name: "recipe", Description: "The augmentations wanted, in words (\"slight blur and colour jitter\").", Required: true},
				{Name: "variants", Description: "How many variants per image (default 4)."},
				{Name: "preset", Description: "A preset (list_available_presets) to start from; the recipe says how to change it."},
			},
		},
		text: func(a map[string]string) (string, error) {
			n := a["variants"]
			if n == "" {
				n = "4"
			}
			start := ""
			if a["preset"] != "" {
				start = fmt.Sprintf("\nStart from the preset %q and change it as the recipe says.\n", a["preset"])
			}
			return fmt.Sprintf("Augment the images in %q: %s, %s variants per image.\n%s\n"+
				"1. list_available_transforms and list_available_presets to see what exists.\n"+
				"2. validate_prompt with the recipe until it is valid and unambiguous; fix each error it names rather than guessing.\n"+
				"3. set_default_seed so the run can be reproduced.\n"+
				"4. augment_image on one image to check the look, then augment_dataset over the folder.\n"+
				"5. verify_augmentation on the output, and report what was written and skipped.", a["input"], a["recipe"], n, start), nil
		},
	},
	{
		prompt: &mcp.Prompt{
			Name:        "review_contract_change",
			Title:       "Review a contract change",
			Description: "Review a change to darkroom's CUE contracts: what breaks a caller, and what the version must say.",
			Arguments: []*mcp.PromptArgument{
				{Name: "change", Description: "The change: a diff of contracts/*.cue, or `darkroom contract diff` output.", Required: true},
			},
		},
		text: func(a map[string]string) (string, error) {
			return "Review this change to darkroom's contracts (contracts/*.cue):\n\n" + a["change"] + "\n\n" +
				"Call get_contract for the current version and tools. For each tool the change touches, say whether an existing caller breaks " +
				"(a parameter removed or renamed without a deprecated alias, a narrower range, a new required parameter, a data field removed, an error code a caller must now handle) " +
				"and whether contract_version is bumped accordingly (below 1.0.0 a breaking change bumps the minor). " +
				"Name each problem with the tool, the field and the fix.", nil
		},
	},
}

// addPrompts registers the workflows' prompts.
func (s *Server) addPrompts(srv *mcp.Server) {
	for _, p := range prompts {
		srv.AddPrompt(p.prompt, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args := req.Params.Arguments
			for _, a := range p.prompt.Arguments {
				if a.Required && strings.TrimSpace(args[a.Name]) == "" {
					// Invalid params (-32602), as the spec names a missing required
					// argument; a plain error would reach the client with code 0.
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
						Message: fmt.Sprintf("prompt %s needs the argument %s", p.prompt.Name, a.Name)}
				}
			}
			text, err := p.text(args)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{
				Description: p.prompt.Description,
				Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
			}, nil
		})
	}
}

// maxCompletions bounds one completion's values, as the spec's 100.
const maxCompletions = 100

// complete completes a prompt's or an image resource template's argument to the
// known values (completers, completion.go) that start with what was typed.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if req.Params == nil {
		return res, nil
	}
	f := completers[req.Params.Argument.Name]
	if f == nil {
		return res, nil
	}
	ids := slices.DeleteFunc(f(s, req.Params), func(id string) bool { return !strings.HasPrefix(id, req.Params.Argument.Value) })
	res.Completion.Total = len(ids)
	if len(ids) > maxCompletions {
		ids, res.Completion.HasMore = ids[:maxCompletions], true
	}
	if ids != nil {
		res.Completion.Values = ids
	}
	return res, nil
}
