package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/limits"
)

func TestMetadataURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://photos.example/mcp":   "https://photos.example/.well-known/oauth-protected-resource/mcp",
		"https://photos.example/mcp/":  "https://photos.example/.well-known/oauth-protected-resource/mcp",
		"http://127.0.0.1:8080":        "http://127.0.0.1:8080/.well-known/oauth-protected-resource",
		"https://photos.example/a/mcp": "https://photos.example/.well-known/oauth-protected-resource/a/mcp",
	} {
		got, err := MetadataURL(in)
		if err != nil || got != want {
			t.Errorf("MetadataURL(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"/mcp", "https://photos.example/mcp?x=1", "https://photos.example/mcp#f"} {
		if _, err := MetadataURL(bad); err == nil {
			t.Errorf("MetadataURL(%s) passed", bad)
		}
	}
}

// Through the go-sdk's middleware: no token or a wrong one is 401 with the
// WWW-Authenticate an MCP client follows to the metadata; a file token and a JWT both
// reach the handler with their principal.
func TestMiddleware(t *testing.T) {
	p := testPolicy(t)
	s, _ := Load(filepath.Join(t.TempDir(), "tokens.json"), p, nil)
	tok, err := s.Add("alice", []string{"edit"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	k := newTestKeys(t)
	jv := testVerifier(t, k)
	// The middleware checks exp against the wall clock; give the JWT one in the future.
	now := time.Now()
	jv.Now = func() time.Time { return now }
	jwt := k.sign(t, "ES256", "e1", with(goodClaims(), "exp", now.Add(time.Hour).Unix()))

	mw, err := Middleware(Verifier(s, jv), testResource)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	md, mdh := p.Metadata(testResource, []string{testIssuer})
	mux.Handle("/.well-known/oauth-protected-resource/mcp", mdh)
	mux.Handle("/mcp", mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pr, ok := FromTokenInfo(sdkauth.TokenInfoFromContext(r.Context()))
		if !ok {
			http.Error(w, "no principal", 500)
			return
		}
		io.WriteString(w, pr.UserID+" "+strings.Join(pr.Grants, ","))
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	get := func(auth string) (int, string, string) {
		req, _ := http.NewRequest("GET", srv.URL+"/mcp", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), strings.TrimSpace(string(b))
	}
	wantChallenge := `Bearer resource_metadata="https://photos.example/.well-known/oauth-protected-resource/mcp"`
	for _, a := range []string{"", "Bearer", "Basic " + tok, "Bearer " + tok + "x", "Bearer " + jwt[:len(jwt)-4] + "AAAA"} {
		code, challenge, body := get(a)
		if code != http.StatusUnauthorized || challenge != wantChallenge {
			t.Errorf("Authorization %.12q: %d %q, want 401 with %s", a, code, challenge, wantChallenge)
		}
		if strings.Contains(body, tok[8:]) || strings.Contains(body, jwt[40:]) {
			t.Errorf("the 401 body quotes the token: %s", body)
		}
	}
	if code, _, body := get("Bearer " + tok); code != 200 || body != "token:alice edit" {
		t.Errorf("file token: %d %s", code, body)
	}
	if code, _, body := get("Bearer " + jwt); code != 200 || body != "jwt:https://id.example#auth0|6f1a read,edit" {
		t.Errorf("jwt: %d %s", code, body)
	}

	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resource":                 testResource,
		"authorization_servers":    []any{testIssuer},
		"scopes_supported":         []any{"read", "validate", "augment", "edit", "admin"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "darkroom",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if md.Resource != testResource {
		t.Errorf("metadata resource %s", md.Resource)
	}
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Behind the go-sdk's Streamable HTTP handler, a tool handler finds the principal in
// req.Extra.TokenInfo, and the policy refuses a call outside its grants.
func TestStreamableHandlerSeesPrincipal(t *testing.T) {
	p := testPolicy(t)
	s, _ := Load(filepath.Join(t.TempDir(), "tokens.json"), p, nil)
	reader, err := s.Add("reader", []string{"read"}, "team", nil)
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	export, _ := p.c.Tool("export_final")
	server.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		pr, ok := FromTokenInfo(req.Extra.TokenInfo)
		if !ok {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no principal"}}}, nil
		}
		text := pr.Name + "@" + pr.Workspace
		if err := p.Allow(pr, MetaOf(export)); err != nil {
			text += "; " + err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	mw, err := Middleware(Verifier(s, nil), "http://127.0.0.1/mcp")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: bearer{reader, http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if want := "reader@team; export_final needs the edit grant; reader holds read"; got != want {
		t.Errorf("whoami = %q, want %q", got, want)
	}

	// Without the token the same endpoint will not even start a session.
	anon := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil)
	if _, err := anon.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Errorf("connect without a token: %v, want a 401", err)
	}
}

// Each principal's request bodies are bounded by its own max_input_bytes, whether
// the size is announced or not.
func TestLimitInput(t *testing.T) {
	p := testPolicy(t)
	s, _ := Load(filepath.Join(t.TempDir(), "tokens.json"), p, nil)
	small, err := s.Add("small", []string{"read"}, "", &contract.Limits{RequestsPerMinute: 60, Burst: 1, ConcurrentCalls: 1, MaxInputBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	big, err := s.Add("big", []string{"read"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	mw, _ := Middleware(Verifier(s, nil), testResource)
	srv := httptest.NewServer(mw(LimitInput(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		fmt.Fprintf(w, "%d", len(b))
	}))))
	defer srv.Close()
	post := func(token string, body io.Reader) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL, body)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	body := strings.Repeat("x", 2048)
	if code, msg := post(small, strings.NewReader(body)); code != 413 || msg != "a request of 2048 bytes is over small's limit of 1024 bytes" {
		t.Errorf("small, 2 KiB announced: %d %s", code, msg)
	}
	// No Content-Length (a reader of unknown size is sent chunked).
	if code, msg := post(small, io.MultiReader(strings.NewReader(body))); code != 413 || !strings.Contains(msg, "request body too large") {
		t.Errorf("small, 2 KiB chunked: %d %s", code, msg)
	}
	if code, msg := post(small, strings.NewReader(body[:1024])); code != 200 || msg != "1024" {
		t.Errorf("small, exactly 1 KiB: %d %s", code, msg)
	}
	if code, msg := post(big, strings.NewReader(body)); code != 200 || msg != "2048" {
		t.Errorf("big (default limits), 2 KiB: %d %s", code, msg)
	}
}

// The pieces in the order a server runs them, through the go-sdk's Streamable HTTP
// handler: the bearer middleware, then per call the grant policy, the principal's
// rate limit and the tool's time limit. Each refusal reaches the client coded.
func TestServingPipeline(t *testing.T) {
	p := testPolicy(t)
	s, _ := Load(filepath.Join(t.TempDir(), "tokens.json"), p, nil)
	tight := &contract.Limits{RequestsPerMinute: 60, Burst: 2, ConcurrentCalls: 2, MaxInputBytes: 1 << 20}
	reader, _ := s.Add("reader", []string{"read"}, "", tight)
	editor, err := s.Add("editor", []string{"edit"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	limiter := limits.New(func() time.Time { return now })
	// export_final's limit has passed as soon as it starts.
	deadlines := limits.Deadlines{Limits: contract.TimeLimits{Default: time.Hour, Tools: map[string]time.Duration{"export_final": time.Nanosecond}}}

	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	for _, name := range []string{"render_preview", "export_final"} {
		tool, _ := p.c.Tool(name)
		meta := MetaOf(tool)
		server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fail := func(err error) (*mcp.CallToolResult, error) {
				var e *darkroom.Error
				errors.As(err, &e)
				return &mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"code": e.Code, "details": e.Details}, Content: []mcp.Content{&mcp.TextContent{Text: e.Message}}}, nil
			}
			pr, _ := FromTokenInfo(req.Extra.TokenInfo)
			if err := p.Allow(pr, meta); err != nil {
				return fail(err)
			}
			release, err := limiter.Acquire(pr.UserID, pr.Limits)
			if err != nil {
				return fail(err)
			}
			defer release()
			ctx, cancel := deadlines.Start(ctx, meta.Name, meta.Group)
			defer cancel()
			var werr error
			if meta.Name == "export_final" {
				<-ctx.Done() // an export that would outlive its limit
				werr = darkroom.Wrap(darkroom.RenderError, ctx.Err(), "export harbour")
			}
			if err := limits.Result(ctx, werr, map[string]any{"rows_encoded": 0}); err != nil {
				return fail(err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	mw, _ := Middleware(Verifier(s, nil), testResource)
	srv := httptest.NewServer(mw(LimitInput(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))))
	t.Cleanup(srv.Close) // after the sessions' cleanups: Close waits for their streams

	connect := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, tool string) (string, map[string]any) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			return "ok", nil
		}
		sc := res.StructuredContent.(map[string]any)
		d, _ := sc["details"].(map[string]any)
		return sc["code"].(string), d
	}
	rc := connect(reader)
	for i := range 2 {
		if code, _ := call(rc, "render_preview"); code != "ok" {
			t.Fatalf("reader's preview %d: %s", i, code)
		}
	}
	if code, d := call(rc, "render_preview"); code != darkroom.LimitExceeded || d["retry_after_ms"] != float64(1000) {
		t.Errorf("reader's 3rd preview in a burst of 2: %s %v, want limit_exceeded with retry_after_ms 1000", code, d)
	}
	now = now.Add(time.Second)
	if code, _ := call(rc, "render_preview"); code != "ok" {
		t.Errorf("reader's preview after retry_after_ms: %s", code)
	}
	if code, d := call(rc, "export_final"); code != darkroom.PermissionError || d["needed"] != "edit" {
		t.Errorf("reader's export: %s %v, want permission_error needing edit", code, d)
	}
	ec := connect(editor)
	code, d := call(ec, "export_final")
	if code != darkroom.Timeout || d["tool"] != "export_final" || d["done"] == nil {
		t.Errorf("editor's export past its limit: %s %v, want timeout with what was done", code, d)
	}
}
