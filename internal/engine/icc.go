package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
)

// The engine reads and writes sRGB only. An embedded ICC profile is not applied; it is
// only identified, so that a photo in another colour space (Adobe RGB, ProPhoto,
// Display P3) is reported to the caller instead of being silently shown with the
// wrong colours.

// iccDescription returns the profile's description tag ('desc'), as an ICC v2
// textDescriptionType or a v4 multiLocalizedUnicodeType (first record), or "" when
// the profile has none or is malformed.
func iccDescription(p []byte) string {
	be := binary.BigEndian
	if len(p) < 132 {
		return ""
	}
	n := be.Uint32(p[128:])
	if uint64(n)*12+132 > uint64(len(p)) {
		return ""
	}
	for i := range int(n) {
		e := p[132+12*i:]
		if string(e[:4]) != "desc" {
			continue
		}
		off, size := uint64(be.Uint32(e[4:])), uint64(be.Uint32(e[8:]))
		if off+size > uint64(len(p)) || size < 12 {
			return ""
		}
		tag := p[off : off+size]
		switch string(tag[:4]) {
		case "desc":
			l := uint64(be.Uint32(tag[8:]))
			if 12+l > size {
				return ""
			}
			s := tag[12 : 12+l]
			if i := bytes.IndexByte(s, 0); i >= 0 {
				s = s[:i]
			}
			return strings.TrimSpace(strings.ToValidUTF8(string(s), ""))
		case "mluc":
			return mlucString(tag)
		}
		return ""
	}
	return ""
}

// iccWarning says why an embedded profile matters, or "" for an sRGB profile. A
// profile is taken as sRGB when its description says so: that is how every common
// sRGB profile (IEC 61966-2.1, the v4 preference profiles, camera "sRGB built-in")
// names itself, and reading the primaries and curves to prove it would buy little.
func iccWarning(p []byte) string {
	desc := iccDescription(p)
	if strings.Contains(strings.ToLower(desc), "srgb") {
		return ""
	}
	if desc == "" {
		return "embedded ICC profile has no readable description and is not known to be sRGB: colours were read as sRGB and may be off"
	}
	return fmt.Sprintf("embedded ICC profile %q is not sRGB: colours were read as sRGB and may be off", desc)
}

// mlucString returns the English record of a multiLocalizedUnicodeType (Adobe's own
// profiles list a dozen translations, English not first), else the first record.
func mlucString(tag []byte) string {
	be := binary.BigEndian
	if len(tag) < 16 {
		return ""
	}
	n, recSize := uint64(be.Uint32(tag[8:])), uint64(be.Uint32(tag[12:]))
	if n == 0 || recSize < 12 || 16+n*recSize > uint64(len(tag)) {
		return ""
	}
	pick := uint64(0)
	for i := range n {
		if string(tag[16+i*recSize:16+i*recSize+2]) == "en" {
			pick = i
			break
		}
	}
	rec := tag[16+pick*recSize:]
	l, o := uint64(be.Uint32(rec[4:])), uint64(be.Uint32(rec[8:]))
	if o+l > uint64(len(tag)) || l%2 == 1 {
		return ""
	}
	u := make([]uint16, l/2)
	for j := range u {
		u[j] = be.Uint16(tag[o+uint64(2*j):])
	}
	return strings.TrimSpace(strings.TrimRight(string(utf16.Decode(u)), "\x00"))
}
