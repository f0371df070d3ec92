package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // image content of render results
	_ "image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

// The protocol version every scripted session asks for, so goldens do not change
// when the SDK learns a newer one.
const pinnedProtocol = "2025-06-18"

const mcpUsage = "mcp [-noinit] [-sampling REPLIES] FILE [-- SERVE-ARGS...]"

// cmdMCP drives one `darkroom serve` session in lockstep: it sends each message of
// FILE, waits for the reply with the same id and prints both, so the transcript is
// deterministic although replies are asynchronous. Unless FILE starts with its own
// initialize (or -noinit is given) the session is initialized first, with the pinned
// protocol version, and not printed.
//
// FILE holds one message per line: raw JSON-RPC, or the shorthands
//
//	list                   tools/list
//	call NAME {ARGS}       tools/call
//	setup NAME {ARGS}      tools/call that must succeed, not printed: state a case needs
//	let NAME /POINTER      capture a string of the last reply's structuredContent
//
// A captured value (a random proposal id) replaces $NAME in later messages, and
// $NAME replaces the value everywhere in the transcript, so it stays deterministic.
// Replies are normalized before they are printed (see normalize): image content
// becomes "<jpeg N bytes WxH>", RFC 3339 times "<time>", the script's directory $WORK.
//
// Every tools/call reply is checked against the outputSchema that tools/list
// advertised for its tool, and every advertised schema must compile as JSON
// Schema 2020-12: a failure fails the script.
//
// With -sampling REPLIES the client offers sampling (capabilities.sampling in the
// initialize it sends) and answers the server's sampling/createMessage requests
// from REPLIES, a file of JSON lines {"match": TEXT, "result": CreateMessageResult}:
// the first line whose match occurs in the request's params answers it, and a
// request no line matches fails the script. Each request (images shown as for
// results, without its id, which depends on timing) and its answer are printed
// before the reply to the call that caused them, sorted, since the server may send
// them concurrently.
func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! mcp")
	}
	init := true
	var sampling []samplingReply
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-noinit":
			init, args = false, args[1:]
		case args[0] == "-sampling" && len(args) > 1:
			sampling, args = parseSamplingReplies(ts, args[1]), args[2:]
		default:
			ts.Fatalf("usage: %s", mcpUsage)
		}
	}
	if len(args) < 1 {
		ts.Fatalf("usage: %s", mcpUsage)
	}
	file, serveArgs := args[0], args[1:]
	if len(serveArgs) > 0 && serveArgs[0] == "--" {
		serveArgs = serveArgs[1:]
	}
	msgs, err := parseSession(ts.ReadFile(file))
	ts.Check(err)
	if len(msgs) > 0 && strings.Contains(msgs[0], `"initialize"`) {
		init = false
	}

	s := startServer(ts, serveArgs)
	s.sampling = sampling
	defer s.close(ts)
	var out bytes.Buffer
	if init {
		caps := "{}"
		if sampling != nil {
			caps = `{"sampling":{}}`
		}
		s.roundTrip(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"testscript","version":"0"}}}`, pinnedProtocol, caps), nil)
		s.send(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.loadSchemas(ts)
	}
	var vars []capture
	var last []byte
	for _, m := range msgs {
		if rest, ok := strings.CutPrefix(m, "let "); ok {
			name, ptr, _ := strings.Cut(rest, " ")
			vars = append(vars, capture{name, lookupPointer(ts, last, ptr)})
			slices.SortStableFunc(vars, func(a, b capture) int { return len(b.name) - len(a.name) })
			continue
		}
		setup := strings.HasPrefix(m, "setup ")
		if setup {
			m = strings.TrimPrefix(m, "setup ")
		} else {
			fmt.Fprintf(&out, "--> %s\n", m)
		}
		for _, v := range vars { // longest name first: $A12 before $A1
			m = strings.ReplaceAll(m, "$"+v.name, v.value)
		}
		if setup {
			last = s.roundTrip(ts, m, nil)
			var res struct {
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if json.Unmarshal(last, &res) != nil || res.Result.IsError || !bytes.Contains(last, []byte(`"result"`)) {
				ts.Fatalf("setup %s failed: %s", m, last)
			}
			s.checkOutput(ts, m, last)
			continue
		}
		if json.Valid([]byte(m)) && !strings.Contains(m, `"id"`) {
			s.send(ts, m)
			continue
		}
		reply := s.roundTrip(ts, m, &out)
		last = reply
		if strings.Contains(m, `"initialize"`) {
			s.send(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			s.loadSchemas(ts)
		}
		s.checkOutput(ts, m, reply)
		fmt.Fprintf(&out, "<-- %s\n", indent(s.normalize(ts, reply)))
	}
	transcript := out.Bytes()
	for _, v := range vars {
		transcript = bytes.ReplaceAll(transcript, []byte(v.value), []byte("$"+v.name))
	}
	ts.Stdout().Write(transcript)
}

// capture is a value taken from a reply by `let`.
type capture struct{ name, value string }

// lookupPointer returns the string at a JSON pointer (RFC 6901, without escapes)
// into a reply's result.structuredContent.
func lookupPointer(ts *testscript.TestScript, reply []byte, ptr string) string {
	var msg struct {
		Result struct {
			StructuredContent any `json:"structuredContent"`
		} `json:"result"`
	}
	if reply == nil || json.Unmarshal(reply, &msg) != nil {
		ts.Fatalf("let %s: no reply to take it from", ptr)
	}
	v := msg.Result.StructuredContent
	for _, key := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("let %s: no item %q", ptr, key)
			}
			v = x[i]
		default:
			ts.Fatalf("let %s: nothing at %q", ptr, key)
		}
	}
	str, ok := v.(string)
	if !ok || str == "" {
		ts.Fatalf("let %s: %v is not a non-empty string", ptr, v)
	}
	return str
}

// rfc3339 matches a JSON string that may be a time, or such a string quoted again
// inside a JSON string (the envelope as text in content[1]).
// durationMS matches a measured time in milliseconds (augment_image's per-step and
// total times), in a reply's JSON or in the JSON text of its content.
var durationMS = regexp.MustCompile(`(\\?"(?:elapsed_|retry_after_)?ms\\?":\s*)[0-9.eE+-]+`)

var rfc3339 = regexp.MustCompile(`(\\?)"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))\\?"`)

// normalize makes a reply deterministic and readable before it is printed:
//   - image content is checked (it must decode as the image its mimeType says) and
//     its base64 data replaced by "<jpeg N bytes WxH>";
//   - times (JSON strings in RFC 3339) become "<time>": the log and the context
//     tools report when things happened, which a golden cannot know;
//   - the script's work directory becomes $WORK, in paths under the workspace.
//
// Normalizing the transcript keeps the server free of test hooks for the clock; a
// time that is not RFC 3339 stays as it is and breaks the golden, as it should.
func (s *serverProc) normalize(ts *testscript.TestScript, reply []byte) []byte {
	var msg struct {
		Result struct {
			Content []struct {
				Type     string `json:"type"`
				Data     string `json:"data"`
				MimeType string `json:"mimeType"`
			} `json:"content"`
		} `json:"result"`
	}
	ts.Check(json.Unmarshal(reply, &msg))
	for _, c := range msg.Result.Content {
		if c.Type != "image" {
			continue
		}
		reply = bytes.ReplaceAll(reply, mustJSON(c.Data), []byte(imagePlaceholder(ts, c.Data, c.MimeType)))
	}
	reply = durationMS.ReplaceAll(reply, []byte("${1}<ms>"))
	reply = rfc3339.ReplaceAllFunc(reply, func(b []byte) []byte {
		m := rfc3339.FindSubmatch(b)
		esc := string(m[1])
		if !bytes.HasSuffix(b, []byte(esc+`"`)) {
			return b
		}
		if _, err := time.Parse(time.RFC3339Nano, string(m[2])); err != nil {
			return b
		}
		return []byte(esc + `"<time>` + esc + `"`)
	})
	work := ts.MkAbs(".")
	if real, err := filepath.EvalSymlinks(work); err == nil && real != work {
		reply = bytes.ReplaceAll(reply, []byte(real), []byte("$WORK"))
	}
	return bytes.ReplaceAll(reply, []byte(work), []byte("$WORK"))
}

