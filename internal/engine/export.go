package engine

import (
	"context"
	"image"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// exportBandBytes bounds the float rows of one strip of a streamed export: with a
// strip or two per core in flight and a few buffers each, the render holds tens of
// megabytes where the whole float image of a 24-megapixel photo is 288.
var exportBandBytes = 4 << 20 // a variable so that tests can cut small images into many strips

// ExportOptions shape a full-resolution export.
type ExportOptions struct {
	// Encode chooses the file; when Encode.EXIF is nil, a JPEG carries the source's.
	Encode EncodeOptions
	// LongEdge, when positive and smaller than the rendered image, resizes the
	// result to it before encoding.
	LongEdge  int
	Seed      uint64
	MaxPixels int64
	// Stage, when set, is told as the export finishes decoding ("render" starts) and
	// rendering ("encode" starts), so a caller can report progress. A streamed export
	// renders and encodes together: "encode" comes when the last rows are rendered.
	Stage func(next string)
	// Context, when set, ends a wait for the decode budget (see SetDecodeBudget),
	// and an export whose context ends stops between strips of rows, rendered or
	// encoded (Encode.Context, when not set, is this one).
	Context context.Context
	// Rows, when set, is told after each strip of rows is rendered how many rows
	// are done of how many the export renders strip by strip, done increasing from
	// call to call. A streamed export renders each row of the file once; one that
	// renders whole images counts the rows of the strips it renders before them and
	// after them (total grows to the second count once the whole images are made).
	// A PNG or TIFF export then counts the rows it encodes, adding the file's
	// height to total when the encoding starts.
	// It may be called from several goroutines, one call at a time.
	Rows func(done, total int)
}

// rowMeter adds up the rows of strips rendered, possibly by several goroutines,
// and tells them to a Rows function in increasing order.
type rowMeter struct {
	mu          sync.Mutex
	done, total int
	fn          func(done, total int)
}

// metered is band, telling m of the rows of each strip it renders.
func (m *rowMeter) metered(band bandFunc) bandFunc {
	if m == nil || m.fn == nil {
		return band
	}
	return func(y0, y1 int, pool *bufPool) (*Image, func(), error) {
		img, done, err := band(y0, y1, pool)
		if err == nil {
			m.mu.Lock()
			m.done += y1 - y0
			m.fn(m.done, m.total)
			m.mu.Unlock()
		}
		return img, done, err
	}
}

// encoding returns a Rows function for an encoder (EncodeOptions.Rows): the rows
// it writes are counted on, after those rendered, and its total is added to the
// meter's at its first call.
func (m *rowMeter) encoding() func(done, total int) {
	if m == nil || m.fn == nil {
		return nil
	}
	last, started := 0, false
	return func(done, total int) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !started {
			m.total += total
			started = true
		}
		m.done += done - last
		last = done
		m.fn(m.done, m.total)
	}
}

// grow adds n rows to the total.
func (m *rowMeter) grow(n int) {
	m.mu.Lock()
	m.total += n
	m.mu.Unlock()
}

// ExportResult says what an export wrote.
type ExportResult struct {
	// Width and Height are the size of the file's image.
	Width, Height int
	// Warnings are the decoder's (Source.Warnings).
	Warnings []string
}

