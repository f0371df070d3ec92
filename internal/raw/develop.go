package raw

import (
	"runtime"
	"sync"
)

// Image is a developed raw photo: linear-light sRGB, three float32 values per
// pixel, scene-referred (1 is the white the sensor clips at after white balance
// and BaselineExposure; brighter values are kept).
type Image struct {
	W, H int
	Pix  []float32
}

// Options shape a Decode.
type Options struct {
	// Half develops each 2x2 block of a Bayer mosaic, each 3x3 block of an X-Trans
	// one, into one pixel (no interpolation): a quarter (a ninth) of the pixels for
	// a fraction of the time, what a preview needs. File.OutSize(true) is its size.
	Half bool
}

// Decode develops the raw image: reads its samples, linearizes them, subtracts the
// black level and scales by the white level, white-balances, demosaics (RCD for
// Bayer, lin_interpolate for X-Trans, or 2x2 / 3x3 binning when opt.Half), converts to linear sRGB and applies DefaultCrop.
// Orientation is not applied (Meta.Orientation says what it is).
func (f *File) Decode(opt Options) (*Image, error) {
	samples, err := f.readSamples()
	if err != nil {
		return nil, err
	}
	if f.photometric == photoLinearRaw {
		return f.developLinear(samples), nil
	}
	aw, ah := f.active[3]-f.active[1], f.active[2]-f.active[0]
	if opt.Half && f.cfaW == 6 {
		return f.developThird(samples), nil
	}
	if opt.Half {
		return f.developHalf(samples), nil
	}
	mosaic := f.normalize(samples)
	samples = nil
	cw, ch := f.crop[2], f.crop[3]
	out := &Image{W: cw, H: ch, Pix: make([]float32, 3*cw*ch)}
	if f.cfaW == 6 {
		f.linInterpolate(mosaic, aw, ah, out)
	} else {
		f.rcd(mosaic, aw, ah, out)
	}
	return out, nil
}

// colorAt is the colour (0 red, 1 green, 2 blue) of the mosaic's site x, y of
// the active area.
func (f *File) colorAt(x, y int) uint8 { return f.cfa[(y%f.cfaH)*f.cfaW+x%f.cfaW] }

// wb is the white-balance multiplier of each channel.
func (f *File) wb() [3]float32 {
	return [3]float32{float32(1 / f.neutral[0]), float32(1 / f.neutral[1]), float32(1 / f.neutral[2])}
}

// levels returns a function giving sample c of stored pixel (x, y) with raw value
// v on the scale black 0, white 1.
func (f *File) levelFunc() func(x, y, c int, v uint16) float32 {
	lin := f.linear
	bw, bh, spp := f.blackW, f.blackH, f.spp
	black := make([]float32, len(f.black))
	for i, b := range f.black {
		black[i] = float32(b)
	}
	var white [3]float32
	for c := range f.white {
		white[c] = float32(f.white[c])
	}
	dh, dv := f.blackDH, f.blackDV
	ax, ay := f.active[1], f.active[0]
	return func(x, y, c int, v uint16) float32 {
		s := float32(v)
		if lin != nil {
			s = float32(lin[min(int(v), len(lin)-1)])
		}
		b := black[(((y-ay)%bh)*bw+(x-ax)%bw)*spp+c]
		if dh != nil {
			b += float32(dh[x])
		}
		if dv != nil {
			b += float32(dv[y])
		}
		return (s - b) / (white[c] - b)
	}
}

// site is the white-balanced value of a mosaic sample at level s: at or above the
// sensor's white it is the channel's clip level, wb (highlights.go then takes the
// colour of such pixels from what did not clip); below black it is 0.
func site(s, wb float32) float32 {
	switch {
	case s >= 1:
		return wb
	case s <= 0:
		return 0
	}
	return s * wb
}

// mosaicRow holds, for one row of the active area's mosaic, each sample's black
// level and the factor that takes it above black to its white-balanced value.
type mosaicRow struct {
	black, gain []float32
	white       float32
}

// mosaicRows returns a function filling the levels of active-area row y (it may
// be called from several goroutines, each with its own row). Without
// BlackLevelDeltaV rows repeat with the black pattern, and are computed once.
func (f *File) mosaicRows() func(y int, r *mosaicRow) {
	ax, ay := f.active[1], f.active[0]
	aw := f.active[3] - ax
	wb := f.wb()
	white := float32(f.white[0])
	fill := func(y int, r *mosaicRow) {
		if len(r.black) < aw {
			r.black, r.gain = make([]float32, aw), make([]float32, aw)
		}
		sy := ay + y
		for x := range aw {
			sx := ax + x
			// The black pattern's origin is the ActiveArea's, as the CFA's.
			b := float32(f.black[(y%f.blackH)*f.blackW+x%f.blackW])
			if f.blackDH != nil {
				b += float32(f.blackDH[sx])
			}
			if f.blackDV != nil {
				b += float32(f.blackDV[sy])
			}
			r.black[x] = b
			r.gain[x] = wb[f.colorAt(x, y)] / (white - b)
		}
		r.white = white
	}
	if f.blackDV != nil {
		return fill
	}
	// The pattern of rows repeats every lcm(blackH, cfaH) rows.
	period := f.blackH
	for period%f.cfaH != 0 {
		period += f.blackH
	}
	cache := make([]mosaicRow, period)
	for k := range cache {
		fill(k, &cache[k])
	}
	return func(y int, r *mosaicRow) { *r = cache[y%period] }
}

