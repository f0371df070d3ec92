// Copyright 2012 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegdec

import "encoding/binary"

// Storing reconstructed blocks, derived from image/jpeg's reconstructBlock.
// At scale 1 the stored samples are image/jpeg's. At scales 2 and 4 a block's
// samples are averaged over 2×2 or 4×4 squares; at scale 8 a block becomes one
// sample, which the DC coefficient gives without an inverse DCT when no
// sample can be clipped.

// clampPix level-shifts an inverse DCT output by +128 and clips it to
// [0, 255], as image/jpeg's reconstructBlock does. (idct's outputs are far
// from overflowing when 128 is added.)
func clampPix(c int32) uint8 {
	return uint8(min(max(c+128, 0), 255))
}

// pix32 is clampPix as an int32, for sums.
func pix32(c int32) int32 {
	return min(max(c+128, 0), 255)
}

// dcValue returns the sample value of every sample of a block whose only
// non-zero (dequantized) coefficient is the DC coefficient b0: this is what
// idct computes for such a block, in the same int32 arithmetic.
func dcValue(b0 int32) uint8 {
	return clampPix(((b0<<17 + 1<<19) >> 2) >> 18)
}

// dcApproxOK reports whether no sample of a block with dequantized DC
// coefficient b0 and sum of absolute dequantized AC coefficients sumAC can be
// clipped. Each sample is b0/8 plus at most sumAC/4 from the AC coefficients
// (an AC basis function is at most 1/4 in magnitude), plus an inverse DCT
// rounding error that we allow 2 for. If none is clipped, the mean of the
// samples is b0/8 up to the rounding errors, so that the DC value is within
// ±2 of the rounded mean.
func dcApproxOK(b0 int32, sumAC int64) bool {
	f := int64(b0)
	return f-2*sumAC-16 >= -1024 && f+2*sumAC+16 <= 1016
}

// naturalQuant returns component c's quantization table in natural order.
func (d *decoder) naturalQuant(c int) *block {
	qt := &d.quant[d.comp[c].tq]
	q := new(block)
	for zig, u := range unzig {
		q[u] = qt[zig]
	}
	return q
}

// reconstructDense dequantizes, transforms and stores a block of
// coefficients in natural order (a progressive image's), as image/jpeg's
// reconstructBlock does. qn is the quantization table in natural order.
func (d *decoder) reconstructDense(b, qn *block, bx, by, compIndex int) {
	var rows, acRows uint8
	for i := range 8 {
		x := b[8*i : 8*i+8 : 8*i+8]
		q := qn[8*i : 8*i+8 : 8*i+8]
		x[0] *= q[0]
		x[1] *= q[1]
		x[2] *= q[2]
		x[3] *= q[3]
		x[4] *= q[4]
		x[5] *= q[5]
		x[6] *= q[6]
		x[7] *= q[7]
		if x[1]|x[2]|x[3]|x[4]|x[5]|x[6]|x[7] != 0 {
			acRows |= 1 << i
			rows |= 1 << i
		} else if x[0] != 0 {
			rows |= 1 << i
		}
	}
	var sum int64
	if d.shift == 3 {
		sum = sumAbsAC(b)
	}
	d.storeBlock(b, compIndex, bx, by, rows, acRows, sum)
}

// storeBlock stores the dequantized block b (in natural order) of component
// c at block position (bx, by). rows and acRows tell which rows may have
// non-zero coefficients (see idctSparse), and sumAC is the sum of the AC
// coefficients' absolute values (used at scale 8).
func (d *decoder) storeBlock(b *block, c, bx, by int, rows, acRows uint8, sumAC int64) {
	p := &d.planes[c]
	dcOnly := acRows == 0 && rows&^1 == 0
	if d.shift != 0 {
		d.storeScaled(b, p, bx, by, rows, acRows, dcOnly, sumAC)
		return
	}
	stride := p.stride
	dst := p.pix[8*(by*stride+bx):]
	dst = dst[:7*stride+8]
	if dcOnly {
		w := uint64(dcValue(b[0])) * 0x0101010101010101
		for y := 0; y < 8; y++ {
			binary.LittleEndian.PutUint64(dst[y*stride:y*stride+8], w)
		}
		return
	}
	if useSIMD {
		idctStoreSIMD(b, dst, stride)
		return
	}
	idctSparse(b, rows, acRows)
	storePix(b, dst, stride)
}