func parseSession(data string) ([]string, error) {
	var msgs []string
	id := 0
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "let ") {
			if f := strings.Fields(line); len(f) != 3 || !strings.HasPrefix(f[2], "/") {
				return nil, fmt.Errorf("line %d: want let NAME /POINTER, got %s", n+1, line)
			}
			msgs = append(msgs, strings.Join(strings.Fields(line), " "))
			continue
		}
		id++
		switch {
		case line == "list":
			msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		case strings.HasPrefix(line, "call "), strings.HasPrefix(line, "setup "):
			verb, rest, _ := strings.Cut(line, " ")
			name, args, _ := strings.Cut(rest, " ")
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if !json.Valid([]byte(args)) {
				return nil, fmt.Errorf("line %d: arguments are not JSON: %s", n+1, args)
			}
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
			if verb == "setup" {
				msg = "setup " + msg
			}
			msgs = append(msgs, msg)
		default:
			msgs = append(msgs, line)
		}
	}
	return msgs, nil
}

// samplingReply is a canned answer to a sampling/createMessage request whose
// params contain Match.
type samplingReply struct {
	Match  string          `json:"match"`
	Result json.RawMessage `json:"result"`
}

func parseSamplingReplies(ts *testscript.TestScript, file string) []samplingReply {
	replies := []samplingReply{}
	for n, line := range strings.Split(ts.ReadFile(file), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r samplingReply
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.Match == "" || len(r.Result) == 0 {
			ts.Fatalf("%s:%d: want {\"match\": TEXT, \"result\": {...}}: %v", file, n+1, err)
		}
		replies = append(replies, r)
	}
	return replies
}

