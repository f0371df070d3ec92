package engine

import (
	"runtime"
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
