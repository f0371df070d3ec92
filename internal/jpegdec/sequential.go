// Copyright 2012 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegdec

// Sequential (baseline and extended) scans. The MCU loop is image/jpeg's
// processSOS loop; the entropy decoding of a block is image/jpeg's, rewritten
// around a 64-bit bit buffer kept in registers. Decoded blocks are handed in
// batches to worker goroutines that dequantize, transform and store them
// while the next batch is entropy-decoded.

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// config holds tuning knobs; tests change them to exercise the concurrent
// code paths on small images.
type config struct {
	// batchBlocks is the number of blocks in a batch.
	batchBlocks int
	// minParallel is the number of blocks a scan needs for it to be
	// decoded with worker goroutines.
	minParallel int
	// workers is the number of worker goroutines; 0 means GOMAXPROCS. For
	// sequential scans they run besides the entropy-decoding goroutine,
	// which leaves its processor to them while it waits for a batch.
	workers int
	// serial decodes without worker goroutines (Options.Serial).
	serial bool
	// exact8 disables the DC-only approximation at scale 8.
	exact8 bool
	// testPanic makes reconstruction panic, to test the recovery.
	testPanic bool
}

func defaultConfig() config {
	return config{
		batchBlocks: 1024,
		minParallel: 4096,
	}
}

// blockHdr describes a decoded block of a sequential scan. Its non-zero AC
// coefficients follow in the batch's ent.
type blockHdr struct {
	dc     int32 // The quantized DC coefficient.
	bx, by uint16
	comp   uint8
	n      uint8 // The number of AC coefficients in ent.
}

// batch is a batch of decoded blocks.
type batch struct {
	hdr []blockHdr
	nh  int
	// ent holds AC coefficients as value<<8 | zig-zag index.
	ent []int32
	ne  int
}

func newBatch(blocks int) *batch {
	return &batch{
		hdr: make([]blockHdr, blocks),
		ent: make([]int32, 24*blocks+blockSize),
	}
}

// pipeline passes batches from the entropy decoder (the caller's goroutine)
// to the workers, through a ring of at most cap(free) batches.
type pipeline struct {
	d    *decoder
	cur  *batch // The batch being filled.
	sync bool   // Without goroutines: flush reconstructs the batch itself.

	blocks int // Blocks per batch.
	nalloc int // Batches allocated so far.
	free   chan *batch
	work   chan *batch
	wg     sync.WaitGroup
	closed bool

	failed atomic.Bool
	mu     sync.Mutex
	err    error
}

func (d *decoder) startPipeline(totalBlocks int) *pipeline {
	p := &pipeline{d: d, blocks: max(1, min(d.cfg.batchBlocks, totalBlocks))}
	// Batches are reused across scans: a file may have many.
	if n := len(d.batches); n > 0 && len(d.batches[n-1].hdr) >= p.blocks {
		p.blocks = len(d.batches[n-1].hdr)
	} else {
		d.batches = d.batches[:0]
	}
	nw := d.cfg.workers
	if nw <= 0 {
		nw = runtime.GOMAXPROCS(0)
		if nw < 2 || totalBlocks < d.cfg.minParallel {
			p.sync = true
		}
	}
	if d.cfg.serial {
		p.sync = true
	}
	p.cur = p.newBatch()
	if p.sync {
		return p
	}
	n := 2*nw + 2
	p.free = make(chan *batch, n)
	p.work = make(chan *batch, n)
	p.wg.Add(nw)
	for range nw {
		go p.worker()
	}
	return p
}

func (p *pipeline) setErr(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
	p.failed.Store(true)
}

func (p *pipeline) worker() {
	defer p.wg.Done()
	for bt := range p.work {
		if !p.failed.Load() {
			p.run(bt)
		}
		p.free <- bt
	}
}

// run reconstructs bt, turning a panic into an error.
func (p *pipeline) run(bt *batch) {
	defer func() {
		if v := recover(); v != nil {
			p.setErr(&internalError{v})
		}
	}()
	p.d.reconstructBatch(bt)
}

