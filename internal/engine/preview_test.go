package engine

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// ioFiveEdits are the benchmark's five operations, one of them masked, with complete
// arguments (opArgs fills the catalog defaults).
func ioFiveEdits(t testing.TB) []Edit {
	return []Edit{
		{Op: "exposure", Args: opArgs(t, "exposure", map[string]any{"ev": 0.4}), Strength: 1},
		{Op: "white_balance", Args: opArgs(t, "white_balance", map[string]any{"temperature": 800.0, "tint": 0.1}), Strength: 1},
		{Op: "contrast", Args: opArgs(t, "contrast", map[string]any{"amount": 0.3}), Strength: 1},
		{Op: "saturation", Args: opArgs(t, "saturation", map[string]any{"amount": 0.4}), Strength: 0.8,
			Mask: &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.45}, RadiusX: 0.3, RadiusY: 0.25, Feather: 0.05}}},
		{Op: "vignette", Args: opArgs(t, "vignette", map[string]any{"amount": -0.4}), Strength: 1},
	}
}

func ioCountingLoader(t testing.TB, name string, calls *atomic.Int32) Loader {
	data := ioFixture(t, name)
	return func() ([]byte, error) {
		calls.Add(1)
		return data, nil
	}
}

func TestPreviewDecodesOnce(t *testing.T) {
	p := NewPreviewer(256 << 20)
	var calls atomic.Int32
	load := ioCountingLoader(t, "rocket.jpg", &calls)
	edits := ioFiveEdits(t)
	// Concurrent first requests share one decode.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := p.Preview(PreviewRequest{Key: "rocket", Load: load, Edits: edits[:i%5+1], LongEdge: 300}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, long := range []int{300, 200, 0} {
		if _, err := p.Preview(PreviewRequest{Key: "rocket", Load: load, Edits: edits, LongEdge: long}); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("loader called %d times, want 1", n)
	}
	// Another key is another source.
	if _, err := p.Preview(PreviewRequest{Key: "other", Load: load}); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("loader called %d times after a second key, want 2", n)
	}
}

