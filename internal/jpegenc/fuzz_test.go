package jpegenc

import (
	"image"
	"testing"
)

// FuzzEncode builds a 4:2:0 image from the fuzz input and checks that Encode
// writes exactly what image/jpeg writes. The first bytes choose the size (up
// to 80x80), the quality, the origin (negative and odd origins included) and
// a margin of parent image around a SubImage; the rest is cycled through the
// planes as sample values.
func FuzzEncode(f *testing.F) {
	f.Add([]byte{0, 0, 75, 0, 0, 0})
	f.Add([]byte{15, 16, 90, 1, 3, 1, 0xff, 0x00, 0x80, 0x7f})
	f.Add([]byte{32, 31, 100, 0x81, 0x7f, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 250, 251})
	f.Add([]byte{79, 5, 1, 0xf1, 0x0e, 3, 0, 255, 0, 255, 0, 255, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 6 {
			return
		}
		w := 1 + int(data[0])%80
		h := 1 + int(data[1])%80
		quality := 1 + int(data[2])%100
		ox := int(int8(data[3])) % 20
		oy := int(int8(data[4])) % 20
		margin := int(data[5]) % 4
		content := data[6:]

		r := image.Rect(ox, oy, ox+w, oy+h)
		parent := image.NewYCbCr(r.Inset(-margin), image.YCbCrSubsampleRatio420)
		if len(content) > 0 {
			k := 0
			for _, p := range [][]byte{parent.Y, parent.Cb, parent.Cr} {
				for i := range p {
					p[i] = content[k%len(content)]
					k++
				}
			}
		}
		m := parent.SubImage(r).(*image.YCbCr)
		if m.Rect != r {
			t.Fatalf("SubImage(%v) = %v", r, m.Rect)
		}
		checkSame(t, m, quality)
	})
}
