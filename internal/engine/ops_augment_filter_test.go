package engine

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkFilters24MP runs the albumentations filters of ops_augment_filter.go on the
// 24-megapixel photo, the size where a naive median (a sort per pixel) would take
// minutes. scripts/albumentations/bench_filters.py times OpenCV's counterparts
// (cv2.medianBlur at the same kernels, albumentations' Defocus: its disc kernel through
// cv2.filter2D) on the same photo for the ratio.
func BenchmarkFilters24MP(b *testing.B) {
	dec, err := Decode(ioLarge(b), DecodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	src := dec.Image
	long := float64(max(src.W, src.H))
	cases := []struct {
		name string
		op   string
		set  map[string]any
	}{}
	for _, k := range []int{3, 5, 7, 15} {
		cases = append(cases, struct {
			name string
			op   string
			set  map[string]any
		}{fmt.Sprintf("median_blur/k%d", k), "median_blur", map[string]any{"radius": float64(k-1) / 2 / long}})
	}
	for _, r := range []int{4, 10} {
		cases = append(cases, struct {
			name string
			op   string
			set  map[string]any
		}{fmt.Sprintf("defocus/r%d", r), "defocus", map[string]any{"radius": float64(r) / long, "alias_blur": 0.3 / long}})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := opEdit(c.op, opArgs(b, c.op, c.set))
			stop := ioCPUMeter(b)
			for b.Loop() {
				if _, err := Render(src, []Edit{e}, RenderOptions{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// TestFloatKeyOrders: median3x3 compares floatKey's integers, so they must order as
// the floats do (negative values, which a linear image may hold after a tone change,
// included) and give each float back bit for bit.
func TestFloatKeyOrders(t *testing.T) {
	vals := []float32{-3e38, -2, -1, -0.5, -1e-40, 0, 1e-40, 1e-7, 0.25, 0.5, 1, 1.0000001, 7, 3e38}
	for i, v := range vals {
		if back := floatOfKey(floatKey(v)); math.Float32bits(back) != math.Float32bits(v) {
			t.Errorf("floatOfKey(floatKey(%v)) = %v", v, back)
		}
		if i > 0 && floatKey(vals[i-1]) >= floatKey(v) {
			t.Errorf("floatKey(%v) = %d is not below floatKey(%v) = %d", vals[i-1], floatKey(vals[i-1]), v, floatKey(v))
		}
	}
}
