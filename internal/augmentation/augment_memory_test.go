package augmentation

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

func augmentEditor(t *testing.T) *Service {
	t.Helper()
	s := testEditor(t)
	ws, err := workspace.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Workspace = ws
	return s
}

// noisePNG is a w x h PNG of pixels that do not compress, so each variant's file is
// about 3 bytes a pixel.
func noisePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	x := uint32(1)
	for i := range m.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		m.Pix[i] = byte(x)
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var flipPipeline = augment.Pipeline{{Entry: "flip_horizontal", P: 1, Params: map[string]augment.Value{}}}

// Only the variants a caller shows inline keep their bytes: the others are encoded
// straight into their files, so a call's memory does not grow with count. Before,
// every variant's bytes stayed until the call returned.
func TestAugmentKeepsOnlyInlineBytes(t *testing.T) {
	s := augmentEditor(t)
	seed := uint64(3)
	data := noisePNG(t, 64, 48)
	out, err := s.Augment(context.Background(), AugmentRequest{Data: data, Pipeline: flipPipeline, Seed: &seed, Count: 4,
		Format: "png", InlineVariants: 3, InlineBytes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out.Variants {
		file, err := os.ReadFile(filepath.Join(s.Workspace.Root, v.Path))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(file)
		if v.Size != int64(len(file)) || v.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("variant %d: size %d sha %s, the file %d bytes sha %x", i, v.Size, v.SHA256, len(file), sum)
		}
		// About 9 KB each: the first two fit 20000 bytes, the third does not, the
		// fourth is past InlineVariants.
		if inline := i < 2; (v.Bytes != nil) != inline || (inline && !bytes.Equal(v.Bytes, file)) {
			t.Errorf("variant %d (%d bytes): kept %d bytes, want them kept: %v", i, v.Size, len(v.Bytes), inline)
		}
		if v.Image != nil {
			t.Errorf("variant %d: its pixels outlived its file", i)
		}
	}
}

// The decode budget covers the call's whole working set, not only its decode: a
// budget the decode fits but the renders do not is limit_exceeded before anything
// is decoded (before, the call went on and held several times the budget), and a
// call waits while others hold the budget.
func TestAugmentReservesItsWorkingSet(t *testing.T) {
	defer engine.SetDecodeBudget(0, 0)
	s := augmentEditor(t)
	seed := uint64(3)
	data := noisePNG(t, 600, 400)
	hd, err := engine.ReadHeader(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The decode (the decoder's RGBA and the float image) fits; the float source
	// beside a variant, its render and the encoder's copy do not.
	engine.SetDecodeBudget(hd.DecodeCost()+1<<20, 0)
	req := AugmentRequest{Data: data, Pipeline: flipPipeline, Seed: &seed, Count: 2, Format: "png"}
	_, err = s.Augment(context.Background(), req)
	if darkroom.Code(err) != darkroom.LimitExceeded {
		t.Fatalf("Augment under a budget its decode alone fits: %v, want limit_exceeded", err)
	}

	engine.SetDecodeBudget(64<<20, 0)
	held, err := engine.Reserve(context.Background(), "test", "another call", 60<<20)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.Augment(ctx, req); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("Augment while another call holds the budget: %v, want limit_exceeded once its wait ends", err)
	}
	held.Release()
	if _, err := s.Augment(context.Background(), req); err != nil {
		t.Errorf("Augment once the budget is free: %v", err)
	}
}

// A label mask is checked from its header against the image before the image is
// decoded: one of another size, or in colour, is invalid_input naming
// annotations.mask_b64, whatever size it declares.
func TestAugmentMaskCheckedFromHeader(t *testing.T) {
	s := augmentEditor(t)
	seed := uint64(3)
	data := noisePNG(t, 60, 40)
	grey := func(w, h int) []byte {
		var b bytes.Buffer
		png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)))
		return b.Bytes()
	}
	colour := func(w, h int) []byte {
		var b bytes.Buffer
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		m.Set(1, 1, color.NRGBA{200, 10, 10, 255})
		png.Encode(&b, m)
		return b.Bytes()
	}
	for name, mask := range map[string][]byte{"wrong size": grey(61, 40), "colour": colour(60, 40), "not a PNG": []byte("text")} {
		_, err := s.Augment(context.Background(), AugmentRequest{Data: data, Pipeline: flipPipeline, Seed: &seed, Count: 1, Format: "png", MaskPNG: mask})
		if darkroom.Code(err) != darkroom.InvalidInput || !bytes.Contains([]byte(err.Error()), []byte("annotations.mask_b64")) {
			t.Errorf("%s: %v, want invalid_input naming annotations.mask_b64", name, err)
		}
	}
	out, err := s.Augment(context.Background(), AugmentRequest{Data: data, Pipeline: flipPipeline, Seed: &seed, Count: 1, Format: "png", MaskPNG: grey(60, 40)})
	if err != nil {
		t.Fatalf("a grey mask of the image's size: %v", err)
	}
	if out.Variants[0].MaskPath == "" {
		t.Errorf("a grey mask of the image's size: no moved mask written")
	}
}

// Calls that each fit the budget but not together take turns and all succeed.
// Each reserves its whole working set in one take, so none holds a share of the
// budget while it waits for the rest: five calls that each held their decode and
// then waited to grow waited for one another until they all gave up (five 24 MP
// calls through the real binary, scripts/memory-peaks.py --cases parallel-5).
func TestAugmentCallsTakeTurns(t *testing.T) {
	defer engine.SetDecodeBudget(0, 0)
	s := augmentEditor(t)
	data := noisePNG(t, 600, 400)
	// A working set is about 14 MB (the decode 3.8, a variant's renders 8.6, the
	// encoder 1.2): one fits 20 MiB, two do not, five decodes would.
	engine.SetDecodeBudget(20<<20, 20*time.Second)
	errs := make(chan error, 5)
	for i := range 5 {
		go func() {
			seed := uint64(i)
			_, err := s.Augment(context.Background(), AugmentRequest{Data: data, Pipeline: flipPipeline, Seed: &seed, Count: 2, Format: "png"})
			errs <- err
		}()
	}
	for range 5 {
		if err := <-errs; err != nil {
			t.Errorf("one of five calls that fit the budget one at a time: %v", err)
		}
	}
}
