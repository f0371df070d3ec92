package engine

import "math"

// Augmentation filters of the detail stage that albumentations has and the first sets
// did not: median_blur (albumentations MedianBlur).

// medianRadius is the half side in pixels of median_blur's square on a frame of long
// edge long: at least a pixel once radius is above 0.
func medianRadius(radius, long float64) int {
	if radius <= 0 {
		return 0
	}
	return max(1, int(math.Round(radius*long)))
}

// opMedianBlur replaces each channel of each pixel by the median of that channel over
// the square of side 2r+1 around it (albumentations MedianBlur, cv2.medianBlur): it
// removes isolated specks (salt and pepper) and keeps edges. Outside the image the
// edge pixels repeat, as OpenCV's border does. A median commutes with any increasing
// map of the values, so the median of linear values is the median of display values.
//
// Arguments: radius in [0, 0.01], r as a fraction of the long edge (at least a pixel;
// albumentations' blur_limit k is a radius of (k-1)/2 pixels); 0 leaves the image
// unchanged. Example: {radius: 0.002}.
//
// A 3x3 square takes the exact median of the floats. Larger ones slide a histogram of
// the display values at 16 bits along each row (Huang's algorithm, with counts per
// block of 256 levels to skip empty stretches): each pixel costs the 2(2r+1) values
// that enter and leave the window, not a sort. The value written is one of the
// window's with the median's 16-bit level, the exact median whenever the window's
// values at that level are equal (always for an 8-bit source, whose levels are 257
// apart).
func opMedianBlur(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	radius := r.num("radius")
	if r.err != nil {
		return nil, r.err
	}
	rad := medianRadius(radius, rc.long(src))
	if rad == 0 {
		return src, nil
	}
	dst := rc.image(src.W, src.H)
	if rad == 1 {
		median3x3(src, dst)
		return dst, nil
	}
	medianHistogram(src, dst, rad)
	return dst, nil
}

// floatKey is an int32 that orders as the float32 v does (finite values; -0 below
// +0): its bits, with the 31 below the sign flipped for a negative value. It is its
// own inverse (floatOfKey). Integer min and max compile to conditional moves, where
// Go's float min and max also sort out NaN and the zeros' signs.
func floatKey(v float32) int32 {
	b := int32(math.Float32bits(v))
	return b ^ (b >> 31 & 0x7fffffff)
}

func floatOfKey(k int32) float32 {
	return math.Float32frombits(uint32(k ^ (k >> 31 & 0x7fffffff)))
}

// median3x3 writes the exact 3x3 median of every channel of src to dst. Each column
// of three is sorted once and shared by the three windows that hold it; the median of
// nine is then the middle of the largest low, the middle of the middles and the
// smallest high (Paeth's construction). A row's three channels go through together,
// interleaved as they are stored: a pixel's neighbour in its channel is 3 values
// away, so each pass is one run over contiguous memory. The values are compared as
// floatKey's integers, which order as the floats do, so the median is one of the
// window's values, bit for bit.
func median3x3(src, dst *Image) {
	w, h := src.W, src.H
	n := 3 * w
	parallelRows(h, func(lo, hi int) {
		// The sorted columns, with the edge pixel repeated on either side.
		lows, mids, highs := make([]int32, n+6), make([]int32, n+6), make([]int32, n+6)
		for y := lo; y < hi; y++ {
			up := src.Pix[3*max(y-1, 0)*w:][:n]
			row := src.Pix[3*y*w:][:n]
			down := src.Pix[3*min(y+1, h-1)*w:][:n]
			l, m, g := lows[3:3+n], mids[3:3+n], highs[3:3+n]
			for i := range n {
				a, b, c := floatKey(up[i]), floatKey(row[i]), floatKey(down[i])
				a, b = min(a, b), max(a, b)
				b, c = min(b, c), max(b, c)
				a, b = min(a, b), max(a, b)
				l[i], m[i], g[i] = a, b, c
			}
			copy(lows[:3], l[:3])
			copy(mids[:3], m[:3])
			copy(highs[:3], g[:3])
			copy(lows[3+n:], l[n-3:])
			copy(mids[3+n:], m[n-3:])
			copy(highs[3+n:], g[n-3:])
			out := dst.Pix[3*y*w:][:n]
			ll, lc, lr := lows[:n], lows[3:3+n], lows[6:6+n]
			ml, mc, mr := mids[:n], mids[3:3+n], mids[6:6+n]
			hl, hc, hr := highs[:n], highs[3:3+n], highs[6:6+n]
			for i := range out {
				lo3 := max(ll[i], lc[i], lr[i])
				a, b := ml[i], mc[i]
				mi3 := max(min(a, b), min(max(a, b), mr[i]))
				hi3 := min(hl[i], hc[i], hr[i])
				out[i] = floatOfKey(max(min(lo3, mi3), min(max(lo3, mi3), hi3)))
			}
		}
	})
}

