package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// System tests: the real binary, driven over stdio by the SDK's MCP client (a client
// that is not darkroom's code path) or, where requests must be pipelined and the
// process killed in the middle, by raw JSON-RPC lines.

// serveCmd is `darkroom serve ARGS...` run from the test binary (testscript.Main
// runs the darkroom command when the binary is invoked by that name).
func serveCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &exec.Cmd{Path: exe, Args: append([]string{"darkroom", "serve"}, args...)}
}

// photoDir writes the sample photo into a new directory and returns the directory.
func photoDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "coffee.png"), darkroom.SamplePhoto, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// connect starts the binary with serve args and connects client to it.
func connect(t *testing.T, client *mcp.Client, args ...string) *mcp.ClientSession {
	t.Helper()
	return connectVersion(t, client, "", args...)
}

// connectVersion is connect with a protocol version for the client to ask for ("":
// the SDK's latest).
func connectVersion(t *testing.T, client *mcp.Client, protocol string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := serveCmd(t, args...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		checkStderr(t, stderr.String())
	})
	return cs
}

// checkStderr logs what the server wrote to stderr and fails on a data race (the
// server is this test binary, built with -race when the tests are) or a panic.
func checkStderr(t *testing.T, stderr string) {
	t.Helper()
	if stderr == "" {
		return
	}
	t.Logf("server stderr:\n%s", stderr)
	if strings.Contains(stderr, "DATA RACE") || strings.Contains(stderr, "panic:") {
		t.Errorf("the server reported a data race or a panic")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newClient(roots ...string) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "system-test", Version: "0"}, nil)
	for _, r := range roots {
		c.AddRoots(&mcp.Root{URI: fileURI(r)})
	}
	return c
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// result is a tool's envelope.
type result struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r result) code() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// mutation is the part of a mutating tool's data the tests read.
type mutation struct {
	SnapshotHash string `json:"snapshot_hash"`
	StateAfter   struct {
		Head       string  `json:"head"`
		Branch     *string `json:"branch"`
		EntryCount int     `json:"entry_count"`
	} `json:"state_after"`
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: structuredContent %s: %v", name, b, err)
	}
	if r.Success == res.IsError {
		t.Fatalf("%s: success %v but isError %v", name, r.Success, res.IsError)
	}
	return r
}

func mustSucceed(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) json.RawMessage {
	t.Helper()
	r := callTool(t, cs, name, args)
	if !r.Success {
		t.Fatalf("%s %v: %s: %s", name, args, r.Error.Code, r.Error.Message)
	}
	return r.Data
}

