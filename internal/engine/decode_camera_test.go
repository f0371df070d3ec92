package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// withRawDecoder sets the process-wide raw decoder for one test.
func withRawDecoder(t *testing.T, d RawDecoder) {
	t.Helper()
	old := rawDecoder.Load()
	SetRawDecoder(d)
	t.Cleanup(func() { rawDecoder.Store(old) })
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-dcraw-emu")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCameraRawThroughLibRaw develops a synthesized DNG through the dcraw_emu
// path (the subprocess path every camera format takes) and requires the known
// image back, as the DNG reader gives it.
func TestCameraRawThroughLibRaw(t *testing.T) {
	tool, err := exec.LookPath("dcraw_emu")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dcraw_emu is not installed (.ci/run installs libraw-bin)")
		}
		t.Skip("dcraw_emu is not installed")
	}
	withRawDecoder(t, RawDecoder{Path: tool})
	known := rawPhoto(t)
	b := synthDNG(t, known, func(s *raw.Synth) { s.Orientation = 6 })
	for _, preview := range []int{0, 200} {
		d, err := decodeCameraRaw(context.Background(), b, "NEF", 0, preview, func(w, h, o int) int64 { return floatBytes(w, h) })
		if err != nil {
			t.Fatal(err)
		}
		img := convertOriented(d.w, d.h, d.o, d.conv)
		d.release()
		want := orient(known, 6)
		if d.src.Format != "raw" || img.W != want.W || img.H != want.H {
			t.Fatalf("%s %dx%d, want raw %dx%d", d.src.Format, img.W, img.H, want.W, want.H)
		}
		// AHD against the known image; bilinear for previews is softer.
		min := 36.0
		if preview > 0 {
			min = 30
		}
		p := psnrSRGB(img, want, 4)
		t.Logf("preview %d: %.1f dB", preview, p)
		if p < min {
			t.Errorf("preview %d: PSNR %.1f dB against the known image, want >= %.0f", preview, p, min)
		}
	}
}

// TestCameraRawToolFailures: no tool is unavailable with the fix; a tool that
// hangs is killed at the time limit (timeout), one whose call is cancelled is
// killed then, one that fails says why (invalid_input), and none leaves its
// temporary directory behind.
func TestCameraRawToolFailures(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no POSIX shell for the fake tools")
	}
	nef := raw.AsCamera(synthDNG(t, rawPhoto(t), nil))
	if k := raw.Kind(nef); k != "camera raw" {
		t.Fatalf("Kind = %q", k)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cases := []struct {
		name     string
		dec      RawDecoder
		ctx      func() (context.Context, context.CancelFunc)
		code     string
		contains string
		maxTime  time.Duration
	}{
		{"disabled", RawDecoder{Disabled: true}, nil, darkroom.Unavailable, "install libraw-bin (or libraw), or convert to DNG", time.Second},
		{"hangs", RawDecoder{Path: script(t, "sleep 30"), Timeout: 300 * time.Millisecond}, nil, darkroom.Timeout, "longer than 300ms and was stopped", 10 * time.Second},
		{"call cancelled", RawDecoder{Path: script(t, "sleep 30")}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, darkroom.Unavailable, "dcraw_emu was killed", 10 * time.Second},
		{"exits non-zero", RawDecoder{Path: script(t, `echo "$4: Unsupported file format or not RAW file" >&2; exit 3`)}, nil, darkroom.InvalidInput, "exit status 3", time.Second * 5},
		{"writes garbage", RawDecoder{Path: script(t, "echo not a tiff")}, nil, darkroom.InvalidInput, "dcraw_emu's output", 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withRawDecoder(t, tc.dec)
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			start := time.Now()
			_, err := Decode(nef, DecodeOptions{Context: ctx})
			if err == nil {
				t.Fatal("decoded")
			}
			if took := time.Since(start); took > tc.maxTime {
				t.Errorf("took %s", took)
			}
			if darkroom.Code(err) != tc.code || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("got %s %q, want %s containing %q", darkroom.Code(err), err, tc.code, tc.contains)
			}
			if strings.Contains(err.Error(), tmp) {
				t.Errorf("the error names the temporary file: %q", err)
			}
		})
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "darkroom-raw-*")); len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

// TestCameraRawMissingTool: with dcraw_emu nowhere on PATH, a camera raw is
// unavailable with the fix, never internal_error.
func TestCameraRawMissingTool(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	withRawDecoder(t, RawDecoder{})
	_, err := Decode(raw.AsCamera(synthDNG(t, rawPhoto(t), nil)), DecodeOptions{})
	if darkroom.Code(err) != darkroom.Unavailable || !strings.Contains(err.Error(), "install libraw-bin") {
		t.Fatalf("got %v", err)
	}
}
