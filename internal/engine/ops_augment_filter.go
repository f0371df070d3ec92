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

// sort3 orders three values, without branches (the order of a photo's neighbours is
// too irregular to predict).
func sort3(a, b, c float32) (float32, float32, float32) {
	a, b = min(a, b), max(a, b)
	b, c = min(b, c), max(b, c)
	a, b = min(a, b), max(a, b)
	return a, b, c
}

// med3 is the middle of three values.
func med3(a, b, c float32) float32 {
	return max(min(a, b), min(max(a, b), c))
}

// median3x3 writes the exact 3x3 median of every channel of src to dst. Each column
// of three is sorted once and shared by the three windows that hold it; the median of
// nine is then the middle of the largest low, the middle of the middles and the
// smallest high (Paeth's construction).
func median3x3(src, dst *Image) {
	w, h := src.W, src.H
	parallelRows(h, func(lo, hi int) {
		lows, mids, highs := make([]float32, w), make([]float32, w), make([]float32, w)
		for y := lo; y < hi; y++ {
			up, down := src.Pix[3*max(y-1, 0)*w:], src.Pix[3*min(y+1, h-1)*w:]
			row := src.Pix[3*y*w:]
			for c := range 3 {
				for x := range w {
					i := 3*x + c
					lows[x], mids[x], highs[x] = sort3(up[i], row[i], down[i])
				}
				out := dst.Pix[3*y*w:]
				for x := range w {
					l, rr := max(x-1, 0), min(x+1, w-1)
					lo3 := max(lows[l], lows[x], lows[rr])
					mi3 := med3(mids[l], mids[x], mids[rr])
					hi3 := min(highs[l], highs[x], highs[rr])
					out[3*x+c] = med3(lo3, mi3, hi3)
				}
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
			rows := make([]int, side)
			// m is the current median's level and below the window's count under it.
			m, below := 0, int32(0)
			add := func(x int) {
				for _, yy := range rows {
					p := yy*w + x
					k := int(keys[p])
					hist[k]++
					blocks[k/medianBlock]++
					rep[k] = src.Pix[3*p+c]
					if k < m {
						below++
					}
				}
			}
			remove := func(x int) {
				for _, yy := range rows {
					k := int(keys[yy*w+x])
					hist[k]--
					blocks[k/medianBlock]--
					if k < m {
						below--
					}
				}
			}
			settle := func() {
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
			}
			for y := lo; y < hi; y++ {
				for j := range side {
					rows[j] = min(max(y-rad+j, 0), h-1)
				}
				for dx := -rad; dx <= rad; dx++ {
					add(min(max(dx, 0), w-1))
				}
				out := dst.Pix[3*y*w:]
				for x := range w {
					if x > 0 {
						remove(min(max(x-rad-1, 0), w-1))
						add(min(x+rad, w-1))
					}
					settle()
					out[3*x+c] = rep[m]
				}
				for dx := -rad; dx <= rad; dx++ {
					remove(min(max(w-1+dx, 0), w-1))
				}
			}
		})
	}
}
