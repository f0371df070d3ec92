package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/procstat"
)

// The line limit and the argument limit are one number, and a photo well over
// ingest's image_b64 limit still fits in a line, so ingest answers it itself.
func TestStdioLineLimitAgreesWithIngest(t *testing.T) {
	if maxLineBytes != contract.MaxArgumentBytes {
		t.Errorf("line limit %d, argument limit %d: a call could fit one and not the other", maxLineBytes, contract.MaxArgumentBytes)
	}
	for _, mib := range []int{9, 13} {
		if n := base64.StdEncoding.EncodedLen(mib<<20) + 1024; n > maxLineBytes {
			t.Errorf("a %d MiB photo as image_b64 is a line of about %d bytes, over the line limit %d", mib, n, maxLineBytes)
		}
	}
}

// An over-long tools/call of a tool that declares limit_exceeded gets that tool's
// error result, which satisfies its outputSchema; a tool that does not declare it,
// and any other method, get a JSON-RPC error whose data says limit_exceeded.
func TestStdioOverlongToolCall(t *testing.T) {
	s := editServer(t)
	const limit = 1 << 20
	w := startWire(t, s.MCP("test"), func(tr *StdioTransport) { tr.Server, tr.lineLimit = s, limit })
	initialize(w)

	w.sendFrom(longCall("1", "ingest", 3<<20, false))
	r := parseReply(t, w.reply("1"))
	var res struct {
		IsError           bool     `json:"isError"`
		StructuredContent Envelope `json:"structuredContent"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || !res.IsError || res.StructuredContent.Error == nil {
		t.Fatalf("over-long ingest: %+v, want an error result", r)
	}
	checkOutput(t, s, "ingest", res.StructuredContent)
	var content []struct{ Text string }
	if err := json.Unmarshal(r.Result, &struct {
		Content *[]struct{ Text string } `json:"content"`
	}{&content}); err != nil || len(content) != 2 || !strings.HasPrefix(content[0].Text, "error limit_exceeded: ingest: ") || !strings.Contains(content[1].Text, `"code":"limit_exceeded"`) {
		t.Errorf("over-long ingest's content: %+v, want the summary line and the envelope", content)
	}
	e := res.StructuredContent.Error
	const size = 3<<20 - 1 // longCall's size counts the newline
	want := ErrorInfo{Code: "limit_exceeded", Recoverable: true, Details: map[string]any{"limit": float64(limit), "bytes": float64(size)},
		Message: fmt.Sprintf("ingest: the message is %d bytes, over the limit of %d bytes for one message: give a large photo by path, not inline", size, limit)}
	if diff := cmp.Diff(want, *e); diff != "" {
		t.Errorf("over-long ingest (-want +got):\n%s", diff)
	}

	// Every tool declares limit_exceeded (a policy's refusal over HTTP), so an
	// over-long call of any known tool is that tool's error result.
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_contract","arguments":{"x":"%s"}}}`, strings.Repeat("x", limit)))
	r = parseReply(t, w.reply("2"))
	res.StructuredContent = Envelope{}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || !res.IsError || res.StructuredContent.Error == nil || res.StructuredContent.Error.Code != "limit_exceeded" {
		t.Errorf("over-long get_contract: %+v, want a limit_exceeded result", r)
	}
	for _, tc := range []struct{ id, line string }{
		{"3", fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{"x":"%s"}}}`, strings.Repeat("x", limit))},
		{`"4"`, fmt.Sprintf(`{"jsonrpc":"2.0","id":"4","method":"tools/list","params":{"x":"%s"}}`, strings.Repeat("x", limit))},
	} {
		w.send(tc.line)
		r := parseReply(t, w.reply(tc.id))
		var data map[string]any
		if r.Error == nil || r.Error.Code != -32600 || json.Unmarshal(r.Error.Data, &data) != nil || data["code"] != "limit_exceeded" || data["limit"] != float64(limit) {
			t.Errorf("over-long line with id %s: %+v, want -32600 with data.code limit_exceeded", tc.id, r)
		}
	}
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_contract","arguments":{}}}`)
	if r := parseReply(t, w.reply("5")); r.Error != nil {
		t.Errorf("a call after the over-long lines: %+v", r)
	}
	w.end()
}

