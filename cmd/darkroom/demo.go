package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// demo starts the real server in-process, connects the SDK's MCP client to it over
// an in-memory transport and shows what an agent sees: the tools, the contract and
// the vocabulary.
func (m *Main) demo(ctx context.Context, args []string) error {
	fs := m.flags("demo", "demo")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := m.newServer(nil)
	if err != nil {
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP(s.Contract.Version).Connect(ctx, st, nil)
	if err != nil {
		return fmt.Errorf("demo: start server: %w", err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "darkroom-demo", Version: s.Contract.Version}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return fmt.Errorf("demo: connect client: %w", err)
	}
	defer cs.Close()

	init := cs.InitializeResult()
	fmt.Fprintf(m.Stdout, "Connected to %s %s over MCP (protocol %s).\n\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: tools/list: %w", err)
	}
	fmt.Fprintf(m.Stdout, "Tools (%d):\n", len(tools.Tools))
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	for _, t := range tools.Tools {
		fmt.Fprintf(tw, "  %s\t%s\n", t.Name, t.Title)
	}
	tw.Flush()

	var contract struct {
		Version    string `json:"contract_version"`
		ErrorCodes []struct {
			Code string `json:"code"`
		} `json:"error_codes"`
	}
	if err := callData(ctx, cs, "get_contract", nil, &contract); err != nil {
		return err
	}
	codes := make([]string, len(contract.ErrorCodes))
	for i, c := range contract.ErrorCodes {
		codes[i] = c.Code
	}
	fmt.Fprintf(m.Stdout, "\nContract %s; error codes: %s.\n", contract.Version, strings.Join(codes, ", "))

	var vocab struct {
		Count   int `json:"count"`
		Entries []struct {
			Name       string   `json:"name"`
			Layer      string   `json:"layer"`
			Category   string   `json:"category"`
			ValueShape string   `json:"value_shape"`
			Operations []string `json:"operations"`
		} `json:"entries"`
	}
	if err := callData(ctx, cs, "list_vocabulary", nil, &vocab); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "\nVocabulary (%d entries):\n", vocab.Count)
	tw = tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tLAYER\tCATEGORY\tVALUE\tOPERATIONS")
	for _, e := range vocab.Entries {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", e.Name, e.Layer, e.Category, e.ValueShape, strings.Join(e.Operations, ","))
	}
	tw.Flush()

	var masks struct {
		Masks []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"masks"`
	}
	if err := callData(ctx, cs, "list_masks_vocabulary", nil, &masks); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "\nNamed masks (%d):\n", len(masks.Masks))
	tw = tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	for _, mk := range masks.Masks {
		fmt.Fprintf(tw, "  %s\t%s\n", mk.Name, mk.Description)
	}
	tw.Flush()

	// An invalid call, to show the error envelope an agent gets back.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_vocabulary", Arguments: map[string]any{"layer": "L9"}})
	if err != nil {
		return fmt.Errorf("demo: tools/call: %w", err)
	}
	fmt.Fprintf(m.Stdout, "\nAn invalid call, list_vocabulary {\"layer\": \"L9\"}, answers isError=%v:\n  %s\n",
		res.IsError, res.Content[0].(*mcp.TextContent).Text)
	return m.demoRender(ctx)
}

// callData calls a tool and decodes the data of its result envelope.
func callData(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) error {
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("demo: %s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("demo: %s: %s", name, res.Content[0].(*mcp.TextContent).Text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}
