package engine

import (
	"runtime"
	"testing"
)

// allocated returns the bytes the heap allocated while fn ran.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A streamed export reads its source through the tile cache band after band; the
// tiles it drops are reused for the next ones, narrow last-column tiles included,
// so a sweep of the source allocates about the cache's bound, not the image, even
// after the narrow tiles were the ones dropped (bands in flight on other cores read
// the columns in other orders).
func TestTileCacheReusesDroppedTiles(t *testing.T) {
	const tw, th = 128, 16
	w, h := 2*tw+40, th*200 // the last column's tiles are narrower
	conv := func(x0, y0, x1, y1 int, dst []float32) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				i := 3 * ((y-y0)*(x1-x0) + x - x0)
				dst[i], dst[i+1], dst[i+2] = float32(x), float32(y), 1
			}
		}
	}
	tileBytes := 12 * tw * th
	c := newTileCache(conv, w, h, tw, th, int64(8*tileBytes))
	band := make([]float32, 3*w*th)
	read := func(x0, x1, y0 int) {
		c.read(x0, y0, x1, y0+th, band)
		for y := y0; y < y0+th; y++ {
			for x := x0; x < x1; x += 7 {
				if i := 3 * ((y-y0)*(x1-x0) + x - x0); band[i] != float32(x) || band[i+1] != float32(y) {
					t.Fatalf("pixel (%d, %d) reads (%v, %v)", x, y, band[i], band[i+1])
				}
			}
		}
	}
	bytes := allocated(func() {
		for y0 := 0; y0 < 20*th; y0 += th {
			read(2*tw, w, y0) // the cache fills with narrow tiles
		}
		for y0 := 0; y0 < h; y0 += th {
			read(0, 2*tw, y0) // which full ones then replace
		}
	})
	// The bound's tiles, the free list's and the tiles' bookkeeping: far below a
	// new buffer for each of the 420 tiles.
	if limit := uint64(24 * tileBytes); bytes > limit {
		t.Errorf("a sweep of 420 tiles through a cache of 8 allocated %d bytes, want at most %d (a tile is %d)",
			bytes, limit, tileBytes)
	}
}

// The first pass of a streamed render (clarity's grid here) gives each band's
// buffers back: its allocations do not grow with the number of bands beyond the
// grid itself.
func TestFirstPassReusesBandBuffers(t *testing.T) {
	defer func(b int) { exportBandBytes = b }(exportBandBytes)
	const w = 2048                // the long edge at every height, so the grid's blocks stay the same
	exportBandBytes = 12 * w * 16 // bands of 16 rows
	edits := []Edit{opEdit("exposure", opArgs(t, "exposure", map[string]any{"ev": 0.3})),
		opEdit("sharpen", opArgs(t, "sharpen", map[string]any{"amount": 1.0, "radius": 0.0006})),
		opEdit("clarity", opArgs(t, "clarity", map[string]any{"amount": 0.4, "radius": 0.02}))}
	prepare := func(h int) uint64 {
		src := geoRamp(w, h)
		order, err := renderOrder(edits)
		if err != nil {
			t.Fatal(err)
		}
		p, err := planBands(edits, order, RenderOptions{}, w, h)
		if p == nil || err != nil {
			t.Fatalf("the edits do not stream at %dx%d (%v)", w, h, err)
		}
		if p.steps[len(p.steps)-1].spec.pre == nil {
			t.Fatalf("clarity has no first pass at %dx%d", w, h)
		}
		p.rects = memRects(src)
		emptySpare()
		return allocated(func() {
			if err := p.prepare(); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := prepare(512), prepare(2048) // 32 and 128 bands
	band := uint64(12 * w * 16)
	if many > few+16*band {
		t.Errorf("the first pass allocated %d bytes over 128 bands and %d over 32: more than the grid grows by (a band is %d)",
			many, few, band)
	}
}

// emptySpare drops the buffers earlier renders left for the next, so that what a
// render allocates is measured.
func emptySpare() {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	clear(spare.bufs)
	spare.bufs, spare.bytes = spare.bufs[:0], 0
}
