package engine

// Converting decoded pixels to linear-light float rows, and turning them upright.

import (
	"image"
	"image/color"
	"sync/atomic"
)

// rowConv converts row y (0-based within the image's bounds) of a decoded image into
// 3*width linear values in dst.
type rowConv func(y int, dst []float32)

// converter returns a row converter for m. The common decoder outputs get loops over
// their own pixel layout (no per-pixel interface calls); anything else goes through
// At. Transparent pixels are composited onto white in linear light, and the returned
// flag records that some were met.
func converter(m image.Image) (rowConv, *atomic.Bool) {
	alpha := new(atomic.Bool)
	b := m.Bounds()
	w := b.Dx()
	switch m := m.(type) {
	case *image.YCbCr:
		if b.Min.X >= 0 && b.Min.Y >= 0 {
			return ycbcrConv(m, nil, alpha), alpha
		}
	case *image.NYCbCrA:
		if b.Min.X >= 0 && b.Min.Y >= 0 {
			return ycbcrConv(&m.YCbCr, m, alpha), alpha
		}
	case *image.RGBA:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
			seen := false
			for x := range w {
				p := px[4*x : 4*x+4 : 4*x+4]
				d := dst[3*x : 3*x+3 : 3*x+3]
				if a := p[3]; a != 0xff {
					seen = true
					flatten8(d, unpremul8(p[0], a), unpremul8(p[1], a), unpremul8(p[2], a), a)
					continue
				}
				d[0], d[1], d[2] = lin8[p[0]], lin8[p[1]], lin8[p[2]]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.NRGBA:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
			seen := false
			for x := range w {
				p := px[4*x : 4*x+4 : 4*x+4]
				d := dst[3*x : 3*x+3 : 3*x+3]
				if a := p[3]; a != 0xff {
					seen = true
					flatten8(d, p[0], p[1], p[2], a)
					continue
				}
				d[0], d[1], d[2] = lin8[p[0]], lin8[p[1]], lin8[p[2]]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.RGBA64:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:8*w]
			seen := false
			for x := range w {
				p := px[8*x : 8*x+8 : 8*x+8]
				d := dst[3*x : 3*x+3 : 3*x+3]
				r, g, bl, a := be16(p[0:]), be16(p[2:]), be16(p[4:]), be16(p[6:])
				if a != 0xffff {
					seen = true
					flatten16(d, unpremul16(r, a), unpremul16(g, a), unpremul16(bl, a), a)
					continue
				}
				d[0], d[1], d[2] = lin16[r], lin16[g], lin16[bl]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.NRGBA64:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:8*w]
			seen := false
			for x := range w {
				p := px[8*x : 8*x+8 : 8*x+8]
				d := dst[3*x : 3*x+3 : 3*x+3]
				r, g, bl, a := be16(p[0:]), be16(p[2:]), be16(p[4:]), be16(p[6:])
				if a != 0xffff {
					seen = true
					flatten16(d, r, g, bl, a)
					continue
				}
				d[0], d[1], d[2] = lin16[r], lin16[g], lin16[bl]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	case *image.Gray:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:w]
			for x, v := range px {
				l := lin8[v]
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = l, l, l
			}
		}, alpha
	case *image.Gray16:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:2*w]
			for x := range w {
				l := lin16[be16(px[2*x:])]
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = l, l, l
			}
		}, alpha
	case *image.CMYK:
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
			for x := range w {
				p := px[4*x : 4*x+4 : 4*x+4]
				r, g, bl := color.CMYKToRGB(p[0], p[1], p[2], p[3])
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = lin8[r], lin8[g], lin8[bl]
			}
		}, alpha
	case *image.Paletted:
		// Out-of-range indices (which At would panic on) read as black.
		var pal [256][3]float32
		var transparent [256]bool
		for i, c := range m.Palette {
			if i == len(pal) {
				break
			}
			n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
			flatten16(pal[i][:], n.R, n.G, n.B, n.A)
			transparent[i] = n.A != 0xffff
		}
		return func(y int, dst []float32) {
			px := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:w]
			seen := false
			for x, v := range px {
				d := dst[3*x : 3*x+3 : 3*x+3]
				p := &pal[v]
				d[0], d[1], d[2] = p[0], p[1], p[2]
				seen = seen || transparent[v]
			}
			if seen {
				alpha.Store(true)
			}
		}, alpha
	}
	return func(y int, dst []float32) {
		seen := false
		for x := range w {
			n := color.NRGBA64Model.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
			flatten16(dst[3*x:3*x+3], n.R, n.G, n.B, n.A)
			seen = seen || n.A != 0xffff
		}
		if seen {
			alpha.Store(true)
		}
	}, alpha
}

