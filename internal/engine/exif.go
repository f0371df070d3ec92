package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
)

// EXIFSummary is the part of a photo's EXIF that the engine and its callers use.
// Fields absent from the file keep their zero value, except Orientation, which is 1
// (upright) when the tag is missing or holds a value outside 1..8.
type EXIFSummary struct {
	// Orientation is the EXIF orientation tag (1..8) as stored in the file. Decode has
	// already applied it to the pixels.
	Orientation int
	Make        string
	Model       string
	LensModel   string
	// FocalLength is in millimetres.
	FocalLength float64
	// ISO, ExposureTime (seconds) and FNumber are read from camera raw files; 0
	// when unknown.
	ISO                   int
	ExposureTime, FNumber float64
}

// EXIF and TIFF tags read or rewritten here.
const (
	tagMake             = 0x010F
	tagModel            = 0x0110
	tagOrientation      = 0x0112
	tagExifIFD          = 0x8769
	tagICCProfile       = 0x8773 // TIFF InterColorProfile
	tagFocalLength      = 0x920A
	tagPixelXDimension  = 0xA002
	tagPixelYDimension  = 0xA003
	tagLensModel        = 0xA434
	maxIFDEntries       = 1024 // far above any real IFD; bounds the work on hostile input
	maxEXIFStringLength = 256
)

// tiffTypeSize is the byte size of one value of each TIFF field type (index = type).
var tiffTypeSize = [...]uint64{0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8}

var errBadTIFF = errors.New("malformed TIFF structure")

// tiffStruct reads the TIFF structure that EXIF blocks (and TIFF files) are made of.
// Every read is bounds-checked: the bytes come from untrusted files.
type tiffStruct struct {
	b  []byte
	bo binary.ByteOrder
}

type ifdEntry struct {
	tag, typ uint16
	count    uint32
	// at is the offset in b of the value bytes (inline or pointed to).
	at int
}

func newTIFFStruct(b []byte) (*tiffStruct, uint32, error) {
	if len(b) < 8 {
		return nil, 0, errBadTIFF
	}
	var bo binary.ByteOrder
	switch string(b[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return nil, 0, errBadTIFF
	}
	if bo.Uint16(b[2:]) != 42 {
		return nil, 0, errBadTIFF
	}
	return &tiffStruct{b: b, bo: bo}, bo.Uint32(b[4:]), nil
}

// ifd returns the entries of the IFD at off whose values lie inside the structure;
// entries pointing outside it are skipped rather than failing the whole IFD.
func (t *tiffStruct) ifd(off uint32) ([]ifdEntry, error) {
	o := uint64(off)
	if o+2 > uint64(len(t.b)) {
		return nil, errBadTIFF
	}
	n := int(t.bo.Uint16(t.b[o:]))
	if n > maxIFDEntries || o+2+uint64(n)*12 > uint64(len(t.b)) {
		return nil, errBadTIFF
	}
	entries := make([]ifdEntry, 0, n)
	for i := range n {
		e := o + 2 + uint64(i)*12
		typ := t.bo.Uint16(t.b[e+2:])
		count := t.bo.Uint32(t.b[e+4:])
		if typ == 0 || int(typ) >= len(tiffTypeSize) {
			continue
		}
		size := tiffTypeSize[typ] * uint64(count)
		at := e + 8
		if size > 4 {
			at = uint64(t.bo.Uint32(t.b[e+8:]))
		}
		if at+size > uint64(len(t.b)) {
			continue
		}
		entries = append(entries, ifdEntry{tag: t.bo.Uint16(t.b[e:]), typ: typ, count: count, at: int(at)})
	}
	return entries, nil
}

// uint reads the first value of a SHORT or LONG entry.
func (t *tiffStruct) uint(e ifdEntry) (uint32, bool) {
	if e.count < 1 {
		return 0, false
	}
	switch e.typ {
	case 3:
		return uint32(t.bo.Uint16(t.b[e.at:])), true
	case 4:
		return t.bo.Uint32(t.b[e.at:]), true
	}
	return 0, false
}

func (t *tiffStruct) ascii(e ifdEntry) string {
	if e.typ != 2 {
		return ""
	}
	s := t.b[e.at : e.at+int(e.count)]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if len(s) > maxEXIFStringLength {
		s = s[:maxEXIFStringLength]
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(s), ""))
}

