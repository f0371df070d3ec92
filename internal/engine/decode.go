package engine

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"sort"
	"sync/atomic"

	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"darkroom"
	"darkroom/internal/jpegdec"
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
	// Context, when set, ends a wait for the decode budget (see SetDecodeBudget).
	Context context.Context
}

// Source is a decoded photo.
type Source struct {
	// Image is upright (EXIF orientation applied) linear-light RGB.
	Image *Image
	// Format is jpeg, png, tiff, webp or gif.
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
	"jpeg": {jpeg.DecodeConfig, func(r io.Reader) (image.Image, error) { return jpegdec.Decode(r, jpegdec.Options{}) }},
	"png":  {png.DecodeConfig, png.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode},
	"tiff": {tiff.DecodeConfig, tiff.Decode},
	"webp": {webp.DecodeConfig, webp.Decode},
}

// Decode reads a JPEG, PNG, TIFF, WebP or GIF (first frame) into linear-light RGB,
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
	d, err := decodeFile(opt.Context, data, opt.MaxPixels, opt.MaxLongEdge, cost)
	if err != nil {
		return nil, err
	}
	*release = d.release
	src, conv, w, h, o := d.src, d.conv, d.w, d.h, d.o
	if opt.MaxLongEdge > 0 && max(w, h) > opt.MaxLongEdge {
		tw, th := FitLongEdge(src.Width, src.Height, opt.MaxLongEdge)
		if o >= 5 {
			tw, th = th, tw // resample as stored, then turn the small result upright
		}
		var img *Image
		if k := boxFactor(w, h, tw, th); k > 1 {
			rows, scratch := boxRows(conv, w, h, k)
			img = resample(rows, scratch, (w+k-1)/k, (h+k-1)/k, tw, th, 1)
		} else {
			rows := func(y int, scratch []float32) []float32 {
				conv(y, scratch)
				return scratch
			}
			img = resample(rows, 3*w, w, h, tw, th, 1)
		}
		src.Image = orient(img, o)
	} else {
		src.Image = convertOriented(w, h, o, conv)
	}
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
	// release gives back the decode budget the decode holds; the caller calls it
	// once the decoder's image and what was made from it are garbage.
	release func()
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
			decode = func(r io.Reader) (image.Image, error) { return jpegdec.Decode(r, jpegdec.Options{Scale: scale}) }
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
		return "", darkroom.Errorf(darkroom.InvalidInput, "decode: %s files are not supported (use JPEG, PNG, TIFF, WebP or GIF)", other)
	}
	return "", darkroom.Errorf(darkroom.InvalidInput, "decode: not a JPEG, PNG, TIFF, WebP or GIF file")
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

// readMetadata fills EXIF, Meta and the colour-profile warning from the container.
// Metadata never fails a decode: what cannot be read becomes a warning.
func (s *Source) readMetadata(data []byte) {
	s.Meta = EXIFSummary{Orientation: 1}
	var exif, icc []byte
	var iccBroken bool
	switch s.Format {
	case "jpeg":
		exif, icc, iccBroken = jpegMetadata(data)
	case "png":
		exif, icc, iccBroken = pngMetadata(data)
	case "webp":
		exif, icc = webpMetadata(data)
	case "tiff":
		if m, err := parseEXIF(data); err == nil {
			s.Meta = m
			if m.Make != "" || m.Model != "" || m.LensModel != "" || m.FocalLength != 0 {
				s.EXIF = buildEXIF(m)
			}
		}
		icc = tiffICCProfile(data)
	}
	if exif != nil {
		if m, err := parseEXIF(exif); err == nil {
			s.Meta = m
			s.EXIF = bytes.Clone(exif) // never alias the caller's buffer
		} else {
			s.Warnings = append(s.Warnings, "the EXIF block is malformed and was ignored (orientation not applied)")
		}
	}
	switch {
	case iccBroken:
		s.Warnings = append(s.Warnings, "embedded ICC profile could not be read: colours were read as sRGB and may be off")
	case icc != nil:
		if w := iccWarning(icc); w != "" {
			s.Warnings = append(s.Warnings, w)
		}
	}
}

