package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hangGuard bounds how long a test waits for something that must happen (a reply,
// the session ending at EOF) before it reports that it did not. It is a guard
// against a test hanging, not a measure: nothing asserts how fast anything is.
const hangGuard = 2 * time.Minute

// wire drives a StdioTransport over pipes, as a client's process would.
type wire struct {
	t     testing.TB
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
	seen  [][]byte // lines read while waiting for another reply
}

func startWire(t testing.TB, srv *mcp.Server, configure func(*StdioTransport)) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr := &StdioTransport{In: inR, Out: outW, DrainTimeout: hangGuard}
	if configure != nil {
		configure(tr)
	}
	w := &wire{t: t, in: inW, lines: make(chan []byte, 1024), done: make(chan error, 1)}
	go func() {
		err := srv.Run(context.Background(), tr)
		outW.Close()
		w.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			w.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(w.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("send: %v", err)
	}
}

// sendFrom streams r as input (a line too long to build in memory first).
func (w *wire) sendFrom(r io.Reader) {
	w.t.Helper()
	if _, err := io.Copy(w.in, r); err != nil {
		w.t.Fatalf("send: %v", err)
	}
}

// reply waits for the reply whose id is exactly id (its bytes on the wire).
func (w *wire) reply(id string) []byte {
	w.t.Helper()
	guard := time.After(hangGuard)
	for {
		select {
		case line, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("the output ended before a reply with id %s; before it:\n%s", id, bytes.Join(w.seen, []byte("\n")))
			}
			if string(rawID(w.t, line)) == id {
				return line
			}
			w.seen = append(w.seen, line)
		case <-guard:
			w.t.Fatalf("no reply with id %s; lines so far:\n%s", id, bytes.Join(w.seen, []byte("\n")))
		}
	}
}

// next returns the next line out.
func (w *wire) next() []byte {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			w.t.Fatal("the output ended")
		}
		return line
	case <-time.After(hangGuard):
		w.t.Fatal("nothing more was written")
	}
	return nil
}

// end closes the input and requires the session to end; it returns every line
// written since the last reply waited for.
func (w *wire) end() [][]byte {
	w.t.Helper()
	w.in.Close()
	select {
	case <-w.done:
	case <-time.After(hangGuard):
		w.t.Fatalf("the session did not end when its input did")
	}
	rest := w.seen
	w.seen = nil
	for line := range w.lines {
		rest = append(rest, line)
	}
	return rest
}

// rawID is a reply's id exactly as it is on the wire; nil when it has none.
func rawID(t testing.TB, line []byte) json.RawMessage {
	t.Helper()
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("reply is not JSON: %v\n%.300s", err, line)
	}
	return m.ID
}

type wireReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parseReply(t testing.TB, line []byte) wireReply {
	t.Helper()
	var r wireReply
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("reply is not JSON: %v\n%.300s", err, line)
	}
	return r
}

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-test","version":"0"}}}`

