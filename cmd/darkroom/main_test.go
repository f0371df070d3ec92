package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/darkroom-mcp/darkroom/internal/raw"
	"github.com/darkroom-mcp/darkroom/internal/server"

	cuecmd "cuelang.org/go/cmd/cue/cmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"darkroom": func() {
			m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
			// The fault hook of the scripts that check the internal_error path: only
			// the test binary reads DARKROOM_FAULT.
			if tool := os.Getenv("DARKROOM_FAULT"); tool != "" {
				m.ServerOptions = append(m.ServerOptions, server.WithFault(tool, "DARKROOM_FAULT"))
			}
			os.Exit(m.Run(context.Background(), os.Args[1:]))
		},
		// The CUE CLI at the version go.mod pins, for `cue vet` beside `darkroom vocab vet`.
		"cue": func() { os.Exit(cuecmd.Main()) },
	})
}

// TestScripts runs testscripts/*.txtar against the real binary. DARKROOM_UPDATE=1
// rewrites the goldens in place.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testscripts",
		UpdateScripts:       os.Getenv("DARKROOM_UPDATE") == "1",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			// Scripts that run `cue vet` need the module and contracts as a
			// checkout has them; render scripts use the sample photo (and its DNG).
			if err := copyContracts(env.WorkDir); err != nil {
				return err
			}
			for _, name := range []string{"coffee.png", "coffee.dng"} {
				b, err := os.ReadFile(filepath.Join("..", "..", "samples", name))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, name), b, 0o644); err != nil {
					return err
				}
				if name == "coffee.dng" {
					// A camera raw darkroom reads only through LibRaw: the DNG
					// without its DNGVersion tag.
					if err := os.WriteFile(filepath.Join(env.WorkDir, "camera.nef"), raw.AsCamera(b), 0o644); err != nil {
						return err
					}
				}
			}
			return nil
		},
		// [root]: the superuser writes through mode bits, so scripts that show a
		// permission failure skip under it.
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"mcp":   cmdMCP,
			"http":  cmdHTTP,
			"exits": cmdExits,
		},
	})
}

// cmdExits runs a program and requires its exit code: `exits 3 darkroom render ...`.
// Stdout and stderr are kept for the next stdout/stderr/cmp, as exec keeps them.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

func copyContracts(dst string) error {
	root := filepath.Join("..", "..")
	for _, pat := range []string{"cue.mod/module.cue", "contracts/*.cue"} {
		files, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil || len(files) == 0 {
			return fmt.Errorf("copy contracts: no %s", pat)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			out := filepath.Join(dst, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, b, fs.FileMode(0o644)); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestOneShotPipe feeds `darkroom serve` 20 requests on stdin, closes it at once and
// requires 20 replies, 50 times: a client that pipes a batch and closes stdin must
// get every answer (the SDK's own stdio transport drops them, go-sdk issue 1061).
func TestOneShotPipe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`+"\n", pinnedProtocol)
	fmt.Fprintln(&in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	calls := []string{
		`"name":"get_contract","arguments":{}`,
		`"name":"list_vocabulary","arguments":{"layer":"L2"}`,
		`"name":"list_masks_vocabulary","arguments":{}`,
		`"name":"list_available_transforms","arguments":{"include_examples":false}`,
		`"name":"list_vocabulary","arguments":{"layer":"L9"}`,
	}
	for i := 1; i < 20; i++ {
		if i%5 == 0 {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
			continue
		}
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`+"\n", i, calls[i%len(calls)])
	}
	runs := 50
	if testing.Short() {
		runs = 5
	}
	ws := t.TempDir()
	for run := range runs {
		// testscript runs the binary as darkroom when it is invoked by that name.
		cmd := &exec.Cmd{Path: exe, Args: []string{"darkroom", "serve", "--workspace", ws}}
		cmd.Stdin = bytes.NewReader(in.Bytes())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, errb.String())
		}
		ids := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var msg struct {
				ID *float64 `json:"id"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("run %d: bad line %q: %v", run, line, err)
			}
			if msg.ID != nil {
				ids[*msg.ID] = true
			}
		}
		if len(ids) != 20 {
			t.Fatalf("run %d: %d replies to 20 requests:\n%s", run, len(ids), out.String())
		}
	}
}

// The committed reference pages are what the contracts and packs generate: a change
// to either needs `make docs`.
func TestDocsUpToDate(t *testing.T) {
	m := &Main{Stdout: io.Discard, Stderr: io.Discard}
	files, err := m.generateDocs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Errorf("%s: %v (run make docs)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make docs", name)
		}
	}
}

// TestDemo runs the README's first command (in a temporary directory): a whole
// editing session through the SDK's client, which must leave the previews, the
// comparison and the export where it says, and a workspace the history accepts.
func TestDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errb}
	if code := m.Run(context.Background(), []string{"demo", "--dir", dir}); code != 0 {
		t.Fatalf("demo exited %d:\n%s\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"ingest ", "apply_primitive ", `"mask_spec":{"name":"center_spot"}`, "branch ", "diff ",
		"render_preview ", "compare ", "export_final ", "progress notifications", "the demo's wall time was"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out.String())
		}
	}
	// Every image the demo lists exists and decodes.
	var listed int
	_, images, _ := strings.Cut(out.String(), "\nImages:\n")
	images, _, _ = strings.Cut(images, "\n\n")
	for _, line := range strings.Split(images, "\n") {
		i := strings.Index(line, filepath.Join(dir, "workspace"))
		if i < 0 {
			t.Fatalf("image line %q is not under the workspace %s", line, dir)
		}
		p := line[i:strings.LastIndex(line, " (")]
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := image.DecodeConfig(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		listed++
	}
	if listed != 4 {
		t.Errorf("the demo listed %d images, want 4 (two previews, a comparison, an export):\n%s", listed, out.String())
	}
	// A second run replaces the workspace of the first.
	out.Reset()
	if code := m.Run(context.Background(), []string{"demo", "--dir", dir}); code != 0 {
		t.Fatalf("second demo run exited %d:\n%s", code, errb.String())
	}
}
