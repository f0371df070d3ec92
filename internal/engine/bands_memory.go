package engine

// What a streamed export holds: the tile cache of converted source, its band and cache sizes, and the heap guard.

import (
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
)

// tileCache converts tiles of a decoded image on demand, keeping the most recently
// used up to a bound: the bands of a streamed render overlap (their halos, and the
// blocks of a rotation), and each pixel is then converted about once. A tile being
// read is never dropped, and a dropped tile's pixels are reused for the next, so a
// streamed export makes almost no garbage for the collector to wait for.
type tileCache struct {
	conv   rectSource
	w, h   int
	tw, th int
	max    int // tiles kept
	mu     sync.Mutex
	tiles  map[[2]int]*tile
	free   [][]float32
	tick   int64
}

type tile struct {
	ready chan struct{}
	pix   []float32
	used  int64
	refs  int // readers holding it
}

// newTileCache caches conv, which converts rectangles of a w x h image whose
// columns are whole tiles of tw and rows whole tiles of th (or the image's end).
func newTileCache(conv rectSource, w, h, tw, th int, maxBytes int64) *tileCache {
	per := int64(12 * tw * th)
	return &tileCache{conv: conv, w: w, h: h, tw: tw, th: th, max: int(max(8, maxBytes/per)), tiles: map[[2]int]*tile{}}
}

// read is a rectSource.
func (c *tileCache) read(x0, y0, x1, y1 int, dst []float32) {
	w := x1 - x0
	for ty := y0 / c.th; ty*c.th < y1; ty++ {
		for tx := x0 / c.tw; tx*c.tw < x1; tx++ {
			t := c.get(tx, ty)
			ax, ay := tx*c.tw, ty*c.th
			tw := min(c.tw, c.w-ax)
			a, b := max(x0, ax), min(x1, ax+tw)
			for y := max(y0, ay); y < min(y1, ay+c.th); y++ {
				copy(dst[3*(w*(y-y0)+a-x0):3*(w*(y-y0)+b-x0)], t.pix[3*(tw*(y-ay)+a-ax):3*(tw*(y-ay)+b-ax)])
			}
			c.mu.Lock()
			t.refs--
			c.mu.Unlock()
		}
	}
}

// get returns tile (tx, ty), converted, with a reference the caller gives back.
func (c *tileCache) get(tx, ty int) *tile {
	key := [2]int{tx, ty}
	c.mu.Lock()
	c.tick++
	t := c.tiles[key]
	if t != nil {
		t.used = c.tick
		t.refs++
		c.mu.Unlock()
		<-t.ready
		if t.pix == nil {
			panic("tile cache: a conversion failed")
		}
		return t
	}
	t = &tile{ready: make(chan struct{}), used: c.tick, refs: 1}
	c.tiles[key] = t
	c.evict()
	x0, y0 := tx*c.tw, ty*c.th
	x1, y1 := min(x0+c.tw, c.w), min(y0+c.th, c.h)
	n := 3 * (x1 - x0) * (y1 - y0)
	var pix []float32
	// The smallest that fits: the last column's tiles are narrower, and were
	// they the ones at hand, the full tiles would be allocated anew while the
	// narrow ones filled the free list.
	if k := smallestFit(c.free, n); k >= 0 {
		pix = c.free[k][:n]
		c.free = slices.Delete(c.free, k, k+1)
	}
	c.mu.Unlock()
	defer close(t.ready)
	if pix == nil {
		pix = make([]float32, n)
	}
	c.conv(x0, y0, x1, y1, pix)
	t.pix = pix
	return t
}

// evict drops the least recently used tiles that no one reads while there are more
// than max, keeping their pixels for reuse. c.mu is held.
func (c *tileCache) evict() {
	for len(c.tiles) > c.max {
		var old [2]int
		oldest := int64(math.MaxInt64)
		for k, v := range c.tiles {
			if v.refs == 0 && v.used < oldest {
				old, oldest = k, v.used
			}
		}
		if oldest == math.MaxInt64 {
			return // all in use: the bound gives way until some are released
		}
		if t := c.tiles[old]; t.pix != nil {
			// Eight are kept; a larger tile takes the place of the smallest, so
			// narrow last-column tiles cannot crowd out the full ones.
			if len(c.free) < 8 {
				c.free = append(c.free, t.pix)
			} else if k := smallestFree(c.free); cap(c.free[k]) < cap(t.pix) {
				c.free[k] = t.pix
			}
		}
		delete(c.tiles, old)
	}
}

