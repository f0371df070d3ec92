package raw

import (
	"fmt"
)

// Lossless JPEG (ITU T.81 process 14, "LJ92"), the compression of most DNGs: a
// frame (SOF3) of 1 to 4 interleaved components of 2 to 16 bits, Huffman-coded
// differences from one of seven predictors, optional restart intervals. The decoder
// reads one frame and gives its rows to a callback; it never allocates more than
// two rows, and a frame whose size the caller did not expect is refused before any.

type huffTable struct {
	// fast maps the next 9 bits to (length<<8 | symbol) for codes of 9 bits or less.
	fast    [512]uint16
	maxcode [18]int32
	valptr  [17]int32
	mincode [17]int32
	vals    []uint8
	defined bool
}

const fastBits = 9

func buildHuff(counts [16]uint8, vals []uint8) (*huffTable, error) {
	h := &huffTable{vals: vals, defined: true}
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		if code+n > 1<<l {
			return nil, fmt.Errorf("bad Huffman table") // more codes than the length holds
		}
		h.valptr[l] = k
		h.mincode[l] = code
		if n == 0 {
			h.maxcode[l] = -1
		} else {
			for i := int32(0); i < n; i++ {
				if l <= fastBits {
					lo := (code + i) << (fastBits - l)
					hi := (code + i + 1) << (fastBits - l)
					for c := lo; c < hi; c++ {
						h.fast[c] = uint16(l)<<8 | uint16(vals[k+i])
					}
				}
			}
			code += n
			k += n
			h.maxcode[l] = code - 1
		}
		if code > 1<<l {
			return nil, fmt.Errorf("bad Huffman table")
		}
		code <<= 1
	}
	h.maxcode[17] = 1<<31 - 1
	return h, nil
}

// bitReader reads the entropy-coded segment, removing stuffed zero bytes; at a
// marker it feeds zeros, and counts them so a truncated stream ends the decode.
type bitReader struct {
	b      []byte
	pos    int
	acc    uint64
	n      uint
	marker bool
	zeros  int
}

func (r *bitReader) fill() {
	for r.n <= 56 {
		var c byte
		if r.marker || r.pos >= len(r.b) {
			r.zeros++
		} else {
			c = r.b[r.pos]
			r.pos++
			if c == 0xFF {
				if r.pos < len(r.b) && r.b[r.pos] == 0 {
					r.pos++
				} else {
					r.marker = true
					r.pos--
					c = 0
					r.zeros++
				}
			}
		}
		r.acc |= uint64(c) << (56 - r.n)
		r.n += 8
	}
}

func (r *bitReader) decode(h *huffTable) (int, bool) {
	if r.n < 32 {
		r.fill()
	}
	if e := h.fast[r.acc>>(64-fastBits)]; e != 0 {
		l := uint(e >> 8)
		r.acc <<= l
		r.n -= l
		return int(e & 0xff), true
	}
	code := int32(0)
	for l := 1; l <= 16; l++ {
		code = code<<1 | int32(r.acc>>63)
		r.acc <<= 1
		r.n--
		if code <= h.maxcode[l] {
			return int(h.vals[h.valptr[l]+code-h.mincode[l]]), true
		}
	}
	return 0, false
}

func (r *bitReader) bits(n uint) int32 {
	if r.n < n {
		r.fill()
	}
	v := int32(r.acc >> (64 - n))
	r.acc <<= n
	r.n -= n
	return v
}

// restart skips to the RSTn marker after the current segment and past it.
func (r *bitReader) restart() error {
	r.acc, r.n, r.marker = 0, 0, false
	for r.pos+1 < len(r.b) {
		if r.b[r.pos] == 0xFF && r.b[r.pos+1] >= 0xD0 && r.b[r.pos+1] <= 0xD7 {
			r.pos += 2
			return nil
		}
		r.pos++
	}
	return fmt.Errorf("missing restart marker")
}

type ljpeg struct {
	w, h, comps, prec int
	pred, pt          int
	restart           int
	table             [4]*huffTable
	scan              []byte
}

