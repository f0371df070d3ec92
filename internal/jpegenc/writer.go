// Copyright 2011 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// This file is forked from image/jpeg/writer.go (go1.26) and specialised to
// 4:2:0 *image.YCbCr input. See doc.go for what differs.

package jpegenc

import (
	"encoding/binary"
	"errors"
	"image"
	"io"
	"math/bits"
	"sync"
)

// unscaledQuant are the unscaled quantization tables in zig-zag order. Each
// encoder copies and scales the tables according to its quality parameter.
// The values are derived from section K.1 of the spec, after converting from
// natural to zig-zag order.
var unscaledQuant = [2][blockSize]byte{
	// Luminance.
	{
		16, 11, 12, 14, 12, 10, 16, 14,
		13, 14, 18, 17, 16, 19, 24, 40,
		26, 24, 22, 22, 24, 49, 35, 37,
		29, 40, 58, 51, 61, 60, 57, 51,
		56, 55, 64, 72, 92, 78, 64, 68,
		87, 69, 55, 56, 80, 109, 81, 87,
		95, 98, 103, 104, 103, 62, 77, 113,
		121, 112, 100, 120, 92, 101, 103, 99,
	},
	// Chrominance.
	{
		17, 18, 18, 24, 21, 24, 47, 26,
		26, 47, 99, 66, 56, 66, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
	},
}

// unzig maps from the zig-zag ordering to the natural ordering. For example,
// unzig[3] is the column and row of the fourth element in zig-zag order. The
// value is 16, which means first column (16%8 == 0) and third row (16/8 == 2).
var unzig = [blockSize]uint8{
	0, 1, 8, 16, 9, 2, 3, 10,
	17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34,
	27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36,
	29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46,
	53, 60, 61, 54, 47, 55, 62, 63,
}

// unzigT maps from the zig-zag ordering to the block's (transposed) order:
// unzigT[zig] = transposed(unzig[zig]).
var unzigT = func() (t [blockSize]uint8) {
	for zig, k := range unzig {
		t[zig] = uint8(transposed(int(k)))
	}
	return t
}()

// zigOf is the inverse of unzig: zigOf[k] is the zig-zag position of the
// natural-order index k.
var zigOf = func() (z [blockSize]uint8) {
	for zig, k := range unzig {
		z[k] = uint8(zig)
	}
	return z
}()

// huffmanSpec specifies a Huffman encoding.
type huffmanSpec struct {
	// count[i] is the number of codes of length i+1 bits.
	count [16]byte
	// value[i] is the decoded value of the i'th codeword.
	value []byte
}

