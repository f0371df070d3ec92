package engine

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type ioSized int64

func (s ioSized) Bytes() int64 { return int64(s) }

// ioKeys lists which of keys the cache holds, without touching the recency order.
func ioKeys(c *Cache, keys ...string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var held []string
	for _, k := range keys {
		if _, ok := c.items[k]; ok {
			held = append(held, k)
		}
	}
	return held
}

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	all := []string{"a", "b", "c", "d", "e", "big"}
	steps := []struct {
		do   func(c *Cache)
		held []string
		used int64
	}{
		{func(c *Cache) { c.Put("a", ioSized(40)) }, []string{"a"}, 40},
		{func(c *Cache) { c.Put("b", ioSized(40)) }, []string{"a", "b"}, 80},
		// c does not fit beside a and b: a, the least recently used, goes.
		{func(c *Cache) { c.Put("c", ioSized(40)) }, []string{"b", "c"}, 80},
		// Reading b makes c the least recently used.
		{func(c *Cache) { c.Get("b"); c.Put("d", ioSized(40)) }, []string{"b", "d"}, 80},
		// One large value evicts as many as it needs.
		{func(c *Cache) { c.Put("e", ioSized(90)) }, []string{"e"}, 90},
		// A value larger than the cache is not stored and evicts nothing.
		{func(c *Cache) { c.Put("big", ioSized(101)) }, []string{"e"}, 90},
		// Replacing a value accounts for its new size.
		{func(c *Cache) { c.Put("e", ioSized(10)); c.Put("a", ioSized(20)) }, []string{"a", "e"}, 30},
		{func(c *Cache) { c.Remove("e") }, []string{"a"}, 20},
	}
	c := NewCache(100)
	for i, s := range steps {
		s.do(c)
		if diff := cmp.Diff(s.held, ioKeys(c, all...)); diff != "" {
			t.Errorf("step %d: held (-want +got):\n%s", i, diff)
		}
		if c.Bytes() != s.used || c.Len() != len(s.held) {
			t.Errorf("step %d: %d values of %d bytes, want %d of %d", i, c.Len(), c.Bytes(), len(s.held), s.used)
		}
	}
	if v, ok := c.Get("a"); !ok || v.(ioSized) != 20 {
		t.Errorf("Get(a) = %v, %v", v, ok)
	}
	if _, ok := c.Get("b"); ok {
		t.Error("evicted value still returned")
	}
}

func TestCacheConcurrentUse(t *testing.T) {
	c := NewCache(1000)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprint((g*31 + i) % 40)
				if v, ok := c.Get(k); ok && v.Bytes() != 30 {
					t.Errorf("value of %s has %d bytes", k, v.Bytes())
				}
				c.Put(k, ioSized(30))
			}
		})
	}
	wg.Wait()
	if c.Bytes() > 1000 || c.Bytes() != int64(30*c.Len()) {
		t.Errorf("%d values of %d bytes after concurrent use", c.Len(), c.Bytes())
	}
}
