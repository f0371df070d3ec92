package engine

// Each fast path of a hot loop (an AVX loop, an inlined sampler, a loop for one
// layout) against the general code it stands for: the same bits, or a test fails.

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"
)

// withSwitch runs fn with the loops a switch (useAVX, useAVX2, ...) chooses on or
// off, and restores it.
func withSwitch(sw *bool, on bool, fn func()) {
	was := *sw
	*sw = on
	defer func() { *sw = was }()
	fn()
}

// withAVX runs fn with tapSum's AVX loop on or off.
func withAVX(t *testing.T, on bool, fn func()) { withSwitch(&useAVX, on, fn) }

// withAVX512 runs fn with tapSum's AVX-512 loop on or off.
func withAVX512(t *testing.T, on bool, fn func()) { withSwitch(&useAVX512, on, fn) }

// sameBits reports whether a and b hold the same float32 values bit for bit (any NaN
// matching any NaN: products of a NaN keep no payload a reader relies on).
func sameBits(a, b []float32) (int, bool) {
	for i := range a {
		x, y := a[i], b[i]
		if x != x && y != y {
			continue
		}
		if math.Float32bits(x) != math.Float32bits(y) {
			return i, false
		}
	}
	return -1, len(a) == len(b)
}

// The AVX loops make the very bits the Go loop makes, for every length (the
// AVX-512 loop's blocks of 128 and 16, the AVX loop's of 64 and 8, and the Go
// tail), every kernel length and offsets in any order, on values that round
// differently with every change of order: products and sums of float32 are not
// associative, so a loop that reordered or fused them would show.
func TestTapSumAVXMatchesGo(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX on this CPU or architecture: tapSum runs only its Go loop")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]float32, 4096)
	for i := range src {
		switch rng.IntN(40) {
		case 0:
			src[i] = float32(math.Inf(1 - 2*rng.IntN(2)))
		case 1:
			src[i] = float32(math.NaN())
		case 2:
			src[i] = float32(math.Copysign(0, -1))
		case 3:
			src[i] = 3e38 * (rng.Float32() - 0.5)
		default:
			src[i] = float32(rng.NormFloat64()) * float32(math.Pow(10, float64(rng.IntN(9)-4)))
		}
	}
	for trial := range 400 {
		n := rng.IntN(300)
		if trial%50 == 0 {
			n = 2000 + rng.IntN(1000)
		}
		ntap := 1 + rng.IntN(25)
		k := make([]float32, ntap)
		off := make([]int, ntap)
		for i := range k {
			k[i] = float32(rng.NormFloat64())
			off[i] = rng.IntN(len(src) - n + 1)
		}
		got, want := make([]float32, n), make([]float32, n)
		withAVX(t, false, func() { tapSum(want, src, off, k) })
		for _, wide := range []bool{false, true} {
			if wide && !useAVX512 {
				continue
			}
			withAVX512(t, wide, func() { withAVX(t, true, func() { tapSum(got, src, off, k) }) })
			if i, ok := sameBits(got, want); !ok {
				t.Fatalf("trial %d (n %d, %d taps, AVX-512 %v): output %d is %v with AVX, %v in Go", trial, n, ntap, wide, i, got[i], want[i])
			}
		}
	}
}

// A tap that reaches past its source is refused before any memory is read.
func TestTapSumRefusesOutOfRange(t *testing.T) {
	src := make([]float32, 64)
	for _, off := range [][]int{{-1}, {57}, {0, 60}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("offsets %v: no panic for a tap beyond a source of 64 with 8 outputs", off)
				}
			}()
			k := make([]float32, len(off))
			tapSum(make([]float32, 8), src, off, k)
		}()
	}
}

