package dataset

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// cocoFile is a COCO instances file of n images with per annotations each, every
// annotation as small as a real one gets (a box, its area, iscrowd): the case where
// a decoded annotation is largest against its bytes.
func cocoFile(n, per int) ([]byte, []string) {
	var b bytes.Buffer
	b.WriteString(`{"info":{"description":"test"},"images":[`)
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("img%06d.jpg", i)
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"file_name":%q,"width":640,"height":480}`, i+1, names[i])
	}
	b.WriteString(`],"annotations":[`)
	id := 0
	for i := range n {
		for k := range per {
			if id > 0 {
				b.WriteByte(',')
			}
			id++
			fmt.Fprintf(&b, `{"id":%d,"image_id":%d,"category_id":%d,"bbox":[%d.5,%d.25,%d,%d],"area":%d,"iscrowd":0}`,
				id, i+1, 1+k%3, k%600, k%400, 10+k%30, 12+k%20, (10+k%30)*(12+k%20))
		}
	}
	b.WriteString(`],"categories":[{"id":1,"name":"cat"},{"id":2,"name":"dog"},{"id":3,"name":"bird"}]}`)
	return b.Bytes(), names
}

// heapPeak runs f and returns the largest growth of the heap's objects over what
// they were before it, sampled every 100µs.
func heapPeak(f func()) int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	base := read()
	var mu sync.Mutex
	max := base
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if v := read(); v > max {
					mu.Lock()
					max = v
					mu.Unlock()
				}
			}
		}
	}()
	f()
	close(stop)
	<-done
	if v := read(); v > max {
		max = v
	}
	return max - base
}

// Parsing a COCO file holds a small multiple of its size, not a decoded copy of it
// beside the objects made from it: the file of the issue (102 MB) took 2.1 GB. The
// figure is the heap's peak growth, sampled while the parse runs (the collector
// runs as usual, so garbage counts until it is collected).
func TestCOCOParseMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20 MB COCO file")
	}
	data, names := cocoFile(2000, 120) // 240,000 annotations, about 22 MB
	var set *cocoSet
	peak := heapPeak(func() {
		var err error
		if set, err = parseCOCO("annotations.json", data, names); err != nil {
			t.Fatal(err)
		}
	})
	if n := len(set.objects[names[7]]); n != 120 {
		t.Fatalf("%d objects for %s, want 120", n, names[7])
	}
	ratio := float64(peak) / float64(len(data))
	t.Logf("%.1f MB file: heap peak +%.1f MB (%.1fx its size)", float64(len(data))/1e6, float64(peak)/1e6, ratio)
	// Before, 6.8x here (a decoded copy of every annotation beside its object,
	// and a map per object); the 2.1 GB of the 102 MB file was the
	// process's resident set, the collector's slack included.
	if ratio > 3 {
		t.Errorf("the parse's heap peaked at %.1fx the file's size, want at most 3x", ratio)
	}
	runtime.KeepAlive(set)
}
