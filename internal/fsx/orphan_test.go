//go:build unix

package fsx

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes this test binary a writer that stops in the middle of a write
// (TestMain): the directory to write in.
const childEnv = "DARKROOM_FSX_WRITER_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		// Write half the file, then wait to be killed.
		WriteFileFrom(filepath.Join(dir, "export.tiff"), func(w io.Writer) error {
			w.Write(make([]byte, 4<<20)) // past the buffer: on disk
			time.Sleep(time.Hour)        // not select{}: with no other goroutine the runtime would end the process
			return nil
		}, nil)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// TestRemoveOrphanAfterKill kills a writer with SIGKILL in the middle of a write:
// while it lives its temporary file is not removed, once it is dead it is.
func TestRemoveOrphanAfterKill(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	tmp := ""
	for deadline := time.Now().Add(30 * time.Second); tmp == "" && time.Now().Before(deadline); {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if fi, err := de.Info(); err == nil && strings.HasPrefix(de.Name(), TempPrefix) && fi.Size() >= 4<<20 {
				tmp = filepath.Join(dir, de.Name())
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if tmp == "" {
		t.Fatal("the writer made no temporary file")
	}
	if removed, err := RemoveOrphan(tmp); removed || err != nil {
		t.Fatalf("RemoveOrphan of a live writer's file: removed %v, err %v", removed, err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the live writer's file is gone: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if removed, err := RemoveOrphan(tmp); !removed || err != nil {
		t.Fatalf("RemoveOrphan of a killed writer's file: removed %v, err %v", removed, err)
	}
	des, _ := os.ReadDir(dir)
	if len(des) != 0 {
		t.Errorf("left in the directory: %v", des)
	}
}

// A sweep never takes a file from a writer between its creation and its lock: the
// writer finds its name gone and makes another (stage's loop). Here the sweep runs
// against every temporary file while writes go on; every write must succeed.
func TestRemoveOrphanRacesWriters(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	swept := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				swept <- n
				return
			default:
			}
			des, _ := os.ReadDir(dir)
			for _, de := range des {
				if strings.HasPrefix(de.Name(), TempPrefix) {
					if ok, _ := RemoveOrphan(filepath.Join(dir, de.Name())); ok {
						n++
					}
				}
			}
		}
	}()
	for i := range 300 {
		if err := WriteFile(filepath.Join(dir, "f"), []byte(strings.Repeat("x", i)), nil); err != nil {
			t.Fatalf("write %d with a sweep running: %v", i, err)
		}
	}
	close(stop)
	t.Logf("the sweep removed %d files between creation and lock", <-swept)
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); len(b) != 299 {
		t.Errorf("file holds %d bytes, want 299", len(b))
	}
}

func TestRemoveOrphanLeavesOthers(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("x"), 0o644)
	link := filepath.Join(dir, TempPrefix+"link")
	os.Symlink(target, link)
	if removed, _ := RemoveOrphan(link); removed {
		t.Error("RemoveOrphan removed a symbolic link")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error(err)
	}
	if removed, err := RemoveOrphan(filepath.Join(dir, "missing")); removed || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: removed %v, err %v", removed, err)
	}
}
