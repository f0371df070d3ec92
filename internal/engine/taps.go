package engine

// tapSum writes to dst[j], for every j, the sum over taps i in order of
// k[i]*src[off[i]+j], accumulated from zero one product at a time: the inner loop of
// the separable convolutions (each tap an input row at its offset). Every offset
// must leave room for len(dst) values of src.
//
// Where the CPU has AVX (see simd_amd64.go), eight outputs are made at once (sixteen
// with AVX-512) by the same float32 products and sums in the same order, so the
// values are the same bits on every machine.
func tapSum(dst, src []float32, off []int, k []float32) {
	n := len(dst)
	if len(off) != len(k) || len(k) == 0 {
		panic("engine: tapSum: offsets and kernel differ in length")
	}
	for _, o := range off {
		if o < 0 || o+n > len(src) {
			panic("engine: tapSum: a tap reaches outside its source")
		}
	}
	m := 0
	if useAVX && useAVX512 && n >= 16 { // turning AVX off turns both off
		m = n &^ 15
		tapSumAVX512(&dst[0], m, &src[0], &off[0], &k[0], len(k))
	}
	if useAVX && n-m >= 8 {
		c := (n - m) &^ 7
		tapSumAVX(&dst[m], c, &src[m], &off[0], &k[0], len(k))
		m += c
	}
	tapSumGo(dst[m:], src, off, k, m)
}

// tapSumGo is tapSum for outputs from j0 on, dst starting at output j0.
func tapSumGo(dst, src []float32, off []int, k []float32, j0 int) {
	for j := range dst {
		var s float32
		for i, kv := range k {
			s += kv * src[off[i]+j0+j]
		}
		dst[j] = s
	}
}
