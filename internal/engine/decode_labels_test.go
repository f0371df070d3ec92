package engine

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/pngbomb"
)

// headerBombPNG is a PNG of about a hundred bytes whose header declares w x h pixels
// of the colour type (0 grey, 2 truecolour, 6 RGBA) and depth: its one IDAT chunk
// holds a few bytes, so only a decoder that trusts the header allocates its size.
func headerBombPNG(w, h int, colourType, depth byte) []byte {
	return pngbomb.PNG(w, h, colourType, depth, pngbomb.OneByteIDAT)
}

func greyPNG(t *testing.T, w, h int, m color.Model) []byte {
	t.Helper()
	var img image.Image
	switch m {
	case color.Gray16Model:
		img = image.NewGray16(image.Rect(0, 0, w, h))
	case color.RGBAModel:
		img = image.NewRGBA(image.Rect(0, 0, w, h))
	default:
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = uint8(i % 7)
		}
		img = g
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every label mask is read header first: a mask that declares a huge image, another
// size than the image's, or colours is refused before a pixel is allocated (the
// 60000x60000 RGBA16 one would need 28.8 GB, which the runtime cannot recover from);
// one that fits decodes to its labels.
func TestDecodeLabelMask(t *testing.T) {
	bomb := headerBombPNG(60000, 60000, 6, 16)
	if len(bomb) > 100 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	for _, c := range []struct {
		name string
		data []byte
		w, h int
		code string
	}{
		{"bomb beside a small image", bomb, 40, 30, darkroom.InvalidInput},
		{"bomb beside a bomb", bomb, 60000, 60000, darkroom.LimitExceeded},
		{"grey bomb matching its image", headerBombPNG(20000, 20000, 0, 16), 20000, 20000, darkroom.LimitExceeded},
		{"wrong size", greyPNG(t, 41, 30, color.GrayModel), 40, 30, darkroom.InvalidInput},
		{"colour", greyPNG(t, 40, 30, color.RGBAModel), 40, 30, darkroom.InvalidInput},
		{"not a PNG", []byte("just text, not an image"), 40, 30, darkroom.InvalidInput},
		{"truncated", greyPNG(t, 40, 30, color.GrayModel)[:60], 40, 30, darkroom.InvalidInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			// With a 64 MiB budget, the 20000x20000 16-bit grey mask (800 MB for
			// its decoder) is refused by the budget, not decoded.
			defer setTestBudget(DefaultDecodeBudget)
			setTestBudget(64 << 20)
			_, err := DecodeLabelMask(c.data, c.w, c.h, DecodeOptions{})
			if darkroom.Code(err) != c.code {
				t.Fatalf("DecodeLabelMask: %v, want %s", err, c.code)
			}
		})
	}
	m, err := DecodeLabelMask(greyPNG(t, 40, 30, color.GrayModel), 40, 30, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, ok := m.(*image.Gray)
	if !ok || g.Bounds().Dx() != 40 || g.Pix[13] != 13%7 {
		t.Errorf("decoded %T %v, want the 40x30 grey labels", m, m.Bounds())
	}
	if used := budgetUsed(); used != 0 {
		t.Errorf("%d bytes of the budget held after the decodes", used)
	}
}

// ReadHeader gives the size, upright size and decoder cost from the header alone.
func TestReadHeader(t *testing.T) {
	h, err := ReadHeader(headerBombPNG(6000, 4000, 6, 16), 0)
	if err != nil {
		t.Fatal(err)
	}
	if h.Format != "png" || h.Width != 6000 || h.Height != 4000 || h.UprightWidth != 6000 || h.DecodeBytes != 8*6000*4000 {
		t.Errorf("header %+v", h)
	}
	if h.DecodeCost() != 8*6000*4000+12*6000*4000 {
		t.Errorf("DecodeCost %d", h.DecodeCost())
	}
	if _, err := ReadHeader(headerBombPNG(60000, 60000, 6, 16), 0); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("ReadHeader of 3.6 gigapixels: %v, want limit_exceeded", err)
	}
}

// A reservation holds budget that decodes and other reservations then wait for; a
// decode inside a reservation that covers it takes nothing more.
func TestReserve(t *testing.T) {
	defer SetDecodeBudget(0, 0)
	SetDecodeBudget(100<<20, 0)
	data := bombPNG(t, 1000, 1000, 8) // 3 MB decoder, 12 MB float
	h, err := ReadHeader(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Reserve(context.Background(), "test", "a working set", 90<<20)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Decode(data, DecodeOptions{Context: ctx}); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("Decode beside a 90 MiB reservation under 100 MiB: %v, want limit_exceeded", err)
	}
	if _, err := Reserve(context.Background(), "test", "a second working set", 101<<20); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("Reserve over the budget: %v, want limit_exceeded", err)
	}
	if _, err := Decode(data, DecodeOptions{Context: ctx, Reserved: h.DecodeCost()}); err != nil {
		t.Errorf("Decode inside its reservation: %v", err)
	}
	if used := budgetUsed(); used != 90<<20 {
		t.Errorf("%d bytes held, want the reservation's %d", used, 90<<20)
	}
	r.Release()
	r.Release()
	if used := budgetUsed(); used != 0 {
		t.Errorf("%d bytes held after Release", used)
	}
}

func budgetUsed() int64 {
	decodeBudget.mu.Lock()
	defer decodeBudget.mu.Unlock()
	return decodeBudget.used
}
