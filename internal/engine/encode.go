package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/bytepool"
	"github.com/darkroom-mcp/darkroom/internal/jpegenc"
)

// DefaultQuality is the JPEG quality used when EncodeOptions.Quality is zero.
const DefaultQuality = 90

// maxEXIFSegment is the most EXIF data a JPEG APP1 segment holds: its 16-bit length
// counts itself and the "Exif\0\0" header too.
const maxEXIFSegment = 0xFFFF - 2 - 6

// EncodeOptions choose the output file.
type EncodeOptions struct {
	// Format is jpeg, png or tiff.
	Format string
	// Quality is the JPEG quality, 1 to 100; 0 means DefaultQuality.
	Quality int
	// Depth is the PNG bit depth, 8 or 16; 0 means 8. TIFF is always 16-bit.
	Depth int
	// FastPNG compresses a PNG at zlib's fastest level (1), OpenCV's default for
	// cv2.imwrite, instead of zlib's default (6): the same pixels, about 3x less
	// encoding time, a few percent more bytes. Augmented variants use it.
	FastPNG bool
	// EXIF is an EXIF block (Source.EXIF) to carry into a JPEG, written as an APP1
	// segment right after SOI with its orientation reset to 1, since the pixels are
	// already upright. PNG and TIFF output do not carry EXIF.
	EXIF []byte
	// Context, when set, stops a PNG or TIFF encode between bands of rows (64 rows
	// at a time): Encode returns the cancellation, as stopped says, and the file is
	// left incomplete for the caller's atomic writer to drop.
	Context context.Context
	// Rows, when set, is told after each band of rows a PNG or TIFF encoder has
	// written how many rows of the image are written: done increases to total, the
	// image's height.
	Rows func(done, total int)
}

// Encode writes img as sRGB, clamping values outside [0, 1]: JPEG (4:2:0, the
// quality given), PNG (8 or 16 bit, opaque) or TIFF (16-bit RGB, uncompressed).
// A bad option is invalid_input; a JPEG larger than 65535 pixels a side is
// limit_exceeded; an encoder or write failure is render_error.
func Encode(w io.Writer, img *Image, opt EncodeOptions) error {
	if img == nil || img.W <= 0 || img.H <= 0 || len(img.Pix) != 3*img.W*img.H {
		return darkroom.Errorf(darkroom.RenderError, "encode: not a valid image")
	}
	switch opt.Format {
	case "jpeg":
		return encodeJPEG(w, img, opt)
	case "png":
		depth := opt.Depth
		if depth == 0 {
			depth = 8
		}
		if depth != 8 && depth != 16 {
			return darkroom.Errorf(darkroom.InvalidInput, "encode png: depth %d is not 8 or 16", opt.Depth)
		}
		if err := encodePNG(w, img, depth, opt); err != nil {
			if encodeStopped(err, opt) {
				return err
			}
			return darkroom.Wrap(darkroom.RenderError, err, "encode png")
		}
		return nil
	case "tiff":
		if opt.Depth != 0 && opt.Depth != 16 {
			return darkroom.Errorf(darkroom.InvalidInput, "encode tiff: depth %d is not 16", opt.Depth)
		}
		if err := encodeTIFF16(w, img, opt); err != nil {
			if encodeStopped(err, opt) {
				return err
			}
			return darkroom.Wrap(darkroom.RenderError, err, "encode tiff")
		}
		return nil
	}
	return darkroom.Errorf(darkroom.InvalidInput, "encode: format %q is not jpeg, png or tiff", opt.Format)
}

// encodeStopped tells the error of an encode its context stopped (returned as it
// is: a cancel is not a render error).
func encodeStopped(err error, opt EncodeOptions) bool {
	return opt.Context != nil && opt.Context.Err() != nil && errors.Is(err, opt.Context.Err())
}

// encodeBand is called by the PNG and TIFF encoders before each band of rows
// (done of them written so far): it tells opt.Rows of the rows written, and says
// whether the context has ended.
func encodeBand(opt EncodeOptions, done, total int) error {
	if done > 0 && opt.Rows != nil {
		opt.Rows(done, total)
	}
	return stopped(opt.Context, "encode")
}