// Export decodes a source at full resolution, renders edits on it, optionally resizes
// and encodes it to w. Errors are those of Decode, Render and Encode, and nothing is
// written when decoding or the edits fail.
//
// When every edit can be planned in bands (see planBands: per-pixel edits, filters
// with a halo or a first pass, geometry mapped back to the source) and the image is
// not resized, the export streams: the decoder's own 8-bit image stays the only
// full-size one, and strips of rows are converted, rendered and encoded on every
// core a few at a time, the JPEG strip by strip (PNG and TIFF into one float image,
// which their encoders read). Otherwise only the edits from the first that needs the
// whole image to the last render whole images: the band edits before them run strip
// by strip as the source is converted, those after them strip by strip into the
// encoder, and each full-size image is dropped as soon as the next replaces it.
//
// The decode budget (SetDecodeBudget) is taken for the decoder's image and the float
// images the export will hold (strips when it streams, one or two full-size images
// when it cannot), and held until the file is written.
func Export(w io.Writer, data []byte, edits []Edit, opt ExportOptions) (ExportResult, error) {
	var release func()
	// Deferred, so a panic in an operation (which the server recovers and goes on
	// from) gives the budget back too; here export's buffers are garbage.
	defer func() {
		if release != nil {
			release()
		}
	}()
	return export(w, data, edits, opt, &release)
}

