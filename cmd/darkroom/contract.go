package main

import (
	"encoding/json"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

const contractUsage = "usage: darkroom contract export [DIR] | darkroom contract diff [--json] [--base REV | --snapshot DIR | OLD] [NEW]"

const contractGroupDoc = `commands:
  export [DIR]   every tool's spec and JSON Schemas as JSON (DIR: a checkout's contract instead of the built-in one)
  diff ...       what a contract change breaks, and whether contract_version says so

Run 'darkroom contract diff -h' for diff's flags.`

func (m *Main) contractCmd(args []string) error {
	if helpArg(args) {
		return m.groupHelp(contractUsage + "\n\n" + contractGroupDoc)
	}
	if len(args) > 0 && args[0] == "diff" {
		return m.contractDiff(args[1:])
	}
	if len(args) == 0 || args[0] != "export" {
		return usagef(contractUsage)
	}
	fs := m.flags("contract export", "contract export [DIR]")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	var c *contract.Contract
	var err error
	switch fs.NArg() {
	case 0:
		// The contract compiled into this binary.
		c, err = m.loadContract()
	case 1:
		// A tree laid out like the repository (cue.mod/ and contracts/): a
		// checkout of a branch under review, or a released snapshot.
		c, err = loadTree("contract export", fs.Arg(0))
	default:
		return usagef("contract export: want at most one DIR, got %d arguments", fs.NArg())
	}
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