// An over-long reply of the client's to a request of the server's is not answered
// (a reply to a reply): the server's request fails with the limit instead of
// waiting for ever.
func TestStdioOverlongReplyFailsServerRequest(t *testing.T) {
	const limit = 4 << 10
	w := startWire(t, blockServer().srv, func(tr *StdioTransport) { tr.lineLimit = limit })
	w.send(strings.Replace(initLine, `"capabilities":{}`, `"capabilities":{"roots":{"listChanged":true}}`, 1))
	w.reply(`"init"`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"roots","arguments":{}}}`)
	var ask struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(w.next(), &ask); err != nil || ask.Method != "roots/list" {
		t.Fatalf("the server's request: %+v, %v", ask, err)
	}
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[{"uri":"file:///%s"}]}}`, ask.ID, strings.Repeat("a", limit)))
	r := parseReply(t, w.reply(`"r"`))
	if r.Error != nil || !bytes.Contains(r.Result, []byte("reply dropped: the message is")) {
		t.Errorf("the call whose roots/list got an over-long reply: %s", r.Result)
	}
	if rest := w.end(); len(rest) != 0 {
		t.Errorf("the over-long reply was answered:\n%s", bytes.Join(rest, []byte("\n")))
	}
}

// memProbe samples the heap and the process's resident set while input is read.
type memProbe struct {
	r                 io.Reader
	read, next        int64
	every             int64
	peakHeap, peakRSS uint64
}

func (p *memProbe) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.read >= p.next {
		p.next = p.read + p.every
		p.sample()
	}
	return n, err
}

func (p *memProbe) sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	p.peakHeap = max(p.peakHeap, m.HeapInuse)
	p.peakRSS = max(p.peakRSS, procstat.RSS(0))
}

// skipLine reads a line of size bytes, then a ping, through the transport alone,
// and reports the peak heap and RSS above what they were before.
func skipLine(t *testing.T, limit int, size int64) (heap, rss uint64) {
	t.Helper()
	runtime.GC()
	probe := &memProbe{every: 1 << 20}
	probe.sample()
	baseHeap, baseRSS := probe.peakHeap, probe.peakRSS
	probe.peakHeap, probe.peakRSS = 0, 0
	probe.r = io.MultiReader(longCall("1", "echo", size, false), strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"))
	var out bytes.Buffer
	conn, err := (&StdioTransport{In: probe, Out: &out, lineLimit: limit}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msg, err := conn.Read(context.Background())
	if err != nil {
		t.Fatalf("read after the long line: %v", err)
	}
	probe.sample()
	if !bytes.Contains(out.Bytes(), []byte(`"id":1,"error":{"code":-32600`)) {
		t.Errorf("the long line's reply: %s", out.Bytes())
	}
	if b, _ := json.Marshal(msg); !bytes.Contains(b, []byte(`"ping"`)) {
		t.Errorf("the message after the long line: %s", b)
	}
	return probe.peakHeap - min(baseHeap, probe.peakHeap), probe.peakRSS - min(baseRSS, probe.peakRSS)
}

// Skipping an over-long line costs memory that does not grow with the line: with a
// 1 MiB limit a 64 MiB line peaks at a few MiB of heap. With the real limit the
// peak is what is read before the line passes the limit, which a line just under
// the limit needs anyway.
func TestStdioSkipMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 128 MiB")
	}
	heap, rss := skipLine(t, 1<<20, 64<<20)
	t.Logf("64 MiB line, 1 MiB limit: peak heap +%.1f MiB, peak RSS +%.1f MiB", float64(heap)/(1<<20), float64(rss)/(1<<20))
	if heap > 8<<20 {
		t.Errorf("skipping a 64 MiB line over a 1 MiB limit took %d bytes of heap, want under 8 MiB", heap)
	}
	heap, rss = skipLine(t, maxLineBytes, 64<<20)
	t.Logf("64 MiB line, %d MiB limit: peak heap +%.1f MiB, peak RSS +%.1f MiB", maxLineBytes>>20, float64(heap)/(1<<20), float64(rss)/(1<<20))
	if heap > maxLineBytes+8<<20 {
		t.Errorf("skipping a 64 MiB line over the %d byte limit took %d bytes of heap, want under the limit and 8 MiB", maxLineBytes, heap)
	}
}