func export(w io.Writer, data []byte, edits []Edit, opt ExportOptions, release *func()) (ExportResult, error) {
	allBand := true
	for _, e := range edits {
		allBand = allBand && bandEdit(e)
	}
	order, err := renderOrder(edits)
	if err != nil {
		return ExportResult{}, err
	}
	ropt := RenderOptions{Seed: opt.Seed}
	cost := func(w, h, o int) int64 {
		if o >= 5 {
			w, h = h, w
		}
		// The whole images are charged at the largest frame the geometry makes: pad
		// and scale grow it (2x and 4x a side), and a render holds two images of it.
		w, h = grownFrame(w, h, edits, order)
		resize := opt.LongEdge > 0 && max(w, h) > opt.LongEdge
		// Strips never hold more than the whole image: without the cap a small export
		// on a many-core machine would be charged as much as a 24 MP one.
		strips := min(streamBytes(), floatBytes(w, h))
		if !allBand && !resize {
			if p, _ := planBands(edits, order, ropt, w, h); p != nil {
				// Nor do bands: a small image's bands and tile cache are capped by
				// what rendering it whole would hold.
				return min(p.exportCost(opt.Encode.Format), 3*floatBytes(w, h)+strips)
			}
		}
		switch {
		case allBand && !resize && opt.Encode.Format == "jpeg":
			return strips
		case allBand && !resize:
			return floatBytes(w, h) + strips
		}
		// The source, the render of the edits that need the whole image, and the
		// scratch image such an edit (a blur, a rotation) works in; a resize's
		// output is smaller than any of them.
		return 3*floatBytes(w, h) + strips
	}
	d, err := decodeFile(opt.Context, data, opt.MaxPixels, 0, cost)
	if err != nil {
		return ExportResult{}, err
	}
	*release = d.release
	res := func(w, h int, err error) (ExportResult, error) {
		if err != nil {
			return ExportResult{}, err
		}
		return ExportResult{Width: w, Height: h, Warnings: d.src.Warnings}, nil
	}
	eo := opt.Encode
	if eo.EXIF == nil {
		eo.EXIF = d.src.EXIF
	}
	stage := func(s string) {
		if opt.Stage != nil {
			opt.Stage(s)
		}
	}
	W, H := d.src.Width, d.src.Height
	resize := opt.LongEdge > 0 && max(W, H) > opt.LongEdge
	// The render order splits into the band edits before the first that is not one
	// (prefix), those from it to the last that is not one (middle), and the band
	// edits after (suffix); the stage order puts light, tone and colour first and
	// effects last, so most of an export's edits are prefix or suffix.
	p := 0
	for p < len(order) && bandEdit(edits[order[p]]) {
		p++
	}
	q := len(order)
	for q > p && bandEdit(edits[order[q-1]]) {
		q--
	}
	prefix, middle, suffix := order[:p], order[p:q], order[q:]
	rows := d.uprightRows()
	meter := &rowMeter{fn: opt.Rows}
	if eo.Context == nil {
		eo.Context = opt.Context
	}
	if eo.Format != "jpeg" && eo.Rows == nil && opt.Rows != nil {
		eo.Rows = meter.encoding()
	}
	stage("render")
	// fromSource makes rows of the source with the prefix rendered on them.
	fromSource := func(y0, y1 int, pool *bufPool) (*Image, func(), error) {
		if err := cancelled(opt.Context); err != nil {
			return nil, nil, err
		}
		in := &Image{W: W, H: y1 - y0, Pix: pool.get(3 * W * (y1 - y0))}
		rows(y0, y1, in.Pix)
		out, err := renderFrame(in, edits, prefix, ropt, frame{y0, W, H}, pool)
		if err != nil {
			return nil, nil, err
		}
		if out != in {
			pool.put(in.Pix)
		}
		return out, func() { pool.put(out.Pix) }, nil
	}
	if rows != nil && len(middle) == 0 && !resize {
		// Every edit is a band edit: stream from the decoder's planes to the file.
		meter.grow(H)
		return res(W, H, d.finishWith(streamOut(w, W, H, eo, exportBandBytes, meter.metered(fromSource), stage)))
	}
	if rows != nil && !resize {
		// Edits that reach across rows, or geometry, but all of them streamable.
		p, err := planBands(edits, order, ropt, W, H)
		if err != nil {
			return ExportResult{}, err
		}
		if p != nil {
			ow, oh := p.size()
			meter.grow(oh)
			return res(ow, oh, d.finishWith(p.export(opt.Context, w, d, eo, stage, meter)))
		}
	}

	// The source, full size, with the prefix rendered band by band as it is
	// converted (or whole, when its rows cannot be read as bands).
	var img *Image
	if rows != nil {
		img = NewImage(W, H)
		meter.grow(H)
		err = renderInto(img, meter.metered(fromSource))
	} else {
		img = convertOriented(d.w, d.h, d.o, d.conv)
		img, err = renderOwned(img, edits, prefix, ropt)
	}
	d.finish()
	d.m, d.conv = nil, nil
	if err != nil {
		return ExportResult{}, err
	}
	// The decoder's 8-bit image is garbage now, but with a heap this large the
	// collector would not run again before the render has allocated hundreds of
	// megabytes beside it; collecting here lets the render reuse that memory.
	runtime.GC()
	if err := cancelled(opt.Context); err != nil {
		return ExportResult{}, err
	}
	out, err := renderOwned(img, edits, middle, ropt)
	if err != nil {
		return ExportResult{}, err
	}
	img = nil
	runtime.GC() // the source is garbage too: free it before the encoder's copy
	if resize {
		if out, err = renderOwned(out, edits, suffix, ropt); err != nil {
			return ExportResult{}, err
		}
		rw, rh := FitLongEdge(out.W, out.H, opt.LongEdge)
		out = Resize(out, rw, rh)
		stage("encode")
		return res(out.W, out.H, Encode(w, out, eo))
	}
	// The suffix, band by band, from the rendered image into the encoder.
	fromOut := func(y0, y1 int, pool *bufPool) (*Image, func(), error) {
		if err := cancelled(opt.Context); err != nil {
			return nil, nil, err
		}
		in := &Image{W: out.W, H: y1 - y0, Pix: out.Pix[3*y0*out.W : 3*y1*out.W]}
		m, err := renderFrame(in, edits, suffix, ropt, frame{y0, out.W, out.H}, pool)
		if err != nil || m == in {
			return m, nil, err
		}
		return m, func() { pool.put(m.Pix) }, nil
	}
	meter.grow(out.H)
	return res(out.W, out.H, streamOut(w, out.W, out.H, eo, exportBandBytes, meter.metered(fromOut), stage))
}

