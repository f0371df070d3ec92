package raw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Synth writes a DNG from a known linear image, the inverse of Decode: the image is
// mapped through the inverse colour matrix, divided by the white balance, scaled
// between the black and white levels, mosaicked through the CFA pattern and
// written uncompressed or as lossless JPEG, in strips or tiles. Tests, benchmarks
// and the shipped sample are made with it, so that no camera file is needed: what
// Decode should give back is known exactly.
type Synth struct {
	// CFA is the 2x2 pattern, (0,0) (1,0) (0,1) (1,1), 0 red 1 green 2 blue; unused
	// when Linear.
	CFA [4]uint8
	// XTrans, when set, is a 6x6 pattern (36 colours, row by row, such as
	// FujiXTrans) written instead of CFA.
	XTrans []uint8
	Linear bool // LinearRaw: three samples per pixel, no mosaic
	// ColorMatrix is XYZ to camera (ColorMatrix1, and ColorMatrix2 when
	// ColorMatrix2 is set), row-major; Illuminant1/2 their CalibrationIlluminants.
	ColorMatrix, ColorMatrix2 []float64
	Illuminant1, Illuminant2  int
	// ForwardMatrix, when set, is written as ForwardMatrix1 (and the image is
	// mapped through it instead of the colour matrix).
	ForwardMatrix []float64
	// Neutral is AsShotNeutral.
	Neutral [3]float64
	// Black is BlackLevel: one value, or one per site of a 2x2 (4 values) or 6x6
	// (36 values) BlackLevelRepeatDim (per sample when Linear: 12 values, 2x2),
	// its origin the ActiveArea's. DeltaH/V, when set, add BlackLevelDeltaH/V of
	// (column%4)*DeltaH and (row%4)*DeltaV.
	Black          []float64
	DeltaH, DeltaV float64
	White          int
	Bits           int // 8 to 16; 0 means 16
	// Linearize writes a LinearizationTable of 2^Bits entries, t[i] = White*(i/(2^Bits-1))^2,
	// and the samples through its inverse.
	Linearize    bool
	LJ92         bool
	Tile         int // tile side; 0 writes strips of RowsPerStrip rows
	RowsPerStrip int
	Orientation  int
	// Margin is the masked border around the ActiveArea (even); Crop the
	// DefaultCrop inside the active area as x, y, w, h (zero: none).
	Margin           int
	Crop             [4]int
	BaselineExposure float64
	BigEndian        bool
	Make, Model      string
	ISO              int
	ExposureTime     float64
	// Opcodes writes an OpcodeList2 holding a GainMap (which Decode ignores).
	Opcodes bool
}

// CameraValues returns the white-balanced camera values, scaled to white 1, of
// linear sRGB value rgb, the inverse of Decode's colour conversion.
func (s *Synth) CameraValues(rgb [3]float64) ([3]float64, error) {
	m, err := s.cameraMatrix()
	if err != nil {
		return [3]float64{}, err
	}
	return m.vec(rgb), nil
}

// cameraMatrix maps linear sRGB to white-balanced camera values.
func (s *Synth) cameraMatrix() (mat3, error) {
	cm := mat3FromSlice(s.ColorMatrix)
	var m mat3
	if s.ForwardMatrix != nil {
		m = rgbXYZD50.mul(mat3FromSlice(s.ForwardMatrix))
	} else {
		camRGB := cm.mul(XYZRGB)
		for i := range 3 {
			t := camRGB[i][0] + camRGB[i][1] + camRGB[i][2]
			for j := range 3 {
				camRGB[i][j] /= t
			}
		}
		var ok bool
		if m, ok = camRGB.inv(); !ok {
			return mat3{}, fmt.Errorf("singular colour matrix")
		}
	}
	inv, ok := m.inv()
	if !ok {
		return mat3{}, fmt.Errorf("singular colour matrix")
	}
	k := math.Exp2(-q4(s.BaselineExposure))
	for i := range 3 {
		for j := range 3 {
			inv[i][j] *= k
		}
	}
	return inv, nil
}

func mat3FromSlice(v []float64) mat3 {
	var m mat3
	for i := range 9 {
		m[i/3][i%3] = q4(v[i])
	}
	return m
}

