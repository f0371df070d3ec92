package engine

import (
	"bufio"
	"image"
	"io"

	"github.com/HugoSmits86/nativewebp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// WebP output. golang.org/x/image/webp only decodes; the encoder is
// github.com/HugoSmits86/nativewebp (MIT, pure Go, no dependency beyond x/image),
// which writes lossless WebP (VP8L) only: the file holds the 8-bit sRGB pixels
// exactly, as an 8-bit PNG does, usually smaller, and there is no quality setting.

// EncodeWebP writes img as a lossless WebP of its 8-bit sRGB values (quantised as
// the 8-bit PNG is, so both files decode to the same pixels). An encoder or write
// failure is render_error; the format's limit of 16384 pixels a side is
// limit_exceeded.
func EncodeWebP(w io.Writer, img *Image) error {
	if img == nil || img.W <= 0 || img.H <= 0 || len(img.Pix) != 3*img.W*img.H {
		return darkroom.Errorf(darkroom.RenderError, "encode webp: not a valid image")
	}
	if img.W > maxWebPSide || img.H > maxWebPSide {
		return darkroom.Errorf(darkroom.LimitExceeded, "encode webp: %dx%d is over the format's %d pixels a side", img.W, img.H, maxWebPSide)
	}
	t := srgb8()
	m := image.NewNRGBA(image.Rect(0, 0, img.W, img.H))
	parallelRows(img.H, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			px := img.Pix[3*y*img.W : 3*(y+1)*img.W]
			out := m.Pix[y*m.Stride : y*m.Stride+4*img.W]
			for x := range img.W {
				out[4*x] = quant8(t, px[3*x])
				out[4*x+1] = quant8(t, px[3*x+1])
				out[4*x+2] = quant8(t, px[3*x+2])
				out[4*x+3] = 255
			}
		}
	})
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := nativewebp.Encode(bw, m, nil); err != nil {
		return darkroom.Wrap(darkroom.RenderError, err, "encode webp")
	}
	if err := bw.Flush(); err != nil {
		return darkroom.Wrap(darkroom.RenderError, err, "encode webp")
	}
	return nil
}

// maxWebPSide is VP8L's limit: a side is stored in 14 bits, less one.
const maxWebPSide = 16384