// flush hands the current batch over and makes p.cur an empty one.
func (p *pipeline) flush() error {
	if p.sync {
		p.run(p.cur)
		p.cur.nh, p.cur.ne = 0, 0
	} else {
		p.work <- p.cur
		if p.nalloc < cap(p.free) {
			p.cur = p.newBatch()
		} else {
			p.cur = <-p.free
		}
		p.cur.nh, p.cur.ne = 0, 0
	}
	if p.failed.Load() {
		return p.err
	}
	return nil
}

// finish reconstructs what is left and waits for the workers.
func (p *pipeline) finish() error {
	if p.cur.nh > 0 {
		if err := p.flush(); err != nil {
			p.stop()
			return err
		}
	}
	p.stop()
	if p.failed.Load() {
		return p.err
	}
	return nil
}

// newBatch returns an unused batch: a saved one or a new one.
func (p *pipeline) newBatch() *batch {
	p.nalloc++
	d := p.d
	if n := len(d.batches); n > 0 {
		bt := d.batches[n-1]
		d.batches = d.batches[:n-1]
		bt.nh, bt.ne = 0, 0
		return bt
	}
	if bt, ok := spareBatches.Get().(*batch); ok && len(bt.hdr) == p.blocks {
		bt.nh, bt.ne = 0, 0
		return bt
	}
	return newBatch(p.blocks)
}

// spareBatches keeps the batches of finished decodes for later ones: a decode's
// ring is several hundred kilobytes, which a folder of photos would otherwise
// allocate (and the kernel fault in) once per photo.
var spareBatches sync.Pool // of *batch

// saveBatches gives the decoder's batches, which no worker holds any more (stop
// saved them), to later decodes.
func (d *decoder) saveBatches() {
	for _, bt := range d.batches {
		spareBatches.Put(bt)
	}
	d.batches = nil
}

// stop stops the workers and saves the batches for the next scan. It is
// safe to call more than once.
func (p *pipeline) stop() {
	if p.closed {
		return
	}
	p.closed = true
	d := p.d
	if !p.sync {
		close(p.work)
		p.wg.Wait()
		close(p.free)
		for bt := range p.free {
			d.batches = append(d.batches, bt)
		}
	}
	d.batches = append(d.batches, p.cur)
}

// reconstructBatch dequantizes, transforms and stores the blocks of bt.
func (d *decoder) reconstructBatch(bt *batch) {
	ent := bt.ent[:bt.ne]
	if d.cfg.testPanic {
		panic("test panic")
	}
	scale8 := d.shift == 3
	for _, h := range bt.hdr[:bt.nh] {
		c := int(h.comp)
		qt := &d.quant[d.comp[c].tq]
		var b block
		b[0] = h.dc * qt[0]
		es := ent[:h.n]
		ent = ent[h.n:]
		var m uint16
		var sum int64
		if scale8 {
			m, sum = scatterSum(&b, es, qt)
		} else {
			m = scatter(&b, es, qt)
		}
		d.storeBlock(&b, c, int(h.bx), int(h.by), uint8(m)|1, uint8(m>>8), sum)
	}
}

// scatter dequantizes the AC coefficients es into b, returning the rows
// masks of idctSparse (bits 0-7 and 8-15). It is not inlined: in
// reconstructBatch's loop its variables would live on the stack.
//
//go:noinline
func scatter(b *block, es []int32, qt *block) (m uint16) {
	var mm uint32
	for _, e := range es {
		z := e & 63
		t := zigTab[z]
		b[t&63] = (e >> 8) * qt[z]
		mm |= t
	}
	return uint16(mm >> 8)
}

// scatterSum is scatter that also returns the sum of the absolute values of
// the dequantized coefficients.
func scatterSum(b *block, es []int32, qt *block) (m uint16, sum int64) {
	var mm uint32
	for _, e := range es {
		z := e & 63
		t := zigTab[z]
		v := (e >> 8) * qt[z]
		b[t&63] = v
		mm |= t
		sum += abs64(v)
	}
	return uint16(mm >> 8), sum
}

