//go:build !amd64 || purego

package jpegenc

// haveAVX2 is false: this build has no assembly FDCT.
const haveAVX2 = false

// useAVX2 would select the AVX2 FDCT (see fdct_amd64.go).
var useAVX2 = false

// fdctQuantAVX2 exists only in amd64 builds without the purego tag.
func fdctQuantAVX2(b *block, src []byte, off, stride int, qt *quantTable) uint64 {
	panic("jpegenc: no AVX2 FDCT in this build")
}
