package raw

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/darkroom-mcp/darkroom"
)

// Photometric interpretations and compressions of DNG raw data.
const (
	photoCFA       = 32803
	photoLinearRaw = 34892

	compNone       = 1
	compJPEG       = 7     // lossless JPEG (SOF3) in DNG; lossy only with LinearRaw
	compLossyJPEG  = 34892 // DNG 1.4 lossy JPEG
	compJPEGXL     = 52546 // DNG 1.7
	compDeflate    = 8     // floating-point DNG
	maxLinearTable = 65536
	maxBlackRepeat = 64 // BlackLevelRepeatDim side (real files use 1, 2 or 6)
)

// IsDNG reports whether b is a TIFF file whose first directory has a DNGVersion tag:
// a DNG (or a camera format built on TIFF that says it is one).
func IsDNG(b []byte) bool {
	if len(b) < 8 || (string(b[:4]) != "II*\x00" && string(b[:4]) != "MM\x00*") {
		return false
	}
	t := &tiffFile{b: b, seen: map[uint32]bool{}}
	t.bo = binary.ByteOrder(binary.LittleEndian)
	if b[0] == 'M' {
		t.bo = binary.BigEndian
	}
	d, _, err := t.readIFD(t.bo.Uint32(b[4:]))
	if err != nil {
		return false
	}
	_, ok := d.entries[tagDNGVersion]
	return ok
}

// File is a DNG read as far as its headers: what the pixels are, where they lie and
// how they are turned into colour. Nothing the size of the image is allocated by
// Probe; Decode does that.
type File struct {
	t   *tiffFile
	raw *ifd
	// Width and Height are the stored raw size.
	Width, Height int
	photometric   int
	bits, spp     int
	compression   int
	tiled         bool
	tileW, tileH  int
	offsets, cnts entry
	// cfa is the colour (0 R, 1 G, 2 B) of each site of the repeat pattern.
	cfa        []uint8
	cfaW, cfaH int
	linear     []uint16
	black      []float64 // repeat pattern, per sample
	blackW     int
	blackH     int
	blackDH    []float64
	blackDV    []float64
	white      []float64 // per sample
	active     [4]int    // top, left, bottom, right
	crop       [4]int    // x, y, w, h within the active area
	neutral    [3]float64
	rgbCam     [3][3]float64
	forward    bool
	baselineEV float64
	Meta       Meta
	Warnings   []string
}

// Meta is what ingest reports of a raw file's EXIF.
type Meta struct {
	Orientation  int
	Make, Model  string
	LensModel    string
	FocalLength  float64
	ISO          int
	ExposureTime float64
	FNumber      float64
}

// OutSize is the size of the developed image as stored (DefaultCrop applied,
// Orientation not), at full size or binned (Options.Half: for a CFA image, each
// side halved for Bayer, a third for X-Trans after the columns and rows
// xtransPhase skips).
func (f *File) OutSize(half bool) (w, h int) {
	w, h = f.crop[2], f.crop[3]
	if half && f.photometric == photoCFA {
		if f.cfaW == 6 {
			sx, sy := f.xtransPhase()
			return max(w-sx, 0) / 3, max(h-sy, 0) / 3
		}
		w, h = w/2, h/2
	}
	return w, h
}

// Bytes is the memory Decode holds at its peak, beside the file: the raw samples,
// the normalized mosaic and the developed image.
func (f *File) Bytes(half bool) int64 {
	px := int64(f.Width) * int64(f.Height)
	samples := px * int64(f.spp)
	ow, oh := f.OutSize(half)
	out := 12 * int64(ow) * int64(oh)
	if half {
		return 2*samples + out
	}
	return 2*samples + 4*samples + out + demosaicScratch()
}

// Probe reads a DNG's headers and checks everything Decode will rely on: the
// directories, the raw image's layout and that its strips or tiles lie inside the
// file, its compression, CFA pattern, levels and colour tags. maxPixels bounds the
// stored size. Errors are invalid_input (malformed, or a kind of DNG this package
// does not read, named) or limit_exceeded.
func Probe(b []byte, maxPixels int64) (*File, error) {
	t, err := parseTIFF(b)
	if err != nil {
		return nil, err
	}
	ifd0 := t.ifds[0]
	if _, ok := ifd0.entries[tagDNGVersion]; !ok {
		return nil, invalid("not a DNG (no DNGVersion tag)")
	}
	f := &File{t: t}
	f.raw = findRaw(t)
	if f.raw == nil {
		return nil, invalid("no raw image directory (NewSubFileType 0 with CFA or LinearRaw data)")
	}
	if err := f.layout(maxPixels); err != nil {
		return nil, err
	}
	if err := f.levels(); err != nil {
		return nil, err
	}
	f.geometry()
	if err := f.colour(); err != nil {
		return nil, err
	}
	f.metadata()
	f.opcodes()
	return f, nil
}

