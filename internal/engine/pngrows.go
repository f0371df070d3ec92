package engine

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"io"
	"sync/atomic"
)

// A PNG proxy without the PNG's full-size image.
//
// image/png builds the whole image before a row can be read: 4 bytes a pixel for
// 8-bit RGB, 8 for 16-bit, so a 700 KB file that declares 240 megapixels costs 1 or
// 2 GB to preview. pngRows instead inflates and unfilters the rows one after the
// other, in the layout image/png gives them (so converter reads them exactly as it
// reads image/png's image), and Decode box-averages them as they come into an image
// a k x k fraction of the size, from which the proxy is resampled: the same
// arithmetic in the same order as reading image/png's image, so the same pixels,
// for the memory of two rows and the reduced image. It reads the formats cameras
// and editors write: non-interlaced 8- or 16-bit grey, grey with alpha, RGB and RGBA
// without a tRNS chunk. Anything else, and any file it cannot read to its end as
// image/png would, goes through image/png, whose verdict and messages stand.

// pngStream reads the rows of a PNG file in order.
type pngStream struct {
	w, h     int
	ct, bpp  int // colour type; bytes per pixel of the stored row
	depth    int
	cur, prv []byte
	z        io.ReadCloser
	idat     *idatReader
	y        int
	row      image.Image // a one-row image of image/png's type, over cur[1:]
}

// streamPNG turns the row-by-row PNG proxy on; tests turn it off to compare, and
// count in pngStreams the proxies it made.
var (
	streamPNG  = true
	pngStreams atomic.Int64
)

// errPNGFallback says a file is not one pngStream reads; image/png is used instead.
var errPNGFallback = errors.New("png: not read row by row")

// newPNGStream checks the header and prepares to read rows; it returns
// errPNGFallback for any file outside what it reads.
func newPNGStream(data []byte) (*pngStream, error) {
	if len(data) < 8+25 || string(data[12:16]) != "IHDR" || binary.BigEndian.Uint32(data[8:]) != 13 {
		return nil, errPNGFallback
	}
	ih := data[16:29]
	w, h := int(binary.BigEndian.Uint32(ih[0:])), int(binary.BigEndian.Uint32(ih[4:]))
	depth, ct, interlace := int(ih[8]), int(ih[9]), ih[12]
	if interlace != 0 || ih[10] != 0 || ih[11] != 0 || (depth != 8 && depth != 16) || w <= 0 || h <= 0 {
		return nil, errPNGFallback
	}
	channels := map[int]int{0: 1, 2: 3, 4: 2, 6: 4}[ct]
	if channels == 0 {
		return nil, errPNGFallback
	}
	s := &pngStream{w: w, h: h, ct: ct, depth: depth, bpp: channels * depth / 8}
	s.idat = &idatReader{data: data, off: 33}
	// Chunks before the first IDAT: a tRNS changes the type image/png returns,
	// and a broken chunk is image/png's to report.
	if err := s.idat.skipTo(); err != nil {
		return nil, errPNGFallback
	}
	if s.idat.sawTRNS {
		return nil, errPNGFallback
	}
	z, err := zlib.NewReader(s.idat)
	if err != nil {
		return nil, errPNGFallback
	}
	s.z = z
	n := 1 + w*s.bpp
	s.cur, s.prv = make([]byte, n), make([]byte, n)
	r := image.Rect(0, 0, w, 1)
	switch {
	case ct == 0 && depth == 8:
		s.row = &image.Gray{Pix: s.cur[1:], Stride: w, Rect: r}
	case ct == 0:
		s.row = &image.Gray16{Pix: s.cur[1:], Stride: 2 * w, Rect: r}
	case depth == 8:
		s.row = &image.NRGBA{Pix: make([]byte, 4*w), Stride: 4 * w, Rect: r}
		if ct == 2 {
			s.row = &image.RGBA{Pix: make([]byte, 4*w), Stride: 4 * w, Rect: r}
		}
	default:
		s.row = &image.NRGBA64{Pix: make([]byte, 8*w), Stride: 8 * w, Rect: r}
		if ct == 2 {
			s.row = &image.RGBA64{Pix: make([]byte, 8*w), Stride: 8 * w, Rect: r}
		}
	}
	return s, nil
}