// A gaussian blur of a photo is the same with the AVX loop as without, edges
// included (they run in Go either way, the interior in one or the other).
func TestGaussianSameWithAVX(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX on this CPU or architecture")
	}
	src := opPhoto(t, "chelsea")
	for _, sigma := range []float64{0.7, 1.5, 4} {
		var got, want []float32
		for _, on := range []bool{true, false} {
			dst := make([]float32, len(src.Pix))
			withAVX(t, on, func() {
				gaussian(dst, src.Pix, make([]float32, len(src.Pix)), src.W, src.H, 3, sigma)
			})
			if on {
				got = dst
			} else {
				want = dst
			}
		}
		if i, ok := sameBits(got, want); !ok {
			t.Fatalf("sigma %v: value %d is %v with AVX, %v in Go", sigma, i, got[i], want[i])
		}
	}
}

// A bilinear warp's inlined interior makes what sampleLinearRect makes, pixel for
// pixel, in every border mode, over maps that reach past every edge.
func TestWarpBilinearMatchesSampler(t *testing.T) {
	src := opPhoto(t, "coffee")
	for _, mode := range []string{"constant", "reflect", "edge"} {
		for _, deg := range []float64{10, -33, 90.5} {
			sin, cos := math.Sincos(deg * math.Pi / 180)
			to := func(x, y float64) (float64, float64) {
				px, py := 1.1*(x-float64(src.W)/2), 1.1*(y-float64(src.H)/2)
				return cos*px + sin*py + float64(src.W)/2 + 7.3, -sin*px + cos*py + float64(src.H)/2
			}
			g := &warpInfo{inW: src.W, inH: src.H, mode: mode, linear: true, bilinear: true, to: to}
			got := make([]float32, len(src.Pix))
			g.render(got, src.W, src, 0, 0, 0, src.H, 0, src.W)
			// A block of columns and rows, from the rectangle of the input it
			// reads, makes those pixels of the whole.
			c0, c1, a, b := 100, 356, 50, 120
			x0, y0, x1, y1 := g.bounds(a, b, c0, c1)
			in := &Image{W: x1 - x0, H: y1 - y0, Pix: make([]float32, 3*(x1-x0)*(y1-y0))}
			for y := y0; y < y1; y++ {
				copy(in.Pix[3*(y-y0)*in.W:], src.Pix[3*(y*src.W+x0):3*(y*src.W+x1)])
			}
			block := make([]float32, 3*(c1-c0)*(b-a))
			g.render(block, c1-c0, in, x0, y0, a, b, c0, c1)
			for y := a; y < b; y++ {
				if i, ok := sameBits(block[3*(y-a)*(c1-c0):3*(y-a+1)*(c1-c0)], got[3*(y*src.W+c0):3*(y*src.W+c1)]); !ok {
					t.Fatalf("%s, %v degrees: the block's row %d differs from the whole's at %d", mode, deg, y, i)
				}
			}
			clamp := mode != "constant"
			for y := range src.H {
				for x := range src.W {
					sx, sy := to(float64(x)+0.5, float64(y)+0.5)
					sx, sy = sx-0.5, sy-0.5
					if mode == "reflect" {
						sx, sy = reflectCoord(sx, src.W), reflectCoord(sy, src.H)
					}
					r, g, b := sampleLinearRect(src, 0, 0, src.W, src.H, sx, sy, clamp, false, false)
					i := 3 * (y*src.W + x)
					if _, ok := sameBits(got[i:i+3], []float32{r, g, b}); !ok {
						t.Fatalf("%s, %v degrees: pixel (%d, %d) is %v, the sampler says %v", mode, deg, x, y, got[i:i+3], []float32{r, g, b})
					}
				}
			}
		}
	}
}

