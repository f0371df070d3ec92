package server

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(b *testing.B, srv *mcp.Server) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkToolCall is one list_vocabulary call through the SDK client and server:
// the CUE validation, the handler and the envelope, over an in-memory transport.
func BenchmarkToolCall(b *testing.B) {
	s := testServer(b)
	cs := connect(b, s.MCP("bench"))
	ctx := context.Background()
	args := map[string]any{"layer": "L3", "tags": []string{"color"}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_vocabulary", Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkTypedSDKToolCall is the anchor: the same tool registered through the SDK's
// typed path (schema inferred from a Go struct, validated by the SDK's JSON Schema
// validator), with the same handler and data.
func BenchmarkTypedSDKToolCall(b *testing.B) {
	s := testServer(b)
	srv := mcp.NewServer(&mcp.Implementation{Name: "anchor", Version: "0"}, nil)
	type in struct {
		Layer    string   `json:"layer,omitempty"`
		Tags     []string `json:"tags,omitempty"`
		Category string   `json:"category,omitempty"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "list_vocabulary"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		args := map[string]any{"layer": a.Layer, "category": a.Category}
		tags := make([]any, len(a.Tags))
		for i, t := range a.Tags {
			tags[i] = t
		}
		args["tags"] = tags
		data, summary, err := listVocabulary(ctx, s, args)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}}}, Envelope{Success: true, Data: data}, nil
	})
	cs := connect(b, srv)
	ctx := context.Background()
	args := map[string]any{"layer": "L3", "tags": []string{"color"}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_vocabulary", Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
