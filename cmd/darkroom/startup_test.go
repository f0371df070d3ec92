package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serveOnce runs serve in this process with the requests on stdin, and returns
// each reply's line by id, and whether serve answered from the cached snapshot.
func serveOnce(t *testing.T, ws string, requests []string) (map[string]string, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(strings.Join(requests, "\n") + "\n"), Stdout: &out, Stderr: &errb}
	if code := m.Run(context.Background(), []string{"serve", "--workspace", ws}); code != 0 {
		t.Fatalf("serve exited %d: %s", code, errb.String())
	}
	replies := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if msg.ID != nil {
			replies[string(msg.ID)] = line
		}
	}
	return replies, m.deferred
}

// A serve that finds a snapshot and a verdict for its start-up in the cache
// answers from them while it loads (and holds the calls until it has loaded):
// every reply, the tools/list one included, is byte for byte what a serve that
// loaded everything first writes. A snapshot or verdict that is corrupt, or kept
// under another key, is a miss: serve loads first, answers the same, and repairs
// the cache.
func TestServeFromCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cacheDir = filepath.Join(cacheDir, "darkroom")
	ws := t.TempDir()
	requests := []string{
		fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"cache","version":"0"}}}`, pinnedProtocol),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"bad","method":"tools/call","params":{"name":"list_vocabulary","arguments":{"layer":"L9"}}}`,
		`{"jsonrpc":"2.0","id":"entry","method":"tools/call","params":{"name":"list_vocabulary","arguments":{"layer":"L2","limit":2}}}`,
		`{"jsonrpc":"2.0","id":"state","method":"tools/call","params":{"name":"get_state","arguments":{"image_id":"nosuch"}}}`,
	}
	cold, deferred := serveOnce(t, ws, requests)
	if deferred {
		t.Fatal("an empty cache gave a snapshot")
	}
	if len(cold) != 5 {
		t.Fatalf("%d replies to 5 requests: %v", len(cold), cold)
	}
	for _, name := range []string{"snapshot.json", startupFile} {
		if _, err := os.Stat(filepath.Join(cacheDir, name)); err != nil {
			t.Fatalf("the first start-up kept no %s: %v", name, err)
		}
	}
	same := func(what string, wantDeferred bool) {
		t.Helper()
		got, deferred := serveOnce(t, ws, requests)
		if deferred != wantDeferred {
			t.Errorf("%s: answered from the snapshot: %v, want %v", what, deferred, wantDeferred)
		}
		for id, want := range cold {
			if got[id] != want {
				t.Errorf("%s: reply %s:\n%.400s\nwith nothing cached:\n%.400s", what, id, got[id], want)
			}
		}
	}
	same("warm", true)
	for _, c := range []struct{ what, file, old, new string }{
		{"corrupt snapshot", "snapshot.json", `"description":"`, `"description":"x`},
		{"stale snapshot key", "snapshot.json", `"key":"`, `"key":"0`},
		{"corrupt verdict", startupFile, `"passed":true`, `"passed":false`},
		{"stale verdict key", startupFile, `"key":"`, `"key":"0`},
	} {
		file := filepath.Join(cacheDir, c.file)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), c.old, c.new, 1)
		if edited == string(b) {
			t.Fatalf("%s: the edit did not apply", c.what)
		}
		if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		same(c.what, false)
		same(c.what+", then repaired", true)
	}
}
