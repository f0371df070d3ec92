package engine

import (
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// ReadHeader of a DNG gives the size Decode develops (DefaultCrop applied, upright
// after Orientation), not the stored raw's nor IFD0's: a dataset's labels and a
// caller's memory reservation are computed from it before any pixel is decoded.
func TestReadHeaderDNG(t *testing.T) {
	known := Resize(rawPhoto(t), 160, 120)
	for _, o := range []int{1, 6} {
		b := synthDNG(t, known, func(s *raw.Synth) {
			s.Orientation = o
			s.Margin = 8
			s.Crop = [4]int{6, 4, 140, 100}
		})
		hd, err := ReadHeader(b, 0)
		if err != nil {
			t.Fatalf("orientation %d: %v", o, err)
		}
		src, err := Decode(b, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if hd.Format != "dng" || hd.UprightWidth != src.Width || hd.UprightHeight != src.Height {
			t.Errorf("orientation %d: header says %s %dx%d upright, Decode gives %dx%d", o, hd.Format, hd.UprightWidth, hd.UprightHeight, src.Width, src.Height)
		}
		if hd.Width != 140 || hd.Height != 100 {
			t.Errorf("orientation %d: stored size %dx%d, want the DefaultCrop's 140x100", o, hd.Width, hd.Height)
		}
		if hd.DecodeCost() < FloatBytes(src.Width, src.Height) {
			t.Errorf("orientation %d: decode cost %d is below the developed image's %d bytes", o, hd.DecodeCost(), FloatBytes(src.Width, src.Height))
		}
	}
}
