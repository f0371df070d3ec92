// Copyright 2012 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegdec

// This file is forked from Go's image/jpeg/scan.go (go1.26). Sequential scans
// go to processSequentialScan (sequential.go); progressive scans are decoded
// as image/jpeg does, with this package's bit reader, and reconstructed in
// parallel at the requested scale.

import (
	"image"
	"runtime"
	"sync"
	"sync/atomic"
)

// plane is where a component's samples go.
type plane struct {
	pix    []byte
	stride int
	// w and h are the plane's size in samples at the decode's scale. Blocks
	// are clipped to it. At scale 1 it includes the padding to whole MCUs.
	w, h int
	// fw and fh are the plane's size in samples at scale 1, without
	// padding: the samples that a scaled sample averages are clipped to it.
	fw, fh int
}

// scanComponent is a component of a scan, specified in section B.2.3.
type scanComponent struct {
	compIndex uint8
	td        uint8 // DC table selector.
	ta        uint8 // AC table selector.
}

// makeImg allocates and initializes the destination image.
func (d *decoder) makeImg(mxx, myy int) {
	if d.scale == 1 {
		d.makeImg1(mxx, myy)
	} else {
		d.makeImgScaled()
	}
	h0, v0 := d.comp[0].h, d.comp[0].v
	for i := 0; i < d.nComp; i++ {
		hi, vi := d.comp[i].h, d.comp[i].v
		p := &d.planes[i]
		p.fw = (d.width*hi + h0 - 1) / h0
		p.fh = (d.height*vi + v0 - 1) / v0
		if d.scale == 1 {
			p.w = 8 * hi * mxx
			p.h = 8 * vi * myy
		} else {
			p.w = (p.fw + d.scale - 1) >> d.shift
			p.h = (p.fh + d.scale - 1) >> d.shift
		}
	}
	if d.nComp == 1 {
		d.planes[0].pix, d.planes[0].stride = d.img1.Pix, d.img1.Stride
		return
	}
	d.planes[0].pix, d.planes[0].stride = d.img3.Y, d.img3.YStride
	d.planes[1].pix, d.planes[1].stride = d.img3.Cb, d.img3.CStride
	d.planes[2].pix, d.planes[2].stride = d.img3.Cr, d.img3.CStride
	if d.nComp == 4 {
		d.planes[3].pix, d.planes[3].stride = d.blackPix, d.blackStride
	}
}

func (d *decoder) subsampleRatio() image.YCbCrSubsampleRatio {
	hRatio := d.comp[0].h / d.comp[1].h
	vRatio := d.comp[0].v / d.comp[1].v
	switch hRatio<<4 | vRatio {
	case 0x11:
		return image.YCbCrSubsampleRatio444
	case 0x12:
		return image.YCbCrSubsampleRatio440
	case 0x21:
		return image.YCbCrSubsampleRatio422
	case 0x22:
		return image.YCbCrSubsampleRatio420
	case 0x41:
		return image.YCbCrSubsampleRatio411
	case 0x42:
		return image.YCbCrSubsampleRatio410
	}
	panic("unreachable")
}

// makeImg1 is image/jpeg's makeImg: the image is allocated with whole MCUs
// and the returned image is a sub-image.
func (d *decoder) makeImg1(mxx, myy int) {
	if d.nComp == 1 {
		m := image.NewGray(image.Rect(0, 0, 8*mxx, 8*myy))
		d.img1 = m.SubImage(image.Rect(0, 0, d.width, d.height)).(*image.Gray)
		return
	}

	h0 := d.comp[0].h
	v0 := d.comp[0].v
	m := newYCbCr(image.Rect(0, 0, 8*h0*mxx, 8*v0*myy), d.subsampleRatio())
	d.img3 = m.SubImage(image.Rect(0, 0, d.width, d.height)).(*image.YCbCr)

	if d.nComp == 4 {
		h3, v3 := d.comp[3].h, d.comp[3].v
		d.blackPix = make([]byte, 8*h3*mxx*8*v3*myy)
		d.blackStride = 8 * h3 * mxx
	}
}

