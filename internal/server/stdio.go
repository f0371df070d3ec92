package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// StdioTransport speaks newline-delimited JSON-RPC over a reader and a writer, like
// the SDK's mcp.StdioTransport, with what a client relies on that the SDK's does not
// give:
//
//   - Every request read is answered. When the input ends, the connection stays open
//     until each request it read has its reply written (the SDK's transport drops
//     replies that handlers are still computing, go-sdk issue 1061).
//   - Any line is survived. A line over the limit (contract.MaxArgumentBytes) is
//     skipped as it is read, in memory that does not grow with it, and answered with
//     its id when the id can be read from it: a tools/call of a tool that declares
//     limit_exceeded gets that tool result, anything else a JSON-RPC error. A line
//     that is not a message (broken JSON, too deep, noise) gets a JSON-RPC error,
//     with its id when it has a readable one, and the session goes on.
//   - Ids keep their exact bytes. The SDK decodes ids through float64 (1.5 came back
//     as 1, 12345678901234567890 as a negative number) and drops a request whose id
//     is already in flight without a reply. The transport hands the SDK an id of its
//     own for each request, writes the reply with the client's bytes, and answers a
//     second request reusing an id in flight with an error itself.
//   - Errors carry real JSON-RPC codes: an error the SDK leaves uncoded (its
//     lifecycle checks: a call before initialize, a second initialize) goes out as
//     -32600, anything else uncoded as -32603, never as 0.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// DrainTimeout bounds how long replies are awaited after the input ends.
	DrainTimeout time.Duration
	// Server, when set, answers an over-long tools/call of a tool that declares
	// limit_exceeded with that tool's error result; without it such a call gets a
	// JSON-RPC error.
	Server *Server

	// lineLimit replaces maxLineBytes in tests.
	lineLimit int
}

// maxLineBytes bounds one inbound message. It is the arguments' limit: a call's
// arguments are shorter than its line, so a call that fits the line reaches the
// tool, whose own limits (an image_b64 photo of at most MaxImageB64Bytes decoded)
// answer first.
const maxLineBytes = contract.MaxArgumentBytes

// maxMessageDepth bounds how deep a message nests. A call's arguments may nest
// 16 levels (the contract's bound); the message, params and arguments objects add
// three, and _meta a few more. A deeper line is answered without being decoded.
const maxMessageDepth = 64

// JSON-RPC error codes the transport answers with.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeInternalError  = jsonrpc.CodeInternalError
)

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	drain := t.DrainTimeout
	if drain <= 0 {
		drain = 5 * time.Minute
	}
	limit := t.lineLimit
	if limit <= 0 {
		limit = maxLineBytes
	}
	c := &stdioConn{
		out:      t.Out,
		server:   t.Server,
		limit:    limit,
		lines:    make(chan inbound),
		closed:   make(chan struct{}),
		inflight: map[string]int64{},
		pending:  map[int64]*pendingRequest{},
		drained:  make(chan struct{}, 1),
		drain:    drain,
	}
	go c.readLoop(t.In)
	return c, nil
}

// inbound is what the reader hands over: a line within the limit, or the head of
// an over-long one, and then the error that ended the input.
type inbound struct {
	line []byte
	over *overlong
	err  error
}

// overlong is an over-long line: what could be read from it, and its size.
type overlong struct {
	head  lineHead
	bytes int64
}

// pendingRequest is a request handed to the SDK under an id of the transport's.
type pendingRequest struct {
	raw []byte // the client's id, exactly as it sent it
	key string // its key in inflight, until its reply is on its way
	// cancelled: the client sent notifications/cancelled for it. The SDK still
	// writes a reply (an error, or a result that raced the cancel); the spec says
	// a receiver SHOULD NOT answer a cancelled request, so the reply is dropped.
	cancelled bool
}

type stdioConn struct {
	out    io.Writer
	wmu    sync.Mutex
	server *Server
	limit  int
	lines  chan inbound
	drain  time.Duration

	closeOnce sync.Once
	closed    chan struct{}

	// ended is the input's end once every line before it was handed over. Only
	// Read uses it, and the SDK reads from one goroutine.
	ended error

	mu       sync.Mutex
	seq      int64
	inflight map[string]int64          // client id (idKey) -> the SDK's id, until the reply is written
	pending  map[int64]*pendingRequest // the SDK's id -> request, until its reply has been written
	drained  chan struct{}
}