// sumAbsAC returns the sum of the absolute values of b's AC coefficients.
func sumAbsAC(b *block) int64 {
	var sum int64
	for _, v := range b[1:] {
		sum += abs64(v)
	}
	return sum
}

// zigTab[z] is unzig[z] in bits 0-7, and in bits 8-23 the rows masks of the
// zig-zag index z: bit 8+r is set if z is in row r, and bit 16+r if it is
// also not in the first column.
var zigTab = func() (m [blockSize]uint32) {
	for z, u := range unzig {
		m[z] = uint32(u) | 1<<(8+u/8)
		if u%8 != 0 {
			m[z] |= 1 << (16 + u/8)
		}
	}
	return m
}()

// abs64 is |v|, without a branch (signs are unpredictable).
func abs64(v int32) int64 {
	x := int64(v)
	m := x >> 63
	return (x ^ m) - m
}

// processSequentialScan decodes a scan of a sequential (non-progressive)
// image. It follows image/jpeg's processSOS.
func (d *decoder) processSequentialScan(scan *[maxComponents]scanComponent, nComp, mxx, myy int) error {
	total := 0
	for i := 0; i < nComp; i++ {
		c := &d.comp[scan[i].compIndex]
		total += mxx * myy * c.h * c.v
	}
	p := d.startPipeline(total)
	defer p.stop()

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
				dcT := &d.huff[dcTable][scan[i].td]
				acT := &d.huff[acTable][scan[i].ta]
				for j := 0; j < hi*vi; j++ {
					// See the comments in processSOS about the block order.
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
					bt := p.cur
					if bt.nh == len(bt.hdr) || bt.ne > len(bt.ent)-blockSize {
						if err := p.flush(); err != nil {
							return err
						}
						bt = p.cur
					}
					n, err := d.decodeBlock(dcT, acT, &dc[compIndex], (*[blockSize]int32)(bt.ent[bt.ne:bt.ne+blockSize]))
					if err != nil {
						return err
					}
					bt.hdr[bt.nh] = blockHdr{dc: dc[compIndex], bx: uint16(bx), by: uint16(by), comp: compIndex, n: uint8(n)}
					bt.nh++
					bt.ne += n
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
	return p.finish()
}

// slowCode decodes a Huffman code longer than lutBits bits, as image/jpeg's
// bit-by-bit slow path does. acc must hold at least 16 bits.
func slowCode(h *huffman, acc uint64) (sym uint32, length uint, ok bool) {
	peek := uint32(acc >> 48)
	for i := lutBits; i < maxCodeLength; i++ {
		code := int32(peek >> (15 - i))
		if code <= h.maxCodes[i] {
			return uint32(h.vals[uint8(h.valsIndices[i]+code-h.minCodes[i])]), uint(i + 1), true
		}
	}
	return 0, 0, false
}

// decodeBlock decodes one block of a sequential scan. It adds the DC
// difference to *dc and writes the non-zero AC coefficients to ent, as
// value<<8 | zig-zag index, returning how many there are.
//
// While at least 32 bits of data are buffered (the most a code and its extra
// bits take), it works on a copy of the bit buffer without checking for the
// end of the data. Near the end of the segment's data it continues with
// decodeBlockCareful, which behaves exactly as image/jpeg does there.
func (d *decoder) decodeBlock(dcT, acT *huffman, dc *int32, ent *[blockSize]int32) (int, error) {
	if d.bits.ended {
		return d.decodeBlockCareful(dcT, acT, dc, ent)
	}
	if dcT.nCodes == 0 {
		return 0, errUninitializedHuffman
	}
	acc, n := d.bits.acc, d.bits.n
	if n < 32 {
		acc, n = d.refill(acc, n)
		if d.bits.ended {
			d.bits.acc, d.bits.n = acc, n
			return d.decodeBlockCareful(dcT, acT, dc, ent)
		}
	}

	// The DC coefficient.
	e := dcT.lut[acc>>(64-lutBits)]
	if e&lutValueMask != 0 {
		acc <<= uint(e) & 63 // Bits 0-5: the total length.
		n -= uint(e) & lutTotMask
		*dc += int32(e) >> lutValShift
	} else {
		s := (e >> lutSymShift) & 0xff
		l := uint(e>>lutLenShift) & lutLenMask
		if l == 0 {
			var ok bool
			if s, l, ok = slowCode(dcT, acc); !ok {
				return 0, errBadHuffmanCode
			}
		}
		acc <<= l & 63
		n -= l
		if s > 16 {
			return 0, UnsupportedError("excessive DC component")
		}
		if s != 0 {
			x := int32(acc >> ((64 - s) & 63))
			acc <<= s & 63
			n -= uint(s)
			if x < 1<<(s-1) {
				x += (-1 << s) + 1
			}
			*dc += x
		}
	}

	// The AC coefficients.
	k := 0
	if d.eobRun > 0 {
		d.eobRun--
		d.bits.acc, d.bits.n = acc, n
		return 0, nil
	}
	if acT.nCodes == 0 {
		return 0, errUninitializedHuffman
	}
	for zig := 1; zig < blockSize; {
		if n < 32 {
			acc, n = d.refill(acc, n)
			if d.bits.ended {
				d.bits.acc, d.bits.n = acc, n
				return d.decodeACCareful(acT, zig, ent, k)
			}
		}
		e := acT.lut[acc>>(64-lutBits)]
		if e&lutValueMask != 0 {
			// A code with its value.
			if z := zig + int(e>>lutRunShift&lutRunMask); z < blockSize {
				acc <<= uint(e) & 63 // Bits 0-5: the total length.
				n -= uint(e) & lutTotMask
				ent[k&63] = int32(e)>>lutValShift<<8 | int32(z)
				k++
				zig = z + 1
				continue
			}
		}
		s := (e >> lutSymShift) & 0xff
		l := uint(e>>lutLenShift) & lutLenMask
		if l == 0 {
			var ok bool
			if s, l, ok = slowCode(acT, acc); !ok {
				return 0, errBadHuffmanCode
			}
		}
		acc <<= l & 63
		n -= l
		val0, val1 := s>>4, s&0x0f
		if val1 != 0 {
			zig += int(val0)
			if zig >= blockSize {
				break
			}
			x := int32(acc >> ((64 - val1) & 63))
			acc <<= val1 & 63
			n -= uint(val1)
			if x < 1<<(val1-1) {
				x += (-1 << val1) + 1
			}
			ent[k&63] = x<<8 | int32(zig)
			k++
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
		zig++
	}
	d.bits.acc, d.bits.n = acc, n
	return k, nil
}

// decodeBlockCareful is decodeBlock near the end of the segment's data:
// image/jpeg's code, with the bit reader's overrun checks.
func (d *decoder) decodeBlockCareful(dcT, acT *huffman, dc *int32, ent *[blockSize]int32) (int, error) {
	value, err := d.decodeHuffman(dcT)
	if err != nil {
		return 0, d.fail(err)
	}
	if value > 16 {
		return 0, d.fail(UnsupportedError("excessive DC component"))
	}
	*dc += d.receiveExtend(value)
	if d.eobRun > 0 {
		d.eobRun--
		if d.bits.overrun() {
			return 0, d.bits.err
		}
		return 0, nil
	}
	return d.decodeACCareful(acT, 1, ent, 0)
}

// decodeACCareful decodes AC coefficients from zig-zag index zig on, with k
// coefficients already in ent.
func (d *decoder) decodeACCareful(acT *huffman, zig int, ent *[blockSize]int32, k int) (int, error) {
	for ; zig < blockSize; zig++ {
		value, err := d.decodeHuffman(acT)
		if err != nil {
			return 0, d.fail(err)
		}
		val0 := value >> 4
		val1 := value & 0x0f
		if val1 != 0 {
			zig += int(val0)
			if zig >= blockSize {
				break
			}
			ent[k&63] = d.receiveExtend(val1)<<8 | int32(zig)
			k++
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
	if d.bits.overrun() {
		return 0, d.bits.err
	}
	return k, nil
}