// jpegMetadata walks the marker segments before the first scan and returns the APP1
// EXIF payload and the ICC profile reassembled from its APP2 chunks (broken reports a
// profile whose chunks are missing or inconsistent).
func jpegMetadata(b []byte) (exif, icc []byte, broken bool) {
	chunks := map[int][]byte{}
	total := 0
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			break
		}
		m := b[i+1]
		switch {
		case m == 0xFF: // fill byte
			i++
			continue
		case m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			i += 2
			continue
		case m == 0xDA || m == 0xD9: // start of scan, end of image: no metadata after
			i = len(b)
			continue
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			break
		}
		seg := b[i+4 : i+2+n]
		switch {
		case m == 0xE1 && exif == nil && bytes.HasPrefix(seg, []byte("Exif\x00\x00")):
			exif = seg[6:]
		case m == 0xE2 && bytes.HasPrefix(seg, []byte("ICC_PROFILE\x00")) && len(seg) >= 14:
			seq, count := int(seg[12]), int(seg[13])
			if total == 0 {
				total = count
			}
			if seq < 1 || seq > count || count != total || chunks[seq] != nil {
				broken = true
			}
			chunks[seq] = seg[14:]
		}
		i += 2 + n
	}
	if len(chunks) == 0 {
		return exif, nil, false
	}
	if len(chunks) != total {
		return exif, nil, true
	}
	seqs := make([]int, 0, len(chunks))
	for k := range chunks {
		seqs = append(seqs, k)
	}
	sort.Ints(seqs)
	for _, k := range seqs {
		icc = append(icc, chunks[k]...)
	}
	return exif, icc, broken
}

// pngMetadata reads the eXIf chunk and the compressed iCCP profile.
func pngMetadata(b []byte) (exif, icc []byte, broken bool) {
	for i := 8; i+12 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		if n < 0 || n > len(b)-i-12 {
			break
		}
		typ, data := string(b[i+4:i+8]), b[i+8:i+8+n]
		switch typ {
		case "eXIf":
			exif = data
		case "iCCP":
			icc, broken = inflateICCP(data)
		case "IEND":
			return exif, icc, broken
		}
		i += 12 + n
	}
	return exif, icc, broken
}

// inflateICCP decodes an iCCP chunk: a profile name, a NUL, a compression method
// (0, zlib) and the compressed profile.
func inflateICCP(d []byte) ([]byte, bool) {
	nul := bytes.IndexByte(d, 0)
	if nul < 1 || nul+2 > len(d) || d[nul+1] != 0 {
		return nil, true
	}
	zr, err := zlib.NewReader(bytes.NewReader(d[nul+2:]))
	if err != nil {
		return nil, true
	}
	p, err := io.ReadAll(io.LimitReader(zr, maxICCProfile+1))
	if err != nil || len(p) > maxICCProfile {
		return nil, true
	}
	return p, false
}

// webpMetadata reads the EXIF and ICCP chunks of an extended (VP8X) WebP file.
func webpMetadata(b []byte) (exif, icc []byte) {
	for i := 12; i+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if n < 0 || n > len(b)-i-8 {
			break
		}
		data := b[i+8 : i+8+n]
		switch string(b[i : i+4]) {
		case "EXIF":
			// Some writers keep the JPEG APP1 prefix.
			exif = bytes.TrimPrefix(data, []byte("Exif\x00\x00"))
		case "ICCP":
			icc = data
		}
		i += 8 + n + n%2
	}
	return exif, icc
}

// rowConv converts row y (0-based within the image's bounds) of a decoded image into
// 3*width linear values in dst.
type rowConv func(y int, dst []float32)

