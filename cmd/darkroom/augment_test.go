package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// augmented is the part of augment_image's data these tests read.
type augmented struct {
	SessionID string          `json:"session_id"`
	Dir       string          `json:"dir"`
	Seed      uint64          `json:"seed"`
	Pipeline  json.RawMessage `json:"pipeline"`
	Variants  []struct {
		SHA256 string `json:"sha256"`
		Path   string `json:"path"`
	} `json:"variants"`
}

func augmentCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) augmented {
	t.Helper()
	var a augmented
	if err := json.Unmarshal(mustSucceed(t, cs, "augment_image", args), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func shas(a augmented) []string {
	var out []string
	for _, v := range a.Variants {
		out = append(out, v.SHA256)
	}
	return out
}

// TestAugmentReproduces drives augment_image through the Go SDK's client: a prompt,
// a preset and a pipeline each make variants; the same seed gives the same bytes and
// another seed others; config.json, fed back as pipeline with the reported seed,
// reproduces every byte; and variant n does not depend on count.
func TestAugmentReproduces(t *testing.T) {
	dir := photoDir(t)
	ws := filepath.Join(t.TempDir(), "ws")
	cs := connect(t, newClient(), "--workspace", ws, "--allow-root", dir)
	photo := filepath.Join(dir, "coffee.png")

	for _, recipe := range []map[string]any{
		{"prompt": "rotate between -20 and 20 degrees and add noise, then flip horizontally 50% of the time"},
		{"preset": "classification_light"},
		{"pipeline": []any{
			map[string]any{"entry": "random_resized_crop", "p": 1},
			map[string]any{"entry": "brightness_contrast", "params": map[string]any{"brightness": []any{-0.2, 0.2}}, "p": 0.8},
			map[string]any{"entry": "cutout", "p": 0.5},
		}},
	} {
		args := func(seed, count int) map[string]any {
			a := map[string]any{"path": photo, "seed": seed, "count": count, "options": map[string]any{"return_images": 0}}
			for k, v := range recipe {
				a[k] = v
			}
			return a
		}
		first := augmentCall(t, cs, args(7, 3))
		again := augmentCall(t, cs, args(7, 3))
		if !reflect.DeepEqual(shas(first), shas(again)) {
			t.Errorf("%v: the same seed gave %v, then %v", recipe, shas(first), shas(again))
		}
		if s := shas(first); s[0] == s[1] && s[1] == s[2] {
			t.Errorf("%v: three variants of one call are identical: %v", recipe, s)
		}
		other := augmentCall(t, cs, args(8, 3))
		for i := range other.Variants {
			if other.Variants[i].SHA256 == first.Variants[i].SHA256 {
				t.Errorf("%v: variant %d is the same with seed 7 and seed 8", recipe, i)
			}
		}
		more := augmentCall(t, cs, args(7, 5))
		if !reflect.DeepEqual(shas(more)[:3], shas(first)) {
			t.Errorf("%v: variants 0-2 changed when count went from 3 to 5", recipe)
		}

		config, err := os.ReadFile(filepath.Join(ws, first.Dir, "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var pipeline []any
		if err := json.Unmarshal(config, &pipeline); err != nil {
			t.Fatalf("config.json: %v", err)
		}
		back := augmentCall(t, cs, map[string]any{"path": photo, "pipeline": pipeline, "seed": first.Seed, "count": 3,
			"options": map[string]any{"return_images": 0}})
		if !reflect.DeepEqual(shas(back), shas(first)) {
			t.Errorf("%v: config.json fed back gave %v, want %v", recipe, shas(back), shas(first))
		}
		for _, v := range first.Variants {
			if _, err := os.Stat(filepath.Join(ws, v.Path)); err != nil {
				t.Errorf("variant file: %v", err)
			}
		}
	}
}
