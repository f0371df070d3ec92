package raw

import (
	"math"
	"sync"
)

// RCD, Ratio Corrected Demosaicing (Luis Sanz Rodríguez, 2017; v2.3 as in
// RawTherapee and darktable, https://github.com/LuisSR/RCD-Demosaicing): green is
// interpolated along the direction a vertical/horizontal discrimination from
// high-pass statistics favours, each cardinal estimate corrected by the ratio of a
// low-pass filter at the pixel and at its neighbour; red and blue then follow as
// colour differences from green, along the diagonals at red and blue sites and the
// cardinals at green sites, again weighted by gradients. It keeps edges sharp
// without AHD's maze artefacts, at the cost of about ten passes over the data.
//
// The mosaic is demosaiced in tiles (rcdTile pixels plus a rcdBorder margin on each
// side, mirrored at the image's edges so the pattern's phase is kept), so the
// scratch is a few megabytes per core whatever the photo's size.

const (
	rcdTile   = 488
	rcdBorder = 12
	rcdSize   = rcdTile + 2*rcdBorder
	rcdEps    = 1e-5
	rcdEpsSq  = 1e-10
)

// demosaicScratch is the memory the demosaic's tiles hold at once.
func demosaicScratch() int64 { return int64(maxProcs()) * 10 * 4 * rcdSize * rcdSize }

type rcdBuf struct {
	cfa, vh, lpf, a, b, pq [rcdSize * rcdSize]float32
	rgb                    [3][rcdSize * rcdSize]float32
}

var rcdPool = sync.Pool{New: func() any { return new(rcdBuf) }}

// reflect maps a coordinate outside [0, n) back inside by mirroring about the
// first and last sample, which keeps its parity and so its colour in the mosaic.
func reflect(v, n int) int {
	for v < 0 || v >= n {
		if v < 0 {
			v = -v
		}
		if v >= n {
			v = 2*(n-1) - v
		}
		if n == 1 {
			return 0
		}
	}
	return v
}