// medianLevels is the number of levels medianHistogram tells a channel's values apart
// by, medianBlock the levels counted together to skip long stretches.
const (
	medianLevels = 1 << 16
	medianBlock  = 16
)

// medianKey is the 16-bit level of a linear value: its display value on [0, 1]
// (values beyond share the ends).
func medianKey(v float32) uint16 {
	d := min(max(toDisp(v), 0), 1)
	return uint16(d*(medianLevels-1) + 0.5)
}

// medianHistogram writes the median over squares of half side rad of every channel of
// src to dst, by a histogram slid along each row (see opMedianBlur). The 16-bit levels
// a channel uses are numbered densely first (an 8-bit source uses at most 256), so the
// median moves from one pixel to the next by the levels actually between them.
func medianHistogram(src, dst *Image, rad int) {
	w, h, n := src.W, src.H, src.W*src.H
	keys := make([]uint16, n)
	side := 2*rad + 1
	// The median is the value of rank t (from 0) among the window's side*side.
	t := int32(side*side-1) / 2
	dense := make([]uint16, medianLevels)
	for c := range 3 {
		clear(dense)
		parallelRows(h, func(lo, hi int) {
			for p := lo * w; p < hi*w; p++ {
				keys[p] = medianKey(src.Pix[3*p+c])
			}
		})
		for _, k := range keys {
			dense[k] = 1
		}
		levels := 0
		for k, used := range dense {
			if used != 0 {
				dense[k] = uint16(levels)
				levels++
			}
		}
		parallelRows(h, func(lo, hi int) {
			for p := lo * w; p < hi*w; p++ {
				keys[p] = dense[keys[p]]
			}
		})
		nb := (levels + medianBlock - 1) / medianBlock
		parallelRows(h, func(lo, hi int) {
			hist := make([]int32, nb*medianBlock)
			blocks := make([]int32, nb)
			rep := make([]float32, nb*medianBlock)
			offs := make([]int, side)
			pix := src.Pix
			// m is the current median's level and below the window's count under it.
			// Both stay in registers: the loops below are written out, not closures.
			m, below := 0, int32(0)
			for y := lo; y < hi; y++ {
				for j := range side {
					offs[j] = min(max(y-rad+j, 0), h-1) * w
				}
				for dx := -rad; dx <= rad; dx++ {
					x := min(max(dx, 0), w-1)
					for _, o := range offs {
						k := int(keys[o+x])
						hist[k]++
						blocks[k/medianBlock]++
						rep[k] = pix[3*(o+x)+c]
						below += int32(uint(k-m) >> 63) // k < m, without a branch
					}
				}
				out := dst.Pix[3*y*w:]
				for x := range w {
					if x > 0 {
						xo, xi := max(x-rad-1, 0), min(x+rad, w-1)
						for _, o := range offs {
							k := int(keys[o+xo])
							hist[k]--
							blocks[k/medianBlock]--
							below -= int32(uint(k-m) >> 63)
							k = int(keys[o+xi])
							hist[k]++
							blocks[k/medianBlock]++
							rep[k] = pix[3*(o+xi)+c]
							below += int32(uint(k-m) >> 63)
						}
					}
					for below > t {
						if m%medianBlock == 0 && below-blocks[m/medianBlock-1] > t {
							m -= medianBlock
							below -= blocks[m/medianBlock]
							continue
						}
						m--
						below -= hist[m]
					}
					for below+hist[m] <= t {
						if m%medianBlock == 0 && below+blocks[m/medianBlock] <= t {
							below += blocks[m/medianBlock]
							m += medianBlock
							continue
						}
						below += hist[m]
						m++
					}
					out[3*x+c] = rep[m]
				}
				for dx := -rad; dx <= rad; dx++ {
					x := min(max(w-1+dx, 0), w-1)
					for _, o := range offs {
						k := int(keys[o+x])
						hist[k]--
						blocks[k/medianBlock]--
						below -= int32(uint(k-m) >> 63)
					}
				}
			}
		})
	}
}

