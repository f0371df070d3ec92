package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigPhoto writes a 6000x4000 JPEG (24 megapixels) with texture, so its variants
// are as large as a camera's.
func bigPhoto(t *testing.T, path string) {
	t.Helper()
	const w, h = 6000, 4000
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x*7 + y*13) % 256), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vmHWM is a process's peak resident memory in bytes (Linux /proc VmHWM).
func vmHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0, errors.New("no VmHWM")
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10, nil
}

// A client that never answers sampling costs the server neither a hung call nor
// memory: against the real binary over HTTP, five verify_augmentation calls about
// two 24-megapixel variants, whose client's model never answers, each answer
// unavailable inside the envelope once the sampling wait (time_limits.sampling_ms,
// here scaled to 24 s) has passed; the server then still serves, and its peak
// resident memory stays under --decode-budget + 300 MB. Before, the calls never
// returned and each held the full-size images.
func TestHTTPUnansweredSamplingRealBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from /proc")
	}
	if testing.Short() {
		t.Skip("renders 24-megapixel variants")
	}
	dir := t.TempDir()
	photos, tokens := filepath.Join(dir, "photos"), filepath.Join(dir, "tokens.json")
	os.MkdirAll(photos, 0o755)
	bigPhoto(t, filepath.Join(photos, "big.jpg"))
	var out bytes.Buffer
	if code := (&Main{Stdout: &out, Stderr: io.Discard}).Run(context.Background(),
		[]string{"token", "add", "alice", "--grants", "admin", "--concurrent-calls", "8", "--tokens", tokens}); code != 0 {
		t.Fatalf("token add: %d %s", code, out.String())
	}
	token := regexp.MustCompile(`drk_\S+`).FindString(out.String())
	if token == "" {
		t.Fatalf("token add printed no token: %s", out.String())
	}

	// Two variants of the 24 MP photo reserve about 1.3 GiB of pixel memory
	// (decode, renders, encode): the budget must hold one such call.
	const budgetMiB = 1536
	// start serves the workspace with its own process and connects a client whose
	// model never answers.
	start := func() (*exec.Cmd, func(string, map[string]any) map[string]any) {
		cmd := exec.Command(darkroomBinary(t), "serve", "--http", "127.0.0.1:0", "--workspace", filepath.Join(dir, "ws"),
			"--allow-root", photos, "--tokens", tokens, "--decode-budget", strconv.Itoa(budgetMiB), "--time-limit-scale", "0.2")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		lines := bufio.NewScanner(stderr)
		addr := ""
		for addr == "" && lines.Scan() {
			if m := listening.FindStringSubmatch(lines.Text()); m != nil {
				addr = m[1]
			}
		}
		if addr == "" {
			t.Fatal("serve --http did not say where it listens")
		}
		go io.Copy(io.Discard, stderr)
		stop := make(chan struct{})
		client := mcp.NewClient(&mcp.Implementation{Name: "silent", Version: "0"}, &mcp.ClientOptions{
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
			CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				select {
				case <-ctx.Done():
				case <-stop:
				}
				return nil, errors.New("never answered")
			},
		})
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport(token)}}
		cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		t.Cleanup(func() { close(stop) }) // first: Close waits for the handler
		return cmd, func(name string, args map[string]any) map[string]any {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return nil
			}
			var env map[string]any
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &env)
			return env
		}
	}
	// The variants are drawn by one process, and the verifications asked by
	// another, whose peak memory is then the verifications' alone (drawing the
	// variants is the decode budget's business).
	augmenter, call := start()
	env := call("augment_image", map[string]any{"path": filepath.Join(photos, "big.jpg"), "count": 2, "seed": 1,
		"pipeline": []any{map[string]any{"entry": "flip_horizontal"}}})
	data, _ := env["data"].(map[string]any)
	id, _ := data["session_id"].(string)
	if id == "" {
		t.Fatalf("augment_image: %v", env)
	}
	augmented, _ := vmHWM(augmenter.Process.Pid)
	augmenter.Process.Kill()
	augmenter.Wait()

	cmd, call := start()
	before, _ := vmHWM(cmd.Process.Pid)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			env := call("verify_augmentation", map[string]any{"session_id": id})
			e, _ := env["error"].(map[string]any)
			if env["success"] != false || e["code"] != "unavailable" || !strings.Contains(fmt.Sprint(e["message"]), "did not answer") {
				t.Errorf("an unanswered verification: %v", env)
			}
		})
	}
	wg.Wait()
	if env := call("get_contract", map[string]any{}); env["success"] != true {
		t.Errorf("the server after the unanswered calls: %v", env)
	}
	peak, err := vmHWM(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS (VmHWM): %d MiB drawing two 24 MP variants; a fresh server %d MiB at start, %d MiB after five unanswered verifications; --decode-budget %d MiB",
		augmented>>20, before>>20, peak>>20, budgetMiB)
	if limit := int64(budgetMiB+300) << 20; peak > limit {
		t.Errorf("peak RSS %d MiB, over --decode-budget + 300 MB (%d MiB)", peak>>20, limit>>20)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
