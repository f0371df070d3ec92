package raw

import (
	"testing"
)

func xtransSynth() Synth {
	s := baseSynth()
	s.XTrans = FujiXTrans
	return s
}

// TestXTransRoundTrip develops X-Trans DNGs synthesized from a photo and requires
// the known image back: within 35 dB after lin_interpolate (36.9 measured; bilinear
// interpolation loses more than RCD, 46 dB on Bayer) (the photo blurred as
// an anti-aliasing filter would), and the 3x3-binned preview within 30 dB of the
// known image averaged over the same blocks (binning puts each colour's sites at
// a different centre).
func TestXTransRoundTrip(t *testing.T) {
	pix, w, h := photo(t, "coffee.png", 258, 192)
	pix = blur(pix, w, h)
	cases := []struct {
		name string
		mod  func(s *Synth)
	}{
		{"uncompressed strips", func(s *Synth) { s.RowsPerStrip = 16 }},
		{"lj92 tiles", func(s *Synth) { s.LJ92 = true; s.Tile = 96 }},
		{"6x6 black, active area off the pattern's phase, crop", func(s *Synth) {
			s.Black = make([]float64, 36)
			for i := range s.Black {
				s.Black[i] = float64(500 + 3*i)
			}
			s.Margin = 5
			s.Crop = [4]int{4, 7, w - 12, h - 15}
		}},
		{"12-bit lj92 with linearization", func(s *Synth) {
			s.LJ92, s.Bits, s.Linearize, s.White = true, 12, true, 60000
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, b := synthCase(t, xtransSynth(), tc.mod, pix, w, h)
			want, ww, wh := pix, w, h
			if s.Crop[2] > 0 {
				ww, wh = s.Crop[2], s.Crop[3]
				want = make([]float32, 3*ww*wh)
				for y := range wh {
					copy(want[3*y*ww:][:3*ww], pix[3*((y+s.Crop[1])*w+s.Crop[0]):])
				}
			}
			f, img := decodeBytes(t, b, Options{})
			if img.W != ww || img.H != wh {
				t.Fatalf("decoded %dx%d, want %dx%d", img.W, img.H, ww, wh)
			}
			got := psnr(img.Pix, want, ww, wh, 2)
			t.Logf("full: %.1f dB", got)
			if got < 35 {
				t.Errorf("PSNR %.1f dB against the known image, want >= 35", got)
			}
			_, third := decodeBytes(t, b, Options{Half: true})
			tw, th := f.OutSize(true)
			sx, sy := f.xtransPhase()
			if third.W != (ww-sx)/3 || third.H != (wh-sy)/3 || tw != third.W || th != third.H {
				t.Fatalf("binned %dx%d, OutSize %dx%d, want %dx%d", third.W, third.H, tw, th, (ww-sx)/3, (wh-sy)/3)
			}
			box := make([]float32, 3*third.W*third.H)
			for y := range third.H {
				for x := range third.W {
					for c := range 3 {
						var s float32
						for k := range 9 {
							s += want[3*((sy+3*y+k/3)*ww+sx+3*x+k%3)+c]
						}
						box[3*(y*third.W+x)+c] = s / 9
					}
				}
			}
			got = psnr(third.Pix, box, third.W, third.H, 1)
			t.Logf("3x3 binned: %.1f dB", got)
			if got < 40 {
				t.Errorf("binned PSNR %.1f dB against the known image's 3x3 means, want >= 40", got)
			}
		})
	}
}

// TestXTransThird bins 3x3 blocks: where each block is flat, each output pixel
// is exactly its block's colour.
func TestXTransThird(t *testing.T) {
	// Fujifilm's cells start at column 1, row 1 of FujiXTrans's phase.
	w, h := 73, 55
	pix := make([]float32, 3*w*h)
	for y := range h {
		for x := range w {
			v := [3]float32{float32((x+2)/3) / 30, float32((y+2)/3) / 20, 0.2}
			copy(pix[3*(y*w+x):], v[:])
		}
	}
	s := xtransSynth()
	b, err := s.Encode(pix, w, h)
	if err != nil {
		t.Fatal(err)
	}
	f, img := decodeBytes(t, b, Options{Half: true})
	if sx, sy := f.xtransPhase(); sx != 1 || sy != 1 {
		t.Errorf("binning starts at column %d, row %d; want 1, 1", sx, sy)
	}
	if img.W != w/3 || img.H != h/3 {
		t.Fatalf("binned size %dx%d", img.W, img.H)
	}
	want := make([]float32, 3*(w/3)*(h/3))
	for y := range h / 3 {
		for x := range w / 3 {
			copy(want[3*(y*(w/3)+x):][:3], pix[3*((1+3*y)*w+1+3*x):])
		}
	}
	if got := psnr(img.Pix, want, w/3, h/3, 0); got < 55 {
		t.Errorf("binned PSNR %.1f dB, want >= 55", got)
	}
}

