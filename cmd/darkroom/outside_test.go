package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// Outside clients: the TypeScript MCP SDK's client and MCP Inspector's CLI drive the
// real binary. They need node and `npm ci` in testdata/outside; without them the test
// is skipped, except under CI=true, where it fails.

const outsideDir = "../../testdata/outside"

// outsideNode returns node and the absolute path of testdata/outside, or skips.
func outsideNode(t *testing.T) (node, dir string) {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("CI") == "true" {
		skip = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not available (install Node.js 20 or newer)")
	}
	dir, err = filepath.Abs(outsideDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		skip("testdata/outside/node_modules is missing (run npm ci in testdata/outside)")
	}
	return node, dir
}

// darkroomBinary links the test binary as `darkroom` (testscript.Main runs the
// command when invoked by that name) so an outside program can start it.
func darkroomBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "darkroom")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// greyCard writes a flat mid-grey PNG, a patch wb_from_gray_card accepts.
func greyCard(t *testing.T, path string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{R: 140, G: 128, B: 118, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTypeScriptClient runs a full editing session through the TypeScript SDK's own
// client (testdata/outside/session.mjs): every tool, masks of every drawn kind, diff,
// get_state, the masks vocabulary and an export. The client checks each
// structuredContent against the advertised outputSchema with its own Ajv, so a
// schema it reads differently from darkroom fails here.
func TestTypeScriptClient(t *testing.T) {
	node, dir := outsideNode(t)
	photos := t.TempDir()
	if err := os.WriteFile(filepath.Join(photos, "coffee.png"), darkroom.SamplePhoto, 0o644); err != nil {
		t.Fatal(err)
	}
	greyCard(t, filepath.Join(photos, "card.png"))
	cmd := exec.Command(node, filepath.Join(dir, "session.mjs"), darkroomBinary(t), filepath.Join(t.TempDir(), "ws"), photos)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("session through the TypeScript SDK client failed: %v\n%s", err, errb.String())
	}
	var summary struct {
		Tools  int            `json:"tools"`
		Calls  int            `json:"calls"`
		Called map[string]int `json:"called"`
	}
	if err := json.Unmarshal(out.Bytes(), &summary); err != nil {
		t.Fatalf("summary: %v\n%s", err, out.String())
	}
	c, err := contract.Load(darkroom.Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range c.ToolNames() {
		if summary.Called[name] == 0 {
			t.Errorf("%s was never called through the TypeScript client", name)
		}
	}
	t.Logf("%d tools, %d calls through the TypeScript SDK client", summary.Tools, summary.Calls)
}

// TestInspectorCLI lists the tools with MCP Inspector's CLI (2.x) in --strict mode, which
// reports every tool-schema portability finding (a boolean schema, a list of types,
// a schema that constrains nothing, a remote $ref) and exits non-zero on an error,
// and calls a tool through it. The report must be empty.
func TestInspectorCLI(t *testing.T) {
	node, dir := outsideNode(t)
	bin := darkroomBinary(t)
	ws := filepath.Join(t.TempDir(), "ws")
	// The package's bin, what `npx @modelcontextprotocol/inspector --cli` runs.
	inspector := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(node, append([]string{inspector, "--cli"}, args...)...)
		cmd.Dir = dir
		// The inspector keeps a catalog of servers under the home directory.
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector %v: %v\nstdout:\n%.2000s\nstderr:\n%.4000s", args, err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	out, stderr := run("--method", "tools/list", "--strict", bin, "serve", "--workspace", ws)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list output: %v\n%.2000s", err, out)
	}
	c, err := contract.Load(darkroom.Files)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(c.Tools) {
		t.Errorf("inspector lists %d tools, the contract has %d", len(list.Tools), len(c.Tools))
	}
	if stderr != "" {
		t.Errorf("inspector --strict reports findings:\n%s", stderr)
	}
	out, stderr = run("--method", "tools/call", "--tool-name", "list_masks_vocabulary", bin, "serve", "--workspace", ws)
	var res struct {
		StructuredContent struct {
			Success bool `json:"success"`
		} `json:"structuredContent"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("tools/call output: %v\n%.2000s", err, out)
	}
	if !res.StructuredContent.Success || res.IsError {
		t.Errorf("list_masks_vocabulary through the inspector: %.2000s\n%s", out, stderr)
	}
}