// TestPathSafety calls ingest through the binary with paths that try to leave the
// allowed root: "..", an absolute path elsewhere, a symlink to a file outside, a
// symlinked directory that leads outside. Each is permission_error; a photo inside
// the root is ingested. An image_b64 over the limit is limit_exceeded.
func TestPathSafety(t *testing.T) {
	t.Parallel()
	allowed, outside := photoDir(t), photoDir(t)
	if err := os.Symlink(filepath.Join(outside, "coffee.png"), filepath.Join(allowed, "link.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(allowed, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(allowed, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(allowed, filepath.Join(outside, "coffee.png"))
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newClient(), "--workspace", t.TempDir(), "--allow-root", allowed)

	for _, tc := range []struct {
		name, path, code string
	}{
		{"dotdot", filepath.Join(allowed, rel), darkroom.PermissionError},
		{"dotdot_inside", allowed + "/sub/../coffee.png", darkroom.PermissionError},
		{"relative_dotdot", "../" + filepath.Base(outside) + "/coffee.png", darkroom.PermissionError},
		{"absolute_elsewhere", filepath.Join(outside, "coffee.png"), darkroom.PermissionError},
		{"symlink_out", filepath.Join(allowed, "link.png"), darkroom.PermissionError},
		{"symlinked_dir_out", filepath.Join(allowed, "dirlink", "coffee.png"), darkroom.PermissionError},
		{"etc_passwd", "/etc/passwd", darkroom.PermissionError},
		{"missing_inside", filepath.Join(allowed, "nope.png"), darkroom.NotFound},
		{"inside", filepath.Join(allowed, "coffee.png"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := callTool(t, cs, "ingest", map[string]any{"path": tc.path, "image_id": tc.name})
			if r.code() != tc.code {
				t.Fatalf("ingest %s: code %q, want %q (%+v)", tc.path, r.code(), tc.code, r.Error)
			}
		})
	}

	t.Run("image_b64_within_limit", func(t *testing.T) {
		r := callTool(t, cs, "ingest", map[string]any{"image_b64": base64.StdEncoding.EncodeToString(darkroom.SamplePhoto), "image_id": "inline"})
		if !r.Success {
			t.Fatalf("%+v", r.Error)
		}
	})
	// Last: if the server cannot take the payload, the session may not survive it.
	t.Run("image_b64_over_limit", func(t *testing.T) {
		big := base64.StdEncoding.EncodeToString(make([]byte, workspace.MaxImageB64Bytes+1))
		r := callTool(t, cs, "ingest", map[string]any{"image_b64": big, "image_id": "big"})
		if r.code() != darkroom.LimitExceeded {
			t.Fatalf("code %q, want limit_exceeded (%+v)", r.code(), r.Error)
		}
	})
}

// TestClientRoots starts the server with no --allow-root: ingest may read only under
// the roots the SDK client offers, and follows the client when its roots change;
// with the SDK's latest protocol (the client answers the input request) and with
// 2025-06-18 (the server asks roots/list itself).
func TestClientRoots(t *testing.T) {
	t.Parallel()
	a, b := photoDir(t), photoDir(t)
	pa, pb := filepath.Join(a, "coffee.png"), filepath.Join(b, "coffee.png")
	for _, protocol := range []string{"", pinnedProtocol} {
		name := protocol
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			// A client that does not offer roots at all.
			none := mcp.NewClient(&mcp.Implementation{Name: "no-roots", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
			cs := connectVersion(t, none, protocol, "--workspace", ws)
			if r := callTool(t, cs, "ingest", map[string]any{"path": pa, "image_id": "none"}); r.code() != darkroom.PermissionError {
				t.Fatalf("without roots: code %q, want permission_error", r.code())
			}
			cs.Close()

			client := newClient(a)
			cs = connectVersion(t, client, protocol, "--workspace", ws)
			if got := cs.InitializeResult().ProtocolVersion; protocol != "" && got != protocol {
				t.Fatalf("protocol %s, want %s", got, protocol)
			}
			mustSucceed(t, cs, "ingest", map[string]any{"path": pa, "image_id": "in-a"})
			if r := callTool(t, cs, "ingest", map[string]any{"path": pb, "image_id": "in-b"}); r.code() != darkroom.PermissionError {
				t.Fatalf("outside the roots: code %q, want permission_error", r.code())
			}
			// The roots change: the next call sees the new ones.
			client.AddRoots(&mcp.Root{URI: fileURI(b)})
			client.RemoveRoots(fileURI(a))
			mustSucceed(t, cs, "ingest", map[string]any{"path": pb, "image_id": "in-b"})
			if r := callTool(t, cs, "ingest", map[string]any{"path": pa, "image_id": "in-a-again"}); r.code() != darkroom.PermissionError {
				t.Fatalf("after the root was removed: code %q, want permission_error", r.code())
			}
			// Calls without a path do not ask for roots.
			mustSucceed(t, cs, "get_state", map[string]any{"image_id": "in-b"})
		})
	}
}

// TestConcurrentApply sends many apply_primitive calls on one image at once over one
// session. Each adds its own entry (a distinct mask), so the history must be linear
// with every call in it: one commit per call, each on top of the one before, and the
// last state holding every entry.
func TestConcurrentApply(t *testing.T) {
	t.Parallel()
	photos, ws := photoDir(t), t.TempDir()
	cs := connect(t, newClient(), "--workspace", ws, "--allow-root", photos)
	var ing mutation
	if err := json.Unmarshal(mustSucceed(t, cs, "ingest", map[string]any{"path": filepath.Join(photos, "coffee.png"), "image_id": "c"}), &ing); err != nil {
		t.Fatal(err)
	}
	n := 48
	if testing.Short() {
		n = 16
	}
	hashes := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			args := map[string]any{
				"image_id": "c", "primitive_name": "exposure", "value": 0.01 * float64(i%10),
				"mask_spec": map[string]any{"shape": map[string]any{
					"kind": "ellipse", "center": []float64{float64(i+1) / float64(n+2), 0.5}, "radius_x": 0.1, "radius_y": 0.1,
				}},
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "apply_primitive", Arguments: args})
			if err != nil {
				errs <- err
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			var env struct {
				Success bool     `json:"success"`
				Data    mutation `json:"data"`
			}
			if err := json.Unmarshal(b, &env); err != nil || !env.Success {
				errs <- fmt.Errorf("call %d: %s", i, b)
				return
			}
			hashes[i] = env.Data.SnapshotHash
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got struct {
		StateAfter struct {
			EntryCount int `json:"entry_count"`
		} `json:"state_after"`
	}
	data := mustSucceed(t, cs, "get_state", map[string]any{"image_id": "c"})
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.StateAfter.EntryCount != n {
		t.Fatalf("after %d concurrent applies the state has %d entries: updates were lost", n, got.StateAfter.EntryCount)
	}

	var lg struct {
		Entries []struct {
			Op     string  `json:"op"`
			Hash   string  `json:"hash"`
			Parent *string `json:"parent"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(mustSucceed(t, cs, "log", map[string]any{"image_id": "c", "limit": 500}), &lg); err != nil {
		t.Fatal(err)
	}
	var commits []string // oldest first
	parent := ing.SnapshotHash
	for i := len(lg.Entries) - 1; i >= 0; i-- {
		e := lg.Entries[i]
		if e.Op != "commit" {
			continue
		}
		if e.Parent == nil || *e.Parent != parent {
			t.Fatalf("commit %d (%s) has parent %v, want %s: the history is not linear", len(commits), e.Hash, e.Parent, parent)
		}
		commits = append(commits, e.Hash)
		parent = e.Hash
	}
	if len(commits) != n {
		t.Fatalf("%d commits for %d calls", len(commits), n)
	}
	slices.Sort(commits)
	slices.Sort(hashes)
	if !slices.Equal(commits, hashes) {
		t.Fatalf("the commits are not the snapshots the calls returned:\ncommits %v\nreturned %v", commits, hashes)
	}
	// Each commit holds one entry more than its parent.
	h, err := history.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range commits {
		s, err := h.Get("c", c)
		if err != nil {
			t.Fatal(err)
		}
		seen[len(s.Entries)] = true
	}
	for k := 1; k <= n; k++ {
		if !seen[k] {
			t.Fatalf("no commit with %d entries: a call did not build on the one before", k)
		}
	}
	if _, err := h.Check("c"); err != nil {
		t.Fatal(err)
	}
}

// rawServer is `darkroom serve` driven with pipelined JSON-RPC lines, so it can be
// killed while requests are in flight.
type rawServer struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan rawReply
	stderr  syncBuffer
}

type rawReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	s := &rawServer{cmd: serveCmd(t, args...), replies: make(chan rawReply, 1024)}
	s.cmd.Stderr = &s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r rawReply
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID > 0 {
				s.replies <- r
			}
		}
		close(s.replies)
	}()
	fmt.Fprintf(s.stdin, `{"jsonrpc":"2.0","id":1000000,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"kill","version":"0"}}}`+"\n", pinnedProtocol)
	if r := s.next(t); r.ID != 1000000 {
		t.Fatalf("initialize: got reply %d", r.ID)
	}
	fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServer) next(t *testing.T) rawReply {
	t.Helper()
	select {
	case r, ok := <-s.replies:
		if !ok {
			t.Fatalf("server exited:\n%s", s.stderr.String())
		}
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("no reply within 60s:\n%s", s.stderr.String())
	}
	return rawReply{}
}

func callLine(id int, tool string, args map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return append(b, '\n')
}

// call sends one request and waits for its reply (nothing else is in flight).
func (s *rawServer) call(t *testing.T, id int, tool string, args map[string]any) result {
	t.Helper()
	if _, err := s.stdin.Write(callLine(id, tool, args)); err != nil {
		t.Fatal(err)
	}
	r := s.next(t)
	if r.ID != id {
		t.Fatalf("reply %d to request %d", r.ID, id)
	}
	return r.envelope(t)
}

func (r rawReply) envelope(t *testing.T) result {
	t.Helper()
	var res struct {
		StructuredContent result `json:"structuredContent"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("reply %d: %s %s: %v", r.ID, r.Result, r.Error, err)
	}
	return res.StructuredContent
}

