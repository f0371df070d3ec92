package main

import (
	"encoding/json"

	"darkroom/internal/contract"
)

func (m *Main) contractCmd(args []string) error {
	if len(args) > 0 && args[0] == "diff" {
		return m.contractDiff(args[1:])
	}
	if len(args) == 0 || args[0] != "export" {
		return usagef("usage: darkroom contract export | darkroom contract diff [--json] [--base REV | --snapshot DIR | OLD] [NEW]")
	}
	fs := m.flags("contract export", "contract export")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(m.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(Export(c))
}

// ExportedTool is one tool as `darkroom contract export` prints it.
type ExportedTool struct {
	Name         string                `json:"name"`
	Title        string                `json:"title"`
	Description  string                `json:"description"`
	Group        string                `json:"group"`
	Since        string                `json:"since"`
	Annotations  contract.Annotations  `json:"annotations"`
	Deprecated   *contract.Deprecation `json:"deprecated"`
	Errors       []string              `json:"errors"`
	InputSchema  json.RawMessage       `json:"inputSchema"`
	OutputSchema json.RawMessage       `json:"outputSchema"`
}

// Export is the whole tool surface as JSON: what `contract export` prints.
func Export(c *contract.Contract) map[string]any {
	tools := make([]ExportedTool, len(c.Tools))
	for i, t := range c.Tools {
		tools[i] = ExportedTool{t.Name, t.Title, t.Description, t.Group, t.Since, t.Annotations, t.Deprecated, t.Errors, t.InputSchemaJSON, t.OutputSchemaJSON}
	}
	return map[string]any{
		"contract_version": c.Version,
		"tools":            tools,
		"error_codes":      c.ErrorCodes,
	}
}
