package raw

// X-Trans: Fujifilm's 6x6 colour filter array (CFARepeatPatternDim 6x6), whose
// every 3x3 window holds all three colours (Probe refuses a 6x6 pattern that does
// not).
//
// The full decode interpolates as dcraw's and LibRaw's lin_interpolate (what
// dcraw -q 0 does on X-Trans): each site keeps its own sample, and each colour it
// lacks is the weighted mean of that colour's sites among its eight neighbours,
// weight 2 for the four beside it and 1 for the four diagonal ones. It is a
// bilinear interpolation over the pattern's neighbourhood: no edge awareness (an
// X-Trans export is softer than a Bayer one's RCD), no maze or zipper artefacts.
// dcraw keeps its weights' reciprocals as 8-bit integers (256/6 = 42: up to 1.6 %
// low); the means here are exact.
//
// The half-size decode (Options.Half) bins each 3x3 block of the mosaic into one
// pixel, each colour the mean of its sites in the block: a third of each side, no
// interpolation, as the Bayer preview bins 2x2. The blocks are Fujifilm's own
// 3x3 cells (green at the centre and corners, two red and two blue sites facing
// each other across the centre), so that every colour's sites are centred on the
// block and the colours stay in register: the grid starts one or two columns
// (rows) into the DefaultCrop where the pattern's phase asks, which drops those
// columns (rows) and shifts the preview by a third or two of one of its pixels
// (xtransPhase). A pattern without such cells is binned from the crop's origin.

// xtransTap is one neighbour of a site: its offset in the mosaic, its colour and
// its weight.
type xtransTap struct {
	dx, dy int
	c      uint8
	w      float32
}

// xtransCode is, for one site of the pattern, the neighbours that give its
// missing colours and the reciprocal of each colour's total weight.
type xtransCode struct {
	taps []xtransTap
	inv  [3]float32
}

// xtransCodes builds the interpolation of each of the 36 sites.
func (f *File) xtransCodes() [36]xtransCode {
	var codes [36]xtransCode
	for y := range 6 {
		for x := range 6 {
			k := &codes[y*6+x]
			own := f.colorAt(x, y)
			var sum [3]float32
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					c := f.colorAt(x+dx+6, y+dy+6)
					if c == own {
						continue
					}
					w := float32(1)
					if dx == 0 || dy == 0 {
						w = 2
					}
					k.taps = append(k.taps, xtransTap{dx, dy, c, w})
					sum[c] += w
				}
			}
			for c := range 3 {
				if sum[c] > 0 {
					k.inv[c] = 1 / sum[c]
				}
			}
		}
	}
	return codes
}

// xtransAt interpolates site x, y of the aw x ah mosaic near its edges: the
// same weights over the neighbours inside the mosaic, and where a colour has none
// there (a corner), the mean of that colour over the 5x5 neighbourhood inside it.
func (f *File) xtransAt(mosaic []float32, aw, ah, x, y int) (rgb [3]float32) {
	own := f.colorAt(x, y)
	for r := 1; r <= 2; r++ {
		var sum, wt [3]float32
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				sx, sy := x+dx, y+dy
				if sx < 0 || sy < 0 || sx >= aw || sy >= ah {
					continue
				}
				c := f.colorAt(sx, sy)
				w := float32(1)
				if r == 1 && (dx == 0 || dy == 0) {
					w = 2
				}
				sum[c] += w * mosaic[sy*aw+sx]
				wt[c] += w
			}
		}
		done := true
		for c := range 3 {
			if c != int(own) && wt[c] == 0 {
				done = false
			}
		}
		if done || r == 2 {
			for c := range 3 {
				if wt[c] > 0 {
					rgb[c] = sum[c] / wt[c]
				}
			}
			break
		}
	}
	rgb[own] = mosaic[y*aw+x]
	return rgb
}

// linInterpolate demosaics the aw x ah white-balanced X-Trans mosaic and writes
// the DefaultCrop of it, converted to sRGB, into out.
func (f *File) linInterpolate(mosaic []float32, aw, ah int, out *Image) {
	cx, cy, cw, ch := f.crop[0], f.crop[1], f.crop[2], f.crop[3]
	codes := f.xtransCodes()
	m := f.rgbCamF()
	hl := f.highlightsOf()
	parallel(ch, func(lo, hi int) {
		for Y := lo; Y < hi; Y++ {
			y := cy + Y
			dst := out.Pix[3*Y*cw:][:3*cw]
			for X := range cw {
				x := cx + X
				var rgb [3]float32
				if x < 1 || y < 1 || x >= aw-1 || y >= ah-1 {
					rgb = f.xtransAt(mosaic, aw, ah, x, y)
				} else {
					k := &codes[(y%6)*6+x%6]
					var sum [3]float32
					for _, t := range k.taps {
						sum[t.c] += t.w * mosaic[(y+t.dy)*aw+x+t.dx]
					}
					for c := range 3 {
						rgb[c] = sum[c] * k.inv[c]
					}
					rgb[f.colorAt(x, y)] = mosaic[y*aw+x]
				}
				m.develop(hl, dst[3*X:3*X+3], rgb[0], rgb[1], rgb[2])
			}
		}
	})
}

// xtransPhase is where the binning grid starts inside the DefaultCrop: the first
// column and row offset (0 to 2) from which every 3x3 block of the pattern is
// point-symmetric about its centre, or 0, 0 when none is.
func (f *File) xtransPhase() (sx, sy int) {
	for sy := range 3 {
		for sx := range 3 {
			sym := true
			x0, y0 := f.crop[0]+sx, f.crop[1]+sy
			for k := range 36 {
				bx, by := x0+3*(k/9%2), y0+3*(k/18) // the four blocks of the pattern
				dx, dy := k%3, k/3%3
				if f.colorAt(bx+dx, by+dy) != f.colorAt(bx+2-dx, by+2-dy) {
					sym = false
				}
			}
			if sym {
				return sx, sy
			}
		}
	}
	return 0, 0
}

// developThird bins each 3x3 block of the cropped X-Trans mosaic into one pixel.
func (f *File) developThird(samples []uint16) *Image {
	ax, ay := f.active[1], f.active[0]
	sx, sy := f.xtransPhase()
	cx, cy := f.crop[0]+sx, f.crop[1]+sy
	w, h := f.OutSize(true)
	out := &Image{W: w, H: h, Pix: make([]float32, 3*w*h)}
	rows := f.mosaicRows()
	lin := f.linear
	m := f.rgbCamF()
	hl := f.highlightsOf()
	parallel(h, func(lo, hi int) {
		var r [3]mosaicRow
		for Y := lo; Y < hi; Y++ {
			dst := out.Pix[3*Y*w:][:3*w]
			var row [3][]uint16
			for dy := range 3 {
				y := cy + 3*Y + dy
				rows(y, &r[dy])
				row[dy] = samples[(ay+y)*f.Width+ax:]
			}
			for X := range w {
				var sum, n [3]float32
				for dy := range 3 {
					y := cy + 3*Y + dy
					for dx := range 3 {
						x := cx + 3*X + dx
						c := f.colorAt(x, y)
						sum[c] += r[dy].level(lin, x, row[dy][x])
						n[c]++
					}
				}
				m.develop(hl, dst[3*X:3*X+3], sum[0]/n[0], sum[1]/n[1], sum[2]/n[2])
			}
		}
	})
	return out
}
