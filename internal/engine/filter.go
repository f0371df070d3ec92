package engine

import (
	"math"
	"sync"
)

// Neighbourhood filters on interleaved float32 planes (nc values per pixel, row-major):
// box means, gaussians, minimum filters, transposes. Every one costs O(pixels) whatever
// the radius (the gaussian switches to three box passes once the radius makes an exact
// kernel expensive), and edges are handled by repeating the border pixel. Sums run in
// float64 so long running sums do not drift.

// clampedSum returns the sum of v(clamp(k, 0, n-1)) for k in [-r, r] in O(min(r, n)).
func clampedSum(n, r int, v func(i int) float64) float64 {
	s := float64(r) * v(0)
	top := min(r, n-1)
	for k := 0; k <= top; k++ {
		s += v(k)
	}
	if r > n-1 {
		s += float64(r-(n-1)) * v(n-1)
	}
	return s
}

// boxH writes to dst the mean over a horizontal window of src of half-width r+frac
// pixels: the 2r+1 central pixels weigh 1 and the two beyond them weigh frac in [0, 1),
// which lets a box have any real width. dst and src must not overlap.
func boxH(dst, src []float32, w, h, nc, r int, frac float64) {
	// Past a few widths of the row, a wider window only averages more copies of the two
	// end pixels; the bound keeps the scratch row small whatever r is asked for.
	r = min(r, 4*w+4)
	inv := 1 / (float64(2*r+1) + 2*frac)
	parallelRows(h, func(lo, hi int) {
		// Each row is copied with r+1 repeats of its end pixels on either side, so the
		// running sums below need no bounds logic: extended index k is column k-r-1.
		ext := make([]float32, (w+2*r+2)*nc)
		acc := make([]float64, nc)
		for y := lo; y < hi; y++ {
			row := src[y*w*nc : (y+1)*w*nc]
			out := dst[y*w*nc : (y+1)*w*nc]
			for k := range r + 1 {
				copy(ext[k*nc:(k+1)*nc], row[:nc])
				copy(ext[(r+1+w+k)*nc:(r+2+w+k)*nc], row[(w-1)*nc:])
			}
			copy(ext[(r+1)*nc:], row)
			for c := range nc {
				// Columns -r .. r are extended indices 1 .. 2r+1.
				var s float64
				for k := 1; k <= 2*r+1; k++ {
					s += float64(ext[k*nc+c])
				}
				acc[c] = s
			}
			add, sub := (2*r+2)*nc, nc // extended offsets of column x+r+1 and x-r
			f := frac
			// The running sums live in locals (not acc) in the common cases, so the
			// loop-carried additions stay in registers.
			switch nc {
			case 1:
				s0 := acc[0]
				for x := range w {
					v := s0
					if f > 0 {
						v += f * (float64(ext[x]) + float64(ext[x+add]))
					}
					out[x] = float32(v * inv)
					s0 += float64(ext[x+add]) - float64(ext[x+sub])
				}
			case 3:
				s0, s1, s2 := acc[0], acc[1], acc[2]
				for x := range w {
					o := 3 * x
					v0, v1, v2 := s0, s1, s2
					if f > 0 {
						v0 += f * (float64(ext[o]) + float64(ext[o+add]))
						v1 += f * (float64(ext[o+1]) + float64(ext[o+add+1]))
						v2 += f * (float64(ext[o+2]) + float64(ext[o+add+2]))
					}
					out[o], out[o+1], out[o+2] = float32(v0*inv), float32(v1*inv), float32(v2*inv)
					s0 += float64(ext[o+add]) - float64(ext[o+sub])
					s1 += float64(ext[o+add+1]) - float64(ext[o+sub+1])
					s2 += float64(ext[o+add+2]) - float64(ext[o+sub+2])
				}
			default:
				for x := range w {
					o := x * nc
					for c := range nc {
						v := acc[c]
						if f > 0 {
							v += f * (float64(ext[o+c]) + float64(ext[o+add+c]))
						}
						out[o+c] = float32(v * inv)
						acc[c] += float64(ext[o+add+c]) - float64(ext[o+sub+c])
					}
				}
			}
		}
	})
}

