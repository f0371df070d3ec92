package engine

import (
	"runtime"
	"sync"
)

// minRowsPerWorker keeps each goroutine's share of an image large enough that starting
// it costs far less than the work it does.
const minRowsPerWorker = 8

// parallelRows calls fn on disjoint ranges [lo, hi) that cover [0, n), one range per
// available core (runtime.GOMAXPROCS, which the engine reads and never changes). Small n
// runs on the calling goroutine. A panic in a worker is re-raised on the caller's
// goroutine after every worker has finished, so a server that recovers handler panics
// still sees it instead of the whole process dying.
func parallelRows(n int, fn func(lo, hi int)) {
	parallelN(n, minRowsPerWorker, fn)
}

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