// next reads the next row into s.row.
func (s *pngStream) next() error {
	s.cur, s.prv = s.prv, s.cur
	if _, err := io.ReadFull(s.z, s.cur); err != nil {
		return errPNGFallback
	}
	if err := unfilter(s.cur, s.prv, s.bpp); err != nil {
		return err
	}
	s.y++
	px := s.cur[1:]
	switch m := s.row.(type) {
	case *image.Gray:
		m.Pix = px
	case *image.Gray16:
		m.Pix = px
	case *image.RGBA:
		expand8(m.Pix, px, s.ct)
	case *image.NRGBA:
		expand8(m.Pix, px, s.ct)
	case *image.RGBA64:
		expand16(m.Pix, px, s.ct)
	case *image.NRGBA64:
		expand16(m.Pix, px, s.ct)
	}
	return nil
}

// finish checks the rest of the file as image/png would read it: the compressed
// stream ends where the rows do, and every chunk to IEND is whole with its checksum.
func (s *pngStream) finish() error {
	var one [1]byte
	if n, err := s.z.Read(one[:]); n > 0 || (err != io.EOF && err != nil) {
		return errPNGFallback
	}
	if err := s.z.Close(); err != nil {
		return errPNGFallback
	}
	if !s.idat.rest() {
		return errPNGFallback
	}
	return nil
}

// expand8 lays a stored 8-bit row out as image/png's RGBA or NRGBA image.
func expand8(dst, src []byte, ct int) {
	switch ct {
	case 2:
		for i, j := 0, 0; j < len(src); i, j = i+4, j+3 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[j], src[j+1], src[j+2], 0xff
		}
	case 4:
		for i, j := 0, 0; j < len(src); i, j = i+4, j+2 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[j], src[j], src[j], src[j+1]
		}
	case 6:
		copy(dst, src)
	}
}

// expand16 lays a stored 16-bit row out as image/png's RGBA64 or NRGBA64 image.
func expand16(dst, src []byte, ct int) {
	switch ct {
	case 2:
		for i, j := 0, 0; j < len(src); i, j = i+8, j+6 {
			copy(dst[i:i+6], src[j:j+6])
			dst[i+6], dst[i+7] = 0xff, 0xff
		}
	case 4:
		for i, j := 0, 0; j < len(src); i, j = i+8, j+4 {
			dst[i], dst[i+1], dst[i+2], dst[i+3], dst[i+4], dst[i+5] = src[j], src[j+1], src[j], src[j+1], src[j], src[j+1]
			dst[i+6], dst[i+7] = src[j+2], src[j+3]
		}
	case 6:
		copy(dst, src)
	}
}

// unfilter undoes a row's PNG filter (cur[0]) in place, with prv the previous
// unfiltered row (all zero before the first).
func unfilter(cur, prv []byte, bpp int) error {
	c, p := cur[1:], prv[1:]
	switch cur[0] {
	case 0:
	case 1:
		for i := bpp; i < len(c); i++ {
			c[i] += c[i-bpp]
		}
	case 2:
		for i := range c {
			c[i] += p[i]
		}
	case 3:
		for i := range bpp {
			c[i] += p[i] / 2
		}
		for i := bpp; i < len(c); i++ {
			c[i] += uint8((int(c[i-bpp]) + int(p[i])) / 2)
		}
	case 4:
		for i := range c {
			var a, cc int
			if i >= bpp {
				a, cc = int(c[i-bpp]), int(p[i-bpp])
			}
			c[i] += paethPredictor(byte(a), p[i], byte(cc))
		}
	default:
		return errPNGFallback
	}
	return nil
}

// idatReader reads the data of consecutive IDAT chunks, checking each chunk's CRC.
type idatReader struct {
	data    []byte
	off     int // the next chunk's start
	left    []byte
	sawTRNS bool
	ended   bool // no IDAT follows
}

// chunk returns the chunk at off and moves past it, or false when it is not whole
// or its checksum is wrong.
func (r *idatReader) chunk() (typ string, body []byte, ok bool) {
	d := r.data[r.off:]
	if len(d) < 12 {
		return "", nil, false
	}
	n := binary.BigEndian.Uint32(d)
	if uint64(n) > uint64(len(d)-12) {
		return "", nil, false
	}
	typ, body = string(d[4:8]), d[8:8+n]
	if crc32.ChecksumIEEE(d[4:8+n]) != binary.BigEndian.Uint32(d[8+n:]) {
		return "", nil, false
	}
	r.off += 12 + int(n)
	return typ, body, true
}