// useSIMD makes storeBlock use idctStoreSIMD where the CPU has it. Tests
// turn it off to compare with the Go code.
var useSIMD = haveSIMD

// storePix level-shifts the inverse DCT's outputs b by +128, clips them to
// [0, 255] and writes them as 8 rows of 8 bytes to dst, stride bytes apart.
func storePix(b *block, dst []byte, stride int) {
	dst = dst[:7*stride+8]
	for y := 0; y < 8; y++ {
		src := b[8*y : 8*y+8 : 8*y+8]
		w := uint64(clampPix(src[0])) | uint64(clampPix(src[1]))<<8 |
			uint64(clampPix(src[2]))<<16 | uint64(clampPix(src[3]))<<24 |
			uint64(clampPix(src[4]))<<32 | uint64(clampPix(src[5]))<<40 |
			uint64(clampPix(src[6]))<<48 | uint64(clampPix(src[7]))<<56
		binary.LittleEndian.PutUint64(dst[y*stride:y*stride+8], w)
	}
}

// storeScaled stores block b at scale 2, 4 or 8.
func (d *decoder) storeScaled(b *block, p *plane, bx, by int, rows, acRows uint8, dcOnly bool, sumAC int64) {
	sh := uint(d.shift)
	s := 1 << sh
	bw := 8 >> sh // Samples per block side at this scale.
	ox, oy := bx*bw, by*bw
	nx, ny := min(bw, p.w-ox), min(bw, p.h-oy)
	if nx <= 0 || ny <= 0 {
		return
	}
	// vx and vy are how many of the block's columns and rows are inside
	// the plane at scale 1.
	vx, vy := min(8, p.fw-8*bx), min(8, p.fh-8*by)
	interior := vx == 8 && vy == 8

	uniform := dcOnly || (sh == 3 && interior && !d.cfg.exact8 && dcApproxOK(b[0], sumAC))
	if uniform {
		v := dcValue(b[0])
		for y := 0; y < ny; y++ {
			row := p.pix[(oy+y)*p.stride+ox:][:nx]
			for x := range row {
				row[x] = v
			}
		}
		return
	}

	idctSparse(b, rows, acRows)
	if interior {
		switch sh {
		case 1:
			for y := 0; y < 4; y++ {
				row := p.pix[(oy+y)*p.stride+ox:][:4]
				r0 := b[16*y : 16*y+8 : 16*y+8]
				r1 := b[16*y+8 : 16*y+16 : 16*y+16]
				for x := range row {
					row[x] = uint8((pix32(r0[2*x]) + pix32(r0[2*x+1]) + pix32(r1[2*x]) + pix32(r1[2*x+1]) + 2) >> 2)
				}
			}
			return
		case 2:
			for y := 0; y < 2; y++ {
				row := p.pix[(oy+y)*p.stride+ox:][:2]
				for x := range row {
					sum := int32(8)
					for yy := 4 * y; yy < 4*y+4; yy++ {
						r := b[8*yy+4*x : 8*yy+4*x+4 : 8*yy+4*x+4]
						sum += pix32(r[0]) + pix32(r[1]) + pix32(r[2]) + pix32(r[3])
					}
					row[x] = uint8(sum >> 4)
				}
			}
			return
		case 3:
			sum := int32(32)
			for _, v := range b {
				sum += pix32(v)
			}
			p.pix[oy*p.stride+ox] = uint8(sum >> 6)
			return
		}
	}
	var px [blockSize]int32
	for i, v := range b {
		px[i] = pix32(v)
	}
	// At the right or bottom edge: average the samples inside the plane.
	for y := 0; y < ny; y++ {
		row := p.pix[(oy+y)*p.stride+ox:][:nx]
		y0, y1 := y*s, min(y*s+s, vy)
		for x := range row {
			x0, x1 := x*s, min(x*s+s, vx)
			var sum int32
			for yy := y0; yy < y1; yy++ {
				for xx := x0; xx < x1; xx++ {
					sum += px[8*yy+xx]
				}
			}
			cnt := int32((y1 - y0) * (x1 - x0))
			row[x] = uint8((sum + cnt/2) / cnt)
		}
	}
}