// makeImgScaled allocates an image of exactly the scaled size.
func (d *decoder) makeImgScaled() {
	r := image.Rect(0, 0, (d.width+d.scale-1)>>d.shift, (d.height+d.scale-1)>>d.shift)
	if r.Empty() {
		// What image/jpeg's SubImage call returns for an empty image.
		r = image.Rectangle{}
	}
	if d.nComp == 1 {
		d.img1 = image.NewGray(r)
		return
	}
	d.img3 = newYCbCr(r, d.subsampleRatio())
	if d.nComp == 4 {
		h0, v0 := d.comp[0].h, d.comp[0].v
		fw := (d.width*d.comp[3].h + h0 - 1) / h0
		fh := (d.height*d.comp[3].v + v0 - 1) / v0
		w := (fw + d.scale - 1) >> d.shift
		h := (fh + d.scale - 1) >> d.shift
		d.blackPix = make([]byte, w*h)
		d.blackStride = w
	}
}

// Specified in section B.2.3.
func (d *decoder) processSOS(n int) error {
	if d.nComp == 0 {
		return FormatError("missing SOF marker")
	}
	if n < 6 || 4+2*d.nComp < n || n%2 != 0 {
		return FormatError("SOS has wrong length")
	}
	if err := d.readFull(d.tmp[:n]); err != nil {
		return err
	}
	nComp := int(d.tmp[0])
	if n != 4+2*nComp {
		return FormatError("SOS length inconsistent with number of components")
	}
	var scan [maxComponents]scanComponent
	totalHV := 0
	for i := 0; i < nComp; i++ {
		cs := d.tmp[1+2*i] // Component selector.
		compIndex := -1
		for j, comp := range d.comp[:d.nComp] {
			if cs == comp.c {
				compIndex = j
			}
		}
		if compIndex < 0 {
			return FormatError("unknown component selector")
		}
		scan[i].compIndex = uint8(compIndex)
		// Section B.2.3 states that "the value of Cs_j shall be different from
		// the values of Cs_1 through Cs_(j-1)". Since we have previously
		// verified that a frame's component identifiers (C_i values in section
		// B.2.2) are unique, it suffices to check that the implicit indexes
		// into d.comp are unique.
		for j := 0; j < i; j++ {
			if scan[i].compIndex == scan[j].compIndex {
				return FormatError("repeated component selector")
			}
		}
		totalHV += d.comp[compIndex].h * d.comp[compIndex].v

		// The baseline t <= 1 restriction is specified in table B.3.
		scan[i].td = d.tmp[2+2*i] >> 4
		if t := scan[i].td; t > maxTh || (d.baseline && t > 1) {
			return FormatError("bad Td value")
		}
		scan[i].ta = d.tmp[2+2*i] & 0x0f
		if t := scan[i].ta; t > maxTh || (d.baseline && t > 1) {
			return FormatError("bad Ta value")
		}
	}
	// Section B.2.3 states that if there is more than one component then the
	// total H*V values in a scan must be <= 10.
	if d.nComp > 1 && totalHV > 10 {
		return FormatError("total sampling factors too large")
	}

	// zigStart and zigEnd are the spectral selection bounds.
	// ah and al are the successive approximation high and low values.
	// The spec calls these values Ss, Se, Ah and Al.
	//
	// For progressive JPEGs, these are the two more-or-less independent
	// aspects of progression. Spectral selection progression is when not
	// all of a block's 64 DCT coefficients are transmitted in one pass.
	// For example, three passes could transmit coefficient 0 (the DC
	// component), coefficients 1-5, and coefficients 6-63, in zig-zag
	// order. Successive approximation is when not all of the bits of a
	// band of coefficients are transmitted in one pass. For example,
	// three passes could transmit the 6 most significant bits, followed
	// by the second-least significant bit, followed by the least
	// significant bit.
	//
	// For sequential JPEGs, these parameters are hard-coded to 0/63/0/0, as
	// per table B.3.
	zigStart, zigEnd, ah, al := int32(0), int32(blockSize-1), uint32(0), uint32(0)
	if d.progressive {
		zigStart = int32(d.tmp[1+2*nComp])
		zigEnd = int32(d.tmp[2+2*nComp])
		ah = uint32(d.tmp[3+2*nComp] >> 4)
		al = uint32(d.tmp[3+2*nComp] & 0x0f)
		if (zigStart == 0 && zigEnd != 0) || zigStart > zigEnd || blockSize <= zigEnd {
			return FormatError("bad spectral selection bounds")
		}
		if zigStart != 0 && nComp != 1 {
			return FormatError("progressive AC coefficients for more than one component")
		}
		if ah != 0 && ah != al+1 {
			return FormatError("bad successive approximation values")
		}
	}

	// mxx and myy are the number of MCUs (Minimum Coded Units) in the image.
	h0, v0 := d.comp[0].h, d.comp[0].v // The h and v values from the Y components.
	mxx := (d.width + 8*h0 - 1) / (8 * h0)
	myy := (d.height + 8*v0 - 1) / (8 * v0)
	if d.img1 == nil && d.img3 == nil {
		d.makeImg(mxx, myy)
	}
	if !d.progressive {
		return d.processSequentialScan(&scan, nComp, mxx, myy)
	}
	for i := 0; i < nComp; i++ {
		compIndex := scan[i].compIndex
		if d.progCoeffs[compIndex] == nil {
			d.progCoeffs[compIndex] = make([]block, mxx*myy*d.comp[compIndex].h*d.comp[compIndex].v)
		}
	}

	d.startSegment()
	mcu, expectedRST := 0, uint8(rst0Marker)
	var (
		dc [maxComponents]int32
		// bx and by are the location of the current block, in units of 8x8
		// blocks: the third block in the first row has (bx, by) = (2, 0).
		bx, by int
		// nbx and nby are the position of the next block of a
		// non-interleaved scan (image/jpeg divides a block count).
		nbx, nby int
	)
	for my := 0; my < myy; my++ {
		for mx := 0; mx < mxx; mx++ {
			for i := 0; i < nComp; i++ {
				compIndex := scan[i].compIndex
				hi := d.comp[compIndex].h
				vi := d.comp[compIndex].v
				for j := 0; j < hi*vi; j++ {
					// The blocks are traversed one MCU at a time. For 4:2:0 chroma
					// subsampling, there are four Y 8x8 blocks in every 16x16 MCU.
					//
					// For a sequential 32x16 pixel image, the Y blocks visiting order is:
					//	0 1 4 5
					//	2 3 6 7
					//
					// For progressive images, the interleaved scans (those with nComp > 1)
					// are traversed as above, but non-interleaved scans are traversed left
					// to right, top to bottom:
					//	0 1 2 3
					//	4 5 6 7
					// Only DC scans (zigStart == 0) can be interleaved. AC scans must have
					// only one component.
					//
					// To further complicate matters, for non-interleaved scans, there is no
					// data for any blocks that are inside the image at the MCU level but
					// outside the image at the pixel level. For example, a 24x16 pixel 4:2:0
					// progressive image consists of two 16x16 MCUs. The interleaved scans
					// will process 8 Y blocks:
					//	0 1 4 5
					//	2 3 6 7
					// The non-interleaved scans will process only 6 Y blocks:
					//	0 1 2
					//	3 4 5
					if nComp != 1 {
						bx = hi*mx + j%hi
						by = vi*my + j/hi
					} else {
						bx, by = nbx, nby
						if nbx++; nbx == mxx*hi {
							nbx = 0
							nby++
						}
						if bx*8 >= d.width || by*8 >= d.height {
							continue
						}
					}

					// The partially decoded coefficients, updated in place.
					b := &d.progCoeffs[compIndex][by*mxx*hi+bx]

					if ah != 0 {
						if err := d.refine(b, &d.huff[acTable][scan[i].ta], zigStart, zigEnd, 1<<al); err != nil {
							return err
						}
					} else {
						zig := zigStart
						if zig == 0 {
							zig++
							// Decode the DC coefficient, as specified in section F.2.2.1.
							value, err := d.decodeHuffman(&d.huff[dcTable][scan[i].td])
							if err != nil {
								return d.fail(err)
							}
							if value > 16 {
								return d.fail(UnsupportedError("excessive DC component"))
							}
							dc[compIndex] += d.receiveExtend(value)
							b[0] = dc[compIndex] << al
						}

						if zig <= zigEnd && d.eobRun > 0 {
							d.eobRun--
						} else {
							// Decode the AC coefficients, as specified in section F.2.2.2.
							if err := d.decodeAC(b, &d.huff[acTable][scan[i].ta], zig, zigEnd, al); err != nil {
								return err
							}
						}
					}
					if d.bits.overrun() {
						return d.bits.err
					}
					// As in image/jpeg, blocks are reconstructed by
					// reconstructProgressiveImage after all of the SOS
					// markers are processed.
				} // for j
			} // for i
			mcu++
			if d.ri > 0 && mcu%d.ri == 0 && mcu < mxx*myy {
				if err := d.restart(&expectedRST); err != nil {
					return err
				}
				// Reset the DC components, as per section F.2.1.3.1.
				dc = [maxComponents]int32{}
			}
		} // for mx
	} // for my
	d.endSegment()
	return nil
}

