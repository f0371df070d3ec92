package raw

import (
	"encoding/binary"
	"math"

	"github.com/darkroom-mcp/darkroom"
)

// The TIFF structure DNG is built on: a header, a chain of IFDs, and IFDs reached
// through SubIFDs and the EXIF pointer. Every entry's values are checked to lie inside
// the file when the IFD is read, so no count in a header can make a later read
// allocate or index past what the file holds: a LinearizationTable that claims 2^31
// entries in a file of a few megabytes is refused here.

// TIFF field types and their sizes in bytes.
var typeSize = [...]uint64{0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4}

const (
	maxIFDs       = 64   // IFDs followed in one file (real DNGs have a handful)
	maxIFDEntries = 1024 // entries in one IFD
)

type entry struct {
	tag, typ uint16
	count    uint32
	off      uint32 // absolute offset of the first value
}

type ifd struct {
	entries map[uint16]entry
	sub     []*ifd // SubIFDs
}

type tiffFile struct {
	b    []byte
	bo   binary.ByteOrder
	ifds []*ifd // IFD0 chain, in order
	exif *ifd
	seen map[uint32]bool
}

func invalid(format string, args ...any) error {
	return darkroom.Errorf(darkroom.InvalidInput, "decode dng: "+format, args...)
}

func parseTIFF(b []byte) (*tiffFile, error) {
	if len(b) < 8 {
		return nil, invalid("the file is truncated")
	}
	t := &tiffFile{b: b, seen: map[uint32]bool{}}
	switch string(b[:4]) {
	case "II*\x00":
		t.bo = binary.LittleEndian
	case "MM\x00*":
		t.bo = binary.BigEndian
	default:
		return nil, invalid("not a TIFF file")
	}
	off := t.bo.Uint32(b[4:])
	for off != 0 {
		d, next, err := t.readIFD(off)
		if err != nil {
			return nil, err
		}
		t.ifds = append(t.ifds, d)
		off = next
	}
	if len(t.ifds) == 0 {
		return nil, invalid("the file has no image directory")
	}
	if e, ok := t.ifds[0].entries[tagExifIFD]; ok {
		if off, ok := t.uint(e, 0); ok {
			if d, _, err := t.readIFD(uint32(off)); err == nil {
				t.exif = d
			}
		}
	}
	return t, nil
}

func (t *tiffFile) readIFD(off uint32) (*ifd, uint32, error) {
	if t.seen[off] {
		return nil, 0, invalid("the image directories form a loop")
	}
	if len(t.seen) >= maxIFDs {
		return nil, 0, invalid("more than %d image directories", maxIFDs)
	}
	t.seen[off] = true
	b := t.b
	if uint64(off)+2 > uint64(len(b)) {
		return nil, 0, invalid("an image directory lies past the end of the file")
	}
	n := int(t.bo.Uint16(b[off:]))
	if n > maxIFDEntries {
		return nil, 0, invalid("an image directory has %d entries", n)
	}
	end := uint64(off) + 2 + 12*uint64(n)
	if end+4 > uint64(len(b)) {
		return nil, 0, invalid("an image directory lies past the end of the file")
	}
	d := &ifd{entries: make(map[uint16]entry, n)}
	for i := range n {
		p := b[int(off)+2+12*i:]
		e := entry{tag: t.bo.Uint16(p), typ: t.bo.Uint16(p[2:]), count: t.bo.Uint32(p[4:])}
		if int(e.typ) >= len(typeSize) || e.typ == 0 {
			continue // unknown types are skipped, as TIFF readers must
		}
		size := typeSize[e.typ] * uint64(e.count)
		if size <= 4 {
			e.off = off + 2 + 12*uint32(i) + 8
		} else {
			e.off = t.bo.Uint32(p[8:])
			if uint64(e.off)+size > uint64(len(b)) {
				return nil, 0, invalid("tag %d: its %d values lie past the end of the file", e.tag, e.count)
			}
		}
		d.entries[e.tag] = e
	}
	next := t.bo.Uint32(b[end:])
	if e, ok := d.entries[tagSubIFDs]; ok {
		for i := range int(e.count) {
			so, ok := t.uint(e, i)
			if !ok {
				break
			}
			s, _, err := t.readIFD(uint32(so))
			if err != nil {
				return nil, 0, err
			}
			d.sub = append(d.sub, s)
		}
	}
	return d, next, nil
}