// boxV is boxH down the columns. It streams whole rows (a running sum per column), so it
// stays cache-friendly; the columns are split across cores. dst and src must not
// overlap.
func boxV(dst, src []float32, w, h, nc, r int, frac float64) {
	r = min(r, 4*h+4) // as in boxH
	stride := w * nc
	inv := 1 / (float64(2*r+1) + 2*frac)
	rowAt := func(y, lo, hi int) []float32 {
		y = min(max(y, 0), h-1)
		return src[y*stride+lo : y*stride+hi]
	}
	parallelN(stride, 256, func(lo, hi int) {
		acc := make([]float64, hi-lo)
		for i := range acc {
			col := lo + i
			acc[i] = clampedSum(h, r, func(y int) float64 { return float64(src[y*stride+col]) })
		}
		for y := range h {
			out := dst[y*stride+lo : y*stride+hi]
			add, sub := rowAt(y+r+1, lo, hi), rowAt(y-r, lo, hi)
			if frac > 0 {
				before := rowAt(y-r-1, lo, hi)
				for i := range acc {
					out[i] = float32((acc[i] + frac*(float64(before[i])+float64(add[i]))) * inv)
					acc[i] += float64(add[i]) - float64(sub[i])
				}
				continue
			}
			for i := range acc {
				out[i] = float32(acc[i] * inv)
				acc[i] += float64(add[i]) - float64(sub[i])
			}
		}
	})
}

// boxBlur is a separable (2r+1)^2 box mean; tmp is scratch of the same size.
// dst may be src.
func boxBlur(dst, src, tmp []float32, w, h, nc, r int) {
	if r <= 0 {
		copy(dst, src)
		return
	}
	boxH(tmp, src, w, h, nc, r, 0)
	boxV(dst, tmp, w, h, nc, r, 0)
}

// exactGaussMax is the sigma (in pixels) up to which gaussian uses an exact kernel; past
// it three box passes of the same variance approximate the gaussian closely and cost
// the same at any radius.
const exactGaussMax = 1.5

// maxFilterRadius bounds radii in pixels; larger windows average the clamped border and
// change nothing more, and the bound keeps arithmetic far from overflow.
const maxFilterRadius = 1 << 20

// gaussKernel returns a normalized 1D gaussian kernel of radius ceil(3 sigma).
func gaussKernel(sigma float64) []float32 {
	r := int(math.Ceil(3 * sigma))
	k := make([]float32, 2*r+1)
	var sum float64
	for i := -r; i <= r; i++ {
		v := math.Exp(-float64(i*i) / (2 * sigma * sigma))
		k[i+r] = float32(v)
		sum += v
	}
	for i := range k {
		k[i] = float32(float64(k[i]) / sum)
	}
	return k
}