func (c *stdioConn) readLoop(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, over, err := c.readLine(r)
		if over != nil || len(bytes.TrimSpace(line)) > 0 || err != nil {
			if len(bytes.TrimSpace(line)) == 0 {
				line = nil
			}
			select {
			case c.lines <- inbound{line, over, err}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line. The line is kept as the pieces it was read in, so a
// long line costs its size and no buffers it outgrew; once it passes the limit,
// those pieces and the rest of the line go through a headScanner as they are read,
// and only what it found is returned.
func (c *stdioConn) readLine(r *bufio.Reader) ([]byte, *overlong, error) {
	var pieces [][]byte
	var sc *headScanner
	var n int64
	for {
		chunk, err := r.ReadSlice('\n')
		if sc == nil && n+int64(len(chunk)) > int64(c.limit) {
			sc = &headScanner{}
			for _, p := range pieces {
				sc.Write(p)
			}
			pieces = nil
		}
		n += int64(len(chunk))
		if sc != nil {
			sc.Write(chunk)
		} else {
			pieces = append(pieces, bytes.Clone(chunk))
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if sc != nil {
			return nil, &overlong{head: sc.head(), bytes: n - int64(trailingNewline(chunk))}, err
		}
		if len(pieces) == 1 {
			return pieces[0], nil, err
		}
		return bytes.Join(pieces, nil), nil, err
	}
}

func trailingNewline(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if c.ended != nil {
			c.awaitReplies(ctx)
			return nil, c.ended
		}
		var in inbound
		select {
		case in = <-c.lines:
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var msg jsonrpc.Message
		switch {
		case in.over != nil:
			msg = c.answerOverlong(in.over)
		case in.line != nil:
			msg = c.accept(bytes.TrimSpace(in.line))
		}
		if in.err != nil {
			c.ended = in.err
		}
		if msg != nil {
			return msg, nil
		}
	}
}

// accept decodes a line. It returns the message to hand to the SDK, or nil when
// the transport answered the line itself.
func (c *stdioConn) accept(line []byte) jsonrpc.Message {
	h := scanHead(line)
	if h.maxDepth > maxMessageDepth {
		c.writeError(h.id, codeInvalidRequest, fmt.Sprintf("invalid request: the message nests %d levels deep, over the limit of %d", h.maxDepth, maxMessageDepth), nil)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if !json.Valid(line) {
			c.writeError(h.id, codeParseError, "parse error: "+err.Error(), nil)
		} else {
			// The SDK calls an id of the wrong type a parse error; the JSON parsed.
			c.writeError(h.id, codeInvalidRequest, "invalid request: "+strings.TrimPrefix(err.Error(), "parse error: "), nil)
		}
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg // a reply to a request of the server's: its ids are the SDK's own
	}
	if !req.ID.IsValid() {
		if req.Method == "notifications/cancelled" {
			return c.cancellation(req)
		}
		return req
	}
	raw := h.id
	if raw == nil || !sameID(raw, req.ID.Raw()) {
		// The scanner and the decoder disagree (duplicate keys, an id beyond what
		// the scanner keeps): echo what the SDK decoded rather than guess.
		raw, _ = json.Marshal(req.ID.Raw())
	}
	key := idKey(raw)
	c.mu.Lock()
	if _, busy := c.inflight[key]; busy {
		c.mu.Unlock()
		c.writeError(raw, codeInvalidRequest, fmt.Sprintf("invalid request: id %s is already in use by a request in flight", raw), nil)
		return nil
	}
	c.seq++
	c.inflight[key] = c.seq
	c.pending[c.seq] = &pendingRequest{raw: raw, key: key}
	c.mu.Unlock()
	// MakeID takes a float64 and keeps it as an int64: exact below 2^53 requests.
	req.ID, _ = jsonrpc.MakeID(float64(c.seq))
	return req
}

// cancellation points a notifications/cancelled at the SDK's id of the request it
// names. A request not in flight is answered already (or never was): the
// notification is dropped rather than passed on to cancel another request that
// happens to have that number as the SDK's id.
func (c *stdioConn) cancellation(req *jsonrpc.Request) jsonrpc.Message {
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil || !validID(params["requestId"]) {
		return nil
	}
	c.mu.Lock()
	seq, ok := c.inflight[idKey(params["requestId"])]
	if ok {
		c.pending[seq].cancelled = true
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	params["requestId"] = json.RawMessage(fmt.Sprint(seq))
	b, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	req.Params = b
	return req
}

// answerOverlong answers a line that was skipped for its length. A reply of the
// client's to a request of the server's (a sampling result, say) is not answered:
// the server's request fails with the limit, which answerOverlong returns for the
// SDK, rather than waiting for a reply that never comes.
func (c *stdioConn) answerOverlong(o *overlong) jsonrpc.Message {
	msg := fmt.Sprintf("the message is %d bytes, over the limit of %d bytes for one message", o.bytes, c.limit)
	data, _ := json.Marshal(map[string]any{"code": darkroom.LimitExceeded, "limit": c.limit, "bytes": o.bytes})
	if !o.head.request && o.head.id != nil {
		var v any
		if json.Unmarshal(o.head.id, &v) == nil {
			if id, err := jsonrpc.MakeID(v); err == nil {
				return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: codeInvalidRequest, Message: "reply dropped: " + msg, Data: data}}
			}
		}
	}
	msg += ": give a large photo by path, not inline"
	if o.head.id != nil && o.head.method == "tools/call" && c.server != nil {
		err := &darkroom.Error{Code: darkroom.LimitExceeded, Message: o.head.tool + ": " + msg,
			Details: map[string]any{"limit": c.limit, "bytes": o.bytes}}
		if res := c.server.errorResult(o.head.tool, err); res != nil {
			if b, merr := json.Marshal(res); merr == nil {
				c.writeLine(encodeResponse(o.head.id, b, nil))
				return nil
			}
		}
	}
	c.writeError(o.head.id, codeInvalidRequest, "invalid request: "+msg, data)
	return nil
}

// errorResult is the result of a call to the named tool that failed with err
// before it could be run, or nil when the tool does not exist or does not
// declare err's code (then the failure is a protocol error, not a tool result).
func (s *Server) errorResult(tool string, err error) *mcp.CallToolResult {
	s.awaitReady()
	t, ok := s.Contract.Tool(tool)
	if !ok || !slices.Contains(t.Errors, darkroom.Code(err)) {
		return nil
	}
	return s.result(tool, s.failure(t, err), "")
}

// awaitReplies blocks until every request read so far has its reply written.
func (c *stdioConn) awaitReplies(ctx context.Context) {
	timer := time.NewTimer(c.drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.drained:
		case <-timer.C:
			return
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		b, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		return c.writeLine(b)
	}
	var p *pendingRequest
	seq, ours := resp.ID.Raw().(int64)
	if ours {
		c.mu.Lock()
		if p = c.pending[seq]; p != nil {
			// The client may reuse the id as soon as it reads this reply.
			delete(c.inflight, p.key)
		}
		c.mu.Unlock()
	}
	var b []byte
	if p != nil && p.cancelled {
		c.settle(seq)
		return nil
	}
	if p != nil {
		b = encodeResponse(p.raw, resp.Result, wireError(resp.Error))
	} else {
		r := *resp
		if resp.Error != nil {
			r.Error = wireError(resp.Error)
		}
		var err error
		if b, err = jsonrpc.EncodeMessage(&r); err != nil {
			return err
		}
	}
	err := c.writeLine(b)
	if p != nil {
		c.settle(seq)
	}
	return err
}

// settle forgets the pending request seq, answered or dropped, and wakes a drain
// waiting for the last one.
func (c *stdioConn) settle(seq int64) {
	c.mu.Lock()
	delete(c.pending, seq)
	c.mu.Unlock()
	select {
	case c.drained <- struct{}{}:
	default:
	}
}

// wireError is err as it goes on the wire, always with a code: the SDK's own
// conversion leaves an uncoded error at 0, which no client can act on.
func wireError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		if we == err {
			return we
		}
		return &jsonrpc.Error{Code: we.Code, Message: err.Error(), Data: we.Data}
	}
	code := int64(codeInternalError)
	if lifecycleError(err.Error()) {
		code = codeInvalidRequest
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// lifecycleError recognizes the SDK's uncoded errors for a request that the
// session's state does not allow: the request is invalid, not the server broken.
func lifecycleError(msg string) bool {
	for _, s := range []string{"during session initialization", "duplicate \"initialize\"", "before \"initialize\""} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// encodeResponse writes a reply with the client's id bytes. The result is the
// SDK's marshalled JSON, spliced in as it is.
func encodeResponse(id, result []byte, werr *jsonrpc.Error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	if werr != nil {
		e, err := json.Marshal(werr)
		if err != nil {
			e, _ = json.Marshal(&jsonrpc.Error{Code: werr.Code, Message: werr.Message})
		}
		b.WriteString(`,"error":`)
		b.Write(e)
	} else {
		if len(result) == 0 {
			result = []byte("null")
		}
		b.WriteString(`,"result":`)
		b.Write(result)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// writeError answers a line the SDK never saw; id is nil when none could be read.
func (c *stdioConn) writeError(id []byte, code int64, msg string, data json.RawMessage) {
	c.writeLine(encodeResponse(id, nil, &jsonrpc.Error{Code: code, Message: msg, Data: data}))
}

func (c *stdioConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *stdioConn) SessionID() string { return "" }