// ycbcrConv converts with the same integer arithmetic as color.YCbCrToRGB (so results
// match the standard library's At), nearest-neighbour chroma as it does, then the
// sRGB-to-linear table. a, when not nil, supplies non-premultiplied alpha.
func ycbcrConv(m *image.YCbCr, a *image.NYCbCrA, alpha *atomic.Bool) rowConv {
	b := m.Rect
	w := b.Dx()
	hs, vs := chromaShifts(m.SubsampleRatio)
	return func(y int, dst []float32) {
		ay := b.Min.Y + y
		yrow := m.Y[m.YOffset(b.Min.X, ay):][:w]
		c0 := (ay>>vs - b.Min.Y>>vs) * m.CStride
		x0 := b.Min.X >> hs
		cb, cr := m.Cb[c0:], m.Cr[c0:]
		var arow []uint8
		if a != nil {
			arow = a.A[a.AOffset(b.Min.X, ay):][:w]
		}
		if hs == 1 && b.Min.X%2 == 0 && arow == nil {
			ycbcrPairs(dst, yrow, cb, cr)
			return
		}
		if hs == 0 && arow == nil {
			ycbcrFull(dst, yrow, cb, cr)
			return
		}
		seen := false
		for x, yy := range yrow {
			ci := (b.Min.X+x)>>hs - x0
			r, g, bl := ycbcrRGB(yy, cb[ci], cr[ci])
			d := dst[3*x : 3*x+3 : 3*x+3]
			if arow != nil && arow[x] != 0xff {
				seen = true
				flatten8(d, clamp8(r), clamp8(g), clamp8(bl), arow[x])
				continue
			}
			d[0], d[1], d[2] = lin8[clamp8(r)], lin8[clamp8(g)], lin8[clamp8(bl)]
		}
		if seen {
			alpha.Store(true)
		}
	}
}

// ycbcrRGB is color.YCbCrToRGB's integer arithmetic, before clamp8 takes each
// 16.16 result to 0..255 (kept apart so that both inline into pixel loops).
func ycbcrRGB(y, cb, cr uint8) (r, g, b int32) {
	y1 := int32(y) * 0x10101
	cb1 := int32(cb) - 128
	cr1 := int32(cr) - 128
	return y1 + 91881*cr1, y1 - 22554*cb1 - 46802*cr1, y1 + 116130*cb1
}

// chromaShifts returns the shifts that take a luma column and row to its chroma
// sample's under ratio r.
func chromaShifts(r image.YCbCrSubsampleRatio) (hs, vs uint) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return 1, 0
	case image.YCbCrSubsampleRatio420:
		return 1, 1
	case image.YCbCrSubsampleRatio440:
		return 0, 1
	case image.YCbCrSubsampleRatio411:
		return 2, 0
	case image.YCbCrSubsampleRatio410:
		return 2, 1
	}
	return 0, 0
}

// ycbcrFull converts a row with a chroma sample per pixel (4:4:4, what encoders
// write at high quality), with ycbcrRGB's arithmetic; eight pixels at a time where
// the CPU has AVX2 (ycbcrdec_amd64.s), to the same values.
func ycbcrFull(dst []float32, yrow, cb, cr []uint8) {
	n := len(yrow)
	cb, cr, dst = cb[:n], cr[:n], dst[:3*n]
	if useAVX512VBMI && useAVX2 && n >= 16 {
		m := n &^ 15
		ycbcrLinAVX512(&dst[0], &yrow[0], &cb[0], &cr[0], m, false, &lin8Planes[0])
		dst, yrow, cb, cr = dst[3*m:], yrow[m:], cb[m:], cr[m:]
		n -= m
	}
	if useAVX2 && n >= 8 {
		m := n &^ 7
		ycbcrLinAVX2(&dst[0], &yrow[0], &cb[0], &cr[0], m, false, &lin8[0])
		dst, yrow, cb, cr = dst[3*m:], yrow[m:], cb[m:], cr[m:]
	}
	for i, yy := range yrow {
		y1 := int32(yy) * 0x10101
		cb1 := int32(cb[i]) - 128
		cr1 := int32(cr[i]) - 128
		d := dst[3*i : 3*i+3 : 3*i+3]
		d[0], d[1], d[2] = lin8[clamp8(y1+91881*cr1)], lin8[clamp8(y1-22554*cb1-46802*cr1)], lin8[clamp8(y1+116130*cb1)]
	}
}