// gaussBox returns the half-width r+frac of a box filter whose variance is a third of
// sigma^2, so that three passes of it approximate a gaussian of deviation sigma with
// the variance exact (Gwosdek et al., "Theoretical foundations of gaussian convolution
// by extended box filtering", 2011).
func gaussBox(sigma float64) (int, float64) {
	target := sigma * sigma / 3
	variance := func(rho float64) float64 {
		r := math.Floor(rho)
		a := rho - r
		return (r*(r+1)*(2*r+1)/3 + 2*a*(r+1)*(r+1)) / (2*r + 1 + 2*a)
	}
	lo, hi := 0.0, 3*sigma+1
	for range 60 {
		mid := (lo + hi) / 2
		if variance(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	r := min(int(lo), maxFilterRadius)
	return r, min(lo-float64(r), 0.999999)
}

// subsampleSigma is the sigma, in pixels, from which gaussianLarge blurs a copy averaged
// down by about sigma/4 and interpolates it back: a wide gaussian has no detail that
// the smaller copy loses, and the blur then costs a fraction of a full-size one.
const subsampleSigma = 8

// gaussianLarge is gaussian for any sigma, subsampling for wide ones. The averaging
// down and the bilinear interpolation back are themselves blurs, whose variance is
// taken off the gaussian's so the total spread is sigma. dst may be src.
func gaussianLarge(rc *runCtx, dst, src []float32, w, h, nc int, sigma float64) {
	sub := largeSub(sigma, w, h)
	if sub == 0 {
		var tmp []float32
		if gaussianNeedsTmp(dst, src, sigma) {
			tmp = rc.floats(len(src))
		}
		gaussian(dst, src, tmp, w, h, nc, sigma)
		rc.release(tmp)
		return
	}
	small, sw, sh := shrink(rc, src, w, h, nc, sub)
	g := blurGrid(rc, small, w, h, sw, sh, nc, sub, sigma)
	g.rows(dst, 0, h)
	rc.release(small)
}

// largeSub is the block size gaussianLarge averages a w x h plane down by for sigma,
// or 0 when it blurs at full size. A streamed render passes the whole frame's size,
// so every band takes the same path.
func largeSub(sigma float64, w, h int) int {
	sub := int(sigma / 4)
	if sigma < subsampleSigma || sub < 2 || w < 4*sub || h < 4*sub {
		return 0
	}
	return sub
}

// blockGrid is a plane of sub x sub block values of a frame (cw x ch blocks, on the
// frame's own coordinates), which rows interpolates back to full resolution over
// the columns [cx0, cx0+w). pix may hold a window of the blocks only: pw x ph blocks
// from block (ox, oy), enough for the pixels interpolated.
type blockGrid struct {
	pix            []float32
	w, cx0, cw, ch int
	ox, oy, pw, ph int
	nc, sub        int
	x0, x1         []int
	fx             []float32
}

// blurGrid blurs the block averages small of a w x h plane (what shrink returns)
// with the rest of a gaussian of sigma, in place, and returns them as a grid.
func blurGrid(rc *runCtx, small []float32, w, h, sw, sh, nc, sub int, sigma float64) *blockGrid {
	blurBlocks(rc, small, sw, sh, nc, sub, sigma)
	return newBlockGrid(small, w, h, sw, sh, nc, sub)
}

// blurBlocks blurs a sw x sh plane of sub x sub block averages, in place, with what
// a gaussian of sigma leaves after the averaging and the interpolation back.
func blurBlocks(rc *runCtx, small []float32, sw, sh, nc, sub int, sigma float64) {
	tmp := rc.floats(len(small))
	gaussian(small, small, tmp, sw, sh, nc, blockSigma(sigma, sub))
	rc.release(tmp)
}

// blockSigma is the sigma, in blocks, that blurBlocks applies.
func blockSigma(sigma float64, sub int) float64 {
	s2 := float64(sub * sub)
	return math.Sqrt(max(sigma*sigma-(s2-1)/12-s2/6, 0)) / float64(sub)
}

func newBlockGrid(pix []float32, w, h, cw, ch, nc, sub int) *blockGrid {
	return windowGrid(pix, 0, w, cw, ch, 0, 0, cw, ch, nc, sub)
}

// windowGrid is the grid of a frame of cw x ch blocks whose pix holds the pw x ph
// blocks from (ox, oy), interpolated over columns [cx0, cx0+w).
func windowGrid(pix []float32, cx0, w, cw, ch, ox, oy, pw, ph, nc, sub int) *blockGrid {
	g := &blockGrid{pix: pix, w: w, cx0: cx0, cw: cw, ch: ch, ox: ox, oy: oy, pw: pw, ph: ph, nc: nc, sub: sub}
	g.x0, g.x1, g.fx = make([]int, w), make([]int, w), make([]float32, w)
	for x := range w {
		a, b, f := blockInterp(cx0+x, cw, sub)
		g.x0[x], g.x1[x], g.fx[x] = a-ox, b-ox, f
	}
	return g
}

// rows interpolates the grid bilinearly between block centres into rows [y0, y0+n)
// of the frame, written to dst from its start.
func (g *blockGrid) rows(dst []float32, y0, n int) {
	w, nc := g.w, g.nc
	parallelRows(n, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t0, t1, fy := blockInterp(y0+y, g.ch, g.sub)
			interpRow(dst[y*w*nc:(y+1)*w*nc], g.pix, t0-g.oy, t1-g.oy, fy, g.x0, g.x1, g.fx, g.pw, nc)
		}
	})
}

