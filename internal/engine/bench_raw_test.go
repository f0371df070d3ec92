package engine

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom/internal/raw"
)

// largeDNG is the 24-megapixel benchmark photo as a DNG, synthesized when first
// needed (never committed): 14-bit lossless JPEG tiles of 256 pixels, as cameras
// and Adobe's converter write them.
var largeDNG = sync.OnceValues(func() ([]byte, error) {
	data, err := os.ReadFile(largePhoto)
	if err != nil {
		return nil, err
	}
	src, err := Decode(data, DecodeOptions{})
	if err != nil {
		return nil, err
	}
	img := src.Image
	s := raw.Synth{
		CFA:         [4]uint8{0, 1, 1, 2},
		ColorMatrix: []float64{0.6444, -0.0904, -0.0893, -0.4563, 1.2308, 0.2535, -0.0903, 0.2016, 0.6728},
		Neutral:     [3]float64{0.4732, 1, 0.6385},
		Black:       []float64{600}, White: 16000, Bits: 14,
		LJ92: true, Tile: 256,
		Make: "Darkroom", Model: "Synth",
	}
	return s.Encode(img.Pix[:3*(img.W&^1)*(img.H&^1)], img.W&^1, img.H&^1)
})

func ioLargeDNG(b *testing.B) (data []byte, path string) {
	ioLarge(b)
	data, err := largeDNG()
	if err != nil {
		b.Fatal(err)
	}
	path = filepath.Join(b.TempDir(), "large.dng")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return data, path
}

// BenchmarkDNG measures a 24-megapixel DNG's two costs beside LibRaw's dcraw_emu on
// the same file in the same run: the full decode (RCD demosaic) written as a 16-bit
// TIFF against dcraw_emu's AHD to a 16-bit TIFF, and the first preview (the 2x2
// binned proxy, resized and encoded at 1024 pixels) against dcraw_emu -h (half
// size, no resize). cpu-ms/op counts the children's CPU for the peers.
// Run alone for a meaningful peak-RSS-MB:
//
//	go test -run '^$' -bench 'DNG' -benchtime 3x ./internal/engine
func BenchmarkDNG(b *testing.B) {
	b.Run("darkroom-full-tiff16", func(b *testing.B) {
		data, _ := ioLargeDNG(b)
		defer ioCPUMeter(b)()
		for b.Loop() {
			if _, err := Export(io.Discard, data, nil, ExportOptions{Encode: EncodeOptions{Format: "tiff"}}); err != nil {
				b.Fatal(err)
			}
		}
		ioReportPeakRSS(b)
	})
	b.Run("darkroom-first-preview", func(b *testing.B) {
		data, path := ioLargeDNG(b)
		out := filepath.Join(filepath.Dir(path), "preview.jpg")
		defer ioCPUMeter(b)()
		for b.Loop() {
			p := NewPreviewer(1 << 30)
			m, err := p.Preview(PreviewRequest{Key: "large", Load: func() ([]byte, error) { return data, nil }, LongEdge: 1024})
			if err != nil {
				b.Fatal(err)
			}
			if err := ioWriteJPEG(out, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, peer := range []struct {
		name string
		args []string
	}{
		{"dcraw_emu-full-tiff16", []string{"-w", "-o", "1", "-4", "-T", "-Z", "-"}},
		{"dcraw_emu-half", []string{"-h", "-w", "-o", "1", "-4", "-T", "-Z", "-"}},
	} {
		b.Run(peer.name, func(b *testing.B) {
			tool, err := exec.LookPath("dcraw_emu")
			if err != nil {
				b.Skip("dcraw_emu is not installed")
			}
			_, path := ioLargeDNG(b)
			cpu0 := childCPU()
			start := time.Now()
			for b.Loop() {
				cmd := exec.Command(tool, append(peer.args, path)...)
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			_ = start
			if b.N > 0 {
				b.ReportMetric(float64(childCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
