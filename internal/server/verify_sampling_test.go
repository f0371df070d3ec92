package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// connectModel connects a client of protocol 2025-06-18 (it knows no multi
// round-trip requests: the server asks it while the call runs) whose model answers
// every sampling request with model.
func connectModel(t *testing.T, s *Server, model func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "model-test", Version: "0"}, &mcp.ClientOptions{
		MultiRoundTrip:       &mcp.MultiRoundTripOptions{Disabled: true},
		CreateMessageHandler: model,
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// augmentSession writes an augmentation session to verify and returns its id.
func augmentSession(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	d, _ := callAugment(t, cs, map[string]any{
		"image_b64": base64.StdEncoding.EncodeToString(testPhoto(t, 64, 48)), "seed": 7, "count": 2,
		"pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
	})
	return d.SessionID
}

// callWithin calls a tool and fails the test if the call has not answered within
// limit: a call that waits for a client's model must not hang.
func callWithin(t *testing.T, cs *mcp.ClientSession, limit time.Duration, name string, args map[string]any) Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s did not answer within %s: %v", name, limit, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

// A client that never answers its sampling requests costs the call its sampling
// wait (time_limits.sampling_ms; here 300 ms), then verify_augmentation answers
// unavailable inside its envelope, naming the question and the wait, and
// augment_image's options.verify reports the same in its verification while its
// variants are written. Before, both calls waited for ever.
func TestSamplingUnansweredIsBounded(t *testing.T) {
	s := editServer(t)
	s.samplingWaitOverride = 300 * time.Millisecond
	stop := make(chan struct{})
	cs := connectModel(t, s, func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		select {
		case <-ctx.Done():
		case <-stop:
		}
		return nil, errors.New("never answered")
	})
	t.Cleanup(func() { close(stop) }) // first: Close waits for the handler
	id := augmentSession(t, cs)
	env := callWithin(t, cs, 20*time.Second, "verify_augmentation", map[string]any{"session_id": id})
	if env.Success || env.Error.Code != "unavailable" || !strings.Contains(env.Error.Message, "did not answer within 300ms") || !env.Error.Recoverable {
		t.Errorf("verify_augmentation unanswered: %+v", env.Error)
	}
	env = callWithin(t, cs, 20*time.Second, "augment_image", map[string]any{
		"image_b64": base64.StdEncoding.EncodeToString(testPhoto(t, 64, 48)), "seed": 7,
		"pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
		"options":  map[string]any{"verify": []any{"visual"}},
	})
	b, _ := json.Marshal(env.Data)
	var d verifiedResult
	json.Unmarshal(b, &d)
	if !env.Success || len(d.Variants) != 1 || d.Verification == nil || d.Verification.Error == nil ||
		d.Verification.Error.Code != "unavailable" || !strings.Contains(d.Verification.Error.Message, "did not answer") {
		t.Errorf("augment_image with options.verify unanswered: %s", b)
	}
}

// What a client's model sends back is checked like an argument: an error answer is
// unavailable naming it, a result the SDK cannot read is invalid_input, each inside
// the envelope; and an answer of a megabyte is read only to maxAnswerBytes, so the
// result and the reports stay small.
func TestSamplingAnswersChecked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
		code  string
		msg   string
	}{
		{"error", func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("the user declined")
		}, "unavailable", "answered sampling/createMessage with an error"},
		{"no content", func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant"}, nil
		}, "invalid_input", "not a sampling result"},
		{"huge", func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: strings.Repeat("é", 1<<20)}}, nil
		}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := editServer(t)
			cs := connectModel(t, s, tc.model)
			id := augmentSession(t, cs)
			env := callWithin(t, cs, 20*time.Second, "verify_augmentation", map[string]any{"session_id": id, "checks": []any{"visual"}})
			if tc.code != "" {
				if env.Success || env.Error.Code != tc.code || !strings.Contains(env.Error.Message, tc.msg) {
					t.Errorf("%+v, want %s saying %q", env.Error, tc.code, tc.msg)
				}
				return
			}
			b, _ := json.Marshal(env)
			if !env.Success || len(b) > 3*maxAnswerBytes*2 {
				t.Errorf("a huge answer: success %v, %d bytes of result", env.Success, len(b))
			}
		})
	}
}

// Over HTTP the wait for the client's model lies inside the call: it holds the
// principal's concurrency slot (a second call meanwhile is limit_exceeded) and ends
// at the tool's time limit, answering timeout, when that comes before the sampling
// wait.
func TestHTTPSamplingWaitInsideTheCall(t *testing.T) {
	one := &contract.Limits{RequestsPerMinute: 6000, Burst: 100, ConcurrentCalls: 1, MaxInputBytes: 1 << 20}
	for _, tc := range []struct {
		name  string
		scale float64 // of the time limits
		wait  time.Duration
		code  string
	}{
		{"sampling wait first", 1, 1500 * time.Millisecond, "unavailable"},
		{"time limit first", 1.0 / 600, time.Hour, "timeout"}, // augment's 10 min is 1 s
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHTTPFixtureWith(t, t.TempDir(), tc.scale, func(s *Server) { s.samplingWaitOverride = tc.wait },
				token{name: "alice", grants: []string{"admin"}, limits: one})
			stop := make(chan struct{})
			client := mcp.NewClient(&mcp.Implementation{Name: "silent", Version: "0"}, &mcp.ClientOptions{
				MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
				CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					select {
					case <-ctx.Done():
					case <-stop:
					}
					return nil, errors.New("never answered")
				},
			})
			tr := &mcp.StreamableClientTransport{Endpoint: f.url, HTTPClient: &http.Client{Transport: bearer{f.tokens["alice"]}}}
			cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			t.Cleanup(func() { close(stop) }) // first: Close waits for the handler
			id := augmentSession(t, cs)
			done := make(chan Envelope, 1)
			go func() {
				done <- callWithin(t, cs, 20*time.Second, "verify_augmentation", map[string]any{"session_id": id})
			}()
			time.Sleep(300 * time.Millisecond) // the call is waiting for its answers
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_contract", Arguments: map[string]any{}})
			if err != nil || !res.IsError || !strings.Contains(toJSON(res.StructuredContent), "limit_exceeded") {
				t.Errorf("a call beside a verification waiting for its answers: %v %s", err, toJSON(res))
			}
			if env := <-done; env.Success || env.Error.Code != tc.code {
				t.Errorf("the unanswered verification: %+v, want %s", env.Error, tc.code)
			}
		})
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
