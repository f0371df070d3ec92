package server

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// headScanner reads what the transport needs to answer a message it cannot hand to
// the SDK: the request's id (as its exact bytes), its method, the tool a tools/call
// names, and how deep the message nests. It is fed a line in pieces of any size and
// keeps only those few small values, so it can read an over-long line while the line
// is being skipped, in memory that does not grow with the line. It is tolerant, not a
// validator: on broken JSON it reports what it could read, and callers check an id's
// bytes before echoing them (see head.replyID).
//
// Only two levels are tracked: the message object (depth 1) and its params object
// (depth 2). Deeper levels are counted, never stored, so a line of ten million
// brackets costs a counter. Strings are skipped with bytes.IndexByte, so a base64
// payload of many MiB passes at memory speed.
type headScanner struct {
	depth, maxDepth int
	inString        bool
	escape          bool
	inLiteral       bool

	// isObject and expectKey describe the containers at depth 1 and 2; inParams
	// says the depth-2 container is the message's params object.
	isObject  [3]bool
	expectKey [3]bool
	inParams  bool
	key       [3]string // the current key at depth 1 and 2

	// The value being captured: a key, or one of the values below.
	capture  *[]byte
	capLimit int
	capOver  bool
	keyBuf   []byte
	target   int // what the capture is for: capKey, capID, capMethod, capTool
	targetAt int // the depth of the capture

	id, method, tool []byte
	idBad            bool // the id's value is an object or an array
	hasMethod        bool // the message has a method key: a request, not a reply
}

const (
	capNone = iota
	capKey
	capID
	capMethod
	capTool
)

// maxCapture bounds each captured value: keys longer than this are no key we look
// for, and an id this long is not echoed from a line the SDK did not decode.
const maxCapture = 4 << 10

// lineHead is what a headScanner read from one line.
type lineHead struct {
	id       []byte // the id's exact bytes; nil when absent or unreadable
	request  bool   // the line has a method key: it is a request, not a reply
	method   string
	tool     string // params.name
	maxDepth int
}

func scanHead(line []byte) lineHead {
	var s headScanner
	s.Write(line)
	return s.head()
}

// Write feeds the next piece of the line.
func (s *headScanner) Write(p []byte) {
	for i := 0; i < len(p); {
		if s.inString {
			if s.escape {
				s.capByte(p[i])
				s.escape = false
				i++
				continue
			}
			rest := p[i:]
			q := bytes.IndexByte(rest, '"')
			seg := rest
			if q >= 0 {
				seg = rest[:q]
			}
			if b := bytes.IndexByte(seg, '\\'); b >= 0 {
				s.capBytes(rest[:b+1])
				s.escape = true
				i += b + 1
				continue
			}
			if q < 0 {
				s.capBytes(rest)
				return
			}
			s.capBytes(rest[:q+1])
			s.inString = false
			s.endValue()
			i += q + 1
			continue
		}
		c := p[i]
		if s.inLiteral {
			if isLiteralByte(c) {
				s.capByte(c)
				i++
				continue
			}
			s.inLiteral = false
			s.endValue()
		}
		i++
		switch c {
		case ' ', '\t', '\r', '\n':
		case '"':
			s.inString = true
			s.startValue(true)
			s.capByte(c)
		case '{', '[':
			s.open(c == '{')
		case '}', ']':
			s.capture = nil
			if s.depth > 0 {
				s.depth--
			}
			if s.depth < 2 {
				s.inParams = false
			}
		case ':':
			if s.depth == 1 || s.depth == 2 {
				s.expectKey[s.depth] = false
			}
		case ',':
			if s.depth == 1 || s.depth == 2 {
				s.expectKey[s.depth] = s.isObject[s.depth]
				s.key[s.depth] = ""
			}
		default:
			s.inLiteral = true
			s.startValue(false)
			s.capByte(c)
		}
	}
}

func isLiteralByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
}