// ycbcrPairs converts a row whose chroma is shared by pixel pairs (4:2:0 and 4:2:2,
// what cameras write): the chroma terms are computed once per pair. It is the hot
// loop of decoding a photo, so it avoids everything but the arithmetic, and runs
// eight pixels at a time where the CPU has AVX2.
func ycbcrPairs(dst []float32, yrow, cb, cr []uint8) {
	n := len(yrow) / 2
	cb, cr = cb[:(len(yrow)+1)/2], cr[:(len(yrow)+1)/2]
	dst = dst[:3*len(yrow)]
	i0 := 0
	if useAVX512VBMI && useAVX2 && len(yrow) >= 16 {
		m := len(yrow) &^ 15
		ycbcrLinAVX512(&dst[0], &yrow[0], &cb[0], &cr[0], m, true, &lin8Planes[0])
		i0 = m / 2
	}
	if useAVX2 && len(yrow)-2*i0 >= 8 {
		m := (len(yrow) - 2*i0) &^ 7
		ycbcrLinAVX2(&dst[6*i0], &yrow[2*i0], &cb[i0], &cr[i0], m, true, &lin8[0])
		i0 += m / 2
	}
	for i := i0; i < n; i++ {
		cb1 := int32(cb[i]) - 128
		cr1 := int32(cr[i]) - 128
		rc, gc, bc := 91881*cr1, -22554*cb1-46802*cr1, 116130*cb1
		y0, y1 := int32(yrow[2*i])*0x10101, int32(yrow[2*i+1])*0x10101
		d := dst[6*i : 6*i+6 : 6*i+6]
		d[0], d[1], d[2] = lin8[clamp8(y0+rc)], lin8[clamp8(y0+gc)], lin8[clamp8(y0+bc)]
		d[3], d[4], d[5] = lin8[clamp8(y1+rc)], lin8[clamp8(y1+gc)], lin8[clamp8(y1+bc)]
	}
	if len(yrow)%2 == 1 {
		cb1 := int32(cb[n]) - 128
		cr1 := int32(cr[n]) - 128
		y0 := int32(yrow[2*n]) * 0x10101
		d := dst[6*n : 6*n+3 : 6*n+3]
		d[0], d[1], d[2] = lin8[clamp8(y0+91881*cr1)], lin8[clamp8(y0-22554*cb1-46802*cr1)], lin8[clamp8(y0+116130*cb1)]
	}
}

// clamp8 takes a 16.16 fixed-point value to 0..255 as color.YCbCrToRGB does.
func clamp8(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}

func be16(p []byte) uint16 { return uint16(p[0])<<8 | uint16(p[1]) }

func unpremul8(c, a uint8) uint8 {
	if a == 0 {
		return 0
	}
	return uint8(min(255, (uint32(c)*255+uint32(a)/2)/uint32(a)))
}

func unpremul16(c, a uint16) uint16 {
	if a == 0 {
		return 0
	}
	return uint16(min(0xffff, (uint32(c)*0xffff+uint32(a)/2)/uint32(a)))
}

// flatten8 composites a non-premultiplied colour onto white, in linear light where
// coverage mixes physically.
func flatten8(d []float32, r, g, b, a uint8) {
	k := float32(a) / 255
	d[0], d[1], d[2] = lin8[r]*k+1-k, lin8[g]*k+1-k, lin8[b]*k+1-k
}

func flatten16(d []float32, r, g, b, a uint16) {
	k := float32(a) / 0xffff
	d[0], d[1], d[2] = lin16[r]*k+1-k, lin16[g]*k+1-k, lin16[b]*k+1-k
}

// orientStep says where row y of a w x h stored image lands in the upright image
// under EXIF orientation o: its pixel x goes to upright pixel index start + x*step.
// Orientations 5 to 8 swap width and height.
func orientStep(o, w, h, y int) (start, step int) {
	switch o {
	case 2: // mirrored left-right
		return y*w + w - 1, -1
	case 3: // rotated 180
		return (h-1-y)*w + w - 1, -1
	case 4: // mirrored top-bottom
		return (h - 1 - y) * w, 1
	case 5: // transposed
		return y, h
	case 6: // stored rotated 90 counter-clockwise: turn clockwise
		return h - 1 - y, h
	case 7: // transversed
		return (w-1)*h + h - 1 - y, -h
	case 8: // stored rotated 90 clockwise: turn counter-clockwise
		return (w-1)*h + y, -h
	}
	return y * w, 1
}

// convertOriented converts a w x h decoded image into an upright float image in one
// pass, writing each converted row straight to where the orientation puts it, so a
// rotated photo costs no second full-size copy.
func convertOriented(w, h, o int, conv rowConv) *Image {
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	out := scratchImage(ow, oh) // every row is converted into it
	if o < 1 || o > 8 {
		o = 1
	}
	parallelN(h, minRows(w), func(y0, y1 int) {
		var scratch []float32
		if o != 1 {
			scratch = make([]float32, 3*w)
		}
		for y := y0; y < y1; y++ {
			if o == 1 {
				conv(y, out.Pix[3*y*w:3*(y+1)*w])
				continue
			}
			conv(y, scratch)
			scatter(out.Pix, scratch, o, w, h, y)
		}
	})
	return out
}

// orient returns m turned upright under EXIF orientation o (m itself for 1).
func orient(m *Image, o int) *Image {
	if o <= 1 || o > 8 {
		return m
	}
	ow, oh := m.W, m.H
	if o >= 5 {
		ow, oh = m.H, m.W
	}
	out := NewImage(ow, oh)
	parallelN(m.H, minRows(m.W), func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			scatter(out.Pix, m.Pix[3*y*m.W:3*(y+1)*m.W], o, m.W, m.H, y)
		}
	})
	return out
}

func scatter(dst, row []float32, o, w, h, y int) {
	start, step := orientStep(o, w, h, y)
	d, s3 := 3*start, 3*step
	for x := range w {
		p := row[3*x : 3*x+3 : 3*x+3]
		q := dst[d : d+3 : d+3]
		q[0], q[1], q[2] = p[0], p[1], p[2]
		d += s3
	}
}