func initialize(w *wire) {
	w.t.Helper()
	w.send(initLine)
	w.reply(`"init"`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// blocker is an MCP server with two tools: echo answers at once; block closes
// started, then answers when release is closed or its call is cancelled (then it
// closes cancelled first).
type blocker struct {
	srv                         *mcp.Server
	started, release, cancelled chan struct{}
}

func blockServer() *blocker {
	b := &blocker{
		srv:     mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "0"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)}),
		started: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{}),
	}
	var startOnce, cancelOnce sync.Once
	schema := map[string]any{"type": "object"}
	b.srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	})
	b.srv.AddTool(&mcp.Tool{Name: "roots", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text := "no error"
		if _, err := req.Session.ListRoots(ctx, nil); err != nil {
			text = err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	b.srv.AddTool(&mcp.Tool{Name: "block", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		startOnce.Do(func() { close(b.started) })
		select {
		case <-b.release:
		case <-ctx.Done():
			cancelOnce.Do(func() { close(b.cancelled) })
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil
	})
	return b
}

// await waits for ch to be closed.
func await(t testing.TB, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatalf("%s never happened", what)
	}
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b []byte
	n int64 // bytes left
	i int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	w := 0
	for w < len(p) && r.n > 0 {
		c := copy(p[w:min(len(p), w+int(min(r.n, int64(len(r.b)-r.i))))], r.b[r.i:])
		w += c
		r.n -= int64(c)
		r.i = (r.i + c) % len(r.b)
	}
	return w, nil
}

// longCall is a tools/call line of about size bytes: the id first or last, the
// filler in an argument string.
func longCall(id, tool string, size int64, idLast bool) io.Reader {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":{"image_b64":"`, id, tool)
	tail := `"}}}` + "\n"
	if idLast {
		head = fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":%q,"arguments":{"image_b64":"`, tool)
		tail = fmt.Sprintf(`"}},"id":%s}`, id) + "\n"
	}
	return io.MultiReader(strings.NewReader(head), &repeatReader{b: []byte("QUJD"), n: size - int64(len(head)+len(tail))}, strings.NewReader(tail))
}

// One line far over the limit (64 MiB) used to leave the session deaf: a parse
// error without an id, then nothing read, and no exit when the input closed. Now it
// is answered with its id, wherever the id sits in the line, and the session goes on
// and ends at EOF, also when the over-long line is the last one, without a newline.
func TestStdioSurvivesOverlongLine(t *testing.T) {
	w := startWire(t, blockServer().srv, nil)
	initialize(w)

	w.sendFrom(longCall("7", "echo", 64<<20, false))
	if r := parseReply(t, w.reply("7")); r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("over-long call, id first: %+v, want a JSON-RPC error -32600 with its id", r)
	}
	w.sendFrom(longCall(`"at the end"`, "echo", 40<<20, true))
	if r := parseReply(t, w.reply(`"at the end"`)); r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("over-long call, id last: %+v, want a JSON-RPC error -32600 with its id", r)
	}
	w.sendFrom(&repeatReader{b: []byte("noise \x00\xff "), n: 40 << 20})
	w.send("")
	w.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"after":"the long lines"}}}`)
	if r := parseReply(t, w.reply("8")); r.Error != nil || !bytes.Contains(r.Result, []byte("the long lines")) {
		t.Errorf("call after the long lines: %+v", r)
	}
	// The last line is over-long and has no newline: EOF still ends the session.
	w.sendFrom(io.LimitReader(longCall("9", "echo", 40<<20, false), 40<<20-10))
	rest := w.end()
	var noID, id9 int
	for _, line := range rest {
		switch id := rawID(t, line); {
		case id == nil:
			noID++
		case string(id) == "9":
			id9++
		}
	}
	if noID != 1 || id9 != 1 || len(rest) != 2 {
		t.Errorf("after the noise line and the cut-off last line: %d replies without id, %d with id 9, want one each:\n%s", noID, id9, bytes.Join(rest, []byte("\n")))
	}
}

// A photo of 9 to 13 MiB sent as image_b64 gets ingest's own limit_exceeded (which
// says to give it by path), not a framing error: the line limit is above it.
func TestStdioImageB64ReachesIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a 17 MiB line")
	}
	s := editServer(t)
	w := startWire(t, s.MCP("test"), nil)
	initialize(w)
	photo := make([]byte, 13<<20)
	for i := 0; i < len(photo); i += sha256.Size {
		sum := sha256.Sum256([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
		copy(photo[i:], sum[:])
	}
	args, _ := json.Marshal(map[string]any{"image_b64": base64.StdEncoding.EncodeToString(photo)})
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ingest","arguments":%s}}`, args))
	r := parseReply(t, w.reply("1"))
	var res struct {
		IsError           bool     `json:"isError"`
		StructuredContent Envelope `json:"structuredContent"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.StructuredContent.Error == nil {
		t.Fatalf("ingest of a 13 MiB photo as image_b64: %+v, want a tool result", r)
	}
	if e := res.StructuredContent.Error; e.Code != "limit_exceeded" || !strings.HasPrefix(e.Message, "image_b64:") || !strings.Contains(e.Message, "by path") {
		t.Errorf("ingest of a 13 MiB photo as image_b64: %s: %s, want ingest's limit_exceeded naming image_b64", e.Code, e.Message)
	}
	w.end()
}

// Ids go back byte for byte: the SDK decodes them through float64, so 1.5 came back
// as 1 and 12345678901234567890 as -9223372036854775808.
func TestStdioExactIDs(t *testing.T) {
	w := startWire(t, blockServer().srv, nil)
	initialize(w)
	for _, id := range []string{`1.5`, `12345678901234567890`, `-0`, `1e3`, `0.1000000000000000055511151231257827`, `"7"`, `"\u0061b"`, `"ünï"`, `9007199254740993`} {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id))
		line := w.reply(id)
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
		if string(line) != want {
			t.Errorf("ping with id %s: got\n%s\nwant\n%s", id, line, want)
		}
	}
	w.end()
}

// A second request reusing the id of one in flight gets an error reply with that
// id (the SDK dropped it without a word); the first still gets its own reply, and
// once it has, the id is free again.
func TestStdioDuplicateInFlightID(t *testing.T) {
	b := blockServer()
	w := startWire(t, b.srv, nil)
	initialize(w)
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"second":true}}}`)
	// Lines are answered in the order they are read, so the duplicate's reply, if
	// there is one, comes before the reply to this ping.
	w.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	w.reply("6")
	var dup []wireReply
	for _, line := range w.seen {
		if string(rawID(t, line)) == "5" {
			dup = append(dup, parseReply(t, line))
		}
	}
	w.seen = nil
	if len(dup) != 1 || dup[0].Error == nil || dup[0].Error.Code != -32600 || !strings.Contains(dup[0].Error.Message, "in flight") {
		t.Fatalf("replies to the second request with id 5 while the first is in flight: %+v, want one -32600 error", dup)
	}
	close(b.release)
	if r := parseReply(t, w.reply("5")); r.Error != nil || !bytes.Contains(r.Result, []byte("released")) {
		t.Errorf("the first request with id 5: %+v, want its own result", r)
	}
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"third":true}}}`)
	if r := parseReply(t, w.reply("5")); r.Error != nil || !bytes.Contains(r.Result, []byte("third")) {
		t.Errorf("id 5 reused after its reply: %+v, want a result", r)
	}
	if rest := w.end(); len(rest) != 0 {
		t.Errorf("unexpected replies:\n%s", bytes.Join(rest, []byte("\n")))
	}
}

// notifications/cancelled names the client's id; it still reaches the request.
// The cancelled request gets no reply (the spec: a receiver SHOULD NOT answer a
// cancelled request), though its handler returns a result after the cancel; the
// session goes on answering the next request.
func TestStdioCancelInFlight(t *testing.T) {
	b := blockServer()
	w := startWire(t, b.srv, nil)
	initialize(w)
	w.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"block","arguments":{}}}`)
	await(t, b.started, "the call to block")
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}}`)
	await(t, b.cancelled, "the cancellation of the call")
	w.send(`{"jsonrpc":"2.0","id":"next","method":"tools/call","params":{"name":"echo","arguments":{"after":true}}}`)
	if r := parseReply(t, w.reply(`"next"`)); r.Error != nil || !bytes.Contains(r.Result, []byte("after")) {
		t.Errorf("the request after the cancel: %+v, want its result", r)
	}
	// end waits for the handlers to return and their replies to be written.
	for _, line := range append(w.seen, w.end()...) {
		if string(rawID(t, line)) == `"slow"` {
			t.Errorf("the cancelled request was answered: %s", line)
		}
	}
}

// Every line that is not a message gets exactly one JSON-RPC error with a real
// code, carrying the line's id when one can be read from it; the session goes on.
func TestStdioBadLines(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	veryDeep := strings.Repeat(`{"a":`, 200000) + "1" + strings.Repeat("}", 200000)
	for _, tc := range []struct {
		name, line string
		id         string // the reply's id bytes; "" for none
		code       int64
	}{
		{"not JSON", "hello", "", -32700},
		{"NUL and invalid UTF-8", "\x00\xff\xfe{\x00", "", -32700},
		{"truncated request", `{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"echo"`, "31", -32700},
		{"truncated in the id", `{"jsonrpc":"2.0","id":"unfini`, "", -32700},
		{"too deep, id first", `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":` + deep + `}}`, `"deep"`, -32600},
		{"too deep, id last", `{"jsonrpc":"2.0","method":"ping","params":{"x":` + veryDeep + `},"id":32}`, "32", -32600},
		{"id of the wrong type", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "", -32600},
		{"wrong version", `{"jsonrpc":"1.0","id":33,"method":"ping"}`, "33", -32600},
		{"a list", `[1,2,3]`, "", -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := startWire(t, blockServer().srv, nil)
			initialize(w)
			w.send(tc.line)
			w.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			w.reply(`"after"`)
			rest := append(w.seen, w.end()...)
			if len(rest) != 1 {
				t.Fatalf("%d replies to the line, want 1:\n%s", len(rest), bytes.Join(rest, []byte("\n")))
			}
			r := parseReply(t, rest[0])
			got := struct {
				ID   string
				Code int64
			}{string(r.ID), 0}
			if r.Error != nil {
				got.Code = r.Error.Code
			}
			want := struct {
				ID   string
				Code int64
			}{tc.id, tc.code}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("reply (-want +got):\n%s\n%s", diff, rest[0])
			}
		})
	}
}

// Requests the session's state does not allow get real JSON-RPC codes, never 0.
func TestStdioLifecycleCodes(t *testing.T) {
	w := startWire(t, blockServer().srv, nil)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	before := parseReply(t, w.reply("1"))
	initialize(w)
	w.send(strings.Replace(initLine, `"init"`, `"again"`, 1))
	again := parseReply(t, w.reply(`"again"`))
	w.send(`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`)
	unknown := parseReply(t, w.reply("2"))
	w.end()
	for _, c := range []struct {
		what string
		r    wireReply
		want int64
	}{{"a call before initialize", before, -32600}, {"a second initialize", again, -32600}, {"an unknown method", unknown, -32601}} {
		if c.r.Error == nil || c.r.Error.Code != c.want {
			t.Errorf("%s: %+v, want error code %d", c.what, c.r.Error, c.want)
		}
	}
}
