package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// httpFixture is a Streamable HTTP server with file tokens, its principals working
// under root/workspaces/<name>, as serve --http builds it.
type httpFixture struct {
	url    string
	root   string
	tokens map[string]string // name → bearer token
}

// token is one token the fixture adds: its grants, its workspace and limits.
type token struct {
	name, workspace string
	grants          []string
	limits          *contract.Limits
}

func newHTTPFixture(t *testing.T, root string, scale float64, toks ...token) *httpFixture {
	t.Helper()
	return newHTTPFixtureWith(t, root, scale, nil, toks...)
}

// newHTTPFixtureWith is newHTTPFixture, calling configure (when set) on each
// workspace's server as it is built.
func newHTTPFixtureWith(t *testing.T, root string, scale float64, configure func(*Server), toks ...token) *httpFixture {
	t.Helper()
	c, v := packtest.Builtin(t)
	p, err := NewPolicy(c, scale)
	if err != nil {
		t.Fatal(err)
	}
	store, err := auth.Load(filepath.Join(t.TempDir(), "tokens.json"), p.Auth, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &httpFixture{root: root, tokens: map[string]string{}}
	for _, tk := range toks {
		if f.tokens[tk.name], err = store.Add(tk.name, tk.grants, tk.workspace, tk.limits); err != nil {
			t.Fatal(err)
		}
	}
	var h http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/mcp"
	sessions, err := c.SessionLimits()
	if err != nil {
		t.Fatal(err)
	}
	h, err = NewHTTPHandler(HTTPOptions{
		Resource: f.url,
		Sessions: sessions,
		Verifier: auth.Verifier(store, nil),
		Policy:   p,
		Version:  "test",
		Server: func(name string) (*Server, error) {
			ws, err := workspace.Open(filepath.Join(root, "workspaces", name), nil)
			if err != nil {
				return nil, err
			}
			s, err := New(c, v, nil, WithPolicy(p))
			if err != nil {
				return nil, err
			}
			s.Workspace = ws
			if configure != nil {
				configure(s)
			}
			return s, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a session of the SDK's client as the named principal.
func (f *httpFixture) connect(t *testing.T, name string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: f.url, HTTPClient: &http.Client{Transport: bearer{f.tokens[name]}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callEnv calls a tool and returns its envelope.
func callEnv(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (Envelope, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return env, res
}

func mustSucceed(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	env, res := callEnv(t, cs, name, args)
	if !env.Success {
		t.Fatalf("%s: %s: %s", name, env.Error.Code, env.Error.Message)
	}
	data, _ := env.Data.(map[string]any)
	return data, res
}

func wantCode(t *testing.T, env Envelope, code string) {
	t.Helper()
	if env.Success || env.Error.Code != code {
		b, _ := json.Marshal(env)
		t.Fatalf("got %s, want %s", b, code)
	}
}

// previewLink is the resource link of a render_preview result.
func previewLink(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			return l.URI
		}
	}
	t.Fatal("render_preview linked no file")
	return ""
}

var editGrants = []string{"edit"}

// An editing session over Streamable HTTP with a token, through the SDK's client:
// ingest, apply_primitive, render_preview, and the preview read back as a resource.
// The files land in the principal's own workspace.
func TestHTTPEditingSession(t *testing.T) {
	root := t.TempDir()
	f := newHTTPFixture(t, root, 1, token{name: "alice", grants: editGrants})
	cs := f.connect(t, "alice")
	b64 := base64.StdEncoding.EncodeToString(testPhoto(t, 96, 64))
	data, _ := mustSucceed(t, cs, "ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
	if data["image_id"] != "harbour" {
		t.Fatalf("ingest: %v", data)
	}
	mustSucceed(t, cs, "apply_primitive", map[string]any{"image_id": "harbour", "primitive_name": "exposure", "value": 0.5})
	_, res := mustSucceed(t, cs, "render_preview", map[string]any{"image_id": "harbour"})
	uri := previewLink(t, res)
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || len(rr.Contents[0].Blob) == 0 {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.Resources {
		names = append(names, r.URI)
	}
	if strings.Join(names, " ") != "darkroom://images/harbour/preview darkroom://images/harbour/state" {
		t.Errorf("resources/list after ingest: %v", names)
	}
	st, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "darkroom://images/harbour/state"})
	if err != nil || !strings.Contains(st.Contents[0].Text, `"exposure"`) {
		t.Errorf("the state resource: %v %v", st, err)
	}
	pv, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "darkroom://images/harbour/preview"})
	if err != nil || !bytes.Equal(pv.Contents[0].Blob, rr.Contents[0].Blob) {
		t.Errorf("the preview resource is not the preview just rendered: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "workspaces", "alice", "sources")); err != nil {
		t.Errorf("alice's photo is not in her workspace: %v", err)
	}
}

// No principal reads another's images, previews or context: bob, in his own
// workspace, asks for alice's image by its id and her preview by its URI.
func TestHTTPPrincipalsAreIsolated(t *testing.T) {
	root := t.TempDir()
	f := newHTTPFixture(t, root, 1, token{name: "alice", grants: editGrants}, token{name: "bob", grants: []string{"edit", "read"}})
	alice, bob := f.connect(t, "alice"), f.connect(t, "bob")
	b64 := base64.StdEncoding.EncodeToString(testPhoto(t, 96, 64))
	mustSucceed(t, alice, "ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
	_, res := mustSucceed(t, alice, "render_preview", map[string]any{"image_id": "harbour"})
	uri := previewLink(t, res)
	mustSucceed(t, alice, "propose_notes_update", map[string]any{"image_id": "harbour", "content": "alice's secret note"})

	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"get_state", map[string]any{"image_id": "harbour"}},
		{"render_preview", map[string]any{"image_id": "harbour"}},
		{"export_final", map[string]any{"image_id": "harbour"}},
		{"log", map[string]any{"image_id": "harbour"}},
		{"read_context", map[string]any{"image_id": "harbour"}},
	} {
		env, _ := callEnv(t, bob, call.tool, call.args)
		if env.Success {
			b, _ := json.Marshal(env.Data)
			if strings.Contains(string(b), "secret") {
				t.Errorf("bob's %s read alice's context: %s", call.tool, b)
			}
			if call.tool != "read_context" {
				t.Errorf("bob's %s of alice's image succeeded: %s", call.tool, b)
			}
			continue
		}
		if c := env.Error.Code; c != darkroom.NotFound && c != darkroom.PermissionError {
			t.Errorf("bob's %s: %s, want not_found or permission_error", call.tool, c)
		}
	}
	for _, u := range []string{uri, "darkroom://images/harbour/state", "darkroom://images/harbour/preview"} {
		if _, err := bob.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: u}); err == nil {
			t.Errorf("bob read alice's %s", u)
		}
		if _, err := alice.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: u}); err != nil {
			t.Errorf("alice cannot read her own %s: %v", u, err)
		}
	}
	if list, err := bob.ListResources(context.Background(), nil); err != nil || len(list.Resources) != 0 {
		t.Errorf("bob's resources/list: %v %v", list, err)
	}
	// Bob's image of the same id is his own: ingesting it is no versioning_error.
	mustSucceed(t, bob, "ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
}

// A request without a valid token is 401 with WWW-Authenticate naming the
// metadata, which is served and names the grants as scopes.
func TestHTTPUnauthorized(t *testing.T) {
	f := newHTTPFixture(t, t.TempDir(), 1, token{name: "alice", grants: editGrants})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`
	for _, tok := range []string{"", "drk_not-a-token"} {
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		md := strings.Replace(f.url, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)
		if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+md+`"`) {
			t.Errorf("token %q: %d %q", tok, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		mr, err := http.Get(md)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Resource string   `json:"resource"`
			Scopes   []string `json:"scopes_supported"`
		}
		json.NewDecoder(mr.Body).Decode(&doc)
		mr.Body.Close()
		if doc.Resource != f.url || len(doc.Scopes) == 0 {
			t.Errorf("metadata: %+v", doc)
		}
	}
}

