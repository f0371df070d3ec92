package dataset

import "sync"

// scratch keeps the byte buffers of images and variants already finished (a
// source's file, a variant's encoded bytes) for the next ones to reuse. A run over
// a folder reads and writes a few hundred kilobytes per image; as fresh allocations
// they are garbage the heap grows by, page by page, until the collector runs.
var scratch sync.Pool // of *[]byte

// getScratch returns an empty buffer with room for at least n bytes.
func getScratch(n int) []byte {
	if p, ok := scratch.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// putScratch gives b's memory back; nothing may use b afterwards.
func putScratch(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:0]
	scratch.Put(&b)
}