// findRaw returns the main raw image: NewSubFileType 0 with CFA or LinearRaw
// photometric, in IFD0 or a SubIFD (previews are type 1).
func findRaw(t *tiffFile) *ifd {
	var walk func(d *ifd) *ifd
	walk = func(d *ifd) *ifd {
		typ := uint64(0)
		if e, ok := d.entries[tagNewSubFileType]; ok {
			typ, _ = t.uint(e, 0)
		}
		if e, ok := d.entries[tagPhotometric]; ok && typ == 0 {
			if p, _ := t.uint(e, 0); p == photoCFA || p == photoLinearRaw {
				return d
			}
		}
		for _, s := range d.sub {
			if r := walk(s); r != nil {
				return r
			}
		}
		return nil
	}
	for _, d := range t.ifds {
		if r := walk(d); r != nil {
			return r
		}
	}
	return nil
}

func (f *File) get(tag uint16) (entry, bool) {
	e, ok := f.raw.entries[tag]
	return e, ok
}

// meta reads a tag from the raw directory, then IFD0 (colour tags live in IFD0).
func (f *File) meta(tag uint16) (entry, bool) {
	if e, ok := f.raw.entries[tag]; ok {
		return e, ok
	}
	e, ok := f.t.ifds[0].entries[tag]
	return e, ok
}

func (f *File) uintTag(tag uint16, def int) int {
	e, ok := f.get(tag)
	if !ok {
		return def
	}
	v, ok := f.t.uint(e, 0)
	if !ok || v > math.MaxInt32 {
		return -1
	}
	return int(v)
}

