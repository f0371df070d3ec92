package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replyGate drops, on Streamable HTTP, the reply to a request the client
// cancelled (notifications/cancelled): the spec says a receiver SHOULD NOT answer
// a cancelled request, and the SDK writes the handler's reply (the cancellation as
// an error, or a result that raced the cancel) all the same. The POST that carried
// the request still ends when its reply would have been written, with no reply in
// it. The stdio transport drops the same replies itself (stdioConn.Write).
//
// The SDK also keeps each event in its event store, for a client that resumes a
// stream with Last-Event-ID; the gate's store (replyGate.store) keeps an empty
// event in place of such a reply, so a resumed stream does not bring it back.
type replyGate struct {
	mu        sync.Mutex
	inflight  map[string]*atomic.Bool // session and request id -> cancelled
	cancelled atomic.Int64            // how many in inflight are cancelled: no parse while none is
}

func newReplyGate() *replyGate { return &replyGate{inflight: map[string]*atomic.Bool{}} }

// wrap runs next with the gate: it reads a POST's messages (readBody has read the
// body already, within its limit), marks the requests its cancellations name, and
// watches the replies written to the requests it carries.
func (g *replyGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || r.Body == nil || session == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		calls, cancels := scanPost(body)
		g.mu.Lock()
		for _, id := range cancels {
			if c := g.inflight[session+"\x00"+id]; c != nil && !c.Swap(true) {
				g.cancelled.Add(1)
			}
		}
		gw := &gatedWriter{ResponseWriter: w, calls: map[string]*atomic.Bool{}}
		for _, id := range calls {
			k := session + "\x00" + id
			if _, busy := g.inflight[k]; busy {
				continue // the SDK refuses a reused id; the first keeps its state
			}
			c := new(atomic.Bool)
			g.inflight[k] = c
			gw.calls[id] = c
		}
		g.mu.Unlock()
		if len(gw.calls) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		defer func() {
			g.mu.Lock()
			for id, c := range gw.calls {
				delete(g.inflight, session+"\x00"+id)
				if c.Load() {
					g.cancelled.Add(-1)
				}
			}
			g.mu.Unlock()
		}()
		next.ServeHTTP(gw, r)
	})
}

// store wraps the SDK's event store: a reply to a cancelled request of the
// session is kept as an empty event, which the SDK keeps in the stream's count
// (event ids stay aligned) and never replays. The SDK stores an event before it
// writes it, while the request is still in flight (the POST has not ended).
func (g *replyGate) store(inner mcp.EventStore) mcp.EventStore {
	return gatedStore{EventStore: inner, g: g}
}

type gatedStore struct {
	mcp.EventStore
	g *replyGate
}

func (s gatedStore) Append(ctx context.Context, session, stream string, data []byte) error {
	if len(data) > 0 && s.g.cancelled.Load() > 0 && s.g.cancelledReply(session, data) {
		data = nil
	}
	return s.EventStore.Append(ctx, session, stream, data)
}

// cancelledReply reports whether data, one JSON-RPC message, is a reply to a
// request of the session that the client cancelled.
func (g *replyGate) cancelledReply(session string, data []byte) bool {
	k, ok := replyTo(data)
	if !ok {
		return false
	}
	g.mu.Lock()
	c := g.inflight[session+"\x00"+k]
	g.mu.Unlock()
	return c != nil && c.Load()
}

// replyTo returns the key (replyKey) of the request data answers, when data is
// one JSON-RPC reply (no method).
func replyTo(data []byte) (string, bool) {
	var m wireMessage
	if json.Unmarshal(data, &m) != nil || m.Method != "" {
		return "", false
	}
	return replyKey(m.ID)
}

// wireMessage is what the gate reads of a JSON-RPC message.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// scanPost returns the ids (replyKey) of the requests in a POST's body, one
// message or a batch, and of the requests its notifications/cancelled name. A body
// that does not parse has neither: the SDK answers it.
func scanPost(body []byte) (calls, cancels []string) {
	var msgs []wireMessage
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return nil, nil
		}
	} else {
		var m wireMessage
		if json.Unmarshal(body, &m) != nil {
			return nil, nil
		}
		msgs = []wireMessage{m}
	}
	for _, m := range msgs {
		switch {
		case m.Method == "notifications/cancelled":
			if k, ok := replyKey(m.Params.RequestID); ok {
				cancels = append(cancels, k)
			}
		case m.Method != "":
			if k, ok := replyKey(m.ID); ok {
				calls = append(calls, k)
			}
		}
	}
	return calls, cancels
}

// replyKey is the identity of a request id as the client sent it and as the SDK
// writes it back: a string by its text, a number by its value (the SDK keeps
// numbers as int64).
func replyKey(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case float64:
		return "n" + strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// gatedWriter is a POST's response, dropping the replies to its requests that
// were cancelled. The SDK writes each message whole in one Write: an SSE event
// whose data line is the message, or the JSON of a reply.
type gatedWriter struct {
	http.ResponseWriter
	calls map[string]*atomic.Bool
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	if w.cancelledReply(p) {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush and set deadlines on the response.
func (w *gatedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *gatedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// cancelledReply reports whether p is a reply (no method) to one of the POST's
// requests that the client cancelled.
func (w *gatedWriter) cancelledReply(p []byte) bool {
	data := p
	if i := bytes.Index(p, []byte("data: ")); i >= 0 && (i == 0 || p[i-1] == '\n') {
		data = p[i+len("data: "):]
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			data = data[:j]
		}
	}
	k, ok := replyTo(data)
	if !ok {
		return false
	}
	c := w.calls[k]
	return c != nil && c.Load()
}
