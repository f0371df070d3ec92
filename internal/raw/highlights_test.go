package raw

import (
	"math"
	"testing"
)

// clippedPhoto is the test photo with two blown patches: a neutral one at 1.4
// (after white balance green clips, red and blue do not) and a warm one where
// every channel clips. x0, y0, side say where the first is; the second is side
// pixels to its right.
func clippedPhoto(t *testing.T) (pix []float32, w, h, x0, y0, side int) {
	pix, w, h = photo(t, "coffee.png", 256, 192)
	pix = blur(pix, w, h)
	x0, y0, side = 40, 60, 48
	for y := y0; y < y0+side; y++ {
		for x := x0; x < x0+2*side; x++ {
			v := [3]float32{1.4, 1.4, 1.4}
			if x >= x0+side {
				v = [3]float32{4, 3, 2.5}
			}
			copy(pix[3*(y*w+x):], v[:])
		}
	}
	return pix, w, h, x0, y0, side
}

// chroma is (max-min)/max of a pixel's linear sRGB.
func chroma(p []float32) float64 {
	hi := max(p[0], p[1], p[2])
	lo := min(p[0], p[1], p[2])
	return float64((hi - lo) / hi)
}

// maxChroma is the largest chroma inside the square at x0, y0 of side s, less a
// margin of m pixels (where demosaicing mixes in the patch's surroundings).
func maxChroma(pix []float32, w, x0, y0, s, m int) float64 {
	worst := 0.0
	for y := y0 + m; y < y0+s-m; y++ {
		for x := x0 + m; x < x0+s-m; x++ {
			worst = max(worst, chroma(pix[3*(y*w+x):]))
		}
	}
	return worst
}

// TestHighlightsNeutral: blown highlights come out neutral (chroma below 1%)
// instead of magenta, demosaiced or binned, from strips or tiles; pixels of the
// photo that did not clip are the same bits as in a DNG of the photo without the
// patches. Before reconstruction, the green-clipped patch had a chroma of 0.6 (magenta).
func TestHighlightsNeutral(t *testing.T) {
	pix, w, h, x0, y0, side := clippedPhoto(t)
	plain, _, _ := photo(t, "coffee.png", 256, 192)
	plain = blur(plain, w, h)
	for _, half := range []bool{false, true} {
		for _, tile := range []int{0, 64} {
			s := baseSynth()
			s.Tile, s.LJ92 = tile, tile > 0
			b, err := s.Encode(pix, w, h)
			if err != nil {
				t.Fatal(err)
			}
			bp, err := s.Encode(plain, w, h)
			if err != nil {
				t.Fatal(err)
			}
			_, img := decodeBytes(t, b, Options{Half: half})
			_, ref := decodeBytes(t, bp, Options{Half: half})
			div, m := 1, 4
			if half {
				div, m = 2, 2
			}
			for k, name := range []string{"green-clipped neutral", "all channels clipped"} {
				c := maxChroma(img.Pix, img.W, (x0+k*side)/div, y0/div, side/div, m)
				if c > 0.01 {
					t.Errorf("half %v tile %d: %s patch has chroma %.3f, want <= 0.01", half, tile, name, c)
				}
			}
			// The neutral patch keeps its brightness above 1: scene-referred.
			if p := img.Pix[3*((y0+side/2)/div*img.W+(x0+side/2)/div):]; p[1] < 1.1 {
				t.Errorf("half %v tile %d: the 1.4 patch came out at %v, want above 1.1", half, tile, p[:3])
			}
			// Away from the patches (a margin for demosaicing), the same bits.
			changed := 0
			for y := range img.H {
				for x := range img.W {
					X, Y := x*div, y*div
					if X >= x0-16 && X < x0+2*side+16 && Y >= y0-16 && Y < y0+side+16 {
						continue
					}
					i := 3 * (y*img.W + x)
					if img.Pix[i] != ref.Pix[i] || img.Pix[i+1] != ref.Pix[i+1] || img.Pix[i+2] != ref.Pix[i+2] {
						changed++
					}
				}
			}
			if changed > 0 {
				t.Errorf("half %v tile %d: %d pixels away from the blown patches changed", half, tile, changed)
			}
		}
	}
}

// blend itself: a pixel whose channels are all at most the clip level is returned
// as is; one whose channels all clipped comes back grey at their mean.
func TestBlendHighlights(t *testing.T) {
	h := highlights{clip: 1}
	for _, p := range [][3]float32{{0.2, 0.5, 1}, {1, 1, 1}, {0, 0, 0}, {0.99, 0.01, 0.3}} {
		if r, g, b := h.blend(p[0], p[1], p[2]); [3]float32{r, g, b} != p {
			t.Errorf("blend(%v) = %v, want it unchanged", p, [3]float32{r, g, b})
		}
	}
	r, g, b := h.blend(2.1, 1, 1.6)
	if mean := float32(4.7 / 3); math.Abs(float64(r-mean)) > 1e-5 || math.Abs(float64(g-mean)) > 1e-5 || math.Abs(float64(b-mean)) > 1e-5 {
		t.Errorf("blend(2.1, 1, 1.6) = %v %v %v, want grey at %v", r, g, b, mean)
	}
}

// TestHighlightsAgainstDcraw develops the clipped photo as dcraw -H 2 does (the
// same blend, after AHD there, RCD here): dcraw scales by the largest
// white-balance multiplier instead of the smallest (nothing clips in its output),
// so its values are darkroom's divided by that; the two agree within 40 dB over
// the whole image, and dcraw's patches are as neutral.
func TestHighlightsAgainstDcraw(t *testing.T) {
	pix, w, h, x0, y0, side := clippedPhoto(t)
	s := baseSynth()
	b, err := s.Encode(pix, w, h)
	if err != nil {
		t.Fatal(err)
	}
	f, img := decodeBytes(t, b, Options{})
	wb := f.wb()
	k := 1 / max(wb[0], wb[1], wb[2])
	ours := make([]float32, len(img.Pix))
	for i, v := range img.Pix {
		ours[i] = v * k
	}
	d, dw, dh := readTIFF16(t, run(t, "dcraw", "-w", "-H", "2", "-4", "-o", "1", "-q", "3", "-T", "-c", writeTemp(t, "clipped.dng", b)))
	if dw != w || dh != h {
		t.Fatalf("dcraw: %dx%d, darkroom %dx%d", dw, dh, w, h)
	}
	got := psnr(d, ours, w, h, 4)
	t.Logf("dcraw -H 2 against darkroom: %.1f dB", got)
	if got < 40 {
		t.Errorf("PSNR %.1f dB against dcraw -H 2, want >= 40", got)
	}
	for k := range 2 {
		if c := maxChroma(d, w, x0+k*side, y0, side, 4); c > 0.01 {
			t.Errorf("dcraw -H 2's patch %d has chroma %.3f", k, c)
		}
	}
}
