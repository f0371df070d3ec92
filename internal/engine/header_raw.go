package engine

import (
	"image/color"

	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// readDNGHeader is ReadHeader for a DNG: the size is the developed image's
// (DefaultCrop applied; upright once Orientation is), which is what Decode gives
// and what a dataset's labels refer to, not the size of IFD0 (often the embedded
// preview) that a TIFF reader would see.
func readDNGHeader(data []byte, maxPixels int64) (Header, error) {
	f, err := raw.Probe(data, maxPixels)
	if err != nil {
		return Header{}, err
	}
	w, h := f.OutSize(false)
	if err := checkSize("dng", w, h, maxPixels); err != nil {
		return Header{}, err
	}
	hd := Header{Format: "dng", Width: w, Height: h, UprightWidth: w, UprightHeight: h,
		ColorModel: color.RGBA64Model, DecodeBytes: f.Bytes(false)}
	if o := f.Meta.Orientation; o >= 5 && o <= 8 {
		hd.UprightWidth, hd.UprightHeight = h, w
	}
	return hd, nil
}

// ReadFormats names the formats Decode reads by itself, for the errors that refuse
// a file as none of them (camera raws other than DNG are read when LibRaw is
// installed, and refused with their own error when it is not).
const ReadFormats = "JPEG, PNG, TIFF, WebP, GIF or DNG"