// gaussianRect returns gaussianLarge(src) over the rectangle [x0, x1) x [y0, y1) of
// a w x h plane (nc channels), computing only around it: the rectangle and the
// filter's reach, on the blocks of the whole plane when it subsamples. src holds the
// plane's rows from py0 on, every row within the reach.
func gaussianRect(rc *runCtx, src []float32, w, h, py0, nc int, sigma float64, x0, y0, x1, y1 int) []float32 {
	rw, rh := x1-x0, y1-y0
	out := rc.floats(rw * rh * nc)
	crop := func(cx0, cy0, cx1, cy1 int) []float32 {
		c := rc.floats((cx1 - cx0) * (cy1 - cy0) * nc)
		for y := cy0; y < cy1; y++ {
			copy(c[(y-cy0)*(cx1-cx0)*nc:], src[((y-py0)*w+cx0)*nc:((y-py0)*w+cx1)*nc])
		}
		return c
	}
	sub := largeSub(sigma, w, h)
	if sub == 0 {
		r := gaussHalo(sigma)
		cx0, cy0, cx1, cy1 := max(0, x0-r), max(0, y0-r), min(w, x1+r), min(h, y1+r)
		c := crop(cx0, cy0, cx1, cy1)
		cw, ch := cx1-cx0, cy1-cy0
		tmp := rc.floats(len(c))
		gaussian(c, c, tmp, cw, ch, nc, sigma)
		for y := y0; y < y1; y++ {
			copy(out[(y-y0)*rw*nc:(y-y0+1)*rw*nc], c[((y-cy0)*cw+x0-cx0)*nc:])
		}
		rc.release(c, tmp)
		return out
	}
	// Whole blocks of the plane, with the small gaussian's reach and the
	// interpolation's block around the rectangle's.
	cw, ch := (w+sub-1)/sub, (h+sub-1)/sub
	r := gaussHalo(blockSigma(sigma, sub)) + 2
	bx0, by0 := max(0, x0/sub-r), max(0, y0/sub-r)
	bx1, by1 := min(cw, (x1+sub-1)/sub+r), min(ch, (y1+sub-1)/sub+r)
	c := crop(bx0*sub, by0*sub, min(w, bx1*sub), min(h, by1*sub))
	small, pw, ph := shrink(rc, c, min(w, bx1*sub)-bx0*sub, min(h, by1*sub)-by0*sub, nc, sub)
	rc.release(c)
	blurBlocks(rc, small, pw, ph, nc, sub, sigma)
	g := windowGrid(small, x0, rw, cw, ch, bx0, by0, pw, ph, nc, sub)
	g.rows(out, y0, rh)
	rc.release(small)
	return out
}

// gaussian blurs src into dst with a gaussian of standard deviation sigma pixels.
// tmp is scratch of the same size; dst may be src.
func gaussian(dst, src, tmp []float32, w, h, nc int, sigma float64) {
	switch {
	case !(sigma > 0.05):
		copy(dst, src)
	case sigma <= exactGaussMax && !sameStart(dst, src):
		convHV(dst, src, w, h, nc, gaussKernel(sigma))
	case sigma <= exactGaussMax:
		k := gaussKernel(sigma)
		convH(tmp, src, w, h, nc, k)
		convV(dst, tmp, w, h, nc, k)
	default:
		r, f := gaussBox(sigma)
		boxH(tmp, src, w, h, nc, r, f)
		boxH(dst, tmp, w, h, nc, r, f)
		boxH(tmp, dst, w, h, nc, r, f)
		boxV(dst, tmp, w, h, nc, r, f)
		boxV(tmp, dst, w, h, nc, r, f)
		boxV(dst, tmp, w, h, nc, r, f)
	}
}

// gaussianNeedsTmp reports whether gaussian(dst, src, tmp, ..., sigma) uses tmp: a
// blur of up to exactGaussMax into another buffer needs no full-size scratch image.
func gaussianNeedsTmp(dst, src []float32, sigma float64) bool {
	return sigma > 0.05 && (sigma > exactGaussMax || sameStart(dst, src))
}

// gaussianNorm2 is the sum of the squared weights of the 2D kernel gaussian applies for
// sigma: the factor by which it scales the variance of white noise.
func gaussianNorm2(sigma float64) float64 {
	var k []float64
	switch {
	case !(sigma > 0.05):
		return 1
	case sigma <= exactGaussMax:
		for _, v := range gaussKernel(sigma) {
			k = append(k, float64(v))
		}
	default:
		r, f := gaussBox(sigma)
		norm := float64(2*r+1) + 2*f
		box := make([]float64, 2*r+3)
		for i := range box {
			box[i] = 1 / norm
		}
		box[0], box[len(box)-1] = f/norm, f/norm
		k = convolve1(convolve1(box, box), box)
	}
	var s float64
	for _, v := range k {
		s += v * v
	}
	return s * s
}

func convolve1(a, b []float64) []float64 {
	out := make([]float64, len(a)+len(b)-1)
	for i, x := range a {
		for j, y := range b {
			out[i+j] += x * y
		}
	}
	return out
}

// convH convolves rows with the odd-length kernel k. dst and src must not overlap.
func convH(dst, src []float32, w, h, nc int, k []float32) {
	parallelRows(h, func(lo, hi int) {
		var sc convScratch
		for y := lo; y < hi; y++ {
			convRow(dst[y*w*nc:(y+1)*w*nc], src[y*w*nc:(y+1)*w*nc], w, nc, k, &sc)
		}
	})
}

