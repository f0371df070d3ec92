package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"sync/atomic"

	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/jpegdec"
	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// DefaultMaxPixels is the pixel cap used when DecodeOptions.MaxPixels is zero: 250
// megapixels, above any camera and far below what a decompression bomb claims.
const DefaultMaxPixels = 250_000_000

// maxICCProfile bounds the inflated size of a PNG's compressed ICC profile (real
// profiles are a few kilobytes, rarely a megabyte).
const maxICCProfile = 8 << 20

// DecodeOptions bound and shape a decode.
type DecodeOptions struct {
	// MaxPixels caps width x height as the file's header states it, checked before
	// any pixel memory is allocated; 0 means DefaultMaxPixels.
	MaxPixels int64
	// MaxLongEdge, when positive, shrinks an image whose long edge is longer while
	// decoding, without ever building the full-size float image: the way to make a
	// preview proxy of a large photo cheaply. It filters in linear light like Resize,
	// but a reduction of 2.8x or more first averages blocks of 2x2 or more pixels
	// (see boxRows), which is a little softer than Resize and several times cheaper.
	MaxLongEdge int
	// Context, when set, ends a wait for the decode budget (see SetDecodeBudget);
	// a decode shrunk by MaxLongEdge whose context ends stops between rows (the
	// format's own decoder, which runs first, is not interrupted).
	Context context.Context
	// Rows, when set, is told as a decode shrunk by MaxLongEdge converts the
	// stored rows: how many are done of how many, every few dozen rows, done
	// increasing from call to call.
	Rows func(done, total int)
	// Reserved is decode budget the caller already holds for this decode (a
	// Reservation of its working set that counts Header.DecodeCost): the decode
	// takes from the budget only what it needs beyond it, and none when it fits.
	Reserved int64
}

// Source is a decoded photo.
type Source struct {
	// Image is upright (EXIF orientation applied) linear-light RGB.
	Image *Image
	// Format is jpeg, png, tiff, webp, gif or dng.
	Format string
	// Width and Height are the full-resolution upright size, which Image has unless
	// DecodeOptions.MaxLongEdge shrank it.
	Width, Height int
	// EXIF is the file's EXIF block (a TIFF structure, "II*\x00" or "MM\x00*"), nil
	// when there is none. For a TIFF file it is rebuilt from Meta, since a TIFF's own
	// tags cannot be carried into another file as they are.
	EXIF []byte
	// Meta summarizes EXIF.
	Meta EXIFSummary
	// Warnings say what the caller should know about how the file was read (a colour
	// profile that is not sRGB, transparency flattened onto white).
	Warnings []string
}

type codec struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

var codecs = map[string]codec{
	"jpeg": {jpeg.DecodeConfig, func(r io.Reader) (image.Image, error) { return jpegdec.Decode(r, jpegDecodeOptions(1)) }},
	"png":  {png.DecodeConfig, png.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode},
	"tiff": {tiff.DecodeConfig, tiff.Decode},
	"webp": {webp.DecodeConfig, webp.Decode},
}

// jpegDecodeOptions are the options of a JPEG decode at scale: on the caller's
// goroutine alone when other work holds the other cores (see Occupy).
func jpegDecodeOptions(scale int) jpegdec.Options {
	return jpegdec.Options{Scale: scale, Serial: !freeCores()}
}

// Decode reads a JPEG, PNG, TIFF, WebP, GIF (first frame) or DNG into linear-light RGB,
// applying the EXIF orientation. It returns limit_exceeded when the header states more
// pixels than opt.MaxPixels, or an image whose decode alone needs more memory than the
// decode budget (SetDecodeBudget); it waits while other decodes hold the budget, and
// returns limit_exceeded too when that wait ends first. A corrupt, truncated or unsupported
// file is invalid_input; the decoders' own panics on hostile input are too.
func Decode(data []byte, opt DecodeOptions) (*Source, error) {
	var release func()
	// Deferred, so a panic in a decoder or an operation (which the server recovers and
	// goes on from) gives the budget back too; here decode's buffers are garbage.
	defer func() {
		if release != nil {
			release()
		}
	}()
	return decode(data, opt, &release)
}

