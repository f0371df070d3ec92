package engine

// Camera raw formats other than DNG (NEF, CR2, CR3, ARW, RAF, ORF, RW2...) are
// developed by LibRaw's dcraw_emu, run as a bounded subprocess: its output, a
// 16-bit sRGB TIFF, is then read by the TIFF decoder like any other file, with
// the decode budget taken from that TIFF's header as usual.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/darkroom-mcp/darkroom"
)

// RawDecoder says which program develops camera raw files other than DNG.
type RawDecoder struct {
	// Path is LibRaw's dcraw_emu (or a program taking its arguments); empty looks
	// dcraw_emu up on PATH when a camera raw first needs it.
	Path string
	// Disabled turns the path off: camera raws are then unavailable.
	Disabled bool
	// Timeout bounds one run; 0 means DefaultRawTimeout. The run is killed at
	// the limit, or when the decode's context ends.
	Timeout time.Duration
}

// DefaultRawTimeout bounds one dcraw_emu run: a 60-megapixel file takes well
// under a minute on one core.
const DefaultRawTimeout = 2 * time.Minute

var rawDecoder atomic.Pointer[RawDecoder]

// SetRawDecoder sets the process-wide camera raw decoder.
func SetRawDecoder(d RawDecoder) { rawDecoder.Store(&d) }

// rawTool returns the program to run and its time limit, or unavailable.
func rawTool(kind string) (string, time.Duration, error) {
	d := RawDecoder{}
	if p := rawDecoder.Load(); p != nil {
		d = *p
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultRawTimeout
	}
	path := d.Path
	if path == "" && !d.Disabled {
		path, _ = exec.LookPath("dcraw_emu")
	}
	if d.Disabled || path == "" {
		e := darkroom.Errorf(darkroom.Unavailable, "decode: %s files are read through LibRaw's dcraw_emu, which this server does not have: install libraw-bin (or libraw), or convert to DNG", kind)
		e.Details = map[string]any{"format": kind}
		return "", 0, e
	}
	return path, timeout, nil
}

// decodeCameraRaw is decodeFile for a camera raw that is not a DNG. A preview
// (shrinkTo > 0) asks for bilinear demosaicing (-q 0), an export for AHD (-q 3).
func decodeCameraRaw(ctx context.Context, data []byte, kind string, maxPixels int64, shrinkTo int, floatCost func(w, h, o int) int64) (*decoded, error) {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	tool, timeout, err := rawTool(kind)
	if err != nil {
		return nil, err
	}
	out, err := runRawTool(ctx, tool, timeout, data, kind, shrinkTo > 0, 6*maxPixels+(1<<20))
	if err != nil {
		return nil, err
	}
	d, err := decodeFile(ctx, out, maxPixels, 0, floatCost)
	if err != nil {
		if darkroom.Code(err) == darkroom.InvalidInput {
			return nil, darkroom.Wrap(darkroom.InvalidInput, err, "decode %s: dcraw_emu's output", kind)
		}
		return nil, err
	}
	d.src.Format = "raw"
	return d, nil
}

// runRawTool runs tool on data and returns its TIFF. The program runs in a new
// temporary directory removed after it, with its address space limited to the
// decode budget where a POSIX shell can set it (ulimit -v), killed at the time
// limit or when ctx ends; its output is read up to maxOut bytes.
func runRawTool(ctx context.Context, tool string, timeout time.Duration, data []byte, kind string, preview bool, maxOut int64) ([]byte, error) {
	dir, err := os.MkdirTemp("", "darkroom-raw-")
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "decode %s: temporary directory", kind)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "camera.raw")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "decode %s: temporary file", kind)
	}
	q := "3"
	if preview {
		q = "0"
	}
	// Camera white balance, sRGB primaries and transfer curve, 16 bits, no
	// automatic brightening: what the TIFF decoder reads as any 16-bit sRGB file.
	args := []string{"-w", "-o", "1", "-6", "-g", "2.4", "12.92", "-W", "-q", q, "-T", "-Z", "-", in}
	if ctx == nil {
		ctx = context.Background()
	}
	run, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cmd *exec.Cmd
	if sh, err := exec.LookPath("sh"); err == nil && runtime.GOOS != "windows" {
		kib := strconv.FormatInt(max(DecodeBudget()>>10, 256<<10), 10)
		cmd = exec.CommandContext(run, sh, append([]string{"-c", `ulimit -v "$1" 2>/dev/null; shift; exec "$@"`, "sh", kib, tool}, args...)...)
	} else {
		cmd = exec.CommandContext(run, tool, args...)
	}
	cmd.Dir = dir
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	stdout := &capped{max: maxOut}
	stderr := &capped{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, stopped(ctx, "decode "+kind+" (dcraw_emu was killed)")
	case errors.Is(run.Err(), context.DeadlineExceeded):
		e := darkroom.Errorf(darkroom.Timeout, "decode %s: dcraw_emu ran longer than %s and was stopped", kind, timeout)
		e.Details = map[string]any{"format": kind, "timeout_seconds": timeout.Seconds()}
		return nil, e
	case stdout.over:
		return nil, darkroom.Errorf(darkroom.LimitExceeded, "decode %s: dcraw_emu's output is larger than %d bytes", kind, maxOut)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg := strings.TrimSpace(strings.ReplaceAll(stderr.String(), in, "the file"))
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			return nil, darkroom.Errorf(darkroom.InvalidInput, "decode %s: dcraw_emu could not read it (%s%s)", kind, ee.ProcessState, colon(msg))
		}
		return nil, darkroom.Wrap(darkroom.Unavailable, err, "decode %s: dcraw_emu could not be run", kind)
	case stdout.Len() == 0:
		return nil, darkroom.Errorf(darkroom.InvalidInput, "decode %s: dcraw_emu wrote nothing%s", kind, colon(strings.TrimSpace(stderr.String())))
	}
	return stdout.Bytes(), nil
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// capped is a buffer that keeps at most max bytes and notes that more came.
type capped struct {
	bytes.Buffer
	max  int64
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if int64(c.Len()+len(p)) > c.max {
		c.over = true
		return 0, fmt.Errorf("output above %d bytes", c.max)
	}
	return c.Buffer.Write(p)
}
