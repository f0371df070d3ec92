package engine

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// encodePNG writes img as an opaque 8- or 16-bit RGB PNG, streaming: rows are
// converted a band at a time on every core, filtered and compressed, so neither a
// full-size RGBA copy (image/png needs one) nor the file sits in memory. Each row
// takes the PNG filter whose output has the smallest sum of absolute values, the
// heuristic the PNG specification suggests and image/png uses.
func encodePNG(w io.Writer, img *Image, depth int, opt EncodeOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString("\x89PNG\r\n\x1a\n"); err != nil {
		return err
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(img.W))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(img.H))
	ihdr = append(ihdr, byte(depth), 2, 0, 0, 0) // truecolour, deflate, adaptive filters, no interlace
	if err := writeChunk(bw, "IHDR", ihdr); err != nil {
		return err
	}
	idat := &idatWriter{w: bw, buf: make([]byte, 0, 1<<16)}
	level := zlib.DefaultCompression
	if opt.FastPNG {
		level = zlib.BestSpeed
	}
	zw, err := zlib.NewWriterLevel(idat, level)
	if err != nil {
		return err
	}
	bpp := 3 * depth / 8 // bytes a pixel
	stride := bpp * img.W
	const band = 64
	raw := make([]byte, band*stride) // converted rows of the current band
	prev := make([]byte, stride)     // the row above, unfiltered (zero above the first)
	var filtered [5][]byte
	for i := range filtered {
		filtered[i] = make([]byte, 1+stride)
		filtered[i][0] = byte(i)
	}
	t := srgb8()
	for y0 := 0; y0 < img.H; y0 += band {
		if err := encodeBand(opt, y0, img.H); err != nil {
			return err
		}
		n := min(band, img.H-y0)
		parallelN(n, minRows(img.W), func(a, b int) {
			for y := a; y < b; y++ {
				px := img.Pix[3*(y0+y)*img.W : 3*(y0+y+1)*img.W]
				out := raw[y*stride : (y+1)*stride]
				if depth == 8 {
					for i, v := range px {
						out[i] = quant8(t, v)
					}
					continue
				}
				for i, v := range px {
					binary.BigEndian.PutUint16(out[2*i:], quant16(v))
				}
			}
		})
		for y := range n {
			cur := raw[y*stride : (y+1)*stride]
			if _, err := zw.Write(filterRowPNG(&filtered, cur, prev, bpp)); err != nil {
				return err
			}
			copy(prev, cur)
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := idat.flush(); err != nil {
		return err
	}
	if err := writeChunk(bw, "IEND", nil); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if opt.Rows != nil {
		opt.Rows(img.H, img.H)
	}
	return nil
}

// filterRowPNG applies the five PNG filters to cur (prev is the row above) and
// returns the one, filter type byte first, whose bytes as signed values sum smallest.
func filterRowPNG(f *[5][]byte, cur, prev []byte, bpp int) []byte {
	copy(f[0][1:], cur)
	sub, up, avg, paeth := f[1][1:], f[2][1:], f[3][1:], f[4][1:]
	for i, c := range cur {
		var a, cc byte
		if i >= bpp {
			a, cc = cur[i-bpp], prev[i-bpp]
		}
		b := prev[i]
		sub[i] = c - a
		up[i] = c - b
		avg[i] = c - byte((int(a)+int(b))/2)
		paeth[i] = c - paethPredictor(a, b, cc)
	}
	best, bestSum := 0, -1
	for k := range f {
		sum := 0
		for _, v := range f[k][1:] {
			sum += int(abs8(int8(v)))
		}
		if bestSum < 0 || sum < bestSum {
			best, bestSum = k, sum
		}
	}
	return f[best]
}

func abs8(v int8) int {
	if v < 0 {
		return -int(v)
	}
	return int(v)
}

func paethPredictor(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := p-int(a), p-int(b), p-int(c)
	if pa < 0 {
		pa = -pa
	}
	if pb < 0 {
		pb = -pb
	}
	if pc < 0 {
		pc = -pc
	}
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

// idatWriter cuts the compressed stream into IDAT chunks of up to 64 KB.
type idatWriter struct {
	w   io.Writer
	buf []byte
}

func (d *idatWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), cap(d.buf)-len(d.buf))
		d.buf = append(d.buf, p[:k]...)
		p = p[k:]
		if len(d.buf) == cap(d.buf) {
			if err := d.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (d *idatWriter) flush() error {
	if len(d.buf) == 0 {
		return nil
	}
	err := writeChunk(d.w, "IDAT", d.buf)
	d.buf = d.buf[:0]
	return err
}

func writeChunk(w io.Writer, typ string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:], uint32(len(data)))
	copy(head[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	return err
}