// decodeAC decodes the AC coefficients zig to zigEnd of a block of a
// progressive scan's first pass over them (or of a sequential scan), as
// image/jpeg does. Like decodeBlock, it keeps the bit buffer in local
// variables while at least 32 bits of data are buffered.
func (d *decoder) decodeAC(b *block, h *huffman, zig, zigEnd int32, al uint32) error {
	if zig > zigEnd {
		return nil
	}
	if d.bits.ended {
		return d.decodeACCarefulDense(b, h, zig, zigEnd, al)
	}
	if h.nCodes == 0 {
		return errUninitializedHuffman
	}
	acc, n := d.bits.acc, d.bits.n
	for ; zig <= zigEnd; zig++ {
		if n < 32 {
			acc, n = d.refill(acc, n)
			if d.bits.ended {
				d.bits.acc, d.bits.n = acc, n
				return d.decodeACCarefulDense(b, h, zig, zigEnd, al)
			}
		}
		e := h.lut[acc>>(64-lutBits)]
		if e&lutValueMask != 0 {
			// A code with its value.
			if z := zig + int32(e>>lutRunShift&lutRunMask); z <= zigEnd {
				acc <<= uint(e) & 63 // Bits 0-5: the total length.
				n -= uint(e) & lutTotMask
				b[unzig[z&63]] = int32(e) >> lutValShift << al
				zig = z
				continue
			}
		}
		s := (e >> lutSymShift) & 0xff
		l := uint(e>>lutLenShift) & lutLenMask
		if l == 0 {
			var ok bool
			if s, l, ok = slowCode(h, acc); !ok {
				return errBadHuffmanCode
			}
		}
		acc <<= l & 63
		n -= l
		val0, val1 := s>>4, s&0x0f
		if val1 != 0 {
			zig += int32(val0)
			if zig > zigEnd {
				break
			}
			x := int32(acc >> ((64 - val1) & 63))
			acc <<= val1 & 63
			n -= uint(val1)
			if x < 1<<(val1-1) {
				x += (-1 << val1) + 1
			}
			b[unzig[zig&63]] = x << al
		} else {
			if val0 != 0x0f {
				r := uint16(1) << val0
				if val0 != 0 {
					r |= uint16(acc >> ((64 - val0) & 63))
					acc <<= val0 & 63
					n -= uint(val0)
				}
				d.eobRun = r - 1
				break
			}
			zig += 0x0f
		}
	}
	d.bits.acc, d.bits.n = acc, n
	return nil
}

