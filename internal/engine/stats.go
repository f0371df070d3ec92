package engine

import "math"

// Pixel statistics the editing layer asks of a rendered image: the mean brightness
// behind ingest's template suggestion, and the grey card's patch.

// MeanDisplayLuma is the mean over img of the sRGB-encoded Rec. 709 luminance: the
// brightness a viewer judges exposure by.
func MeanDisplayLuma(img *Image) float64 {
	var sum float64
	for i := 0; i+2 < len(img.Pix); i += 3 {
		l := 0.2126*img.Pix[i] + 0.7152*img.Pix[i+1] + 0.0722*img.Pix[i+2]
		sum += float64(LinearToSRGB(min(max(l, 0), 1)))
	}
	return sum / float64(img.W*img.H)
}

// SamplePatch returns the mean linear RGB of img over the disc at (x, y) (fractions
// of the width and height) of radius r (a fraction of the long edge), and the share
// of its pixels with a channel at or above clipLevel. A disc smaller than a pixel samples the
// pixel under (x, y).
func SamplePatch(img *Image, x, y, r float64, clipLevel float32) ([3]float64, float64) {
	cx, cy := x*float64(img.W), y*float64(img.H)
	rp := r * float64(max(img.W, img.H))
	var sum [3]float64
	n, clipped := 0, 0
	add := func(px, py int) {
		i := 3 * (py*img.W + px)
		c := img.Pix[i : i+3]
		for k := range 3 {
			sum[k] += float64(c[k])
		}
		if max(c[0], c[1], c[2]) >= clipLevel {
			clipped++
		}
		n++
	}
	for py := max(int(cy-rp), 0); py <= min(int(cy+rp), img.H-1); py++ {
		for px := max(int(cx-rp), 0); px <= min(int(cx+rp), img.W-1); px++ {
			if math.Hypot(float64(px)+0.5-cx, float64(py)+0.5-cy) <= rp {
				add(px, py)
			}
		}
	}
	if n == 0 {
		add(min(int(cx), img.W-1), min(int(cy), img.H-1))
	}
	for k := range sum {
		sum[k] /= float64(n)
	}
	return sum, float64(clipped) / float64(n)
}