// defocusRadius is the disc's radius in pixels on a frame of long edge long, and the
// half height of the rows it reaches.
func defocusRadius(radius, long float64) (float64, int) {
	r := radius * long
	return r, int(math.Floor(r))
}

// opDefocus blurs as a lens out of focus does (albumentations Defocus): each pixel
// becomes the mean over a disc around it (a bokeh disc, with a hard edge), and a small
// gaussian then softens the disc's edge (albumentations' alias_blur). In linear light,
// as a lens adds light; outside the image the edge pixels repeat.
//
// Arguments: radius in [0, 0.02], the disc's radius as a fraction of the long edge (0
// leaves the image unchanged; albumentations' radius in pixels over the long edge);
// alias_blur in [0, 0.002], the gaussian's sigma as a fraction of the long edge (0
// keeps the hard edge). Example: {radius: 0.005, alias_blur: 0.0003}.
//
// A disc is a stack of rows of different widths: each is a difference of one row's
// running sums, so a pixel costs the disc's 2r+1 rows, not its area.
func opDefocus(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	radius, alias := r.num("radius"), r.num("alias_blur")
	if r.err != nil {
		return nil, r.err
	}
	long := rc.long(src)
	rad, ri := defocusRadius(radius, long)
	if radius == 0 {
		return src, nil
	}
	w, h := src.W, src.H
	// half[dy+ri] is the half width of the disc's row dy: the pixels (dx, dy) with
	// dx² + dy² <= rad², as albumentations' disc kernel holds them.
	half := make([]int, 2*ri+1)
	count := 0
	for dy := -ri; dy <= ri; dy++ {
		hw := int(math.Floor(math.Sqrt(max(rad*rad-float64(dy*dy), 0)) + 1e-9))
		half[dy+ri] = hw
		count += 2*hw + 1
	}
	norm := 1 / float64(count)
	dst := rc.image(w, h)
	parallelRows(h, func(lo, hi int) {
		span := 2*ri + 1
		// A ring of running sums per source row: slot r % span holds row held[slot].
		sums := make([]float64, span*3*(w+1))
		held := make([]int, span)
		for i := range held {
			held[i] = -1
		}
		rowSums := func(sy int) []float64 {
			slot := sy % span
			s := sums[slot*3*(w+1) : (slot+1)*3*(w+1)]
			if held[slot] != sy {
				held[slot] = sy
				row := src.Pix[3*sy*w:]
				var acc [3]float64
				s[0], s[1], s[2] = 0, 0, 0
				for x := range w {
					for c := range 3 {
						acc[c] += float64(row[3*x+c])
						s[3*(x+1)+c] = acc[c]
					}
				}
			}
			return s
		}
		rowS := make([][]float64, span)
		rowP := make([][]float32, span)
		for y := lo; y < hi; y++ {
			for dy := -ri; dy <= ri; dy++ {
				sy := min(max(y+dy, 0), h-1)
				rowS[dy+ri], rowP[dy+ri] = rowSums(sy), src.Pix[3*sy*w:3*(sy+1)*w]
			}
			out := dst.Pix[3*y*w:]
			for x := range w {
				var r0, g0, b0 float64
				for j, s := range rowS {
					hw := half[j]
					a, b := x-hw, x+hw
					if a >= 0 && b < w {
						r0 += s[3*(b+1)] - s[3*a]
						g0 += s[3*(b+1)+1] - s[3*a+1]
						b0 += s[3*(b+1)+2] - s[3*a+2]
						continue
					}
					l, rr := max(a, 0), min(b, w-1)
					row := rowP[j]
					vr, vg, vb := s[3*(rr+1)]-s[3*l], s[3*(rr+1)+1]-s[3*l+1], s[3*(rr+1)+2]-s[3*l+2]
					if a < 0 {
						n := float64(-a)
						vr, vg, vb = vr+n*float64(row[0]), vg+n*float64(row[1]), vb+n*float64(row[2])
					}
					if b > w-1 {
						n := float64(b - w + 1)
						vr, vg, vb = vr+n*float64(row[3*(w-1)]), vg+n*float64(row[3*(w-1)+1]), vb+n*float64(row[3*(w-1)+2])
					}
					r0, g0, b0 = r0+vr, g0+vg, b0+vb
				}
				out[3*x], out[3*x+1], out[3*x+2] = float32(r0*norm), float32(g0*norm), float32(b0*norm)
			}
		}
	})
	if sg := min(alias*long, maxFilterRadius); sg > 0 {
		tmp := rc.floats(len(dst.Pix))
		gaussian(dst.Pix, dst.Pix, tmp, w, h, 3, sg)
		rc.release(tmp)
	}
	return dst, nil
}