// converter returns a row converter for m. The common decoder outputs get loops over
// their own pixel layout (no per-pixel interface calls); anything else goes through
// At. Transparent pixels are composited onto white in linear light, and the returned
// flag records that some were met.
func converter(m image.Image) (rowConv, *atomic.Bool) {
	alpha := new(atomic.Bool)
	b := m.Bounds()
	w := b.Dx()
	switch m := m.(type) {
	case *image.YCbCr:
		if b.Min.X >= 0 && b.Min.Y >= 0 {
			return ycbcrConv(m, nil, alpha), alpha
		}
	case *image.NYCbCrA:
		if b.Min.X >= 0 && b.Min.Y >= 0 {
			return ycbcrConv(&m.YCbCr, m, alpha), alpha
		}
	case *image.RGBA:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
			seen := false
			for x := range w {
				p := px[4*x : 4*x+4 : 4*x+4]
				d := dst[3*x : 3*x+3 : 3*x+3]
				if a := p[3]; a != 0xff {
					seen = true
					flatten8(d, unpremul8(p[0], a), unpremul8(p[1], a), unpremul8(p[2], a), a)
					continue
				}
				d[0], d[1], d[2] = lin8[p[0]], lin8[p[1]], lin8[p[2]]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.NRGBA:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
			seen := false
			for x := range w {
				p := px[4*x : 4*x+4 : 4*x+4]
				d := dst[3*x : 3*x+3 : 3*x+3]
				if a := p[3]; a != 0xff {
					seen = true
					flatten8(d, p[0], p[1], p[2], a)
					continue
				}
				d[0], d[1], d[2] = lin8[p[0]], lin8[p[1]], lin8[p[2]]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.RGBA64:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:8*w]
			seen := false
			for x := range w {
				p := px[8*x : 8*x+8 : 8*x+8]
				d := dst[3*x : 3*x+3 : 3*x+3]
				r, g, bl, a := be16(p[0:]), be16(p[2:]), be16(p[4:]), be16(p[6:])
				if a != 0xffff {
					seen = true
					flatten16(d, unpremul16(r, a), unpremul16(g, a), unpremul16(bl, a), a)
					continue
				}
				d[0], d[1], d[2] = lin16[r], lin16[g], lin16[bl]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.NRGBA64:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:8*w]
			seen := false
			for x := range w {
				p := px[8*x : 8*x+8 : 8*x+8]
				d := dst[3*x : 3*x+3 : 3*x+3]
				r, g, bl, a := be16(p[0:]), be16(p[2:]), be16(p[4:]), be16(p[6:])
				if a != 0xffff {
					seen = true
					flatten16(d, r, g, bl, a)
					continue
				}
				d[0], d[1], d[2] = lin16[r], lin16[g], lin16[bl]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.Gray:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:w]
			for x, v := range px {
				l := lin8[v]
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = l, l, l
			}
		}, alpha
	case *image.Gray16:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:2*w]
			for x := range w {
				l := lin16[be16(px[2*x:])]
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = l, l, l
			}
		}, alpha
	case *image.CMYK:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
			for x := range w {
				p := px[4*x : 4*x+4 : 4*x+4]
				r, g, bl := color.CMYKToRGB(p[0], p[1], p[2], p[3])
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = lin8[r], lin8[g], lin8[bl]
			}
		}, alpha
	case *image.Paletted:
		// Out-of-range indices (which At would panic on) read as black.
		var pal [256][3]float32
		var transparent [256]bool
		for i, c := range m.Palette {
			if i == len(pal) {
				break
			}
			n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
			flatten16(pal[i][:], n.R, n.G, n.B, n.A)
			transparent[i] = n.A != 0xffff
		}
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:w]
			seen := false
			for x, v := range px {
				d := dst[3*x : 3*x+3 : 3*x+3]
				p := &pal[v]
				d[0], d[1], d[2] = p[0], p[1], p[2]
				seen = seen || transparent[v]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	}
	return func(y int, dst []float32) {
		seen := false
		for x := range w {
			n := color.NRGBA64Model.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
			flatten16(dst[3*x:3*x+3], n.R, n.G, n.B, n.A)
			seen = seen || n.A != 0xffff
		}
		if seen {
			alpha.Store(true)
		}
	}, alpha
}