// answerSampling answers a sampling/createMessage request from the canned replies
// and returns what to print: the request without its id, then the answer.
func (s *serverProc) answerSampling(ts *testscript.TestScript, line []byte) string {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	ts.Check(json.Unmarshal(line, &req))
	var reply *samplingReply
	for i, r := range s.sampling {
		if bytes.Contains(req.Params, []byte(r.Match)) {
			reply = &s.sampling[i]
			break
		}
	}
	if reply == nil {
		ts.Fatalf("no sampling reply matches the request %s", indent(s.normalizeImages(ts, req.Params)))
	}
	s.send(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, reply.Result))
	shown := fmt.Sprintf(`{"jsonrpc":"2.0","method":"sampling/createMessage","params":%s}`, s.normalizeImages(ts, req.Params))
	return fmt.Sprintf("<-- %s\n--> (answer) %s\n", indent([]byte(shown)), reply.Result)
}

// normalizeImages replaces the data of the image content in a sampling request's
// messages as normalize does in results.
func (s *serverProc) normalizeImages(ts *testscript.TestScript, params []byte) []byte {
	var p struct {
		Messages []struct {
			Content struct {
				Type     string `json:"type"`
				Data     string `json:"data"`
				MimeType string `json:"mimeType"`
			} `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	for _, m := range p.Messages {
		if c := m.Content; c.Type == "image" {
			params = bytes.ReplaceAll(params, mustJSON(c.Data), []byte(imagePlaceholder(ts, c.Data, c.MimeType)))
		}
	}
	return params
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// imagePlaceholder checks base64 image data (it must decode as the image its
// mimeType says) and names it: "<jpeg N bytes WxH>", quoted.
func imagePlaceholder(ts *testscript.TestScript, data, mimeType string) string {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		ts.Fatalf("image content is not base64: %v", err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || "image/"+format != mimeType {
		ts.Fatalf("image content with mimeType %s decodes as %q: %v", mimeType, format, err)
	}
	return fmt.Sprintf(`"<%s %d bytes %dx%d>"`, format, len(raw), cfg.Width, cfg.Height)
}

type serverProc struct {
	sampling []samplingReply // nil: the client offers no sampling
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	replies  chan []byte
	stderr   bytes.Buffer
	schemas  map[string]*jsonschema.Resolved
}

func startServer(ts *testscript.TestScript, serveArgs []string) *serverProc {
	bin, err := exec.LookPath("darkroom")
	if err != nil {
		// testscript puts the command on the script's PATH, not the test's.
		for _, dir := range strings.Split(ts.Getenv("PATH"), string(os.PathListSeparator)) {
			if p := dir + "/darkroom"; fileExists(p) {
				bin, err = p, nil
				break
			}
		}
	}
	ts.Check(err)
	s := &serverProc{replies: make(chan []byte, 64)}
	s.cmd = exec.Command(bin, append([]string{"serve"}, serveArgs...)...)
	s.cmd.Dir = ts.MkAbs(".")
	// The script's environment, not the test process's: scripts set DARKROOM_* with env.
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "DARKROOM_FAULT", "DARKROOM_WORKSPACE"} {
		if v := ts.Getenv(k); v != "" {
			s.cmd.Env = append(s.cmd.Env, k+"="+v)
		}
	}
	s.cmd.Stderr = &s.stderr
	s.stdin, err = s.cmd.StdinPipe()
	ts.Check(err)
	stdout, err := s.cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(s.cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.replies <- append([]byte(nil), sc.Bytes()...)
		}
		close(s.replies)
	}()
	return s
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (s *serverProc) send(ts *testscript.TestScript, msg string) {
	if _, err := io.WriteString(s.stdin, msg+"\n"); err != nil {
		ts.Fatalf("send: %v\nserver stderr:\n%s", err, s.stderr.String())
	}
}

// roundTrip sends a request and returns the reply with its id; server messages that
// come first (notifications, server requests) are printed to out when it is non-nil.
func (s *serverProc) roundTrip(ts *testscript.TestScript, msg string, out *bytes.Buffer) []byte {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if !json.Valid([]byte(msg)) {
		// Not JSON: the reply is a parse error, which has no id.
		req.ID = nil
	} else {
		ts.Check(json.Unmarshal([]byte(msg), &req))
	}
	s.send(ts, msg)
	timeout := time.After(60 * time.Second)
	var sampled []string // printed sorted, before the reply
	flush := func() {
		slices.Sort(sampled)
		for _, x := range sampled {
			if out != nil {
				out.WriteString(x)
			}
		}
	}
	for {
		select {
		case line, ok := <-s.replies:
			if !ok {
				ts.Fatalf("server exited before replying to %s\nserver stderr:\n%s", req.ID, s.stderr.String())
			}
			var got struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			ts.Check(json.Unmarshal(line, &got))
			if bytes.Equal(got.ID, []byte("null")) {
				got.ID = nil
			}
			// The reply to a line that is not JSON carries the id only when the
			// server could read one from it; in lockstep it is the next response.
			if got.Method == "" && (bytes.Equal(got.ID, req.ID) || !json.Valid([]byte(msg))) {
				flush()
				return line
			}
			if got.Method == "sampling/createMessage" && got.ID != nil && s.sampling != nil {
				sampled = append(sampled, s.answerSampling(ts, line))
				continue
			}
			// A list_changed notification (resources after an ingest) is sent after a
			// short delay that batches changes, so where it lands among the replies
			// depends on timing: it is left out of the transcript. Progress and log
			// notifications belong to their call and are kept.
			if out != nil && !strings.HasSuffix(got.Method, "/list_changed") {
				fmt.Fprintf(out, "<-- %s\n", indent(s.normalize(ts, line)))
			}
		case <-timeout:
			ts.Fatalf("no reply to %s within 60s\nserver stderr:\n%s", req.ID, s.stderr.String())
		}
	}
}

func (s *serverProc) loadSchemas(ts *testscript.TestScript) {
	reply := s.roundTrip(ts, `{"jsonrpc":"2.0","id":"schemas","method":"tools/list"}`, nil)
	var res struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	ts.Check(json.Unmarshal(reply, &res))
	s.schemas = map[string]*jsonschema.Resolved{}
	for _, t := range res.Result.Tools {
		for _, raw := range []json.RawMessage{t.InputSchema, t.OutputSchema} {
			var sch jsonschema.Schema
			if err := json.Unmarshal(raw, &sch); err != nil {
				ts.Fatalf("tool %s: schema does not parse: %v", t.Name, err)
			}
			r, err := sch.Resolve(nil)
			if err != nil {
				ts.Fatalf("tool %s: schema is not valid JSON Schema: %v", t.Name, err)
			}
			if &raw[0] == &t.OutputSchema[0] {
				s.schemas[t.Name] = r
			}
		}
	}
}

// checkOutput validates a tools/call reply's structuredContent against the tool's
// advertised outputSchema.
func (s *serverProc) checkOutput(ts *testscript.TestScript, request string, reply []byte) {
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(request), &req) != nil || req.Method != "tools/call" {
		return
	}
	var res struct {
		Result struct {
			StructuredContent any `json:"structuredContent"`
			Content           []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	ts.Check(json.Unmarshal(reply, &res))
	if res.Result.StructuredContent != nil {
		// Hosts that forward only content get the envelope as JSON in content[1].
		var text any
		if len(res.Result.Content) < 2 || res.Result.Content[1].Type != "text" ||
			json.Unmarshal([]byte(res.Result.Content[1].Text), &text) != nil ||
			!reflect.DeepEqual(text, res.Result.StructuredContent) {
			ts.Fatalf("%s: content[1] is not the structuredContent as JSON text", req.Params.Name)
		}
	}
	schema, ok := s.schemas[req.Params.Name]
	if !ok || res.Result.StructuredContent == nil {
		return
	}
	if err := schema.Validate(res.Result.StructuredContent); err != nil {
		ts.Fatalf("%s: structuredContent does not satisfy the advertised outputSchema: %v", req.Params.Name, err)
	}
}

func (s *serverProc) close(ts *testscript.TestScript) {
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			ts.Logf("server: %v\n%s", err, s.stderr.String())
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		ts.Fatalf("server did not exit within 30s of stdin closing")
	}
	if s.stderr.Len() > 0 {
		ts.Logf("server stderr:\n%s", s.stderr.String())
	}
}

func indent(b []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return string(b)
	}
	return buf.String()
}
