package engine

// mapRows returns a new image made by fn, which gets ranges of whole rows of src and
// writes the same ranges of the result (linear RGB, three values per pixel), the rows
// split across cores. Operations loop over pixels inside fn, so per-pixel helpers are
// inlined instead of being called through a function value.
func mapRows(rc *runCtx, src *Image, fn func(dst, src []float32)) *Image {
	if rc.chain != nil {
		rc.chain.fns = append(rc.chain.fns, fn)
		return src
	}
	dst := rc.image(src.W, src.H)
	parallelRows(src.H, func(lo, hi int) {
		fn(dst.Pix[3*lo*src.W:3*hi*src.W], src.Pix[3*lo*src.W:3*hi*src.W])
	})
	return dst
}

// copyRows returns a copy of src that fn changes in place: fn gets the result's pixels
// (the whole image, three values per pixel) and a range of whole rows [lo, hi) that are
// already copied from src, the rows split across cores. For operations that change only
// some pixels and leave the others bit for bit.
func copyRows(rc *runCtx, src *Image, fn func(pix []float32, lo, hi int)) *Image {
	w := src.W
	dst := rc.image(w, src.H)
	parallelRows(src.H, func(lo, hi int) {
		copy(dst.Pix[3*lo*w:3*hi*w], src.Pix[3*lo*w:3*hi*w])
		fn(dst.Pix, lo, hi)
	})
	return dst
}

// mapChannels returns a new image with lut applied to the channels selected by mask
// (bit 0 red, 1 green, 2 blue); the others are copied.
func mapChannels(rc *runCtx, src *Image, lut *fnLUT, mask int) *Image {
	on := [3]bool{mask&1 != 0, mask&2 != 0, mask&4 != 0}
	return mapRows(rc, src, func(d, s []float32) {
		if on == [3]bool{true, true, true} {
			lut.apply(d, s)
			return
		}
		copy(d, s)
		for c, ok := range on {
			if !ok {
				continue
			}
			for i := c; i < len(s); i += 3 {
				d[i] = lut.at(s[i])
			}
		}
	})
}
