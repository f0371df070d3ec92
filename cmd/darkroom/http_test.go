package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

const httpUsage = "http [-token FILE] SESSION [-- SERVE-ARGS...]"

// listening is the line serve --http prints once it accepts connections.
var listening = regexp.MustCompile(`listening on (\S+);`)

// retryAfter matches a limit_exceeded's wait, in details and in the message.
var retryAfter = regexp.MustCompile(`(retry_after_ms\\?":\s*|retry in )[0-9]+`)

// cmdHTTP drives one `darkroom serve --http 127.0.0.1:0` session as cmdMCP drives a
// stdio one: the server is started, its address read from its stderr, the session
// initialized with the bearer token in FILE (as `token add` printed it), and each
// message of SESSION posted and printed with its reply, normalized as mcp's are,
// the server's address as $ADDR. Besides mcp's shorthands, SESSION may say
//
//	noauth      post an initialize without a token: prints the status and WWW-Authenticate
//	badtoken    the same with a token that is not one
//	metadata    get the protected-resource metadata the 401 names
//
// Every tools/call reply is checked against the advertised outputSchema.
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! http")
	}
	var token string
	if len(args) > 1 && args[0] == "-token" {
		token, args = strings.TrimSpace(ts.ReadFile(args[1])), args[2:]
	}
	if len(args) < 1 {
		ts.Fatalf("usage: %s", httpUsage)
	}
	file, serveArgs := args[0], args[1:]
	if len(serveArgs) > 0 && serveArgs[0] == "--" {
		serveArgs = serveArgs[1:]
	}
	msgs, err := parseSession(ts.ReadFile(file))
	ts.Check(err)

	srv, stderr := startHTTPServer(ts, serveArgs)
	defer func() {
		srv.cmd.Process.Kill()
		srv.cmd.Wait()
	}()
	addr := waitListening(ts, stderr)
	c := &httpClient{ts: ts, url: "http://" + addr + "/mcp", token: token, srv: srv, stderr: stderr}
	var out bytes.Buffer
	if token != "" {
		c.initialize()
	}
	var vars []capture
	var last []byte
	for _, m := range msgs {
		switch m {
		case "noauth", "badtoken":
			tok := ""
			if m == "badtoken" {
				tok = "drk_this-is-no-token"
			}
			resp := c.post(tok, initMessage)
			resp.Body.Close()
			fmt.Fprintf(&out, "--> %s\n<-- %d %s\n    WWW-Authenticate: %s\n", m, resp.StatusCode, http.StatusText(resp.StatusCode), resp.Header.Get("WWW-Authenticate"))
			continue
		case "metadata":
			resp, err := http.Get("http://" + addr + "/.well-known/oauth-protected-resource/mcp")
			ts.Check(err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Fprintf(&out, "--> metadata\n<-- %d %s\n", resp.StatusCode, indent(b))
			continue
		}
		if rest, ok := strings.CutPrefix(m, "let "); ok {
			name, ptr, _ := strings.Cut(rest, " ")
			vars = append(vars, capture{name, lookupPointer(ts, last, ptr)})
			continue
		}
		setup := strings.HasPrefix(m, "setup ")
		if setup {
			m = strings.TrimPrefix(m, "setup ")
		} else {
			fmt.Fprintf(&out, "--> %s\n", m)
		}
		for _, v := range vars {
			m = strings.ReplaceAll(m, "$"+v.name, v.value)
		}
		reply := c.roundTrip(m, &out)
		last = reply
		srv.checkOutput(ts, m, reply)
		if setup {
			if !bytes.Contains(reply, []byte(`"result"`)) || bytes.Contains(reply, []byte(`"isError":true`)) {
				ts.Fatalf("setup %s failed: %s", m, reply)
			}
			continue
		}
		fmt.Fprintf(&out, "<-- %s\n", indent(srv.normalize(ts, reply)))
	}
	transcript := bytes.ReplaceAll(out.Bytes(), []byte(addr), []byte("$ADDR"))
	// How long until a rate-limited call passes depends on when the script ran.
	transcript = retryAfter.ReplaceAll(transcript, []byte("${1}<ms>"))
	for _, v := range vars {
		transcript = bytes.ReplaceAll(transcript, []byte(v.value), []byte("$"+v.name))
	}
	ts.Stdout().Write(transcript)
}

