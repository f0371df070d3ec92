// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegdec

// This file is forked from Go's image/jpeg/huffman.go (go1.26). The table
// construction is the same (including image/jpeg's 8-bit look-up table, which
// decides how malformed tables decode), but the decoder looks up lutBits bits
// at once and, for short codes, also gets the coefficient value that follows
// the code. The bit reader holds 64 bits and refills several bytes at a time.

import (
	"encoding/binary"
	"io"
)

// maxCodeLength is the maximum (inclusive) number of bits in a Huffman code.
const maxCodeLength = 16

// maxNCodes is the maximum (inclusive) number of codes in a Huffman tree.
const maxNCodes = 256

// lutSize is the log-2 size of image/jpeg's Huffman look-up table. It is
// still computed, because for malformed (over-subscribed) tables it decides
// which value a code decodes to.
const lutSize = 8

// lutBits is the log-2 size of this package's look-up table.
const lutBits = 10

// A look-up table entry (a uint32) is made of:
//
//	bits  0-3:  the code length plus the number of extra bits that follow
//	            the code, if both fit in lutBits (a "value" entry), else 0;
//	bits  4-7:  zero, so that the entry itself can be a shift count (x86
//	            shifts use its low 6 bits), which saves extracting it on the
//	            decoding loop's critical path;
//	bits  8-15: the decoded value (the symbol);
//	bits 16-19: the code length, or 0 if the code is longer than lutBits;
//	bits 20-31: for value entries, the extended (signed) extra bits: the DC
//	            difference or the AC coefficient (at most lutBits-1 bits).
//
// Value entries exist for DC tables' symbols 0-16 and AC tables' symbols with
// a non-zero size.
const (
	lutTotMask   = 0x0f
	lutSymShift  = 8
	lutLenShift  = 16
	lutLenMask   = 0x0f
	lutValShift  = 20
	lutRunShift  = 12 // The AC run is the high nibble of the symbol.
	lutRunMask   = 0x0f
	lutValueMask = lutTotMask
)

// huffman is a Huffman decoder, specified in section C.
type huffman struct {
	// length is the number of codes in the tree.
	nCodes int32
	// lut is the look-up table for the next lutBits bits in the bit-stream.
	lut [1 << lutBits]uint32
	// vals are the decoded values, sorted by their encoding.
	vals [maxNCodes]uint8
	// minCodes[i] is the minimum code of length i, or -1 if there are no
	// codes of that length.
	minCodes [maxCodeLength]int32
	// maxCodes[i] is the maximum code of length i, or -1 if there are no
	// codes of that length.
	maxCodes [maxCodeLength]int32
	// valsIndices[i] is the index into vals of minCodes[i].
	valsIndices [maxCodeLength]int32
}

// errShortHuffmanData means that an unexpected EOF occurred while decoding
// Huffman data.
var errShortHuffmanData = FormatError("short Huffman data")

var (
	errUninitializedHuffman = FormatError("uninitialized Huffman table")
	errBadHuffmanCode       = FormatError("bad Huffman code")
)

// processDHT processes a Define Huffman Table marker, and initializes a huffman
// struct from its contents. Specified in section B.2.4.2.
func (d *decoder) processDHT(n int) error {
	for n > 0 {
		if n < 17 {
			return FormatError("DHT has wrong length")
		}
		if err := d.readFull(d.tmp[:17]); err != nil {
			return err
		}
		tc := d.tmp[0] >> 4
		if tc > maxTc {
			return FormatError("bad Tc value")
		}
		th := d.tmp[0] & 0x0f
		// The baseline th <= 1 restriction is specified in table B.5.
		if th > maxTh || (d.baseline && th > 1) {
			return FormatError("bad Th value")
		}
		h := &d.huff[tc][th]

		// Read nCodes and h.vals (and derive h.nCodes).
		// nCodes[i] is the number of codes with code length i.
		// h.nCodes is the total number of codes.
		h.nCodes = 0
		var nCodes [maxCodeLength]int32
		for i := range nCodes {
			nCodes[i] = int32(d.tmp[i+1])
			h.nCodes += nCodes[i]
		}
		if h.nCodes == 0 {
			return FormatError("Huffman table has zero length")
		}
		if h.nCodes > maxNCodes {
			return FormatError("Huffman table has excessive length")
		}
		n -= int(h.nCodes) + 17
		if n < 0 {
			return FormatError("DHT has wrong length")
		}
		if err := d.readFull(h.vals[:h.nCodes]); err != nil {
			return err
		}

		// Derive image/jpeg's 8-bit look-up table. The high 8 bits of a
		// lut8 value are the encoded value; the low 8 bits are 1 plus the
		// code length, or 0 if the code is longer than 8 bits.
		var lut8 [1 << lutSize]uint16
		var x, code uint32
		for i := uint32(0); i < lutSize; i++ {
			code <<= 1
			for j := int32(0); j < nCodes[i]; j++ {
				// The codeLength is 1+i, so shift code by 8-(1+i) to
				// calculate the high bits for every 8-bit sequence
				// whose codeLength's high bits matches code.
				// The high 8 bits of lutValue are the encoded value.
				// The low 8 bits are 1 plus the codeLength.
				base := uint8(code << (7 - i))
				lutValue := uint16(h.vals[x])<<8 | uint16(2+i)
				for k := uint8(0); k < 1<<(7-i); k++ {
					lut8[base|k] = lutValue
				}
				code++
				x++
			}
		}

		// Derive minCodes, maxCodes, and valsIndices.
		var c, index int32
		for i, n := range nCodes {
			if n == 0 {
				h.minCodes[i] = -1
				h.maxCodes[i] = -1
				h.valsIndices[i] = -1
			} else {
				h.minCodes[i] = c
				h.maxCodes[i] = c + n - 1
				h.valsIndices[i] = index
				c += n
				index += n
			}
			c <<= 1
		}

		h.buildLUT(&lut8, tc)
	}
	return nil
}

