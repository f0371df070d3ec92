package engine

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// largePhoto is the shared 24-megapixel benchmark photo. It stays outside the
// repository (DARKROOM_BENCH_PHOTO names it when the checkout is elsewhere, as
// scripts/bench-peers.sh does); benchmarks that need it skip when it is absent.
var largePhoto = cmp.Or(os.Getenv("DARKROOM_BENCH_PHOTO"), filepath.Join("..", "..", "..", "shared", "testdata", "photos", "large-24mp.jpg"))

func ioLarge(b *testing.B) []byte {
	data, err := os.ReadFile(largePhoto)
	if err != nil {
		b.Skipf("no benchmark photo: %v", err)
	}
	return data
}

// ioReportPeakRSS reports the process's peak resident memory (Linux VmHWM), which is
// what /usr/bin/time calls maximum resident set size. It is the peak of the whole
// test process, so it means something when the benchmark runs alone.
func ioReportPeakRSS(b *testing.B) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err == nil {
				b.ReportMetric(float64(kb)/1024, "peak-RSS-MB")
			}
		}
	}
}

// ioCPUMeter reports, when stopped, the process's CPU time per iteration as
// cpu-ms/op: with cores shared with other work, wall time says more about the
// machine's load than about the code.
func ioCPUMeter(b *testing.B) func() {
	start, ok := ioProcessCPU()
	return func() {
		if end, ok2 := ioProcessCPU(); ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/1e6/float64(b.N), "cpu-ms/op")
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"rocket.jpg", "rocket-orient6.jpg", "io/progressive.jpg", "chelsea.png", "io/rgb16.png", "io/rgb16.tif", "io/lossy.webp"} {
		data := ioFixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Decode(data, DecodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("large-24mp/full", func(b *testing.B) {
		data := ioLarge(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(data, DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("large-24mp/proxy", func(b *testing.B) {
		data := ioLarge(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(data, DecodeOptions{MaxLongEdge: DefaultProxyLongEdge}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkResize(b *testing.B) {
	rocket := ioDecode(b, "rocket.jpg").Image
	proxy := Resize(rocket, 2048, 1366) // the size of a 3:2 photo's proxy
	tests := []struct {
		name string
		src  *Image
		w, h int
	}{
		{"640x427-to-320x213", rocket, 320, 213},
		{"640x427-to-1280x854", rocket, 1280, 854},
		{"2048x1366-to-1024x683", proxy, 1024, 683},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Resize(tt.src, tt.w, tt.h)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	img := ioDecode(b, "rocket.jpg").Image
	for _, opt := range []EncodeOptions{
		{Format: "jpeg", Quality: 90},
		{Format: "png", Depth: 8},
		{Format: "png", Depth: 16},
		{Format: "tiff"},
	} {
		b.Run(opt.Format+strconv.Itoa(max(opt.Quality, opt.Depth)), func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := Encode(&buf, img, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPreviewAfterEdit is the agent's loop: the photo is already ingested (its
// proxy cached) and an edit changed one value; render a 1024-pixel preview with five
// operations, one masked. "image" stops at the rendered pixels, "jpeg" also encodes
// the preview file the agent receives (as vipsthumbnail writes one).
func BenchmarkPreviewAfterEdit(b *testing.B) {
	data := ioLarge(b)
	p := NewPreviewer(1 << 30)
	load := func() ([]byte, error) { return data, nil }
	edits := ioFiveEdits(b)
	if _, err := p.Preview(PreviewRequest{Key: "large", Load: load, Edits: edits, LongEdge: 1024}); err != nil {
		b.Fatal(err)
	}
	for _, encode := range []bool{false, true} {
		name := "image"
		if encode {
			name = "jpeg"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			defer ioCPUMeter(b)()
			i := 0
			for b.Loop() {
				i++
				edits[0].Args["ev"] = 0.1 * float64(i%10) // the edit
				m, err := p.Preview(PreviewRequest{Key: "large", Load: load, Edits: edits, LongEdge: 1024})
				if err != nil {
					b.Fatal(err)
				}
				if encode {
					if err := Encode(io.Discard, m, EncodeOptions{Format: "jpeg", Quality: 90}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkFirstPreview is a new photo's first look: read and decode it, make the
// proxy, render the five operations at 1024 pixels and write the JPEG.
func BenchmarkFirstPreview(b *testing.B) {
	ioLarge(b)
	edits := ioFiveEdits(b)
	out := filepath.Join(b.TempDir(), "preview.jpg")
	b.ReportAllocs()
	defer ioCPUMeter(b)()
	for b.Loop() {
		p := NewPreviewer(1 << 30)
		m, err := p.Preview(PreviewRequest{Key: "large", Load: func() ([]byte, error) { return os.ReadFile(largePhoto) }, Edits: edits, LongEdge: 1024})
		if err != nil {
			b.Fatal(err)
		}
		if err := ioWriteJPEG(out, m, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExport renders the five operations on the full 24 megapixels and writes a
// quality 90 JPEG with the source's EXIF. Run it alone for a meaningful peak-RSS-MB.
func BenchmarkExport(b *testing.B) {
	ioLarge(b)
	edits := ioFiveEdits(b)
	out := filepath.Join(b.TempDir(), "export.jpg")
	b.ReportAllocs()
	defer ioCPUMeter(b)()
	for b.Loop() {
		data, err := os.ReadFile(largePhoto)
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Export(f, data, edits, ExportOptions{Encode: EncodeOptions{Format: "jpeg", Quality: 90}}); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	ioReportPeakRSS(b)
}

func ioWriteJPEG(path string, m *Image, exif []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Encode(f, m, EncodeOptions{Format: "jpeg", Quality: 90, EXIF: exif}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchStreamCases are the exports of the streaming benchmarks (make bench), the
// same edits scripts/bench-peers.sh passes to the CLI.
func benchStreamCases(b testing.TB) map[string][]Edit {
	e := func(op string, set map[string]any) Edit { return opEdit(op, opArgs(b, op, set)) }
	sharpen := e("sharpen", map[string]any{"amount": 1.0, "radius": 0.0002})
	heals := []Edit{e("exposure", map[string]any{"ev": 0.3}), sharpen}
	for i := range 3 {
		heals = append(heals, spotEdit("heal", 0.025, 0, &Mask{Shape: &Shape{Kind: "ellipse",
			Center: [2]float64{0.2 + 0.3*float64(i), 0.3 + 0.2*float64(i)}, RadiusX: 0.01, RadiusY: 0.01, Feather: 0.004}}))
	}
	return map[string][]Edit{
		"exposure+sharpen+3 heals": heals,
		"exposure+sharpen":         {e("exposure", map[string]any{"ev": 0.3}), sharpen},
		"five+grain":               append(ioFiveEdits(b), e("grain", map[string]any{"amount": 0.5})),
		"exposure+sharpen+clarity": {e("exposure", map[string]any{"ev": 0.3}), sharpen,
			e("clarity", map[string]any{"amount": 0.4})},
		"exposure+clarity+denoise": {e("exposure", map[string]any{"ev": 0.3}),
			e("clarity", map[string]any{"amount": 0.4}), e("denoise", map[string]any{"amount": 0.5})},
		"crop+rotate+sharpen": {e("crop", map[string]any{"left": 0.05, "right": 0.05, "top": 0.05, "bottom": 0.05}),
			e("rotate", map[string]any{"angle": 3.0}), sharpen},
		"augment": {e("flip", map[string]any{"horizontal": true}), e("affine", map[string]any{"scale": 1.1, "angle": 10.0}),
			e("blur", map[string]any{"radius": 0.0005}), e("contrast", map[string]any{"amount": 0.2})},
	}
}

// BenchmarkExportStream exports the full 24 megapixels to a quality 90 JPEG with
// each of the streaming benchmarks' edits. Run one case alone for a meaningful
// peak-RSS-MB.
func BenchmarkExportStream(b *testing.B) {
	data := ioLarge(b)
	for name, edits := range benchStreamCases(b) {
		b.Run(name, func(b *testing.B) {
			defer ioCPUMeter(b)()
			for b.Loop() {
				if _, err := Export(io.Discard, data, edits, ExportOptions{Encode: EncodeOptions{Format: "jpeg", Quality: 90}}); err != nil {
					b.Fatal(err)
				}
			}
			ioReportPeakRSS(b)
		})
	}
}