// streamOut encodes the w x h image whose rows band makes: a JPEG strip by strip
// (strips of about bandBytes of float rows), a PNG or TIFF from one float image the
// bands are rendered into. It tells stage "encode" when the last rows are rendered.
func streamOut(wr io.Writer, w, h int, eo EncodeOptions, bandBytes int, band bandFunc, stage func(string)) error {
	last := func(y0, y1 int, pool *bufPool) (*Image, func(), error) {
		m, done, err := band(y0, y1, pool)
		if err == nil && y1 == h {
			stage("encode")
		}
		return m, done, err
	}
	if eo.Format == "jpeg" {
		return encodeJPEGBands(wr, w, h, eo, bandBytes, last)
	}
	out := NewImage(w, h)
	if err := renderInto(out, last); err != nil {
		return err
	}
	return Encode(wr, out, eo)
}

// export streams the plan's render of d's upright image into an encoded file: the
// source is converted a tile at a time into a bounded cache (bands overlap by their
// halos, and a rotation's blocks by their slant), the first passes run, then bands
// of rows (taller where the halos are wide) are rendered and encoded.
func (p *bandPlan) export(ctx context.Context, wr io.Writer, d *decoded, eo EncodeOptions, stage func(string), meter *rowMeter) error {
	rows := p.bandRows()
	conv, tw := d.uprightRects()
	p.rects = newTileCache(conv, p.W, p.H, tw, cacheTileRows, p.cacheBytes(rows)).read
	if err := p.prepare(); err != nil {
		return err
	}
	w, h := p.size()
	guard := newHeapGuard(32 << 20)
	band := func(y0, y1 int, pool *bufPool) (*Image, func(), error) {
		if err := cancelled(ctx); err != nil {
			return nil, nil, err
		}
		guard.check()
		return p.renderRows(len(p.steps), y0, y1, pool)
	}
	return streamOut(wr, w, h, eo, 12*w*rows, meter.metered(band), stage)
}

// cacheTileRows and cacheTileWidth are the size of the tiles a streamed export
// converts its source in (the width when the source can be read in columns).
const (
	cacheTileRows  = 16
	cacheTileWidth = 128
)

// uprightRects returns a function that converts rectangles of the upright image,
// and the width of the tiles it converts: cacheTileWidth for a YCbCr image stored
// upright (what a JPEG decodes to), read straight from its planes; otherwise whole
// rows (uprightRows), which the function must then be asked for.
func (d *decoded) uprightRects() (rectSource, int) {
	if m, ok := d.m.(*image.YCbCr); ok && d.o == 1 && m.Rect.Min == (image.Point{}) {
		return ycbcrRect(m), cacheTileWidth
	}
	rows := d.uprightRows()
	return func(x0, y0, x1, y1 int, dst []float32) { rows(y0, y1, dst) }, d.w
}

// ycbcrRect converts rectangles of m with ycbcrConv's arithmetic, so the pixels are
// exactly those its rows give.
func ycbcrRect(m *image.YCbCr) rectSource {
	hs, vs := chromaShifts(m.SubsampleRatio)
	return func(x0, y0, x1, y1 int, dst []float32) {
		w := x1 - x0
		for y := y0; y < y1; y++ {
			yrow := m.Y[y*m.YStride:]
			c0 := (y >> vs) * m.CStride
			cb, cr := m.Cb[c0:], m.Cr[c0:]
			out := dst[3*w*(y-y0) : 3*w*(y-y0+1)]
			if hs == 1 && x0%2 == 0 {
				ycbcrPairs(out, yrow[x0:x1], cb[x0/2:], cr[x0/2:])
				continue
			}
			for x := x0; x < x1; x++ {
				ci := x >> hs
				r, g, b := ycbcrRGB(yrow[x], cb[ci], cr[ci])
				p := out[3*(x-x0) : 3*(x-x0)+3 : 3*(x-x0)+3]
				p[0], p[1], p[2] = lin8[clamp8(r)], lin8[clamp8(g)], lin8[clamp8(b)]
			}
		}
	}
}

// renderOwned runs the edits of order on src, which the caller gives up: src's
// pixels are reused as soon as an edit has replaced them.
func renderOwned(src *Image, edits []Edit, order []int, opt RenderOptions) (*Image, error) {
	if len(order) == 0 {
		return src, nil
	}
	return renderFrameOwn(src, edits, order, opt, frame{}, &bufPool{}, true)
}

