package pack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// The bounds a pack is loaded under. A pack is data an author writes by hand or
// generates; these are far above any real one (the built-in packs are a few tens of
// kilobytes in all) and far below what would hurt a small server at start-up.
const (
	// MaxPackBytes bounds one manifest file.
	MaxPackBytes = 4 << 20
	// MaxTotalPackBytes bounds every pack loaded together, built-in ones included.
	MaxTotalPackBytes = 16 << 20
	// MaxCUEEvalBytes bounds the heap evaluating one CUE pack may use, and
	// MaxCUEEvalTime the time it may take (see preflight).
	// A legal CUE pack at the size cap evaluates in about 20 s on two busy cores.
	MaxCUEEvalBytes = 512 << 20
	MaxCUEEvalTime  = time.Minute
)

// readPackFile reads one pack from disk under the bounds: it opens without blocking
// (a named pipe called pack.yaml would otherwise wait for a writer forever), refuses
// anything but a regular file by what it opened, and reads at most MaxPackBytes+1
// through that descriptor. display names the pack in errors.
func readPackFile(name, display string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, pathless(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, pathless(err))
	}
	if !info.Mode().IsRegular() {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s: not a regular file (%s); a pack must be a regular file", display, fileKind(info.Mode()))
	}
	if info.Size() > MaxPackBytes {
		return nil, tooBig(display, info.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxPackBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if len(b) > MaxPackBytes { // it grew after the stat
		return nil, tooBig(display, int64(len(b)))
	}
	return b, nil
}

// pathless drops the path an *fs.PathError carries (absolute for --vocab
// directories): the caller names the pack as the user gave it.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func tooBig(display string, n int64) error {
	e := darkroom.Errorf(darkroom.LimitExceeded, "%s: %d bytes, over the manifest limit of %d", display, n, MaxPackBytes)
	e.Details = map[string]any{"pack": display, "bytes": n, "max_bytes": MaxPackBytes}
	return e
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// checkTotal refuses packs that together pass MaxTotalPackBytes.
func checkTotal(srcs []Source) error {
	var n int64
	for _, s := range srcs {
		n += int64(len(s.Data))
		if n > MaxTotalPackBytes {
			e := darkroom.Errorf(darkroom.LimitExceeded, "%s: the packs up to this one are %d bytes, over the limit of %d for all packs together", s.Name, n, MaxTotalPackBytes)
			e.Details = map[string]any{"pack": s.Name, "bytes": n, "max_bytes": MaxTotalPackBytes}
			return e
		}
	}
	return nil
}

// A CUE pack is a program: a few lines can double a string forty times or comprehend
// over list.Range(0, 1e9), and CUE v0.17 offers no way to bound or cancel an
// evaluation (cue-lang/cue#2489 and #3752 are open). A goroutine with a timer cannot
// stop it, and rejecting constructs before evaluation would have to forbid references,
// which is most of what CUE is for (a tree of references doubles at each level too).
// So a CUE pack is first evaluated on its own in a child process, this same
// executable started again, which exits when its heap passes MaxCUEEvalBytes and is
// killed when it runs past MaxCUEEvalTime. Only a pack that evaluates within both is
// checked against #Manifest in this process; the pack alone is what can be costly,
// since the schema's own work is linear in the (now bounded) entries it is given.
// YAML and JSON packs need none of this: they are data, and CUE's YAML reader bounds
// alias expansion.
const (
	preflightEnv = "DARKROOM_VOCAB_PREFLIGHT"
	// preflightArg is the child's only argument: with the environment variable it
	// tells the child apart, so a variable left in a user's environment cannot turn
	// `darkroom serve` into a process that reads its stdin as a CUE pack.
	preflightArg = "--darkroom-vocab-preflight-child"
)

func init() {
	// The child is told apart by the environment and the argument its parent gives
	// it; any other process goes on as usual.
	if os.Getenv(preflightEnv) == "1" && len(os.Args) == 2 && os.Args[1] == preflightArg {
		os.Exit(runPreflight(os.Stdin, os.Stdout))
	}
}

// Verdicts the child prints; anything else (or nothing, when it was killed or
// crashed) is a failure too.
const (
	verdictOK     = "ok"
	verdictMemory = "memory"
)

// runPreflight evaluates the CUE file on in, every field to the end, and prints a
// verdict on out.
func runPreflight(in io.Reader, out io.Writer) int {
	debug.SetMemoryLimit(MaxCUEEvalBytes) // collect hard before giving up
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			if sample[0].Value.Uint64() > MaxCUEEvalBytes {
				fmt.Fprintln(out, verdictMemory)
				os.Exit(3)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	data, err := io.ReadAll(io.LimitReader(in, MaxPackBytes+1))
	if err != nil || len(data) > MaxPackBytes {
		fmt.Fprintln(out, "unreadable")
		return 2
	}
	v := cuecontext.New().CompileBytes(data)
	// Errors are not this pass's to report: the check in the parent reports them
	// with cue vet's positions. What matters is that evaluating everything ends.
	_ = v.Validate(cue.All(), cue.Concrete(true))
	_, _ = v.MarshalJSON()
	fmt.Fprintln(out, verdictOK)
	return 0
}

// preflight evaluates a CUE pack in a child process under MaxCUEEvalBytes and
// MaxCUEEvalTime, and returns limit_exceeded naming the pack when it passes either.
func preflight(src Source) error {
	exe, err := os.Executable()
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "%s: evaluate CUE pack", src.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), MaxCUEEvalTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, preflightArg)
	cmd.Env = append(os.Environ(), preflightEnv+"=1")
	cmd.Stdin = bytes.NewReader(src.Data)
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	verdict := string(bytes.TrimSpace(out.Bytes()))
	switch {
	case err == nil && verdict == verdictOK:
		return nil
	case ctx.Err() != nil:
		return evalLimit(src, "took longer than %s to evaluate", MaxCUEEvalTime)
	case verdict == verdictMemory:
		return evalLimit(src, "needs more than %d MiB to evaluate", MaxCUEEvalBytes>>20)
	}
	// A crash (the runtime's own out-of-memory among them) or a verdict that is
	// not one: refuse the pack all the same, naming it.
	return evalLimit(src, "could not be evaluated within the limits (%v)", err)
}

func evalLimit(src Source, format string, args ...any) error {
	e := darkroom.Errorf(darkroom.LimitExceeded, "%s: this CUE pack "+format+"; a pack declares its entries, it should not compute them at this scale", append([]any{src.Name}, args...)...)
	e.Details = map[string]any{"pack": src.Name, "max_bytes": MaxCUEEvalBytes, "max_seconds": MaxCUEEvalTime.Seconds()}
	return e
}
