package engine

import (
	"bytes"
	"image"
	"image/color"
	"math"

	"github.com/darkroom-mcp/darkroom"
)

// LabelMaskSizeError is the code DecodeLabelMask gives a mask whose header states
// another size than the image it labels: invalid_input, with the two sizes in
// details (mask_width, mask_height, width, height), so a caller can say it in its
// own terms.
const LabelMaskSizeError = darkroom.InvalidInput

// DecodeLabelMask decodes a label mask for a w x h image: a PNG whose pixels are
// class ids, 8- or 16-bit grey or paletted. It goes the way every decode goes:
// the header first (ReadHeader), then a check that the mask is w x h and of a
// label colour model, then what the decoder will allocate is taken from the
// decode budget (less opt.Reserved), and only then are pixels decoded. So a file
// that declares a size other than the image's, or colours, is refused from its
// header with nothing allocated, whatever it claims. Errors are invalid_input
// (not a PNG, not a label model, the wrong size) or the budget's limit_exceeded.
func DecodeLabelMask(data []byte, w, h int, opt DecodeOptions) (image.Image, error) {
	// The size is compared before the pixel cap: a mask the size of no image says
	// so, whatever it claims.
	hd, err := ReadHeader(data, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	if hd.Format != "png" {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "label mask: a label mask is a PNG, not a %s file", hd.Format)
	}
	if hd.Width != w || hd.Height != h {
		e := darkroom.Errorf(LabelMaskSizeError, "label mask: the mask is %dx%d, the image %dx%d", hd.Width, hd.Height, w, h)
		e.Details = map[string]any{"mask_width": hd.Width, "mask_height": hd.Height, "width": w, "height": h}
		return nil, e
	}
	maxPixels := opt.MaxPixels
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if err := checkSize("png", w, h, maxPixels); err != nil {
		return nil, err
	}
	switch hd.ColorModel {
	case color.GrayModel, color.Gray16Model:
	default:
		if _, ok := hd.ColorModel.(color.Palette); !ok {
			return nil, darkroom.Errorf(darkroom.InvalidInput, "label mask: a label mask is a grey or paletted PNG (its values are the labels), not colour")
		}
	}
	release, err := decodeBudget.acquire(opt.Context, "png", w, h, hd.DecodeBytes-opt.Reserved)
	if err != nil {
		return nil, err
	}
	defer release()
	var m image.Image
	if err := guard("png", func() (err error) {
		m, err = codecs["png"].decode(bytes.NewReader(data))
		return err
	}); err != nil {
		return nil, err
	}
	if b := m.Bounds(); b.Dx() != w || b.Dy() != h {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "label mask: the decoder gave %dx%d for a header of %dx%d", b.Dx(), b.Dy(), w, h)
	}
	return m, nil
}