var initMessage = fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"testscript","version":"0"}}}`, pinnedProtocol)

// lockedBuffer is the server's stderr, read while the server writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startHTTPServer starts `darkroom serve --http 127.0.0.1:0 SERVE-ARGS` in the
// script's directory and environment.
func startHTTPServer(ts *testscript.TestScript, serveArgs []string) (*serverProc, *lockedBuffer) {
	bin := ""
	for _, dir := range strings.Split(ts.Getenv("PATH"), string(os.PathListSeparator)) {
		if p := dir + "/darkroom"; fileExists(p) {
			bin = p
			break
		}
	}
	if bin == "" {
		ts.Fatalf("no darkroom on the script's PATH")
	}
	s := &serverProc{}
	s.cmd = exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0"}, serveArgs...)...)
	s.cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "DARKROOM_FAULT", "DARKROOM_WORKSPACE", "DARKROOM_TOKENS"} {
		if v := ts.Getenv(k); v != "" {
			s.cmd.Env = append(s.cmd.Env, k+"="+v)
		}
	}
	stderr := &lockedBuffer{}
	s.cmd.Stderr = stderr
	ts.Check(s.cmd.Start())
	return s, stderr
}

// waitListening reads the server's stderr until it says where it listens.
func waitListening(ts *testscript.TestScript, stderr *lockedBuffer) string {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("serve --http did not say where it listens:\n%s", stderr.String())
	return ""
}

// httpClient posts JSON-RPC messages to one session of the endpoint.
type httpClient struct {
	ts      *testscript.TestScript
	url     string
	token   string
	session string
	srv     *serverProc
	stderr  *lockedBuffer
}

func (c *httpClient) post(token, msg string) *http.Response {
	req, err := http.NewRequest("POST", c.url, strings.NewReader(msg))
	c.ts.Check(err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", pinnedProtocol)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	c.ts.Check(err)
	return resp
}

func (c *httpClient) initialize() {
	reply := c.roundTrip(initMessage, nil)
	if !bytes.Contains(reply, []byte(`"result"`)) {
		c.ts.Fatalf("initialize: %s", reply)
	}
	resp := c.post(c.token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	reply = c.roundTrip(`{"jsonrpc":"2.0","id":"schemas","method":"tools/list"}`, nil)
	var res struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	c.ts.Check(json.Unmarshal(reply, &res))
	c.srv.schemas = map[string]*jsonschema.Resolved{}
	for _, t := range res.Result.Tools {
		var sch jsonschema.Schema
		c.ts.Check(json.Unmarshal(t.OutputSchema, &sch))
		r, err := sch.Resolve(nil)
		c.ts.Check(err)
		c.srv.schemas[t.Name] = r
	}
}

// roundTrip posts a request and returns its reply; messages the server streams
// first (progress) are printed to out when it is not nil. A reply that is not
// JSON-RPC (an HTTP error) is returned as {"http_status": N, "body": "..."}.
func (c *httpClient) roundTrip(msg string, out *bytes.Buffer) []byte {
	resp := c.post(c.token, msg)
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		j, _ := json.Marshal(map[string]any{"http_status": resp.StatusCode, "body": strings.TrimSpace(string(b))})
		return j
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		c.ts.Check(err)
		return b
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var got struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		c.ts.Check(json.Unmarshal([]byte(data), &got))
		if got.Method == "" {
			return []byte(data)
		}
		if out != nil {
			fmt.Fprintf(out, "<-- %s\n", indent(c.srv.normalize(c.ts, []byte(data))))
		}
	}
	c.ts.Fatalf("the stream ended without a reply to %s\nserver stderr:\n%s", msg, c.stderr.String())
	return nil
}
