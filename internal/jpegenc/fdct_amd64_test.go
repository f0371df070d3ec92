//go:build amd64 && !purego

package jpegenc

import "testing"

// TestQuantizeAVX2Exhaustive checks the AVX2 quantizer against image/jpeg's
// div for every divisor image/jpeg can use (8*q for q in [1, 255]) and every
// dividend in [-2^15, 2^15], four times the FDCT's output range, in every
// lane.
func TestQuantizeAVX2Exhaustive(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	var zq [blockSize]byte
	for q := 1; q <= 255; q++ {
		for i := range zq {
			zq[i] = byte(q)
		}
		var qt quantTable
		qt.init(&zq)
		d := int32(8 * q)
		var src, dst block
		a := int32(-1 << 15)
		for a <= 1<<15 {
			for i := range src {
				src[i] = min(a, 1<<15)
				a++
			}
			quantAsm(&dst, &src, &qt)
			for i, v := range dst {
				if want := div(src[i], d); v != want {
					t.Fatalf("AVX2 quantize(%d, %d) in lane %d = %d, want %d", src[i], d, i, v, want)
				}
			}
		}
	}
}