func (f *File) layout(maxPixels int64) error {
	t := f.t
	f.Width, f.Height = f.uintTag(tagImageWidth, 0), f.uintTag(tagImageLength, 0)
	f.photometric = f.uintTag(tagPhotometric, 0)
	f.compression = f.uintTag(tagCompression, 1)
	f.spp = f.uintTag(tagSamplesPerPixel, 1)
	f.bits = f.uintTag(tagBitsPerSample, 1)
	if f.Width <= 0 || f.Height <= 0 {
		return invalid("the raw image has no pixels (%dx%d)", f.Width, f.Height)
	}
	if px := int64(f.Width) * int64(f.Height); px > maxPixels {
		e := darkroom.Errorf(darkroom.LimitExceeded, "decode dng: the image is %dx%d (%.1f megapixels), above the limit of %.1f megapixels",
			f.Width, f.Height, float64(px)/1e6, float64(maxPixels)/1e6)
		e.Details = map[string]any{"width": f.Width, "height": f.Height, "pixels": px, "max_pixels": maxPixels}
		return e
	}
	switch f.compression {
	case compNone, compJPEG:
	case compLossyJPEG:
		return invalid("lossy JPEG compressed DNG (compression 34892) is not supported; convert it with a lossless setting")
	case compJPEGXL:
		return invalid("JPEG XL compressed DNG (compression 52546) is not supported; convert it with a lossless JPEG setting")
	case compDeflate:
		return invalid("deflate (floating-point) DNG is not supported")
	default:
		return invalid("compression %d is not supported", f.compression)
	}
	if e, ok := f.get(tagSampleFormat); ok {
		if v, _ := t.uint(e, 0); v != 1 {
			return invalid("floating-point raw samples are not supported")
		}
	}
	if f.uintTag(tagPlanarConfig, 1) != 1 {
		return invalid("planar raw data is not supported")
	}
	switch f.photometric {
	case photoCFA:
		if f.spp != 1 {
			return invalid("a CFA image with %d samples per pixel", f.spp)
		}
	case photoLinearRaw:
		if f.spp != 3 {
			return invalid("LinearRaw with %d samples per pixel is not supported (3 are)", f.spp)
		}
	}
	if f.bits < 1 || f.bits > 16 {
		return invalid("%d bits per sample is not supported (1 to 16 are)", f.bits)
	}
	if e, ok := f.get(tagTileOffsets); ok {
		f.tiled = true
		f.offsets = e
		f.cnts, ok = f.get(tagTileByteCounts)
		f.tileW, f.tileH = f.uintTag(tagTileWidth, 0), f.uintTag(tagTileLength, 0)
		if !ok || f.tileW <= 0 || f.tileH <= 0 || f.tileW > 1<<16 || f.tileH > 1<<16 {
			return invalid("the tile layout is missing or malformed")
		}
	} else {
		var ok1, ok2 bool
		f.offsets, ok1 = f.get(tagStripOffsets)
		f.cnts, ok2 = f.get(tagStripByteCounts)
		if !ok1 || !ok2 {
			return invalid("the raw image has no strips or tiles")
		}
		f.tileW = f.Width
		f.tileH = f.uintTag(tagRowsPerStrip, f.Height)
		if f.tileH <= 0 || f.tileH > f.Height {
			f.tileH = f.Height
		}
	}
	across, down := (f.Width+f.tileW-1)/f.tileW, (f.Height+f.tileH-1)/f.tileH
	n := across * down
	if int(f.offsets.count) < n || int(f.cnts.count) < n {
		return invalid("%d strips or tiles are listed, the image needs %d", min(f.offsets.count, f.cnts.count), n)
	}
	for i := range n {
		o, ok1 := t.uint(f.offsets, i)
		c, ok2 := t.uint(f.cnts, i)
		if !ok1 || !ok2 || o+c > uint64(len(t.b)) {
			return invalid("strip or tile %d lies past the end of the file", i)
		}
		if f.compression == compJPEG {
			// Every frame's header, so a frame that does not fill its tile (a
			// file lying about its size) is refused before the image is allocated.
			rows := min(f.tileH, f.Height-(i/across)*f.tileH)
			if _, err := f.frame(i, t.b[o:o+c], rows); err != nil {
				return err
			}
		}
		if f.compression == compNone {
			w := min(f.tileW, f.Width)
			if f.tiled {
				w = f.tileW
			}
			rows := min(f.tileH, f.Height-(i/across)*f.tileH)
			if f.tiled {
				rows = f.tileH
			}
			// Rows start on a byte boundary (TIFF 6.0, section 6).
			need := (uint64(w)*uint64(f.spp)*uint64(f.bits) + 7) / 8 * uint64(rows)
			if c < need {
				return invalid("strip or tile %d holds %d bytes, its pixels need %d", i, c, need)
			}
		}
	}
	if f.photometric == photoCFA {
		f.cfaW, f.cfaH = 2, 2
		if e, ok := f.get(tagCFARepeatPatternDim); ok {
			h, _ := t.uint(e, 0)
			w, _ := t.uint(e, 1)
			f.cfaW, f.cfaH = int(w), int(h)
		}
		xtrans := f.cfaW == 6 && f.cfaH == 6
		if !xtrans && (f.cfaW != 2 || f.cfaH != 2) {
			return invalid("a %dx%d CFA pattern is not supported; 2x2 (Bayer) and 6x6 (X-Trans) patterns are", f.cfaW, f.cfaH)
		}
		if f.uintTag(tagCFALayout, 1) != 1 {
			return invalid("a CFA layout other than rectangular is not supported")
		}
		n := f.cfaW * f.cfaH
		e, ok := f.get(tagCFAPattern)
		if !ok {
			return invalid("the CFA pattern is missing")
		}
		if e.count != uint32(n) {
			return invalid("the CFA pattern has %d values, CFARepeatPatternDim %dx%d needs %d", e.count, f.cfaW, f.cfaH, n)
		}
		plane := []uint8{0, 1, 2}
		if pe, ok := f.get(tagCFAPlaneColor); ok {
			if pe.count != 3 {
				return invalid("only three-colour (RGB) CFAs are supported")
			}
			plane = f.t.bytes(pe)
		}
		seen := [3]bool{}
		for i := range n {
			v, _ := t.uint(e, i)
			if v >= uint64(len(plane)) || plane[v] > 2 {
				return invalid("the CFA pattern names colour %d, not red, green or blue", v)
			}
			f.cfa = append(f.cfa, plane[v])
			seen[plane[v]] = true
		}
		if !seen[0] || !seen[1] || !seen[2] {
			return invalid("the CFA pattern lacks red, green or blue")
		}
		if xtrans {
			// The demosaic takes each site's missing colours from its 3x3
			// neighbourhood and the preview bins 3x3 blocks: Fujifilm's X-Trans
			// has all three colours in every 3x3 window, a pattern without them
			// cannot be developed so.
			for y := range 6 {
				for x := range 6 {
					var in [3]bool
					for k := range 9 {
						in[f.cfa[(y+k/3)%6*6+(x+k%3)%6]] = true
					}
					if !in[0] || !in[1] || !in[2] {
						return invalid("the 6x6 CFA pattern's 3x3 window at row %d, column %d lacks red, green or blue (X-Trans has all three in every one)", y, x)
					}
				}
			}
		}
	}
	return nil
}