// convRow convolves one row of w pixels (nc values each) with the odd-length kernel
// k into out, each tap of a pixel near an end reading the end pixel where it falls
// outside; sc is the caller's scratch.
func convRow(out, row []float32, w, nc int, k []float32, sc *convScratch) {
	r := len(k) / 2
	if len(sc.off) != len(k) {
		sc.off = make([]int, len(k))
	}
	// Flattened, the nc values of a run of pixels are one run of outputs whose tap
	// i is the row shifted by nc*(i-r). The pixels r and more from both ends read
	// the row itself; those nearer an end read a copy of their reach with the end
	// pixel repeated beyond it. Every output's sum runs over the same products in
	// the same order either way, so the values are those of a clamped index.
	edge := func(x0, x1 int) {
		n := x1 - x0 + 2*r
		if cap(sc.pad) < n*nc {
			sc.pad = make([]float32, n*nc)
		}
		pad := sc.pad[:n*nc]
		for i := range n {
			xx := min(max(x0-r+i, 0), w-1)
			copy(pad[i*nc:(i+1)*nc], row[xx*nc:(xx+1)*nc])
		}
		for i := range sc.off {
			sc.off[i] = nc * i
		}
		tapSum(out[nc*x0:nc*x1], pad, sc.off, k)
	}
	a, b := min(r, w), max(min(r, w), w-r)
	if a > 0 {
		edge(0, a)
	}
	if a < b {
		for i := range sc.off {
			sc.off[i] = nc * (a - r + i)
		}
		tapSum(out[nc*a:nc*b], row, sc.off, k)
	}
	if b < w {
		edge(b, w)
	}
}

// convScratch is what convRow reuses from row to row.
type convScratch struct {
	off []int
	pad []float32
}

// convHV is convH into a scratch image then convV into dst, the same sums in the
// same order, so the same values, without the scratch image: the rows convH would
// make go to a ring of len(k) rows per goroutine, each made just before the first
// output row that reads it. A dataset worker then holds one image fewer (each is
// 12 MB at 1024 px, and on a virtual machine a fresh page costs microseconds), and
// the rows are read back while still in cache. dst must not overlap src: output row
// y is written while source rows below it are still to be read.
func convHV(dst, src []float32, w, h, nc int, k []float32) {
	n, r := len(k), len(k)/2
	stride := w * nc
	parallelRows(h, func(lo, hi int) {
		ring := rings.get(n * stride)
		defer rings.put(ring)
		var sc convScratch
		voff := make([]int, n)
		next := max(lo-r, 0) // the next source row to convolve into the ring
		for y := lo; y < hi; y++ {
			for ; next <= min(y+r, h-1); next++ {
				slot := next % n
				convRow(ring[slot*stride:(slot+1)*stride], src[next*stride:(next+1)*stride], w, nc, k, &sc)
			}
			for i := range voff {
				voff[i] = min(max(y+i-r, 0), h-1) % n * stride
			}
			tapSum(dst[y*stride:(y+1)*stride], ring, voff, k)
		}
	})
}

// rings keeps convHV's rings (135 KB for a 1024 px row of three channels and 11
// taps) for the next blur: a dataset worker blurs every image, and one ring each
// would be garbage the heap grows by between collections.
var rings floatPool

// floatPool is a set of float buffers any goroutine may take and give back.
type floatPool struct{ p sync.Pool }

// get returns a buffer of n values, kept or new; its contents are undefined.
func (f *floatPool) get(n int) []float32 {
	if b, ok := f.p.Get().(*[]float32); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]float32, n)
}

func (f *floatPool) put(b []float32) { f.p.Put(&b) }

// sameStart reports whether a and b start at the same element (gaussian's callers
// pass one buffer twice or two that do not overlap).
func sameStart(a, b []float32) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// convV convolves columns with the odd-length kernel k, a whole row at a time.
// dst and src must not overlap.
func convV(dst, src []float32, w, h, nc int, k []float32) {
	r := len(k) / 2
	stride := w * nc
	parallelRows(h, func(lo, hi int) {
		off := make([]int, len(k))
		for y := lo; y < hi; y++ {
			for i := range off {
				off[i] = min(max(y+i-r, 0), h-1) * stride
			}
			tapSum(dst[y*stride:(y+1)*stride], src, off, k)
		}
	})
}

// transpose writes the transpose of the w x h plane src (nc values per pixel) to dst,
// which becomes h x w. It works in blocks so both sides stay in cache.
func transpose(dst, src []float32, w, h, nc int) {
	const bs = 32
	parallelN((h+bs-1)/bs, 1, func(lo, hi int) {
		for by := lo * bs; by < min(hi*bs, h); by += bs {
			ymax := min(by+bs, h)
			for bx := 0; bx < w; bx += bs {
				xmax := min(bx+bs, w)
				for y := by; y < ymax; y++ {
					row := src[(y*w+bx)*nc : (y*w+xmax)*nc]
					switch nc {
					case 1:
						for i, v := range row {
							dst[(bx+i)*h+y] = v
						}
					case 3:
						for i := 0; i+2 < len(row); i += 3 {
							d := ((bx+i/3)*h + y) * 3
							dst[d], dst[d+1], dst[d+2] = row[i], row[i+1], row[i+2]
						}
					default:
						for i, v := range row {
							dst[((bx+i/nc)*h+y)*nc+i%nc] = v
						}
					}
				}
			}
		}
	})
}

