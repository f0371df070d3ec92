package engine

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"
)

// waiting says a request waits for another's load of key.
func (p *Previewer) waiting(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.loading[key]
	return ok && l.waiters > 0
}

// An export tells its progress strip by strip: several calls, done increasing, the
// last one all the rows of total; whether it streams, renders some edits whole in
// between (the strips before and after them), or resizes (the strips before).
func TestExportRows(t *testing.T) {
	defer func(b int) { exportBandBytes = b }(exportBandBytes)
	exportBandBytes = 12 * 640 * 32 // strips of 32 rows of rocket.jpg
	data := ioFixture(t, "rocket.jpg")
	tests := []struct {
		name      string
		edits     []Edit
		long      int
		wantTotal int
	}{
		{"streamed", ioFiveEdits(t), 0, 427},
		{"neighbourhoods streamed", streamEdits(t), 0, 384}, // cropped by a tenth at the top
		{"whole edits between", append(ioBandEdits(t), opSample(t, "blur"), opSample(t, "noise")), 0, 2 * 427},
		{"resized", append(ioBandEdits(t), opSample(t, "blur")), 200, 427},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type call struct{ done, total int }
			var calls []call
			opt := ExportOptions{Encode: EncodeOptions{Format: "jpeg", Quality: 85}, LongEdge: tt.long,
				Rows: func(done, total int) { calls = append(calls, call{done, total}) }}
			if _, err := Export(new(bytes.Buffer), data, tt.edits, opt); err != nil {
				t.Fatal(err)
			}
			if len(calls) < 4 {
				t.Fatalf("%d progress calls, want one a strip: %v", len(calls), calls)
			}
			for i := 1; i < len(calls); i++ {
				if calls[i].done <= calls[i-1].done || calls[i].done > calls[i].total {
					t.Fatalf("call %d after %d: %v", i, i-1, calls)
				}
			}
			if last := calls[len(calls)-1]; last.done != tt.wantTotal || last.total != tt.wantTotal {
				t.Errorf("last call %v, want %d of %d", last, tt.wantTotal, tt.wantTotal)
			}
		})
	}
}

// A preview whose context ends while its source is decoded stops with an error that
// wraps the context's, and caches nothing: neither the proxy nor the resized base.
// The next preview decodes the source and succeeds. JPEG and PNG take different
// decode paths (the PNG is inflated row by row).
func TestPreviewStops(t *testing.T) {
	for _, name := range []string{"rocket.jpg", "coffee.png"} {
		t.Run(name, func(t *testing.T) {
			p := NewPreviewer(64 << 20)
			p.ProxyLongEdge = 100 // a shrinking decode, reporting its rows
			data := ioFixture(t, name)
			load := func() ([]byte, error) { return data, nil }
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var reports []int
			_, err := p.Preview(PreviewRequest{Key: name, Load: load, Edits: ioFiveEdits(t), LongEdge: 64, Context: ctx,
				Rows: func(done, total int) {
					reports = append(reports, done)
					cancel()
				}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled preview returned %v", err)
			}
			if len(reports) == 0 {
				t.Fatal("no rows reported before the cancel")
			}
			if n := p.Entries(); n != 0 {
				t.Errorf("the stopped preview cached %d entries", n)
			}
			var rows []int
			if _, err := p.Preview(PreviewRequest{Key: name, Load: load, Edits: ioFiveEdits(t), LongEdge: 64,
				Rows: func(done, total int) { rows = append(rows, done) }}); err != nil {
				t.Fatal(err)
			}
			if len(rows) < 2 || p.Entries() == 0 {
				t.Errorf("the next preview reported rows %v and cached %d entries", rows, p.Entries())
			}
			for i := 1; i < len(rows); i++ {
				if rows[i] <= rows[i-1] {
					t.Fatalf("rows not increasing: %v", rows)
				}
			}
		})
	}
}

// A request waiting for another's decode of the same source is not failed by the
// other's cancellation: it decodes the source under its own context.
func TestPreviewWaiterOutlivesCancelledLoader(t *testing.T) {
	p := NewPreviewer(64 << 20)
	p.ProxyLongEdge = 100
	data := ioFixture(t, "rocket.jpg")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started, proceed := make(chan struct{}), make(chan struct{})
	first := true
	load := func() ([]byte, error) {
		if first {
			first = false
			close(started)
			<-proceed // the waiter is registered by then
		}
		return data, nil
	}
	errc := make(chan error, 1)
	go func() {
		_, err := p.ProxyContext(ctx, "rocket", load, nil)
		errc <- err
	}()
	<-started
	// The loader's caller is inside load; the loader is released once another
	// request for the key has found the load in progress.
	waited := make(chan *Proxy, 1)
	go func() {
		pr, err := p.ProxyContext(context.Background(), "rocket", load, nil)
		if err != nil {
			t.Error(err)
		}
		waited <- pr
	}()
	for !p.waiting("rocket") {
		runtime.Gosched()
	}
	cancel()
	close(proceed)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled load returned %v", err)
	}
	if pr := <-waited; pr == nil || pr.Image == nil {
		t.Fatal("the waiter got no proxy")
	}
}
