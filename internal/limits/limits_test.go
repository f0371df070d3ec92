package limits

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// clock is a fake time source that only moves when the test says so.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock               { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func lim(rpm, burst, conc int) contract.Limits {
	return contract.Limits{RequestsPerMinute: rpm, Burst: burst, ConcurrentCalls: conc, MaxInputBytes: 1 << 20}
}

// details returns the coded error's code and details, failing when err is not one.
func details(t *testing.T, err error) (string, map[string]any) {
	t.Helper()
	var e *darkroom.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not a coded error", err)
	}
	return e.Code, e.Details
}

func TestBucket(t *testing.T) {
	c := newClock()
	l := New(c.now)
	L := lim(120, 3, 100) // one call per 500 ms, bursts of 3
	for i := range 3 {
		rel, err := l.Acquire("alice", L)
		if err != nil {
			t.Fatalf("call %d of the burst: %v", i, err)
		}
		rel()
	}
	_, err := l.Acquire("alice", L)
	code, d := details(t, err)
	want := map[string]any{"limit": "requests_per_minute", "requests_per_minute": 120, "burst": 3, "retry_after_ms": int64(500)}
	if diff := cmp.Diff(want, d); code != darkroom.LimitExceeded || diff != "" {
		t.Fatalf("the 4th call: %s (-want +got):\n%s", code, diff)
	}
	// Another principal has its own bucket.
	if _, err := l.Acquire("bob", L); err != nil {
		t.Errorf("bob after alice's burst: %v", err)
	}
	// retry_after_ms is exact: a millisecond early is still refused, saying 1 ms.
	c.add(499 * time.Millisecond)
	_, err = l.Acquire("alice", L)
	if _, d := details(t, err); d["retry_after_ms"] != int64(1) {
		t.Errorf("1 ms early: retry_after_ms %v, want 1", d["retry_after_ms"])
	}
	c.add(time.Millisecond)
	if _, err := l.Acquire("alice", L); err != nil {
		t.Errorf("after retry_after_ms: %v", err)
	}
	// A long quiet spell refills only up to the burst.
	c.add(time.Hour)
	for i := range 3 {
		if _, err := l.Acquire("alice", L); err != nil {
			t.Fatalf("call %d after an hour: %v", i, err)
		}
	}
	if _, err := l.Acquire("alice", L); err == nil {
		t.Error("an hour's quiet allowed more than the burst")
	}
}

func TestConcurrency(t *testing.T) {
	c := newClock()
	l := New(c.now)
	L := lim(6000, 100, 2)
	r1, err := l.Acquire("alice", L)
	if err != nil {
		t.Fatal(err)
	}
	c.add(300 * time.Millisecond)
	r2, err := l.Acquire("alice", L)
	if err != nil {
		t.Fatal(err)
	}
	c.add(100 * time.Millisecond)
	_, err = l.Acquire("alice", L)
	code, d := details(t, err)
	// No call has finished: the estimate is 1 s less the 400 ms the oldest has run.
	want := map[string]any{"limit": "concurrent_calls", "concurrent_calls": 2, "retry_after_ms": int64(600)}
	if diff := cmp.Diff(want, d); code != darkroom.LimitExceeded || diff != "" {
		t.Fatalf("a 3rd call at once: %s (-want +got):\n%s", code, diff)
	}
	// Others are not held up by alice's calls.
	if _, err := l.Acquire("bob", L); err != nil {
		t.Errorf("bob: %v", err)
	}
	r1()
	r1() // a second release frees nothing more
	r3, err := l.Acquire("alice", L)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := l.Acquire("alice", L); err == nil {
		t.Fatal("a double release freed a second slot")
	}
	// The estimate learns from finished calls (r1 ran 400 ms), and never says less
	// than 100 ms.
	c.add(2 * time.Second)
	_, err = l.Acquire("alice", L)
	if _, d := details(t, err); d["retry_after_ms"] != int64(100) {
		t.Errorf("long-running calls: retry_after_ms %v, want the floor 100", d["retry_after_ms"])
	}
	r2()
	r3()
	if _, err := l.Acquire("alice", L); err != nil {
		t.Errorf("after all releases: %v", err)
	}
}

// A call refused for concurrency takes nothing from the bucket.
func TestConcurrencyRefusalIsFree(t *testing.T) {
	c := newClock()
	l := New(c.now)
	L := lim(1, 2, 1)
	rel, err := l.Acquire("alice", L)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := l.Acquire("alice", L); err == nil {
			t.Fatal("a second call at once passed")
		}
	}
	rel()
	if _, err := l.Acquire("alice", L); err != nil {
		t.Errorf("the bucket's second call after refused ones: %v", err)
	}
}