// The YCbCr row converters (the 4:4:4 and pair fast paths and the general loop) give
// what the standard library's At gives, through the sRGB table, at every subsampling
// the test files carry, on whole images and on sub-images that start at odd columns.
func TestYCbCrConvMatchesAt(t *testing.T) {
	files, _ := filepath.Glob("testdata/io/*.jpg")
	more, _ := filepath.Glob("../jpegdec/testdata/*.jpg")
	files = append(files, more...)
	ratios := map[image.YCbCrSubsampleRatio]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			continue // CMYK, broken or oversized inputs: not this converter's
		}
		full, ok := m.(*image.YCbCr)
		if !ok {
			continue
		}
		ratios[full.SubsampleRatio] = true
		b := full.Bounds()
		for _, r := range []image.Rectangle{b, image.Rect(b.Min.X+3, b.Min.Y+1, b.Max.X-2, b.Max.Y)} {
			sub := full.SubImage(r).(*image.YCbCr)
			conv := ycbcrConv(sub, nil, new(atomic.Bool))
			row := make([]float32, 3*r.Dx())
			for y := range r.Dy() {
				conv(y, row)
				for x := range r.Dx() {
					cr, cg, cb, _ := sub.At(r.Min.X+x, r.Min.Y+y).RGBA()
					want := []float32{lin8[cr>>8], lin8[cg>>8], lin8[cb>>8]}
					if _, ok := sameBits(row[3*x:3*x+3], want); !ok {
						t.Fatalf("%s %v: pixel (%d, %d) is %v, At gives %v", f, r, x, y, row[3*x:3*x+3], want)
					}
				}
			}
		}
	}
	for _, r := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio420} {
		if !ratios[r] {
			t.Errorf("no test file with subsampling %v", r)
		}
	}
}

// withAVX2 runs fn with the AVX2 loops on or off.
func withAVX2(t *testing.T, on bool, fn func()) { withSwitch(&useAVX2, on, fn) }

// withAVX512BW runs fn with the encoder's AVX-512 loop on or off.
func withAVX512BW(t *testing.T, on bool, fn func()) { withSwitch(&useAVX512BW, on, fn) }

// The encoder's colour conversion makes the same luma and chroma with its AVX-512
// and AVX2 loops as in Go, on values every branch of quant8 takes (NaN, below 0,
// above 1, the table's ends) and on widths that leave every kind of remainder.
func TestYCbCr420RowsAVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU or architecture")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -1, -1e-9, 0, 1e-9,
		1.0 / 65535, 0.5 / 65535, 0.999999, 1, 1.0000001, 3e38, -3e38, float32(math.Copysign(0, -1))}
	for trial := range 300 {
		w, h := 1+rng.IntN(70), 1+rng.IntN(5)
		if trial%30 == 0 {
			w = 1000 + rng.IntN(50)
		}
		band := NewImage(w, h)
		for i := range band.Pix {
			if rng.IntN(10) == 0 {
				band.Pix[i] = special[rng.IntN(len(special))]
			} else {
				band.Pix[i] = rng.Float32()
			}
		}
		mw := w + rng.IntN(2)
		rows := h + rng.IntN(2)
		ms := ycbcrEachWay(t, band, mw, rows)
		for k, loop := range []string{"AVX-512", "AVX2"} {
			if !bytes.Equal(ms[k].Y, ms[2].Y) || !bytes.Equal(ms[k].Cb, ms[2].Cb) || !bytes.Equal(ms[k].Cr, ms[2].Cr) {
				t.Fatalf("trial %d (%dx%d into %dx%d): the %s loop's planes differ from Go's", trial, w, h, mw, rows, loop)
			}
		}
	}
}

// ycbcrEachWay converts band with ycbcr420Rows into an mw x rows image with the
// AVX-512 loop, with the AVX2 loop, and in Go.
func ycbcrEachWay(t *testing.T, band *Image, mw, rows int) [3]*image.YCbCr {
	var ms [3]*image.YCbCr
	for k, on := range [][2]bool{{true, true}, {true, false}, {false, false}} {
		m := image.NewYCbCr(image.Rect(0, 0, mw, rows), image.YCbCrSubsampleRatio420)
		sums := make([]int32, 2*((mw+1)/2))
		withAVX2(t, on[0], func() {
			withAVX512BW(t, on[1], func() { ycbcr420Rows(band, m, rows, sums) })
		})
		ms[k] = m
	}
	return ms
}

