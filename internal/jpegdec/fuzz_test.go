package jpegdec

import (
	"bytes"
	"image/jpeg"
	"testing"
)

// FuzzDecode decodes arbitrary input at every scale. At scale 1 the result
// (image or error) must be image/jpeg's; at other scales the error must be
// the same and the image consistent. Nothing may panic, and a recovered
// panic (an internal error) is a failure too.
func FuzzDecode(f *testing.F) {
	fx := allFixtures(f)
	for _, name := range sortedNames(fx) {
		b := fx[name]
		if len(b) > 20000 {
			continue
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[:len(b)-3])
		for seed := range uint64(3) {
			f.Add(mutate(b, seed))
		}
	}

	// Small inputs make the fuzzer's mutations and minimization cheaper.
	gen := generated(f)
	for _, name := range sortedNames(gen) {
		if b := gen[name]; len(b) < 2000 {
			f.Add(b)
			f.Add(mutate(b, 7))
		}
	}

	f.Fuzz(func(t *testing.T, b []byte) {
		// Like image/jpeg's own fuzz test, skip what would take long
		// (Decode does not limit the image size, its callers do). The
		// worker goroutines are exercised on small images too, with tiny
		// batches.
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
		if err == nil && cfg.Width*cfg.Height > 1<<18 {
			return
		}
		want, werr, panicked := stdDecode(bytes.NewReader(b))
		if panicked {
			return
		}
		got, _, gerr := decodeWith(b, 1, defaultConfig())
		if isInternal(gerr) {
			t.Fatalf("scale 1: %v", gerr)
		}
		if errString(gerr) != errString(werr) {
			t.Fatalf("scale 1: error %q, image/jpeg: %q", errString(gerr), errString(werr))
		}
		if werr == nil {
			if err := sameImage(got, want); err != nil {
				t.Fatalf("scale 1: %v", err)
			}
		}
		for i, s := range []int{2, 4, 8} {
			m, _, err := decodeWith(b, s, configs[i%len(configs)].cfg)
			if isInternal(err) {
				t.Fatalf("scale %d: %v", s, err)
			}
			if errString(err) != errString(werr) {
				t.Fatalf("scale %d: error %q, at scale 1: %q", s, errString(err), errString(werr))
			}
			if err == nil {
				r := want.Bounds()
				if err := checkConsistent(m, (r.Dx()+s-1)/s, (r.Dy()+s-1)/s, false); err != nil {
					t.Fatalf("scale %d: %v", s, err)
				}
			}
		}
	})
}
