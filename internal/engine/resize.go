package engine

import "math"

// Resize returns img resampled to w x h pixels with a Lanczos-3 filter in linear light.
// When shrinking, the kernel is stretched by the reduction factor, so every source
// pixel contributes and fine detail averages out instead of aliasing (a 1-pixel
// checkerboard becomes flat grey). Edges replicate the border pixels. A flat image
// stays flat: each output's weights sum to one. Ringing below zero is clipped (values
// above 1 are kept: linear light may exceed display white). Sizes below 1 are taken
// as 1.
func Resize(img *Image, w, h int) *Image {
	w, h = max(w, 1), max(h, 1)
	if w == img.W && h == img.H {
		return img.Clone()
	}
	return resample(imageRows(img), 3*img.W, img.W, img.H, w, h, float32(math.Inf(1)))
}

// FitLongEdge returns the size of a w x h image scaled so that its long edge is long
// pixels, keeping the aspect ratio (rounded, at least 1 pixel). FitLongEdge(6000,
// 4000, 1024) is (1024, 683).
func FitLongEdge(w, h, long int) (int, int) {
	if w <= 0 || h <= 0 || long <= 0 {
		return max(w, 0), max(h, 0)
	}
	if w >= h {
		return long, max(1, int(math.Round(float64(h)*float64(long)/float64(w))))
	}
	return max(1, int(math.Round(float64(w)*float64(long)/float64(h)))), long
}

// rowReader returns row y of a source as 3*width linear values: either a view of the
// source's own memory or scratch, filled. It lets resample read decoded pixels of any
// kind without first building a full-size float image.
type rowReader func(y int, scratch []float32) []float32

func imageRows(m *Image) rowReader {
	return func(y int, _ []float32) []float32 { return m.Pix[3*y*m.W : 3*(y+1)*m.W] }
}

// taps says which input samples make one output sample: n weights starting at
// input index start, stored at off in weights.w.
type taps struct{ start, n, off int32 }

type weights struct {
	taps []taps
	w    []float32
}

const lanczosSupport = 3

func lanczos(x float64) float64 {
	if x == 0 {
		return 1
	}
	if x <= -lanczosSupport || x >= lanczosSupport {
		return 0
	}
	px := math.Pi * x
	return lanczosSupport * math.Sin(px) * math.Sin(px/lanczosSupport) / (px * px)
}

// lanczosWeights precomputes the filter for resampling in samples to out samples, so
// the pixel loops only multiply and add. Output sample o is centred on input
// coordinate (o+0.5)*in/out-0.5 (pixel centres line up at both ends); taps falling off
// an edge are folded onto the edge sample.
func lanczosWeights(in, out int) weights {
	if in == out {
		ws := weights{taps: make([]taps, out), w: make([]float32, out)}
		for o := range out {
			ws.taps[o] = taps{start: int32(o), n: 1, off: int32(o)}
			ws.w[o] = 1
		}
		return ws
	}
	scale := float64(in) / float64(out)
	stretch := max(scale, 1) // widen the kernel when shrinking: that is the antialiasing
	radius := lanczosSupport * stretch
	ws := weights{taps: make([]taps, out)}
	ws.w = make([]float32, 0, out*(int(2*radius)+2))
	tmp := make([]float64, 0, int(2*radius)+3)
	for o := range out {
		center := (float64(o)+0.5)*scale - 0.5
		lo := int(math.Ceil(center - radius))
		hi := int(math.Floor(center + radius))
		first, last := max(lo, 0), min(hi, in-1)
		if first > last { // only when the window lies wholly off an edge; cannot for sane sizes
			first, last = min(max(lo, 0), in-1), min(max(lo, 0), in-1)
		}
		tmp = tmp[:last-first+1]
		clear(tmp)
		var sum float64
		for i := lo; i <= hi; i++ {
			k := lanczos((float64(i) - center) / stretch)
			j := min(max(i, first), last)
			tmp[j-first] += k
			sum += k
		}
		if sum == 0 {
			sum = 1
		}
		// Trim zero weights at the ends (the kernel's zeros at integer offsets when
		// upscaling by an integer factor) so the inner loops do less work.
		a, b := 0, len(tmp)-1
		for a < b && tmp[a] == 0 {
			a++
		}
		for b > a && tmp[b] == 0 {
			b--
		}
		ws.taps[o] = taps{start: int32(first + a), n: int32(b - a + 1), off: int32(len(ws.w))}
		for _, k := range tmp[a : b+1] {
			ws.w = append(ws.w, float32(k/sum))
		}
	}
	return ws
}

