// Package bytepool keeps byte buffers that work on one image gave back for the work
// on the next to reuse: a decoder's planes, an encoder's strips, a file read or
// written. Fresh each time, such buffers are garbage the heap grows by, page by
// page, until the collector runs; a dataset run handles thousands of images.
package bytepool

import "sync"

// Pool is a set of buffers; the zero Pool is empty and ready. Like sync.Pool, on
// which it stands, it may drop buffers at any collection.
type Pool struct{ p sync.Pool }

// Get returns an empty buffer with room for at least n bytes: a kept one when the
// one it finds is large enough, else a new one.
func (p *Pool) Get(n int) []byte {
	if b, ok := p.p.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// Put keeps b's memory for a later Get. Nothing may use b afterwards.
func (p *Pool) Put(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:0]
	p.p.Put(&b)
}
