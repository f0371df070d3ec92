package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Over Streamable HTTP, a tools/call the client cancels (notifications/cancelled
// on a POST of its own) gets no reply: its POST's stream ends without one, though
// the handler returns a result after the cancel; the session serves the next call.
// A raw client, so that every frame on the wire is seen. On 2025-11-25 the stream
// opens with a priming event whose id a client resumes from (Last-Event-ID): the
// resumed stream does not bring the dropped reply back from the event store.
func TestHTTPCancelledCallGetsNoReply(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) { testHTTPCancelledCall(t, version) })
	}
}

func testHTTPCancelledCall(t *testing.T, version string) {
	started := make(chan struct{}, 1)
	returned := make(chan struct{}, 1)
	f := newHTTPFixtureWith(t, t.TempDir(), 1, func(s *Server) {
		s.handlers["get_state"] = func(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
			if args["image_id"] != "slow" {
				return map[string]any{"image_id": args["image_id"]}, "served", nil
			}
			started <- struct{}{}
			select {
			case <-ctx.Done():
			case <-time.After(hangGuard):
			}
			returned <- struct{}{}
			return map[string]any{"image_id": "slow"}, "finished after the cancel", nil
		}
	}, token{name: "alice", grants: editGrants})
	auth := map[string]string{"Authorization": "Bearer " + f.tokens["alice"]}
	code, session, body := post(t, f.url, strings.Replace(initializeBody(0), "2025-06-18", version, 1), auth)
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %q %s", code, session, body)
	}
	auth["Mcp-Session-Id"] = session
	auth["Mcp-Protocol-Version"] = version
	if code, _, body := post(t, f.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, auth); code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", code, body)
	}

	// The call's POST, read to its end in the background.
	req, _ := http.NewRequest("POST", f.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_state","arguments":{"image_id":"slow"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range auth {
		req.Header.Set(k, v)
	}
	stream := make(chan string, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			stream <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		stream <- string(b)
	}()
	await(t, started, "the call")
	if code, _, body := post(t, f.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`, auth); code != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d %s", code, body)
	}
	await(t, returned, "the handler's return")
	select {
	case got := <-stream:
		if strings.Contains(got, `"id":7`) {
			t.Errorf("the cancelled call was answered:\n%s", got)
		}
		if version >= "2025-11-25" {
			resumeAfterPrime(t, f.url, auth, got)
		}
	case <-time.After(hangGuard):
		t.Fatal("the cancelled call's stream never ended")
	}
	// The session goes on.
	code, _, body = post(t, f.url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_state","arguments":{"image_id":"next"}}}`, auth)
	if code != http.StatusOK || !strings.Contains(body, `"id":8`) || !strings.Contains(body, "next") {
		t.Fatalf("the call after the cancel: %d %s", code, body)
	}
}

// resumeAfterPrime resumes a POST's stream from its priming event, as a client
// that lost the connection does, and fails if the replay answers request 7.
func resumeAfterPrime(t *testing.T, url string, header map[string]string, stream string) {
	t.Helper()
	var id string
	for _, line := range strings.Split(stream, "\n") {
		if v, ok := strings.CutPrefix(line, "id:"); ok {
			id = strings.TrimSpace(v)
			break
		}
	}
	if id == "" {
		t.Fatalf("no event id in the call's stream (no priming event):\n%s", stream)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", id)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resume from %s: %d %s", id, resp.StatusCode, b)
	}
	if strings.Contains(string(b), `"id":7`) {
		t.Errorf("resuming from %s replayed the cancelled call's reply:\n%s", id, b)
	}
}