// uint returns value i of an integer entry.
func (t *tiffFile) uint(e entry, i int) (uint64, bool) {
	if i < 0 || uint32(i) >= e.count {
		return 0, false
	}
	p := t.b[uint64(e.off)+uint64(i)*typeSize[e.typ]:]
	switch e.typ {
	case 1, 7:
		return uint64(p[0]), true
	case 3:
		return uint64(t.bo.Uint16(p)), true
	case 4, 13:
		return uint64(t.bo.Uint32(p)), true
	case 8:
		if v := int16(t.bo.Uint16(p)); v >= 0 {
			return uint64(v), true
		}
	case 9:
		if v := int32(t.bo.Uint32(p)); v >= 0 {
			return uint64(v), true
		}
	}
	return 0, false
}

// float returns value i of a numeric entry.
func (t *tiffFile) float(e entry, i int) (float64, bool) {
	if i < 0 || uint32(i) >= e.count {
		return 0, false
	}
	p := t.b[uint64(e.off)+uint64(i)*typeSize[e.typ]:]
	switch e.typ {
	case 5:
		n, d := t.bo.Uint32(p), t.bo.Uint32(p[4:])
		if d == 0 {
			return 0, false
		}
		return float64(n) / float64(d), true
	case 10:
		n, d := int32(t.bo.Uint32(p)), int32(t.bo.Uint32(p[4:]))
		if d == 0 {
			return 0, false
		}
		return float64(n) / float64(d), true
	case 11:
		return float64(math.Float32frombits(t.bo.Uint32(p))), true
	case 12:
		return math.Float64frombits(t.bo.Uint64(p)), true
	case 6:
		return float64(int8(p[0])), true
	case 8:
		return float64(int16(t.bo.Uint16(p))), true
	case 9:
		return float64(int32(t.bo.Uint32(p))), true
	}
	v, ok := t.uint(e, i)
	return float64(v), ok
}

// floats returns all values of a numeric entry of at most max values.
func (t *tiffFile) floats(e entry, max int) ([]float64, bool) {
	if int64(e.count) > int64(max) {
		return nil, false
	}
	out := make([]float64, e.count)
	for i := range out {
		v, ok := t.float(e, i)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

func (t *tiffFile) bytes(e entry) []byte {
	return t.b[e.off : uint64(e.off)+typeSize[e.typ]*uint64(e.count)]
}

func (t *tiffFile) ascii(e entry) string {
	if e.typ != 2 {
		return ""
	}
	s := t.bytes(e)
	for i, c := range s {
		if c == 0 {
			s = s[:i]
			break
		}
	}
	if len(s) > 256 {
		s = s[:256]
	}
	return string(s)
}

// TIFF, EXIF and DNG tags read here.
const (
	tagNewSubFileType      = 254
	tagImageWidth          = 256
	tagImageLength         = 257
	tagBitsPerSample       = 258
	tagCompression         = 259
	tagPhotometric         = 262
	tagMake                = 271
	tagModel               = 272
	tagStripOffsets        = 273
	tagOrientation         = 274
	tagSamplesPerPixel     = 277
	tagRowsPerStrip        = 278
	tagStripByteCounts     = 279
	tagPlanarConfig        = 284
	tagTileWidth           = 322
	tagTileLength          = 323
	tagTileOffsets         = 324
	tagTileByteCounts      = 325
	tagSubIFDs             = 330
	tagSampleFormat        = 339
	tagCFARepeatPatternDim = 33421
	tagCFAPattern          = 33422
	tagExposureTime        = 33434
	tagFNumber             = 33437
	tagExifIFD             = 34665
	tagISO                 = 34855
	tagFocalLength         = 37386
	tagLensModel           = 42036
	tagDNGVersion          = 50706
	tagUniqueCameraModel   = 50708
	tagCFAPlaneColor       = 50710
	tagCFALayout           = 50711
	tagLinearization       = 50712
	tagBlackRepeatDim      = 50713
	tagBlackLevel          = 50714
	tagBlackDeltaH         = 50715
	tagBlackDeltaV         = 50716
	tagWhiteLevel          = 50717
	tagDefaultCropOrigin   = 50719
	tagDefaultCropSize     = 50720
	tagColorMatrix1        = 50721
	tagColorMatrix2        = 50722
	tagAnalogBalance       = 50727
	tagAsShotNeutral       = 50728
	tagAsShotWhiteXY       = 50729
	tagBaselineExposure    = 50730
	tagIlluminant1         = 50778
	tagIlluminant2         = 50779
	tagActiveArea          = 50829
	tagForwardMatrix1      = 50964
	tagForwardMatrix2      = 50965
	tagOpcodeList1         = 51008
	tagOpcodeList2         = 51009
	tagOpcodeList3         = 51022
)
