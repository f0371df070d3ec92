package engine

import (
	"bytes"
	"image"
	"image/color"
	"math"

	"github.com/darkroom-mcp/darkroom"
)

// CheckLabelMask makes DecodeLabelMask's checks from the mask's header alone,
// decoding nothing: a caller checks a mask before it decodes the image it labels.
// A mask of another size is invalid_input with both sizes in details
// (mask_width, mask_height, width, height), for the caller to say in its terms.
func CheckLabelMask(data []byte, w, h int, maxPixels int64) (Header, error) {
	// The size is compared before the pixel cap: a mask the size of no image says
	// so, whatever it claims.
	hd, err := ReadHeader(data, math.MaxInt64)
	if err != nil {
		return Header{}, err
	}
	if hd.Format != "png" {
		return Header{}, darkroom.Errorf(darkroom.InvalidInput, "label mask: a label mask is a PNG, not a %s file", hd.Format)
	}
	if hd.Width != w || hd.Height != h {
		e := darkroom.Errorf(darkroom.InvalidInput, "label mask: the mask is %dx%d, the image %dx%d", hd.Width, hd.Height, w, h)
		e.Details = map[string]any{"mask_width": hd.Width, "mask_height": hd.Height, "width": w, "height": h}
		return Header{}, e
	}
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if err := checkSize("png", w, h, maxPixels); err != nil {
		return Header{}, err
	}
	switch hd.ColorModel {
	case color.GrayModel, color.Gray16Model:
	default:
		if _, ok := hd.ColorModel.(color.Palette); !ok {
			return Header{}, darkroom.Errorf(darkroom.InvalidInput, "label mask: a label mask is a grey or paletted PNG (its values are the labels), not colour")
		}
	}
	return hd, nil
}

// DecodeLabelMask decodes a label mask for a w x h image: a PNG whose pixels are
// class ids, 8- or 16-bit grey or paletted. It goes the way every decode goes:
// the header first (ReadHeader), then a check that the mask is w x h and of a
// label colour model, then what the decoder will allocate is taken from the
// decode budget (less opt.Reserved), and only then are pixels decoded. So a file
// that declares a size other than the image's, or colours, is refused from its
// header with nothing allocated, whatever it claims. Errors are invalid_input
// (not a PNG, not a label model, the wrong size) or the budget's limit_exceeded.
func DecodeLabelMask(data []byte, w, h int, opt DecodeOptions) (image.Image, error) {
	hd, err := CheckLabelMask(data, w, h, opt.MaxPixels)
	if err != nil {
		return nil, err
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