// Idle principals are forgotten, so states follow the active ones only.
func TestSweep(t *testing.T) {
	c := newClock()
	l := New(c.now)
	L := lim(60, 1, 1)
	busy, err := l.Acquire("busy", L)
	if err != nil {
		t.Fatal(err)
	}
	defer busy()
	for i := range sweepAbove {
		rel, err := l.Acquire(fmt.Sprintf("p%d", i), L)
		if err != nil {
			t.Fatal(err)
		}
		rel()
	}
	c.add(time.Minute) // every bucket is full again
	if _, err := l.Acquire("newcomer", L); err != nil {
		t.Fatal(err)
	}
	if n := len(l.states); n != 2 {
		t.Errorf("%d states after the sweep, want 2 (busy, in flight, and newcomer)", n)
	}
	// busy is still held to its one call.
	if _, err := l.Acquire("busy", L); err == nil {
		t.Error("the sweep forgot a call in flight")
	}
}

func TestCheckInput(t *testing.T) {
	L := lim(60, 1, 1)
	if err := CheckInput("alice", 1<<20, L); err != nil {
		t.Errorf("exactly the limit: %v", err)
	}
	code, d := details(t, CheckInput("alice", 1<<20+1, L))
	want := map[string]any{"limit": "max_input_bytes", "max_input_bytes": int64(1 << 20), "bytes": int64(1<<20 + 1)}
	if diff := cmp.Diff(want, d); code != darkroom.LimitExceeded || diff != "" {
		t.Errorf("one byte over: %s (-want +got):\n%s", code, diff)
	}
}

// Deadlines take the contract's limits; a call its limit stopped is timeout with what
// was done, anything else keeps its own error.
func TestDeadlines(t *testing.T) {
	tl, err := packtest.Contract(t).TimeLimits()
	if err != nil {
		t.Fatal(err)
	}
	d := Deadlines{Limits: tl}
	ctx, cancel := d.Start(t.Context(), "export_final", "render")
	dl, ok := ctx.Deadline()
	cancel()
	if !ok {
		t.Fatal("no deadline")
	}
	// The deadline is export_final's, not the default: a deadline taken later for a
	// tool on the default still ends before it.
	if tl.For("export_final", "render") <= tl.Default {
		t.Fatalf("export_final's limit is not above the default")
	}
	lctx, lcancel := d.Start(t.Context(), "log", "history")
	later, _ := lctx.Deadline()
	lcancel()
	if !later.Before(dl) {
		t.Errorf("log's deadline %v is not before export_final's %v", later, dl)
	}

	// A limit that has passed: the handler sees ctx end and gives up.
	short := Deadlines{Limits: contract.TimeLimits{Default: time.Nanosecond}}
	ctx, cancel = short.Start(t.Context(), "propagate_state", "edit")
	defer cancel()
	<-ctx.Done()
	handlerErr := darkroom.Wrap(darkroom.RenderError, ctx.Err(), "render harbour")
	err = Result(ctx, handlerErr, map[string]any{"images_done": []string{"harbour"}})
	code, det := details(t, err)
	want := map[string]any{"tool": "propagate_state", "limit_ms": int64(0), "done": map[string]any{"images_done": []string{"harbour"}}}
	if diff := cmp.Diff(want, det); code != darkroom.Timeout || diff != "" {
		t.Errorf("stopped by the limit: %s (-want +got):\n%s", code, diff)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the timeout does not wrap the handler's error: %v", err)
	}
	// Success past the limit stays success; the call's own error stays its own.
	if err := Result(ctx, nil, nil); err != nil {
		t.Errorf("success after the limit: %v", err)
	}
	own := darkroom.Errorf(darkroom.InvalidInput, "value: 9 is above the maximum 1")
	if err := Result(ctx, own, nil); err != own {
		t.Errorf("the call's own error became %v", err)
	}

	// The client cancelled: not a timeout.
	ctx, cancel = d.Start(t.Context(), "export_final", "render")
	cancel()
	cerr := darkroom.Wrap(darkroom.RenderError, ctx.Err(), "export")
	if err := Result(ctx, cerr, nil); darkroom.Code(err) != darkroom.RenderError {
		t.Errorf("a cancelled call: %v, want its own error", err)
	}
}
