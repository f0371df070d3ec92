package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// canonicalJSON re-encodes one JSON document in the canonical form of RFC 8785 (JCS):
// object keys sorted by their UTF-16 code units, no insignificant whitespace, strings
// escaped minimally and numbers written as ECMAScript writes a float64. Two documents
// that mean the same thing to a JSON reader therefore get the same bytes, which is what
// makes a state's hash a function of the state and not of who encoded it.
func canonicalJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			// ParseFloat only fails here on overflow: the decoder already checked syntax.
			return fmt.Errorf("number %s is outside the range of a float64", v)
		}
		buf.Write(appendNumber(buf.AvailableBuffer(), f))
	case string:
		writeString(buf, v)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("unexpected JSON value of type %T", v)
	}
	return nil
}

// appendNumber formats f as ECMAScript's Number.prototype.toString does, which is
// what RFC 8785 requires. encoding/json already follows that algorithm for float64 except
// for negative zero, which ECMAScript prints as 0.
func appendNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 where ECMAScript writes e-7.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// writeString escapes only what JSON requires (RFC 8785 §3.2.2.2): no HTML escaping and
// no \u escapes for printable characters, unlike encoding/json.
func writeString(buf *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if r < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte(hexDigits[r>>4])
				buf.WriteByte(hexDigits[r&0xf])
			} else {
				// The decoder has already replaced invalid UTF-8 with U+FFFD.
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// compareUTF16 orders strings by UTF-16 code units, as RFC 8785 sorts keys. UTF-8 byte
// order is code point order, which differs from UTF-16 order only for characters above
// U+FFFF (four-byte sequences), so only keys holding one pay for the conversion.
func compareUTF16(a, b string) int {
	if !hasFourByte(a) && !hasFourByte(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func hasFourByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xf0 {
			return true
		}
	}
	return false
}

// hashBytes is the snapshot hash of a canonical encoding.
func hashBytes(canon []byte) string {
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}
