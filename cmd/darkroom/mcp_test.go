package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

// The protocol version every scripted session asks for, so goldens do not change
// when the SDK learns a newer one.
const pinnedProtocol = "2025-06-18"

const mcpUsage = "mcp [-noinit] FILE [-- SERVE-ARGS...]"

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
//
// Every tools/call reply is checked against the outputSchema that tools/list
// advertised for its tool, and every advertised schema must compile as JSON
// Schema 2020-12: a failure fails the script.
func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! mcp")
	}
	init := true
	if len(args) > 0 && args[0] == "-noinit" {
		init, args = false, args[1:]
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
	defer s.close(ts)
	var out bytes.Buffer
	if init {
		s.roundTrip(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"testscript","version":"0"}}}`, pinnedProtocol), nil)
		s.send(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.loadSchemas(ts)
	}
	for _, m := range msgs {
		fmt.Fprintf(&out, "--> %s\n", m)
		if json.Valid([]byte(m)) && !strings.Contains(m, `"id"`) {
			s.send(ts, m)
			continue
		}
		reply := s.roundTrip(ts, m, &out)
		if strings.Contains(m, `"initialize"`) {
			s.send(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			s.loadSchemas(ts)
		}
		s.checkOutput(ts, m, reply)
		fmt.Fprintf(&out, "<-- %s\n", indent(reply))
	}
	ts.Stdout().Write(out.Bytes())
}

func parseSession(data string) ([]string, error) {
	var msgs []string
	id := 0
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id++
		switch {
		case line == "list":
			msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		case strings.HasPrefix(line, "call "):
			name, args, _ := strings.Cut(strings.TrimPrefix(line, "call "), " ")
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if !json.Valid([]byte(args)) {
				return nil, fmt.Errorf("line %d: arguments are not JSON: %s", n+1, args)
			}
			msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args))
		default:
			msgs = append(msgs, line)
		}
	}
	return msgs, nil
}

type serverProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan []byte
	stderr  bytes.Buffer
	schemas map[string]*jsonschema.Resolved
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
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "DARKROOM_FAULT"} {
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
			if got.Method == "" && bytes.Equal(got.ID, req.ID) {
				return line
			}
			if out != nil {
				fmt.Fprintf(out, "<-- %s\n", indent(line))
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
		} `json:"result"`
	}
	ts.Check(json.Unmarshal(reply, &res))
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