// A call outside the principal's grants is permission_error naming the grant.
func TestHTTPPermission(t *testing.T) {
	f := newHTTPFixture(t, t.TempDir(), 1, token{name: "viewer", grants: []string{"read"}})
	cs := f.connect(t, "viewer")
	mustSucceed(t, cs, "list_vocabulary", map[string]any{})
	env, _ := callEnv(t, cs, "apply_primitive", map[string]any{"image_id": "x", "primitive_name": "exposure", "value": 0.5})
	wantCode(t, env, darkroom.PermissionError)
	if env.Error.Details["needed"] != "edit" || env.Error.Recoverable {
		t.Errorf("details %v recoverable %v, want needed edit, not recoverable", env.Error.Details, env.Error.Recoverable)
	}
}

// A principal over its rate is limit_exceeded, recoverable, with retry_after_ms;
// another principal is not held back by it. Opening a session counts too (the SDK's
// client sends server/discover and initialize): a burst of three is the session and
// one call.
func TestHTTPRateLimit(t *testing.T) {
	lim := &contract.Limits{RequestsPerMinute: 1, Burst: 3, ConcurrentCalls: 1, MaxInputBytes: 1 << 20}
	f := newHTTPFixture(t, t.TempDir(), 1, token{name: "slow", grants: editGrants, limits: lim}, token{name: "other", grants: editGrants})
	cs := f.connect(t, "slow")
	mustSucceed(t, cs, "list_vocabulary", map[string]any{})
	env, _ := callEnv(t, cs, "list_vocabulary", map[string]any{})
	wantCode(t, env, darkroom.LimitExceeded)
	if ms, _ := env.Error.Details["retry_after_ms"].(float64); ms <= 0 || !env.Error.Recoverable {
		t.Errorf("details %v recoverable %v, want retry_after_ms > 0, recoverable", env.Error.Details, env.Error.Recoverable)
	}
	mustSucceed(t, f.connect(t, "other"), "list_vocabulary", map[string]any{})
}