func encodeJPEG(w io.Writer, img *Image, opt EncodeOptions) error {
	return encodeJPEGBands(w, img.W, img.H, opt, 0, func(y0, y1 int, _ *bufPool) (*Image, func(), error) {
		return &Image{W: img.W, H: y1 - y0, Pix: img.Pix[3*y0*img.W : 3*y1*img.W]}, nil, nil
	})
}

// encodeJPEGBands is encodeJPEG of a width x height image whose rows band makes, at
// most maxBandBytes of float rows at a time per strip (see writeJPEGBands). An error
// of band is returned as it is, with its code; the others are Encode's.
func encodeJPEGBands(w io.Writer, width, height int, opt EncodeOptions, maxBandBytes int, band bandFunc) error {
	q := opt.Quality
	if q == 0 {
		q = DefaultQuality
	}
	if q < 1 || q > 100 {
		return darkroom.Errorf(darkroom.InvalidInput, "encode jpeg: quality %d is not between 1 and 100", q)
	}
	if width > 0xFFFF || height > 0xFFFF {
		return darkroom.Errorf(darkroom.LimitExceeded, "encode jpeg: %dx%d is larger than JPEG's 65535 pixels a side", width, height)
	}
	if opt.EXIF != nil {
		exif, err := exportEXIF(opt.EXIF, width, height)
		if err != nil {
			return darkroom.Wrap(darkroom.InvalidInput, err, "encode jpeg: exif")
		}
		if len(exif) > maxEXIFSegment {
			return darkroom.Errorf(darkroom.LimitExceeded, "encode jpeg: the EXIF block is %d bytes, more than a JPEG segment holds (%d)", len(exif), maxEXIFSegment)
		}
		seg := make([]byte, 0, 10+len(exif))
		seg = append(seg, 0xFF, 0xE1)
		seg = binary.BigEndian.AppendUint16(seg, uint16(2+6+len(exif)))
		seg = append(seg, "Exif\x00\x00"...)
		seg = append(seg, exif...)
		w = &app1Writer{w: w, seg: seg}
	}
	if err := writeJPEGBands(w, width, height, q, maxBandBytes, band); err != nil {
		var bad *bandError
		if errors.As(err, &bad) {
			return bad.err
		}
		return darkroom.Wrap(darkroom.RenderError, err, "encode jpeg")
	}
	return nil
}

// bandError carries the error of a bandFunc through writeJPEGBands unchanged.
type bandError struct{ err error }

func (e *bandError) Error() string { return e.err.Error() }
func (e *bandError) Unwrap() error { return e.err }

// app1Writer passes a JPEG stream through, inserting an APP1 segment after the
// two-byte SOI marker the encoder writes first.
type app1Writer struct {
	w    io.Writer
	seg  []byte
	head []byte
	done bool
}

