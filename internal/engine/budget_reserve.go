package engine

import (
	"context"
	"os"
	"runtime/debug"
	"sync"
)

// A call that holds pixels beyond one decode (an augmentation keeps its source
// while it renders and encodes variants; a dataset worker does the same for each
// image) reserves its whole working set from the decode budget before it decodes,
// computed from the header (ReadHeader) and what it will render, and decodes inside
// that reservation (DecodeOptions.Reserved). So the budget bounds the pixel memory
// of every call in flight, not only of their decodes, and a call is refused or
// waits before it has allocated anything, never half-way through.

// Reservation is pixel memory taken from the decode budget for a call's working
// set. Release gives it back; it is safe to call more than once.
type Reservation struct {
	Bytes   int64
	release func()
	once    sync.Once
}

// Reserve takes n bytes from the decode budget for what (a short name that starts
// its error messages, such as "augment_image"), waiting as a decode does while
// others hold the budget: limit_exceeded at once when n alone is above the budget,
// or when ctx ends or the wait (SetDecodeBudget) runs out first. subject says what
// needs the memory in that message ("a 6000x4000 image and 2 variants").
func Reserve(ctx context.Context, what, subject string, n int64) (*Reservation, error) {
	rel, err := decodeBudget.take(ctx, what, subject, nil, n)
	if err != nil {
		return nil, err
	}
	return &Reservation{Bytes: max(n, 0), release: rel}, nil
}

// Release gives the reservation back to the budget.
func (r *Reservation) Release() {
	if r == nil {
		return
	}
	r.once.Do(r.release)
}

// Grow makes the reservation at least n bytes, taking the difference from the
// budget with Reserve's waits and errors; on an error the reservation is as it was.
// A call whose working set is known only after its first step (an image rendered at
// a version before it is augmented) grows into it.
func (r *Reservation) Grow(ctx context.Context, what, subject string, n int64) error {
	extra := n - r.Bytes
	if extra <= 0 {
		return nil
	}
	if n > DecodeBudget() {
		// Alone above the budget: take refuses it at once, taking nothing (the
		// extra alone might fit, and would wait for what this call holds).
		_, err := decodeBudget.take(ctx, what, subject, nil, n)
		return err
	}
	rel, err := decodeBudget.take(ctx, what, subject, nil, extra)
	if err != nil {
		return err
	}
	prev := r.release
	r.release = func() { rel(); prev() }
	r.Bytes = n
	return nil
}

// HeapSlack is what the process's soft memory limit (LimitHeap) allows beyond the
// decode budget: the server's own data (the contract, the vocabulary, caches, the
// encoded bytes in flight) and garbage the collector has yet to free.
const HeapSlack = 192 << 20

// LimitHeap sets the Go runtime's soft memory limit to the decode budget plus
// HeapSlack, unless GOMEMLIMIT set one. The budget bounds the pixels the calls in
// flight hold; the limit keeps the collector's own slack from doubling them (with
// GOGC=100 the heap grows to twice what was live at the last collection before the
// next one, and a 24-megapixel render drops a 288 MB image a step). Past the
// limit the collector runs more often; it is soft, so nothing fails.
func LimitHeap() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(DecodeBudget() + HeapSlack)
}