// minH writes to dst the minimum over a (2r+1)-pixel horizontal window of the
// single-channel plane src, with the van Herk / Gil-Werman algorithm: about three
// comparisons per pixel whatever r is. dst and src must not overlap.
func minH(dst, src []float32, w, h, r int) {
	k := 2*r + 1
	n := w + 2*r
	n += (k - n%k) % k // a whole number of blocks
	inf := float32(math.Inf(1))
	parallelRows(h, func(lo, hi int) {
		f, g, hh := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range f {
			f[i] = inf
		}
		for y := lo; y < hi; y++ {
			copy(f[r:r+w], src[y*w:(y+1)*w])
			vanHerk(g, hh, f, k)
			out := dst[y*w : (y+1)*w]
			for x := range out {
				// The window [x-r, x+r] of the row is [x, x+k-1] of f.
				out[x] = min(hh[x], g[x+k-1])
			}
		}
	})
}

// vanHerk fills g with running minima of f from the start of each block of k values
// and hh with running minima to the end of each block; len(f) is a multiple of k.
func vanHerk(g, hh, f []float32, k int) {
	for b := 0; b < len(f); b += k {
		m := f[b]
		for i := b; i < b+k; i++ {
			m = min(m, f[i])
			g[i] = m
		}
		m = f[b+k-1]
		for i := b + k - 1; i >= b; i-- {
			m = min(m, f[i])
			hh[i] = m
		}
	}
}

// minV is minH down the columns. It streams whole rows (the block minima are kept as
// full rows), so it needs no transpose; columns are split across cores.
func minV(rc *runCtx, dst, src []float32, w, h, r int) {
	k := 2*r + 1
	n := h + 2*r
	n += (k - n%k) % k
	g, hh := rc.floats(n*w), rc.floats(n*w)
	inf := float32(math.Inf(1))
	// Padded row p is source row p-r, or +Inf outside the image.
	row := func(p int, x0, x1 int, out []float32) []float32 {
		if y := p - r; y >= 0 && y < h {
			return src[y*w+x0 : y*w+x1]
		}
		for i := range out {
			out[i] = inf
		}
		return out
	}
	parallelN(w, 64, func(x0, x1 int) {
		pad := make([]float32, x1-x0)
		for b := 0; b < n; b += k {
			copy(g[b*w+x0:b*w+x1], row(b, x0, x1, pad))
			for p := b + 1; p < b+k; p++ {
				prev, cur, f := g[(p-1)*w+x0:(p-1)*w+x1], g[p*w+x0:p*w+x1], row(p, x0, x1, pad)
				for i := range cur {
					cur[i] = min(prev[i], f[i])
				}
			}
			e := b + k - 1
			copy(hh[e*w+x0:e*w+x1], row(e, x0, x1, pad))
			for p := e - 1; p >= b; p-- {
				next, cur, f := hh[(p+1)*w+x0:(p+1)*w+x1], hh[p*w+x0:p*w+x1], row(p, x0, x1, pad)
				for i := range cur {
					cur[i] = min(next[i], f[i])
				}
			}
		}
		for y := range h {
			out := dst[y*w+x0 : y*w+x1]
			a, b := hh[y*w+x0:y*w+x1], g[(y+k-1)*w+x0:(y+k-1)*w+x1]
			for i := range out {
				out[i] = min(a[i], b[i])
			}
		}
	})
	rc.release(g, hh)
}

// minFilter writes to dst the minimum over a (2r+1)^2 square of the single-channel plane
// src. dst may be src.
func minFilter(rc *runCtx, dst, src []float32, w, h, r int) {
	if r <= 0 {
		copy(dst, src)
		return
	}
	r = min(r, max(w, h))
	tmp := rc.floats(w * h)
	minH(tmp, src, w, h, r)
	minV(rc, dst, tmp, w, h, r)
	rc.release(tmp)
}

