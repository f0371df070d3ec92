package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// opNoisePlane returns a w x h x nc plane of seeded values in [0, 1).
func opNoisePlane(w, h, nc int, seed uint64) []float32 {
	v := make([]float32, w*h*nc)
	for i := range v {
		v[i] = float32(uniform(mix64(seed + uint64(i)*golden)))
	}
	return v
}

func TestMinFilterMatchesBruteForce(t *testing.T) {
	const w, h = 37, 23
	src := opNoisePlane(w, h, 1, 1)
	for _, r := range []int{1, 2, 5, 12, 30} {
		want := make([]float32, w*h)
		for y := range h {
			for x := range w {
				m := float32(math.Inf(1))
				for yy := max(y-r, 0); yy <= min(y+r, h-1); yy++ {
					for xx := max(x-r, 0); xx <= min(x+r, w-1); xx++ {
						m = min(m, src[yy*w+xx])
					}
				}
				want[y*w+x] = m
			}
		}
		got := make([]float32, w*h)
		minFilter(nil, got, src, w, h, r)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("radius %d (-want +got):\n%s", r, diff)
		}
	}
}

func TestBoxBlurMatchesBruteForce(t *testing.T) {
	const w, h, nc = 29, 17, 3
	src := opNoisePlane(w, h, nc, 2)
	for _, r := range []int{1, 4, 20} {
		want := make([]float32, len(src))
		n := float64((2*r + 1) * (2*r + 1))
		for y := range h {
			for x := range w {
				for c := range nc {
					var s float64
					for dy := -r; dy <= r; dy++ {
						for dx := -r; dx <= r; dx++ {
							yy, xx := min(max(y+dy, 0), h-1), min(max(x+dx, 0), w-1)
							s += float64(src[(yy*w+xx)*nc+c])
						}
					}
					want[(y*w+x)*nc+c] = float32(s / n)
				}
			}
		}
		got, tmp := make([]float32, len(src)), make([]float32, len(src))
		boxBlur(got, src, tmp, w, h, nc, r)
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-5)); diff != "" {
			t.Errorf("radius %d (-want +got):\n%s", r, diff)
		}
	}
}

// The blur of a single bright pixel keeps its energy and spreads it with the requested
// deviation, on both the exact-kernel and the box-cascade paths.
func TestGaussianSpread(t *testing.T) {
	const w, h = 161, 161
	for _, sigma := range []float64{0.8, 1.4, 3, 10, 25} {
		src := make([]float32, w*h)
		src[80*w+80] = 1
		got, tmp := make([]float32, w*h), make([]float32, w*h)
		gaussian(got, src, tmp, w, h, 1, sigma)
		var sum, vx, sq float64
		for y := range h {
			for x := range w {
				v := float64(got[y*w+x])
				sum += v
				vx += v * float64((x-80)*(x-80))
				sq += v * v
			}
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Errorf("sigma %v: weights add up to %v", sigma, sum)
		}
		if sd := math.Sqrt(vx / sum); math.Abs(sd-sigma)/sigma > 0.05 {
			t.Errorf("sigma %v: spread %v", sigma, sd)
		}
		if want := gaussianNorm2(sigma); math.Abs(sq-want)/want > 1e-3 {
			t.Errorf("sigma %v: sum of squared weights %v, gaussianNorm2 says %v", sigma, sq, want)
		}
	}
}

func TestTransposeRoundTrip(t *testing.T) {
	for _, nc := range []int{1, 3, 2} {
		const w, h = 70, 33
		src := opNoisePlane(w, h, nc, 3)
		tr, back := make([]float32, len(src)), make([]float32, len(src))
		transpose(tr, src, w, h, nc)
		if tr[(5*h+7)*nc] != src[(7*w+5)*nc] {
			t.Errorf("nc %d: transpose misplaces (5, 7)", nc)
		}
		transpose(back, tr, h, w, nc)
		if diff := cmp.Diff(src, back); diff != "" {
			t.Errorf("nc %d: transposing twice (-want +got):\n%s", nc, diff)
		}
	}
}

// The subsampled guided filter stays close to the full one.
func TestGuidedFilterSubsampled(t *testing.T) {
	img := opPhoto(t, "chelsea")
	w, h := img.W, img.H
	guide := make([]float32, w*h)
	for p := range guide {
		guide[p] = toDisp(luma(img.Pix[3*p], img.Pix[3*p+1], img.Pix[3*p+2]))
	}
	full, fast := make([]float32, w*h), make([]float32, w*h)
	guidedFilter(nil, full, guide, guide, w, h, 1, 8, 0.002, 1)
	guidedFilter(nil, fast, guide, guide, w, h, 1, 8, 0.002, 2)
	var d, e float64
	for i := range full {
		d += math.Abs(float64(full[i] - fast[i]))
		e += math.Abs(float64(full[i] - guide[i]))
	}
	if d > e/3 {
		t.Errorf("subsampled guided filter differs by %v on average; the filter itself changes the image by %v", d/float64(len(full)), e/float64(len(full)))
	}
}

