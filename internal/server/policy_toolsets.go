package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// ToolFilter is which of the contract's tools a server offers: those of Groups
// (all groups when empty), only the ones annotated readOnly when ReadOnly. A host
// that wants the editing tools only loads their definitions, not every tool's.
type ToolFilter struct {
	Groups   []string
	ReadOnly bool
}

// Check refuses a group the contract does not have.
func (f ToolFilter) Check(c *contract.Contract) error {
	var known []string
	for _, t := range c.Tools {
		if !slices.Contains(known, t.Group) {
			known = append(known, t.Group)
		}
	}
	slices.Sort(known)
	for _, g := range f.Groups {
		if !slices.Contains(known, g) {
			return fmt.Errorf("toolset %q is not one of the contract's groups: %s", g, strings.Join(known, ", "))
		}
	}
	return nil
}

// offers reports whether the filter keeps t.
func (f ToolFilter) offers(t *contract.Tool) bool {
	if f.ReadOnly && !t.Annotations.ReadOnly {
		return false
	}
	return len(f.Groups) == 0 || slices.Contains(f.Groups, t.Group)
}

// WithTools makes the server offer only the tools f keeps (serve --toolsets,
// --read-only); the others are not listed and cannot be called.
func WithTools(f ToolFilter) Option {
	return func(s *Server) { s.tools = &f }
}