func (t *tiffStruct) rational(e ifdEntry) (float64, bool) {
	if e.typ != 5 || e.count < 1 {
		return 0, false
	}
	num, den := t.bo.Uint32(t.b[e.at:]), t.bo.Uint32(t.b[e.at+4:])
	if den == 0 {
		return 0, false
	}
	return float64(num) / float64(den), true
}

func (t *tiffStruct) bytes(e ifdEntry) []byte {
	if e.typ != 1 && e.typ != 7 {
		return nil
	}
	return t.b[e.at : e.at+int(e.count)]
}

// parseEXIF reads the summary from a TIFF structure: an EXIF block (the payload of a
// JPEG APP1 "Exif" segment, a PNG eXIf chunk or a WebP EXIF chunk) or a TIFF file.
func parseEXIF(b []byte) (EXIFSummary, error) {
	s := EXIFSummary{Orientation: 1}
	t, off, err := newTIFFStruct(b)
	if err != nil {
		return s, err
	}
	ifd0, err := t.ifd(off)
	if err != nil {
		return s, err
	}
	for _, e := range ifd0 {
		switch e.tag {
		case tagMake:
			s.Make = t.ascii(e)
		case tagModel:
			s.Model = t.ascii(e)
		case tagOrientation:
			if v, ok := t.uint(e); ok && v >= 1 && v <= 8 {
				s.Orientation = int(v)
			}
		case tagExifIFD:
			v, ok := t.uint(e)
			if !ok || v == off {
				continue
			}
			sub, err := t.ifd(v)
			if err != nil {
				// A broken sub-IFD leaves what IFD0 said intact.
				continue
			}
			for _, e := range sub {
				switch e.tag {
				case tagLensModel:
					s.LensModel = t.ascii(e)
				case tagFocalLength:
					if f, ok := t.rational(e); ok && !math.IsInf(f, 0) {
						s.FocalLength = f
					}
				}
			}
		}
	}
	return s, nil
}

// tiffICCProfile returns the ICC profile a TIFF file embeds in IFD0, if any.
func tiffICCProfile(b []byte) []byte {
	t, off, err := newTIFFStruct(b)
	if err != nil {
		return nil
	}
	ifd0, err := t.ifd(off)
	if err != nil {
		return nil
	}
	for _, e := range ifd0 {
		if e.tag == tagICCProfile {
			return t.bytes(e)
		}
	}
	return nil
}

// exportEXIF returns a copy of an EXIF block fit for a file whose pixels are already
// upright and w x h: the orientation tag says 1, because the pixels were rotated on
// decode and a viewer must not rotate them again, and the pixel dimensions (when
// present) match the new image. Values are patched in place, so every offset in the
// block stays valid. A block that is not a TIFF structure is an error: writing it
// would produce a file that other programs misread.
func exportEXIF(b []byte, w, h int) ([]byte, error) {
	out := bytes.Clone(b)
	t, off, err := newTIFFStruct(out)
	if err != nil {
		return nil, err
	}
	ifd0, err := t.ifd(off)
	if err != nil {
		return nil, err
	}
	for _, e := range ifd0 {
		switch e.tag {
		case tagOrientation:
			t.putUint(e, 1)
		case tagExifIFD:
			v, ok := t.uint(e)
			if !ok || v == off {
				continue
			}
			sub, err := t.ifd(v)
			if err != nil {
				continue
			}
			for _, e := range sub {
				switch e.tag {
				case tagPixelXDimension:
					t.putUint(e, uint32(w))
				case tagPixelYDimension:
					t.putUint(e, uint32(h))
				}
			}
		}
	}
	return out, nil
}

