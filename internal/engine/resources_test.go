package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// Decoding into recycled pixels (Recycle, then a decode that takes a spare buffer)
// gives what decoding into fresh memory gives, for every format and layout: no value
// of the recycled buffer survives.
func TestDecodeIntoRecycledPixels(t *testing.T) {
	for _, name := range []string{"small.jpg", "progressive.jpg", "cmyk.jpg", "gray8.png", "gray16.png", "rgb16.png",
		"rgba16.png", "nrgba8.png", "paletted.gif", "orient8.png", "orient6.webp", "lossy.webp", "rgb16.tif", "prophoto.png"} {
		data, err := os.ReadFile("testdata/io/" + name)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Decode(data, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := slices.Clone(fresh.Image.Pix)
		// Fill the spare buffers with NaN, in the size the next decode takes.
		recycled := map[*float32]bool{}
		for range 4 {
			m := NewImage(fresh.Image.W, fresh.Image.H)
			for i := range m.Pix {
				m.Pix[i] = float32(math.NaN())
			}
			recycled[&m.Pix[0]] = true
			Recycle(m)
			if m.Pix != nil || m.W != 0 {
				t.Fatal("Recycle left the image its pixels")
			}
		}
		again, err := Decode(data, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !recycled[&again.Image.Pix[0]] {
			t.Errorf("%s: the decode did not take a recycled buffer", name)
		}
		if !slices.Equal(again.Image.Pix, want) {
			t.Errorf("%s: decoding into recycled pixels differs from a fresh decode", name)
		}
		Recycle(again.Image)
		for len(spare.bufs) > 0 {
			spare.get(len(spare.bufs[0])) // empty the spare buffers for the next file
		}
	}
}

// Parallel work shares the cores: while one render's rows are split across all of
// them, another runs on its caller alone; once the first is done, the next split
// takes every core again.
func TestParallelSharesCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ranges := splitWays
	started, hold := make(chan struct{}, 2), make(chan struct{})
	first := make(chan int)
	go func() {
		first <- ranges(func() { started <- struct{}{}; <-hold })
	}()
	<-started
	<-started // both cores are in the first render
	if n := ranges(func() {}); n != 1 {
		t.Errorf("beside a render on every core, a render split its rows %d ways, want 1", n)
	}
	close(hold)
	if n := <-first; n != 2 {
		t.Errorf("the first render split its rows %d ways, want 2", n)
	}
	if n := ranges(func() {}); n != 2 {
		t.Errorf("alone again, a render split its rows %d ways, want 2", n)
	}
	if b := busy.Load(); b != 0 {
		t.Errorf("%d goroutines still counted busy", b)
	}
}

// splitWays returns how many ranges parallelN splits 100 rows into, each range
// calling fn.
func splitWays(fn func()) int {
	var mu sync.Mutex
	n := 0
	parallelN(100, 1, func(lo, hi int) {
		mu.Lock()
		n++
		mu.Unlock()
		fn()
	})
	return n
}

// Beside a goroutine that occupies a core (Occupy, as each worker of a dataset run
// does), a render keeps to its caller and a JPEG decodes without worker
// goroutines; once it is released, both spread again.
func TestOccupyKeepsRendersOnTheirCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ways := func() int { return splitWays(func() {}) }
	release := Occupy()
	if n, serial := ways(), jpegDecodeOptions(1).Serial; n != 1 || !serial {
		t.Errorf("beside an occupied core: a render split %d ways (want 1), a decode serial %v (want true)", n, serial)
	}
	release()
	if n, serial := ways(), jpegDecodeOptions(1).Serial; n != 2 || serial {
		t.Errorf("released: a render split %d ways (want 2), a decode serial %v (want false)", n, serial)
	}
	if b := busy.Load(); b != 0 {
		t.Errorf("%d goroutines still counted busy", b)
	}
}

// Bulk admits one job per core but one (at least one), so a short call always finds
// a core; a job waits for a turn, a waiting job gives up with its context, and a
// turn handed back admits the next waiting job.
func TestBulkLeavesACore(t *testing.T) {
	var turns []func()
	t.Cleanup(func() {
		for _, turn := range turns {
			turn()
		}
	})
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		turn, err := Bulk(ctx)
		cancel()
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatal(err)
			}
			break
		}
		turns = append(turns, turn)
	}
	if want := max(1, runtime.GOMAXPROCS(0)-1); len(turns) != want {
		t.Fatalf("%d bulk jobs ran at once on %d cores, want %d", len(turns), runtime.GOMAXPROCS(0), want)
	}
	got := make(chan func(), 1)
	go func() {
		turn, err := Bulk(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- turn
	}()
	select {
	case <-got:
		t.Fatal("a job ran with every turn taken")
	case <-time.After(20 * time.Millisecond):
	}
	turns[0]()
	select {
	case turn := <-got:
		turns[0] = turn
	case <-time.After(10 * time.Second):
		t.Fatal("a turn handed back did not admit the waiting job")
	}
	for _, turn := range turns {
		turn()
	}
	turns = nil
	if bulk.running != 0 || len(bulk.waiting) != 0 {
		t.Errorf("%d turns still held, %d jobs waiting", bulk.running, len(bulk.waiting))
	}
}

// Recycled pixels do not outlive their use: once nothing takes or gives a buffer for
// spareIdle, the spare buffers are let go.
func TestSpareBuffersDrainWhenIdle(t *testing.T) {
	defer func(d time.Duration) { spareIdle = d }(spareIdle)
	spareIdle = 20 * time.Millisecond
	Recycle(NewImage(64, 64))
	deadline := time.Now().Add(10 * time.Second)
	for {
		spare.mu.Lock()
		n := spare.bytes
		spare.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spare buffers still hold %d bytes long after their last use", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A JPEG is the same file on every machine: how many cores encode it does not move
// its restart markers (a dataset's shards on machines of other sizes must write the
// bytes, and so the SHA-256s, one run would).
func TestJPEGBytesIndependentOfCores(t *testing.T) {
	src := opPhoto(t, "coffee")
	encode := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var b bytes.Buffer
		if err := Encode(&b, src, EncodeOptions{Format: "jpeg", Quality: 90}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	want := encode(2)
	for _, procs := range []int{1, 3, 8} {
		if !bytes.Equal(encode(procs), want) {
			t.Errorf("the JPEG encoded on %d cores differs from the one encoded on 2", procs)
		}
	}
}