func (a *app1Writer) Write(p []byte) (int, error) {
	if a.done {
		return a.w.Write(p)
	}
	n := len(p)
	take := min(2-len(a.head), len(p))
	a.head = append(a.head, p[:take]...)
	p = p[take:]
	if len(a.head) < 2 {
		return n, nil
	}
	if a.head[0] != 0xFF || a.head[1] != 0xD8 {
		return 0, errors.New("encoder output does not start with SOI")
	}
	a.done = true
	for _, b := range [][]byte{a.head, a.seg, p} {
		if _, err := a.w.Write(b); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// srgb8 maps linear light, quantized to 1/65535, to 8-bit sRGB. At that step the
// steepest part of the curve (slope 12.92 near black) moves the output by under 0.03
// of a level, so a table lookup replaces a power per channel; values decoded from 8
// bits come back exactly.
var srgb8 = sync.OnceValue(func() *[65536]uint8 {
	var t [65536]uint8
	for i := range t {
		t[i] = uint8(math.Round(linearToSRGB(float64(i)/65535) * 255))
	}
	return &t
})

// srgb8Padded is srgb8 with three more bytes, so a loop may read any entry as the
// low byte of four.
var srgb8Padded = sync.OnceValue(func() *[65536 + 3]uint8 {
	var t [65536 + 3]uint8
	copy(t[:], srgb8()[:])
	return &t
})

// srgb8Search is srgb8 as the thresholds of a binary search, for the AVX-512 loop,
// which compares where a table lookup would gather: srgb8[i] is the number of levels
// k in 1..255 whose first index T[k] (the least i with srgb8[i] >= k) is at most i.
// Step s of the search (s = 1..8, bit b = 256>>s) compares i with T[b + 2b*j], j
// the bits found so far; its thresholds sit at 32-entry block 0 (step 1, T[128] in
// every entry), 1 to 5 (steps 2 to 6), 6 and 7 (step 7) and 8 to 11 (step 8). Nil
// unless srgb8 rises from 0 to 255 without falling, which makes the count exact.
var srgb8Search = sync.OnceValue(func() *[12 * 32]uint16 {
	t := srgb8()
	if t[0] != 0 || t[65535] != 255 {
		return nil
	}
	var first [256]int // T[k]
	for i := 1; i < len(t); i++ {
		if t[i] < t[i-1] {
			return nil
		}
		for k := int(t[i-1]) + 1; k <= int(t[i]); k++ {
			first[k] = i
		}
	}
	var s [12 * 32]uint16
	for j := range 32 {
		s[j] = uint16(first[128])
	}
	block := [9]int{0, 0, 1, 2, 3, 4, 5, 6, 8} // by step
	for step := 2; step <= 8; step++ {
		b := 256 >> step
		for j := range 1 << (step - 1) {
			s[32*block[step]+j] = uint16(first[b+2*b*j])
		}
	}
	return &s
})

func quant8(t *[65536]uint8, v float32) uint8 {
	if !(v > 0) { // also NaN
		return 0
	}
	if v >= 1 {
		return 255
	}
	return t[int(v*65535+0.5)]
}

func quant16(v float32) uint16 {
	return uint16(LinearToSRGB(v)*65535 + 0.5)
}

// ycbcr420Rows converts the rows of band, and as many copies of its last row as make
// rows in all, into m (rows high), with the JPEG encoder's own integer arithmetic
// (color.RGBToYCbCr and the rounded 2x2 chroma average of its scale step), so the file
// is what encoding an RGBA image would give, from an image half the size. Columns past
// the band's last (m may be one wider) repeat it, as the encoder pads an RGBA image.
// sums is scratch of 2*ceil(m's width/2).
func ycbcr420Rows(band *Image, m *image.YCbCr, rows int, sums []int32) {
	w, mw := band.W, m.Rect.Dx()
	t, padded, search := srgb8(), srgb8Padded(), srgb8Search()
	wide := useAVX2 && useAVX512BW && search != nil // turning AVX2 off turns both off
	cw := (mw + 1) / 2
	cbSum, crSum := sums[:cw], sums[cw:2*cw]
	for cy := 0; 2*cy < rows; cy++ {
		clear(sums[:2*cw])
		n2 := min(2*cy+2, rows) - 2*cy
		for y := 2 * cy; y < 2*cy+n2; y++ {
			py := min(y, band.H-1)
			px := band.Pix[3*py*w : 3*(py+1)*w]
			yrow := m.Y[y*m.YStride:][:mw]
			// Pixel pairs share a chroma sample: sum both pixels' chroma at once,
			// eight pixels at a time where the CPU has AVX2.
			i0 := 0
			if wide && w >= 16 {
				n := w &^ 15
				ycbcrRowAVX512(&px[0], n, &search[0], &yrow[0], &cbSum[0], &crSum[0])
				i0 = n / 2
			}
			if useAVX2 && w-2*i0 >= 8 {
				n := (w - 2*i0) &^ 7
				ycbcrRowAVX2(&px[6*i0], n, &padded[0], &yrow[2*i0], &cbSum[i0], &crSum[i0])
				i0 += n / 2
			}
			for i := i0; i < w/2; i++ {
				p := px[6*i : 6*i+6 : 6*i+6]
				r0, g0, b0 := int32(quant8(t, p[0])), int32(quant8(t, p[1])), int32(quant8(t, p[2]))
				r1, g1, b1 := int32(quant8(t, p[3])), int32(quant8(t, p[4])), int32(quant8(t, p[5]))
				yrow[2*i] = uint8((19595*r0 + 38470*g0 + 7471*b0 + 1<<15) >> 16)
				yrow[2*i+1] = uint8((19595*r1 + 38470*g1 + 7471*b1 + 1<<15) >> 16)
				cbSum[i] += int32(clamp8(-11056*r0-21712*g0+32768*b0+257<<15)) + int32(clamp8(-11056*r1-21712*g1+32768*b1+257<<15))
				crSum[i] += int32(clamp8(32768*r0-27440*g0-5328*b0+257<<15)) + int32(clamp8(32768*r1-27440*g1-5328*b1+257<<15))
			}
			// An odd last column, and the copied column of a padded image.
			for x := w &^ 1; x < mw; x++ {
				sx := min(x, w-1)
				p := px[3*sx : 3*sx+3 : 3*sx+3]
				r, g, b := int32(quant8(t, p[0])), int32(quant8(t, p[1])), int32(quant8(t, p[2]))
				yrow[x] = uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 16)
				cbSum[x>>1] += int32(clamp8(-11056*r - 21712*g + 32768*b + 257<<15))
				crSum[x>>1] += int32(clamp8(32768*r - 27440*g - 5328*b + 257<<15))
			}
		}
		c := cy * m.CStride
		cb, cr := m.Cb[c:c+cw], m.Cr[c:c+cw]
		full := cw
		if n2 < 2 {
			full = 0
		} else if mw%2 == 1 {
			full = cw - 1
		}
		// Whole 2x2 blocks: a shift, not a division (sums are never negative).
		for i := range full {
			cb[i] = uint8((cbSum[i] + 2) >> 2)
			cr[i] = uint8((crSum[i] + 2) >> 2)
		}
		for i := full; i < cw; i++ {
			n := int32(n2 * min(2, mw-2*i))
			cb[i] = uint8((cbSum[i] + n/2) / n)
			cr[i] = uint8((crSum[i] + n/2) / n)
		}
	}
}

// bandFunc supplies rows [y0, y1) of an image to writeJPEGBands as an image of that
// many rows, and a function to call when they have been encoded (nil when there is
// nothing to give back). pool is the calling worker's own, for scratch.
type bandFunc func(y0, y1 int, pool *bufPool) (band *Image, done func(), err error)

// writeJPEGBands encodes a w x h image whose rows band supplies, with jpegenc
// (image/jpeg's encoder made faster, writing the same bytes) on every core: it cuts
// the image into strips of whole 16-row MCU rows, has band make each strip's rows and
// encodes each as a JPEG of its own, concurrently, and joins
// their entropy-coded data with restart markers (DRI and RSTn). A strip's scan starts
// with zero DC predictions and ends padded to a byte, which is exactly a restart
// interval, and strips cut on MCU boundaries quantize the same coefficients; so the
// pixels decoded are identical to those of one image/jpeg call on an RGBA image, in a
// fraction of the time, and no full-size YCbCr copy is made. maxBandBytes, when
// positive, bounds the float rows of a strip (what band makes), so that a render
// streamed through band holds only a few strips at once.
// jpegStrips is how many strips writeJPEGBands cuts an image of 64K pixels or more
// into (fewer when a stream bounds a strip's rows more tightly).
const jpegStrips = 8

func writeJPEGBands(w io.Writer, width, height, q int, maxBandBytes int, band bandFunc) error {
	mcuCols, mcuRows := (width+15)/16, (height+15)/16
	procs := runtime.GOMAXPROCS(0)
	// MCU rows a strip: all of them for a small image, else an eighth of them (about
	// four strips per core on two cores; DRI counts MCUs in 16 bits). Never from the
	// number of cores: the strips set the restart interval, so that would make
	// another file of the same pixels on a machine of another size.
	k := mcuRows
	if width*height >= 1<<16 {
		k = max(1, min((mcuRows+jpegStrips-1)/jpegStrips, 0xFFFF/mcuCols))
	}
	if maxBandBytes > 0 {
		k = max(1, min(k, maxBandBytes/(16*3*4*width)))
	}
	n := (mcuRows + k - 1) / k
	// image/jpeg pads an RGBA image's last MCU row and column with copies of the
	// last pixel row and column, so when a side is even but not a multiple of 16 the
	// chroma sample past the edge is that row's (column's) alone, not the average of
	// the last two; one more copied row (column) gives the same. The frame's size is
	// set back to the true one below.
	padX, padY := 0, 0
	if width%2 == 0 && width%16 != 0 {
		padX = 1
	}
	if height%2 == 0 && height%16 != 0 {
		padY = 1
	}
	type strip struct {
		data []byte
		err  error
	}
	done := make([]chan strip, n)
	for i := range done {
		done[i] = make(chan strip, 1) // never blocks a worker, even after a failure
	}
	var next atomic.Int64
	var stop atomic.Bool // set when the write fails: the strips left are not wanted
	defer stop.Store(true)
	for range min(procs, n) {
		go func() {
			rows := 16 * k
			buf := getStripImage(width+padX, rows)
			defer stripImages.Put(buf)
			sums := make([]int32, 2*((width+padX+1)/2))
			pool := &bufPool{}
			defer pool.recycle()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || stop.Load() {
					return
				}
				done[i] <- func() (s strip) {
					defer func() {
						if r := recover(); r != nil {
							s.err = fmt.Errorf("strip %d: %v", i, r)
						}
					}()
					y0, y1 := i*rows, min((i+1)*rows, height)
					b, release, err := band(y0, y1, pool)
					if err != nil {
						s.err = &bandError{err}
						return s
					}
					if release != nil {
						defer release()
					}
					n := y1 - y0
					if y1 == height {
						n += padY
					}
					m := *buf
					m.Rect = image.Rect(0, 0, width+padX, n)
					ycbcr420Rows(b, &m, n, sums)
					out := bytes.NewBuffer(strips.Get(width * n / 4))
					s.err = jpegenc.Encode(out, &m, q)
					s.data = out.Bytes()
					return s
				}()
			}
		}()
	}
	interval := 0
	if n > 1 {
		interval = k * mcuCols
	}
	for i := range n {
		s := <-done[i]
		if s.err != nil {
			return s.err
		}
		head, scan, err := splitJPEG(s.data)
		if err != nil {
			return err
		}
		if i == 0 {
			if head, err = frameHeader(head, width, height, interval); err != nil {
				return err
			}
			if _, err := w.Write(head); err != nil {
				return err
			}
		}
		if _, err := w.Write(scan); err != nil {
			return err
		}
		marker := []byte{0xFF, 0xD9} // EOI
		if i < n-1 {
			marker[1] = 0xD0 + byte(i%8) // RST0..RST7, cycling
		}
		if _, err := w.Write(marker); err != nil {
			return err
		}
		strips.Put(s.data)
	}
	return nil
}