// ycbcrConv converts with the same integer arithmetic as color.YCbCrToRGB (so results
// match the standard library's At), nearest-neighbour chroma as it does, then the
// sRGB-to-linear table. a, when not nil, supplies non-premultiplied alpha.
func ycbcrConv(m *image.YCbCr, a *image.NYCbCrA, alpha *atomic.Bool) rowConv {
	b := m.Rect
	w := b.Dx()
	hs, vs := chromaShifts(m.SubsampleRatio)
	return func(y int, dst []float32) {
		ay := b.Min.Y + y
		yrow := m.Y[m.YOffset(b.Min.X, ay):][:w]
		c0 := (ay>>vs - b.Min.Y>>vs) * m.CStride
		x0 := b.Min.X >> hs
		cb, cr := m.Cb[c0:], m.Cr[c0:]
		var arow []uint8
		if a != nil {
			arow = a.A[a.AOffset(b.Min.X, ay):][:w]
		}
		if hs == 1 && b.Min.X%2 == 0 && arow == nil {
			ycbcrPairs(dst, yrow, cb, cr)
			return
		}
		seen := false
		for x, yy := range yrow {
			ci := (b.Min.X+x)>>hs - x0
			r, g, bl := ycbcrRGB(yy, cb[ci], cr[ci])
			d := dst[3*x : 3*x+3 : 3*x+3]
			if arow != nil && arow[x] != 0xff {
				seen = true
				flatten8(d, clamp8(r), clamp8(g), clamp8(bl), arow[x])
				continue
			}
			d[0], d[1], d[2] = lin8[clamp8(r)], lin8[clamp8(g)], lin8[clamp8(bl)]
		}
		if seen {
			alpha.Store(true)
		}
	}
}

// ycbcrRGB is color.YCbCrToRGB's integer arithmetic, before clamp8 takes each
// 16.16 result to 0..255 (kept apart so that both inline into pixel loops).
func ycbcrRGB(y, cb, cr uint8) (r, g, b int32) {
	y1 := int32(y) * 0x10101
	cb1 := int32(cb) - 128
	cr1 := int32(cr) - 128
	return y1 + 91881*cr1, y1 - 22554*cb1 - 46802*cr1, y1 + 116130*cb1
}

// chromaShifts returns the shifts that take a luma column and row to its chroma
// sample's under ratio r.
func chromaShifts(r image.YCbCrSubsampleRatio) (hs, vs uint) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return 1, 0
	case image.YCbCrSubsampleRatio420:
		return 1, 1
	case image.YCbCrSubsampleRatio440:
		return 0, 1
	case image.YCbCrSubsampleRatio411:
		return 2, 0
	case image.YCbCrSubsampleRatio410:
		return 2, 1
	}
	return 0, 0
}

// ycbcrPairs converts a row whose chroma is shared by pixel pairs (4:2:0 and 4:2:2,
// what cameras write): the chroma terms are computed once per pair. It is the hot
// loop of decoding a photo, so it avoids everything but the arithmetic.
func ycbcrPairs(dst []float32, yrow, cb, cr []uint8) {
	n := len(yrow) / 2
	cb, cr = cb[:(len(yrow)+1)/2], cr[:(len(yrow)+1)/2]
	dst = dst[:3*len(yrow)]
	for i := range n {
		cb1 := int32(cb[i]) - 128
		cr1 := int32(cr[i]) - 128
		rc, gc, bc := 91881*cr1, -22554*cb1-46802*cr1, 116130*cb1
		y0, y1 := int32(yrow[2*i])*0x10101, int32(yrow[2*i+1])*0x10101
		d := dst[6*i : 6*i+6 : 6*i+6]
		d[0], d[1], d[2] = lin8[clamp8(y0+rc)], lin8[clamp8(y0+gc)], lin8[clamp8(y0+bc)]
		d[3], d[4], d[5] = lin8[clamp8(y1+rc)], lin8[clamp8(y1+gc)], lin8[clamp8(y1+bc)]
	}
	if len(yrow)%2 == 1 {
		cb1 := int32(cb[n]) - 128
		cr1 := int32(cr[n]) - 128
		y0 := int32(yrow[2*n]) * 0x10101
		d := dst[6*n : 6*n+3 : 6*n+3]
		d[0], d[1], d[2] = lin8[clamp8(y0+91881*cr1)], lin8[clamp8(y0-22554*cb1-46802*cr1)], lin8[clamp8(y0+116130*cb1)]
	}
}