// decodeACCarefulDense is decodeAC near the end of the segment's data:
// image/jpeg's code.
func (d *decoder) decodeACCarefulDense(b *block, huff *huffman, zig, zigEnd int32, al uint32) error {
	for ; zig <= zigEnd; zig++ {
		value, err := d.decodeHuffman(huff)
		if err != nil {
			return d.fail(err)
		}
		val0 := value >> 4
		val1 := value & 0x0f
		if val1 != 0 {
			zig += int32(val0)
			if zig > zigEnd {
				break
			}
			ac := d.receiveExtend(val1)
			b[unzig[zig]] = ac << al
		} else {
			if val0 != 0x0f {
				d.eobRun = uint16(1 << val0)
				if val0 != 0 {
					d.eobRun |= uint16(d.decodeBits(int32(val0)))
				}
				d.eobRun--
				break
			}
			zig += 0x0f
		}
	}
	return nil
}

// restart ends an entropy-coded segment at a restart interval boundary and
// reads the RST marker.
func (d *decoder) restart(expectedRST *uint8) error {
	d.endSegment()
	// For well-formed input, the RST[0-7] restart marker follows
	// immediately. For corrupt input, call findRST to try to
	// resynchronize.
	if err := d.readFull(d.tmp[:2]); err != nil {
		return err
	} else if d.tmp[0] != 0xff || d.tmp[1] != *expectedRST {
		if err := d.findRST(*expectedRST); err != nil {
			return err
		}
	}
	*expectedRST++
	if *expectedRST == rst7Marker+1 {
		*expectedRST = rst0Marker
	}
	// Reset the Huffman decoder.
	d.startSegment()
	// Reset the progressive decoder state, as per section G.1.2.2.
	d.eobRun = 0
	return nil
}