func (f *File) levels() error {
	t := f.t
	if e, ok := f.get(tagLinearization); ok {
		if e.count == 0 || e.count > maxLinearTable || e.typ != 3 {
			return invalid("the LinearizationTable has %d entries (at most %d 16-bit values)", e.count, maxLinearTable)
		}
		f.linear = make([]uint16, e.count)
		for i := range f.linear {
			v, _ := t.uint(e, i)
			f.linear[i] = uint16(v)
		}
	}
	f.blackW, f.blackH = 1, 1
	if e, ok := f.get(tagBlackRepeatDim); ok {
		h, _ := t.uint(e, 0)
		w, _ := t.uint(e, 1)
		if w < 1 || h < 1 || w > maxBlackRepeat || h > maxBlackRepeat {
			return invalid("BlackLevelRepeatDim %dx%d is out of range", w, h)
		}
		f.blackW, f.blackH = int(w), int(h)
	}
	n := f.blackW * f.blackH * f.spp
	f.black = make([]float64, n)
	if e, ok := f.get(tagBlackLevel); ok {
		v, ok := t.floats(e, n)
		switch {
		case ok && len(v) == n:
			copy(f.black, v)
		case ok && len(v) == 1:
			for i := range f.black {
				f.black[i] = v[0]
			}
		default:
			return invalid("BlackLevel has %d values, BlackLevelRepeatDim needs %d", e.count, n)
		}
	}
	if e, ok := f.get(tagBlackDeltaH); ok {
		v, ok := t.floats(e, f.Width)
		if !ok || len(v) != f.Width {
			return invalid("BlackLevelDeltaH has %d values for %d columns", e.count, f.Width)
		}
		f.blackDH = v
	}
	if e, ok := f.get(tagBlackDeltaV); ok {
		v, ok := t.floats(e, f.Height)
		if !ok || len(v) != f.Height {
			return invalid("BlackLevelDeltaV has %d values for %d rows", e.count, f.Height)
		}
		f.blackDV = v
	}
	def := float64(uint64(1)<<f.bits - 1)
	if f.linear != nil {
		def = 65535
	}
	f.white = []float64{def, def, def}[:f.spp]
	if e, ok := f.get(tagWhiteLevel); ok {
		v, ok := t.floats(e, f.spp)
		if !ok || len(v) == 0 {
			return invalid("WhiteLevel is malformed")
		}
		for i := range f.white {
			f.white[i] = v[min(i, len(v)-1)]
		}
	}
	for i, w := range f.white {
		for j := i; j < len(f.black); j += f.spp {
			if w <= f.black[j] {
				return invalid("WhiteLevel %g is not above BlackLevel %g", w, f.black[j])
			}
		}
	}
	return nil
}

func (f *File) geometry() {
	t := f.t
	f.active = [4]int{0, 0, f.Height, f.Width}
	if e, ok := f.get(tagActiveArea); ok && e.count == 4 {
		var a [4]int
		good := true
		for i := range a {
			v, ok := t.uint(e, i)
			good = good && ok && v <= uint64(max(f.Width, f.Height))
			a[i] = int(v)
		}
		if good && a[0] < a[2] && a[1] < a[3] && a[2] <= f.Height && a[3] <= f.Width {
			f.active = a
		} else {
			f.Warnings = append(f.Warnings, "the DNG's ActiveArea is malformed and was ignored")
		}
	}
	aw, ah := f.active[3]-f.active[1], f.active[2]-f.active[0]
	// Keep the mosaic's phase: an odd active-area origin shifts the pattern.
	f.crop = [4]int{0, 0, aw, ah}
	eo, ok1 := f.get(tagDefaultCropOrigin)
	es, ok2 := f.get(tagDefaultCropSize)
	if ok1 && ok2 && eo.count == 2 && es.count == 2 {
		x, _ := t.float(eo, 0)
		y, _ := t.float(eo, 1)
		w, _ := t.float(es, 0)
		h, _ := t.float(es, 1)
		cx, cy, cw, ch := int(x), int(y), int(w), int(h)
		if cx >= 0 && cy >= 0 && cw > 0 && ch > 0 && cx+cw <= aw && cy+ch <= ah {
			f.crop = [4]int{cx, cy, cw, ch}
		} else {
			f.Warnings = append(f.Warnings, "the DNG's DefaultCrop lies outside the image and was ignored")
		}
	}
}

