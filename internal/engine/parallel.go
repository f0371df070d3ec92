package engine

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// minRowsPerWorker keeps each goroutine's share of an image large enough that starting
// it costs far less than the work it does.
const minRowsPerWorker = 8

// parallelRows calls fn on disjoint ranges [lo, hi) that cover [0, n), one range per
// available core (runtime.GOMAXPROCS, which the engine reads and never changes, less
// the cores other parallel work holds: see helpers). Small n
// runs on the calling goroutine. A panic in a worker is re-raised on the caller's
// goroutine after every worker has finished, so a server that recovers handler panics
// still sees it instead of the whole process dying.
func parallelRows(n int, fn func(lo, hi int)) {
	parallelN(n, minRowsPerWorker, fn)
}

// busy counts the goroutines doing parallelN work right now, callers included.
var busy atomic.Int64

// helpers reserves up to want extra goroutines for a caller (counted in busy), as
// many as leave busy within the cores; release hands them back. Renders that run at
// once (the workers of a dataset run, concurrent calls to a server) then share the
// cores instead of each splitting its rows across all of them: oversubscribed, the
// splitting cost augment-dataset a sixth more CPU per image. The result does not
// depend on the split (TestRenderIndependentOfCores).
func helpers(want int) (got int, release func()) {
	busy.Add(1)
	limit := int64(runtime.GOMAXPROCS(0))
	for {
		cur := busy.Load()
		got = int(min(int64(want), limit-cur))
		if got <= 0 {
			return 0, func() { busy.Add(-1) }
		}
		if busy.CompareAndSwap(cur, cur+int64(got)) {
			return got, func() { busy.Add(-int64(got) - 1) }
		}
	}
}

// Occupy counts the calling goroutine as one that keeps a core busy until release
// is called, so the engine's own parallel work (row splits, the JPEG decoder's
// workers) takes only the cores left. A caller that runs one render per core (a
// dataset run's workers) calls it around each job: each image then stays on its
// core, where splitting it across cores the other jobs hold costs hand-offs and
// waits for nothing. Parallel work the caller starts itself counts it once more, so
// it takes a helper only where two cores are free: the last job of a run, with the
// other workers done, keeps to one core.
func Occupy() (release func()) {
	busy.Add(1)
	return func() { busy.Add(-1) }
}

// bulk admits long CPU-bound jobs (Bulk): running is how many hold a turn, waiting
// the jobs that wait for one, first come first.
var bulk struct {
	mu      sync.Mutex
	running int
	waiting []chan struct{}
}

// bulkTurns is how many bulk jobs run at once: one core fewer than there are, at
// least one. Read at each turn: the runtime may change GOMAXPROCS (a container's
// CPU limit changing).
func bulkTurns() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// Bulk waits for a turn to run a long CPU-bound job (a variant of augment_image: its
// render and encode) and returns the function that ends the turn. One core fewer
// than there are runs such jobs at a time, taken in the order they asked, so a call
// that edits, previews or reads finds a core at once instead of queueing behind every
// variant in flight: the Go scheduler gives each runnable goroutine its turn, and ten
// variants rendering at once made a 7 ms apply wait behind all ten. A job still
// splits its rows over the cores that are free (helpers), so one job alone keeps
// every core. Waiting ends with ctx's error, and no turn is kept.
func Bulk(ctx context.Context) (end func(), err error) {
	b := &bulk
	b.mu.Lock()
	if len(b.waiting) == 0 && b.running < bulkTurns() {
		b.running++
		b.mu.Unlock()
		return endBulk, nil
	}
	ready := make(chan struct{})
	b.waiting = append(b.waiting, ready)
	b.mu.Unlock()
	select {
	case <-ready:
		return endBulk, nil
	case <-ctx.Done():
		b.mu.Lock()
		if i := slices.Index(b.waiting, ready); i >= 0 {
			b.waiting = slices.Delete(b.waiting, i, i+1)
			b.mu.Unlock()
			return nil, ctx.Err()
		}
		b.mu.Unlock()
		endBulk() // handed a turn as the context ended: pass it on
		return nil, ctx.Err()
	}
}

// endBulk ends a turn: the first waiting job takes it over, or it is given back.
func endBulk() {
	b := &bulk
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiting) > 0 && b.running <= bulkTurns() {
		close(b.waiting[0])
		b.waiting = b.waiting[1:]
		return
	}
	b.running--
}

// freeCores reports whether a goroutine starting parallel work now would get a
// core no one holds.
func freeCores() bool { return busy.Load()+1 < int64(runtime.GOMAXPROCS(0)) }

// parallelN is parallelRows with a chosen minimum range length.
func parallelN(n, minPer int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	p := runtime.GOMAXPROCS(0)
	if most := n / max(minPer, 1); p > most {
		p = most
	}
	if p <= 1 {
		fn(0, n)
		return
	}
	extra, release := helpers(p - 1)
	defer release()
	if p = extra + 1; p <= 1 {
		fn(0, n)
		return
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		panicked any
	)
	wg.Add(p - 1)
	for i := 1; i < p; i++ {
		lo, hi := n*i/p, n*(i+1)/p
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					panicked = r
					mu.Unlock()
				}
			}()
			fn(lo, hi)
		}()
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				panicked = r
				mu.Unlock()
			}
		}()
		fn(0, n/p)
	}()
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
