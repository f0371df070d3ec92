package engine

// Camera raw files: a DNG is developed by internal/raw into linear sRGB floats
// (scene-referred: values above 1 are kept) and handed to the rest of decode as a
// row converter, so previews, the proxy cache, the band plan and export read it as
// they read any decoded file.

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// decodeDNG is decodeFile for a DNG. When shrinkTo asks for at most the binned
// size (half the developed size for a Bayer mosaic, about a third for X-Trans:
// File.OutSize(true)), the mosaic is binned 2x2 (3x3) instead of demosaiced (a
// quarter, a ninth, of the pixels, no interpolation): a 24-megapixel DNG's first
// preview never pays for a full demosaic. Otherwise it is demosaiced (RCD for
// Bayer, lin_interpolate for X-Trans).
func decodeDNG(ctx context.Context, data []byte, maxPixels int64, shrinkTo int, floatCost func(w, h, o int) int64) (*decoded, error) {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	f, err := raw.Probe(data, maxPixels)
	if err != nil {
		return nil, err
	}
	fw, fh := f.OutSize(false)
	bw, bh := f.OutSize(true)
	half := shrinkTo > 0 && max(fw, fh) >= 2*shrinkTo && max(bw, bh) >= shrinkTo
	w, h := f.OutSize(half)
	if err := checkSize("dng", w, h, maxPixels); err != nil {
		return nil, err
	}
	m := f.Meta
	src := &Source{Format: "dng", Width: fw, Height: fh}
	src.Meta = EXIFSummary{Orientation: m.Orientation, Make: m.Make, Model: m.Model, LensModel: m.LensModel, FocalLength: m.FocalLength,
		ISO: m.ISO, ExposureTime: m.ExposureTime, FNumber: m.FNumber}
	if m.Make != "" || m.Model != "" || m.LensModel != "" || m.FocalLength != 0 {
		src.EXIF = buildEXIF(src.Meta)
	}
	src.Warnings = append(src.Warnings, f.Warnings...)
	o := m.Orientation
	if o >= 5 {
		src.Width, src.Height = src.Height, src.Width
	}
	release, err := decodeBudget.acquire(ctx, "dng", fw, fh, f.Bytes(half)+floatCost(fw, fh, o))
	if err != nil {
		return nil, err
	}
	img, err := f.Decode(raw.Options{Half: half})
	if err != nil {
		release()
		return nil, err
	}
	conv := func(y int, dst []float32) { copy(dst[:3*w], img.Pix[3*y*w:]) }
	return &decoded{src: src, conv: conv, alpha: new(atomic.Bool), w: w, h: h, o: o, release: release, white: math.MaxFloat32}, nil
}
