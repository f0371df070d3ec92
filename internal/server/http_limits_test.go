package server

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// newLocalHTTP serves the root workspace without authentication, as serve --http
// on loopback does; configure (when set) adjusts the options first.
func newLocalHTTP(t *testing.T, configure func(*HTTPOptions)) string {
	t.Helper()
	c, v := packtest.Builtin(t)
	sessions, err := c.SessionLimits()
	if err != nil {
		t.Fatal(err)
	}
	defaults, err := c.LimitDefaults()
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	root := t.TempDir()
	o := HTTPOptions{
		Resource: ts.URL + "/mcp", Sessions: sessions, MaxInputBytes: defaults.MaxInputBytes, Version: "test",
		Server: func(string) (*Server, error) {
			ws, err := workspace.Open(root, nil)
			if err != nil {
				return nil, err
			}
			s, err := New(c, v, nil)
			if err != nil {
				return nil, err
			}
			s.Workspace = ws
			return s, nil
		},
	}
	if configure != nil {
		configure(&o)
	}
	if h, err = NewHTTPHandler(o); err != nil {
		t.Fatal(err)
	}
	return o.Resource
}

// initializeBody is an initialize request padded with pad bytes of _meta.
func initializeBody(pad int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
		`"clientInfo":{"name":"raw","version":"0"},"_meta":{"pad":"` + strings.Repeat("x", pad) + `"}}}`
}

// post sends one raw JSON-RPC request and returns the status, the session id and
// the body.
func post(t *testing.T, endpoint, body string, header map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// The documented request size is the enforced one: without authentication a body
// of 5 MiB (an inline photo of about 3.7 MB) is served, where the SDK's own 4 MiB
// default refused it with 413; one over the contract's max_input_bytes is 413
// naming it. A token's own max_input_bytes above 4 MiB holds too.
func TestHTTPBodyLimitIsTheContracts(t *testing.T) {
	c, _ := packtest.Builtin(t)
	defaults, _ := c.LimitDefaults()
	local := newLocalHTTP(t, nil)
	if code, _, body := post(t, local, initializeBody(5<<20), nil); code != 200 || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("5 MiB without authentication: %d %.200s", code, body)
	}
	code, _, body := post(t, local, initializeBody(int(defaults.MaxInputBytes)), nil)
	if want := fmt.Sprintf("limit of %d bytes", defaults.MaxInputBytes); code != 413 || !strings.Contains(body, want) {
		t.Errorf("over max_input_bytes: %d %.200s, want 413 naming %q", code, body, want)
	}

	lim := &contract.Limits{RequestsPerMinute: 600, Burst: 100, ConcurrentCalls: 2, MaxInputBytes: 8 << 20}
	f := newHTTPFixture(t, t.TempDir(), 1, token{name: "big", grants: editGrants, limits: lim})
	auth := map[string]string{"Authorization": "Bearer " + f.tokens["big"]}
	if code, _, body := post(t, f.url, initializeBody(6<<20), auth); code != 200 {
		t.Errorf("6 MiB under a token allowing 8: %d %.200s", code, body)
	}
	if code, _, body := post(t, f.url, initializeBody(9<<20), auth); code != 413 || !strings.Contains(body, "big's limit of 8388608 bytes") {
		t.Errorf("9 MiB under a token allowing 8: %d %.200s", code, body)
	}
}

// A body that trickles in is cut off at the body timeout with 408, instead of
// holding its connection and goroutine for ever.
func TestHTTPBodyTimeout(t *testing.T) {
	endpoint := newLocalHTTP(t, func(o *HTTPOptions) { o.BodyTimeout = 300 * time.Millisecond })
	u, _ := url.Parse(endpoint)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", u.Host)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %s", d)
	}
}

// A page of another site cannot reach the endpoint: a foreign Origin is 403, the
// endpoint's own and an allowed one pass, and a request without Origin (not from a
// browser) passes.
func TestHTTPOrigin(t *testing.T) {
	endpoint := newLocalHTTP(t, func(o *HTTPOptions) { o.AllowedOrigins = []string{"http://app.example:3000"} })
	u, _ := url.Parse(endpoint)
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", 200},
		{"http://" + u.Host, 200},
		{"HTTP://" + strings.ToUpper(u.Host), 200},
		{"http://app.example:3000", 200},
		{"http://evil.example", 403},
		{"http://app.example:3001", 403},
		{"https://" + u.Host, 403},
		{"null", 403},
	} {
		h := map[string]string{}
		if tc.origin != "" {
			h["Origin"] = tc.origin
		}
		if code, _, body := post(t, endpoint, initializeBody(0), h); code != tc.want {
			t.Errorf("Origin %q: %d %.200s, want %d", tc.origin, code, body, tc.want)
		}
	}
	if _, err := CanonicalOrigin("http://app.example/path"); err == nil {
		t.Error("an origin with a path was accepted")
	}
}