// level is the white-balanced value of a sample stored as v under r's levels at
// x: site's arithmetic, with the division folded into gain.
func (r *mosaicRow) level(lin []uint16, x int, v uint16) float32 {
	s := float32(v)
	if lin != nil {
		s = float32(lin[min(int(v), len(lin)-1)])
	}
	switch b := r.black[x]; {
	case s >= r.white:
		return (r.white - b) * r.gain[x]
	case s <= b:
		return 0
	default:
		return (s - b) * r.gain[x]
	}
}

// normalize makes the active area's mosaic: levels, white balance and clipping.
func (f *File) normalize(samples []uint16) []float32 {
	ax, ay := f.active[1], f.active[0]
	aw, ah := f.active[3]-ax, f.active[2]-ay
	rows := f.mosaicRows()
	lin := f.linear
	out := make([]float32, aw*ah)
	parallel(ah, func(lo, hi int) {
		var r mosaicRow
		for y := lo; y < hi; y++ {
			rows(y, &r)
			src := samples[(ay+y)*f.Width+ax:][:aw]
			dst := out[y*aw:][:aw]
			for x, v := range src {
				dst[x] = r.level(lin, x, v)
			}
		}
	})
	return out
}

// developHalf bins each 2x2 block of the cropped mosaic into one pixel.
func (f *File) developHalf(samples []uint16) *Image {
	ax, ay := f.active[1], f.active[0]
	cx, cy := f.crop[0], f.crop[1]
	w, h := f.OutSize(true)
	out := &Image{W: w, H: h, Pix: make([]float32, 3*w*h)}
	rows := f.mosaicRows()
	lin := f.linear
	m := f.rgbCamF()
	hl := f.highlightsOf()
	cfa := f.cfa
	parallel(h, func(lo, hi int) {
		var r [2]mosaicRow
		for Y := lo; Y < hi; Y++ {
			dst := out.Pix[3*Y*w:][:3*w]
			var row [2][]uint16
			var c [4]uint8
			for dy := range 2 {
				y := cy + 2*Y + dy
				rows(y, &r[dy])
				row[dy] = samples[(ay+y)*f.Width+ax:]
				for dx := range 2 {
					c[2*dy+dx] = cfa[(y&1)*2+(cx+dx)&1]
				}
			}
			for X := range w {
				var rgb [3]float32
				x := cx + 2*X
				rgb[c[0]] += r[0].level(lin, x, row[0][x])
				rgb[c[1]] += r[0].level(lin, x+1, row[0][x+1])
				rgb[c[2]] += r[1].level(lin, x, row[1][x])
				rgb[c[3]] += r[1].level(lin, x+1, row[1][x+1])
				rgb[1] *= 0.5
				m.develop(hl, dst[3*X:3*X+3], rgb[0], rgb[1], rgb[2])
			}
		}
	})
	return out
}

// developLinear develops LinearRaw data (already RGB): levels, white balance, matrix.
func (f *File) developLinear(samples []uint16) *Image {
	ax, ay := f.active[1], f.active[0]
	cx, cy := f.crop[0], f.crop[1]
	w, h := f.crop[2], f.crop[3]
	out := &Image{W: w, H: h, Pix: make([]float32, 3*w*h)}
	level := f.levelFunc()
	wb := f.wb()
	m := f.rgbCamF()
	hl := f.highlightsOf()
	parallel(h, func(lo, hi int) {
		for Y := lo; Y < hi; Y++ {
			y := ay + cy + Y
			row := samples[3*(y*f.Width+ax+cx):]
			dst := out.Pix[3*Y*w:][:3*w]
			for X := range w {
				x := ax + cx + X
				var rgb [3]float32
				for c := range 3 {
					rgb[c] = site(level(x, y, c, row[3*X+c]), wb[c])
				}
				m.develop(hl, dst[3*X:3*X+3], rgb[0], rgb[1], rgb[2])
			}
		}
	})
	return out
}

type mat3f [9]float32

func (f *File) rgbCamF() mat3f {
	var m mat3f
	for i := range 9 {
		m[i] = float32(f.rgbCam[i/3][i%3])
	}
	return m
}

// apply writes m times (r, g, b) to d; negative results (colours outside sRGB's
// gamut) are kept at 0.
func (m *mat3f) apply(d []float32, r, g, b float32) {
	d = d[:3:3]
	d[0] = pos(m[0]*r + m[1]*g + m[2]*b)
	d[1] = pos(m[3]*r + m[4]*g + m[5]*b)
	d[2] = pos(m[6]*r + m[7]*g + m[8]*b)
}

// parallel splits [0, n) across the cores.
func parallel(n int, fn func(lo, hi int)) {
	k := min(n, runtime.GOMAXPROCS(0))
	if k <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range k {
		lo, hi := n*i/k, n*(i+1)/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// parallelTiles runs fn for tiles 0..n-1 on every core, each tile by one goroutine.
func parallelTiles(n int, fn func(i int)) {
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range min(n, maxProcs()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}
