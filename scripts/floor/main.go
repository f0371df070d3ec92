// Command floor is the start-up floor darkroom is measured against: a go-sdk MCP
// server with one tool and nothing to load, over stdio. scripts/bench-startup.sh
// builds it and times it beside darkroom serve.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type echoResult struct {
	Text string `json:"text"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(ctx context.Context, req *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, echoResult, error) {
			return nil, echoResult{Text: args.Text}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