// The AVX-512 loop's search gives srgb8 at every one of its 65536 indexes, and at
// values either side of the rounding between two: grey pixels (r = g = b) whose luma
// is the table's level itself.
func TestSRGB8SearchEveryIndex(t *testing.T) {
	if !useAVX2 || !useAVX512BW || srgb8Search() == nil {
		t.Skip("no AVX-512 BW on this CPU or architecture")
	}
	const w = 1024
	var vals []float32
	for i := range 65536 {
		vals = append(vals, float32(i)/65535, (float32(i)-0.499)/65535, (float32(i)+0.499)/65535)
	}
	band := NewImage(w, (len(vals)+w-1)/w)
	for i := range band.W * band.H {
		v := vals[min(i, len(vals)-1)]
		band.Pix[3*i], band.Pix[3*i+1], band.Pix[3*i+2] = v, v, v
	}
	ms := ycbcrEachWay(t, band, w, band.H)
	tab := srgb8()
	for i, v := range vals {
		if got, want := ms[0].Y[i], quant8(tab, v); got != want {
			t.Fatalf("value %v (index %d): the search gives level %d, srgb8 %d", v, int(v*65535+0.5), got, want)
		}
	}
	if !bytes.Equal(ms[0].Y, ms[2].Y) || !bytes.Equal(ms[0].Cb, ms[2].Cb) || !bytes.Equal(ms[0].Cr, ms[2].Cr) {
		t.Fatal("the AVX-512 loop's planes differ from Go's")
	}
}

// A photo encodes to the same JPEG bytes with the AVX2 loop as without.
func TestJPEGSameWithAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU or architecture")
	}
	src := opPhoto(t, "astronaut")
	var files [2][]byte
	for k, on := range []bool{true, false} {
		var buf bytes.Buffer
		withAVX2(t, on, func() {
			if err := Encode(&buf, src, EncodeOptions{Format: "jpeg", Quality: 90}); err != nil {
				t.Fatal(err)
			}
		})
		files[k] = buf.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatalf("the JPEG differs with AVX2 (%d bytes) and without (%d bytes)", len(files[0]), len(files[1]))
	}
}

// The decoder's row converters give the same floats with their AVX2 and AVX-512
// loops as in Go, for random bytes (every clamp8 branch is reached: luma and
// chroma run the whole byte range) and every remainder of the width.
func TestYCbCrRowsAVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU or architecture")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for w := 1; w < 90; w++ {
		yrow, cb, cr := make([]uint8, w), make([]uint8, w), make([]uint8, w)
		for _, b := range [][]uint8{yrow, cb, cr} {
			for i := range b {
				b[i] = uint8(rng.IntN(256))
			}
		}
		for _, conv := range []struct {
			name string
			fn   func(dst []float32, yrow, cb, cr []uint8)
		}{{"full", ycbcrFull}, {"pairs", ycbcrPairs}} {
			want := make([]float32, 3*w)
			withAVX2(t, false, func() { conv.fn(want, yrow, cb, cr) })
			for _, wide := range []bool{false, true} {
				if wide && !useAVX512VBMI {
					continue
				}
				got := make([]float32, 3*w)
				withSwitch(&useAVX512VBMI, wide, func() { withAVX2(t, true, func() { conv.fn(got, yrow, cb, cr) }) })
				if i, ok := sameBits(got, want); !ok {
					t.Fatalf("%s, width %d: value %d is %v with AVX2 (AVX-512 %v), %v in Go", conv.name, w, i, got[i], wide, want[i])
				}
			}
		}
	}
}