func (f *File) metadata() {
	t := f.t
	str := func(d *ifd, tag uint16) string {
		if d == nil {
			return ""
		}
		if e, ok := d.entries[tag]; ok {
			return strings.TrimSpace(t.ascii(e))
		}
		return ""
	}
	num := func(d *ifd, tag uint16) float64 {
		if d == nil {
			return 0
		}
		if e, ok := d.entries[tag]; ok {
			v, _ := t.float(e, 0)
			return v
		}
		return 0
	}
	d0 := t.ifds[0]
	f.Meta.Make, f.Meta.Model = str(d0, tagMake), str(d0, tagModel)
	if f.Meta.Model == "" {
		f.Meta.Model = str(d0, tagUniqueCameraModel)
	}
	f.Meta.Orientation = 1
	if e, ok := d0.entries[tagOrientation]; ok {
		if v, ok := t.uint(e, 0); ok && v >= 1 && v <= 8 {
			f.Meta.Orientation = int(v)
		}
	}
	for _, d := range []*ifd{t.exif, d0} {
		if f.Meta.LensModel == "" {
			f.Meta.LensModel = str(d, tagLensModel)
		}
		if f.Meta.ISO == 0 {
			f.Meta.ISO = int(num(d, tagISO))
		}
		if f.Meta.ExposureTime == 0 {
			f.Meta.ExposureTime = num(d, tagExposureTime)
		}
		if f.Meta.FNumber == 0 {
			f.Meta.FNumber = num(d, tagFNumber)
		}
		if f.Meta.FocalLength == 0 {
			f.Meta.FocalLength = num(d, tagFocalLength)
		}
	}
	if e, ok := f.meta(tagBaselineExposure); ok {
		if v, ok := t.float(e, 0); ok && v >= -10 && v <= 10 {
			f.baselineEV = v
		}
	}
}

// opcodeNames are the DNG 1.6 opcode IDs.
var opcodeNames = map[uint32]string{
	1: "WarpRectilinear", 2: "WarpFisheye", 3: "FixVignetteRadial", 4: "FixBadPixelsConstant",
	5: "FixBadPixelsList", 6: "TrimBounds", 7: "MapTable", 8: "MapPolynomial", 9: "GainMap",
	10: "DeltaPerRow", 11: "DeltaPerColumn", 12: "ScalePerRow", 13: "ScalePerColumn",
	14: "WarpRectilinear2",
}

// opcodes names every opcode of the three lists in the warnings: none is applied.
func (f *File) opcodes() {
	for i, tag := range []uint16{tagOpcodeList1, tagOpcodeList2, tagOpcodeList3} {
		e, ok := f.get(tag)
		if !ok {
			if e, ok = f.t.ifds[0].entries[tag]; !ok {
				continue
			}
		}
		b := f.t.bytes(e)
		if len(b) < 4 {
			continue
		}
		n := binary.BigEndian.Uint32(b)
		p := b[4:]
		var names []string
		for k := uint32(0); k < n && k < 256 && len(p) >= 16; k++ {
			id, size := binary.BigEndian.Uint32(p), binary.BigEndian.Uint32(p[12:])
			name, ok := opcodeNames[id]
			if !ok {
				name = fmt.Sprintf("opcode %d", id)
			}
			names = append(names, name)
			if uint64(size) > uint64(len(p)-16) {
				break
			}
			p = p[16+size:]
		}
		if len(names) > 0 {
			f.Warnings = append(f.Warnings, fmt.Sprintf("DNG OpcodeList%d was not applied (darkroom does not run DNG opcodes): %s",
				i+1, strings.Join(names, ", ")))
		}
	}
}