// stripImages keeps the 4:2:0 planes the strip workers convert into, for the next
// image's workers.
var stripImages sync.Pool // of *image.YCbCr

func getStripImage(w, h int) *image.YCbCr {
	if m, ok := stripImages.Get().(*image.YCbCr); ok && m.Rect == image.Rect(0, 0, w, h) {
		return m
	}
	return image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
}

// strips keeps the byte buffers of strips already written, for the next strips (of
// this image or the next) to encode into.
var strips bytepool.Pool

// splitJPEG cuts one of jpegenc's (that is image/jpeg's) files into its headers (SOI to the end of the SOS
// segment) and its entropy-coded scan (without EOI).
func splitJPEG(b []byte) (head, scan []byte, err error) {
	for i := 2; i+4 <= len(b) && b[i] == 0xFF; {
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if b[i+1] == 0xDA {
			end := i + 2 + n
			if end > len(b)-2 || b[len(b)-2] != 0xFF || b[len(b)-1] != 0xD9 {
				break
			}
			return b[:end], b[end : len(b)-2], nil
		}
		i += 2 + n
	}
	return nil, nil, errors.New("unexpected image/jpeg output")
}

// frameHeader returns the headers of the first strip made fit for the whole image:
// the frame's size set to w x h and, when interval is not 0, a DRI segment (restart
// every interval MCUs) put before the SOS segment.
func frameHeader(head []byte, w, h, interval int) ([]byte, error) {
	out := make([]byte, 0, len(head)+6)
	sof := false
	for i := 2; i+4 <= len(head) && head[i] == 0xFF; {
		n := int(binary.BigEndian.Uint16(head[i+2:]))
		switch head[i+1] {
		case 0xC0: // SOF0: length, precision, height, width...
			sof = true
			out = append(out, head[:i]...)
			out = append(out, head[i:i+5]...)
			out = binary.BigEndian.AppendUint16(out, uint16(h))
			out = binary.BigEndian.AppendUint16(out, uint16(w))
			out = append(out, head[i+9:i+2+n]...)
		case 0xDA:
			if !sof {
				return nil, errors.New("unexpected image/jpeg headers: no SOF0")
			}
			if interval > 0 {
				out = append(out, 0xFF, 0xDD, 0, 4)
				out = binary.BigEndian.AppendUint16(out, uint16(interval))
			}
			return append(out, head[i:]...), nil
		default:
			if len(out) > 0 {
				out = append(out, head[i:i+2+n]...)
			}
		}
		i += 2 + n
	}
	return nil, errors.New("unexpected image/jpeg headers")
}

