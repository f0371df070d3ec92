package workspace

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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
	"github.com/darkroom-mcp/darkroom/internal/procstat"
)

// A file inside the allowed root is swapped, again and again, for a symbolic link to
// a photo outside it, to /dev/zero or to a FIFO, while many reads of it run. No read
// may return the outside photo's bytes, none may hang (a FIFO with no writer), and
// memory stays bounded (/dev/zero never ends). Every read either returns the inside
// photo's bytes or fails with a coded refusal.
func TestReadAllowedSwapRace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and FIFOs need a Unix system")
	}
	inside := bytes.Repeat([]byte("inside photo "), 4096)
	secret := bytes.Repeat([]byte("OUTSIDE SECRET "), 4096)
	targets := map[string]func(t *testing.T, dir string) string{
		"outside photo": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "secret.jpg")
			if err := os.WriteFile(p, secret, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"dev zero": func(t *testing.T, dir string) string { return "/dev/zero" },
		"fifo": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			return p
		},
	}
	for name, makeTarget := range targets {
		t.Run(name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			target := makeTarget(t, outside)
			real := filepath.Join(root, "real.jpg")
			if err := os.WriteFile(real, inside, 0o644); err != nil {
				t.Fatal(err)
			}
			photo := filepath.Join(root, "photo.jpg")
			if err := os.Link(real, photo); err != nil {
				t.Fatal(err)
			}
			ws, err := Open(t.TempDir(), []string{root})
			if err != nil {
				t.Fatal(err)
			}

			const reads, readers, swaps = 2000, 4, 1000000
			deadline := time.Now().Add(10 * time.Second)
			stop := make(chan struct{})
			var swapped atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // the attacker: rename is atomic, so photo.jpg always exists
				defer wg.Done()
				runtime.LockOSThread() // a thread of its own, as another process would have
				tmp := filepath.Join(root, ".swap")
				for i := 0; i < swaps; i++ {
					select {
					case <-stop:
						return
					default:
					}
					os.Remove(tmp)
					var err error
					if i%2 == 0 {
						err = os.Symlink(target, tmp)
					} else {
						err = os.Link(real, tmp)
					}
					if err == nil && os.Rename(tmp, photo) == nil {
						swapped.Add(1)
					}
				}
			}()
			base := int64(procstat.RSS(0))
			var peak atomic.Int64
			wg.Add(1)
			go func() { // the memory watch
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
						if r := int64(procstat.RSS(0)) - base; r > peak.Load() {
							peak.Store(r)
						}
					}
				}
			}()

			var done, leaked, ok, refused atomic.Int64
			var codes sync.Map
			var rwg sync.WaitGroup
			for range readers {
				rwg.Add(1)
				go func() {
					defer rwg.Done()
					// At least reads, and on until both outcomes were seen: a loaded
					// machine can starve the attacker for a while.
					for (done.Add(1) <= reads || ok.Load() == 0 || refused.Load() == 0) && time.Now().Before(deadline) {
						res := make(chan error, 1)
						go func() {
							b, _, err := ws.ReadAllowed(photo)
							switch {
							case err != nil:
								codes.Store(darkroom.Code(err), true)
								refused.Add(1)
							case bytes.Contains(b, []byte("OUTSIDE")):
								leaked.Add(1)
							case !bytes.Equal(b, inside):
								err = fmt.Errorf("read %d bytes that are not the inside photo", len(b))
							default:
								ok.Add(1)
							}
							if err != nil && darkroom.Code(err) == darkroom.InternalError {
								res <- err
								return
							}
							if err != nil && !errors.As(err, new(*darkroom.Error)) {
								res <- err
								return
							}
							res <- nil
						}()
						select {
						case err := <-res:
							if err != nil {
								t.Errorf("read: %v", err)
							}
						case <-time.After(10 * time.Second):
							t.Errorf("a read hung for 10 s")
							return
						}
					}
				}()
			}
			rwg.Wait()
			close(stop)
			wg.Wait()
			if n := leaked.Load(); n > 0 {
				t.Errorf("%d reads returned the photo outside the allowed root", n)
			}
			if p := peak.Load(); p > 256<<20 {
				t.Errorf("resident memory grew by %d MiB during the reads, want at most 256", p>>20)
			}
			var seen []string
			codes.Range(func(k, _ any) bool {
				seen = append(seen, k.(string))
				if c := k.(string); c != darkroom.PermissionError && c != darkroom.InvalidInput {
					t.Errorf("a read failed with %s, want permission_error or invalid_input", c)
				}
				return true
			})
			t.Logf("%d swaps, %d reads of the inside photo, refusals %v, peak RSS growth %d KiB", swapped.Load(), ok.Load(), seen, peak.Load()>>10)
			if ok.Load() == 0 || len(seen) == 0 || swapped.Load() < 10 {
				t.Errorf("the race was not exercised: %d good reads, refusals %v, %d swaps", ok.Load(), seen, swapped.Load())
			}
		})
	}
}