// smallestFree returns the index of the smallest of bufs, which is not empty.
func smallestFree(bufs [][]float32) int {
	k := 0
	for i, b := range bufs {
		if cap(b) < cap(bufs[k]) {
			k = i
		}
	}
	return k
}

// bandRows is the height of the bands an export of the plan renders: those of a
// band export, taller where the halos would otherwise be most of each band's work.
func (p *bandPlan) bandRows() int {
	w, _ := p.size()
	base := bandRowsFor(w)
	return max(base, min(2*p.halo(), 4*base))
}

// bandBytes bounds what one band of rows rows holds at once: for each edit, the rows
// it is given, three values a pixel, in about four buffers (its input, its output and
// an operation's scratch); and the widest of the edits.
func (p *bandPlan) bandBytes(rows int) int64 {
	_, h := p.size()
	y0 := max(0, h/2-rows/2)
	rng := p.need(len(p.steps), y0, min(h, y0+rows))
	most := int64(12*p.W) * int64(rng[0][1]-rng[0][0])
	for k, s := range p.steps {
		most = max(most, int64(12*s.outW)*int64(rng[k+1][1]-rng[k+1][0]), int64(12*s.inW)*int64(rng[k][1]-rng[k][0]))
	}
	return 4 * most
}

// cacheBytes is the bound of the cache of source rows: what the bands in flight
// read, with room for their neighbours.
func (p *bandPlan) cacheBytes(rows int) int64 {
	_, h := p.size()
	y0 := max(0, h/2-rows/2)
	r := p.need(len(p.steps), y0, min(h, y0+rows))[0]
	procs := int64(runtime.GOMAXPROCS(0))
	if len(p.steps) > 0 && p.steps[0].rect {
		// A warp reads a rectangle a column block: the tiles they cross.
		s := p.steps[0]
		a := p.need(len(p.steps), y0, min(h, y0+rows))[1]
		var area int64
		for c0 := 0; c0 < s.outW; c0 += warpBlock {
			x0, ya, x1, yb := s.spec.geom.warp.bounds(a[0], a[1], c0, min(c0+warpBlock, s.outW))
			area += int64(x1-x0+cacheTileWidth) * int64(yb-ya+cacheTileRows)
		}
		// The bands in flight; the next band's overlap is converted again, which
		// costs less than holding it.
		return 12 * area * procs
	}
	return int64(12*p.W) * (int64(r[1]-r[0])*(procs+1) + 2*cacheTileRows)
}

// exportCost is the decode budget a streamed export of the plan takes besides the
// decoder's image: its bands in flight, the cache of source rows and, for a PNG or
// TIFF, the float image the encoder reads.
func (p *bandPlan) exportCost(format string) int64 {
	rows := p.bandRows()
	procs := int64(runtime.GOMAXPROCS(0))
	c := procs*p.bandBytes(rows) + p.cacheBytes(rows)
	if format != "jpeg" {
		w, h := p.size()
		c += floatBytes(w, h)
	}
	return c
}

// heapGuard keeps a streamed export's heap near what it holds: the collector would
// otherwise let garbage (encoded strips, scratch rows) grow the heap to twice the live
// memory, and the live memory of a streamed export is mostly the decoder's image and
// the file's bytes, which never become garbage: at 96 MP that doubling alone is
// hundreds of megabytes. When the heap's objects exceed the live memory of the last
// collection by slack, check collects; the buffers are pointer-free, so a collection
// costs milliseconds.
type heapGuard struct {
	slack   uint64
	mu      sync.Mutex
	live    uint64
	samples []metrics.Sample
}

func newHeapGuard(slack uint64) *heapGuard {
	g := &heapGuard{slack: slack, samples: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}}
	g.read()
	return g
}

// read returns the heap's objects and notes the live memory. g.mu is held or g is
// not yet shared.
func (g *heapGuard) read() uint64 {
	metrics.Read(g.samples)
	if g.samples[1].Value.Kind() == metrics.KindUint64 {
		g.live = g.samples[1].Value.Uint64()
	}
	if g.samples[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return g.samples[0].Value.Uint64()
}

func (g *heapGuard) check() {
	if !g.mu.TryLock() {
		return // another band is checking
	}
	defer g.mu.Unlock()
	if objects := g.read(); objects > g.live+g.slack {
		runtime.GC()
		g.read()
	}
}
