package server

import (
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What completion/complete offers, by the name of the argument being completed
// (of a prompt or a resource template): every argument where a host would let its
// user pick a known value, rather than type it, has a completer here. A name not
// listed (a brief, a recipe in words, a folder) completes to nothing.
var completers = map[string]func(s *Server, req *mcp.CompleteParams) []string{
	// The workspace's images.
	"image_id": func(s *Server, _ *mcp.CompleteParams) []string {
		if s.Workspace == nil {
			return nil
		}
		ids, _ := s.Workspace.History.ListImages()
		return ids
	},
	// The branches and tags of the image the request's context names (its
	// image_id argument, resolved first as the spec asks hosts to send it).
	"from": refNames,
	// Vocabulary entries (list_vocabulary).
	"look": func(s *Server, _ *mcp.CompleteParams) []string {
		var out []string
		for _, e := range s.Vocab.Entries {
			out = append(out, e.Name)
		}
		return out
	},
	// Named masks (list_masks_vocabulary).
	"region": func(s *Server, _ *mcp.CompleteParams) []string {
		var out []string
		for _, m := range s.Vocab.Masks {
			out = append(out, m.Name)
		}
		return out
	},
	// Augmentation presets (list_available_presets).
	"preset": func(s *Server, _ *mcp.CompleteParams) []string {
		var out []string
		for _, p := range s.Vocab.Presets {
			out = append(out, p.Name)
		}
		return out
	},
}

// refNames are the branches, then the tags, of the image named by the request's
// context, each group sorted; nothing when no image is named or it has none.
func refNames(s *Server, req *mcp.CompleteParams) []string {
	if s.Workspace == nil || req.Context == nil || req.Context.Arguments["image_id"] == "" {
		return nil
	}
	refs, err := s.Workspace.History.Refs(req.Context.Arguments["image_id"])
	if err != nil {
		return nil
	}
	var branches, tags []string
	for b := range refs.Branches {
		branches = append(branches, b)
	}
	for t := range refs.Tags {
		tags = append(tags, t)
	}
	sort.Strings(branches)
	sort.Strings(tags)
	return append(branches, tags...)
}