// The files a client cannot read: each is refused with a code, promptly, and a symbolic
// link that stays under the root (relative or absolute) is still followed.
func TestReadAllowedFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and FIFOs need a Unix system")
	}
	root, outside := t.TempDir(), t.TempDir()
	photo := []byte("a photo")
	for name, data := range map[string][]byte{"photo.jpg": photo, "sub/deep.jpg": photo} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret.jpg"), []byte("secret"), 0o644)
	links := map[string]string{
		"rel-in.jpg": "sub/deep.jpg", "abs-in.jpg": filepath.Join(root, "photo.jpg"),
		"rel-out.jpg": "../" + filepath.Base(outside) + "/secret.jpg", "abs-out.jpg": filepath.Join(outside, "secret.jpg"),
		"zero.jpg": "/dev/zero", "loop.jpg": "loop.jpg",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.jpg"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(t.TempDir(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, code string // "" code: read
	}{
		{"photo.jpg", ""},
		{"rel-in.jpg", ""},
		{"abs-in.jpg", ""},
		{"sub", darkroom.InvalidInput},
		{"fifo.jpg", darkroom.InvalidInput},
		{"rel-out.jpg", darkroom.PermissionError},
		{"abs-out.jpg", darkroom.PermissionError},
		{"zero.jpg", darkroom.PermissionError},
		{"loop.jpg", darkroom.PermissionError},
		{"missing.jpg", darkroom.NotFound},
		{"http://example.com/photo.jpg", darkroom.InvalidInput},
		{"HTTPS://example.com/photo.jpg", darkroom.InvalidInput},
		{"file:photo.jpg", darkroom.InvalidInput},
		{"s3://bucket/photo.jpg", darkroom.InvalidInput},
	}
	for _, tc := range tests {
		p := tc.path
		if !strings.Contains(p, ":") {
			p = filepath.Join(root, p)
		}
		b, _, err := ws.ReadAllowed(p)
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("%s: %v, want the photo", tc.path, err)
		case tc.code == "" && !bytes.Equal(b, photo):
			t.Errorf("%s: read %q, want the photo", tc.path, b)
		case tc.code != "" && darkroom.Code(err) != tc.code:
			t.Errorf("%s: error %v (%s), want %s", tc.path, err, darkroom.Code(err), tc.code)
		}
		if tc.code == darkroom.InvalidInput && strings.Contains(tc.path, "://") && !strings.Contains(err.Error(), "URLs are not accepted") {
			t.Errorf("%s: %v, want it to say URLs are not accepted", tc.path, err)
		}
	}
}

// Temporary files a crash left in the workspace's file directories are removed when
// it opens, however young: their writer is gone. The files themselves, a temporary
// file whose writer still holds its owner's lock (a write in progress in another
// process), and one named as earlier versions named theirs (no lock) that is young
// enough to be in progress, stay.
func TestWorkspaceRemovesStaleTemps(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	files := map[string]bool{ // name: removed
		"previews/cup/.tmp-preview.jpg-123": true,
		"exports/cup/.tmp-cup-abc.jpg-9":    true,
		"sources/cup/.source.png.tmp4567":   true, // as earlier versions named them
		"context/.tmp-proposals.json-1":     true,
		"context/.tmp-young-2":              true,
		"previews/cup/preview.jpg":          false,
		"exports/cup/.tmp-cup.jpg-owned":    false,
		"sources/cup/.young.png.tmp4568":    false,
	}
	for name := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(name, "young") && !strings.Contains(name, "owned") {
			os.Chtimes(p, old, old)
		}
	}
	// A live writer's lock, as fsx's writer holds it.
	owned, err := os.Open(filepath.Join(root, "exports/cup/.tmp-cup.jpg-owned"))
	if err != nil {
		t.Fatal(err)
	}
	defer owned.Close()
	if err := fsx.Lock(owned, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(root, nil); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
		if exists := err == nil; exists == removed {
			t.Errorf("%s: exists %v after open, want %v", name, exists, !removed)
		}
	}
}

// A write leaves its file whole under its name and no temporary file beside it; a
// write that fails leaves nothing.
func TestWriteFileFrom(t *testing.T) {
	ws, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := ws.Dir("exports", "IMG_1")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "x.jpg")
	if err := ws.WriteFile(p, []byte("whole")); err != nil {
		t.Fatal(err)
	}
	boom := darkroom.Errorf(darkroom.RenderError, "encode failed")
	if err := ws.WriteFileFrom(filepath.Join(dir, "y.jpg"), func(w io.Writer) error { w.Write([]byte("half")); return boom }); err != boom {
		t.Errorf("failed write: %v, want the writer's own error", err)
	}
	des, _ := os.ReadDir(dir)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	if fmt.Sprint(names) != "[x.jpg]" {
		t.Errorf("directory holds %v, want [x.jpg]", names)
	}
	if b, _ := os.ReadFile(p); string(b) != "whole" {
		t.Errorf("x.jpg holds %q", b)
	}
}

// A filesystem failure says what happened: permission_error when access is refused
// (or the disk is read-only), unavailable when the disk is full, internal_error for
// the rest.
func TestFSErrorCodes(t *testing.T) {
	ws, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for errno, want := range map[syscall.Errno]string{
		syscall.EACCES: darkroom.PermissionError, syscall.EPERM: darkroom.PermissionError, syscall.EROFS: darkroom.PermissionError,
		syscall.ENOSPC: darkroom.Unavailable, syscall.EIO: darkroom.InternalError,
	} {
		err := ws.FSError(&fs.PathError{Op: "write", Path: filepath.Join(ws.Root, "context", "gaps.jsonl"), Err: errno}, "append to %s", "context/gaps.jsonl")
		if got := darkroom.Code(err); got != want {
			t.Errorf("%v: %s, want %s", errno, got, want)
		}
	}
}