// parseLJ92 reads the markers up to the scan of a lossless JPEG.
func parseLJ92(b []byte) (*ljpeg, error) {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return nil, fmt.Errorf("not a JPEG stream")
	}
	var tables [4]*huffTable
	j := &ljpeg{}
	var compID [4]int
	sof := false
	p := 2
	for {
		for p < len(b) && b[p] != 0xFF {
			p++
		}
		for p < len(b) && b[p] == 0xFF {
			p++
		}
		if p+2 >= len(b) {
			return nil, fmt.Errorf("truncated before the scan")
		}
		m := b[p]
		p++
		if m == 0xD8 || (m >= 0xD0 && m <= 0xD7) {
			continue
		}
		l := int(b[p])<<8 | int(b[p+1])
		if l < 2 || p+l > len(b) {
			return nil, fmt.Errorf("marker %02X: bad length", m)
		}
		seg := b[p+2 : p+l]
		p += l
		switch m {
		case 0xC4:
			for len(seg) > 0 {
				if len(seg) < 17 {
					return nil, fmt.Errorf("bad DHT")
				}
				id := int(seg[0] & 0x0f)
				var counts [16]uint8
				copy(counts[:], seg[1:17])
				n := 0
				for _, c := range counts {
					n += int(c)
				}
				if id > 3 || n > 17 || len(seg) < 17+n {
					return nil, fmt.Errorf("bad DHT")
				}
				for _, v := range seg[17 : 17+n] {
					if v > 16 {
						return nil, fmt.Errorf("bad DHT symbol %d", v)
					}
				}
				h, err := buildHuff(counts, append([]uint8(nil), seg[17:17+n]...))
				if err != nil {
					return nil, err
				}
				tables[id] = h
				seg = seg[17+n:]
			}
		case 0xC3:
			if len(seg) < 6 {
				return nil, fmt.Errorf("bad SOF3")
			}
			j.prec = int(seg[0])
			j.h = int(seg[1])<<8 | int(seg[2])
			j.w = int(seg[3])<<8 | int(seg[4])
			j.comps = int(seg[5])
			if j.comps < 1 || j.comps > 4 || len(seg) < 6+3*j.comps || j.prec < 2 || j.prec > 16 || j.w == 0 || j.h == 0 {
				return nil, fmt.Errorf("bad SOF3")
			}
			for c := range j.comps {
				compID[c] = int(seg[6+3*c])
			}
			sof = true
		case 0xC0, 0xC1, 0xC2, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
			return nil, errLossy
		case 0xDD:
			if len(seg) >= 2 {
				j.restart = int(seg[0])<<8 | int(seg[1])
			}
		case 0xDA:
			if !sof {
				return nil, fmt.Errorf("scan before frame")
			}
			if len(seg) < 1 || int(seg[0]) != j.comps || len(seg) < 1+2*j.comps+3 {
				return nil, fmt.Errorf("the scan does not interleave every component")
			}
			for c := range j.comps {
				if int(seg[1+2*c]) != compID[c] {
					return nil, fmt.Errorf("scan components out of order")
				}
				t := tables[seg[2+2*c]>>4&3]
				if t == nil {
					return nil, fmt.Errorf("undefined Huffman table")
				}
				j.table[c] = t
			}
			j.pred = int(seg[1+2*j.comps])
			j.pt = int(seg[3+2*j.comps] & 0x0f)
			if j.pred < 1 || j.pred > 7 || j.pt >= j.prec {
				return nil, fmt.Errorf("predictor %d / point transform %d not supported", j.pred, j.pt)
			}
			j.scan = b[p:]
			return j, nil
		case 0xD9:
			return nil, fmt.Errorf("no scan")
		}
	}
}

var errLossy = fmt.Errorf("lossy JPEG")

// decode runs the scan, giving each row of w*comps samples to row (the slice is
// reused for the next row).
func (j *ljpeg) decode(row func(y int, s []uint16)) error {
	n := j.w * j.comps
	if j.restart > 0 && j.restart%j.w != 0 {
		return fmt.Errorf("restart interval %d is not a whole number of rows", j.restart)
	}
	prev := make([]int32, n)
	cur := make([]int32, n)
	out := make([]uint16, n)
	r := &bitReader{b: j.scan}
	first := true
	mcus := 0
	mask := int32(1)<<16 - 1
	init := int32(1) << (j.prec - j.pt - 1)
	maxZeros := 64 + n/2
	for y := range j.h {
		if j.restart > 0 && mcus == j.restart {
			if err := r.restart(); err != nil {
				return err
			}
			mcus, first = 0, true
		}
		if err := j.row(r, cur, prev, first, init, mask); err != nil {
			return fmt.Errorf("%v at row %d", err, y)
		}
		if r.zeros > maxZeros {
			return fmt.Errorf("the compressed data is truncated at row %d", y)
		}
		mcus += j.w
		first = false
		for i, v := range cur {
			out[i] = uint16(v << j.pt)
		}
		row(y, out)
		prev, cur = cur, prev
	}
	return nil
}

// row decodes one row of samples into cur (prev is the row above): the bit
// reader's state is kept in locals, and every symbol is read with at least 32
// bits at hand, so its extra bits never need a refill.
func (j *ljpeg) row(r *bitReader, cur, prev []int32, first bool, init, mask int32) error {
	comps := j.comps
	acc, nb := r.acc, r.n
	for x := 0; x < j.w; x++ {
		for c := range comps {
			i := x*comps + c
			if nb < 32 {
				r.acc, r.n = acc, nb
				r.fill()
				acc, nb = r.acc, r.n
			}
			h := j.table[c]
			var s int
			if e := h.fast[acc>>(64-fastBits)]; e != 0 {
				l := uint(e >> 8)
				acc <<= l
				nb -= l
				s = int(e & 0xff)
			} else {
				r.acc, r.n = acc, nb
				var ok bool
				if s, ok = r.decode(h); !ok {
					return fmt.Errorf("bad Huffman code")
				}
				acc, nb = r.acc, r.n
			}
			var d int32
			switch {
			case s == 0:
			case s == 16:
				d = 32768
			default:
				v := int32(acc >> (64 - uint(s)))
				acc <<= uint(s)
				nb -= uint(s)
				if v < 1<<(s-1) {
					v += -1<<s + 1
				}
				d = v
			}
			var p int32
			switch {
			case x > 0 && (first || j.pred == 1):
				p = cur[i-comps]
			case first:
				p = init
			case x == 0:
				p = prev[i]
			default:
				ra, rb, rc := cur[i-comps], prev[i], prev[i-comps]
				switch j.pred {
				case 2:
					p = rb
				case 3:
					p = rc
				case 4:
					p = ra + rb - rc
				case 5:
					p = ra + (rb-rc)>>1
				case 6:
					p = rb + (ra-rc)>>1
				case 7:
					p = (ra + rb) >> 1
				}
			}
			cur[i] = (p + d) & mask
		}
	}
	r.acc, r.n = acc, nb
	return nil
}
