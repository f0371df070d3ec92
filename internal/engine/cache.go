package engine

import (
	"container/list"
	"sync"
)

// Sized is a value a Cache can hold: it reports the memory it keeps alive.
type Sized interface{ Bytes() int64 }

// Cache is a least-recently-used cache of decoded images (or anything Sized) bounded
// by their total bytes rather than their number, since one 24-megapixel proxy weighs
// as much as a hundred thumbnails. It is safe for concurrent use. Cached values are
// shared: callers must treat them as read-only (Render never modifies its source).
type Cache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // front is the most recently used
	items map[string]*list.Element
}

type cacheEntry struct {
	key   string
	val   Sized
	bytes int64
}

// NewCache returns a cache holding at most maxBytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value stored under key and marks it most recently used.
func (c *Cache) Get(key string) (Sized, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).val, true
}

// Put stores v under key, replacing any previous value, then evicts the least
// recently used values until the total fits. A value larger than the whole cache is
// not stored (it would only evict everything else and then itself).
func (c *Cache) Put(key string, v Sized) {
	n := v.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
	if n > c.max {
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, val: v, bytes: n})
	c.used += n
	for c.used > c.max {
		c.remove(c.order.Back())
	}
}

// Remove drops key from the cache, if present.
func (c *Cache) Remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
}

func (c *Cache) remove(e *list.Element) {
	ce := c.order.Remove(e).(*cacheEntry)
	delete(c.items, ce.key)
	c.used -= ce.bytes
}

// Len is the number of values held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Bytes is the memory the held values take.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
