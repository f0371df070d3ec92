// Command loadtest drives `darkroom serve --http` from a second process on loopback:
// CLIENTS concurrent MCP clients over Streamable HTTP, in PRINCIPALS principals (each
// with its own token and workspace), edit and preview images (each client its own,
// and every client of a principal the shared one too) until CALLS calls were made.
// It reports p50/p95/p99 latency per tool, calls per second, lost updates (an image's
// commits against the apply_primitive calls that succeeded on it), cross-principal
// reads (a call on another principal's image that did not answer not_found), the
// server's CPU time while the calls ran (utime+stime from /proc, in all and per call:
// the figure a busy machine disturbs least) and its RSS (VmRSS from /proc) sampled
// every second: first, peak and last.
//
// Every apply_primitive sets a value no earlier call of the run set, so each one that
// succeeds is a commit: the history does not log an exact repeat of its last commit
// (history/repeat.go), which a repeated value on a shared image would be.
//
// The server it starts is stopped on every way out (the end, a fatal error, an
// interrupt), and its temporary directory removed.
//
//	go run ./scripts/loadtest [-clients 32] [-principals 4] [-calls 10000] [-augment 0] [-darkroom PATH]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/procstat"
)

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

var listening = regexp.MustCompile(`listening on (\S+);`)

func main() {
	clients := flag.Int("clients", 32, "concurrent MCP clients")
	principals := flag.Int("principals", 4, "principals (tokens, each with its own workspace)")
	calls := flag.Int("calls", 10000, "tool calls in all")
	bin := flag.String("darkroom", "", "the darkroom binary (default: go build ./cmd/darkroom)")
	augment := flag.Int("augment", 0, "when above 0, one call in ten is augment_image of this many variants (in place of an apply_primitive)")
	flag.Parse()
	log.SetFlags(0)
	code := run(*clients, *principals, *calls, *augment, *bin)
	cleanup()
	os.Exit(code)
}

// cleanups undo what run made (the server, the temporary directory), newest first;
// fatal and an interrupt run them too, so no server outlives the load test.
var (
	cleanupMu sync.Mutex
	cleanups  []func()
)

func atExit(f func()) {
	cleanupMu.Lock()
	defer cleanupMu.Unlock()
	cleanups = append(cleanups, f)
}

