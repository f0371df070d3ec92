package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call the client cancels (notifications/cancelled, which the SDK's client sends
// when the call's context ends) stops its export: the handler returns the
// cancellation, not a finished file; no file or temporary file is left under the
// exports; and the image's history is as before. Over darkroom's stdio transport,
// driven by the SDK's own client.
func TestCancelledExportOverStdio(t *testing.T) {
	s := editServer(t)
	photos := t.TempDir()
	if err := os.WriteFile(filepath.Join(photos, "big.jpg"), testPhoto(t, 1200, 800), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Workspace.Allow(photos); err != nil {
		t.Fatal(err)
	}
	returned := handlerOutcome(s, "export_final")
	cs, progressed := stdioSession(t, s)
	call := func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	if res, err := call(context.Background(), "ingest", map[string]any{"path": filepath.Join(photos, "big.jpg"), "image_id": "big"}); err != nil || res.IsError {
		t.Fatalf("ingest: %v %v", err, res)
	}
	if res, err := call(context.Background(), "apply_primitive", map[string]any{"image_id": "big", "primitive_name": "exposure", "value": 0.5}); err != nil || res.IsError {
		t.Fatalf("apply_primitive: %v", err)
	}
	logBefore, err := s.Workspace.History.Log("big", 0)
	if err != nil {
		t.Fatal(err)
	}

	// An upscaled export to 12000 pixels on the long edge: long enough that the
	// cancel, sent at its first progress, lands while it runs.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "export_final", Arguments: map[string]any{"image_id": "big", "size": 12000, "format": "png"}}
		params.SetProgressToken("export")
		_, err := cs.CallTool(ctx, params)
		errc <- err
	}()
	select {
	case <-progressed:
	case <-time.After(hangGuard):
		t.Fatal("no progress from the export")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
	select {
	case err := <-returned:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the export was not stopped by the cancel: it returned %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("the cancelled export never returned")
	}
	filepath.WalkDir(filepath.Join(s.Workspace.Root, "exports"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("the cancelled export left %s", p)
		}
		return nil
	})
	logAfter, err := s.Workspace.History.Log("big", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(logAfter) != len(logBefore) {
		t.Errorf("the history has %d entries after the cancel, %d before", len(logAfter), len(logBefore))
	}
	// The session goes on.
	if res, err := call(context.Background(), "get_state", map[string]any{"image_id": "big"}); err != nil || res.IsError {
		t.Fatalf("get_state after the cancel: %v", err)
	}
}

// handlerOutcome makes the server's handler of tool send what it returns, seen from
// inside the server, on the channel returned.
func handlerOutcome(s *Server, tool string) <-chan error {
	returned := make(chan error, 1)
	h := s.handlers[tool]
	s.handlers[tool] = func(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
		d, sum, err := h(ctx, s, args)
		returned <- err
		return d, sum, err
	}
	return returned
}

// stdioSession connects the SDK's client to s over darkroom's stdio transport; the
// channel receives a value at each progress notification (those past its room are
// dropped).
func stdioSession(t *testing.T, s *Server) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go s.MCP("test").Run(context.Background(), &StdioTransport{In: inR, Out: outW, Server: s, DrainTimeout: hangGuard})
	t.Cleanup(func() { inW.Close(); outR.Close() })
	progressed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "cancel", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, progressed
}

// A preview of a large photo whose proxy is not cached (a server started on an
// existing workspace), cancelled by the client at its first progress (the rows of
// its decode): the handler returns the cancellation rather than a preview; no file
// is left under the previews and nothing is cached; the next preview succeeds.
func TestCancelledPreviewOverStdio(t *testing.T) {
	s := editServer(t)
	// 24 megapixels, as a camera's: its decode reports its rows for a while.
	addImage(t, s, "big", testPhoto(t, 6000, 4000))
	applyEntries(t, s, "big", exposure(0.5))
	returned := handlerOutcome(s, "render_preview")
	cs, progressed := stdioSession(t, s)
	checkCancelledPreview(t, s, cs, progressed, returned)
}

// The same over Streamable HTTP, for a principal with a token: the SDK's client
// sends notifications/cancelled on its own stream of the session.
func TestCancelledPreviewOverHTTP(t *testing.T) {
	type built struct {
		s        *Server
		returned <-chan error
	}
	servers := make(chan built, 1)
	f := newHTTPFixtureWith(t, t.TempDir(), 1, func(srv *Server) {
		servers <- built{srv, handlerOutcome(srv, "render_preview")}
	}, token{name: "alice", grants: editGrants})
	progressed := make(chan struct{}, 16)
	tr := &mcp.StreamableClientTransport{Endpoint: f.url, HTTPClient: &http.Client{Transport: bearer{f.tokens["alice"]}}, DisableStandaloneSSE: true}
	client := mcp.NewClient(&mcp.Implementation{Name: "cancel", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	// The server of alice's workspace is built at her first request.
	b := <-servers
	s, returned := b.s, b.returned
	addImage(t, s, "big", testPhoto(t, 6000, 4000))
	applyEntries(t, s, "big", exposure(0.5))
	checkCancelledPreview(t, s, cs, progressed, returned)
}

func checkCancelledPreview(t *testing.T, s *Server, cs *mcp.ClientSession, progressed <-chan struct{}, returned <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "render_preview", Arguments: map[string]any{"image_id": "big"}}
		params.SetProgressToken("preview")
		_, err := cs.CallTool(ctx, params)
		errc <- err
	}()
	select {
	case <-progressed:
	case <-time.After(hangGuard):
		t.Fatal("no progress from the preview")
	}
	cancel()
	cancelled := time.Now()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
	select {
	case err := <-returned:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the preview was not stopped by the cancel: it returned %v", err)
		}
		t.Logf("the handler returned %v after the cancel", time.Since(cancelled)) // a figure, never asserted
	case <-time.After(hangGuard):
		t.Fatal("the cancelled preview never returned")
	}
	filepath.WalkDir(filepath.Join(s.Workspace.Root, "previews"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("the cancelled preview left %s", p)
		}
		return nil
	})
	if n := s.Workspace.Previews.Entries(); n != 0 {
		t.Errorf("the cancelled preview left %d cache entries", n)
	}
	// The session goes on, and the same preview, not cancelled, is made.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "render_preview", Arguments: map[string]any{"image_id": "big"}})
	if err != nil || res.IsError {
		t.Fatalf("render_preview after the cancel: %v %+v", err, res)
	}
	if err := <-returned; err != nil {
		t.Fatalf("render_preview after the cancel: %v", err)
	}
}