// A call past its tool's time limit is timeout, recoverable, with the limit in
// details; the export leaves no file.
func TestHTTPTimeLimit(t *testing.T) {
	root := t.TempDir()
	b64 := base64.StdEncoding.EncodeToString(testPhoto(t, 96, 64))
	mustSucceed(t, newHTTPFixture(t, root, 1, token{name: "alice", grants: editGrants}).connect(t, "alice"),
		"ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
	// The same workspace, every time limit a nanosecond.
	f := newHTTPFixture(t, root, 1e-12, token{name: "alice", grants: editGrants})
	env, _ := callEnv(t, f.connect(t, "alice"), "export_final", map[string]any{"image_id": "harbour"})
	wantCode(t, env, darkroom.Timeout)
	if _, ok := env.Error.Details["limit_ms"]; !ok || !env.Error.Recoverable {
		t.Errorf("details %v recoverable %v", env.Error.Details, env.Error.Recoverable)
	}
	filepath.WalkDir(filepath.Join(root, "workspaces", "alice", "exports"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("the stopped export left %s", p)
		}
		return nil
	})
}

// A principal over its concurrent calls, over HTTP: with two of alice's calls held
// running, her third and fourth are limit_exceeded, recoverable, naming the limit
// with retry_after_ms; the two held calls then complete, and once they have, her
// next call passes. Bob, with limits of his own, is not held back meanwhile.
func TestHTTPConcurrentCalls(t *testing.T) {
	lim := &contract.Limits{RequestsPerMinute: 6000, Burst: 100, ConcurrentCalls: 2, MaxInputBytes: 1 << 20}
	entered, release := make(chan struct{}, 8), make(chan struct{})
	var held atomic.Bool
	held.Store(true)
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
	f := newHTTPFixtureWith(t, t.TempDir(), 1, hold,
		token{name: "alice", grants: editGrants, limits: lim}, token{name: "bob", grants: editGrants, limits: lim})
	alice, bob := f.connect(t, "alice"), f.connect(t, "bob")
	t.Cleanup(free) // first: a failing test must not leave handlers held as the server closes

	slow := make(chan Envelope, 2)
	for range 2 {
		go func() {
			res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_vocabulary", Arguments: map[string]any{}})
			if err != nil {
				t.Error(err)
				slow <- Envelope{}
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			var env Envelope
			json.Unmarshal(b, &env)
			slow <- env
		}()
	}
	<-entered
	<-entered // both run, and stay running until released
	for range 2 {
		env, _ := callEnv(t, alice, "get_contract", map[string]any{})
		wantCode(t, env, darkroom.LimitExceeded)
		ms, _ := env.Error.Details["retry_after_ms"].(float64)
		if ms <= 0 || !env.Error.Recoverable || env.Error.Details["limit"] != "concurrent_calls" {
			t.Errorf("details %v recoverable %v, want concurrent_calls, retry_after_ms > 0, recoverable", env.Error.Details, env.Error.Recoverable)
		}
	}
	mustSucceed(t, bob, "get_contract", map[string]any{})
	free()
	for range 2 {
		if env := <-slow; !env.Success {
			t.Errorf("a held call did not complete: %+v", env.Error)
		}
	}
	mustSucceed(t, alice, "get_contract", map[string]any{})
}

// Previews are cached per workspace, so per principal: bob's server starts with an
// empty cache while alice's holds her photo, and bob's preview of the same photo
// under the same id is rendered from his own state (no edit), not served from
// alice's cache (her exposure); nothing he is told names her preview.
func TestHTTPPreviewCachesArePerPrincipal(t *testing.T) {
	var (
		mu      sync.Mutex
		servers = map[string]*Server{}
	)
	record := func(s *Server) {
		mu.Lock()
		defer mu.Unlock()
		servers[filepath.Base(s.Workspace.Root)] = s
	}
	f := newHTTPFixtureWith(t, t.TempDir(), 1, record, token{name: "alice", grants: editGrants}, token{name: "bob", grants: editGrants})
	b64 := base64.StdEncoding.EncodeToString(testPhoto(t, 320, 200))
	alice := f.connect(t, "alice")
	mustSucceed(t, alice, "ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
	mustSucceed(t, alice, "apply_primitive", map[string]any{"image_id": "harbour", "primitive_name": "exposure", "value": 1.5})
	_, ra := mustSucceed(t, alice, "render_preview", map[string]any{"image_id": "harbour", "size": 128})

	bob := f.connect(t, "bob")
	mu.Lock()
	as, bs := servers["alice"], servers["bob"]
	mu.Unlock()
	if as == nil || bs == nil || as.Workspace.Previews == bs.Workspace.Previews {
		t.Fatalf("alice and bob share a preview cache (or a server): %p %p", as, bs)
	}
	if as.Workspace.Previews.Entries() == 0 || bs.Workspace.Previews.Entries() != 0 {
		t.Fatalf("cache entries: alice %d, bob %d before his first call", as.Workspace.Previews.Entries(), bs.Workspace.Previews.Entries())
	}
	mustSucceed(t, bob, "ingest", map[string]any{"image_b64": b64, "image_id": "harbour"})
	d, rb := mustSucceed(t, bob, "render_preview", map[string]any{"image_id": "harbour", "size": 128})
	pa, pb := inlineJPEG(t, ra), inlineJPEG(t, rb)
	if bytes.Equal(pa, pb) {
		t.Error("bob's preview of his unedited photo is alice's edited one")
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), "alice") {
		t.Errorf("bob's preview names alice's: %s", b)
	}
}

// inlineJPEG is the picture a render result carries.
func inlineJPEG(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok {
			return img.Data
		}
	}
	t.Fatal("the result carries no picture")
	return nil
}
