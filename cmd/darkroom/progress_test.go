package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ttyBuffer is a buffer that says it is a terminal, as stderr is in a shell.
type ttyBuffer struct{ bytes.Buffer }

func (*ttyBuffer) IsTerminal() bool { return true }

// fakeClock advances by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// The bar redraws one line with carriage returns: done/total, the rate since the
// call began and the time left at that rate, blanks what a shorter line leaves,
// draws at most every redrawEvery but always the last step, and ends its line
// when the work is done.
func TestProgressBarRedrawsOneLine(t *testing.T) {
	var out bytes.Buffer
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	b := newProgressBarAt(&out, "augment-dataset", clk.now)
	step := func(d time.Duration, done float64) {
		clk.t = clk.t.Add(d)
		b.Update(done, 100, "x of y variants")
	}
	step(2*time.Second, 10)
	step(50*time.Millisecond, 11) // within redrawEvery: not drawn
	step(7950*time.Millisecond, 50)
	step(40*time.Second, 100)
	b.Finish()
	b.Finish() // a second Finish draws nothing
	want := "\raugment-dataset [==>                 ]  10/100  5.00/s  18s left" +
		"\raugment-dataset [==========>         ]  50/100  5.00/s  10s left" +
		"\raugment-dataset [====================] 100/100  2.00/s" + strings.Repeat(" ", len("  10s left")) + "\n"
	if got := out.String(); got != want {
		t.Errorf("drawn:\n%q\nwant\n%q", got, want)
	}
}

// An export's progress comes in stages (decode, then render): each stage is a bar
// of its own, its rate counted from when it began.
func TestProgressBarStages(t *testing.T) {
	var out bytes.Buffer
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	b := newProgressBarAt(&out, "export", clk.now)
	clk.t = clk.t.Add(3 * time.Second)
	b.Update(0, 4000, "decode")
	clk.t = clk.t.Add(time.Second)
	b.Update(0, 4000, "render")
	clk.t = clk.t.Add(2 * time.Second)
	b.Update(1000, 4000, "render")
	got := out.String()
	for _, w := range []string{"\rexport decode [>", "\rexport render [=====>", "1000/4000  500/s  6s left"} {
		if !strings.Contains(got, w) {
			t.Errorf("drawn %q: no %q", got, w)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 7400 * time.Millisecond: "7s", 125 * time.Second: "2m05s", 3720 * time.Second: "1h02m",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// Only a terminal gets the bar: a pipe, a file or a buffer is not one.
func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, c := range map[string]struct {
		w    any
		want bool
	}{"pipe": {w, false}, "file": {f, false}, "buffer": {&bytes.Buffer{}, false}, "terminal": {&ttyBuffer{}, true}} {
		if got := isTerminal(c.w.(interface{ Write([]byte) (int, error) })); got != c.want {
			t.Errorf("%s: isTerminal = %v, want %v", name, got, c.want)
		}
	}
}

// `darkroom augment --count N` on a terminal draws the bar from the tool's own
// progress (the notifications/progress an MCP client gets), ends its line, and
// prints the result on stdout as without it; with --json it draws nothing.
func TestAugmentDrawsProgressOnATerminal(t *testing.T) {
	dir := t.TempDir()
	photo, err := os.ReadFile(filepath.Join("..", "..", "samples", "coffee.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coffee.png"), photo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	run := func(json bool) (stdout, stderr string) {
		var out bytes.Buffer
		var errOut ttyBuffer
		args := []string{"augment", "coffee.png", "--preset", "detection_safe", "--count", "3", "--seed", "7", "--workspace", "ws"}
		if json {
			args = append(args, "--json")
		}
		if code := (&Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}).Run(context.Background(), args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String(), errOut.String()
	}
	stdout, stderr := run(false)
	if !strings.HasPrefix(stderr, "\raugment [") || !strings.Contains(stderr, "3/3") || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr on a terminal: %q; want the bar redrawn up to 3/3 and its line ended", stderr)
	}
	if strings.Contains(stdout, "\r") {
		t.Errorf("stdout has the bar: %q", stdout)
	}
	if _, stderr := run(true); stderr != "" {
		t.Errorf("with --json, stderr: %q; want nothing", stderr)
	}
}