// One principal cannot open sessions without end: past sessions.per_principal an
// initialize is limit_exceeded, another principal is not held back, and a session
// ended with DELETE frees its place.
func TestHTTPSessionsPerPrincipal(t *testing.T) {
	c, _ := packtest.Builtin(t)
	sl, _ := c.SessionLimits()
	lim := &contract.Limits{RequestsPerMinute: 60000, Burst: 1000, ConcurrentCalls: 4, MaxInputBytes: 1 << 20}
	f := newHTTPFixture(t, t.TempDir(), 1, token{name: "alice", grants: editGrants, limits: lim}, token{name: "bob", grants: editGrants, limits: lim})
	alice := map[string]string{"Authorization": "Bearer " + f.tokens["alice"]}
	var ids []string
	for i := range sl.PerPrincipal {
		code, id, body := post(t, f.url, initializeBody(0), alice)
		if code != 200 || id == "" || !strings.Contains(body, "serverInfo") {
			t.Fatalf("session %d: %d %q %.200s", i, code, id, body)
		}
		ids = append(ids, id)
	}
	_, _, body := post(t, f.url, initializeBody(0), alice)
	if !strings.Contains(body, "limit_exceeded") || !strings.Contains(body, fmt.Sprintf("already holds %d sessions", sl.PerPrincipal)) {
		t.Fatalf("session %d: %.300s, want limit_exceeded", sl.PerPrincipal+1, body)
	}
	if code, _, body := post(t, f.url, initializeBody(0), map[string]string{"Authorization": "Bearer " + f.tokens["bob"]}); code != 200 || !strings.Contains(body, "serverInfo") {
		t.Errorf("bob is held back by alice's sessions: %d %.200s", code, body)
	}
	req, _ := http.NewRequest("DELETE", f.url, nil)
	req.Header.Set("Authorization", alice["Authorization"])
	req.Header.Set("Mcp-Session-Id", ids[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, body := post(t, f.url, initializeBody(0), alice)
		if strings.Contains(body, "serverInfo") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a deleted session's place was not freed: %.300s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// resources/read, prompts, completion and ping pass the policy of the tool they
// mirror: a validate-only principal reads neither an image's state (get_state) nor
// its preview (render_preview); and a principal allowed one call at a time, with
// one running, is refused six parallel reads of an export at once (each would hold
// the whole file) and a ping, and reads the export once its call ends.
func TestHTTPMethodsPassThePolicy(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var held atomic.Bool
	var once sync.Once
	free := func() { once.Do(func() { held.Store(false); close(release) }) }
	hold := func(s *Server) {
		h := s.handlers["list_vocabulary"]
		s.handlers["list_vocabulary"] = func(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
			if held.Load() {
				entered <- struct{}{}
				<-release
			}
			return h(ctx, s, args)
		}
	}
	root := t.TempDir()
	one := &contract.Limits{RequestsPerMinute: 6000, Burst: 100, ConcurrentCalls: 1, MaxInputBytes: 1 << 20}
	f := newHTTPFixtureWith(t, root, 1, hold,
		token{name: "editor", grants: editGrants, workspace: "team", limits: one},
		token{name: "checker", grants: []string{"validate"}, workspace: "team"})
	editor, checker := f.connect(t, "editor"), f.connect(t, "checker")
	t.Cleanup(free)
	b64 := base64.StdEncoding.EncodeToString(testPhoto(t, 96, 64))
	mustSucceed(t, editor, "ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
	mustSucceed(t, editor, "render_preview", map[string]any{"image_id": "harbour", "size": 64})
	ctx := context.Background()
	for _, tc := range []struct{ uri, needs string }{
		{imagesURI + "harbour/state", "get_state"},
		{imagesURI + "harbour/preview", "render_preview"},
	} {
		if _, err := editor.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri}); err != nil {
			t.Errorf("editor reads %s: %v", tc.uri, err)
		}
		_, err := checker.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if err == nil || !strings.Contains(err.Error(), "permission_error") || !strings.Contains(err.Error(), tc.needs) {
			t.Errorf("validate-only reads %s: %v, want permission_error as %s", tc.uri, err, tc.needs)
		}
	}
	if _, err := checker.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "edit_to_brief"},
		Argument: mcp.CompleteParamsArgument{Name: "image_id", Value: "h"}}); err == nil || !strings.Contains(err.Error(), "permission_error") {
		t.Errorf("validate-only completes image ids: %v", err)
	}

	// An export of 8 MiB, as export_final would leave it.
	dir := filepath.Join(root, "workspaces", "team", "exports", "harbour")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 8<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(dir, "harbour-big.tiff"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	exportURI := workspaceURI + "exports/harbour/harbour-big.tiff"

	held.Store(true)
	done := make(chan error, 1)
	go func() {
		_, err := editor.CallTool(ctx, &mcp.CallToolParams{Name: "list_vocabulary", Arguments: map[string]any{}})
		done <- err
	}()
	<-entered
	var wg sync.WaitGroup
	var refused atomic.Int32
	for range 6 {
		wg.Go(func() {
			_, err := editor.ReadResource(ctx, &mcp.ReadResourceParams{URI: exportURI})
			if err != nil && strings.Contains(err.Error(), "limit_exceeded") && strings.Contains(err.Error(), "1 calls running") {
				refused.Add(1)
			} else {
				t.Errorf("a read beside a running call: %v", err)
			}
		})
	}
	wg.Wait()
	if err := editor.Ping(ctx, nil); err == nil || !strings.Contains(err.Error(), "limit_exceeded") {
		t.Errorf("ping beside a running call: %v", err)
	}
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if refused.Load() != 6 {
		t.Errorf("%d of 6 reads refused", refused.Load())
	}
	res, err := editor.ReadResource(ctx, &mcp.ReadResourceParams{URI: exportURI})
	if err != nil || len(res.Contents) != 1 || len(res.Contents[0].Blob) != len(big) {
		t.Errorf("the export once the call ended: %v", err)
	}
	if _, err := checker.ReadResource(ctx, &mcp.ReadResourceParams{URI: exportURI}); err == nil || !strings.Contains(err.Error(), "export_final") {
		t.Errorf("validate-only reads an export: %v", err)
	}
}