// resample scales a w x h source read through rows to outW x outH. Output rows are
// split across cores and cut into bands; each band first filters horizontally the
// source rows it needs into a buffer, then filters that buffer vertically. So the
// source is read in order, a row at a time, and no full-size intermediate exists: the
// decoder's 8-bit image can feed it directly. Bands recompute the few source rows
// they share with their neighbours, a small price for needing no synchronisation.
//
// scratch is the length of the scratch slice rows needs (at least 3*w). Values are
// limited to [0, white]: the filter's lobes overshoot next to edges, below black and,
// for a source that cannot exceed white (a decoded file, white 1), above white.
func resample(rows rowReader, scratch, w, h, outW, outH int, white float32) *Image {
	dst := NewImage(outW, outH)
	xw := lanczosWeights(w, outW)
	yw := lanczosWeights(h, outH)
	parallelN(outH, minRows(outW), func(lo, hi int) {
		// One horizontal buffer per goroutine, reused band after band: a band of
		// output rows needs the source rows under its filter, which at most 64 rows
		// keep to a few megabytes even for a 24-megapixel source.
		const band = 64
		scratch := make([]float32, max(scratch, 3*w))
		stride := 3 * outW
		var inter []float32
		for y0 := lo; y0 < hi; y0 += band {
			y1 := min(y0+band, hi)
			sy0 := int(yw.taps[y0].start)
			sy1 := sy0
			for _, t := range yw.taps[y0:y1] {
				sy1 = max(sy1, int(t.start+t.n))
			}
			if need := (sy1 - sy0) * stride; cap(inter) < need {
				inter = make([]float32, need)
			}
			for sy := sy0; sy < sy1; sy++ {
				row := rows(sy, scratch)
				out := inter[(sy-sy0)*stride : (sy-sy0+1)*stride]
				if w == outW {
					copy(out, row)
				} else {
					filterRow(out, row, &xw)
				}
			}
			for y := y0; y < y1; y++ {
				t := yw.taps[y]
				out := dst.Pix[y*stride : (y+1)*stride]
				ks := yw.w[t.off : t.off+t.n]
				base := (int(t.start) - sy0) * stride
				src := inter[base : base+stride]
				k := ks[0]
				for i := range out {
					out[i] = k * src[i]
				}
				for j, k := range ks[1:] {
					src := inter[base+(j+1)*stride : base+(j+2)*stride]
					src = src[:len(out)]
					for i := range out {
						out[i] += k * src[i]
					}
				}
				// The negative lobes overshoot below black next to bright edges;
				// negative light means nothing to the operations downstream, and a
				// decoded file has nothing above white.
				for i, v := range out {
					if v < 0 {
						out[i] = 0
					} else if v > white {
						out[i] = white
					}
				}
			}
		}
	})
	return dst
}

// filterRow resamples one row of RGB triples horizontally. (Splitting the sums
// across two sets of accumulators measured no faster: the loop is bound by loads.)
func filterRow(out, in []float32, xw *weights) {
	for o, t := range xw.taps {
		ks := xw.w[t.off : t.off+t.n]
		px := in[3*t.start : 3*(t.start+t.n)]
		var r, g, b float32
		for j, k := range ks {
			p := px[3*j : 3*j+3 : 3*j+3]
			r += k * p[0]
			g += k * p[1]
			b += k * p[2]
		}
		q := out[3*o : 3*o+3 : 3*o+3]
		q[0], q[1], q[2] = r, g, b
	}
}

// minRows is the fewest rows of width w worth a goroutine of their own: about 16K
// pixels, below which starting it costs more than it saves.
func minRows(w int) int { return max(1, (1<<14)/max(w, 1)) }

// boxRows reads a w x h source, converted row by row through conv, as the
// ceil(w/k) x ceil(h/k) image of its k x k block averages in linear light (blocks cut
// by the right and bottom edges average what they hold). It returns the reader and
// the scratch it needs. Shrinking a photo several times over this way before the
// Lanczos filter does the same antialiasing (a box is a low-pass filter, and the
// Lanczos pass still spans more than one block) for a fraction of the filter's work:
// a 24-megapixel photo's proxy costs a quarter of the multiply-adds.
func boxRows(conv rowConv, w, h, k int) (rowReader, int) {
	bw := (w + k - 1) / k
	return func(y int, scratch []float32) []float32 {
		out := scratch[:3*bw]
		row := scratch[3*bw : 3*bw+3*w]
		clear(out)
		y0, y1 := y*k, min(y*k+k, h)
		for sy := y0; sy < y1; sy++ {
			conv(sy, row)
			if k == 2 {
				n := w / 2
				for i := range n {
					p := row[6*i : 6*i+6 : 6*i+6]
					o := out[3*i : 3*i+3 : 3*i+3]
					o[0] += p[0] + p[3]
					o[1] += p[1] + p[4]
					o[2] += p[2] + p[5]
				}
				if w%2 == 1 {
					o := out[3*n : 3*n+3 : 3*n+3]
					p := row[6*n : 6*n+3 : 6*n+3]
					o[0] += p[0]
					o[1] += p[1]
					o[2] += p[2]
				}
				continue
			}
			for bx := range bw {
				o := out[3*bx : 3*bx+3 : 3*bx+3]
				for x := bx * k; x < min(bx*k+k, w); x++ {
					p := row[3*x : 3*x+3 : 3*x+3]
					o[0] += p[0]
					o[1] += p[1]
					o[2] += p[2]
				}
			}
		}
		ny := y1 - y0
		full := 1 / float32(k*ny)
		for bx := range bw {
			inv := full
			if nx := min(k, w-bx*k); nx != k {
				inv = 1 / float32(nx*ny)
			}
			o := out[3*bx : 3*bx+3 : 3*bx+3]
			o[0] *= inv
			o[1] *= inv
			o[2] *= inv
		}
		return out
	}, 3*bw + 3*w
}

// boxFactor is the block size boxRows should average before a Lanczos pass shrinks a
// w x h image to outW x outH: the largest that leaves the Lanczos pass at least a 1.4x
// reduction, so that its kernel, wider than a block, smooths the blocks' seams.
func boxFactor(w, h, outW, outH int) int {
	s := min(float64(w)/float64(outW), float64(h)/float64(outH))
	return max(1, int(s/1.4))
}