// q4 rounds v as the file's rationals store it.
func q4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Encode writes the DNG of img, a w x h linear sRGB image as stored (before
// Orientation).
func (s *Synth) Encode(pix []float32, w, h int) ([]byte, error) {
	bitsPS := s.Bits
	if bitsPS == 0 {
		bitsPS = 16
	}
	nmax := max(s.Neutral[0], s.Neutral[1], s.Neutral[2])
	var neutral [3]float64
	for c := range 3 {
		neutral[c] = q4(s.Neutral[c]) / q4(nmax)
	}
	if s.XTrans != nil && (len(s.XTrans) != 36 || slices.Max(s.XTrans) > 2) {
		return nil, fmt.Errorf("an X-Trans pattern is 36 colours 0 to 2, not %v", s.XTrans)
	}
	spp := 1
	if s.Linear {
		spp = 3
	}
	m := s.Margin
	W, H := w+2*m, h+2*m
	samples := make([]uint16, W*H*spp)
	bdim := s.blackDim()
	black := func(x, y, c int) float64 {
		b := s.Black[0]
		if bdim > 1 {
			// The pattern's origin is the ActiveArea's.
			ax, ay := (x-m)%bdim+bdim, (y-m)%bdim+bdim
			k := (ay%bdim)*bdim + ax%bdim
			if s.Linear {
				b = s.Black[k*3+c]
			} else {
				b = s.Black[k]
			}
		}
		return b + float64(x%4)*s.DeltaH + float64(y%4)*s.DeltaV
	}
	toCam, err := s.cameraMatrix()
	if err != nil {
		return nil, err
	}
	maxCode := float64(uint64(1)<<bitsPS - 1)
	code := func(v float64, b float64) uint16 {
		level := b + v*(float64(s.White)-b)
		level = min(max(level, 0), float64(s.White))
		if s.Linearize {
			// The table maps code i to White*(i/maxCode)^2.
			return uint16(math.Round(math.Sqrt(level/float64(s.White)) * maxCode))
		}
		return uint16(math.Round(level))
	}
	for y := range H {
		for x := range W {
			if x < m || y < m || x >= m+w || y >= m+h {
				for c := range spp {
					samples[(y*W+x)*spp+c] = uint16(black(x, y, c) / 2) // masked pixels, below black
				}
				continue
			}
			p := pix[3*((y-m)*w+(x-m)):]
			cam := toCam.vec([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
			for c := range 3 {
				cam[c] *= neutral[c]
			}
			if s.Linear {
				for c := range 3 {
					samples[(y*W+x)*3+c] = code(cam[c], black(x, y, c))
				}
				continue
			}
			ax, ay := x-m, y-m
			c := s.CFA[(ay&1)*2+ax&1]
			if s.XTrans != nil {
				c = s.XTrans[(ay%6)*6+ax%6]
			}
			samples[y*W+x] = code(cam[c], black(x, y, 0))
		}
	}

	var bo byteOrder = binary.LittleEndian
	if s.BigEndian {
		bo = binary.BigEndian
	}
	t := &tiffWriter{bo: bo}
	// IFD0: a small thumbnail (NewSubFileType 1), the camera tags, SubIFDs -> raw.
	thumb := make([]byte, 16*16*3)
	for i := range thumb {
		thumb[i] = 128
	}
	ifd0 := []tiffTag{
		{tag: tagNewSubFileType, typ: 4, vals: []uint64{1}},
		{tag: tagImageWidth, typ: 4, vals: []uint64{16}},
		{tag: tagImageLength, typ: 4, vals: []uint64{16}},
		{tag: tagBitsPerSample, typ: 3, vals: []uint64{8, 8, 8}},
		{tag: tagCompression, typ: 3, vals: []uint64{1}},
		{tag: tagPhotometric, typ: 3, vals: []uint64{2}},
		{tag: tagMake, typ: 2, str: s.Make},
		{tag: tagModel, typ: 2, str: s.Model},
		{tag: tagStripOffsets, typ: 4, data: [][]byte{thumb}},
		{tag: tagOrientation, typ: 3, vals: []uint64{uint64(max(1, s.Orientation))}},
		{tag: tagSamplesPerPixel, typ: 3, vals: []uint64{3}},
		{tag: tagRowsPerStrip, typ: 4, vals: []uint64{16}},
		{tag: tagStripByteCounts, typ: 4, vals: []uint64{uint64(len(thumb))}},
		{tag: tagPlanarConfig, typ: 3, vals: []uint64{1}},
		{tag: tagDNGVersion, typ: 1, vals: []uint64{1, 4, 0, 0}},
		{tag: tagDNGVersion + 1, typ: 1, vals: []uint64{1, 1, 0, 0}}, // DNGBackwardVersion
		{tag: tagUniqueCameraModel, typ: 2, str: s.Make + " " + s.Model},
		{tag: tagColorMatrix1, typ: 10, reals: s.ColorMatrix},
		{tag: tagAsShotNeutral, typ: 5, reals: s.Neutral[:]},
		{tag: tagBaselineExposure, typ: 10, reals: []float64{s.BaselineExposure}},
		{tag: tagIlluminant1, typ: 3, vals: []uint64{uint64(max(s.Illuminant1, 0))}},
	}
	if s.Illuminant1 == 0 {
		ifd0[len(ifd0)-1].vals[0] = 21
	}
	if s.ColorMatrix2 != nil {
		ifd0 = append(ifd0, tiffTag{tag: tagColorMatrix2, typ: 10, reals: s.ColorMatrix2},
			tiffTag{tag: tagIlluminant2, typ: 3, vals: []uint64{uint64(s.Illuminant2)}})
	}
	if s.ForwardMatrix != nil {
		ifd0 = append(ifd0, tiffTag{tag: tagForwardMatrix1, typ: 10, reals: s.ForwardMatrix})
	}
	exif := []tiffTag{
		{tag: tagExposureTime, typ: 5, reals: []float64{s.ExposureTime}},
		{tag: tagISO, typ: 3, vals: []uint64{uint64(s.ISO)}},
	}

	raw := []tiffTag{
		{tag: tagNewSubFileType, typ: 4, vals: []uint64{0}},
		{tag: tagImageWidth, typ: 4, vals: []uint64{uint64(W)}},
		{tag: tagImageLength, typ: 4, vals: []uint64{uint64(H)}},
		{tag: tagSamplesPerPixel, typ: 3, vals: []uint64{uint64(spp)}},
		{tag: tagPlanarConfig, typ: 3, vals: []uint64{1}},
		{tag: tagWhiteLevel, typ: 4, vals: []uint64{uint64(s.White)}},
	}
	bps := make([]uint64, spp)
	for i := range bps {
		bps[i] = uint64(bitsPS)
	}
	raw = append(raw, tiffTag{tag: tagBitsPerSample, typ: 3, vals: bps})
	comp := uint64(compNone)
	if s.LJ92 {
		comp = compJPEG
	}
	raw = append(raw, tiffTag{tag: tagCompression, typ: 3, vals: []uint64{comp}})
	dim, pattern := 2, []uint64{uint64(s.CFA[0]), uint64(s.CFA[1]), uint64(s.CFA[2]), uint64(s.CFA[3])}
	if s.XTrans != nil {
		dim, pattern = 6, make([]uint64, len(s.XTrans))
		for i, c := range s.XTrans {
			pattern[i] = uint64(c)
		}
	}
	if s.Linear {
		raw = append(raw, tiffTag{tag: tagPhotometric, typ: 3, vals: []uint64{photoLinearRaw}})
	} else {
		raw = append(raw,
			tiffTag{tag: tagPhotometric, typ: 3, vals: []uint64{photoCFA}},
			tiffTag{tag: tagCFARepeatPatternDim, typ: 3, vals: []uint64{uint64(dim), uint64(dim)}},
			tiffTag{tag: tagCFAPattern, typ: 1, vals: pattern},
			tiffTag{tag: tagCFAPlaneColor, typ: 1, vals: []uint64{0, 1, 2}},
			tiffTag{tag: tagCFALayout, typ: 3, vals: []uint64{1}})
	}
	if bdim > 1 {
		raw = append(raw, tiffTag{tag: tagBlackRepeatDim, typ: 3, vals: []uint64{uint64(bdim), uint64(bdim)}})
	}
	raw = append(raw, tiffTag{tag: tagBlackLevel, typ: 5, reals: s.Black})
	if s.DeltaH != 0 {
		d := make([]float64, W)
		for x := range d {
			d[x] = float64(x%4) * s.DeltaH
		}
		raw = append(raw, tiffTag{tag: tagBlackDeltaH, typ: 10, reals: d})
	}
	if s.DeltaV != 0 {
		d := make([]float64, H)
		for y := range d {
			d[y] = float64(y%4) * s.DeltaV
		}
		raw = append(raw, tiffTag{tag: tagBlackDeltaV, typ: 10, reals: d})
	}
	if s.Linearize {
		n := 1 << bitsPS
		tab := make([]uint64, n)
		for i := range tab {
			tab[i] = uint64(math.Round(float64(s.White) * math.Pow(float64(i)/maxCode, 2)))
		}
		raw = append(raw, tiffTag{tag: tagLinearization, typ: 3, vals: tab})
	}
	if m > 0 {
		raw = append(raw, tiffTag{tag: tagActiveArea, typ: 4, vals: []uint64{uint64(m), uint64(m), uint64(m + h), uint64(m + w)}})
	}
	if s.Crop[2] > 0 {
		raw = append(raw,
			tiffTag{tag: tagDefaultCropOrigin, typ: 4, vals: []uint64{uint64(s.Crop[0]), uint64(s.Crop[1])}},
			tiffTag{tag: tagDefaultCropSize, typ: 4, vals: []uint64{uint64(s.Crop[2]), uint64(s.Crop[3])}})
	}
	if s.Opcodes {
		// One GainMap opcode, its parameters left empty.
		op := binary.BigEndian.AppendUint32(nil, 1)
		op = binary.BigEndian.AppendUint32(op, 9)
		op = binary.BigEndian.AppendUint32(op, 0x01030000)
		op = binary.BigEndian.AppendUint32(op, 1) // optional
		op = binary.BigEndian.AppendUint32(op, 0)
		raw = append(raw, tiffTag{tag: tagOpcodeList2, typ: 7, data: [][]byte{op}, blob: true})
	}

	// The pixels, in strips or tiles.
	tw, th := W, s.RowsPerStrip
	if th <= 0 {
		th = H
	}
	if s.Tile > 0 {
		tw, th = s.Tile, s.Tile
	}
	across, down := (W+tw-1)/tw, (H+th-1)/th
	var chunks [][]byte
	for ty := range down {
		for tx := range across {
			rows := th
			cols := tw
			if s.Tile == 0 {
				rows = min(th, H-ty*th)
			}
			tile := make([]uint16, rows*cols*spp)
			for y := range rows {
				for x := range cols {
					sx, sy := min(tx*tw+x, W-1), min(ty*th+y, H-1)
					copy(tile[(y*cols+x)*spp:][:spp], samples[(sy*W+sx)*spp:][:spp])
				}
			}
			if s.LJ92 {
				comps, jw := spp, cols
				if !s.Linear && cols%2 == 0 {
					comps, jw = 2, cols/2 // as Adobe's converter writes them
				}
				chunks = append(chunks, encodeLJ92(tile, jw, rows, comps, bitsPS))
			} else {
				chunks = append(chunks, packSamples(tile, cols*spp, rows, bitsPS, bo))
			}
		}
	}
	counts := make([]uint64, len(chunks))
	for i, c := range chunks {
		counts[i] = uint64(len(c))
	}
	if s.Tile > 0 {
		raw = append(raw,
			tiffTag{tag: tagTileWidth, typ: 4, vals: []uint64{uint64(tw)}},
			tiffTag{tag: tagTileLength, typ: 4, vals: []uint64{uint64(th)}},
			tiffTag{tag: tagTileOffsets, typ: 4, data: chunks},
			tiffTag{tag: tagTileByteCounts, typ: 4, vals: counts})
	} else {
		raw = append(raw,
			tiffTag{tag: tagRowsPerStrip, typ: 4, vals: []uint64{uint64(th)}},
			tiffTag{tag: tagStripOffsets, typ: 4, data: chunks},
			tiffTag{tag: tagStripByteCounts, typ: 4, vals: counts})
	}
	return t.write(ifd0, exif, raw), nil
}

// FujiXTrans is the 6x6 colour filter array of Fujifilm's X-Trans sensors, row by
// row (0 red, 1 green, 2 blue), in the phase dcraw and LibRaw list it: every 3x3
// block of it holds two red, five green and two blue sites.
var FujiXTrans = []uint8{
	1, 1, 0, 1, 1, 2,
	1, 1, 2, 1, 1, 0,
	2, 0, 1, 0, 2, 1,
	1, 1, 2, 1, 1, 0,
	1, 1, 0, 1, 1, 2,
	0, 2, 1, 2, 0, 1,
}

// blackDim is the side of the BlackLevelRepeatDim Black asks for.
func (s *Synth) blackDim() int {
	switch n := len(s.Black); {
	case n == 36 && !s.Linear:
		return 6
	case n > 1:
		return 2
	}
	return 1
}

// packSamples packs rows of n samples of b bits, each row starting on a byte.
func packSamples(s []uint16, n, rows, b int, bo byteOrder) []byte {
	var out []byte
	for y := range rows {
		row := s[y*n : (y+1)*n]
		switch b {
		case 16:
			for _, v := range row {
				out = bo.AppendUint16(out, v)
			}
		case 8:
			for _, v := range row {
				out = append(out, byte(v))
			}
		default:
			var acc uint64
			var nb uint
			for _, v := range row {
				acc = acc<<uint(b) | uint64(v)
				nb += uint(b)
				for nb >= 8 {
					out = append(out, byte(acc>>(nb-8)))
					nb -= 8
				}
			}
			if nb > 0 {
				out = append(out, byte(acc<<(8-nb)))
			}
		}
	}
	return out
}

// ljSymbols is the order of the fixed Huffman table's symbols (difference
// categories), most frequent first; ljLengths their code lengths.
var (
	ljSymbols = []uint8{6, 7, 8, 5, 9, 4, 10, 3, 11, 2, 12, 1, 0, 13, 14, 15, 16}
	ljLengths = []int{3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6}
)

// encodeLJ92 writes a lossless JPEG of w x h pixels of comps interleaved samples,
// predictor 1, one fixed Huffman table.
func encodeLJ92(s []uint16, w, h, comps, prec int) []byte {
	var counts [16]uint8
	for _, l := range ljLengths {
		counts[l-1]++
	}
	// Canonical codes in symbol order of increasing length.
	var code [17]uint32
	var length [17]int
	c := uint32(0)
	l := 1
	idx := make([]int, len(ljSymbols))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ljLengths[idx[a]] < ljLengths[idx[b]] })
	for _, i := range idx {
		for l < ljLengths[i] {
			c <<= 1
			l++
		}
		code[ljSymbols[i]], length[ljSymbols[i]] = c, l
		c++
	}
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	// DHT
	dht := []byte{0x00}
	dht = append(dht, counts[:]...)
	for _, i := range idx {
		dht = append(dht, ljSymbols[i])
	}
	b.Write([]byte{0xFF, 0xC4, byte((len(dht) + 2) >> 8), byte(len(dht) + 2)})
	b.Write(dht)
	// SOF3
	sof := []byte{byte(prec), byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(comps)}
	for i := range comps {
		sof = append(sof, byte(i+1), 0x11, 0)
	}
	b.Write([]byte{0xFF, 0xC3, byte((len(sof) + 2) >> 8), byte(len(sof) + 2)})
	b.Write(sof)
	sos := []byte{byte(comps)}
	for i := range comps {
		sos = append(sos, byte(i+1), 0x00)
	}
	sos = append(sos, 1, 0, 0) // predictor 1, Se 0, Ah/Al 0
	b.Write([]byte{0xFF, 0xDA, byte((len(sos) + 2) >> 8), byte(len(sos) + 2)})
	b.Write(sos)
	var acc uint64
	var nb uint
	put := func(v uint32, n int) {
		acc = acc<<uint(n) | uint64(v)&(1<<uint(n)-1)
		nb += uint(n)
		for nb >= 8 {
			by := byte(acc >> (nb - 8))
			b.WriteByte(by)
			if by == 0xFF {
				b.WriteByte(0)
			}
			nb -= 8
		}
	}
	n := w * comps
	for y := range h {
		for x := range w {
			for k := range comps {
				i := y*n + x*comps + k
				var p int32
				switch {
				case y == 0 && x == 0:
					p = 1 << (prec - 1)
				case y == 0:
					p = int32(s[i-comps])
				case x == 0:
					p = int32(s[i-n])
				default:
					p = int32(s[i-comps])
				}
				d := (int32(s[i]) - p) & 0xffff
				if d >= 0x8000 {
					d -= 0x10000
				}
				if d == -0x8000 {
					put(code[16], length[16])
					continue
				}
				a := d
				if a < 0 {
					a = -a
				}
				cat := bits.Len32(uint32(a))
				put(code[cat], length[cat])
				if cat > 0 {
					v := d
					if d < 0 {
						v = d - 1
					}
					put(uint32(v), cat)
				}
			}
		}
	}
	if nb > 0 {
		put(0x7f, int(8-nb)) // pad with ones
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

type tiffTag struct {
	tag   uint16
	typ   uint16
	vals  []uint64
	reals []float64
	str   string
	data  [][]byte // offsets to these blobs (as LONGs), or the blob itself when blob
	blob  bool
}

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

type tiffWriter struct {
	bo  byteOrder
	out []byte
}

// write lays out the header, IFD0 (with SubIFDs and ExifIFD pointers), the raw
// IFD, the EXIF IFD and every blob.
func (t *tiffWriter) write(ifd0, exif, raw []tiffTag) []byte {
	// Pass 1 places the directories; pointers are patched once offsets are known.
	t.out = nil
	if t.bo == byteOrder(binary.BigEndian) {
		t.out = append(t.out, "MM\x00*"...)
	} else {
		t.out = append(t.out, "II*\x00"...)
	}
	t.out = t.bo.AppendUint32(t.out, 8)
	ifd0 = append(ifd0, tiffTag{tag: tagSubIFDs, typ: 4, vals: []uint64{0}}, tiffTag{tag: tagExifIFD, typ: 4, vals: []uint64{0}})
	p0 := t.ifd(ifd0)
	pr := t.ifd(raw)
	pe := t.ifd(exif)
	// Patch the SubIFDs and ExifIFD values (inline LONGs).
	t.patch(p0, tagSubIFDs, uint32(pr.start))
	t.patch(p0, tagExifIFD, uint32(pe.start))
	return t.out
}

type placed struct {
	start  int
	inline map[uint16]int // tag -> offset of its inline value
}

func (t *tiffWriter) patch(p placed, tag uint16, v uint32) {
	t.bo.PutUint32(t.out[p.inline[tag]:], v)
}

func (t *tiffWriter) ifd(tags []tiffTag) placed {
	sort.Slice(tags, func(a, b int) bool { return tags[a].tag < tags[b].tag })
	if len(t.out)%2 == 1 {
		t.out = append(t.out, 0)
	}
	start := len(t.out)
	p := placed{start: start, inline: map[uint16]int{}}
	t.out = t.bo.AppendUint16(t.out, uint16(len(tags)))
	entries := len(t.out)
	t.out = append(t.out, make([]byte, 12*len(tags)+4)...)
	for i, tg := range tags {
		var val []byte
		count := 0
		switch {
		case tg.blob:
			val, count = tg.data[0], len(tg.data[0])
		case tg.data != nil:
			count = len(tg.data)
			val = make([]byte, 4*count) // patched below
		case tg.typ == 2:
			val = append([]byte(tg.str), 0)
			count = len(val)
		case tg.typ == 5 || tg.typ == 10:
			for _, r := range tg.reals {
				n, d := rational(r)
				val = t.bo.AppendUint32(val, uint32(n))
				val = t.bo.AppendUint32(val, d)
			}
			count = len(tg.reals)
		default:
			for _, v := range tg.vals {
				switch tg.typ {
				case 1:
					val = append(val, byte(v))
				case 3:
					val = t.bo.AppendUint16(val, uint16(v))
				default:
					val = t.bo.AppendUint32(val, uint32(v))
				}
			}
			count = len(tg.vals)
		}
		e := t.out[entries+12*i:]
		t.bo.PutUint16(e, tg.tag)
		t.bo.PutUint16(e[2:], tg.typ)
		t.bo.PutUint32(e[4:], uint32(count))
		var at int
		if len(val) <= 4 {
			copy(e[8:12], val)
			at = entries + 12*i + 8
		} else {
			if len(t.out)%2 == 1 {
				t.out = append(t.out, 0)
			}
			at = len(t.out)
			t.bo.PutUint32(t.out[entries+12*i+8:], uint32(at))
			t.out = append(t.out, val...)
		}
		p.inline[tg.tag] = at
		if tg.data != nil && !tg.blob {
			for k, d := range tg.data {
				if len(t.out)%2 == 1 {
					t.out = append(t.out, 0)
				}
				t.bo.PutUint32(t.out[at+4*k:], uint32(len(t.out)))
				t.out = append(t.out, d...)
			}
		}
	}
	return p
}

// rational approximates r as n/d with d = 10000 (exact for the test matrices).
func rational(r float64) (int32, uint32) {
	return int32(math.Round(r * 10000)), 10000
}
