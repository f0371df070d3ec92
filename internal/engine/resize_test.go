package engine

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFitLongEdge(t *testing.T) {
	tests := []struct {
		w, h, long   int
		wantW, wantH int
	}{
		{6000, 4000, 1024, 1024, 683},
		{4000, 6000, 1024, 683, 1024},
		{640, 427, 2048, 2048, 1366},
		{1000, 1000, 10, 10, 10},
		{10000, 1, 100, 100, 1}, // never rounds to zero
		{1, 10000, 100, 1, 100},
		{0, 10, 100, 0, 10},
	}
	for _, tt := range tests {
		w, h := FitLongEdge(tt.w, tt.h, tt.long)
		if w != tt.wantW || h != tt.wantH {
			t.Errorf("FitLongEdge(%d, %d, %d) = %d, %d, want %d, %d", tt.w, tt.h, tt.long, w, h, tt.wantW, tt.wantH)
		}
	}
}

func ioFlat(w, h int, c [3]float32) *Image {
	m := NewImage(w, h)
	for i := 0; i < len(m.Pix); i += 3 {
		copy(m.Pix[i:], c[:])
	}
	return m
}

func TestResizeSizesAndFlatStaysFlat(t *testing.T) {
	c := [3]float32{0.2, 0.5, 0.9}
	tests := []struct{ w, h, toW, toH int }{
		{640, 427, 320, 213},
		{640, 427, 100, 67},
		{640, 427, 1000, 667}, // up
		{640, 427, 640, 100},  // one axis only
		{640, 427, 17, 640},
		{3, 2, 1, 1},
		{1, 1, 5, 7},
		{7, 5, 7, 5},
	}
	for _, tt := range tests {
		out := Resize(ioFlat(tt.w, tt.h, c), tt.toW, tt.toH)
		if out.W != tt.toW || out.H != tt.toH || len(out.Pix) != 3*tt.toW*tt.toH {
			t.Errorf("%dx%d to %dx%d gave %dx%d with %d values", tt.w, tt.h, tt.toW, tt.toH, out.W, out.H, len(out.Pix))
			continue
		}
		for i, v := range out.Pix {
			if math.Abs(float64(v-c[i%3])) > 1e-5 {
				t.Errorf("%dx%d to %dx%d: value %d is %g, want %g", tt.w, tt.h, tt.toW, tt.toH, i, v, c[i%3])
				break
			}
		}
	}
}

// Shrinking a one-pixel checkerboard must average it to grey; a filter that samples
// without widening its kernel aliases it into a pattern of near-black and near-white.
func TestResizeAntialiases(t *testing.T) {
	for _, size := range [][2]int{{64, 64}, {100, 37}, {31, 97}} {
		m := NewImage(256, 256)
		for y := range m.H {
			for x := range m.W {
				if (x+y)%2 == 0 {
					i := 3 * (y*m.W + x)
					m.Pix[i], m.Pix[i+1], m.Pix[i+2] = 1, 1, 1
				}
			}
		}
		out := Resize(m, size[0], size[1])
		for i, v := range out.Pix {
			if math.Abs(float64(v)-0.5) > 0.02 {
				t.Errorf("to %dx%d: value %d is %g, want 0.5", size[0], size[1], i, v)
				break
			}
		}
	}
}

// Downscaling a smooth ramp keeps it a ramp: each output is the input at its centre.
func TestResizeRampStaysInPlace(t *testing.T) {
	m := NewImage(400, 3)
	for y := range m.H {
		for x := range m.W {
			for c := range 3 {
				m.Pix[3*(y*m.W+x)+c] = (float32(x) + 0.5) / 400
			}
		}
	}
	out := Resize(m, 100, 3)
	// Away from the edges (where border replication bends it), output x is centred
	// on input 4x+1.5, whose value is (4x+2)/400.
	for x := 5; x < 95; x++ {
		want := (4*float64(x) + 2) / 400
		if got := float64(out.Pix[3*(out.W+x)]); math.Abs(got-want) > 1e-4 {
			t.Errorf("x=%d: %g, want %g", x, got, want)
		}
	}
}

func TestResizeSameSizeIsACopy(t *testing.T) {
	m := ioDecode(t, "io/small.png").Image
	out := Resize(m, m.W, m.H)
	if diff := cmp.Diff(m.Pix, out.Pix); diff != "" {
		t.Errorf("same-size resize changed pixels:\n%s", diff)
	}
	out.Pix[0] = 7
	if m.Pix[0] == 7 {
		t.Error("same-size resize returned the source's memory")
	}
}

func TestResizeClipsRingingBelowZero(t *testing.T) {
	// A bright bar on black rings below zero beside it with Lanczos.
	m := NewImage(64, 1)
	for x := 30; x < 34; x++ {
		m.Pix[3*x], m.Pix[3*x+1], m.Pix[3*x+2] = 1, 1, 1
	}
	for _, w := range []int{16, 200} {
		for i, v := range Resize(m, w, 1).Pix {
			if v < 0 {
				t.Errorf("to %d: value %d is %g", w, i, v)
			}
		}
	}
}

func TestLanczosWeightsSumToOne(t *testing.T) {
	for _, c := range [][2]int{{6000, 1024}, {1024, 6000}, {5, 3}, {3, 5}, {1, 9}, {9, 1}, {100, 100}} {
		ws := lanczosWeights(c[0], c[1])
		for o, tp := range ws.taps {
			var sum float64
			for _, k := range ws.w[tp.off : tp.off+tp.n] {
				sum += float64(k)
			}
			if math.Abs(sum-1) > 1e-5 || tp.start < 0 || int(tp.start+tp.n) > c[0] {
				t.Errorf("%d to %d, output %d: weights sum to %g over [%d, %d)", c[0], c[1], o, sum, tp.start, tp.start+tp.n)
				break
			}
		}
	}
}
