package limits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

const (
	// firstEstimate is the typical call duration assumed before any call finished.
	firstEstimate = time.Second
	// minRetry is the least retry_after_ms given for a concurrency refusal.
	minRetry = 100 * time.Millisecond
	// sweepAbove is how many principal states may exist before idle ones are dropped.
	sweepAbove = 256
)

// Limiter holds every principal's bucket and calls in flight. It is safe for
// concurrent use.
type Limiter struct {
	now func() time.Time

	mu     sync.Mutex
	states map[string]*state
}

type state struct {
	// tat is when the bucket is full again (the generic cell rate algorithm's
	// theoretical arrival time): each call pushes it one interval later. Kept as a
	// time, the arithmetic is exact in nanoseconds.
	tat      time.Time
	inflight map[uint64]time.Time // call id → start
	nextID   uint64
	avg      time.Duration // moving average of finished calls' durations
}

// New returns a Limiter reading the clock now (time.Now when nil).
func New(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{now: now, states: map[string]*state{}}
}

// interval is the time one call's worth takes to refill.
func interval(lim contract.Limits) time.Duration {
	return time.Minute / time.Duration(lim.RequestsPerMinute)
}

// Acquire admits one call of principal under lim, or returns limit_exceeded with
// retry_after_ms in details. The returned release ends the call; it must be called
// once the call is over (more calls are harmless).
func (l *Limiter) Acquire(principal string, lim contract.Limits) (release func(), err error) {
	t := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.states[principal]
	if st == nil {
		if len(l.states) >= sweepAbove {
			l.sweep(t)
		}
		st = &state{tat: t, inflight: map[uint64]time.Time{}, avg: firstEstimate}
		l.states[principal] = st
	}
	if len(st.inflight) >= lim.ConcurrentCalls {
		oldest := t
		for _, s := range st.inflight {
			if s.Before(oldest) {
				oldest = s
			}
		}
		wait := max(st.avg-t.Sub(oldest), minRetry)
		e := darkroom.Errorf(darkroom.LimitExceeded, "%s already has %d calls running, the most at once; retry in %d ms", principal, len(st.inflight), millis(wait))
		e.Details = map[string]any{"limit": "concurrent_calls", "concurrent_calls": lim.ConcurrentCalls, "retry_after_ms": millis(wait)}
		return nil, e
	}
	iv := interval(lim)
	tat := st.tat
	if tat.Before(t) {
		tat = t
	}
	if wait := tat.Sub(t) - time.Duration(lim.Burst-1)*iv; wait > 0 {
		ms := millis(wait)
		e := darkroom.Errorf(darkroom.LimitExceeded, "%s may make %d calls a minute (bursts of %d); retry in %d ms", principal, lim.RequestsPerMinute, lim.Burst, ms)
		e.Details = map[string]any{"limit": "requests_per_minute", "requests_per_minute": lim.RequestsPerMinute, "burst": lim.Burst, "retry_after_ms": ms}
		return nil, e
	}
	st.tat = tat.Add(iv)
	id := st.nextID
	st.nextID++
	st.inflight[id] = t
	var once sync.Once
	return func() {
		once.Do(func() {
			end := l.now()
			l.mu.Lock()
			defer l.mu.Unlock()
			if start, ok := st.inflight[id]; ok {
				delete(st.inflight, id)
				// A moving average over about the last five calls.
				st.avg += (end.Sub(start) - st.avg) / 5
			}
		})
	}, nil
}

// sweep drops the states that equal a fresh one: nothing in flight, bucket full.
func (l *Limiter) sweep(t time.Time) {
	for p, st := range l.states {
		if len(st.inflight) == 0 && !st.tat.After(t) {
			delete(l.states, p)
		}
	}
}

func millis(d time.Duration) int64 {
	return int64(math.Ceil(float64(d) / float64(time.Millisecond)))
}

// CheckInput refuses a request of n bytes over the principal's max_input_bytes.
func CheckInput(principal string, n int64, lim contract.Limits) error {
	if n <= lim.MaxInputBytes {
		return nil
	}
	e := darkroom.Errorf(darkroom.LimitExceeded, "a request of %d bytes is over %s's limit of %d bytes", n, principal, lim.MaxInputBytes)
	e.Details = map[string]any{"limit": "max_input_bytes", "max_input_bytes": lim.MaxInputBytes, "bytes": n}
	return e
}

// Deadlines gives each call its tool's time limit.
type Deadlines struct {
	Limits contract.TimeLimits
}

// timeLimit is the cause of a context ended by a tool's time limit.
type timeLimit struct {
	tool  string
	limit time.Duration
}

func (t *timeLimit) Error() string {
	return fmt.Sprintf("%s: time limit of %s reached", t.tool, t.limit)
}

// Start returns ctx bounded by the tool's time limit (its own, its group's or the
// default). Run the handler under it and pass its error to Result.
func (d Deadlines) Start(ctx context.Context, tool, group string) (context.Context, context.CancelFunc) {
	lim := d.Limits.For(tool, group)
	return context.WithTimeoutCause(ctx, lim, &timeLimit{tool: tool, limit: lim})
}

// Result turns the error of a call run under Start's ctx into timeout when the
// tool's time limit stopped it, with done (what the call finished: a batch's images,
// an export's rows) in details. The call was stopped by the limit when the limit
// ended ctx and err wraps ctx.Err() or context.Cause(ctx), as a handler that gives
// up on ctx.Done() returns. A call that succeeded keeps its result even if the limit
// passed as it returned, an error of its own (invalid_input found before the limit)
// stays what it is, and so does the error of a call the client cancelled.
func Result(ctx context.Context, err error, done map[string]any) error {
	if err == nil {
		return nil
	}
	var tl *timeLimit
	if !errors.As(context.Cause(ctx), &tl) {
		return err
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, tl) {
		return err
	}
	if done == nil {
		done = map[string]any{}
	}
	return &darkroom.Error{
		Code:    darkroom.Timeout,
		Message: fmt.Sprintf("%s was stopped at its time limit of %s", tl.tool, tl.limit),
		Details: map[string]any{"tool": tl.tool, "limit_ms": tl.limit.Milliseconds(), "done": done},
		Err:     err,
	}
}
