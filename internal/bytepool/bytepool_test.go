package bytepool

import "testing"

func TestPool(t *testing.T) {
	var p Pool
	if b := p.Get(10); len(b) != 0 || cap(b) < 10 {
		t.Fatalf("empty pool: len %d cap %d", len(b), cap(b))
	}
	kept := append(p.Get(100), "abc"...)
	p.Put(kept)
	reused := false
	for range 3 { // a collection between Put and Get may empty the pool
		b := p.Get(50)
		if len(b) != 0 || cap(b) < 50 {
			t.Fatalf("len %d cap %d", len(b), cap(b))
		}
		if cap(b) == cap(kept) && &b[:1][0] == &kept[0] {
			reused = true
			break
		}
		p.Put(kept)
	}
	if !reused {
		t.Error("a kept buffer was never reused")
	}
	p.Put(kept)
	if b := p.Get(1000); cap(b) < 1000 {
		t.Errorf("asked for 1000, got cap %d", cap(b))
	}
}
