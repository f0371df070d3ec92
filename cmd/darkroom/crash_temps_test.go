package main

import (
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillLeavesNoTemps kills `darkroom serve` with SIGKILL while it writes a large
// export (and commits edits beside it), and checks that the temporary files the kill
// left are gone once a server opens the workspace again, and that it answers.
func TestKillLeavesNoTemps(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a 12-megapixel export")
	}
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	pics := filepath.Join(base, "pics")
	os.MkdirAll(pics, 0o755)
	// A photo whose 16-bit TIFF export (72 MB) takes long enough to be caught
	// while it is written.
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := range 3000 {
		for x := range 4000 {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	f, err := os.Create(filepath.Join(pics, "big.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	args := []string{"--workspace", ws, "--allow-root", pics}

	s := startRaw(t, args...)
	if r := s.call(t, 1, "ingest", map[string]any{"path": filepath.Join(pics, "big.png"), "image_id": "big"}); !r.Success {
		t.Fatalf("ingest: %+v", r.Error)
	}
	// The export and a burst of commits in flight together, then the kill as soon
	// as the export's temporary file is on disk.
	s.stdin.Write(callLine(2, "export_final", map[string]any{"image_id": "big", "format": "tiff"}))
	for i := range 20 {
		s.stdin.Write(callLine(3+i, "snapshot", map[string]any{"image_id": "big", "label": "burst"}))
	}
	exportTemp := false
	for deadline := time.Now().Add(60 * time.Second); !exportTemp && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		for _, p := range temps(ws) {
			exportTemp = exportTemp || strings.HasPrefix(p, "exports/")
		}
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
	left := temps(ws)
	if !exportTemp || len(left) == 0 {
		t.Fatalf("the kill left no temporary file to sweep (saw the export's: %v; left %v): the test proves nothing", exportTemp, left)
	}
	t.Logf("the kill left %d temporary files: %v", len(left), left)

	s = startRaw(t, args...)
	defer func() {
		s.stdin.Close()
		s.cmd.Wait()
	}()
	if r := s.call(t, 1, "get_state", map[string]any{"image_id": "big"}); !r.Success {
		t.Fatalf("get_state after the kill: %+v", r.Error)
	}
	if left := temps(ws); len(left) > 0 {
		t.Errorf("temporary files survive the server's start: %v", left)
	}
}

// temps lists the temporary files and directories under ws, relative to it.
func temps(ws string) []string {
	var out []string
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			rel, _ := filepath.Rel(ws, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}
