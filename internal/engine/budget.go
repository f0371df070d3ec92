package engine

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// DefaultDecodeBudget is the process-wide decode budget when none is set: 1.5 GiB of
// pixel buffers in flight. It is a fixed figure rather than a share of the machine's
// memory so that what a server accepts does not depend on where it runs. It admits
// the largest ordinary work one at a time: a 24-megapixel progressive JPEG exported
// with whole-image edits (about 1.1 GB counted), or a 250-megapixel 8-bit PNG read
// for a preview (1 GB); two such decodes take turns, and a 16-bit PNG of 240
// megapixels (2 GB for its decoder alone) is refused. A larger machine raises it
// with serve --decode-budget.
const DefaultDecodeBudget int64 = 3 << 29

// DefaultDecodeWait bounds how long a decode waits for others to give back budget
// before it answers limit_exceeded.
const DefaultDecodeWait = 2 * time.Minute

// freeOSThreshold is the size of decode after which its memory is handed back to
// the operating system at once: Go's scavenger returns freed pages over minutes,
// and an idle server should not sit on the gigabyte a large PNG needed.
const freeOSThreshold = 32 << 20

// The decode budget counts the bytes of pixels a decode holds from its header check
// to its end: the decoder's own buffers (its 8- or 16-bit image, which Go's decoders
// build whole) and the float images they become. It is estimated from the header,
// before anything is allocated (decodeCost), so a file that declares more than the
// budget is refused without costing anything, and decodes that fit together run
// together while the others wait their turn.
var decodeBudget = &budget{limit: DefaultDecodeBudget, wait: DefaultDecodeWait, changed: make(chan struct{})}

type budget struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	wait    time.Duration
	changed chan struct{} // closed and replaced when used falls or limit changes
}

// SetDecodeBudget sets the process-wide decode budget in bytes (0 or less: the
// default) and how long a decode may wait for it (0 or less: the default).
func SetDecodeBudget(bytes int64, wait time.Duration) {
	if bytes <= 0 {
		bytes = DefaultDecodeBudget
	}
	if wait <= 0 {
		wait = DefaultDecodeWait
	}
	b := decodeBudget
	b.mu.Lock()
	b.limit, b.wait = bytes, wait
	b.broadcast()
	b.mu.Unlock()
}

// DecodeBudget returns the process-wide decode budget in bytes.
func DecodeBudget() int64 {
	decodeBudget.mu.Lock()
	defer decodeBudget.mu.Unlock()
	return decodeBudget.limit
}

func (b *budget) broadcast() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// acquire takes n bytes of the budget for a decode of a w x h image in format,
// waiting while other decodes hold too much of it (see take).
func (b *budget) acquire(ctx context.Context, format string, w, h int, n int64) (release func(), err error) {
	return b.take(ctx, "decode "+format, fmt.Sprintf("the %dx%d image", w, h), map[string]any{"width": w, "height": h}, n)
}

// take takes n bytes of the budget, waiting while other work holds too much of
// it. It returns limit_exceeded at once when n alone is over the budget, and also
// when ctx ends or the wait runs out first; prefix starts its messages and subject
// names what needs the memory ("decode png", "the 40x30 image"), details go into
// the error's. n of 0 or less takes nothing. release gives the bytes back, first
// returning a large holding's memory to the system so that the next one starts
// from a heap that is really smaller.
func (b *budget) take(ctx context.Context, prefix, subject string, details map[string]any, n int64) (release func(), err error) {
	if n <= 0 {
		return func() {}, nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	b.mu.Lock()
	limit, wait := b.limit, b.wait
	b.mu.Unlock()
	if n > limit {
		e := darkroom.Errorf(darkroom.LimitExceeded, "%s: %s needs %s of pixel memory, above the decode budget of %s",
			prefix, subject, mib(n), mib(limit))
		e.Details = map[string]any{"bytes": n, "budget_bytes": limit}
		for k, v := range details {
			e.Details[k] = v
		}
		return nil, e
	}
	var timeout <-chan time.Time
	for {
		b.mu.Lock()
		if b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			return b.releaser(n), nil
		}
		if n > b.limit { // the budget was lowered while this one waited
			b.mu.Unlock()
			return b.take(ctx, prefix, subject, details, n)
		}
		changed := b.changed
		b.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		// Giving up is limit_exceeded, which every tool that decodes declares and
		// which is recoverable: the same call may pass when the others are done.
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, darkroom.Wrap(darkroom.LimitExceeded, ctx.Err(), "%s: gave up waiting for %s of the decode budget", prefix, mib(n))
		case <-timeout:
			e := darkroom.Errorf(darkroom.LimitExceeded, "%s: other images held the decode budget (%s) for %s; try again", prefix, mib(limit), wait)
			e.Details = map[string]any{"bytes": n, "budget_bytes": limit}
			return nil, e
		}
	}
}

func (b *budget) releaser(n int64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			if n >= freeOSThreshold {
				debug.FreeOSMemory()
			}
			b.mu.Lock()
			b.used -= n
			b.broadcast()
			b.mu.Unlock()
		})
	}
}

func mib(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// decoderBytes estimates, from its header, what a format's decoder allocates for an
// image: its output image (Go's decoders build it whole), and the intermediate
// copies some make. Estimates err high: a JPEG counts as 4:4:4, a progressive one
// with its coefficients; a WebP as lossless.
func decoderBytes(format string, data []byte, cfg image.Config, scale int) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	switch format {
	case "jpeg":
		sw, sh := (int64(cfg.Width)+int64(scale)-1)/int64(scale), (int64(cfg.Height)+int64(scale)-1)/int64(scale)
		n := 3 * sw * sh
		if cfg.ColorModel == color.GrayModel {
			n = sw * sh
		}
		if jpegProgressive(data) {
			n += 2 * 3 * px // int16 coefficients for every sample, kept until the end
		}
		return n
	case "webp":
		return 8 * px // lossless: the ARGB words and the NRGBA image
	case "gif":
		return 2 * px // the first frame and the logical screen
	}
	var bpp int64
	switch cfg.ColorModel {
	case color.GrayModel:
		bpp = 1
	case color.Gray16Model:
		bpp = 2
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		bpp = 4
	case color.RGBA64Model, color.NRGBA64Model:
		bpp = 8
	default:
		if _, ok := cfg.ColorModel.(color.Palette); ok {
			bpp = 1
		} else {
			bpp = 8
		}
	}
	n := bpp * px
	switch {
	case format == "png" && len(data) > 28 && data[28] == 1:
		n *= 2 // interlaced: each pass is an image of its own before they are merged
	case format == "tiff":
		n *= 2 // strips are read whole, uncompressed, before they are converted
	}
	return n
}

// jpegProgressive reports a JPEG whose frame header is progressive (SOF2, SOF6,
// SOF10, SOF14), whose decoder keeps every coefficient until the last scan.
func jpegProgressive(b []byte) bool {
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return false
		}
		m := b[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			i += 2
			continue
		case m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE:
			return true
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			return false // another frame type
		case m == 0xDA || m == 0xD9:
			return false
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if n < 2 {
			return false
		}
		i += 2 + n
	}
	return false
}

// floatBytes is the size of a w x h linear-light float image.
func floatBytes(w, h int) int64 { return 12 * int64(w) * int64(h) }

// streamBytes bounds the float strips a streamed export holds: a few strips of
// exportBandBytes per core.
func streamBytes() int64 { return 4 * int64(exportBandBytes) * int64(runtime.GOMAXPROCS(0)) }