// buildLUT derives h.lut. For every lutBits-bit sequence it records what
// image/jpeg's decodeHuffman returns for it: the 8-bit table's value if that
// has one, else the result of the bit-by-bit slow path, if that ends within
// lutBits bits.
func (h *huffman) buildLUT(lut8 *[1 << lutSize]uint16, tc uint8) {
	for p := range uint32(1 << lutBits) {
		var sym, length uint32
		if v := lut8[p>>(lutBits-lutSize)]; v != 0 {
			sym, length = uint32(v>>8), uint32(v&0xff)-1
		} else {
			for i := range uint32(lutBits) {
				code := int32(p >> (lutBits - 1 - i))
				if code <= h.maxCodes[i] {
					k := h.valsIndices[i] + code - h.minCodes[i]
					if k >= 0 && k < maxNCodes {
						sym, length = uint32(h.vals[k]), i+1
					}
					break
				}
			}
		}
		if length == 0 {
			h.lut[p] = 0
			continue
		}
		e := sym<<lutSymShift | length<<lutLenShift
		size, ok := sym, true
		if tc == acTable {
			size = sym & 0x0f
			ok = size != 0
		} else {
			ok = size <= 16
		}
		if ok && length+size <= lutBits {
			var v int32
			if size > 0 {
				x := int32(p>>(lutBits-length-size)) & (1<<size - 1)
				if x < 1<<(size-1) {
					x += (-1 << size) + 1
				}
				v = x
			}
			e |= (length + size) | uint32(v)<<lutValShift
		}
		h.lut[p] = e
	}
}

// bitReader holds the unread bits of an entropy-coded segment.
//
// image/jpeg reads bytes lazily, one at a time, and reports an error as soon
// as it needs a bit that is not there (because a marker or the end of the
// input comes first). This reader reads up to 8 bytes ahead; once it reaches
// the end of the segment's data it appends zero bits ("padding") and records
// the error image/jpeg would report. Consuming a padding bit is an "overrun":
// the decoder checks for it after every block and before reporting any other
// error, and then reports the recorded error, so that errors are the same as
// image/jpeg's.
type bitReader struct {
	// acc holds the unread bits, MSB first. Its bits below the top n are
	// zero or the data bits that follow.
	acc uint64
	// n is the number of unread bits in acc, including padding.
	n uint
	// pad is the number of padding bits that were appended: there was an
	// overrun if n < pad.
	pad uint
	// ended is whether the end of the segment's data was reached.
	ended bool
	// err is the error image/jpeg reports when it reads past the end.
	err error
}

func (br *bitReader) overrun() bool { return br.n < br.pad }

// hasFF reports whether any byte of w is 0xff.
func hasFF(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	v := ^w
	return (v-lo)&^v&hi != 0
}

// endData records that the segment's data ends, with the error image/jpeg's
// ensureNBits would report.
func (d *decoder) endData(err error) {
	if err == io.ErrUnexpectedEOF {
		err = errShortHuffmanData
	}
	d.bits.ended = true
	d.bits.err = err
}

