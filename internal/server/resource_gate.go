package server

import (
	"context"
	"sync"
)

// resourceGate bounds the bytes of workspace files that resources/read holds in
// memory at once, server-wide: a read of n bytes waits while others hold more than
// maxResourceBytes-n, so any number of principals reading large exports together
// cost one read's worth of file bytes at a time (each principal's concurrency is
// bounded besides, by meterMethods). A read waits until its context ends.
type resourceGate struct {
	mu      sync.Mutex
	used    int64
	changed chan struct{}
}

var resourceBytes = &resourceGate{changed: make(chan struct{})}

// acquire takes n bytes (at most maxResourceBytes, which readResource checked) and
// returns the function that gives them back.
func (g *resourceGate) acquire(ctx context.Context, n int64) (func(), error) {
	for {
		g.mu.Lock()
		if g.used+n <= maxResourceBytes || g.used == 0 {
			g.used += n
			g.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					g.mu.Lock()
					g.used -= n
					close(g.changed)
					g.changed = make(chan struct{})
					g.mu.Unlock()
				})
			}, nil
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