// The scanner reads the same head from a line however the line is cut into pieces.
func TestHeadScanner(t *testing.T) {
	for _, tc := range []struct {
		line string
		want lineHead
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ingest","arguments":{"name":"x","id":9}}}`,
			lineHead{id: []byte("7"), request: true, method: "tools/call", tool: "ingest", maxDepth: 3}},
		{`{"params":{"arguments":{"id":1},"name":"a\"b"},"method":"m","id":"x\"y"}`,
			lineHead{id: []byte(`"x\"y"`), request: true, method: "m", tool: `a"b`, maxDepth: 3}},
		{` { "\u0069d" : 1.5e3 , "method" : "ping" } `, lineHead{id: []byte("1.5e3"), request: true, method: "ping", maxDepth: 1}},
		{`{"id":1,"id":2}`, lineHead{id: []byte("2"), maxDepth: 1}},
		{`{"id":{"a":1},"method":"m"}`, lineHead{request: true, method: "m", maxDepth: 2}},
		{`{"id":[1],"method":"m"}`, lineHead{request: true, method: "m", maxDepth: 2}},
		{`{"id":true}`, lineHead{maxDepth: 1}},
		{`{"id":12x}`, lineHead{maxDepth: 1}},
		{`{"id":"unterminated`, lineHead{maxDepth: 1}},
		{`[{"id":1}]`, lineHead{maxDepth: 2}},
		{`{"a":[[[[["id",1]]]]],"id":-3}`, lineHead{id: []byte("-3"), maxDepth: 6}},
		{`{"method":"tools/call","params":[{"name":"x"}],"id":0}`, lineHead{id: []byte("0"), request: true, method: "tools/call", maxDepth: 3}},
		{`{"id":"` + strings.Repeat("z", maxCapture) + `"}`, lineHead{maxDepth: 1}},
		{"\x00\xff{\"id\":5}", lineHead{id: []byte("5"), maxDepth: 1}},
	} {
		for cut := 0; cut <= len(tc.line); cut += 1 + len(tc.line)/40 {
			var s headScanner
			s.Write([]byte(tc.line[:cut]))
			for _, c := range []byte(tc.line[cut:]) {
				s.Write([]byte{c})
			}
			got := s.head()
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(lineHead{})); diff != "" {
				t.Errorf("%.80s cut at %d (-want +got):\n%s", tc.line, cut, diff)
				break
			}
		}
	}
}

// A planted request in a framing stream: the reply must carry exactly its id.
type planted struct {
	id       string
	overlong bool
}

// framingStream builds an input of noise, over-long lines, partial JSON and
// blank lines, with well-formed requests interleaved, each on a line of its own.
func framingStream(seed uint64, noise []byte, limit int) ([]byte, []planted) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b bytes.Buffer
	var want []planted
	b.WriteString(initLine + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	chunk := func(n int) []byte {
		if len(noise) == 0 {
			return bytes.Repeat([]byte{'\x00'}, n)
		}
		out := make([]byte, 0, n)
		for len(out) < n {
			i := r.IntN(len(noise))
			out = append(out, noise[i:min(len(noise), i+n-len(out))]...)
		}
		return out
	}
	ids := []func(k int) string{
		func(k int) string { return fmt.Sprint(1000000 + k) },
		func(k int) string { return fmt.Sprintf(`"fz\u00e9-%d"`, k) },
		func(k int) string { return fmt.Sprintf("%d.5", 1000000+k) },
		func(k int) string { return fmt.Sprintf("987654321987654321%03d", k) },
		func(k int) string { return fmt.Sprintf(`"fz-ü-%d"`, k) },
	}
	n := 4 + r.IntN(24)
	for k := range n {
		switch r.IntN(7) {
		case 0, 1: // a well-formed request
			id := ids[r.IntN(len(ids))](k)
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "\n"+`{"jsonrpc":"2.0","id":%s,"method":"ping"}`+"\n", id)
			} else {
				fmt.Fprintf(&b, "\n"+`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"k":%d}}}`+"\n", id, k)
			}
			want = append(want, planted{id: id})
		case 2: // noise, newlines and all
			b.Write(chunk(r.IntN(2 * limit)))
			b.WriteByte('\n')
		case 3: // a well-formed request over the limit, its id first or last
			id := ids[r.IntN(len(ids))](k)
			filler := strings.Repeat("A", limit+r.IntN(3*limit))
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "\n"+`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"b":"%s"}}}`+"\n", id, filler)
			} else {
				fmt.Fprintf(&b, "\n"+`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"b":"%s"}},"id":%s}`+"\n", filler, id)
			}
			want = append(want, planted{id: id, overlong: true})
		case 4: // a request cut short, with noise after it
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":"cut-%d","method":"tools/call","params":{"name":"echo","arguments":{"s":"%s"}}}`, k, chunk(8))
			b.WriteString("\n" + line[:r.IntN(len(line))])
			b.Write(chunk(r.IntN(16)))
			b.WriteByte('\n')
		case 5: // blank lines
			b.WriteString([]string{"\n", "\r\n", " \t \n", "\n\n\n"}[r.IntN(4)])
		case 6: // deep nesting
			d := 1 + r.IntN(3*maxMessageDepth)
			fmt.Fprintf(&b, "\n"+`{"jsonrpc":"2.0","id":"deep-%d","method":"ping","params":{"x":%s%s}}`+"\n", k, strings.Repeat("[", d), strings.Repeat("]", d))
		}
	}
	if r.IntN(2) == 0 && bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.Truncate(b.Len() - 1) // the last line ends at EOF, not at a newline
	}
	return b.Bytes(), want
}