// A preview is the export scaled down: operations work in fractions of the image, so
// rendering on a small image and shrinking the rendered full-size one agree, up to
// the order of a resize and a non-linear operation.
func TestPreviewMatchesExportScaledDown(t *testing.T) {
	crop := Edit{Op: "crop", Args: opArgs(t, "crop", map[string]any{"left": 0.1, "top": 0.05, "right": 0.2}), Strength: 1}
	rotate := Edit{Op: "rotate", Args: opArgs(t, "rotate", map[string]any{"angle": 90.0}), Strength: 1}
	tests := []struct {
		name  string
		file  string
		proxy int // 0: default, larger than these photos
		edits []Edit
		mean  float64
	}{
		{"five edits", "rocket.jpg", 0, ioFiveEdits(t), 0.004},
		{"five edits on a shrunk proxy", "rocket.jpg", 500, ioFiveEdits(t), 0.006},
		{"geometry first", "rocket-orient6.jpg", 0, append([]Edit{crop, rotate}, ioFiveEdits(t)...), 0.004},
		{"geometry on a shrunk proxy", "rocket-orient6.jpg", 400, append([]Edit{rotate, crop}, ioFiveEdits(t)...), 0.006},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPreviewer(256 << 20)
			p.ProxyLongEdge = tt.proxy
			data := ioFixture(t, tt.file)
			got, err := p.Preview(PreviewRequest{Key: tt.file, Load: func() ([]byte, error) { return data, nil }, Edits: tt.edits, LongEdge: 256, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			full, err := Render(ioDecode(t, tt.file).Image, tt.edits, RenderOptions{Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			w, h := FitLongEdge(full.W, full.H, 256)
			if got.W != w || got.H != h {
				t.Fatalf("preview %dx%d, want %dx%d", got.W, got.H, w, h)
			}
			if maxd, mean := ioDiff(t, Resize(full, w, h), got); mean > tt.mean {
				t.Errorf("preview differs from the scaled-down render by max %.4g mean %.4g, want mean at most %.4g", maxd, mean, tt.mean)
			}
		})
	}
}

func TestPreviewNeverLargerThanExport(t *testing.T) {
	crop := Edit{Op: "crop", Args: opArgs(t, "crop", map[string]any{"left": 0.25, "right": 0.25}), Strength: 1}
	tests := []struct {
		proxy, long int
		edits       []Edit
		w, h        int
	}{
		{0, 4000, nil, 640, 427},
		{0, 4000, []Edit{crop}, 320, 427},
		{300, 4000, nil, 640, 427}, // from a 300-pixel proxy, scaled up to the export size
		{300, 4000, []Edit{crop}, 320, 427},
		{300, 400, []Edit{crop}, 300, 400},
		{300, 500, []Edit{crop}, 320, 427}, // the cropped export is 320x427
	}
	for _, tt := range tests {
		p := NewPreviewer(64 << 20)
		p.ProxyLongEdge = tt.proxy
		data := ioFixture(t, "rocket.jpg")
		got, err := p.Preview(PreviewRequest{Key: "k", Load: func() ([]byte, error) { return data, nil }, Edits: tt.edits, LongEdge: tt.long})
		if err != nil {
			t.Fatal(err)
		}
		if got.W != tt.w || got.H != tt.h {
			t.Errorf("proxy %d, long edge %d, %d edits: %dx%d, want %dx%d", tt.proxy, tt.long, len(tt.edits), got.W, got.H, tt.w, tt.h)
		}
	}
}

// Previews share cached images; rendering must never write into them.
func TestPreviewLeavesCacheIntact(t *testing.T) {
	p := NewPreviewer(64 << 20)
	data := ioFixture(t, "rocket.jpg")
	req := func(edits []Edit) []float32 {
		m, err := p.Preview(PreviewRequest{Key: "k", Load: func() ([]byte, error) { return data, nil }, Edits: edits, LongEdge: 200, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		m.Pix[0] = -1 // callers own what they get
		return m.Pix
	}
	grain := Edit{Op: "grain", Args: opArgs(t, "grain", map[string]any{"amount": 0.5}), Strength: 1}
	first := req(nil)
	a := req(append(ioFiveEdits(t), grain))
	req([]Edit{{Op: "exposure", Args: opArgs(t, "exposure", map[string]any{"ev": -2.0}), Strength: 1}})
	if diff := cmp.Diff(first, req(nil)); diff != "" {
		t.Errorf("plain preview changed after other renders:\n%s", diff)
	}
	if diff := cmp.Diff(a, req(append(ioFiveEdits(t), grain))); diff != "" {
		t.Errorf("edited preview not reproducible:\n%s", diff)
	}
}

func TestPreviewErrors(t *testing.T) {
	missing := darkroom.Errorf(darkroom.NotFound, "no such source")
	tests := []struct {
		name  string
		load  Loader
		edits []Edit
		code  string
	}{
		{"loader fails", func() ([]byte, error) { return nil, missing }, nil, darkroom.NotFound},
		{"not an image", func() ([]byte, error) { return []byte("text"), nil }, nil, darkroom.InvalidInput},
		{"unknown operation", func() ([]byte, error) { return ioFixture(t, "io/small.png"), nil }, []Edit{{Op: "lomo", Strength: 1}}, darkroom.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPreviewer(64 << 20)
			_, err := p.Preview(PreviewRequest{Key: tt.name, Load: tt.load, Edits: tt.edits})
			if got := darkroom.Code(err); got != tt.code {
				t.Errorf("code %s, want %s (%v)", got, tt.code, err)
			}
		})
	}
	// A failed load is not cached: the next request tries again.
	p := NewPreviewer(64 << 20)
	fail := true
	load := func() ([]byte, error) {
		if fail {
			return nil, missing
		}
		return ioFixture(t, "io/small.png"), nil
	}
	if _, err := p.Preview(PreviewRequest{Key: "k", Load: load}); !errors.Is(err, missing) {
		t.Fatalf("first request: %v", err)
	}
	fail = false
	if _, err := p.Preview(PreviewRequest{Key: "k", Load: load}); err != nil {
		t.Errorf("second request: %v", err)
	}
}

func TestExport(t *testing.T) {
	data := ioFixture(t, "rocket-orient6.jpg")
	src := ioDecode(t, "rocket-orient6.jpg")
	edits := ioFiveEdits(t)
	want, err := Render(src.Image, edits, RenderOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	clamp := func(m *Image) *Image {
		for i, v := range m.Pix {
			m.Pix[i] = min(max(v, 0), 1)
		}
		return m
	}
	tests := []struct {
		name       string
		opt        ExportOptions
		w, h       int
		meta       EXIFSummary
		maxd, mean float64
	}{
		{"jpeg keeps exif", ExportOptions{Encode: EncodeOptions{Format: "jpeg", Quality: 90}, Seed: 1}, 427, 640,
			EXIFSummary{Orientation: 1, Make: "Example", Model: "Orientation Test"}, 0.6, 0.01},
		{"png16", ExportOptions{Encode: EncodeOptions{Format: "png", Depth: 16}, Seed: 1}, 427, 640,
			EXIFSummary{Orientation: 1}, 4e-5, 1e-5},
		{"resized", ExportOptions{Encode: EncodeOptions{Format: "tiff"}, Seed: 1, LongEdge: 320}, 214, 320,
			EXIFSummary{Orientation: 1}, 4e-5, 1e-5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			res, err := Export(&b, data, edits, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Width != tt.w || res.Height != tt.h {
				t.Errorf("export says %dx%d, want %dx%d", res.Width, res.Height, tt.w, tt.h)
			}
			out, err := Decode(b.Bytes(), DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.meta, out.Meta); diff != "" {
				t.Errorf("EXIF summary (-want +got):\n%s", diff)
			}
			ref := want.Clone()
			if tt.w != want.W {
				ref = Resize(want, tt.w, tt.h)
			}
			clamp(ref) // the file holds display values
			if maxd, mean := ioDiff(t, ref, out.Image); maxd > tt.maxd || mean > tt.mean {
				t.Errorf("differs from Render by max %.4g mean %.4g, want at most %.4g and %.4g", maxd, mean, tt.maxd, tt.mean)
			}
		})
	}
	if _, err := Export(new(bytes.Buffer), []byte("nope"), nil, ExportOptions{Encode: EncodeOptions{Format: "jpeg"}}); darkroom.Code(err) != darkroom.InvalidInput {
		t.Errorf("export of garbage: %v, want invalid_input", err)
	}
}

// Stage reports each stage once, in order, and nothing after a decode failure.
func TestExportStages(t *testing.T) {
	data := ioFixture(t, "rocket-orient6.jpg")
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"ok", data, []string{"render", "encode"}},
		{"corrupt", []byte("nope"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			opt := ExportOptions{Encode: EncodeOptions{Format: "png"}, LongEdge: 64, Stage: func(s string) { got = append(got, s) }}
			Export(new(bytes.Buffer), tt.data, ioFiveEdits(t), opt)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreviewLoaderPanicReachesEveryWaiter(t *testing.T) {
	p := NewPreviewer(64 << 20)
	release := make(chan struct{})
	load := func() ([]byte, error) {
		<-release
		panic("loader bug")
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := p.Preview(PreviewRequest{Key: "k", Load: load})
			errs <- err
		}()
	}
	close(release)
	for range 4 {
		if err := <-errs; darkroom.Code(err) != darkroom.InternalError {
			t.Errorf("got %v, want internal_error", err)
		}
	}
}