// refine decodes a successive approximation refinement block, as specified in
// section G.1.2.
func (d *decoder) refine(b *block, h *huffman, zigStart, zigEnd, delta int32) error {
	// Refining a DC component is trivial.
	if zigStart == 0 {
		if zigEnd != 0 {
			panic("unreachable")
		}
		if d.decodeBit() {
			b[0] |= delta
		}
		return nil
	}

	// Refining AC components is more complicated; see sections G.1.2.2 and G.1.2.3.
	zig := zigStart
	if d.eobRun == 0 {
	loop:
		for ; zig <= zigEnd; zig++ {
			z := int32(0)
			value, err := d.decodeHuffman(h)
			if err != nil {
				return d.fail(err)
			}
			val0 := value >> 4
			val1 := value & 0x0f

			switch val1 {
			case 0:
				if val0 != 0x0f {
					d.eobRun = uint16(1 << val0)
					if val0 != 0 {
						d.eobRun |= uint16(d.decodeBits(int32(val0)))
					}
					break loop
				}
			case 1:
				z = delta
				if !d.decodeBit() {
					z = -z
				}
			default:
				return d.fail(FormatError("unexpected Huffman code"))
			}

			zig = d.refineNonZeroes(b, zig, zigEnd, int32(val0), delta)
			if zig > zigEnd {
				return d.fail(FormatError("too many coefficients"))
			}
			if z != 0 {
				b[unzig[zig]] = z
			}
		}
	}
	if d.eobRun > 0 {
		d.eobRun--
		d.refineNonZeroes(b, zig, zigEnd, -1, delta)
	}
	return nil
}

// refineNonZeroes refines non-zero entries of b in zig-zag order. If nz >= 0,
// the first nz zero entries are skipped over. It reads bits as decodeBit
// does, with the bit buffer in local variables.
func (d *decoder) refineNonZeroes(b *block, zig, zigEnd, nz, delta int32) int32 {
	acc, n := d.bits.acc, d.bits.n
	for ; zig <= zigEnd; zig++ {
		u := unzig[zig&63]
		if b[u] == 0 {
			if nz == 0 {
				break
			}
			nz--
			continue
		}
		if n < 32 {
			acc, n = d.refill(acc, n)
		}
		bit := acc >> 63
		acc <<= 1
		n--
		if bit == 0 {
			continue
		}
		if b[u] >= 0 {
			b[u] += delta
		} else {
			b[u] -= delta
		}
	}
	d.bits.acc, d.bits.n = acc, n
	return zig
}

