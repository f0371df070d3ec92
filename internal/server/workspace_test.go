package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// No message a client sees names the server's absolute paths: the allowed roots, the
// workspace, its temporary files. Each failure is run and its message scanned.
func TestErrorsNameNoAbsolutePath(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	ws := f.s.Workspace
	secret := []string{ws.Root, f.photos, filepath.Dir(f.photos), filepath.Dir(ws.Root)}
	// given is the path the client sent: a message may echo it, and nothing more.
	check := func(what string, err error, given ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		msg := err.Error()
		for _, g := range given {
			msg = strings.ReplaceAll(msg, g, "<given>")
		}
		for _, s := range secret {
			if strings.Contains(msg, s) {
				t.Errorf("%s: message %q names the server path %s", what, err, s)
			}
		}
	}
	_, _, err := ws.ReadAllowed(filepath.Join(f.photos, "missing.png"))
	check("missing file", err)
	_, _, err = ws.ReadAllowed("/etc/passwd")
	check("outside the roots", err)
	up := f.photos + "/../x.png"
	_, _, err = ws.ReadAllowed(up)
	check("..", err, up)
	outside := filepath.Join(filepath.Dir(f.photos), "x.png")
	_, _, err = ws.ReadAllowed(outside)
	check("outside, by an absolute path", err, outside)
	_, _, err = ws.ReadAllowed(f.photos)
	check("a directory", err)
	blocker := filepath.Join(t.TempDir(), "blocker")
	os.WriteFile(blocker, nil, 0o644)
	_, err = workspace.Open(filepath.Join(blocker, "ws"), nil)
	check("bad workspace", err)
	// An unwritable context: the gap log's place is taken by a directory.
	if err := os.MkdirAll(filepath.Join(ws.Root, workspace.ContextDir, "gaps.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := f.call("log_vocabulary_gap", map[string]any{"image_id": "cup", "description": "no dodge tool"})["error"].(map[string]any)
	check("gap log", errors.New(e["message"].(string)))
	// A write that fails in the middle: the temporary file's name is the workspace's.
	err = ws.WriteFileFrom(filepath.Join(ws.Root, "previews", "nowhere", "x.jpg"), func(w io.Writer) error { return nil })
	check("write in a missing directory", err)
	// A failure of the history store that names its files: the envelope redacts it.
	if err := os.WriteFile(filepath.Join(ws.Root, "images", "cup", "HEAD"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e = f.call("get_state", map[string]any{"image_id": "cup"})["error"].(map[string]any)
	check("damaged history", errors.New(e["message"].(string)))
	check("redact", errors.New(ws.Redact("open "+filepath.Join(ws.Root, "images", "cup", "HEAD")+": no such file; root "+f.photos)))
	// Permission denied, as the operating system reports it.
	check("permission denied", ws.FSError(&fs.PathError{Op: "open", Path: filepath.Join(ws.Root, "context", "gaps.jsonl"), Err: syscall.EACCES}, "append"))
}

// An unwritable gap log (the RFC's example) is permission_error at the tool, as
// the workspace's FSError codes it (internal/workspace TestFSErrorCodes).
func TestFSErrorCodesGapLog(t *testing.T) {
	if os.Geteuid() == 0 {
		return // root writes through any mode bits; the mapping above is what matters
	}
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	ctx := filepath.Join(f.s.Workspace.Root, workspace.ContextDir)
	os.MkdirAll(ctx, 0o755)
	if err := os.Chmod(ctx, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ctx, 0o755)
	f.fail("log_vocabulary_gap", map[string]any{"image_id": "cup", "description": "no dodge tool"}, darkroom.PermissionError)
}

// The same race through the ingest tool: while coffee.png inside the root is swapped
// for a link to a photo outside it, no ingest stores the outside photo as a source.
func TestIngestSwapRace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a Unix system")
	}
	f := newEdFixture(t)
	outside := filepath.Join(t.TempDir(), "secret.png")
	secret, err := os.ReadFile(filepath.Join(f.photos, "chelsea.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, secret, 0o644); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(f.photos, "coffee.png")
	photo := filepath.Join(f.photos, "swapped.png")
	if err := os.Link(real, photo); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		tmp := filepath.Join(f.photos, ".swap")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(tmp)
			if i%2 == 0 {
				os.Symlink(outside, tmp)
			} else {
				os.Link(real, tmp)
			}
			os.Rename(tmp, photo)
		}
	}()
	var ok, refused int
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; (i < 60 || ok == 0 || refused == 0) && time.Now().Before(deadline); i++ {
		out := f.call("ingest", map[string]any{"path": photo, "image_id": fmt.Sprintf("race%d", i)})
		if out["success"] == true {
			ok++
			continue
		}
		if code := out["error"].(map[string]any)["code"]; code != darkroom.PermissionError {
			t.Errorf("ingest %d: %v, want success or permission_error", i, out["error"])
		}
		refused++
	}
	close(stop)
	wg.Wait()
	filepath.WalkDir(filepath.Join(f.s.Workspace.Root, "sources"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Equal(b, secret) {
				t.Errorf("%s holds the photo from outside the allowed root", p)
			}
		}
		return nil
	})
	t.Logf("%d ingests of the inside photo, %d refused", ok, refused)
	if ok == 0 || refused == 0 {
		t.Errorf("the race was not exercised: %d ingests, %d refusals", ok, refused)
	}
}