// normal16 over all 65536 inputs: mean 0, variance 1, gaussian tails.
func TestNormal16(t *testing.T) {
	var m1, m2, m4 float64
	for u := range uint64(1 << 16) {
		v := float64(normal16(u))
		m1 += v
		m2 += v * v
		m4 += v * v * v * v
	}
	n := float64(1 << 16)
	m1, m2, m4 = m1/n, m2/n, m4/n
	if math.Abs(m1) > 1e-3 || math.Abs(m2-1) > 1e-3 || math.Abs(m4/(m2*m2)-3) > 0.05 {
		t.Errorf("normal16: mean %v, variance %v, kurtosis %v; want 0, 1, 3", m1, m2, m4/(m2*m2))
	}
	if a, b := normal16(0x1234), normal16(0x1234|0xffff0000); a != b {
		t.Errorf("normal16 reads bits above the low 16: %v vs %v", a, b)
	}
}

// The subsampled wide gaussian spreads a point by the requested sigma, like the exact
// one, and matches it on a photo.
func TestGaussianLargeMatchesGaussian(t *testing.T) {
	const w, h = 241, 241
	for _, sigma := range []float64{8, 12.5, 30} {
		src := make([]float32, w*h)
		src[120*w+120] = 1
		got := make([]float32, w*h)
		gaussianLarge(nil, got, src, w, h, 1, sigma)
		var sum, vx float64
		for y := range h {
			for x := range w {
				v := float64(got[y*w+x])
				sum += v
				vx += v * float64((x-120)*(x-120))
			}
		}
		if sd := math.Sqrt(vx / sum); math.Abs(sum-1) > 1e-3 || math.Abs(sd-sigma)/sigma > 0.05 {
			t.Errorf("sigma %v: weights add up to %v, spread %v", sigma, sum, sd)
		}
	}
	img := opPhoto(t, "coffee")
	exact, fast, tmp := make([]float32, len(img.Pix)), make([]float32, len(img.Pix)), make([]float32, len(img.Pix))
	gaussian(exact, img.Pix, tmp, img.W, img.H, 3, 16)
	gaussianLarge(nil, fast, img.Pix, img.W, img.H, 3, 16)
	// Near the border the two repeat different edge values (a row against the mean of
	// a block of rows), so only the mean difference is tight.
	var d, sum float64
	for i := range exact {
		e := math.Abs(float64(exact[i] - fast[i]))
		d, sum = max(d, e), sum+e
	}
	if mean := sum / float64(len(exact)); mean > 0.001 || d > 0.05 {
		t.Errorf("subsampled gaussian differs from the full one by %v on average, %v at most", mean, d)
	}
}

// convH sums exactly as a clamped index does: the same taps in the same order, bit
// for bit, at the edges (padded copies) and inside (the row itself), for rows
// narrower than the kernel and one or three channels.
func TestConvHMatchesClampedSum(t *testing.T) {
	const h = 5
	for _, w := range []int{1, 2, 5, 9, 37, 140} {
		for _, nc := range []int{1, 3} {
			src := make([]float32, nc*w*h)
			for i := range src {
				src[i] = float32(math.Sin(float64(i)*0.7)*0.5 + 0.5)
			}
			for _, sigma := range []float64{0.4, 0.9, 1.5, 3} {
				k := gaussKernel(sigma)
				got := make([]float32, len(src))
				convH(got, src, w, h, nc, k)
				r := len(k) / 2
				for y := range h {
					for x := range w {
						for c := range nc {
							var s float32
							for i, kv := range k {
								xx := min(max(x+i-r, 0), w-1)
								s += kv * src[nc*(y*w+xx)+c]
							}
							if g := got[nc*(y*w+x)+c]; math.Float32bits(g) != math.Float32bits(s) {
								t.Fatalf("width %d, %d channels, sigma %v: (%d, %d) channel %d is %v, the clamped sum %v", w, nc, sigma, x, y, c, g, s)
							}
						}
					}
				}
			}
		}
	}
}

// convHV, the blur without a scratch image, makes the very bits convH then convV
// make, for images narrower and shorter than the kernel, one or three channels, and
// row ranges split across goroutines (each starts its ring afresh).
func TestConvHVMatchesTwoPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range [][2]int{{1, 1}, {3, 2}, {2, 9}, {7, 50}, {50, 7}, {257, 129}, {64, 700}} {
		for _, nc := range []int{1, 3} {
			w, h := size[0], size[1]
			src := make([]float32, w*h*nc)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			for _, sigma := range []float64{0.3, 0.8, 1.5} {
				k := gaussKernel(sigma)
				tmp, want, got := make([]float32, len(src)), make([]float32, len(src)), make([]float32, len(src))
				convH(tmp, src, w, h, nc, k)
				convV(want, tmp, w, h, nc, k)
				convHV(got, src, w, h, nc, k)
				if i, ok := sameBits(got, want); !ok {
					t.Fatalf("%dx%d, %d channels, sigma %v: value %d is %v, two passes give %v", w, h, nc, sigma, i, got[i], want[i])
				}
			}
		}
	}
}