// startValue begins a string or a literal at the current depth and decides whether
// it is captured.
func (s *headScanner) startValue(str bool) {
	s.capture, s.capOver, s.target = nil, false, capNone
	d := s.depth
	if d != 1 && !(d == 2 && s.inParams) {
		return
	}
	s.targetAt = d
	switch {
	case s.expectKey[d]:
		if str {
			s.target = capKey
		}
	case d == 1 && s.key[1] == "id":
		s.target = capID
	case d == 1 && s.key[1] == "method" && str:
		s.target = capMethod
	case d == 2 && s.key[2] == "name" && str:
		s.target = capTool
	}
	if s.target != capNone {
		s.keyBuf = s.keyBuf[:0]
		s.capture = &s.keyBuf
	}
}

// endValue finishes the string or literal that was being read.
func (s *headScanner) endValue() {
	if s.capture == nil {
		return
	}
	v := *s.capture
	s.capture = nil
	if s.capOver {
		if s.target == capID {
			s.id, s.idBad = nil, false
		}
		return
	}
	switch s.target {
	case capKey:
		s.key[s.targetAt] = decodeKey(v)
		if s.targetAt == 1 && s.key[1] == "method" {
			s.hasMethod = true
		}
	case capID:
		s.id, s.idBad = append([]byte(nil), v...), false
	case capMethod:
		s.method = append(s.method[:0], v...)
	case capTool:
		s.tool = append(s.tool[:0], v...)
	}
}

func (s *headScanner) open(object bool) {
	s.capture = nil
	if s.depth == 1 && !s.expectKey[1] {
		switch s.key[1] {
		case "id":
			s.id, s.idBad = nil, true
		case "params":
			s.inParams = object && s.isObject[1]
		}
	}
	s.depth++
	if s.depth > s.maxDepth {
		s.maxDepth = s.depth
	}
	if s.depth <= 2 {
		s.isObject[s.depth] = object
		s.expectKey[s.depth] = object
		s.key[s.depth] = ""
	}
}

func (s *headScanner) capByte(c byte) {
	if s.capture == nil {
		return
	}
	if len(*s.capture) >= maxCapture {
		s.capOver = true
		return
	}
	*s.capture = append(*s.capture, c)
}

func (s *headScanner) capBytes(b []byte) {
	if s.capture == nil {
		return
	}
	if len(*s.capture)+len(b) > maxCapture {
		s.capOver = true
		return
	}
	*s.capture = append(*s.capture, b...)
}

// head finishes the line and reports what was read.
func (s *headScanner) head() lineHead {
	if s.inLiteral {
		s.inLiteral = false
		s.endValue()
	}
	h := lineHead{maxDepth: s.maxDepth, request: s.hasMethod, method: decodeString(s.method), tool: decodeString(s.tool)}
	if !s.idBad && validID(s.id) {
		h.id = s.id
	}
	return h
}

// decodeKey returns a key's text: it is compared with "id", "method", "params" and
// "name", which JSON may spell with escapes.
func decodeKey(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	return decodeString(raw)
}

func decodeString(raw []byte) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// validID reports whether raw is an id a reply may carry: a JSON string or number.
func validID(raw []byte) bool {
	if len(raw) == 0 || !json.Valid(raw) {
		return false
	}
	c := raw[0]
	return c == '"' || c == '-' || c >= '0' && c <= '9'
}

// idKey is the identity of an id for telling requests in flight apart: a string by
// its text (so "a" and "\u0061" are one id), a number by its exact digits.
func idKey(raw []byte) string {
	if raw[0] == '"' {
		return "s" + decodeString(raw)
	}
	return "n" + string(raw)
}

// sameID reports whether raw is the id the SDK decoded, which keeps strings exactly
// and turns numbers into int64 through float64: the scanner and the decoder must
// agree on which key was the id before the scanner's bytes are trusted.
func sameID(raw []byte, sdk any) bool {
	switch v := sdk.(type) {
	case string:
		return raw[0] == '"' && decodeString(raw) == v
	case int64:
		if raw[0] == '"' {
			return false
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return false
		}
		return int64(f) == v
	}
	return false
}
