package jpegdec

import (
	"image"

	"github.com/darkroom-mcp/darkroom/internal/bytepool"
)

// planes keeps the pixel buffers of YCbCr images that callers gave back with
// Release, for the next Decode to fill instead of allocating (and the kernel
// faulting in) a new one: a worker decoding a folder of photos then reuses one
// buffer, where each decode's planes would otherwise be garbage the heap grows by.
var planes bytepool.Pool

// newYCbCr is image.NewYCbCr for a rectangle at the origin, with the same plane
// sizes, strides and layout (Y, then Cb, then Cr in one buffer), on a buffer from
// planes when one is large enough. The buffer is cleared: every sample reads as
// image.NewYCbCr's would until the decoder writes it.
func newYCbCr(r image.Rectangle, ratio image.YCbCrSubsampleRatio) *image.YCbCr {
	if r.Min != (image.Point{}) {
		return image.NewYCbCr(r, ratio)
	}
	w, h := r.Dx(), r.Dy()
	hs, vs := 1, 1
	switch ratio {
	case image.YCbCrSubsampleRatio422:
		hs = 2
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	case image.YCbCrSubsampleRatio440:
		vs = 2
	case image.YCbCrSubsampleRatio411:
		hs = 4
	case image.YCbCrSubsampleRatio410:
		hs, vs = 4, 2
	}
	cw, ch := (w+hs-1)/hs, (h+vs-1)/vs
	n0, n1 := w*h, cw*ch
	b := planes.Get(n0 + 2*n1)[:n0+2*n1]
	clear(b)
	// Y keeps the whole buffer's capacity: Release recovers the buffer from it.
	return &image.YCbCr{
		Y:              b[:n0],
		Cb:             b[n0 : n0+n1 : n0+n1],
		Cr:             b[n0+n1 : n0+2*n1 : n0+2*n1],
		YStride:        w,
		CStride:        cw,
		SubsampleRatio: ratio,
		Rect:           r,
	}
}

// Release gives the pixel buffer of an image Decode returned back for a later
// Decode to reuse. The caller must not use m, or anything sharing its pixels,
// afterwards. Images of other kinds, or not made by Decode, are left alone.
func Release(m image.Image) {
	y, ok := m.(*image.YCbCr)
	if !ok || y.Rect.Min != (image.Point{}) || len(y.Y) == 0 || len(y.Cb) == 0 {
		return
	}
	n := len(y.Y) + len(y.Cb) + len(y.Cr)
	b := y.Y[:cap(y.Y)]
	if cap(b) < n || &b[len(y.Y)] != &y.Cb[0] {
		return // not one buffer laid out as newYCbCr lays it out
	}
	planes.Put(b)
}