// encodeTIFF16 writes a baseline little-endian TIFF: 16-bit RGB, no alpha (the
// golang.org/x/image/tiff encoder always adds one), uncompressed, in strips. Rows are
// converted a chunk at a time on every core and streamed out, so the file never sits
// in memory whole.
func encodeTIFF16(w io.Writer, img *Image, opt EncodeOptions) error {
	const (
		tShort    = 3
		tLong     = 4
		tRational = 5
	)
	rowBytes := 6 * img.W
	if uint64(rowBytes)*uint64(img.H) > math.MaxUint32-4096 {
		return errors.New("image too large for a baseline TIFF (4 GB)")
	}
	rowsPerStrip := max(1, (256<<10)/rowBytes)
	strips := (img.H + rowsPerStrip - 1) / rowsPerStrip

	type entry struct {
		tag, typ uint16
		count    uint32
		value    []byte // little-endian; values over 4 bytes go after the IFD
	}
	le := binary.LittleEndian
	u16 := func(v ...uint16) []byte {
		b := make([]byte, 0, 2*len(v))
		for _, x := range v {
			b = le.AppendUint16(b, x)
		}
		return b
	}
	u32 := func(v uint32) []byte { return le.AppendUint32(nil, v) }
	rational := le.AppendUint32(le.AppendUint32(nil, 72), 1)
	entries := []entry{
		{256, tLong, 1, u32(uint32(img.W))},
		{257, tLong, 1, u32(uint32(img.H))},
		{258, tShort, 3, u16(16, 16, 16)},
		{259, tShort, 1, u16(1)}, // no compression
		{262, tShort, 1, u16(2)}, // RGB
		{273, tLong, uint32(strips), make([]byte, 4*strips)},
		{277, tShort, 1, u16(3)},
		{278, tLong, 1, u32(uint32(rowsPerStrip))},
		{279, tLong, uint32(strips), make([]byte, 4*strips)},
		{282, tRational, 1, rational},
		{283, tRational, 1, rational},
		{284, tShort, 1, u16(1)}, // chunky
		{296, tShort, 1, u16(2)}, // inches
	}
	ifdSize := 2 + 12*len(entries) + 4
	extra := 0
	for _, e := range entries {
		if n := len(e.value); n > 4 {
			extra += n
		}
	}
	dataStart := 8 + ifdSize + extra
	for s := range strips {
		rows := min(rowsPerStrip, img.H-s*rowsPerStrip)
		le.PutUint32(entries[5].value[4*s:], uint32(dataStart+s*rowsPerStrip*rowBytes))
		le.PutUint32(entries[8].value[4*s:], uint32(rows*rowBytes))
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	head := []byte{'I', 'I', 42, 0, 8, 0, 0, 0}
	head = le.AppendUint16(head, uint16(len(entries)))
	var tail []byte
	for _, e := range entries {
		head = le.AppendUint16(head, e.tag)
		head = le.AppendUint16(head, e.typ)
		head = le.AppendUint32(head, e.count)
		if len(e.value) <= 4 {
			v := [4]byte{}
			copy(v[:], e.value)
			head = append(head, v[:]...)
			continue
		}
		head = le.AppendUint32(head, uint32(8+ifdSize+len(tail)))
		tail = append(tail, e.value...)
	}
	head = le.AppendUint32(head, 0) // no next IFD
	if _, err := bw.Write(append(head, tail...)); err != nil {
		return err
	}

	const chunk = 64
	buf := make([]byte, chunk*rowBytes)
	for y0 := 0; y0 < img.H; y0 += chunk {
		if err := encodeBand(opt, y0, img.H); err != nil {
			return err
		}
		n := min(chunk, img.H-y0)
		parallelN(n, minRows(img.W), func(a, b int) {
			for y := a; y < b; y++ {
				px := img.Pix[3*(y0+y)*img.W : 3*(y0+y+1)*img.W]
				out := buf[y*rowBytes : (y+1)*rowBytes]
				for i, v := range px {
					le.PutUint16(out[2*i:], quant16(v))
				}
			}
		})
		if _, err := bw.Write(buf[:n*rowBytes]); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if opt.Rows != nil {
		opt.Rows(img.H, img.H)
	}
	return nil
}