// shrink averages f x f blocks of the nc-channel plane src (blocks at the right and
// bottom edges may be partial) into a ceil(w/f) x ceil(h/f) plane.
func shrink(rc *runCtx, src []float32, w, h, nc, f int) ([]float32, int, int) {
	sw, sh := (w+f-1)/f, (h+f-1)/f
	out := rc.floats(sw * sh * nc)
	parallelRows(sh, func(lo, hi int) {
		acc := make([]float64, sw*nc)
		for sy := lo; sy < hi; sy++ {
			clear(acc)
			y0, y1 := sy*f, min(sy*f+f, h)
			for y := y0; y < y1; y++ {
				row := src[y*w*nc : (y+1)*w*nc]
				for bx := range sw {
					seg := row[bx*f*nc : min(bx*f+f, w)*nc]
					a := acc[bx*nc : (bx+1)*nc]
					switch nc {
					case 1:
						var s0 float64
						for _, v := range seg {
							s0 += float64(v)
						}
						a[0] += s0
					case 3:
						var s0, s1, s2 float64
						for i := 0; i+2 < len(seg); i += 3 {
							s0 += float64(seg[i])
							s1 += float64(seg[i+1])
							s2 += float64(seg[i+2])
						}
						a[0], a[1], a[2] = a[0]+s0, a[1]+s1, a[2]+s2
					default:
						for i, v := range seg {
							a[i%nc] += float64(v)
						}
					}
				}
			}
			for bx := range sw {
				n := float64((min(bx*f+f, w) - bx*f) * (y1 - y0))
				for c := range nc {
					out[(sy*sw+bx)*nc+c] = float32(acc[bx*nc+c] / n)
				}
			}
		}
	})
	return out, sw, sh
}

// guidedFilter writes to q the guided filter (He, Sun and Tang, 2013) of the nc-channel
// plane p, steered by the single-channel guide: an edge-preserving smoothing whose cost
// is six box filters whatever the radius r. eps is the variance below which detail is
// smoothed away. When sub > 1 the linear coefficients are computed on sub x sub block
// averages with the radius scaled down to match, and interpolated back (the "fast
// guided filter", He and Sun 2015): the result keeps the full-resolution guide's edges
// at a fraction of the cost. q may be p.
func guidedFilter(rc *runCtx, q, guide, p []float32, w, h, nc, r int, eps float32, sub int) {
	if sub <= 1 {
		a, b := guidedCoeffs(rc, guide, p, w, h, nc, r, eps)
		applyCoeffs(q, guide, a, b, w, h, w, h, nc, 1)
		rc.release(a, b)
		return
	}
	gs, sw, sh := shrink(rc, guide, w, h, 1, sub)
	ps, _, _ := shrink(rc, p, w, h, nc, sub)
	a, b := guidedGrids(rc, gs, ps, w, h, sw, sh, nc, r, eps, sub)
	applyGrids(q, guide, a, b, 0, h)
	rc.release(gs, ps, a.pix, b.pix)
}

// guidedGrids returns the fast guided filter's coefficient grids of a w x h frame from
// the block averages gs of its guide and ps of its plane.
func guidedGrids(rc *runCtx, gs, ps []float32, w, h, sw, sh, nc, r int, eps float32, sub int) (a, b *blockGrid) {
	ca, cb := guidedCoeffs(rc, gs, ps, sw, sh, nc, max(1, int(math.Round(float64(r)/float64(sub)))), eps)
	return newBlockGrid(ca, w, h, sw, sh, nc, sub), newBlockGrid(cb, w, h, sw, sh, nc, sub)
}

// applyGrids writes q = a*guide + b for rows [y0, y0+n) of the frame the grids
// cover; q and guide hold those rows from their start.
func applyGrids(q, guide []float32, a, b *blockGrid, y0, n int) {
	w, nc := a.w, a.nc
	parallelRows(n, func(lo, hi int) {
		ra, rb := make([]float32, w*nc), make([]float32, w*nc)
		for y := lo; y < hi; y++ {
			t0, t1, fy := blockInterp(y0+y, a.ch, a.sub)
			interpRow(ra, a.pix, t0, t1, fy, a.x0, a.x1, a.fx, a.cw, nc)
			interpRow(rb, b.pix, t0, t1, fy, b.x0, b.x1, b.fx, b.cw, nc)
			for x := range w {
				g := guide[y*w+x]
				for c := range nc {
					j := x*nc + c
					q[y*w*nc+j] = ra[j]*g + rb[j]
				}
			}
		}
	})
}

