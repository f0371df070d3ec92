package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTPForTest runs `darkroom serve --http 127.0.0.1:0 ARGS` in this process
// until the test ends and returns the address it listens on.
func serveHTTPForTest(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- (&Main{Stdout: io.Discard, Stderr: stderr}).Run(ctx, append([]string{"serve", "--http", "127.0.0.1:0"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve --http exited %d:\n%s", code, stderr.String())
		}
	})
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("serve --http did not say where it listens:\n%s", stderr.String())
	return ""
}

// es256 signs claims as a compact JWS with key under kid.
func es256(t *testing.T, key *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	enc := base64.RawURLEncoding.EncodeToString
	h, _ := json.Marshal(map[string]string{"alg": "ES256", "kid": kid, "typ": "JWT"})
	c, _ := json.Marshal(claims)
	signing := enc(h) + "." + enc(c)
	digest := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + enc(sig)
}

// jwtBearer adds a JWT to every request.
type jwtBearer struct{ token string }

func (b jwtBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serve --http with --jwks, end to end: a JWT signed by the JWKS's key for the
// endpoint, with a scope that covers the tool, is served; one expired, and one
// signed by another key under the same kid, are 401 with WWW-Authenticate naming
// the metadata; one whose scope does not cover the tool connects but the call is
// permission_error naming the grant needed.
func TestHTTPJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := key.PublicKey.Bytes() // 0x04 || x || y
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []any{map[string]string{"kty": "EC", "kid": "k1", "use": "sig", "crv": "P-256", "x": enc(pt[1:33]), "y": enc(pt[33:])}}})
	jwksFile := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwksFile, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	const issuer = "https://id.example"
	addr := serveHTTPForTest(t, "--workspace", filepath.Join(t.TempDir(), "ws"), "--jwks", jwksFile, "--issuer", issuer)
	endpoint := "http://" + addr + "/mcp" // the default audience
	claims := func(scope string, exp time.Time) map[string]any {
		return map[string]any{"iss": issuer, "sub": "alice", "aud": endpoint, "exp": exp.Unix(), "scope": scope}
	}
	later := time.Now().Add(time.Hour)

	connect := func(token string) *mcp.ClientSession {
		t.Helper()
		tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: jwtBearer{token}}, DisableStandaloneSSE: true}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "jwt", Version: "0"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	type envelope struct {
		Success bool
		Error   *struct {
			Code    string
			Details map[string]any
		}
	}
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) envelope {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env envelope
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		return env
	}

	// Allowed: a valid token whose scope grants edit.
	editor := connect(es256(t, key, "k1", claims("edit", later)))
	if env := call(editor, "list_vocabulary", map[string]any{}); !env.Success {
		t.Errorf("list_vocabulary with a valid JWT: %+v", env.Error)
	}
	if env := call(editor, "apply_primitive", map[string]any{"image_id": "nosuch", "primitive_name": "exposure", "value": 0.5}); env.Success || env.Error.Code != "not_found" {
		t.Errorf("apply_primitive with an edit scope reached no handler: %+v", env)
	}

	// Refused at the door: 401 with the metadata named.
	md := "http://" + addr + "/.well-known/oauth-protected-resource/mcp"
	for name, tok := range map[string]string{
		"expired":       es256(t, key, "k1", claims("edit", time.Now().Add(-time.Hour))),
		"another key":   es256(t, other, "k1", claims("edit", later)),
		"another aud":   es256(t, key, "k1", map[string]any{"iss": issuer, "sub": "alice", "aud": "https://elsewhere.example/mcp", "exp": later.Unix(), "scope": "edit"}),
		"another iss":   es256(t, key, "k1", map[string]any{"iss": "https://evil.example", "sub": "alice", "aud": endpoint, "exp": later.Unix(), "scope": "edit"}),
		"not a JWT":     "a.b.c",
		"no such token": "drk_nosuch",
	} {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if wa := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(wa, "Bearer ") || !strings.Contains(wa, `resource_metadata="`+md+`"`) {
			t.Errorf("%s: %d, WWW-Authenticate %q", name, resp.StatusCode, wa)
		}
	}

	// Authenticated, but the scope does not cover the tool.
	reader := connect(es256(t, key, "k1", claims("read", later)))
	if env := call(reader, "list_vocabulary", map[string]any{}); !env.Success {
		t.Errorf("list_vocabulary with a read scope: %+v", env.Error)
	}
	env := call(reader, "apply_primitive", map[string]any{"image_id": "nosuch", "primitive_name": "exposure", "value": 0.5})
	if env.Success || env.Error.Code != "permission_error" || env.Error.Details["needed"] != "edit" {
		t.Errorf("apply_primitive with a read scope: %+v, want permission_error needing edit", env)
	}
}
