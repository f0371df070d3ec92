//go:build !amd64 || purego

package jpegdec

// haveSIMD is false: only amd64 has an assembly inverse DCT.
const haveSIMD = false

// idctStoreSIMD transforms b (idct, in place) and stores it (storePix). It
// is not called where there is no assembly (useSIMD is false).
func idctStoreSIMD(b *block, dst []byte, stride int) {
	idct(b)
	storePix(b, dst, stride)
}