// refill appends bytes to acc until it holds more than 56 bits, or, at the
// end of the segment's data, zero padding. It takes and returns the
// accumulator so that hot loops can keep it in registers.
func (d *decoder) refill(acc uint64, n uint) (uint64, uint) {
	b := &d.bytes
	for n <= 56 {
		if d.bits.ended {
			add := (64 - n) &^ 7
			d.bits.pad += add
			return acc, n + add
		}
		if b.i+8 <= b.j {
			w := binary.BigEndian.Uint64(b.buf[b.i : b.i+8])
			if !hasFF(w) {
				// Append all 8 bytes but count only the whole bytes
				// that fit: the other bits are the following data bits.
				acc |= w >> (n & 63)
				b.i += int((63 - n) >> 3)
				return acc, n | 56
			}
		}
		// One byte at a time, like image/jpeg's readByteStuffedByte.
		if b.i == b.j {
			if err := d.fill(); err != nil {
				d.endData(err)
			}
			continue
		}
		x := b.buf[b.i]
		if x != 0xff {
			acc |= uint64(x) << ((56 - n) & 63)
			n += 8
			b.i++
			continue
		}
		if b.i+1 == b.j {
			if err := d.fill(); err != nil {
				d.endData(err)
			}
			continue
		}
		if b.buf[b.i+1] != 0x00 {
			// A marker. Leave b.i at its 0xff.
			d.endData(errMissingFF00)
			continue
		}
		acc |= 0xff << ((56 - n) & 63)
		n += 8
		b.i += 2
	}
	return acc, n
}

// startSegment resets the bit reader at the start of an entropy-coded
// segment (a scan, or a restart interval).
func (d *decoder) startSegment() {
	d.bits = bitReader{}
	d.bytes.seg = d.bytes.i
}

// endSegment gives back the whole bytes that the bit reader read ahead, so
// that reading continues where image/jpeg would continue: just after the last
// byte (a stuffed 0xff00 counting as one byte) that holds a consumed bit. It
// must only be called if there was no overrun.
func (d *decoder) endSegment() {
	b := &d.bytes
	for k := (d.bits.n - d.bits.pad) / 8; k > 0 && b.i > 0; k-- {
		if b.i-2 >= b.seg && b.i >= 2 && b.buf[b.i-1] == 0x00 && b.buf[b.i-2] == 0xff {
			b.i -= 2
		} else {
			b.i--
		}
	}
	d.bits = bitReader{}
}

// ensure32 makes sure that acc holds at least 32 bits, enough for a Huffman
// code and the extra bits that follow it.
func (d *decoder) ensure32() {
	if d.bits.n < 32 {
		d.bits.acc, d.bits.n = d.refill(d.bits.acc, d.bits.n)
	}
}

// fail returns err, unless there was an overrun, in which case image/jpeg
// would have stopped earlier with the end-of-data error.
func (d *decoder) fail(err error) error {
	if d.bits.overrun() {
		return d.bits.err
	}
	return err
}

// decodeHuffman returns the next Huffman-coded value from the bit-stream,
// decoded according to h, the way image/jpeg's does.
func (d *decoder) decodeHuffman(h *huffman) (uint8, error) {
	if h.nCodes == 0 {
		return 0, FormatError("uninitialized Huffman table")
	}
	d.ensure32()
	br := &d.bits
	// image/jpeg uses its look-up table only if 8 bits of data are left.
	if !br.ended || br.n >= br.pad+8 {
		e := h.lut[br.acc>>(64-lutBits)]
		if l := uint(e>>lutLenShift) & lutLenMask; l != 0 {
			br.acc <<= l
			br.n -= l
			return uint8(e >> lutSymShift), nil
		}
		return d.slowHuffman(h, lutBits)
	}
	return d.slowHuffman(h, 0)
}

// slowHuffman is image/jpeg's bit-by-bit decoding, starting at code length
// from+1 (the caller knows that shorter codes do not match). acc must hold
// at least 16 bits.
func (d *decoder) slowHuffman(h *huffman, from int) (uint8, error) {
	br := &d.bits
	peek := uint32(br.acc >> 48)
	for i := from; i < maxCodeLength; i++ {
		code := int32(peek >> (15 - i))
		if code <= h.maxCodes[i] {
			br.acc <<= uint(i + 1)
			br.n -= uint(i + 1)
			return h.vals[uint8(h.valsIndices[i]+code-h.minCodes[i])], nil
		}
	}
	br.acc <<= maxCodeLength
	br.n -= maxCodeLength
	return 0, d.fail(errBadHuffmanCode)
}

// receiveExtend is the composition of RECEIVE and EXTEND, specified in section
// F.2.2.1. t is at most 16.
func (d *decoder) receiveExtend(t uint8) int32 {
	if t == 0 {
		return 0
	}
	d.ensure32()
	br := &d.bits
	x := int32(br.acc >> (64 - uint(t)))
	br.acc <<= t
	br.n -= uint(t)
	if x < 1<<(t-1) {
		x += ((-1) << t) + 1
	}
	return x
}

// decodeBit reads one bit.
func (d *decoder) decodeBit() bool {
	d.ensure32()
	br := &d.bits
	ret := br.acc>>63 != 0
	br.acc <<= 1
	br.n--
	return ret
}

// decodeBits reads n bits, n <= 16.
func (d *decoder) decodeBits(n int32) uint32 {
	if n == 0 {
		return 0
	}
	d.ensure32()
	br := &d.bits
	ret := uint32(br.acc >> (64 - uint(n)))
	br.acc <<= uint(n)
	br.n -= uint(n)
	return ret
}