// TestXTransAgainstDcraw develops the same synthesized X-Trans DNGs as dcraw and
// LibRaw's dcraw_emu with the options of TestAgainstDcraw (as-shot white balance,
// sRGB, linear 16-bit) and -q 0, their lin_interpolate: within 55 dB of dcraw (59.8-61.2 measured; dcraw
// rounds its weights to 8 bits) and 48 dB of dcraw_emu (51.8-52.4 measured).
func TestXTransAgainstDcraw(t *testing.T) {
	pix, w, h := photo(t, "coffee.png", 258, 192)
	pix = blur(pix, w, h)
	cases := []struct {
		name string
		mod  func(s *Synth)
	}{
		{"uncompressed strips", func(s *Synth) { s.RowsPerStrip = 32 }},
		{"lj92 tiles with active area", func(s *Synth) { s.LJ92 = true; s.Tile = 64; s.Margin = 6 }},
		{"12-bit lj92 strip, linearization, 6x6 black, active area off the pattern's phase", func(s *Synth) {
			s.LJ92, s.Bits, s.Linearize, s.White = true, 12, true, 60000
			s.Margin = 3
			s.Black = make([]float64, 36)
			for i := range s.Black {
				s.Black[i] = float64(500 + 3*i)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, b := synthCase(t, xtransSynth(), tc.mod, pix, w, h)
			path := writeTemp(t, "xtrans.dng", b)
			_, full := decodeBytes(t, b, Options{})
			check := func(what string, out []byte, min float64) {
				d, dw, dh := readTIFF16(t, out)
				if dw != full.W || dh != full.H {
					t.Fatalf("%s: %dx%d, darkroom %dx%d", what, dw, dh, full.W, full.H)
				}
				got := psnr(d, full.Pix, dw, dh, 4)
				t.Logf("%s: %.1f dB", what, got)
				if got < min {
					t.Errorf("%s: PSNR %.1f dB, want >= %.0f", what, got, min)
				}
			}
			check("dcraw -q 0", run(t, "dcraw", "-w", "-4", "-o", "1", "-q", "0", "-T", "-c", path), 55)
			check("dcraw_emu -q 0", run(t, "dcraw_emu", "-w", "-4", "-o", "1", "-q", "0", "-T", "-Z", "-", path), 48)
		})
	}
}

// BenchmarkXTrans develops a 24-megapixel X-Trans DNG (the sample photo tiled,
// 14-bit lossless JPEG tiles) beside LibRaw's dcraw_emu on the same file in the
// same run: the full decode (lin_interpolate) against dcraw_emu -q 0 (its
// lin_interpolate) to a 16-bit TIFF, and the 3x3-binned preview decode against
// dcraw_emu -h. darkroom's figures exclude encoding; dcraw_emu's include its
// process start and TIFF writing.
//
//	go test -run '^$' -bench XTrans -benchtime 3x ./internal/raw
func BenchmarkXTrans(b *testing.B) {
	pix, w, h := photo(b, "coffee.png", 1000, 1000)
	const W, H = 6000, 4002
	big := make([]float32, 3*W*H)
	for y := range H {
		for x := range W {
			// Tiled with mirrored copies, so that tile edges stay continuous.
			sx, sy := x%(2*w), y%(2*h)
			if sx >= w {
				sx = 2*w - 1 - sx
			}
			if sy >= h {
				sy = 2*h - 1 - sy
			}
			copy(big[3*(y*W+x):][:3], pix[3*(sy*w+sx):])
		}
	}
	s := xtransSynth()
	s.LJ92, s.Tile, s.Bits, s.White, s.Black = true, 256, 14, 16000, []float64{600}
	data, err := s.Encode(big, W, H)
	if err != nil {
		b.Fatal(err)
	}
	path := writeTemp(b, "xtrans.dng", data)
	for _, half := range []bool{false, true} {
		name := "darkroom-full"
		if half {
			name = "darkroom-binned"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				f, err := Probe(data, 1<<30)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Decode(Options{Half: half}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, peer := range []struct{ name, opt string }{{"dcraw_emu-q0", "-q"}, {"dcraw_emu-half", "-h"}} {
		b.Run(peer.name, func(b *testing.B) {
			args := []string{"-w", "-o", "1", "-4", "-T", "-Z", "-"}
			if peer.opt == "-q" {
				args = append(args, "-q", "0")
			} else {
				args = append(args, "-h")
			}
			for b.Loop() {
				run(b, "dcraw_emu", append(args, path)...)
			}
		})
	}
}