func decode(data []byte, opt DecodeOptions, release *func()) (*Source, error) {
	if streamPNG && opt.MaxLongEdge > 0 && bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
		if src, ok, err := decodePNGProxy(data, opt, release); ok {
			return src, err
		}
	}
	// cost is what the float side holds: a proxy (and its upright copy, and the
	// box-averaged rows that feed it), or the full-size image.
	cost := func(w, h, o int) int64 {
		if opt.MaxLongEdge > 0 && max(w, h) > opt.MaxLongEdge {
			tw, th := FitLongEdge(w, h, opt.MaxLongEdge)
			return 2*floatBytes(tw, th) + floatBytes(w, 16)
		}
		return floatBytes(w, h)
	}
	// What the caller's reservation holds is not taken again (the decoder's bytes
	// and the float side are counted together: decodeFile adds them).
	charged := func(w, h, o int) int64 { return cost(w, h, o) - opt.Reserved }
	d, err := decodeFile(opt.Context, data, opt.MaxPixels, opt.MaxLongEdge, charged)
	if err != nil {
		return nil, err
	}
	*release = d.release
	src, conv, w, h, o := d.src, d.conv, d.w, d.h, d.o
	if opt.MaxLongEdge > 0 && max(w, h) > opt.MaxLongEdge {
		var stop func() error
		conv, stop = watchRows(opt.Context, conv, h, opt.Rows)
		tw, th := FitLongEdge(src.Width, src.Height, opt.MaxLongEdge)
		if o >= 5 {
			tw, th = th, tw // resample as stored, then turn the small result upright
		}
		var img *Image
		if k := boxFactor(w, h, tw, th); k > 1 {
			rows, scratch := boxRows(conv, w, h, k)
			img = resample(rows, scratch, (w+k-1)/k, (h+k-1)/k, tw, th, d.maxValue())
		} else {
			rows := func(y int, scratch []float32) []float32 {
				conv(y, scratch)
				return scratch
			}
			img = resample(rows, 3*w, w, h, tw, th, d.maxValue())
		}
		if err := stop(); err != nil {
			return nil, err
		}
		src.Image = orient(img, o)
	} else {
		src.Image = convertOriented(w, h, o, conv)
	}
	// Converted: nothing reads the decoder's planes again, so the next JPEG decode
	// can fill them.
	jpegdec.Release(d.m)
	d.finish()
	return src, nil
}

// decoded is a file read by its decoder but not yet converted to linear light.
type decoded struct {
	// src has everything but Image.
	src   *Source
	m     image.Image
	conv  rowConv
	alpha *atomic.Bool
	// w and h are the stored size, o the EXIF orientation (1 to 8).
	w, h, o int
	// white is the largest value conv gives: 0 means 1 (a display-referred file);
	// a camera raw's scene-referred values have no such bound.
	white float32
	// release gives back the decode budget the decode holds; the caller calls it
	// once the decoder's image and what was made from it are garbage.
	release func()
}

// maxValue is the largest value the decoded rows hold.
func (d *decoded) maxValue() float32 {
	if d.white == 0 {
		return 1
	}
	return d.white
}

// finish adds the warnings that converting the pixels gave.
func (d *decoded) finish() {
	if d.alpha.Load() {
		d.src.Warnings = append(d.src.Warnings, "transparent pixels were flattened onto white")
	}
}

// decodeFile runs the format's decoder on data, with Decode's checks and errors.
// When shrinkTo is positive, a JPEG whose long edge is several times longer is
// decoded at 1/2, 1/4 or 1/8 of its size in the DCT domain (see jpegScale), so the
// stored size (decoded.w and h) may be smaller than the source's (Source.Width and
// Height).
//
// Before decoding, it takes from the decode budget what the decoder will allocate
// plus floatCost(w, h, o) of the full-resolution stored size and orientation (what
// the caller will make of it); the returned decoded.release gives it back.
func decodeFile(ctx context.Context, data []byte, maxPixels int64, shrinkTo int, floatCost func(w, h, o int) int64) (*decoded, error) {
	switch kind := raw.Kind(data); kind {
	case "":
	case "dng":
		return decodeDNG(ctx, data, maxPixels, shrinkTo, floatCost)
	default:
		return decodeCameraRaw(ctx, data, kind, maxPixels, shrinkTo, floatCost)
	}
	format, err := sniff(data)
	if err != nil {
		return nil, err
	}
	c := codecs[format]
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	var cfg image.Config
	if err := guard(format, func() (err error) {
		cfg, err = c.config(bytes.NewReader(data))
		return err
	}); err != nil {
		return nil, err
	}
	if err := checkSize(format, cfg.Width, cfg.Height, maxPixels); err != nil {
		return nil, err
	}

	src := &Source{Format: format}
	src.readMetadata(data)

	decode := c.decode
	scale := 1
	if format == "jpeg" && shrinkTo > 0 {
		if scale = jpegScale(max(cfg.Width, cfg.Height), shrinkTo); scale > 1 {
			decode = func(r io.Reader) (image.Image, error) { return jpegdec.Decode(r, jpegDecodeOptions(scale)) }
		}
	}
	o := src.Meta.Orientation
	if o < 1 || o > 8 {
		o = 1
	}
	release, err := decodeBudget.acquire(ctx, format, cfg.Width, cfg.Height,
		decoderBytes(format, data, cfg, scale)+floatCost(cfg.Width, cfg.Height, o))
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			release()
		}
	}()
	var m image.Image
	if err := guard(format, func() (err error) {
		m, err = decode(bytes.NewReader(data))
		return err
	}); err != nil {
		if truncated(format, data) {
			var e *darkroom.Error
			if errors.As(err, &e) && e.Err != nil {
				return nil, darkroom.Wrap(darkroom.InvalidInput, e.Err, "decode %s: the file is truncated", format)
			}
		}
		return nil, err
	}
	b := m.Bounds()
	// The frame can differ from the header (a GIF's first frame may be smaller than
	// its screen); never trust a decoder to have kept to what was checked.
	if err := checkSize(format, b.Dx(), b.Dy(), maxPixels); err != nil {
		return nil, err
	}

	conv, alpha := converter(m)
	w, h := b.Dx(), b.Dy()
	src.Width, src.Height = w, h
	if scale > 1 {
		src.Width, src.Height = cfg.Width, cfg.Height
	}
	if o >= 5 {
		src.Width, src.Height = src.Height, src.Width
	}
	ok = true
	return &decoded{src: src, m: m, conv: conv, alpha: alpha, w: w, h: h, o: o, release: release}, nil
}

