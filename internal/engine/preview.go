package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	darkroom "github.com/darkroom-mcp/darkroom"
)

const (
	// DefaultProxyLongEdge is the long edge of the proxy a Previewer keeps per source:
	// twice a 1024-pixel preview, so a preview cropped to half the frame still has
	// all the pixels it shows.
	DefaultProxyLongEdge = 2048
	// DefaultPreviewLongEdge is the preview size when a request gives none.
	DefaultPreviewLongEdge = 1024
)

// Proxy is a decoded source as a Previewer keeps it: upright, shrunk to the proxy
// size, with what the full-resolution file said about itself.
type Proxy struct {
	// Image is at most the Previewer's proxy long edge.
	Image *Image
	// Width and Height are the full-resolution upright size.
	Width, Height int
	Format        string
	EXIF          []byte
	Meta          EXIFSummary
	Warnings      []string
}

// Bytes is what the proxy keeps alive, for the cache's budget.
func (p *Proxy) Bytes() int64 { return p.Image.Bytes() + int64(len(p.EXIF)) }

// Previewer renders previews from cached proxies, so that a preview after an edit
// never decodes the photo again. It is safe for concurrent use; concurrent requests
// for a source not yet cached decode it once.
type Previewer struct {
	// ProxyLongEdge is the proxy size; 0 means DefaultProxyLongEdge. Set it before
	// the first request.
	ProxyLongEdge int
	// MaxPixels caps the sources decoded (DecodeOptions.MaxPixels).
	MaxPixels int64

	cache   *Cache
	mu      sync.Mutex
	loading map[string]*proxyLoad
}

type proxyLoad struct {
	done  chan struct{}
	proxy *Proxy
	err   error
	// waiters counts the requests that found the load in progress (under mu).
	waiters int
}

// NewPreviewer returns a Previewer whose proxies and intermediate images share a
// cache of cacheBytes.
func NewPreviewer(cacheBytes int64) *Previewer {
	return &Previewer{cache: NewCache(cacheBytes), loading: map[string]*proxyLoad{}}
}

// Loader returns a source's file bytes. It is called only when the source is not
// cached.
type Loader func() ([]byte, error)

// PreviewRequest asks for one preview.
type PreviewRequest struct {
	// Key names the source's bytes (a content hash): equal keys must mean equal files.
	Key  string
	Load Loader
	// Edits are complete, validated edits, as for Render.
	Edits []Edit
	// LongEdge is the preview's long edge in pixels; 0 means DefaultPreviewLongEdge.
	// A preview is never larger than the export would be.
	LongEdge int
	Seed     uint64
	// Context, when set, stops the preview when it ends: between rows of the
	// source's decode when its proxy is not cached, and between the steps of the
	// render. A stopped preview caches nothing.
	Context context.Context
	// Rows, when set, is told as the source's rows are decoded, when its proxy is
	// not cached (DecodeOptions.Rows).
	Rows func(done, total int)
}

// Proxy returns the cached proxy of a source, decoding it (through load) if needed.
// Decode errors are returned as they are (invalid_input, limit_exceeded); a failing
// loader's error is returned unchanged too, so its code (not_found,
// permission_error) reaches the caller.
func (p *Previewer) Proxy(key string, load Loader) (*Proxy, error) {
	return p.ProxyContext(nil, key, load, nil)
}

// ProxyContext is Proxy under ctx, which stops the decode between rows when it
// ends (the error wraps ctx's); rows, when set, is told as the rows are decoded. A
// request waiting for another's decode of the same source stops waiting when its
// own ctx ends; when the other's ctx ends first, it decodes the source itself.
func (p *Previewer) ProxyContext(ctx context.Context, key string, load Loader, rows func(done, total int)) (*Proxy, error) {
	ck := "proxy\x00" + key
	for {
		if v, ok := p.cache.Get(ck); ok {
			return v.(*Proxy), nil
		}
		p.mu.Lock()
		if l, ok := p.loading[key]; ok {
			l.waiters++
			p.mu.Unlock()
			select {
			case <-l.done:
			case <-done(ctx):
				return nil, stopped(ctx, "preview")
			}
			if isStopped(l.err) && stopped(ctx, "preview") == nil {
				continue // the decode was its caller's to stop, not this one's
			}
			return l.proxy, l.err
		}
		l := &proxyLoad{done: make(chan struct{})}
		p.loading[key] = l
		p.mu.Unlock()

		func() {
			// A panicking loader must not leave the requests waiting on it blocked
			// forever: it becomes their error, as the server turns panics into one.
			defer func() {
				if r := recover(); r != nil {
					l.proxy, l.err = nil, darkroom.Errorf(darkroom.InternalError, "load source %q: %v", key, r)
				}
			}()
			l.proxy, l.err = p.loadProxy(ctx, load, rows)
		}()
		if l.err == nil {
			p.cache.Put(ck, l.proxy)
		}
		p.mu.Lock()
		delete(p.loading, key)
		p.mu.Unlock()
		close(l.done)
		return l.proxy, l.err
	}
}