// theHuffmanSpec is the Huffman encoding specifications: the ones of section
// K.3 of the spec, in the order luminance DC, luminance AC, chrominance DC,
// chrominance AC.
var theHuffmanSpec = [4]huffmanSpec{
	// Luminance DC.
	{
		[16]byte{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
		[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
	},
	// Luminance AC.
	{
		[16]byte{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125},
		[]byte{
			0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12,
			0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
			0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08,
			0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
			0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16,
			0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
			0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39,
			0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
			0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
			0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
			0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79,
			0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
			0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98,
			0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
			0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
			0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
			0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4,
			0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
			0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
			0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
			0xf9, 0xfa,
		},
	},
	// Chrominance DC.
	{
		[16]byte{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
		[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
	},
	// Chrominance AC.
	{
		[16]byte{0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119},
		[]byte{
			0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21,
			0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
			0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91,
			0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
			0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34,
			0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
			0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38,
			0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
			0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
			0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
			0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,
			0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
			0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96,
			0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
			0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
			0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
			0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2,
			0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
			0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9,
			0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
			0xf9, 0xfa,
		},
	},
}

// huffCode is a compiled Huffman code: the codeword in the high 24 bits and
// its length in bits (at most 16) in the low 8 bits. A zero huffCode means
// the symbol has no code.
type huffCode uint32

// huffTable maps every 8-bit symbol to its code.
type huffTable [256]huffCode

func (h *huffTable) init(s huffmanSpec) {
	code, k := uint32(0), 0
	for i := 0; i < len(s.count); i++ {
		for j := uint8(0); j < s.count[i]; j++ {
			h[s.value[k]] = huffCode(code<<8 | uint32(i+1))
			code++
			k++
		}
		code <<= 1
	}
}

// Compiled Huffman tables, indexed by table class: 0 is luminance, 1 is
// chrominance.
var (
	dcTables [2]huffTable
	acTables [2]huffTable
)

func init() {
	for i := range 2 {
		dcTables[i].init(theHuffmanSpec[2*i])
		acTables[i].init(theHuffmanSpec[2*i+1])
	}
	for class := range smallACCodes {
		for run := range 16 {
			for v := int32(-smallAC); v < smallAC; v++ {
				vb := valBits[v+valBitsOff]
				size := vb & 0xf
				h := acTables[class][run<<4|int(size)]
				code := (uint32(h>>8)<<size | vb>>4) << 8
				smallACCodes[class][run<<(smallACBits+1)|int(v+smallAC)] = code | uint32(h&0xff) + size
			}
		}
	}
	for i := range 8 {
		for r := range 256 {
			for j := range 8 {
				if r&(1<<j) != 0 {
					zigMask[i][r] |= 1 << zigOf[8*i+j]
					zigMaskT[i][r] |= 1 << zigOf[8*j+i]
				}
			}
		}
	}
}

// valBits[v+valBitsOff] holds, for a coefficient or DC delta v, its size
// category (bits.Len of |v|) in the low 4 bits and above them the size low
// bits of v (of v-1 when v < 0), which follow the Huffman code of the
// category. The FDCT's DC output is the sum of the 64 samples minus 8192, in
// [-8192, 8128], and its AC outputs are at most 8160 in magnitude, so with
// divisors of at least 8 quantized DC values lie in [-1024, 1016], DC deltas
// in [-2040, 2040] and AC values in [-1020, 1020]: all within the table.
var valBits = func() (t [4096]uint32) {
	for i := range t {
		v := int32(i - valBitsOff)
		s := v >> 31
		size := uint32(bits.Len32(uint32((v ^ s) - s)))
		t[i] = uint32(v+s)&(1<<size-1)<<4 | size
	}
	return t
}()

const valBitsOff = 2048

// smallACCodes[class][run<<(smallACBits+1) | (v+smallAC)] is, for an AC
// value v with |v| < smallAC after a run of zeros (0 to 15), the whole code
// that the Huffman coder emits for it: the class's Huffman code of
// run<<4 | size followed by the value bits (see valBits), shifted left 8,
// plus the length in bits. Most AC values of a photograph are that small,
// and one lookup replaces two and the arithmetic that joins them. The table
// (16 KiB) is filled by init, after acTables.
var smallACCodes [2][16 << (smallACBits + 1)]uint32

const (
	smallACBits = 6
	smallAC     = 1 << smallACBits
)

// Marker bytes used by the encoder.
const (
	sof0Marker = 0xc0 // Start Of Frame (Baseline Sequential).
	dhtMarker  = 0xc4 // Define Huffman Table.
	dqtMarker  = 0xdb // Define Quantization Table.
)

// sosHeaderYCbCr is the SOS marker "\xff\xda" followed by 12 bytes:
//   - the marker length "\x00\x0c",
//   - the number of components "\x03",
//   - component 1 uses DC table 0 and AC table 0 "\x01\x00",
//   - component 2 uses DC table 1 and AC table 1 "\x02\x11",
//   - component 3 uses DC table 1 and AC table 1 "\x03\x11",
//   - the bytes "\x00\x3f\x00". Section B.2.3 of the spec says that for
//     sequential DCTs, those bytes (8-bit Ss, 8-bit Se, 4-bit Ah, 4-bit Al)
//     should be 0x00, 0x3f, 0x00<<4 | 0x00.
var sosHeaderYCbCr = []byte{
	0xff, 0xda, 0x00, 0x0c, 0x03, 0x01, 0x00, 0x02,
	0x11, 0x03, 0x11, 0x00, 0x3f, 0x00,
}

// quantTable holds one quantization table prepared for the quantizers, in
// the block's (transposed) order.
//
// image/jpeg quantizes an FDCT output a with div(a, d), d = 8*q, which
// rounds half away from zero: (a + h) / d for a >= 0 and -((-a + h) / d) for
// a < 0, with h = d/2 (d is even). For a < 0, -((-a+h)/d) = ceil((a-h)/d) =
// ceil((a+h)/d) - 1 = floor((a+h-1)/d), so for every a
//
//	div(a, d) = floor((a + h + s) / d), where s = a>>31 (-1 or 0).
//
// Adding quantBias*d to the numerator makes it non-negative for every
// |a| <= 2^16 (quantBias*d >= 2^17), so the floor is a plain unsigned
// division, which is done as a multiplication by mul = ceil(2^40/d) and a
// shift: with err = mul*d - 2^40 in [0, d), n*mul/2^40 = n/d + n*err/(d*2^40),
// and the second term is below 1/d for every n < 2^29 (err < 2^11), while the
// fractional part of n/d is at most (d-1)/d, so (n*mul)>>40 == floor(n/d).
// Here n < 2^16 + 2^10 + 2^14*2^11 < 2^26, and n*mul < 2^63. Hence
//
//	div(a, d) = int32(((a + s + c) * mul) >> 40) - quantBias, c = h + quantBias*d
//
// for all |a| <= 2^16, eight times the FDCT's output range (|a| <= 8192).
// TestQuantizeExhaustive checks every such a for every d.
//
// The AVX2 quantizer has no 64-bit lane multiply, so it divides the
// magnitude instead: div(a, d) = sign(a) * floor((|a| + h) / d), and with
// n = |a| + h <= M = 2^15 + h, floor(n/d) = (n * mul32) >> shift, where
// shift is the least k with M*(d-1) < 2^k and mul32 = ceil(2^k/d). By the
// argument above (err < d, so n*err <= M*(d-1) < 2^k) the result is exact,
// and as 2^k < 2*M*(d-1), mul32 <= 2^k/d + 1 < 2*M + 1, so n*mul32 <=
// M*(2*M+1) < 2^32 fits a 32-bit lane. This covers |a| <= 2^15, four times
// the FDCT's output range; TestQuantizeAVX2Exhaustive checks every such a.
type quantTable struct {
	c   [blockSize]uint64
	mul [blockSize]uint64

	// For the AVX2 quantizer: h, mul32 and shift.
	h, mul32, shift [blockSize]uint32
}

// quantBias is the multiple of d added to make quantizer numerators
// non-negative (see quantTable).
const quantBias = 1 << 14

func (t *quantTable) init(zigQuant *[blockSize]byte) {
	for zig, q := range zigQuant {
		d := 8 * uint64(q)
		k := transposed(int(unzig[zig]))
		t.c[k] = d>>1 + quantBias*d
		t.mul[k] = (1<<40 + d - 1) / d
		t.h[k], t.mul32[k], t.shift[k] = quant32(d)
	}
}

// quant32 returns the AVX2 quantizer's h, mul32 and shift for divisor d
// (see quantTable).
func quant32(d uint64) (h, mul32, shift uint32) {
	h = uint32(d >> 1)
	m := uint64(1<<15) + d>>1
	k := uint(0)
	for m*(d-1) >= 1<<k {
		k++
	}
	mul := (uint64(1)<<k + d - 1) / d
	if m*mul >= 1<<32 {
		panic("jpegenc: quantizer multiplier overflows 32 bits") // excluded by the argument above.
	}
	return h, uint32(mul), uint32(k)
}

// quantize returns image/jpeg's div(a, d) for the d whose c and mul are given
// (see quantTable), for |a| <= 2^16.
func quantize(a int32, c, mul uint64) int32 {
	n := uint64(int64(a+a>>31)) + c
	return int32((n*mul)>>40) - quantBias
}

// zigMask[i][r] is the zig-zag-order bit mask of the coefficients of row i
// (natural order 8*i to 8*i+7) whose bits are set in r, and zigMaskT[i][r]
// that of the coefficients of column i (natural order i, 8+i, ..., 56+i).
var zigMask, zigMaskT [8][256]uint64

const (
	// outBufSize is the size of the output buffer.
	outBufSize = 64 << 10
	// maxMCUBytes bounds the bytes that one MCU (six blocks) can add to the
	// output buffer. A block is at most 11+11 bits of DC plus 63 times 16+10
	// bits of AC (a ZRL stands for 16 zeros), under 210 bytes, twice that
	// with 0xFF stuffing; six blocks stay under 2600 bytes.
	maxMCUBytes = 4096
)

// outBuf is the output buffer: outBufSize bytes and 8 more, so that the
// Huffman coder's 4- and 8-byte accesses at an index masked to
// [0, outBufSize) need no bounds checks.
type outBuf [outBufSize + 8]byte

// encoder encodes an image to the JPEG format.
type encoder struct {
	w   io.Writer
	err error

	// buf[:n] holds output not yet written to w; n <= outBufSize.
	buf *outBuf
	n   int
	// acc holds nacc (< 32 between calls) pending bits, right-aligned.
	acc  uint64
	nacc uint

	// quant is the scaled quantization tables, in zig-zag order, as written
	// in the DQT marker.
	quant [2][blockSize]byte
	// qt is quant prepared for the quantizer.
	qt [2]quantTable

	// blk is the scratch DCT block.
	blk block
	// codes holds one block's codes (bits<<8 | length) between the loop
	// that finds them and the loop that emits them: the DC, at most 63 AC
	// values, 3 ZRLs (a ZRL stands for 16 zeros) and an EOB.
	codes [68]uint64
	// avx2 is useAVX2 when the encode started.
	avx2 bool

	// xs and ys describe the MCU columns and rows (see writeSOS).
	xs, ys axisMap

	// Scratch planes for MCUs that need image/jpeg's edge handling.
	yTmp  [16 * 16]byte
	cbTmp [8 * 8]byte
	crTmp [8 * 8]byte
}

// flush writes the buffered output to w.
func (e *encoder) flush() {
	if e.err == nil && e.n > 0 {
		_, e.err = e.w.Write(e.buf[:e.n])
	}
	e.n = 0
}

// write appends p to the output.
func (e *encoder) write(p []byte) {
	if outBufSize-e.n < len(p) {
		e.flush()
	}
	e.n += copy(e.buf[e.n:outBufSize], p)
}

// writeMarkerHeader writes the header for a marker with the given length.
func (e *encoder) writeMarkerHeader(marker uint8, markerlen int) {
	e.write([]byte{0xff, marker, uint8(markerlen >> 8), uint8(markerlen & 0xff)})
}

// writeDQT writes the Define Quantization Table marker.
func (e *encoder) writeDQT() {
	const markerlen = 2 + 2*(1+blockSize)
	e.writeMarkerHeader(dqtMarker, markerlen)
	for i := range e.quant {
		e.write([]byte{uint8(i)})
		e.write(e.quant[i][:])
	}
}

// writeSOF0 writes the Start Of Frame (Baseline Sequential) marker for a
// three-component 4:2:0 image.
func (e *encoder) writeSOF0(size image.Point) {
	const nComponent = 3
	markerlen := 8 + 3*nComponent
	e.writeMarkerHeader(sof0Marker, markerlen)
	var buf [3*nComponent + 6]byte
	buf[0] = 8 // 8-bit color.
	buf[1] = uint8(size.Y >> 8)
	buf[2] = uint8(size.Y & 0xff)
	buf[3] = uint8(size.X >> 8)
	buf[4] = uint8(size.X & 0xff)
	buf[5] = nComponent
	for i := 0; i < nComponent; i++ {
		buf[3*i+6] = uint8(i + 1)
		// We use 4:2:0 chroma subsampling.
		buf[3*i+7] = "\x22\x11\x11"[i]
		buf[3*i+8] = "\x00\x01\x01"[i]
	}
	e.write(buf[:])
}

// writeDHT writes the Define Huffman Table marker.
func (e *encoder) writeDHT() {
	markerlen := 2
	for _, s := range theHuffmanSpec {
		markerlen += 1 + 16 + len(s.value)
	}
	e.writeMarkerHeader(dhtMarker, markerlen)
	for i, s := range theHuffmanSpec {
		e.write([]byte{"\x00\x10\x01\x11"[i]})
		e.write(s.count[:])
		e.write(s.value)
	}
}

// writeBlock encodes, with the class-th tables (0 luminance, 1 chrominance),
// the 8x8 samples src[off+r*stride+i] and returns the quantized DC value.
// The caller guarantees room for maxMCUBytes/6 bytes in e.buf.
func (e *encoder) writeBlock(src []byte, off, stride int, class int, prevDC int32) int32 {
	var mask uint64
	if e.avx2 {
		mask = fdctQuantAVX2(&e.blk, src, off, stride, &e.qt[class])
	} else {
		mask = fdctQuantGo(&e.blk, src, off, stride, &e.qt[class])
	}

	// Collect the block's codes, each as its bits << 8 | its length, in
	// e.codes, then emit them. Two loops rather than one keep the live values
	// of each in registers.
	codes := &e.codes

	// The DC delta: its size category's code, then the low size bits of the
	// delta (minus one if negative).
	dc := e.blk[0]
	{
		vb := valBits[uint32(dc-prevDC+valBitsOff)%uint32(len(valBits))]
		size := uint(vb & 0xf)
		h := dcTables[class][size]
		codes[0] = (uint64(h>>8)<<size|uint64(vb>>4))<<8 | uint64(h&0xff) + uint64(size)
	}
	k := 1

	// The non-zero AC components in zig-zag order, each with the run of zeros
	// before it, then EOB unless the last component is non-zero.
	act, sac := &acTables[class&1], &smallACCodes[class&1]
	last := 0
	for m := mask &^ 1; m != 0; m &= m - 1 {
		z := bits.TrailingZeros64(m)
		run := z - last - 1
		last = z
		for run > 15 {
			h := act[0xf0] // ZRL: a run of 16 zeros.
			codes[k] = uint64(h>>8)<<8 | uint64(h&0xff)
			k++
			run -= 16
		}
		v := e.blk[unzigT[z&63]&63]
		if i := uint32(v + smallAC); i < 2*smallAC {
			codes[k] = uint64(sac[uint32(run&15)<<(smallACBits+1)|i])
		} else {
			vb := valBits[uint32(v+valBitsOff)%uint32(len(valBits))]
			size := uint(vb & 0xf)
			h := act[uint8(run<<4)|uint8(size)]
			codes[k] = (uint64(h>>8)<<size|uint64(vb>>4))<<8 | uint64(h&0xff) + uint64(size)
		}
		k++
	}
	if last != blockSize-1 {
		h := act[0x00] // EOB.
		codes[k] = uint64(h>>8)<<8 | uint64(h&0xff)
		k++
	}

	// Append each code to the bit accumulator acc, which holds nacc < 32
	// pending bits, and write out 32 bits once there are that many. The 4
	// bytes are stored every time and kept only when complete, so that there
	// is no unpredictable branch. 0xFF bytes are stuffed afterwards.
	buf, n, acc, nacc := e.buf, e.n, e.acc, e.nacc
	n0 := n
	for _, c := range codes[:k] {
		nb := uint(c & 0x3f) // at most 16+11 bits.
		acc = acc<<nb | c>>8
		nacc += nb
		binary.BigEndian.PutUint32(buf[n&(outBufSize-1):], uint32(acc>>((nacc-32)&63)))
		n += int(nacc >> 5 * 4)
		nacc &= 31
	}
	// Each 0xFF byte of the entropy-coded data must be followed by a 0x00.
	// Most blocks have none; look 8 bytes at a time (the 4 bytes past n that
	// the last word may include can only cause a needless call).
	for i := n0; i < n; i += 8 {
		x := ^binary.LittleEndian.Uint64(buf[i&(outBufSize-1):])
		if (x-0x0101010101010101)&^x&0x8080808080808080 != 0 {
			n = stuff(buf, n0, n)
			break
		}
	}

	e.n, e.acc, e.nacc = n, acc, nacc
	return dc
}

// stuff inserts a 0x00 after each 0xFF byte of buf[n0:n], moving the bytes
// after it up, and returns the new end.
func stuff(buf *outBuf, n0, n int) int {
	ff := 0
	for _, b := range buf[n0:n] {
		if b == 0xff {
			ff++
		}
	}
	end := n + ff
	for i, j := n-1, end; ff > 0; i-- {
		b := buf[i]
		if b == 0xff {
			j--
			buf[j] = 0
			ff--
		}
		j--
		buf[j] = b
	}
	return end
}

// padBits pads the bit-stream as image/jpeg does: it emits seven 1 bits and
// writes out the whole bytes, dropping any bits left over.
func (e *encoder) padBits() {
	if outBufSize-e.n < 16 {
		e.flush()
	}
	e.acc = e.acc<<7 | 0x7f
	e.nacc += 7
	for e.nacc >= 8 {
		e.nacc -= 8
		b := byte(e.acc >> e.nacc)
		e.buf[e.n] = b
		e.n++
		if b == 0xff {
			e.buf[e.n] = 0
			e.n++
		}
	}
	e.acc, e.nacc = 0, 0
}

// axisMap describes, along one axis (x or y) of the image, how the MCUs of
// that axis read the planes, reproducing image/jpeg's coordinate clamping
// and YCbCr.COffset arithmetic.
type axisMap struct {
	// fast[k] reports whether MCU k along this axis lies fully inside the
	// image and its 16 pixels map to 8 consecutive chroma samples, two
	// pixels per sample, so image/jpeg's 2x2 averaging of per-pixel chroma
	// yields the stored chroma samples unchanged.
	fast []bool
	// c0[k] is, for a fast MCU k, the chroma index (relative to the plane
	// origin, before multiplying by the stride) of its first pixel.
	c0 []int
}

// init sets a to the axisMap for an axis starting at min with size pixels,
// for which MCU k covers min+16*k to min+16*k+15. It reuses a's slices.
func (a *axisMap) init(min, size int) {
	nMCU := (size + 15) / 16
	if cap(a.fast) < nMCU {
		a.fast = make([]bool, nMCU)
		a.c0 = make([]int, nMCU)
	}
	a.fast, a.c0 = a.fast[:nMCU], a.c0[:nMCU]
	cOff := func(p int) int { return p/2 - min/2 }
	for k := range nMCU {
		p0 := min + 16*k
		fast := 16*k+16 <= size
		for i := 0; fast && i < 16; i++ {
			fast = cOff(p0+i) == cOff(p0)+i/2
		}
		a.fast[k] = fast
		a.c0[k] = cOff(p0)
	}
}

// loadEdgeMCU fills e.yTmp, e.cbTmp and e.crTmp with the samples that
// image/jpeg's yCbCrToYCbCr and scale produce for the MCU whose top-left
// pixel is (x0, y0).
func (e *encoder) loadEdgeMCU(m *image.YCbCr, x0, y0 int) {
	r := m.Rect
	xmax, ymax := r.Max.X-1, r.Max.Y-1
	var yIdx, cIdx [16]int
	for i := range 16 {
		sx := min(x0+i, xmax)
		yIdx[i] = sx - r.Min.X
		cIdx[i] = sx/2 - r.Min.X/2
	}
	var cb, cr [16][16]int32
	for j := range 16 {
		sy := min(y0+j, ymax)
		yRow := (sy - r.Min.Y) * m.YStride
		cRow := (sy/2 - r.Min.Y/2) * m.CStride
		for i := range 16 {
			e.yTmp[16*j+i] = m.Y[yRow+yIdx[i]]
			ci := cRow + cIdx[i]
			cb[j][i] = int32(m.Cb[ci])
			cr[j][i] = int32(m.Cr[ci])
		}
	}
	for j := range 8 {
		for i := range 8 {
			e.cbTmp[8*j+i] = uint8((cb[2*j][2*i] + cb[2*j][2*i+1] + cb[2*j+1][2*i] + cb[2*j+1][2*i+1] + 2) >> 2)
			e.crTmp[8*j+i] = uint8((cr[2*j][2*i] + cr[2*j][2*i+1] + cr[2*j+1][2*i] + cr[2*j+1][2*i+1] + 2) >> 2)
		}
	}
}

// writeSOS writes the StartOfScan marker and the entropy-coded image data.
func (e *encoder) writeSOS(m *image.YCbCr) {
	e.write(sosHeaderYCbCr)
	r := m.Rect
	xs, ys := &e.xs, &e.ys
	xs.init(r.Min.X, r.Dx())
	ys.init(r.Min.Y, r.Dy())
	yStride, cStride := m.YStride, m.CStride
	var prevDCY, prevDCCb, prevDCCr int32
	for my := range ys.fast {
		y0 := r.Min.Y + 16*my
		for mx := range xs.fast {
			if e.err != nil {
				return
			}
			if outBufSize-e.n < maxMCUBytes {
				e.flush()
			}
			x0 := r.Min.X + 16*mx
			if xs.fast[mx] && ys.fast[my] {
				yOff := (y0-r.Min.Y)*yStride + (x0 - r.Min.X)
				prevDCY = e.writeBlock(m.Y, yOff, yStride, 0, prevDCY)
				prevDCY = e.writeBlock(m.Y, yOff+8, yStride, 0, prevDCY)
				prevDCY = e.writeBlock(m.Y, yOff+8*yStride, yStride, 0, prevDCY)
				prevDCY = e.writeBlock(m.Y, yOff+8*yStride+8, yStride, 0, prevDCY)
				cOff := ys.c0[my]*cStride + xs.c0[mx]
				prevDCCb = e.writeBlock(m.Cb, cOff, cStride, 1, prevDCCb)
				prevDCCr = e.writeBlock(m.Cr, cOff, cStride, 1, prevDCCr)
			} else {
				e.loadEdgeMCU(m, x0, y0)
				prevDCY = e.writeBlock(e.yTmp[:], 0, 16, 0, prevDCY)
				prevDCY = e.writeBlock(e.yTmp[:], 8, 16, 0, prevDCY)
				prevDCY = e.writeBlock(e.yTmp[:], 8*16, 16, 0, prevDCY)
				prevDCY = e.writeBlock(e.yTmp[:], 8*16+8, 16, 0, prevDCY)
				prevDCCb = e.writeBlock(e.cbTmp[:], 0, 8, 1, prevDCCb)
				prevDCCr = e.writeBlock(e.crTmp[:], 0, 8, 1, prevDCCr)
			}
		}
	}
	// Pad the last byte with 1's.
	e.padBits()
}

// checkPlanes reports whether every sample that the encoder reads lies
// inside m's planes. Offsets are monotonic in x and y along each axis, so
// checking the four corners suffices.
func checkPlanes(m *image.YCbCr) bool {
	r := m.Rect
	xs := [2]int{r.Min.X, r.Max.X - 1}
	ys := [2]int{r.Min.Y, r.Max.Y - 1}
	for _, y := range ys {
		for _, x := range xs {
			yi := (y-r.Min.Y)*m.YStride + (x - r.Min.X)
			ci := (y/2-r.Min.Y/2)*m.CStride + (x/2 - r.Min.X/2)
			if yi < 0 || yi >= len(m.Y) || ci < 0 || ci >= len(m.Cb) || ci >= len(m.Cr) {
				return false
			}
		}
	}
	return true
}

// scaledQuant returns image/jpeg's quantization table of the given class (0
// luminance, 1 chrominance) for quality (1 to 100), in zig-zag order.
func scaledQuant(quality, class int) (q [blockSize]byte) {
	// Convert from a quality rating to a scaling factor.
	var scale int
	if quality < 50 {
		scale = 5000 / quality
	} else {
		scale = 200 - quality*2
	}
	for j := range q {
		x := int(unscaledQuant[class][j])
		x = (x*scale + 50) / 100
		if x < 1 {
			x = 1
		} else if x > 255 {
			x = 255
		}
		q[j] = uint8(x)
	}
	return q
}

// encoderPool holds encoders, with their output buffers, for reuse.
var encoderPool = sync.Pool{
	New: func() any { return &encoder{buf: new(outBuf)} },
}

// Encode writes m, which must be 4:2:0, as a baseline JPEG of the given quality
// (1 to 100; image/jpeg's quality scaling and tables). The file is byte-for-byte what
// image/jpeg.Encode(w, m, &jpeg.Options{Quality: quality}) writes for the same m.
func Encode(w io.Writer, m *image.YCbCr, quality int) error {
	if m == nil {
		return errors.New("jpegenc: nil image")
	}
	if m.SubsampleRatio != image.YCbCrSubsampleRatio420 {
		return errors.New("jpegenc: image is not 4:2:0 YCbCr")
	}
	b := m.Rect
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return errors.New("jpegenc: image is empty")
	}
	if b.Dx() >= 1<<16 || b.Dy() >= 1<<16 {
		return errors.New("jpegenc: image is too large to encode")
	}
	if quality < 1 || quality > 100 {
		return errors.New("jpegenc: quality is not in [1, 100]")
	}
	if !checkPlanes(m) {
		return errors.New("jpegenc: image planes are too small for its bounds")
	}

	e := encoderPool.Get().(*encoder)
	defer encoderPool.Put(e)
	e.w, e.err, e.n, e.acc, e.nacc = w, nil, 0, 0, 0
	e.avx2 = useAVX2
	defer func() { e.w = nil }()
	for i := range e.quant {
		e.quant[i] = scaledQuant(quality, i)
		e.qt[i].init(&e.quant[i])
	}
	// Write the Start Of Image marker.
	e.write([]byte{0xff, 0xd8})
	// Write the quantization tables.
	e.writeDQT()
	// Write the image dimensions.
	e.writeSOF0(b.Size())
	// Write the Huffman tables.
	e.writeDHT()
	// Write the image data.
	e.writeSOS(m)
	// Write the End Of Image marker.
	e.write([]byte{0xff, 0xd9})
	e.flush()
	return e.err
}
