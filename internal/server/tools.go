package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools is the one table of every tool's handler, built here and nowhere else: no
// init() registration, no package-global map. A group's handlers sit in the file
// named like its contract file (edit.go for tools_edit.cue, …).
func tools() map[string]handler {
	return map[string]handler{
		// contract
		"get_contract": getContract,
		// vocabulary
		"list_vocabulary":           listVocabulary,
		"list_masks_vocabulary":     listMasksVocabulary,
		"list_available_transforms": listAvailableTransforms,
		// ingest
		"ingest":      ingest,
		"get_state":   getState,
		"bind_layers": bindLayers,
		// edit
		"apply_primitive":   applyPrimitive,
		"apply_per_region":  applyPerRegion,
		"apply_spot":        applySpot,
		"wb_from_gray_card": wbFromGrayCard,
		"remove_module":     removeModule,
		"reset":             resetImage,
		"propagate_state":   propagateState,
		// history
		"snapshot": snapshotTool,
		"checkout": checkoutTool,
		"branch":   branchTool,
		"tag":      tagTool,
		"log":      logTool,
		"diff":     diffTool,
		// render
		"render_preview": renderPreview,
		"compare":        compareTool,
		"export_final":   exportFinal,
		// context
		"read_context":         readContext,
		"log_vocabulary_gap":   logVocabularyGap,
		"propose_taste_update": proposeTasteUpdate,
		"confirm_taste_update": confirmTasteUpdate,
		"propose_notes_update": proposeNotesUpdate,
		"confirm_notes_update": confirmNotesUpdate,
		// augment
		"augment_image":          augmentImage,
		"validate_prompt":        validatePrompt,
		"list_available_presets": listAvailablePresets,
		"set_default_seed":       setDefaultSeed,
		"augment_dataset":        augmentDataset,
		"verify_augmentation":    verifyAugmentation,
	}
}

// traits are what the generic dispatcher does for a tool besides running its
// handler, as data rather than tests of its name.
type traits struct {
	// entries says where the tool's arguments name vocabulary entries with values
	// and masks, checked with the entries' #values in the one check (check.go).
	entries *entryPlace
	// before runs ahead of the call on MCP and may answer it instead (ask the
	// client for inputs the call needs).
	before func(ctx context.Context, s *Server, req *mcp.CallToolRequest) *mcp.CallToolResult
	// after runs on MCP with the call's result (announce the resources it made).
	after func(s *Server, srv *mcp.Server, res *mcp.CallToolResult)
}

// toolTraits are the tools' traits, beside the handlers' table; a tool not named
// has none.
func toolTraits() map[string]traits {
	return map[string]traits{
		"ingest":           {after: (*Server).ingested},
		"apply_primitive":  {entries: &entryPlace{}},
		"apply_per_region": {entries: &entryPlace{list: "regions"}},
		"verify_augmentation": {before: func(ctx context.Context, s *Server, req *mcp.CallToolRequest) *mcp.CallToolResult {
			return s.verifyInputs(ctx, req)
		}},
	}
}

// traitsOf returns a tool's traits.
func (s *Server) traitsOf(name string) traits {
	s.traitsOnce.Do(func() { s.traits = toolTraits() })
	return s.traits[name]
}