// done is ctx's Done channel; nil (which never delivers) for a nil ctx.
func done(ctx context.Context) <-chan struct{} {
	if ctx == nil {
		return nil
	}
	return ctx.Done()
}

// isStopped says err is work stopped because its context ended.
func isStopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (p *Previewer) loadProxy(ctx context.Context, load Loader, rows func(done, total int)) (*Proxy, error) {
	data, err := load()
	if err != nil {
		return nil, err
	}
	if err := stopped(ctx, "preview"); err != nil {
		return nil, err
	}
	long := p.ProxyLongEdge
	if long <= 0 {
		long = DefaultProxyLongEdge
	}
	s, err := Decode(data, DecodeOptions{MaxPixels: p.MaxPixels, MaxLongEdge: long, Context: ctx, Rows: rows})
	if err != nil {
		return nil, err
	}
	return &Proxy{Image: s.Image, Width: s.Width, Height: s.Height, Format: s.Format, EXIF: s.EXIF, Meta: s.Meta, Warnings: s.Warnings}, nil
}

// Entries is how many proxies and intermediate images the cache holds: what a
// stopped preview must not have added to.
func (p *Previewer) Entries() int { return p.cache.Len() }

// Forget drops a source's proxy (previews already rendered from it stay valid).
func (p *Previewer) Forget(key string) { p.cache.Remove("proxy\x00" + key) }

// Preview renders edits on a source at preview size: geometry on the proxy, then a
// resize to the preview size, then every other edit at that size. Operation sizes
// and radii are fractions of the image, so this matches the full-size export scaled
// down. The proxy after geometry and resizing is cached too, keyed by the geometry
// edits and the size, so tonal edits (the agent's usual loop) cost only the render of
// the remaining edits at preview size. Errors are those of Proxy and Render.
func (p *Previewer) Preview(req PreviewRequest) (*Image, error) {
	proxy, err := p.ProxyContext(req.Context, req.Key, req.Load, req.Rows)
	if err != nil {
		return nil, err
	}
	ctx := req.Context
	long := req.LongEdge
	if long <= 0 {
		long = DefaultPreviewLongEdge
	}
	geom, rest := splitGeometry(req.Edits)
	bk := baseKey(req.Key, geom, long, req.Seed)
	var base *Image
	if v, ok := p.cache.Get(bk); ok {
		base = v.(*Image)
	} else {
		g := proxy.Image
		if len(geom) > 0 {
			if g, err = Render(g, geom, RenderOptions{Seed: req.Seed}); err != nil {
				return nil, err
			}
		}
		// A preview is never larger than the export: the proxy may be smaller than
		// the source, so scale its post-geometry size up to full resolution first.
		scale := float64(proxy.Width) / float64(proxy.Image.W)
		fullLong := int(float64(max(g.W, g.H))*scale + 0.5)
		w, h := FitLongEdge(g.W, g.H, min(long, fullLong))
		base = g
		if w != g.W || h != g.H {
			base = Resize(g, w, h)
		}
		if err := stopped(ctx, "preview"); err != nil {
			return nil, err
		}
		p.cache.Put(bk, base)
	}
	if len(rest) == 0 {
		return base.Clone(), nil
	}
	if err := stopped(ctx, "preview"); err != nil {
		return nil, err
	}
	out, err := Render(base, rest, RenderOptions{Seed: req.Seed})
	if err == nil {
		err = stopped(ctx, "preview")
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// splitGeometry separates the geometry edits from the rest, keeping each list in its
// given order, which Render's stable stage sort preserves. An unknown operation goes
// with the rest, for Render to report.
func splitGeometry(edits []Edit) (geom, rest []Edit) {
	for _, e := range edits {
		if s, ok := OpStage(e.Op); ok && s == "geometry" {
			geom = append(geom, e)
		} else {
			rest = append(rest, e)
		}
	}
	return geom, rest
}

// baseKey names a source's proxy after geometry and resizing. The seed matters only
// when there is geometry (random_crop draws from it).
func baseKey(key string, geom []Edit, long int, seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "base\x00%s\x00%d", key, long)
	if len(geom) > 0 {
		fmt.Fprintf(&b, "\x00%d", seed)
	}
	for _, e := range geom {
		// fmt prints maps with sorted keys, so equal arguments give equal keys.
		fmt.Fprintf(&b, "\x00%q %v %v", e.Op, e.Strength, map[string]any(e.Args))
	}
	return b.String()
}
