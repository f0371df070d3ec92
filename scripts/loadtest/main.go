// Command loadtest drives `darkroom serve --http` from a second process on loopback:
// CLIENTS concurrent MCP clients over Streamable HTTP, in PRINCIPALS principals (each
// with its own token and workspace), edit and preview images (each client its own,
// and every client of a principal the shared one too) until CALLS calls were made.
// It reports p50/p99 latency per tool, lost updates (an image's entry count against
// the apply_primitive calls that succeeded on it), cross-principal reads (a call on
// another principal's image that did not answer not_found), and the server's RSS
// (VmRSS from /proc) sampled every second: first, peak and last.
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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	darkroom "github.com/darkroom-mcp/darkroom"
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

	tmp, err := os.MkdirTemp("", "darkroom-load-")
	check(err)
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "darkroom")
		out, err := exec.Command("go", "build", "-o", *bin, "./cmd/darkroom").CombinedOutput()
		if err != nil {
			log.Fatalf("build: %v\n%s", err, out)
		}
	}
	photos := filepath.Join(tmp, "photos")
	check(os.MkdirAll(photos, 0o755))
	check(os.WriteFile(filepath.Join(photos, "coffee.png"), darkroom.SamplePhoto, 0o644))
	tokensFile := filepath.Join(tmp, "tokens.json")
	tokens := make([]string, *principals)
	for p := range tokens {
		out, err := exec.Command(*bin, "token", "add", fmt.Sprintf("p%d", p), "--grants", "edit", "--tokens", tokensFile,
			"--requests-per-minute", "60000", "--burst", "1000", "--concurrent-calls", "64").Output()
		check(err)
		tokens[p] = strings.TrimSpace(string(out))
	}

	var stderr syncBuffer
	srv := exec.Command(*bin, "serve", "--http", "127.0.0.1:0", "--workspace", filepath.Join(tmp, "ws"),
		"--tokens", tokensFile, "--allow-root", photos)
	srv.Stderr = &stderr
	check(srv.Start())
	defer srv.Process.Kill()
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		log.Fatalf("serve --http did not start:\n%s", stderr.String())
	}
	url := "http://" + addr + "/mcp"

	var rssMu sync.Mutex
	var rss []int
	stopRSS := make(chan struct{})
	go func() {
		for {
			if kb := vmRSS(srv.Process.Pid); kb > 0 {
				rssMu.Lock()
				rss = append(rss, kb)
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
			Code string `json:"code"`
		} `json:"error"`
	}
	var latMu sync.Mutex
	lat := map[string][]time.Duration{}
	var failures, lost, crossReads atomic.Int64
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
	shared := make([]*mcp.ClientSession, *principals)
	for p := range shared {
		shared[p] = connect(tokens[p])
		if env := call(shared[p], "ingest", map[string]any{"path": filepath.Join(photos, "coffee.png"), "image_id": "shared"}); !env.Success {
			log.Fatalf("ingest shared for p%d failed", p)
		}
	}
	applied := map[string]*atomic.Int64{}
	for p := range *principals {
		applied[fmt.Sprintf("p%d/shared", p)] = &atomic.Int64{}
	}
	for c := range *clients {
		applied[fmt.Sprintf("p%d/c%d", c%*principals, c)] = &atomic.Int64{}
	}
	var remaining atomic.Int64
	remaining.Store(int64(*calls))
	start := time.Now()
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := c % *principals
			cs := connect(tokens[p])
			defer cs.Close()
			own := fmt.Sprintf("c%d", c)
			if env := call(cs, "ingest", map[string]any{"path": filepath.Join(photos, "coffee.png"), "image_id": own}); !env.Success {
				failures.Add(1)
				return
			}
			other := (p + 1) % *principals
			for i := 0; remaining.Add(-1) >= 0; i++ {
				img := own
				if i%8 == 0 {
					img = "shared"
				}
				key := fmt.Sprintf("p%d/%s", p, img)
				if i%10 == 7 && *augment > 0 {
					call(cs, "augment_image", map[string]any{"image_id": img, "prompt": "slight blur and rotate between -10 and 10 degrees",
						"seed": i, "count": *augment, "options": map[string]any{"return_images": 0}})
					continue
				}
				switch i % 10 {
				case 9:
					call(cs, "render_preview", map[string]any{"image_id": img, "size": 256})
				case 8:
					// Another principal's own image: it must not exist here.
					env := call(cs, "get_state", map[string]any{"image_id": fmt.Sprintf("c%d", (c+1)%*clients)})
					if (c+1)%*clients%*principals == other && (env.Error == nil || env.Error.Code != "not_found") {
						crossReads.Add(1)
					}
				default:
					env := call(cs, "apply_primitive", map[string]any{"image_id": img, "primitive_name": "exposure", "value": 0.01 * float64(i%7)})
					if env.Success {
						applied[key].Add(1)
					} else if env.Error != nil && env.Error.Code != "limit_exceeded" {
						failures.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
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
	fmt.Printf("%d clients, %d principals, %.1f s, %d calls\n", *clients, *principals, elapsed.Seconds(), *calls)
	fmt.Printf("%-16s %7s %9s %9s\n", "tool", "calls", "p50 ms", "p99 ms")
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
		fmt.Printf("%-16s %7d %9.1f %9.1f\n", n, len(ds), ms(ds[len(ds)/2]), ms(ds[len(ds)*99/100]))
	}
	rssMu.Lock()
	first, peak, last := 0, 0, 0
	if len(rss) > 0 {
		first, last, peak = rss[0], rss[len(rss)-1], slices.Max(rss)
	}
	rssMu.Unlock()
	fmt.Printf("calls made %d; transport failures and unexpected errors %d; lost updates %d; cross-principal reads %d\n",
		total, failures.Load(), lost.Load(), crossReads.Load())
	fmt.Printf("server RSS: first %d MB, peak %d MB, last %d MB (%d samples)\n", first/1024, peak/1024, last/1024, len(rss))
	if lost.Load() != 0 || crossReads.Load() != 0 {
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func vmRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	return 0
}

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
		log.Fatal(err)
	}
}