// guidedCoeffs returns the window means of the guided filter's per-pixel linear model
// q = a*guide + b.
func guidedCoeffs(rc *runCtx, guide, p []float32, w, h, nc, r int, eps float32) (a, b []float32) {
	n := w * h
	meanI, corrII := rc.floats(n), rc.floats(n)
	meanP, corrIP, tmp := rc.floats(n*nc), rc.floats(n*nc), rc.floats(n*nc)
	parallelRows(h, func(lo, hi int) {
		for i := lo * w; i < hi*w; i++ {
			g := guide[i]
			corrII[i] = g * g
			for c := range nc {
				corrIP[i*nc+c] = g * p[i*nc+c]
			}
		}
	})
	boxBlur(meanI, guide, tmp, w, h, 1, r)
	boxBlur(corrII, corrII, tmp, w, h, 1, r)
	boxBlur(meanP, p, tmp, w, h, nc, r)
	boxBlur(corrIP, corrIP, tmp, w, h, nc, r)
	// a goes to corrIP and b to meanP.
	parallelRows(h, func(lo, hi int) {
		for i := lo * w; i < hi*w; i++ {
			mi := meanI[i]
			inv := 1 / (corrII[i] - mi*mi + eps)
			for c := range nc {
				j := i*nc + c
				a := (corrIP[j] - mi*meanP[j]) * inv
				corrIP[j] = a
				meanP[j] -= a * mi
			}
		}
	})
	boxBlur(corrIP, corrIP, tmp, w, h, nc, r)
	boxBlur(meanP, meanP, tmp, w, h, nc, r)
	rc.release(meanI, corrII, tmp)
	return corrIP, meanP
}

// applyCoeffs writes q = a*guide + b at full resolution w x h, with a and b given on a
// cw x ch grid of sub x sub blocks and interpolated bilinearly between block centres.
func applyCoeffs(q, guide, a, b []float32, w, h, cw, ch, nc, sub int) {
	applyCoeffsRows(q, guide, a, b, w, 0, h, cw, ch, nc, sub)
}

// applyCoeffsRows is applyCoeffs for rows [y0, y0+n) of the frame, which q and
// guide hold from their start.
func applyCoeffsRows(q, guide, a, b []float32, w, y0, n, cw, ch, nc, sub int) {
	if sub <= 1 {
		parallelRows(n, func(lo, hi int) {
			for i := lo * w; i < hi*w; i++ {
				g := guide[i]
				for c := range nc {
					j := i*nc + c
					k := y0*w*nc + j
					q[j] = a[k]*g + b[k]
				}
			}
		})
		return
	}
	x0, x1, fx := make([]int, w), make([]int, w), make([]float32, w)
	for x := range w {
		x0[x], x1[x], fx[x] = blockInterp(x, cw, sub)
	}
	parallelRows(n, func(lo, hi int) {
		ra, rb := make([]float32, w*nc), make([]float32, w*nc)
		for y := lo; y < hi; y++ {
			t0, t1, fy := blockInterp(y0+y, ch, sub)
			interpRow(ra, a, t0, t1, fy, x0, x1, fx, cw, nc)
			interpRow(rb, b, t0, t1, fy, x0, x1, fx, cw, nc)
			for x := range w {
				g := guide[y*w+x]
				for c := range nc {
					j := x*nc + c
					q[y*w*nc+j] = ra[j]*g + rb[j]
				}
			}
		}
	})
}

// interpRow writes to out one full-resolution row of the block plane lo (cw blocks
// wide), interpolated bilinearly between block rows y0 and y1 (weight fy of y1) and
// between the block columns that x0, x1 and fx give for each pixel.
func interpRow(out, lo []float32, y0, y1 int, fy float32, x0, x1 []int, fx []float32, cw, nc int) {
	r0, r1 := lo[y0*cw*nc:(y0+1)*cw*nc], lo[y1*cw*nc:(y1+1)*cw*nc]
	for x := range x0 {
		a, b, f := x0[x]*nc, x1[x]*nc, fx[x]
		for c := range nc {
			top := r0[a+c] + (r0[b+c]-r0[a+c])*f
			bot := r1[a+c] + (r1[b+c]-r1[a+c])*f
			out[x*nc+c] = top + (bot-top)*fy
		}
	}
}

// blockInterp returns the two blocks of sub pixels whose centres surround pixel i, out
// of blocks blocks, and the weight of the second. Within half a block of the border,
// where no centre lies beyond the pixel, it extrapolates from the two outermost blocks
// instead of holding the last value, so a gradient runs on into the border as it does
// at full resolution.
func blockInterp(i, blocks, sub int) (int, int, float32) {
	if blocks < 2 {
		return 0, 0, 0
	}
	f := (float64(i)+0.5)/float64(sub) - 0.5
	t := min(max(int(math.Floor(f)), 0), blocks-2)
	return t, t + 1, float32(f - float64(t))
}
