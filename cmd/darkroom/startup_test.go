package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// cliOnce runs one CLI call in this process and returns what it printed, its exit
// code, and whether its contract was the cached snapshot focused on its tool.
func cliOnce(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	code := m.Run(context.Background(), args)
	focused := m.snap != nil && m.contract == m.snap
	text := fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	// The log says when each operation was made.
	return timestamp.ReplaceAllString(text, "TIME"), focused
}

// A CLI call with a snapshot in the cache evaluates only its tool's part of the
// contract, and prints what a call that loaded it all prints: a read, a refused
// call, and an edit whose value is checked against the vocabulary (which needs the
// rest of the contract, evaluated when asked for).
func TestCLIFromCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ws := t.TempDir()
	samples, err := filepath.Abs("../../samples")
	if err != nil {
		t.Fatal(err)
	}
	ingest := []string{"ingest", filepath.Join(samples, "coffee.png"), "--image-id", "cup", "--workspace", ws, "--allow-root", samples}
	if out, _ := cliOnce(t, ingest...); !strings.HasPrefix(out, "exit 0") {
		t.Fatalf("ingest: %s", out)
	}
	calls := [][]string{
		{"log", "cup", "--workspace", ws},
		{"get-state", "nosuch", "--workspace", ws},
		{"apply-primitive", "cup", "--entry", "exposure", "--value", "9", "--workspace", ws},
		{"apply-primitive", "cup", "--entry", "exposure", "--value", "0.5", "--workspace", ws, "--json"},
		{"get-state", "cup", "--workspace", ws, "--json"},
	}
	// The same calls twice, on two workspaces: each with an empty cache, which
	// loads the whole contract, then with a warm one.
	var want []string
	for _, args := range calls {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		out, focused := cliOnce(t, args...)
		if focused {
			t.Fatalf("%s: focused with an empty cache", args)
		}
		want = append(want, out)
	}
	if strings.HasPrefix(want[2], "exit 0") || !strings.Contains(want[2], "invalid_input") || !strings.HasPrefix(want[3], "exit 0") {
		t.Fatalf("the calls do not fail and succeed as the test means them to:\n%s\n%s", want[2], want[3])
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ws2 := t.TempDir()
	ingest[len(ingest)-3] = ws2
	if out, _ := cliOnce(t, ingest...); !strings.HasPrefix(out, "exit 0") {
		t.Fatalf("ingest: %s", out)
	}
	for i, args := range calls {
		for j, a := range args {
			if a == ws {
				args[j] = ws2
			}
		}
		got, focused := cliOnce(t, args...)
		if !focused {
			t.Errorf("%s: not focused with a snapshot in the cache", args)
		}
		got = strings.ReplaceAll(got, ws2, ws)
		if got != want[i] {
			t.Errorf("%s:\n%s\nwith the whole contract loaded:\n%s", args, got, want[i])
		}
	}
}