// warp_amd64.s reads affineParams by offset.
func TestAffineParamsLayout(t *testing.T) {
	var p affineParams
	for _, f := range []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"ox", unsafe.Offsetof(p.ox), 0}, {"a", unsafe.Offsetof(p.a), 16}, {"bpy", unsafe.Offsetof(p.bpy), 32},
		{"e", unsafe.Offsetof(p.e), 48}, {"fwm1", unsafe.Offsetof(p.fwm1), 64}, {"fw", unsafe.Offsetof(p.fw), 80},
		{"x0", unsafe.Offsetof(p.x0), 96}, {"lim", unsafe.Offsetof(p.lim), 120}, {"clamp", unsafe.Offsetof(p.clamp), 128},
		{"xm", unsafe.Offsetof(p.xm), 136}, {"ym", unsafe.Offsetof(p.ym), 144}, {"ahead", unsafe.Offsetof(p.ahead), 152},
	} {
		if f.got != f.want {
			t.Errorf("affineParams.%s at offset %d, the assembly reads it at %d", f.name, f.got, f.want)
		}
	}
}

// A bilinear affine warp (rotate, affine) gives the same pixels with its AVX2 loop,
// and with its AVX-512 loop, as with the Go loop and as sampleLinearRect, in each
// border mode, for maps that rotate, shear, scale and shift past every edge, on
// whole images and on blocks read from a rectangle of the input; sampling its input
// mirrored, it gives the warp of the flipped image, with each loop.
func TestWarpAffineAVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU or architecture")
	}
	for _, wide := range []bool{false, true} {
		name := "AVX2"
		if wide {
			if !useAVX512 {
				t.Log("no AVX-512 on this CPU: its warp loop is not tested")
				continue
			}
			name = "AVX-512"
		}
		t.Run(name, func(t *testing.T) {
			withAVX512(t, wide, func() { testWarpAffineLoop(t) })
		})
	}
}

