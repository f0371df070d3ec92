package server

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"darkroom"
)

// rssBytes is the process's resident set size, or 0 where /proc is missing.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

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
			ws, err := OpenWorkspace(t.TempDir(), []string{root})
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
			base := rssBytes()
			var peak atomic.Int64
			wg.Add(1)
			go func() { // the memory watch
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
						if r := rssBytes() - base; r > peak.Load() {
							peak.Store(r)
						}
					}
				}
			}()

			var done, leaked, ok atomic.Int64
			var codes sync.Map
			var rwg sync.WaitGroup
			for range readers {
				rwg.Add(1)
				go func() {
					defer rwg.Done()
					for done.Add(1) <= reads && time.Now().Before(deadline) {
						res := make(chan error, 1)
						go func() {
							b, _, err := ws.ReadAllowed(photo)
							switch {
							case err != nil:
								codes.Store(darkroom.Code(err), true)
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
