package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// TestTypeScriptClientHTTP runs an editing session through the TypeScript SDK's own
// client over Streamable HTTP (testdata/outside/http_session.mjs): refused without
// a token, then ingest, apply_primitive, render_preview and get_state with one, and
// a destructive tool refused as permission_error for an edit grant.
func TestTypeScriptClientHTTP(t *testing.T) {
	node, dir := outsideNode(t)
	photos := t.TempDir()
	photo := filepath.Join(photos, "coffee.png")
	if err := os.WriteFile(photo, darkroom.SamplePhoto, 0o644); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	var tok bytes.Buffer
	if code := (&Main{Stdout: &tok, Stderr: io.Discard}).Run(context.Background(), []string{"token", "add", "alice", "--grants", "edit", "--tokens", tokens}); code != 0 {
		t.Fatalf("token add exited %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- (&Main{Stdout: io.Discard, Stderr: stderr}).Run(ctx, []string{"serve", "--http", "127.0.0.1:0",
			"--workspace", filepath.Join(t.TempDir(), "ws"), "--tokens", tokens, "--allow-root", photos})
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve --http exited %d:\n%s", code, stderr.String())
		}
	}()
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("serve --http did not say where it listens:\n%s", stderr.String())
	}
	cmd := exec.Command(node, filepath.Join(dir, "http_session.mjs"), "http://"+addr+"/mcp", strings.TrimSpace(tok.String()), photo)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("session through the TypeScript SDK client over HTTP failed: %v\n%s\nserver:\n%s", err, errb.String(), stderr.String())
	}
	var summary struct {
		Tools   int      `json:"tools"`
		Called  []string `json:"called"`
		Preview string   `json:"preview"`
	}
	if err := json.Unmarshal(out.Bytes(), &summary); err != nil {
		t.Fatalf("summary: %v\n%s", err, out.String())
	}
	if summary.Tools == 0 || len(summary.Called) != 5 || !strings.HasPrefix(summary.Preview, "previews/coffee/") {
		t.Errorf("summary: %+v", summary)
	}
}
