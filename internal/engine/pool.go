package engine

import (
	"runtime"
	"slices"
	"sync"
	"time"
)

// bufPool recycles the float buffers of one render: a preview of five operations would
// otherwise allocate (and zero) several image-sized buffers per operation.
type bufPool struct{ free [][]float32 }

func (p *bufPool) get(n int) []float32 {
	if i := smallestFit(p.free, n); i >= 0 {
		b := p.free[i]
		p.free = slices.Delete(p.free, i, i+1)
		return b[:n]
	}
	return spare.get(n)
}

func smallestFit(bufs [][]float32, n int) int {
	best := -1
	for i, b := range bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(bufs[best])) {
			best = i
		}
	}
	return best
}

// recycle hands the pool's free buffers to the next render (see spare).
func (p *bufPool) recycle() {
	for _, b := range p.free {
		spare.put(b)
	}
	p.free = nil
}

// spare keeps buffers that renders and callers (Recycle) dropped, for the next
// render or decode to take instead of allocating and zeroing its own: an agent's
// previews, or the workers of a dataset run (each holds a source, a step's input and
// output and a blur's scratch), then allocate almost nothing, and the collector
// seldom has to mark the contract's large heap. It holds at most spareBytesPerCore
// per core, in buffers of at most spareMax values, and empties itself after
// spareIdle without use, so an idle server does not keep images alive for nothing.
var spare = &sparePool{}

const (
	spareBytesPerCore = 64 << 20
	spareMax          = 4 << 20 // values: a 1024 px image's 3.1M, an export band's 1M
)

// spareIdle is how long the spare buffers outlive their last use.
var spareIdle = 2 * time.Second

type sparePool struct {
	mu    sync.Mutex
	bufs  [][]float32
	bytes int
	used  time.Time   // the last get or put
	timer *time.Timer // pending drain, nil when none
}

func (s *sparePool) get(n int) []float32 {
	if n <= spareMax {
		s.mu.Lock()
		s.used = time.Now()
		if i := smallestFit(s.bufs, n); i >= 0 {
			b := s.bufs[i]
			s.bufs = slices.Delete(s.bufs, i, i+1)
			s.bytes -= 4 * cap(b)
			s.mu.Unlock()
			return b[:n]
		}
		s.mu.Unlock()
	}
	return newPix(n)
}

func (s *sparePool) put(b []float32) {
	if cap(b) == 0 || cap(b) > spareMax {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used = time.Now()
	if s.bytes+4*cap(b) <= spareBytesPerCore*runtime.GOMAXPROCS(0) {
		s.bufs = append(s.bufs, b)
		s.bytes += 4 * cap(b)
		if s.timer == nil {
			s.timer = time.AfterFunc(spareIdle, s.drainIdle)
		}
	}
}

// drainIdle empties the pool if nothing took or gave a buffer for spareIdle, and
// looks again later otherwise.
func (s *sparePool) drainIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idle := time.Since(s.used); idle < spareIdle {
		s.timer = time.AfterFunc(spareIdle-idle, s.drainIdle)
		return
	}
	clear(s.bufs)
	s.bufs, s.bytes, s.timer = s.bufs[:0], 0, nil
}

func (p *bufPool) put(b []float32) {
	if cap(b) > 0 {
		p.free = append(p.free, b)
	}
}
