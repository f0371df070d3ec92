package raw

import (
	"bytes"
	"testing"
)

// FuzzDNG feeds mutated DNGs through Probe and Decode (full and half): whatever
// the bytes, an error or an image, never a panic or a hang.
//
//	go test ./internal/raw -run '^$' -fuzz FuzzDNG -fuzztime 60s
func FuzzDNG(f *testing.F) {
	for _, mod := range []func(s *Synth){
		nil,
		func(s *Synth) { s.LJ92 = true; s.Tile = 16 },
		func(s *Synth) { s.Bits = 12; s.BigEndian = true; s.Linearize = true; s.Margin = 2 },
		func(s *Synth) { s.Linear = true; s.LJ92 = true },
		func(s *Synth) { s.Opcodes = true; s.Black = []float64{10, 20, 30, 40}; s.DeltaH = 1 },
		func(s *Synth) { s.XTrans = FujiXTrans; s.LJ92 = true; s.Margin = 3 },
		func(s *Synth) {
			s.XTrans = FujiXTrans
			s.Black = make([]float64, 36)
			s.Black[7] = 9
			s.Crop = [4]int{1, 2, 11, 7}
		},
	} {
		f.Add(smallFuzz(mod))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Probe(b, 1<<18)
		if err != nil {
			return
		}
		for _, half := range []bool{false, true} {
			img, err := file.Decode(Options{Half: half})
			if err == nil {
				w, h := file.OutSize(half)
				if img.W != w || img.H != h || len(img.Pix) != 3*w*h {
					t.Fatalf("image %dx%d (%d values), OutSize %dx%d", img.W, img.H, len(img.Pix), w, h)
				}
			}
		}
	})
}

// FuzzLJ92 feeds mutated lossless JPEG streams to the decoder.
func FuzzLJ92(f *testing.F) {
	s := make([]uint16, 16*8*2)
	for i := range s {
		s[i] = uint16(i * 977)
	}
	f.Add(encodeLJ92(s, 16, 8, 2, 16))
	f.Add(encodeLJ92(s[:16*8], 16, 8, 1, 12))
	f.Add(encodeLJ92(s[:15*8], 5, 8, 3, 14))
	f.Fuzz(func(t *testing.T, b []byte) {
		j, err := parseLJ92(b)
		if err != nil || j.w*j.h > 1<<16 {
			return
		}
		rows := 0
		_ = j.decode(func(y int, s []uint16) {
			if y != rows || len(s) != j.w*j.comps {
				t.Fatalf("row %d of %d samples, want row %d of %d", y, len(s), rows, j.w*j.comps)
			}
			rows++
		})
	})
}

// TestLJ92RoundTrip: the encoder Synth uses and the decoder agree exactly, for
// every component count and precision.
func TestLJ92RoundTrip(t *testing.T) {
	for _, c := range []struct{ w, h, comps, prec int }{{16, 8, 2, 16}, {7, 5, 3, 14}, {33, 3, 1, 12}, {4, 4, 4, 8}} {
		s := make([]uint16, c.w*c.h*c.comps)
		for i := range s {
			s[i] = uint16((i*7919 + i*i*31) % (1 << c.prec))
		}
		j, err := parseLJ92(encodeLJ92(s, c.w, c.h, c.comps, c.prec))
		if err != nil {
			t.Fatal(err)
		}
		var got []uint16
		if err := j.decode(func(_ int, r []uint16) { got = append(got, r...) }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(u16bytes(got), u16bytes(s)) {
			t.Errorf("%+v: decoded samples differ", c)
		}
	}
}

func u16bytes(s []uint16) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8))
	}
	return b
}

func smallFuzz(mod func(s *Synth)) []byte {
	w, h := 24, 16
	pix := make([]float32, 3*w*h)
	for i := range pix {
		pix[i] = float32(i%53) / 60
	}
	s := baseSynth()
	if mod != nil {
		mod(&s)
	}
	b, err := s.Encode(pix, w, h)
	if err != nil {
		panic(err)
	}
	return b
}
