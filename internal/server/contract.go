package server

import (
	"context"
	"fmt"

	"github.com/darkroom-mcp/darkroom/internal/version"
)

type toolView struct {
	Name       string      `json:"name"`
	Title      string      `json:"title"`
	Group      string      `json:"group"`
	Since      string      `json:"since"`
	Deprecated *deprecated `json:"deprecated"`
}

type deprecated struct {
	Replacement string `json:"replacement"`
	RemoveAfter string `json:"removeAfter"`
}

func getContract(_ context.Context, s *Server, _ map[string]any) (any, string, error) {
	c := s.Contract
	tools := make([]toolView, len(c.Tools))
	for i, t := range c.Tools {
		tools[i] = toolView{Name: t.Name, Title: t.Title, Group: t.Group, Since: t.Since}
		if t.Deprecated != nil {
			tools[i].Deprecated = &deprecated{t.Deprecated.Replacement, t.Deprecated.RemoveAfter}
		}
	}
	return map[string]any{
			"contract_version": c.Version,
			"server_version":   version.String(),
			"tools":            tools,
			"error_codes":      c.ErrorCodes,
		}, fmt.Sprintf("contract %s: %d tools, %d error codes", c.Version, len(tools), len(c.ErrorCodes)),
		nil
}
