package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
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

// BenchmarkApplyPrimitive is one apply_primitive from the checked call to the commit
// on an image that already has 0 or 25 entries. A commit checks only its new entry
// and trusts the stored ones, so the two cost the same.
func BenchmarkApplyPrimitive(b *testing.B) {
	for _, n := range []int{0, 25} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := editServer(b)
			id := "harbour"
			addImage(b, s, id, testPhoto(b, 64, 48))
			var names []string
			for _, e := range s.Vocab.Select(vocab.Filter{Layer: "L1"}) {
				if e.Category != "geometry" && e.Name != "exposure" && len(e.Parameters) > 0 {
					names = append(names, e.Name)
				}
			}
			for _, e := range s.Vocab.Select(vocab.Filter{Layer: "L3"}) {
				if len(e.Parameters) > 0 {
					names = append(names, e.Name)
				}
			}
			if len(names) < n {
				b.Fatalf("only %d entries to apply", len(names))
			}
			for _, name := range names[:n] {
				env, _ := s.Invoke(context.Background(), "apply_primitive", json.RawMessage(fmt.Sprintf(`{"image_id": %q, "primitive_name": %q}`, id, name)))
				if !env.Success {
					b.Fatalf("%s: %+v", name, env.Error)
				}
			}
			if sa, _, err := s.StateAfter(id); err != nil || sa.EntryCount != n {
				b.Fatalf("image has %d entries (%v), want %d", sa.EntryCount, err, n)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				raw := json.RawMessage(fmt.Sprintf(`{"image_id": %q, "primitive_name": "exposure", "value": %g}`, id, float64(i%400)/100-2))
				if env, _ := s.Invoke(context.Background(), "apply_primitive", raw); !env.Success {
					b.Fatal(env.Error)
				}
			}
		})
	}
}