// finishWith is finish, passing err through.
func (d *decoded) finishWith(err error) error {
	d.finish()
	return err
}

// renderInto fills out with the bands band makes, bands of about exportBandBytes
// split across cores.
func renderInto(out *Image, band bandFunc) error {
	rows := max(1, exportBandBytes/(12*out.W))
	n := (out.H + rows - 1) / rows
	errs := make([]error, n)
	parallelN(n, 1, func(lo, hi int) {
		pool := &bufPool{}
		defer pool.recycle()
		for i := lo; i < hi; i++ {
			y0, y1 := i*rows, min((i+1)*rows, out.H)
			m, done, err := band(y0, y1, pool)
			if err != nil {
				errs[i] = err
				return
			}
			copy(out.Pix[3*y0*out.W:3*y1*out.W], m.Pix)
			if done != nil {
				done()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// uprightRows returns a function that converts rows [y0, y1) of the upright image
// into dst, or nil when it cannot for this image. Orientations 1 to 4 keep stored rows
// as rows (mirrored or in reverse order); 5 to 8 make stored columns rows, which are
// read straight from the planes of a YCbCr image (what JPEG and WebP decode to). The
// function may be called from several goroutines at once.
func (d *decoded) uprightRows() func(y0, y1 int, dst []float32) {
	w, h, o, conv := d.w, d.h, d.o, d.conv
	if o >= 5 {
		m, ok := d.m.(*image.YCbCr)
		if !ok || m.Rect.Min != (image.Point{}) {
			return nil
		}
		return ycbcrColumns(m, o)
	}
	return func(y0, y1 int, dst []float32) {
		for y := y0; y < y1; y++ {
			row := dst[3*w*(y-y0) : 3*w*(y-y0+1)]
			sy := y
			if o == 3 || o == 4 {
				sy = h - 1 - y
			}
			conv(sy, row)
			if o == 2 || o == 3 {
				for a, b := 0, w-1; a < b; a, b = a+1, b-1 {
					pa, pb := row[3*a:3*a+3:3*a+3], row[3*b:3*b+3:3*b+3]
					pa[0], pa[1], pa[2], pb[0], pb[1], pb[2] = pb[0], pb[1], pb[2], pa[0], pa[1], pa[2]
				}
			}
		}
	}
}

// ycbcrColumns converts rows of the upright image of m under orientation o (5 to 8),
// which are columns of m: upright row y is stored column y (5, 6) or w-1-y (7, 8),
// and its pixel x is stored row x (5, 8) or h-1-x (6, 7). Each stored row's stretch
// of columns is read once per band, and converted with ycbcrConv's arithmetic, so the
// pixels are exactly those convertOriented makes.
func ycbcrColumns(m *image.YCbCr, o int) func(y0, y1 int, dst []float32) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	hs, vs := chromaShifts(m.SubsampleRatio)
	return func(y0, y1 int, dst []float32) {
		// Upright row y is stored column sx0 + y*dx.
		sx0, dx := 0, 1
		if o == 7 || o == 8 {
			sx0, dx = w-1, -1
		}
		for sy := range h {
			ux := sy
			if o == 6 || o == 7 {
				ux = h - 1 - sy
			}
			yrow := m.Y[sy*m.YStride:][:w]
			c0 := (sy >> vs) * m.CStride
			cb, cr := m.Cb[c0:], m.Cr[c0:]
			for y := y0; y < y1; y++ {
				sx := sx0 + y*dx
				ci := sx >> hs
				r, g, b := ycbcrRGB(yrow[sx], cb[ci], cr[ci])
				p := dst[3*((y-y0)*h+ux):][:3:3]
				p[0], p[1], p[2] = lin8[clamp8(r)], lin8[clamp8(g)], lin8[clamp8(b)]
			}
		}
	}
}

// cancelled is the error of an export whose context has ended, nil otherwise.
func cancelled(ctx context.Context) error { return stopped(ctx, "export") }

// stopped is the error of work (an export, a decode, a preview) whose context has
// ended, nil otherwise; it wraps the context's error, so errors.Is tells a cancel
// (context.Canceled) from a time limit (context.DeadlineExceeded).
func stopped(ctx context.Context, what string) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return darkroom.Wrap(darkroom.Unavailable, ctx.Err(), "%s stopped: the request was cancelled", what)
}

// rowsBetweenChecks is how many rows a decode converts between looks at its
// context and reports of its progress: a few milliseconds of work on a
// 24-megapixel photo, a few dozen reports for the whole of it.
const rowsBetweenChecks = 64

// watchRows wraps conv, which converts the h stored rows of a decode, possibly
// from several goroutines: once ctx ends, the rows left are skipped (left black)
// rather than converted, and stop returns the cancellation for the caller to
// return instead of the image; every rowsBetweenChecks rows, fn (when set) is told
// how many rows are done. A resampler may convert a row twice (bands' filters
// overlap), so done is capped at h.
func watchRows(ctx context.Context, conv rowConv, h int, fn func(done, total int)) (rowConv, func() error) {
	rep := &rowReporter{total: h, fn: fn}
	var n atomic.Int64
	w := func(y int, dst []float32) {
		if ctx != nil && ctx.Err() != nil {
			clear(dst)
			return
		}
		conv(y, dst)
		rep.report(min(int(n.Add(1)), h))
	}
	return w, func() error { return stopped(ctx, "decode") }
}

// rowReporter tells fn how many of total rows are done, only every
// rowsBetweenChecks rows and at the last, and only when more are done than it last
// said, one call at a time.
type rowReporter struct {
	mu    sync.Mutex
	last  int
	total int
	fn    func(done, total int)
}

func (r *rowReporter) report(done int) {
	if r.fn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if done <= r.last || done-r.last < rowsBetweenChecks && done < r.total {
		return
	}
	r.last = done
	r.fn(done, r.total)
}

// grownFrame is the largest frame a w x h source reaches through the geometry edits
// in order: pad (up to twice the long edge a side), scale and a resizing random_crop
// (up to 4x) grow it;
// other geometry keeps it or shrinks it, so the frame before it stands.
func grownFrame(w, h int, edits []Edit, order []int) (int, int) {
	peakW, peakH := w, h
	for _, i := range order {
		e := edits[i]
		r := args{a: e.Args}
		nw, nh := w, h
		switch e.Op {
		case "pad":
			fw, fh := r.num("width"), r.num("height")
			long := float64(max(w, h))
			nw, nh = max(w, int(math.Round(fw*long))), max(h, int(math.Round(fh*long)))
		case "scale":
			f, fy := r.num("factor"), scaleFactorY(&r)
			nw, nh = max(1, int(math.Round(f*float64(w)))), max(1, int(math.Round(fy*float64(h))))
		case "random_crop":
			// Resized to out_width x out_height of the frame before it, which may
			// be larger; the crop itself is never larger than its input.
			if r.flag("keep_size") {
				nw = max(1, int(math.Round(r.numOr("out_width", 1)*float64(w))))
				nh = max(1, int(math.Round(r.numOr("out_height", 1)*float64(h))))
			}
		case "crop_and_pad":
			// Padded (a positive percent) before it is resized back or not: the
			// padded frame is held either way.
			nw, nh = cropAndPadFrame(w, h, r.num("percent"))
		}
		if r.err != nil {
			continue // Render reports the bad argument
		}
		w, h = nw, nh
		if int64(w)*int64(h) > int64(peakW)*int64(peakH) {
			peakW, peakH = w, h
		}
	}
	return peakW, peakH
}