// lockedBuffer is the server's stdout: written by the SDK's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// checkFraming runs one stream through a server session and checks the framing:
// the session ends at EOF, every line out is a JSON-RPC response or a message of
// the server's, every error has a real code, and each planted request gets exactly
// one reply with its exact id.
func checkFraming(t testing.TB, in []byte, want []planted, limit int) {
	t.Helper()
	var out lockedBuffer
	tr := &StdioTransport{In: bytes.NewReader(in), Out: &out, DrainTimeout: hangGuard, lineLimit: limit}
	done := make(chan error, 1)
	go func() { done <- blockServer().srv.Run(context.Background(), tr) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("the session did not end at EOF; input:\n%q", in)
	}
	got := map[string][]wireReply{}
	sc := bufio.NewScanner(bytes.NewReader(out.b.Bytes()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			Result  json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("a line out is not JSON-RPC: %v\n%q", err, line)
		}
		if m.Method != "" {
			continue // a notification or request of the server's
		}
		r := parseReply(t, line)
		if (r.Error == nil) == (m.Result == nil) {
			t.Fatalf("a reply needs exactly one of result and error: %q", line)
		}
		if r.Error != nil && r.Error.Code == 0 {
			t.Fatalf("an error with code 0: %q", line)
		}
		got[string(r.ID)] = append(got[string(r.ID)], r)
	}
	for _, p := range want {
		rs := got[p.id]
		if len(rs) == 0 && bytes.Contains(in, []byte(`"notifications/cancelled","params":{"requestId":`+p.id)) {
			continue // noise cancelled it while in flight: a cancelled request gets no reply
		}
		if len(rs) != 1 {
			t.Fatalf("%d replies with id %s, want 1; input:\n%q\noutput:\n%s", len(rs), p.id, in, out.b.Bytes())
		}
		// Noise may cancel a planted request (notifications/cancelled naming its
		// id) after it was answered, or race the answer: then its one reply may be
		// an error too.
		e := rs[0].Error
		if failed := e != nil; failed != p.overlong && !(failed && strings.Contains(e.Message, "cancel")) {
			t.Fatalf("reply to the request with id %s (over-long %v): %+v", p.id, p.overlong, rs[0])
		}
	}
}

// The framing holds on many seeded streams of noise, with a small line limit so
// that over-long lines are cheap, and with one stream of real size.
func TestStdioFramingNoise(t *testing.T) {
	noise := []byte("\x00\xff\xfe{\"jsonrpc\":\"2.0\",\"id\":[\x00]}\"\\\n\xc3\x28 €\r\n{}{[[[")
	runs := 200
	if testing.Short() {
		runs = 20
	}
	for seed := range uint64(runs) {
		in, want := framingStream(seed, noise, 256)
		checkFraming(t, in, want, 256)
	}
}

// FuzzStdioFraming runs the framing check on streams built from fuzzed noise and
// seeds. Run with: go test ./internal/server -run '^$' -fuzz FuzzStdioFraming.
func FuzzStdioFraming(f *testing.F) {
	f.Add(uint64(1), []byte("\x00\xff"))
	f.Add(uint64(7), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"`))
	f.Add(uint64(42), []byte("\n\n\r\n{\"id\":\"\\u0000\"}[[[[[[[[[["))
	f.Add(uint64(99), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1000001}}`+"\n"))
	f.Fuzz(func(t *testing.T, seed uint64, noise []byte) {
		if len(noise) > 4<<10 {
			return
		}
		in, want := framingStream(seed, noise, 512)
		checkFraming(t, in, want, 512)
	})
}