// putUint overwrites the first value of a SHORT or LONG entry; a value that does not
// fit a SHORT leaves it alone rather than truncating it.
func (t *tiffStruct) putUint(e ifdEntry, v uint32) {
	if e.count < 1 {
		return
	}
	switch e.typ {
	case 3:
		if v <= math.MaxUint16 {
			t.bo.PutUint16(t.b[e.at:], uint16(v))
		}
	case 4:
		t.bo.PutUint32(t.b[e.at:], v)
	}
}

// buildEXIF writes a small big-endian EXIF block carrying a summary, for sources whose
// metadata is not an EXIF block of its own (a TIFF file's tags live beside its pixel
// data and cannot be copied into a JPEG as they are).
func buildEXIF(s EXIFSummary) []byte {
	type field struct {
		tag, typ uint16
		count    uint32
		data     []byte // big-endian value bytes
	}
	ascii := func(tag uint16, v string) (field, bool) {
		if v == "" {
			return field{}, false
		}
		d := append([]byte(v), 0)
		return field{tag, 2, uint32(len(d)), d}, true
	}
	var ifd0, exif []field
	if f, ok := ascii(tagMake, s.Make); ok {
		ifd0 = append(ifd0, f)
	}
	if f, ok := ascii(tagModel, s.Model); ok {
		ifd0 = append(ifd0, f)
	}
	ifd0 = append(ifd0, field{tagOrientation, 3, 1, []byte{0, 1}})
	if s.FocalLength > 0 && s.FocalLength < 1e6 {
		d := make([]byte, 8)
		binary.BigEndian.PutUint32(d, uint32(math.Round(s.FocalLength*1000)))
		binary.BigEndian.PutUint32(d[4:], 1000)
		exif = append(exif, field{tagFocalLength, 5, 1, d})
	}
	if f, ok := ascii(tagLensModel, s.LensModel); ok {
		exif = append(exif, f)
	}
	if len(exif) > 0 {
		// The pointer's value is filled in below, once IFD0's size is known.
		ifd0 = append(ifd0, field{tagExifIFD, 4, 1, make([]byte, 4)})
	}

	ifdSize := func(fs []field) int {
		n := 2 + 12*len(fs) + 4
		for _, f := range fs {
			if len(f.data) > 4 {
				n += len(f.data) + len(f.data)%2
			}
		}
		return n
	}
	ifd0Off := 8
	exifOff := ifd0Off + ifdSize(ifd0)
	if len(exif) > 0 {
		binary.BigEndian.PutUint32(ifd0[len(ifd0)-1].data, uint32(exifOff))
	}
	out := make([]byte, 0, exifOff+ifdSize(exif))
	out = append(out, 'M', 'M', 0, 42, 0, 0, 0, 8)
	writeIFD := func(fs []field, at int) {
		extra := at + 2 + 12*len(fs) + 4
		out = binary.BigEndian.AppendUint16(out, uint16(len(fs)))
		var tail []byte
		for _, f := range fs {
			out = binary.BigEndian.AppendUint16(out, f.tag)
			out = binary.BigEndian.AppendUint16(out, f.typ)
			out = binary.BigEndian.AppendUint32(out, f.count)
			if len(f.data) <= 4 {
				v := make([]byte, 4)
				copy(v, f.data)
				out = append(out, v...)
				continue
			}
			out = binary.BigEndian.AppendUint32(out, uint32(extra+len(tail)))
			tail = append(tail, f.data...)
			if len(f.data)%2 == 1 {
				tail = append(tail, 0)
			}
		}
		out = binary.BigEndian.AppendUint32(out, 0) // no next IFD
		out = append(out, tail...)
	}
	writeIFD(ifd0, ifd0Off)
	if len(exif) > 0 {
		writeIFD(exif, exifOff)
	}
	return out
}