// jpegScale is the DCT scaling (1, 2, 4 or 8) to decode a JPEG whose long edge is
// long at, to shrink it to a long edge of target: the largest that leaves the
// Lanczos pass after it at least a 1.4x reduction, as boxFactor does for the box
// averages of other formats, or that gives the target exactly. The DCT-domain
// reduction averages blocks of display values rather than linear light, as
// libjpeg's and libvips's shrink-on-load do: a little darker on fine bright detail,
// which a preview cannot show anyway, for a decode that skips most of the inverse
// DCT and the colour conversion.
func jpegScale(long, target int) int {
	for _, s := range []int{8, 4, 2} {
		if n := (long + s - 1) / s; n == target || float64(n) >= 1.4*float64(target) {
			return s
		}
	}
	return 1
}

// sniff names the format from the file's signature, and names the common formats it
// does not read so that the error tells the user what they gave.
func sniff(b []byte) (string, error) {
	has := func(off int, sig string) bool {
		return len(b) >= off+len(sig) && string(b[off:off+len(sig)]) == sig
	}
	switch {
	case has(0, "\xff\xd8"):
		return "jpeg", nil
	case has(0, "\x89PNG\r\n\x1a\n"):
		return "png", nil
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return "gif", nil
	case has(0, "II*\x00"), has(0, "MM\x00*"):
		return "tiff", nil
	case has(0, "RIFF") && has(8, "WEBP"):
		return "webp", nil
	}
	other := ""
	switch {
	case len(b) == 0:
		return "", darkroom.Errorf(darkroom.InvalidInput, "decode: the file is empty")
	case has(0, "BM"):
		other = "BMP"
	case has(4, "ftypheic"), has(4, "ftypheix"), has(4, "ftypmif1"), has(4, "ftypmsf1"):
		other = "HEIF"
	case has(4, "ftypavif"):
		other = "AVIF"
	case has(0, "\xff\x0a"), has(0, "\x00\x00\x00\x0cJXL "):
		other = "JPEG XL"
	case has(0, "8BPS"):
		other = "Photoshop (PSD)"
	case has(0, "%PDF"):
		other = "PDF"
	case has(0, "II\x2a\x00\x10\x00\x00\x00CR"), has(0, "\x00\x00\x00\x18ftypcrx"):
		other = "camera raw"
	}
	if other != "" {
		return "", darkroom.Errorf(darkroom.InvalidInput, "decode: %s files are not supported (use %s)", other, ReadFormats)
	}
	return "", darkroom.Errorf(darkroom.InvalidInput, "decode: not a %s file", ReadFormats)
}

func checkSize(format string, w, h int, maxPixels int64) error {
	if w <= 0 || h <= 0 {
		return darkroom.Errorf(darkroom.InvalidInput, "decode %s: the image has no pixels (%dx%d)", format, w, h)
	}
	if px := int64(w) * int64(h); px > maxPixels {
		e := darkroom.Errorf(darkroom.LimitExceeded, "decode %s: the image is %dx%d (%.1f megapixels), above the limit of %.1f megapixels",
			format, w, h, float64(px)/1e6, float64(maxPixels)/1e6)
		e.Details = map[string]any{"width": w, "height": h, "pixels": px, "max_pixels": maxPixels}
		return e
	}
	return nil
}

// guard runs a third-party decoder, turning its errors and its panics (the x/image
// decoders have panicked on crafted input before) into invalid_input.
func guard(format string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = darkroom.Errorf(darkroom.InvalidInput, "decode %s: malformed file (decoder failed: %v)", format, r)
		}
	}()
	if err := f(); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return darkroom.Wrap(darkroom.InvalidInput, err, "decode %s: the file is truncated", format)
		}
		return darkroom.Wrap(darkroom.InvalidInput, err, "decode %s", format)
	}
	return nil
}

// truncated reports a file that lacks the marker its format ends with, which is what
// a cut-off download or copy looks like; the decoders themselves report it in many
// ways ("short Huffman data", "not enough pixel data").
func truncated(format string, b []byte) bool {
	switch format {
	case "jpeg":
		return !bytes.HasSuffix(bytes.TrimRight(b, "\x00\r\n\t "), []byte{0xFF, 0xD9})
	case "png":
		return !bytes.Contains(b[max(0, len(b)-64):], []byte("IEND"))
	case "gif":
		return !bytes.HasSuffix(bytes.TrimRight(b, "\x00"), []byte{0x3B})
	case "webp":
		return len(b) >= 8 && uint64(binary.LittleEndian.Uint32(b[4:]))+8 > uint64(len(b))
	}
	return false
}