// testWarpAffineLoop is TestWarpAffineAVX2MatchesGo for the loop the switches choose.
func testWarpAffineLoop(t *testing.T) {
	src := opPhoto(t, "chelsea")
	W, H := float64(src.W), float64(src.H)
	maps := []affine{
		{ox: W / 2, oy: H / 2, a: math.Cos(0.17), b: math.Sin(0.17), e: W / 2, c: -math.Sin(0.17), d: math.Cos(0.17), f: H / 2},
		{ox: W / 2, ox2: 31.7, oy: H / 2, oy2: -12.25, a: 0.8, b: 0.3, e: W / 2, c: -0.2, d: 1.3, f: H / 2},
		{ox: W / 2, oy: H / 2, a: -1, b: 0, e: W / 2, c: 0, d: 1, f: H / 2}, // a mirror: positions on exact pixel centres
		{ox: 0, oy: 0, a: 2.5, b: 0, e: -100, c: 0, d: 2.5, f: -60},
	}
	// The same image flipped each way: a warp that samples src mirrored must give
	// the pixels of the unmirrored warp of these.
	flipped := make([]*Image, 4)
	for fl := range flipped {
		flipped[fl] = flipSpec(src.W, src.H, fl&1 != 0, fl&2 != 0).whole(nil, src)
	}
	for mi, m := range maps {
		for _, mode := range []string{"constant", "edge", "reflect"} {
			for fl := 1; fl < 4; fl++ {
				g := &warpInfo{inW: src.W, inH: src.H, mode: mode, linear: true, bilinear: true, aff: &m, to: m.at, flipH: fl&1 != 0, flipV: fl&2 != 0}
				plain := &warpInfo{inW: src.W, inH: src.H, mode: mode, linear: true, bilinear: true, aff: &m, to: m.at}
				for _, on := range []bool{true, false} {
					got, want := make([]float32, len(src.Pix)), make([]float32, len(src.Pix))
					withAVX2(t, on, func() {
						g.render(got, src.W, src, 0, 0, 0, src.H, 0, src.W)
						plain.render(want, src.W, flipped[fl], 0, 0, 0, src.H, 0, src.W)
					})
					if i, ok := sameBits(got, want); !ok {
						t.Fatalf("map %d, %s, flip %d, AVX2 %v: value %d is %v sampled mirrored, %v from the flipped image", mi, mode, fl, on, i, got[i], want[i])
					}
				}
			}
			g := &warpInfo{inW: src.W, inH: src.H, mode: mode, linear: true, bilinear: true, aff: &m, to: m.at}
			var got, want []float32
			for _, on := range []bool{true, false} {
				out := make([]float32, len(src.Pix))
				withAVX2(t, on, func() { g.render(out, src.W, src, 0, 0, 0, src.H, 0, src.W) })
				if on {
					got = out
				} else {
					want = out
				}
			}
			if i, ok := sameBits(got, want); !ok {
				t.Fatalf("map %d, %s: value %d is %v with AVX2, %v in Go", mi, mode, i, got[i], want[i])
			}
			if mi == 0 && mode != "reflect" {
				// The AVX2 loop does sample: a middle row of a small rotation
				// leaves it only the groups near the edges.
				r := newAffineRows(g, src, 0, 0, src.W)
				n := src.W &^ 3
				if left := len(r.row(make([]float32, 3*src.W), src, src.H/2, 0, n)); left > n/4/4 {
					t.Fatalf("%s: the AVX2 loop left %d of %d groups of a middle row", mode, left, n/4)
				}
			}
			for y := range src.H {
				for x := range src.W {
					sx, sy := m.at(float64(x)+0.5, float64(y)+0.5)
					sx, sy = sx-0.5, sy-0.5
					if mode == "reflect" {
						sx, sy = reflectCoord(sx, src.W), reflectCoord(sy, src.H)
					}
					r, gg, b := sampleLinearRect(src, 0, 0, src.W, src.H, sx, sy, mode != "constant", g.flipH, g.flipV)
					i := 3 * (y*src.W + x)
					if _, ok := sameBits(got[i:i+3], []float32{r, gg, b}); !ok {
						t.Fatalf("map %d, %s: pixel (%d, %d) is %v, the sampler says %v", mi, mode, x, y, got[i:i+3], []float32{r, gg, b})
					}
				}
			}
			// Blocks 253 pixels wide (a last group of four after the groups of
			// eight) and 256, written with a gap after each row that must stay
			// as it was: the loops write nothing past a block's row.
			for _, c1 := range []int{290, 293} {
				c0, a, b := 37, 20, 90
				x0, y0, x1, y1 := g.bounds(a, b, c0, c1)
				if x1 <= x0 || y1 <= y0 {
					continue
				}
				in := &Image{W: x1 - x0, H: y1 - y0, Pix: make([]float32, 3*(x1-x0)*(y1-y0))}
				for y := y0; y < y1; y++ {
					copy(in.Pix[3*(y-y0)*in.W:], src.Pix[3*(y*src.W+x0):3*(y*src.W+x1)])
				}
				stride := c1 - c0 + 1
				block := make([]float32, 3*stride*(b-a))
				for i := range block {
					block[i] = -7
				}
				g.render(block, stride, in, x0, y0, a, b, c0, c1)
				for y := a; y < b; y++ {
					r := block[3*(y-a)*stride : 3*(y-a+1)*stride]
					if i, ok := sameBits(r[:3*(c1-c0)], got[3*(y*src.W+c0):3*(y*src.W+c1)]); !ok {
						t.Fatalf("map %d, %s: the block's row %d differs from the whole's at %d", mi, mode, y, i)
					}
					if gap := r[3*(c1-c0):]; gap[0] != -7 || gap[1] != -7 || gap[2] != -7 {
						t.Fatalf("map %d, %s: the block's row %d wrote %v past its end", mi, mode, y, gap)
					}
				}
			}
		}
	}
}

