package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/pngbomb"
)

// maskBombPNG is a PNG of under 100 bytes whose header declares a w x h RGBA image of 16 bits
// a channel (28.8 GB at 60000x60000): its one IDAT chunk holds a few bytes, so only
// a decoder that trusts the header allocates what it says.
func maskBombPNG(w, h int) []byte {
	return pngbomb.PNG(w, h, 6, 16, pngbomb.OneByteIDAT)
}

// TestMaskBomb sends the real binary, over stdio MCP, label masks whose headers
// declare 60000x60000 RGBA16: as augment_image's annotations.mask_b64 and as an
// augment_dataset input's masks/*.png. Before, png.Decode allocated what the header
// said and the Go runtime aborted ("fatal error: runtime: out of memory"), taking
// every session with it. Each is refused from the header (invalid_input for the
// image, masking_error for the dataset's image) and the same process then serves
// an augmentation.
func TestMaskBomb(t *testing.T) {
	t.Parallel()
	bomb := maskBombPNG(60000, 60000)
	if len(bomb) > 100 {
		t.Fatalf("the bomb is %d bytes, want under 100", len(bomb))
	}
	dir := photoDir(t)
	in := filepath.Join(dir, "set")
	if err := os.MkdirAll(filepath.Join(in, "masks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"coffee.png": darkroom.SamplePhoto, "masks/coffee.png": bomb} {
		if err := os.WriteFile(filepath.Join(in, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, newClient(), "--workspace", filepath.Join(t.TempDir(), "ws"), "--allow-root", dir)
	flip := []any{map[string]any{"entry": "flip_horizontal"}}
	photo := filepath.Join(dir, "coffee.png")

	r := callTool(t, cs, "augment_image", map[string]any{"path": photo, "pipeline": flip, "seed": 1,
		"annotations": map[string]any{"mask_b64": base64.StdEncoding.EncodeToString(bomb)}})
	if r.code() != "invalid_input" {
		t.Fatalf("augment_image with the mask bomb: %+v, want invalid_input", r)
	}

	var ds struct {
		Skipped []struct {
			Source string `json:"source"`
			Code   string `json:"code"`
		} `json:"skipped"`
	}
	data := mustSucceed(t, cs, "augment_dataset", map[string]any{"input": in, "output": "out", "pipeline": flip})
	if err := json.Unmarshal(data, &ds); err != nil {
		t.Fatal(err)
	}
	if len(ds.Skipped) != 1 || ds.Skipped[0].Source != "coffee.png" || ds.Skipped[0].Code != "masking_error" {
		t.Errorf("augment_dataset with masks/coffee.png a bomb: skipped %+v, want coffee.png with masking_error", ds.Skipped)
	}

	// The process is alive and serves the next call.
	mustSucceed(t, cs, "augment_image", map[string]any{"path": photo, "pipeline": flip, "seed": 1})
}