// clamp8 takes a 16.16 fixed-point value to 0..255 as color.YCbCrToRGB does.
func clamp8(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}

func be16(p []byte) uint16 { return uint16(p[0])<<8 | uint16(p[1]) }

func unpremul8(c, a uint8) uint8 {
	if a == 0 {
		return 0
	}
	return uint8(min(255, (uint32(c)*255+uint32(a)/2)/uint32(a)))
}

func unpremul16(c, a uint16) uint16 {
	if a == 0 {
		return 0
	}
	return uint16(min(0xffff, (uint32(c)*0xffff+uint32(a)/2)/uint32(a)))
}

// flatten8 composites a non-premultiplied colour onto white, in linear light where
// coverage mixes physically.
func flatten8(d []float32, r, g, b, a uint8) {
	k := float32(a) / 255
	d[0], d[1], d[2] = lin8[r]*k+1-k, lin8[g]*k+1-k, lin8[b]*k+1-k
}

func flatten16(d []float32, r, g, b, a uint16) {
	k := float32(a) / 0xffff
	d[0], d[1], d[2] = lin16[r]*k+1-k, lin16[g]*k+1-k, lin16[b]*k+1-k
}

// orientStep says where row y of a w x h stored image lands in the upright image
// under EXIF orientation o: its pixel x goes to upright pixel index start + x*step.
// Orientations 5 to 8 swap width and height.
func orientStep(o, w, h, y int) (start, step int) {
	switch o {
	case 2: // mirrored left-right
		return y*w + w - 1, -1
	case 3: // rotated 180
		return (h-1-y)*w + w - 1, -1
	case 4: // mirrored top-bottom
		return (h - 1 - y) * w, 1
	case 5: // transposed
		return y, h
	case 6: // stored rotated 90 counter-clockwise: turn clockwise
		return h - 1 - y, h
	case 7: // transversed
		return (w-1)*h + h - 1 - y, -h
	case 8: // stored rotated 90 clockwise: turn counter-clockwise
		return (w-1)*h + y, -h
	}
	return y * w, 1
}

// convertOriented converts a w x h decoded image into an upright float image in one
// pass, writing each converted row straight to where the orientation puts it, so a
// rotated photo costs no second full-size copy.
func convertOriented(w, h, o int, conv rowConv) *Image {
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	out := NewImage(ow, oh)
	if o < 1 || o > 8 {
		o = 1
	}
	parallelN(h, minRows(w), func(y0, y1 int) {
		var scratch []float32
		if o != 1 {
			scratch = make([]float32, 3*w)
		}
		for y := y0; y < y1; y++ {
			if o == 1 {
				conv(y, out.Pix[3*y*w:3*(y+1)*w])
				continue
			}
			conv(y, scratch)
			scatter(out.Pix, scratch, o, w, h, y)
		}
	})
	return out
}

// orient returns m turned upright under EXIF orientation o (m itself for 1).
func orient(m *Image, o int) *Image {
	if o <= 1 || o > 8 {
		return m
	}
	ow, oh := m.W, m.H
	if o >= 5 {
		ow, oh = m.H, m.W
	}
	out := NewImage(ow, oh)
	parallelN(m.H, minRows(m.W), func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			scatter(out.Pix, m.Pix[3*y*m.W:3*(y+1)*m.W], o, m.W, m.H, y)
		}
	})
	return out
}

func scatter(dst, row []float32, o, w, h, y int) {
	start, step := orientStep(o, w, h, y)
	d, s3 := 3*start, 3*step
	for x := range w {
		p := row[3*x : 3*x+3 : 3*x+3]
		q := dst[d : d+3 : d+3]
		q[0], q[1], q[2] = p[0], p[1], p[2]
		d += s3
	}
}
