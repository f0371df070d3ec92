package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadOnlyWorkspace serves a workspace the server cannot write, as a user finds
// it on a read-only mount or in another user's data: the reads (get_state, log,
// diff, read_context) answer as on a writable one, and the writes answer
// permission_error naming the file relative to the workspace, never internal_error.
//
// The workspace is made read-only for real, never by a hook: a read-only bind mount
// in a mount namespace of its own (EROFS; root with unshare), and the files of
// another user (EACCES; the server runs as nobody when the test is root, else the
// workspace is chmod a-w).
func TestReadOnlyWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs servers")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Both ways need every directory of the workspace's path open to other users
	// (t.TempDir makes 0700 ones) and a binary they can run.
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	pics := filepath.Join(base, "pics")
	// The workspace is made by the CLI verbs (no server start to wait for).
	setup := func() {
		for _, args := range [][]string{
			{"ingest", filepath.Join(pics, "coffee.png"), "--image-id", "coffee"},
			{"apply-primitive", "coffee", "--entry", "exposure", "--value", "0.5"},
			{"snapshot", "coffee", "--label", "bright"},
		} {
			cmd := &exec.Cmd{Path: exe, Args: append(append([]string{"darkroom"}, args...), "--workspace", ws, "--allow-root", pics)}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("darkroom %v: %v\n%s", args, err, out)
			}
		}
	}
	os.MkdirAll(pics, 0o755)
	copyFile(t, filepath.Join(photoDir(t), "coffee.png"), filepath.Join(pics, "coffee.png"))
	setup()
	for d := base; d != filepath.Dir(d) && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	// The image's lock file does not exist until a writer takes it; a workspace
	// copied (or restored) without it must be readable too.
	ws2 := filepath.Join(base, "ws-nolock")
	if out, err := exec.Command("cp", "-a", ws, ws2).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	if err := os.Remove(filepath.Join(ws2, "images", "coffee", "lock")); err != nil {
		t.Fatal(err)
	}

	t.Run("read-only mount", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("a bind mount needs root")
		}
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("unshare (util-linux) is missing")
			}
			t.Skip("no unshare")
		}
		if out, err := exec.Command(unshare, "-m", "mount", "--bind", base, base).CombinedOutput(); err != nil {
			// A container without CAP_SYS_ADMIN; the other subtest still runs.
			t.Skipf("no mount namespace here: %v: %s", err, out)
		}
		// The test binary runs darkroom when called by that name.
		bin := filepath.Join(t.TempDir(), "darkroom")
		if err := os.Symlink(exe, bin); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{ws, ws2} {
			cmd := exec.Command(unshare, "-m", "sh", "-c", `mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && shift && exec "$@"`,
				"sh", dir, bin, "serve", "--workspace", dir, "--allow-root", pics)
			checkReadOnly(t, cmd, "read-only file system")
		}
	})
	t.Run("another user's workspace", func(t *testing.T) {
		for _, dir := range []string{ws, ws2} {
			var cmd *exec.Cmd
			if os.Geteuid() == 0 {
				// nobody cannot run a binary in the go-build directory (0700).
				bin := filepath.Join(base, "bin", "darkroom")
				if _, err := os.Stat(bin); err != nil {
					os.MkdirAll(filepath.Dir(bin), 0o755)
					copyFile(t, exe, bin)
					os.Chmod(bin, 0o755)
				}
				cmd = exec.Command(bin, "serve", "--workspace", dir, "--allow-root", pics)
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				cmd.Env = append(os.Environ(), "HOME="+base)
			} else {
				filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
					if err == nil {
						os.Chmod(p, fi.Mode().Perm()&^0o222)
					}
					return nil
				})
				t.Cleanup(func() {
					filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
						if err == nil {
							os.Chmod(p, fi.Mode().Perm()|0o200)
						}
						return nil
					})
				})
				cmd = serveCmd(t, "--workspace", dir, "--allow-root", pics)
			}
			checkReadOnly(t, cmd, "permission denied")
		}
	})
}

// checkReadOnly runs the server cmd starts over a read-only copy of the workspace
// setup made, and checks what each tool answers.
func checkReadOnly(t *testing.T, cmd *exec.Cmd, reason string) {
	t.Helper()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer func() {
		cs.Close()
		checkStderr(t, stderr.String())
	}()
	img := map[string]any{"image_id": "coffee"}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_state", img},
		{"log", img},
		{"diff", map[string]any{"image_id": "coffee", "hash_a": "baseline", "hash_b": "main"}},
		{"read_context", img},
	} {
		if r := callTool(t, cs, c.tool, c.args); !r.Success {
			t.Errorf("%s on a read-only workspace: %s: %s", c.tool, r.Error.Code, r.Error.Message)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"apply_primitive", map[string]any{"image_id": "coffee", "primitive_name": "exposure", "value": 0.2}},
		{"snapshot", map[string]any{"image_id": "coffee", "label": "again"}},
		{"render_preview", img},
		{"export_final", img},
	} {
		r := callTool(t, cs, c.tool, c.args)
		if r.code() != "permission_error" {
			t.Errorf("%s on a read-only workspace: %s, want permission_error", c.tool, r.code())
			continue
		}
		if msg := r.Error.Message; !strings.Contains(msg, reason) || strings.Contains(msg, string(filepath.Separator)+"tmp") {
			t.Errorf("%s: message %q should give the reason (%s) and name files relative to the workspace", c.tool, msg, reason)
		}
	}
	// The state is what it was: nothing was half written.
	var state struct {
		StateAfter struct {
			EntryCount int `json:"entry_count"`
		} `json:"state_after"`
	}
	data := mustSucceed(t, cs, "get_state", img)
	if err := json.Unmarshal(data, &state); err != nil || state.StateAfter.EntryCount != 1 {
		t.Errorf("get_state after the refused writes: %s (%v)", data, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