// TestKill kills `darkroom serve` with SIGKILL at a random point of a burst of
// pipelined edits (apply_primitive, snapshot, branch, tag, checkout, ingest) on a few
// images, 100 times (10 with -short) on the same workspace. After every kill:
// every image passes history.Store.Check (every ref points at an existing object,
// HEAD resolves, replaying the log gives the refs) once the interrupted operation is
// completed; every snapshot, tag and branch whose reply was written still exists; and
// the next server loads every image (get_state). DARKROOM_KILL_SEED picks the seed.
func TestKill(t *testing.T) {
	t.Parallel()
	runs := 100
	if testing.Short() {
		runs = 10
	}
	seed := uint64(1)
	if s := os.Getenv("DARKROOM_KILL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b696c6c))
	photos, ws := photoDir(t), t.TempDir()
	photo := filepath.Join(photos, "coffee.png")
	args := []string{"--workspace", ws, "--allow-root", photos}

	type acked struct {
		hashes   map[string]bool
		tags     map[string]string
		branches map[string]bool
	}
	images := map[string]*acked{}
	newImage := func(id string) {
		images[id] = &acked{hashes: map[string]bool{}, tags: map[string]string{}, branches: map[string]bool{"main": true}}
	}
	s := startRaw(t, args...)
	for i, id := range []string{"a", "b"} {
		r := s.call(t, i+1, "ingest", map[string]any{"path": photo, "image_id": id})
		if !r.Success {
			t.Fatalf("ingest %s: %+v", id, r.Error)
		}
		newImage(id)
	}
	s.stdin.Close()
	s.cmd.Wait()

	primitives := []string{"exposure", "contrast", "saturation", "vibrance", "clarity", "highlights"}
	touched := []string{"a", "b"}
	var killedMidway, repaired, torn, replied, sent int
	start := time.Now()
	for run := range runs {
		s := startRaw(t, args...)
		// The images the last burst touched load (the last server loads them all).
		id := 1
		for _, img := range touched {
			if r := s.call(t, id, "get_state", map[string]any{"image_id": img}); !r.Success {
				t.Fatalf("run %d: get_state %s after the kill: %+v", run, img, r.Error)
			}
			id++
		}

		// The burst.
		type req struct {
			tool, img, name string
		}
		var burst bytes.Buffer
		reqs := map[int]req{}
		n := 12 + rng.IntN(20)
		ingestAt := rng.IntN(3 * n) // one ingest in a third of the bursts
		for i := range n {
			img := []string{"a", "b"}[rng.IntN(2)]
			var tool, name string
			var a map[string]any
			switch k := rng.IntN(9); {
			case i == ingestAt:
				tool, img = "ingest", fmt.Sprintf("i%d", run)
				a = map[string]any{"path": photo, "image_id": img}
			case k < 5:
				tool = "apply_primitive"
				a = map[string]any{"image_id": img, "primitive_name": primitives[rng.IntN(len(primitives))], "value": float64(rng.IntN(41)-20) / 100}
			case k < 6:
				tool = "snapshot"
				a = map[string]any{"image_id": img, "label": fmt.Sprintf("run %d", run)}
			case k < 7:
				tool, name = "branch", fmt.Sprintf("r%d-%d", run, id)
				a = map[string]any{"image_id": img, "name": name}
			case k < 8:
				tool, name = "tag", fmt.Sprintf("t%d-%d", run, id)
				a = map[string]any{"image_id": img, "name": name}
			default:
				tool = "checkout"
				a = map[string]any{"image_id": img, "ref_or_hash": "main"}
			}
			reqs[id] = req{tool, img, name}
			burst.Write(callLine(id, tool, a))
			id++
		}
		killAfter := rng.IntN(n + 1) // replies to wait for before the kill
		if _, err := s.stdin.Write(burst.Bytes()); err != nil {
			t.Fatal(err)
		}
		sent += n
		var got []rawReply
		for len(got) < killAfter {
			got = append(got, s.next(t))
		}
		if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for r := range s.replies { // replies written before the kill count too
			got = append(got, r)
		}
		s.cmd.Wait()
		if len(got) < n {
			killedMidway++
		}
		replied += len(got)

		// What the server acknowledged.
		touched = []string{"a", "b"}
		for _, r := range got {
			q, ok := reqs[r.ID]
			if !ok {
				continue
			}
			env := r.envelope(t)
			if !env.Success {
				// A name may repeat a ref only by accident of the seed; other failures are bugs.
				t.Fatalf("run %d: %s %s: %+v", run, q.tool, q.img, env.Error)
			}
			var m mutation
			if err := json.Unmarshal(env.Data, &m); err != nil {
				t.Fatal(err)
			}
			if q.tool == "ingest" {
				newImage(q.img)
				touched = append(touched, q.img)
			}
			a := images[q.img]
			a.hashes[m.SnapshotHash] = true
			switch q.tool {
			case "tag":
				a.tags[q.name] = m.SnapshotHash
			case "branch":
				a.branches[q.name] = true
			}
		}

		// Check the workspace as the kill left it.
		h, err := history.Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		all, err := h.ListImages()
		if err != nil {
			t.Fatal(err)
		}
		for _, img := range all {
			rep, err := h.Check(img)
			if err != nil {
				t.Fatalf("run %d (seed %d): image %s is damaged after the kill: %v", run, seed, img, err)
			}
			repaired += len(rep.Repaired)
			if rep.TornLogBytes > 0 {
				torn++
			}
			if images[img] == nil {
				newImage(img) // ingested, but killed before the reply
				touched = append(touched, img)
			}
		}
		for img, a := range images {
			if !slices.Contains(all, img) {
				t.Fatalf("run %d: acknowledged image %s is gone", run, img)
			}
			for hash := range a.hashes {
				if _, err := h.Get(img, hash); err != nil {
					t.Fatalf("run %d: acknowledged snapshot %s of %s: %v", run, hash, img, err)
				}
			}
			refs, err := h.Refs(img)
			if err != nil {
				t.Fatal(err)
			}
			for tag, hash := range a.tags {
				if refs.Tags[tag] != hash {
					t.Fatalf("run %d: acknowledged tag %s of %s is %q, want %s", run, tag, img, refs.Tags[tag], hash)
				}
			}
			for b := range a.branches {
				if _, ok := refs.Branches[b]; !ok {
					t.Fatalf("run %d: acknowledged branch %s of %s is gone", run, b, img)
				}
			}
		}
	}
	// The last server loads everything.
	s = startRaw(t, args...)
	id := 1
	for img := range images {
		if r := s.call(t, id, "get_state", map[string]any{"image_id": img}); !r.Success {
			t.Fatalf("final get_state %s: %+v", img, r.Error)
		}
		id++
	}
	s.stdin.Close()
	s.cmd.Wait()
	checkStderr(t, s.stderr.String())
	t.Logf("seed %d: %d kills (%d in the middle of a burst), %d of %d requests answered before the kill, %d interrupted operations completed on load, %d torn log lines, %d images, in %s",
		seed, runs, killedMidway, replied, sent, repaired, torn, len(images), time.Since(start).Round(time.Millisecond))
}