// reconstructProgressiveImage dequantizes, transforms and stores every block
// of a progressive image, spread over GOMAXPROCS goroutines.
func (d *decoder) reconstructProgressiveImage() error {
	// The h0, mxx, by and bx variables have the same meaning as in the
	// processSOS method.
	h0 := d.comp[0].h
	mxx := (d.width + 8*h0 - 1) / (8 * h0)
	type job struct{ comp, by0, by1 int }
	var jobs []job
	var quant [maxComponents]*block
	total := 0
	for i := 0; i < d.nComp; i++ {
		if d.progCoeffs[i] == nil {
			continue
		}
		quant[i] = d.naturalQuant(i)
		v := 8 * d.comp[0].v / d.comp[i].v
		h := 8 * d.comp[0].h / d.comp[i].h
		rows := (d.height + v - 1) / v
		cols := (d.width + h - 1) / h
		total += rows * cols
		// Jobs of about 1024 blocks.
		step := max(1, 1024/max(cols, 1))
		for by := 0; by < rows; by += step {
			jobs = append(jobs, job{i, by, min(by+step, rows)})
		}
	}
	run := func(j job) {
		if d.cfg.testPanic {
			panic("test panic")
		}
		h := 8 * d.comp[0].h / d.comp[j.comp].h
		stride := mxx * d.comp[j.comp].h
		coeffs := d.progCoeffs[j.comp]
		qn := quant[j.comp]
		for by := j.by0; by < j.by1; by++ {
			for bx := 0; bx*h < d.width; bx++ {
				d.reconstructDense(&coeffs[by*stride+bx], qn, bx, by, j.comp)
			}
		}
	}
	nw := min(runtime.GOMAXPROCS(0), len(jobs))
	if d.cfg.workers > 0 {
		nw = min(d.cfg.workers, len(jobs))
	}
	if d.cfg.serial {
		nw = 1
	}
	if nw <= 1 || total < d.cfg.minParallel {
		for _, j := range jobs {
			run(j)
		}
		return nil
	}
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		perr   error
		failed atomic.Bool
	)
	worker := func() {
		defer wg.Done()
		defer func() {
			if v := recover(); v != nil {
				failed.Store(true)
				mu.Lock()
				if perr == nil {
					perr = &internalError{v}
				}
				mu.Unlock()
			}
		}()
		for !failed.Load() {
			k := int(next.Add(1) - 1)
			if k >= len(jobs) {
				return
			}
			run(jobs[k])
		}
	}
	wg.Add(nw)
	for range nw {
		go worker()
	}
	wg.Wait()
	return perr
}

// findRST advances past the next RST restart marker that matches expectedRST.
// Other than I/O errors, it is also an error if we encounter an {0xFF, M}
// two-byte marker sequence where M is not 0x00, 0xFF or the expectedRST.
//
// This is similar to libjpeg's jdmarker.c's next_marker function.
// https://github.com/libjpeg-turbo/libjpeg-turbo/blob/2dfe6c0fe9e18671105e94f7cbf044d4a1d157e6/jdmarker.c#L892-L935
//
// Precondition: d.tmp[:2] holds the next two bytes of JPEG-encoded input
// (input in the d.readFull sense).
func (d *decoder) findRST(expectedRST uint8) error {
	for {
		// i is the index such that, at the bottom of the loop, we read 2-i
		// bytes into d.tmp[i:2], maintaining the invariant that d.tmp[:2]
		// holds the next two bytes of JPEG-encoded input. It is either 0 or 1,
		// so that each iteration advances by 1 or 2 bytes (or returns).
		i := 0

		if d.tmp[0] == 0xff {
			if d.tmp[1] == expectedRST {
				return nil
			} else if d.tmp[1] == 0xff {
				i = 1
			} else if d.tmp[1] != 0x00 {
				// libjpeg's jdmarker.c's jpeg_resync_to_restart does something
				// fancy here, treating RST markers within two (modulo 8) of
				// expectedRST differently from RST markers that are 'more
				// distant'. Until we see evidence that recovering from such
				// cases is frequent enough to be worth the complexity, we take
				// a simpler approach for now. Any marker that's not 0x00, 0xff
				// or expectedRST is a fatal FormatError.
				return FormatError("bad RST marker")
			}

		} else if d.tmp[1] == 0xff {
			d.tmp[0] = 0xff
			i = 1
		}

		if err := d.readFull(d.tmp[i:2]); err != nil {
			return err
		}
	}
}
