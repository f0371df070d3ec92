package engine

import (
	"bytes"
	"image"
	"image/color"
	"math"

	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// Header is what an image file's header says, read without decoding a pixel.
type Header struct {
	// Format is jpeg, png, tiff, webp, gif or dng.
	Format string
	// Width and Height are the size as stored; UprightWidth and UprightHeight the
	// size once the EXIF orientation is applied (what Decode's Source.Width and
	// Height will be).
	Width, Height               int
	UprightWidth, UprightHeight int
	// ColorModel is the decoder's colour model for the stored pixels.
	ColorModel color.Model
	// DecodeBytes is what the format's decoder allocates for the whole image (its
	// 8- or 16-bit image and the copies some decoders make): what a decode of it
	// takes from the decode budget besides the float images made from it.
	DecodeBytes int64
}

// ReadHeader reads the header of an image file: its format and size, with Decode's
// checks (a format darkroom reads, a size that has pixels and is not above
// maxPixels, 0 meaning DefaultMaxPixels) and errors, and without allocating any
// pixel memory. It is the first step of every decode, and what a caller uses to
// cost or refuse an image before decoding it.
func ReadHeader(data []byte, maxPixels int64) (Header, error) {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if raw.Kind(data) == "dng" {
		return readDNGHeader(data, maxPixels)
	}
	format, err := sniff(data)
	if err != nil {
		return Header{}, err
	}
	var cfg image.Config
	if err := guard(format, func() (err error) {
		cfg, err = codecs[format].config(bytes.NewReader(data))
		return err
	}); err != nil {
		return Header{}, err
	}
	if err := checkSize(format, cfg.Width, cfg.Height, maxPixels); err != nil {
		return Header{}, err
	}
	src := &Source{Format: format}
	src.readMetadata(data)
	h := Header{Format: format, Width: cfg.Width, Height: cfg.Height, UprightWidth: cfg.Width, UprightHeight: cfg.Height,
		ColorModel: cfg.ColorModel, DecodeBytes: decoderBytes(format, data, cfg, 1)}
	if o := src.Meta.Orientation; o >= 5 && o <= 8 {
		h.UprightWidth, h.UprightHeight = cfg.Height, cfg.Width
	}
	return h, nil
}

// FloatBytes is the size of a w x h linear-light float image (Image): the unit
// pixel memory is counted in.
func FloatBytes(w, h int) int64 { return floatBytes(w, h) }

// DecodeCost is what Decode of a file with this header takes from the decode
// budget at full size: the decoder's image and the float image it becomes. A
// caller that reserves a working set for a decode and the work after it (Reserve,
// DecodeOptions.Reserved) counts this for the decode.
func (h Header) DecodeCost() int64 {
	return h.DecodeBytes + floatBytes(h.Width, h.Height)
}

// PeakFrame is the largest frame (by pixels) a w x h image passes through when
// edits run in the order given: pad, scale and crop_and_pad grow it; every other
// operation is counted as keeping the size it is given (crops shrink, which only
// makes the figure an upper bound). Arguments that do not read are skipped (the
// render reports them).
func PeakFrame(w, h int, edits []Edit) (int, int) {
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	return grownFrame(w, h, edits, order)
}

// cropAndPadFrame is the frame crop_and_pad makes of a w x h image before it
// resizes back (when asked to): a positive percent pads each side.
func cropAndPadFrame(w, h int, pct float64) (int, int) {
	dx := int(math.Round(pct * float64(w)))
	dy := int(math.Round(pct * float64(h)))
	return max(w, w+2*dx), max(h, h+2*dy)
}
