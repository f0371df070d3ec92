package raw

import "math"

// Highlight reconstruction: dcraw's "blend" mode (dcraw -H 2, blend_highlights in
// Dave Coffin's dcraw.c, also LibRaw's -H 2), applied after demosaicing and white
// balance, before the colour matrix.
//
// After white balance each channel clips at its own level: its multiplier (a
// sample at the white level keeps its white-balanced value, 1 times the
// multiplier). The least amplified channel (green, usually) clips lowest, at
// clip. Where a channel of a pixel is above clip, at least one channel may have
// lost its true value, and the white-balanced values alone would tint the pixel
// (green clipped under unclipped red and blue: magenta). Blending keeps the
// pixel's brightness from its values as they are and takes its colour from the
// same values clipped at clip: in the opponent space (sum; sqrt(3)(r-g); 2b-r-g)
// the chroma is scaled by the ratio of the clipped values' chroma to the
// unclipped ones'. Where every channel clipped, the clipped values are equal, the
// chroma is 0 and the pixel is neutral at the mean of its channels; where only
// some did, the colour is what the unclipped channels still tell. Pixels whose
// every channel is at most clip are not touched (bit for bit).

// highlights blends pixels above clip, the lowest channel's clip level after
// white balance.
type highlights struct{ clip float32 }

// highlightsOf is f's reconstruction: clip is the smallest white-balance multiplier.
func (f *File) highlightsOf() highlights {
	wb := f.wb()
	return highlights{clip: min(wb[0], wb[1], wb[2])}
}

// blend returns the reconstructed camera values (white-balanced) of r, g, b.
func (h highlights) blend(r, g, b float32) (float32, float32, float32) {
	c := h.clip
	if r <= c && g <= c && b <= c {
		return r, g, b
	}
	const s3 = 1.7320508
	l0, a0, b0 := r+g+b, s3*(r-g), 2*b-r-g
	rc, gc, bc := min(r, c), min(g, c), min(b, c)
	a1, b1 := s3*(rc-gc), 2*bc-rc-gc
	sum0 := a0*a0 + b0*b0
	if sum0 == 0 {
		return r, g, b
	}
	k := float32(math.Sqrt(float64((a1*a1 + b1*b1) / sum0)))
	a0, b0 = a0*k, b0*k
	const h3 = 0.8660254
	return (l0 + h3*a0 - 0.5*b0) / 3, (l0 - h3*a0 - 0.5*b0) / 3, (l0 + b0) / 3
}

// develop writes the sRGB of white-balanced camera values r, g, b to d: the
// highlights blended, then the colour matrix.
func (m *mat3f) develop(h highlights, d []float32, r, g, b float32) {
	r, g, b = h.blend(r, g, b)
	m.apply(d, r, g, b)
}
