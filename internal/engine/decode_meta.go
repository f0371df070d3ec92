package engine

// Reading a file's metadata: EXIF and the ICC profile of JPEG, PNG and WebP.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"sort"
)

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