// skipTo moves to the first IDAT's data.
func (r *idatReader) skipTo() error {
	for {
		typ, body, ok := r.chunk()
		switch {
		case !ok || typ == "IEND":
			return errPNGFallback
		case typ == "tRNS":
			r.sawTRNS = true
		case typ == "IDAT":
			r.left = body
			return nil
		}
	}
}

func (r *idatReader) Read(p []byte) (int, error) {
	for len(r.left) == 0 {
		if r.ended {
			return 0, io.EOF
		}
		at := r.off
		typ, body, ok := r.chunk()
		if !ok {
			return 0, errPNGFallback
		}
		if typ != "IDAT" {
			r.off, r.ended = at, true
			return 0, io.EOF
		}
		r.left = body
	}
	n := copy(p, r.left)
	r.left = r.left[n:]
	return n, nil
}

// rest reads the chunks after the image data to IEND, as image/png does.
func (r *idatReader) rest() bool {
	if len(r.left) > 0 {
		return false
	}
	for {
		typ, _, ok := r.chunk()
		if !ok || typ == "IDAT" {
			return false
		}
		if typ == "IEND" {
			return true
		}
	}
}

// decodePNGProxy makes Decode's proxy of a PNG from its rows as they are inflated
// (see pngStream). ok is false when the file is not one it reads, or reading it
// failed: Decode then reads it through image/png, which gives its verdict.
func decodePNGProxy(data []byte, opt DecodeOptions, release *func()) (src *Source, ok bool, err error) {
	var cfg image.Config
	if err := guard("png", func() (err error) {
		cfg, err = codecs["png"].config(bytes.NewReader(data))
		return err
	}); err != nil {
		return nil, false, nil
	}
	maxPixels := opt.MaxPixels
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	w, h := cfg.Width, cfg.Height
	if checkSize("png", w, h, maxPixels) != nil || max(w, h) <= opt.MaxLongEdge {
		return nil, false, nil
	}
	src = &Source{Format: "png"}
	src.readMetadata(data)
	o := src.Meta.Orientation
	if o < 1 || o > 8 {
		o = 1
	}
	src.Width, src.Height = w, h
	if o >= 5 {
		src.Width, src.Height = h, w
	}
	tw, th := FitLongEdge(src.Width, src.Height, opt.MaxLongEdge)
	if o >= 5 {
		tw, th = th, tw
	}
	k := boxFactor(w, h, tw, th)
	if k <= 1 {
		return nil, false, nil
	}
	s, err := newPNGStream(data)
	if err != nil {
		return nil, false, nil
	}
	bw, bh := (w+k-1)/k, (h+k-1)/k
	rel, err := decodeBudget.acquire(opt.Context, "png", w, h, floatBytes(bw, bh)+2*floatBytes(tw, th)+floatBytes(w, 1)+4*int64(len(s.cur))-opt.Reserved)
	if err != nil {
		return nil, true, err
	}
	*release = rel
	conv, alpha := converter(s.row)
	failed := false
	next := func(y int, dst []float32) {
		if failed || y != s.y || s.next() != nil {
			failed = true
			return
		}
		conv(0, dst)
	}
	rows, scratch := boxRows(next, w, h, k)
	box := NewImage(bw, bh)
	buf := make([]float32, scratch)
	rep := rowReporter{total: h, fn: opt.Rows}
	for y := range bh {
		if y%rowsBetweenChecks == 0 {
			if err := stopped(opt.Context, "decode"); err != nil {
				rel()
				*release = nil
				return nil, true, err
			}
		}
		copy(box.Pix[3*bw*y:3*bw*(y+1)], rows(y, buf))
		rep.report(min((y+1)*k, h))
	}
	if failed || s.finish() != nil {
		rel()
		*release = nil
		return nil, false, nil
	}
	src.Image = orient(resample(imageRows(box), 3*bw, bw, bh, tw, th, 1), o)
	pngStreams.Add(1)
	if alpha.Load() {
		src.Warnings = append(src.Warnings, "transparent pixels were flattened onto white")
	}
	return src, true, nil
}