func cleanup() {
	cleanupMu.Lock()
	fs := cleanups
	cleanups = nil
	cleanupMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

func fatalf(format string, args ...any) {
	cleanup()
	log.Fatalf(format, args...)
}

func run(clients, principals, calls, augment int, bin string) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fatalf("interrupted")
	}()
	tmp, err := os.MkdirTemp("", "darkroom-load-")
	check(err)
	atExit(func() { os.RemoveAll(tmp) })
	if bin == "" {
		bin = filepath.Join(tmp, "darkroom")
		out, err := exec.Command("go", "build", "-o", bin, "./cmd/darkroom").CombinedOutput()
		if err != nil {
			fatalf("build: %v\n%s", err, out)
		}
	}
	photos := filepath.Join(tmp, "photos")
	check(os.MkdirAll(photos, 0o755))
	check(os.WriteFile(filepath.Join(photos, "coffee.png"), darkroom.SamplePhoto, 0o644))
	tokensFile := filepath.Join(tmp, "tokens.json")
	tokens := make([]string, principals)
	for p := range tokens {
		// augment_image needs the augment grant beside edit.
		out, err := exec.Command(bin, "token", "add", fmt.Sprintf("p%d", p), "--grants", "edit,augment", "--tokens", tokensFile,
			"--requests-per-minute", "60000", "--burst", "1000", "--concurrent-calls", "64").Output()
		check(err)
		tokens[p] = strings.TrimSpace(string(out))
	}

	var stderr syncBuffer
	srv := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--workspace", filepath.Join(tmp, "ws"),
		"--tokens", tokensFile, "--allow-root", photos)
	srv.Stderr = &stderr
	check(srv.Start())
	atExit(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		fatalf("serve --http did not start:\n%s", stderr.String())
	}
	url := "http://" + addr + "/mcp"

	var rssMu sync.Mutex
	var rss []uint64
	stopRSS := make(chan struct{})
	go func() {
		for {
			if b := procstat.RSS(srv.Process.Pid); b > 0 {
				rssMu.Lock()
				rss = append(rss, b)
				rssMu.Unlock()
			}
			select {
			case <-stopRSS:
				return
			case <-time.After(time.Second):
			}
		}
	}()

	ctx := context.Background()
	connect := func(token string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "loadtest", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
			HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
		check(err)
		return cs
	}
	type envelope struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var latMu sync.Mutex
	lat := map[string][]time.Duration{}
	var failures, lost, crossReads atomic.Int64
	// unexpected holds the first unexpected error of each tool, to print.
	var unexpectedMu sync.Mutex
	unexpected := map[string]string{}
	fail := func(tool string, env envelope) {
		failures.Add(1)
		unexpectedMu.Lock()
		defer unexpectedMu.Unlock()
		if _, ok := unexpected[tool]; !ok && env.Error != nil {
			unexpected[tool] = env.Error.Code + ": " + env.Error.Message
		}
	}
	call := func(cs *mcp.ClientSession, name string, args map[string]any) envelope {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		d := time.Since(start)
		latMu.Lock()
		lat[name] = append(lat[name], d)
		latMu.Unlock()
		if err != nil {
			failures.Add(1)
			return envelope{}
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env envelope
		json.Unmarshal(b, &env)
		return env
	}

	// Each principal ingests a shared image; each client ingests its own.
	shared := make([]*mcp.ClientSession, principals)
	for p := range shared {
		shared[p] = connect(tokens[p])
		if env := call(shared[p], "ingest", map[string]any{"path": filepath.Join(photos, "coffee.png"), "image_id": "shared"}); !env.Success {
			fatalf("ingest shared for p%d failed", p)
		}
	}
	applied := map[string]*atomic.Int64{}
	for p := range principals {
		applied[fmt.Sprintf("p%d/shared", p)] = &atomic.Int64{}
	}
	for c := range clients {
		applied[fmt.Sprintf("p%d/c%d", c%principals, c)] = &atomic.Int64{}
	}
	var remaining, applies atomic.Int64
	remaining.Store(int64(calls))
	cpu0 := cpuSeconds(srv.Process.Pid)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := c % principals
			cs := connect(tokens[p])
			defer cs.Close()
			own := fmt.Sprintf("c%d", c)
			if env := call(cs, "ingest", map[string]any{"path": filepath.Join(photos, "coffee.png"), "image_id": own}); !env.Success {
				failures.Add(1)
				return
			}
			other := (p + 1) % principals
			for i := 0; remaining.Add(-1) >= 0; i++ {
				img := own
				if i%8 == 0 {
					img = "shared"
				}
				key := fmt.Sprintf("p%d/%s", p, img)
				if i%10 == 7 && augment > 0 {
					env := call(cs, "augment_image", map[string]any{"image_id": img, "prompt": "slight blur and rotate between -10 and 10 degrees",
						"seed": i, "count": augment, "options": map[string]any{"return_images": 0}})
					if !env.Success && (env.Error == nil || env.Error.Code != "limit_exceeded") {
						fail("augment_image", env)
					}
					continue
				}
				switch i % 10 {
				case 9:
					call(cs, "render_preview", map[string]any{"image_id": img, "size": 256})
				case 8:
					// Another principal's own image: it must not exist here.
					env := call(cs, "get_state", map[string]any{"image_id": fmt.Sprintf("c%d", (c+1)%clients)})
					if (c+1)%clients%principals == other && (env.Error == nil || env.Error.Code != "not_found") {
						crossReads.Add(1)
					}
				default:
					// A value no other apply of the run sets (see the top).
					value := 0.0001 * float64(applies.Add(1))
					env := call(cs, "apply_primitive", map[string]any{"image_id": img, "primitive_name": "exposure", "value": value})
					if env.Success {
						applied[key].Add(1)
					} else if env.Error != nil && env.Error.Code != "limit_exceeded" {
						fail("apply_primitive", env)
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuSeconds(srv.Process.Pid) - cpu0
	close(stopRSS)

	// Lost updates: each image's log holds one commit per successful apply; the log
	// is read back through a fresh client (log answers at most 500 entries).
	for key, n := range applied {
		p, img, _ := strings.Cut(key, "/")
		pi, _ := strconv.Atoi(strings.TrimPrefix(p, "p"))
		cs := connect(tokens[pi])
		env := call(cs, "log", map[string]any{"image_id": img, "limit": 500})
		cs.Close()
		var l struct {
			Entries []struct {
				Op string `json:"op"`
			} `json:"entries"`
		}
		json.Unmarshal(env.Data, &l)
		got := int64(0)
		for _, e := range l.Entries {
			if e.Op == "commit" {
				got++
			}
		}
		if len(l.Entries) == 500 {
			fmt.Printf("%s: more than 500 log entries, not counted\n", key)
			continue
		}
		if got != n.Load() {
			lost.Add(n.Load() - got)
			fmt.Printf("%s: %d applies acknowledged, %d commits\n", key, n.Load(), got)
		}
	}

	var total int
	fmt.Printf("%d clients, %d principals, %.1f s, %d calls, %.0f calls/s\n", clients, principals, elapsed.Seconds(), calls, float64(calls)/elapsed.Seconds())
	fmt.Printf("server CPU while calling: %.2f s, %.2f ms per call\n", cpu, 1000*cpu/float64(calls))
	fmt.Printf("%-16s %7s %9s %9s %9s\n", "tool", "calls", "p50 ms", "p95 ms", "p99 ms")
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range lat {
			if !yield(k) {
				return
			}
		}
	})
	for _, n := range names {
		ds := lat[n]
		slices.Sort(ds)
		total += len(ds)
		fmt.Printf("%-16s %7d %9.1f %9.1f %9.1f\n", n, len(ds), ms(ds[len(ds)/2]), ms(ds[len(ds)*95/100]), ms(ds[len(ds)*99/100]))
	}
	rssMu.Lock()
	var first, peak, last uint64
	if len(rss) > 0 {
		first, last, peak = rss[0], rss[len(rss)-1], slices.Max(rss)
	}
	rssMu.Unlock()
	fmt.Printf("calls made %d; transport failures and unexpected errors %d; lost updates %d; cross-principal reads %d\n",
		total, failures.Load(), lost.Load(), crossReads.Load())
	for _, tool := range slices.Sorted(maps.Keys(unexpected)) {
		fmt.Printf("  first unexpected error of %s: %s\n", tool, unexpected[tool])
	}
	fmt.Printf("server RSS: first %d MB, peak %d MB, last %d MB (%d samples)\n", first>>20, peak>>20, last>>20, len(rss))
	if lost.Load() != 0 || crossReads.Load() != 0 {
		return 1
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuSeconds is the CPU time (user and system) process pid has used so far, from
// /proc/PID/stat, or 0 where there is none.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces: fields
	// are counted after its closing one. utime and stime are fields 14 and 15.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go builds for.
const clockTicks = 100

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func check(err error) {
	if err != nil {
		fatalf("%v", err)
	}
}
