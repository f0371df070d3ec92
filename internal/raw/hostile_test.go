package raw

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom"
)

// rawEntry returns the byte position of tag's 12-byte entry in the raw IFD (the
// first SubIFD) of a little-endian file Synth wrote.
func rawEntry(t *testing.T, b []byte, tag uint16) int {
	t.Helper()
	le := binary.LittleEndian
	find := func(ifd uint32, tag uint16) int {
		n := int(le.Uint16(b[ifd:]))
		for i := range n {
			p := int(ifd) + 2 + 12*i
			if le.Uint16(b[p:]) == tag {
				return p
			}
		}
		return -1
	}
	ifd0 := le.Uint32(b[4:])
	sub := find(ifd0, tagSubIFDs)
	p := find(le.Uint32(b[sub+8:]), tag)
	if p < 0 {
		t.Fatalf("tag %d not written", tag)
	}
	return p
}

func small(t *testing.T, mod func(s *Synth)) []byte {
	t.Helper()
	w, h := 32, 24
	pix := make([]float32, 3*w*h)
	for i := range pix {
		pix[i] = float32(i%97) / 120
	}
	s := baseSynth()
	if mod != nil {
		mod(&s)
	}
	b, err := s.Encode(pix, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostile feeds headers that lie and kinds of DNG the reader does not read:
// each is refused from its header, with the code and the words a user needs.
func TestHostile(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name     string
		file     func(t *testing.T) []byte
		code     string
		contains string
	}{
		{"huge dimensions", func(t *testing.T) []byte {
			b := small(t, nil)
			le.PutUint32(b[rawEntry(t, b, tagImageWidth)+8:], 1<<20)
			le.PutUint32(b[rawEntry(t, b, tagImageLength)+8:], 1<<20)
			return b
		}, darkroom.LimitExceeded, "above the limit"},
		{"tile offset past the end", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.Tile = 16 })
			e := rawEntry(t, b, tagTileOffsets)
			le.PutUint32(b[le.Uint32(b[e+8:]):], uint32(len(b)-10))
			return b
		}, darkroom.InvalidInput, "past the end"},
		{"strip too short for its pixels", func(t *testing.T) []byte {
			b := small(t, nil)
			le.PutUint32(b[rawEntry(t, b, tagStripByteCounts)+8:], 100)
			return b
		}, darkroom.InvalidInput, "its pixels need"},
		{"linearization table of 2^31 entries", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.Bits = 8; s.Linearize = true })
			le.PutUint32(b[rawEntry(t, b, tagLinearization)+4:], 1<<31)
			return b
		}, darkroom.InvalidInput, "past the end"},
		{"lossy JPEG DNG", func(t *testing.T) []byte {
			b := small(t, nil)
			le.PutUint16(b[rawEntry(t, b, tagCompression)+8:], compLossyJPEG)
			return b
		}, darkroom.InvalidInput, "lossy JPEG"},
		{"JPEG XL DNG", func(t *testing.T) []byte {
			b := small(t, nil)
			le.PutUint16(b[rawEntry(t, b, tagCompression)+8:], compJPEGXL)
			return b
		}, darkroom.InvalidInput, "JPEG XL"},
		{"baseline JPEG inside compression 7", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.LJ92 = true })
			i := bytes.Index(b, []byte{0xFF, 0xC3})
			b[i+1] = 0xC0
			return b
		}, darkroom.InvalidInput, "lossy JPEG"},
		{"6x6 repeat dims over a 2x2 pattern", func(t *testing.T) []byte {
			b := small(t, nil)
			e := rawEntry(t, b, tagCFARepeatPatternDim)
			le.PutUint16(b[e+8:], 6)
			le.PutUint16(b[e+10:], 6)
			return b
		}, darkroom.InvalidInput, "the CFA pattern has 4 values, CFARepeatPatternDim 6x6 needs 36"},
		{"6x2 repeat dims", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.XTrans = FujiXTrans })
			e := rawEntry(t, b, tagCFARepeatPatternDim)
			le.PutUint16(b[e+10:], 2)
			return b
		}, darkroom.InvalidInput, "a 2x6 CFA pattern is not supported; 2x2 (Bayer) and 6x6 (X-Trans) patterns are"},
		{"X-Trans pattern naming colour 7", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.XTrans = FujiXTrans })
			e := rawEntry(t, b, tagCFAPattern)
			b[le.Uint32(b[e+8:])+20] = 7
			return b
		}, darkroom.InvalidInput, "the CFA pattern names colour 7, not red, green or blue"},
		{"6x6 pattern with an all-green 3x3 window", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.XTrans = FujiXTrans })
			e := rawEntry(t, b, tagCFAPattern)
			at := le.Uint32(b[e+8:])
			for k := range 9 {
				b[int(at)+6*(k/3)+k%3] = 1
			}
			return b
		}, darkroom.InvalidInput, "the 6x6 CFA pattern's 3x3 window at row 0, column 0 lacks red, green or blue"},
		{"6x6 black repeat with 4 values", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.XTrans = FujiXTrans; s.Black = []float64{500, 510, 520, 530} })
			e := rawEntry(t, b, tagBlackRepeatDim)
			le.PutUint16(b[e+8:], 6)
			le.PutUint16(b[e+10:], 6)
			return b
		}, darkroom.InvalidInput, "BlackLevel has 4 values, BlackLevelRepeatDim needs 36"},
		{"truncated lossless JPEG", func(t *testing.T) []byte {
			b := small(t, func(s *Synth) { s.LJ92 = true })
			i := bytes.Index(b, []byte{0xFF, 0xDA})
			for k := i + 20; k < i+200 && k < len(b); k++ {
				b[k] = 0xFF // a run of markers: the coded data ends early
			}
			return b
		}, darkroom.InvalidInput, "lossless JPEG"},
		{"directory loop", func(t *testing.T) []byte {
			b := small(t, nil)
			e := rawEntry(t, b, tagImageWidth)
			_ = e
			// IFD0's next pointer back to itself.
			ifd0 := le.Uint32(b[4:])
			n := le.Uint16(b[ifd0:])
			le.PutUint32(b[int(ifd0)+2+12*int(n):], ifd0)
			return b
		}, darkroom.InvalidInput, "loop"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.file(t)
			f, err := Probe(b, 100_000_000)
			if err == nil {
				_, err = f.Decode(Options{})
			}
			if err == nil {
				t.Fatal("decoded")
			}
			if got := darkroom.Code(err); got != tc.code || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("got %s %q, want %s containing %q", got, err, tc.code, tc.contains)
			}
		})
	}
}

// TestOpcodesNamed: opcodes are not applied, and the warnings name them.
func TestOpcodesNamed(t *testing.T) {
	f, err := Probe(small(t, func(s *Synth) { s.Opcodes = true }), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "OpcodeList2") || !strings.Contains(f.Warnings[0], "GainMap") {
		t.Errorf("warnings %q", f.Warnings)
	}
}