// A tone table applied with AVX2, or AVX-512, gives what at gives, on values of every magnitude
// the table has bins for and past both of its ends, NaN, infinities and -0 among
// them.
func TestLUTApplyAVX2MatchesAt(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU or architecture")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	s := make([]float32, 5003)
	for i := range s {
		switch rng.IntN(12) {
		case 0:
			s[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, 1e-45, 3e38}[rng.IntN(7)]
		case 1:
			s[i] = -rng.Float32() * 4
		default:
			s[i] = float32(math.Ldexp(rng.Float64(), rng.IntN(40)-26))
		}
	}
	// The table's ends: bin 0 and its neighbour, the last bin, and past it.
	for _, e := range []float64{0x1p-20, 0x1p12, 0x1p12 * (1 + 1.0/128), 0x1p13, 1} {
		f := float32(e)
		s = append(s, f, math.Nextafter32(f, 0), math.Nextafter32(f, 1e30), -f)
	}
	for name, lut := range map[string]*fnLUT{
		"contrast": newFnLUT(func(v float64) float64 { return math.Pow(max(v, 0), 1.3) }),
		"encode":   encLUT,
	} {
		for _, wide := range []bool{false, true} {
			if wide && !useAVX512 {
				t.Log("no AVX-512 on this CPU: its table loop is not tested")
				continue
			}
			got := make([]float32, len(s))
			withAVX512(t, wide, func() { withAVX2(t, true, func() { lut.apply(got, s) }) })
			for i, v := range s {
				if want := lut.at(v); !(math.Float32bits(got[i]) == math.Float32bits(want) || (got[i] != got[i] && want != want)) {
					t.Fatalf("%s: f(%v) is %v with AVX2 (AVX-512 %v), at says %v", name, v, got[i], wide, want)
				}
			}
		}
	}
}

// A mirrored row is the same with the AVX2 loop as without, and is the row
// mirrored, at every width remainder.
func TestFlipRowAVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for w := 1; w < 100; w++ {
		s := make([]float32, 3*w)
		for i := range s {
			s[i] = rng.Float32()
		}
		for _, on := range []bool{true, false} {
			d := make([]float32, 3*w)
			withAVX2(t, on && useAVX2, func() { flipRow(d, s, w) })
			for x := range w {
				if *(*[3]float32)(d[3*x:]) != *(*[3]float32)(s[3*(w-1-x):]) {
					t.Fatalf("width %d, AVX2 %v: pixel %d is %v, want source pixel %d %v", w, on && useAVX2, x, d[3*x:3*x+3], w-1-x, s[3*(w-1-x):3*(w-x)])
				}
			}
		}
	}
}

// The AVX scaling loop gives the Go loop's products, in place too, at every length
// and for values whose products round, overflow, underflow or are not numbers.
func TestScaleAVX(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < 80; n++ {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(math.Ldexp(rng.Float64()-0.3, rng.IntN(300)-150))
			if rng.IntN(20) == 0 {
				s[i] = []float32{float32(math.NaN()), float32(math.Inf(-1)), 3e38, 1e-45}[rng.IntN(4)]
			}
		}
		for _, k := range []float32{1.4142135, 0.7071, 3e20, 1e-30} {
			want := make([]float32, n)
			withAVX(t, false, func() { scaleValues(want, s, k) })
			got := make([]float32, n)
			withAVX(t, true, func() { scaleValues(got, s, k) })
			if i, ok := sameBits(got, want); !ok {
				t.Fatalf("n %d k %v: value %d is %v with AVX, %v in Go", n, k, i, got[i], want[i])
			}
			in := slices.Clone(s)
			withAVX(t, true, func() { scaleValues(in, in, k) })
			if i, ok := sameBits(in, want); !ok {
				t.Fatalf("n %d k %v in place: value %d is %v, %v in Go", n, k, i, in[i], want[i])
			}
		}
	}
}