// opSharpenKernel sharpens with albumentations' 3x3 kernel (albumentations Sharpen):
// the image convolved with (1 - alpha) times the identity plus alpha times the kernel
// [-1 -1 -1; -1 8+lightness -1; -1 -1 -1], on display values (as albumentations'
// 8-bit ones) and clipped below at 0. The kernel sums to 1 - alpha + alpha*lightness,
// so a lightness below 1 also darkens, as it does in albumentations.
//
// Arguments: alpha in [0, 1], the kernel's visibility (0 leaves the image
// unchanged); lightness in [0, 4]; size in [0.0005, 0.01], the kernel's step as a
// fraction of the long edge (at least a pixel, albumentations' is one pixel). Example:
// {alpha: 0.3, lightness: 1}.
func opSharpenKernel(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	alpha, lightness, size := r.num("alpha"), r.num("lightness"), r.num("size")
	if r.err != nil {
		return nil, r.err
	}
	if alpha == 0 {
		return src, nil
	}
	al := float32(alpha)
	e, centre := -al, 1-al+al*(8+float32(lightness))
	k := [3][3]float32{{e, e, e}, {e, centre, e}, {e, e, e}}
	return kernel3Disp(rc, src, k, embossStep(size, rc.long(src))), nil
}

// solarizeSlack is how far below the threshold a display value still counts as at
// it: a level i/255 decoded and encoded again is within float rounding of i/255, and
// albumentations inverts the level equal to its threshold.
const solarizeSlack = 1e-5

// opSolarize inverts every channel value at or above a threshold (albumentations
// Solarize): a display value v >= threshold becomes 1 - v, the others stay, as
// albumentations' table i < threshold ? i : 255 - i does on 8-bit levels.
//
// Arguments: threshold in [0, 1], a display level (albumentations' threshold t on
// 0..255 is t/255: 128 is 0.502); amount in [0, 1], the blend with the image (0
// leaves it unchanged, 1 is albumentations' transform). Example: {threshold: 0.5,
// amount: 1}.
func opSolarize(rc *runCtx, src *Image, a Args) (*Image, error) {
	r := args{a: a}
	threshold, amount := float32(r.num("threshold")), float32(r.num("amount"))
	if r.err != nil {
		return nil, r.err
	}
	if amount == 0 {
		return src, nil
	}
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		for i := 3 * lo * src.W; i < 3*hi*src.W; i++ {
			v := src.Pix[i]
			if d := toDisp(v); d >= threshold-solarizeSlack {
				v += amount * (fromDisp(1-d) - v)
			}
			dst.Pix[i] = nonNeg(v)
		}
	})
	return dst, nil
}