// rcd demosaics the aw x ah white-balanced mosaic and writes the DefaultCrop of
// it, converted to sRGB, into out.
func (f *File) rcd(mosaic []float32, aw, ah int, out *Image) {
	cx, cy, cw, ch := f.crop[0], f.crop[1], f.crop[2], f.crop[3]
	tx, ty := (cw+rcdTile-1)/rcdTile, (ch+rcdTile-1)/rcdTile
	m := f.rgbCamF()
	hl := f.highlightsOf()
	parallelTiles(tx*ty, func(i int) {
		b := rcdPool.Get().(*rcdBuf)
		defer rcdPool.Put(b)
		// Tile origin (inside the border) in mosaic coordinates.
		x0, y0 := cx+(i%tx)*rcdTile, cy+(i/tx)*rcdTile
		gx, gy := x0-rcdBorder, y0-rcdBorder
		for y := range rcdSize {
			sy := reflect(gy+y, ah)
			row := mosaic[sy*aw:]
			for x := range rcdSize {
				b.cfa[y*rcdSize+x] = row[reflect(gx+x, aw)]
			}
		}
		// Colours in tile coordinates: the tile origin's parity is the mosaic's.
		var fc [4]uint8
		for k := range 4 {
			fc[k] = f.cfa[((gy+k/2)&1)*2+(gx+k%2)&1]
		}
		rcdTileRun(b, fc)
		w := min(rcdTile, cx+cw-x0)
		h := min(rcdTile, cy+ch-y0)
		for y := range h {
			dst := out.Pix[3*((y0-cy+y)*cw+(x0-cx)):][:3*w]
			k := (y+rcdBorder)*rcdSize + rcdBorder
			for x := range w {
				m.develop(hl, dst[3*x:3*x+3], b.rgb[0][k+x], b.rgb[1][k+x], b.rgb[2][k+x])
			}
		}
	})
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// pos is max(v, 0) without the builtin's NaN and signed-zero handling.
func pos(v float32) float32 {
	if v < 0 {
		return 0
	}
	return v
}

// floor is max(v, m), likewise.
func floor(v, m float32) float32 {
	if v < m {
		return m
	}
	return v
}
func sqr(v float32) float32 { return v * v }

// rcdTileRun demosaics one tile; fc is the colour at (0,0), (1,0), (0,1), (1,1)
// as (y&1)*2 + x&1.
func rcdTileRun(b *rcdBuf, fc [4]uint8) {
	const S = rcdSize
	const w1, w2, w3, w4 = S, 2 * S, 3 * S, 4 * S
	cfa := &b.cfa
	color := func(y, x int) uint8 { return fc[(y&1)*2+x&1] }
	// nonGreen is 0 when (y, x) is a red or blue site, 1 when it is green: the
	// offset from x to the row's first red or blue site at or after x (a Bayer
	// row alternates green with red or blue).
	nonGreen := func(y, x int) int {
		if color(y, x) == 1 {
			return 1
		}
		return 0
	}

	// Step 1: vertical and horizontal discrimination.
	for y := 3; y < S-3; y++ {
		for x := 3; x < S-3; x++ {
			i := y*S + x
			b.a[i] = sqr((cfa[i-w3] - cfa[i-w1] - cfa[i+w1] + cfa[i+w3]) - 3*(cfa[i-w2]+cfa[i+w2]) + 6*cfa[i])
			b.b[i] = sqr((cfa[i-3] - cfa[i-1] - cfa[i+1] + cfa[i+3]) - 3*(cfa[i-2]+cfa[i+2]) + 6*cfa[i])
		}
	}
	for y := 4; y < S-4; y++ {
		for x := 4; x < S-4; x++ {
			i := y*S + x
			v := floor(b.a[i-w1]+b.a[i]+b.a[i+w1], rcdEpsSq)
			h := floor(b.b[i-1]+b.b[i]+b.b[i+1], rcdEpsSq)
			b.vh[i] = v / (v + h)
		}
	}
	// Step 2: low-pass filter at red and blue sites.
	for y := 2; y < S-2; y++ {
		for x := 2 + nonGreen(y, 2); x < S-2; x += 2 {
			i := y*S + x
			b.lpf[i] = cfa[i] + 0.5*(cfa[i-w1]+cfa[i+w1]+cfa[i-1]+cfa[i+1]) +
				0.25*(cfa[i-w1-1]+cfa[i-w1+1]+cfa[i+w1-1]+cfa[i+w1+1])
		}
	}
	// The known samples. The other planes are only read where the steps below
	// have written them, so they are not cleared.
	for y := range S {
		for x := range S {
			i := y*S + x
			b.rgb[color(y, x)][i] = cfa[i]
		}
	}
	// Step 3: green at red and blue sites.
	g := &b.rgb[1]
	lpf := &b.lpf
	for y := 5; y < S-5; y++ {
		for x := 5 + nonGreen(y, 5); x < S-5; x += 2 {
			i := y*S + x
			vc := b.vh[i]
			vn := 0.25 * (b.vh[i-w1-1] + b.vh[i-w1+1] + b.vh[i+w1-1] + b.vh[i+w1+1])
			disc := vc
			if abs32(0.5-vc) < abs32(0.5-vn) {
				disc = vn
			}
			nG := rcdEps + abs32(cfa[i-w1]-cfa[i+w1]) + abs32(cfa[i]-cfa[i-w2]) + abs32(cfa[i-w1]-cfa[i-w3]) + abs32(cfa[i-w2]-cfa[i-w4])
			sG := rcdEps + abs32(cfa[i-w1]-cfa[i+w1]) + abs32(cfa[i]-cfa[i+w2]) + abs32(cfa[i+w1]-cfa[i+w3]) + abs32(cfa[i+w2]-cfa[i+w4])
			wG := rcdEps + abs32(cfa[i-1]-cfa[i+1]) + abs32(cfa[i]-cfa[i-2]) + abs32(cfa[i-1]-cfa[i-3]) + abs32(cfa[i-2]-cfa[i-4])
			eG := rcdEps + abs32(cfa[i-1]-cfa[i+1]) + abs32(cfa[i]-cfa[i+2]) + abs32(cfa[i+1]-cfa[i+3]) + abs32(cfa[i+2]-cfa[i+4])
			l := lpf[i]
			nE := cfa[i-w1] * (1 + (l-lpf[i-w2])/(rcdEps+l+lpf[i-w2]))
			sE := cfa[i+w1] * (1 + (l-lpf[i+w2])/(rcdEps+l+lpf[i+w2]))
			wE := cfa[i-1] * (1 + (l-lpf[i-2])/(rcdEps+l+lpf[i-2]))
			eE := cfa[i+1] * (1 + (l-lpf[i+2])/(rcdEps+l+lpf[i+2]))
			vE := (sG*nE + nG*sE) / (nG + sG)
			hE := (wG*eE + eG*wE) / (eG + wG)
			g[i] = pos(disc*hE + (1-disc)*vE)
		}
	}
	// Step 4.1: diagonal discrimination.
	for y := 3; y < S-3; y++ {
		for x := 3; x < S-3; x++ {
			i := y*S + x
			b.a[i] = sqr((cfa[i-w3-3] - cfa[i-w1-1] - cfa[i+w1+1] + cfa[i+w3+3]) - 3*(cfa[i-w2-2]+cfa[i+w2+2]) + 6*cfa[i])
			b.b[i] = sqr((cfa[i-w3+3] - cfa[i-w1+1] - cfa[i+w1-1] + cfa[i+w3-3]) - 3*(cfa[i-w2+2]+cfa[i+w2-2]) + 6*cfa[i])
		}
	}
	for y := 4; y < S-4; y++ {
		for x := 4; x < S-4; x++ {
			i := y*S + x
			p := floor(b.a[i-w1-1]+b.a[i]+b.a[i+w1+1], rcdEpsSq)
			q := floor(b.b[i-w1+1]+b.b[i]+b.b[i+w1-1], rcdEpsSq)
			b.pq[i] = p / (p + q)
		}
	}
	// Step 4.2: red at blue sites and blue at red sites.
	for y := 7; y < S-7; y++ {
		for x := 7 + nonGreen(y, 7); x < S-7; x += 2 {
			cc := color(y, x)
			c := &b.rgb[2-cc]
			i := y*S + x
			pc := b.pq[i]
			pn := 0.25 * (b.pq[i-w1-1] + b.pq[i-w1+1] + b.pq[i+w1-1] + b.pq[i+w1+1])
			disc := pc
			if abs32(0.5-pc) < abs32(0.5-pn) {
				disc = pn
			}
			nw := rcdEps + abs32(c[i-w1-1]-c[i+w1+1]) + abs32(c[i-w1-1]-c[i-w3-3]) + abs32(g[i]-g[i-w2-2])
			ne := rcdEps + abs32(c[i-w1+1]-c[i+w1-1]) + abs32(c[i-w1+1]-c[i-w3+3]) + abs32(g[i]-g[i-w2+2])
			sw := rcdEps + abs32(c[i-w1+1]-c[i+w1-1]) + abs32(c[i+w1-1]-c[i+w3-3]) + abs32(g[i]-g[i+w2-2])
			se := rcdEps + abs32(c[i-w1-1]-c[i+w1+1]) + abs32(c[i+w1+1]-c[i+w3+3]) + abs32(g[i]-g[i+w2+2])
			nwE := c[i-w1-1] - g[i-w1-1]
			neE := c[i-w1+1] - g[i-w1+1]
			swE := c[i+w1-1] - g[i+w1-1]
			seE := c[i+w1+1] - g[i+w1+1]
			pE := (nw*seE + se*nwE) / (nw + se)
			qE := (ne*swE + sw*neE) / (ne + sw)
			c[i] = pos(g[i] + (1-disc)*pE + disc*qE)
		}
	}
	// Step 4.3: red and blue at green sites.
	for y := 10; y < S-10; y++ {
		for x := 10 + 1 - nonGreen(y, 10); x < S-10; x += 2 {
			i := y*S + x
			vc := b.vh[i]
			vn := 0.25 * (b.vh[i-w1-1] + b.vh[i-w1+1] + b.vh[i+w1-1] + b.vh[i+w1+1])
			disc := vc
			if abs32(0.5-vc) < abs32(0.5-vn) {
				disc = vn
			}
			g1 := g[i]
			n1 := rcdEps + abs32(g1-g[i-w2])
			s1 := rcdEps + abs32(g1-g[i+w2])
			w1_ := rcdEps + abs32(g1-g[i-2])
			e1 := rcdEps + abs32(g1-g[i+2])
			for _, cc := range [2]int{0, 2} {
				c := &b.rgb[cc]
				sn := abs32(c[i-w1] - c[i+w1])
				ew := abs32(c[i-1] - c[i+1])
				nG := n1 + sn + abs32(c[i-w1]-c[i-w3])
				sG := s1 + sn + abs32(c[i+w1]-c[i+w3])
				wG := w1_ + ew + abs32(c[i-1]-c[i-3])
				eG := e1 + ew + abs32(c[i+1]-c[i+3])
				nE := c[i-w1] - g[i-w1]
				sE := c[i+w1] - g[i+w1]
				wE := c[i-1] - g[i-1]
				eE := c[i+1] - g[i+1]
				vE := (nG*sE + sG*nE) / (nG + sG)
				hE := (eG*wE + wG*eE) / (eG + wG)
				c[i] = pos(g1 + (1-disc)*vE + disc*hE)
			}
		}
	}
}
