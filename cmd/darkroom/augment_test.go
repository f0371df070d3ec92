package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	darkroom "github.com/darkroom-mcp/darkroom"
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

// TestVerifyThroughSampling verifies an augmentation through a client whose sampling
// handler answers from a fixture: each request carries the original and the variant
// as images and the prompt; the answers land in the result and the session folder.
// A client without sampling gets unavailable, and no score.
func TestVerifyThroughSampling(t *testing.T) {
	dir := photoDir(t)
	ws := filepath.Join(t.TempDir(), "ws")
	var mu sync.Mutex
	var requests []*mcp.CreateMessageParams
	client := mcp.NewClient(&mcp.Implementation{Name: "sampling-test", Version: "0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			requests = append(requests, req.Params)
			mu.Unlock()
			last := req.Params.Messages[len(req.Params.Messages)-1].Content.(*mcp.TextContent).Text
			answer := `{"visible": true, "confidence": 4, "changes_seen": "the photo is mirrored"}`
			if strings.Contains(last, "main subject") {
				answer = `Sure: {"original_subject": "a cup of coffee", "augmented_subject": "cups of coffee"}`
			}
			return &mcp.CreateMessageResult{Model: "fixture-model", Role: "assistant", Content: &mcp.TextContent{Text: answer}}, nil
		},
	})
	cs := connect(t, client, "--workspace", ws, "--allow-root", dir)
	a := augmentCall(t, cs, map[string]any{"path": filepath.Join(dir, "coffee.png"), "pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
		"seed": 1, "count": 2, "options": map[string]any{"return_images": 0}})
	var v struct {
		Model    string `json:"model"`
		Variants []struct {
			Visual struct {
				Parsed     bool `json:"parsed"`
				Visible    bool `json:"visible"`
				Confidence int  `json:"confidence"`
			} `json:"visual"`
			Label struct {
				LabelChanged bool   `json:"label_changed"`
				Risk         string `json:"risk"`
			} `json:"label"`
		} `json:"variants"`
		Markdown string `json:"markdown"`
	}
	if err := json.Unmarshal(mustSucceed(t, cs, "verify_augmentation", map[string]any{"session_id": a.SessionID}), &v); err != nil {
		t.Fatal(err)
	}
	if v.Model != "fixture-model" || len(v.Variants) != 2 {
		t.Fatalf("model %q, %d variants", v.Model, len(v.Variants))
	}
	for i, vv := range v.Variants {
		if !vv.Visual.Parsed || !vv.Visual.Visible || vv.Visual.Confidence != 4 || vv.Label.LabelChanged || vv.Label.Risk != "low" {
			t.Errorf("variant %d: %+v", i, vv)
		}
	}
	if len(requests) != 4 {
		t.Fatalf("%d sampling requests, want 4 (2 variants x 2 checks)", len(requests))
	}
	for _, r := range requests {
		var images int
		for _, m := range r.Messages {
			// Sampling carries JPEG previews (at most 768 px), not the variants' files.
			if im, ok := m.Content.(*mcp.ImageContent); ok && len(im.Data) > 0 && im.MIMEType == "image/jpeg" {
				images++
			}
		}
		last := r.Messages[len(r.Messages)-1].Content.(*mcp.TextContent).Text
		if images != 2 || !strings.Contains(last, "original photo") {
			t.Errorf("a request with %d images and prompt %q", images, last)
		}
	}
	named := false
	for _, r := range requests {
		last := r.Messages[len(r.Messages)-1].Content.(*mcp.TextContent).Text
		named = named || strings.Contains(last, "Are these transforms visible") && strings.Contains(last, "flip_horizontal")
	}
	if !named {
		t.Error("no visual prompt names the transform that fired")
	}
	for _, f := range []string{"visual_verification.md", "classification_report.json"} {
		if _, err := os.Stat(filepath.Join(ws, a.Dir, f)); err != nil {
			t.Error(err)
		}
	}

	plain := connect(t, newClient(), "--workspace", ws, "--allow-root", dir)
	if r := callTool(t, plain, "verify_augmentation", map[string]any{"session_id": a.SessionID}); r.code() != "unavailable" {
		t.Errorf("without sampling: %+v, want unavailable", r)
	}
}

// TestLogNotifications: a client that asked for warnings (logging/setLevel) is told
// through notifications/message about an image augment_dataset skipped; one that
// asked only for errors is not.
func TestLogNotifications(t *testing.T) {
	in := t.TempDir()
	if err := os.WriteFile(filepath.Join(in, "coffee.png"), darkroom.SamplePhoto, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "broken.png"), []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, level := range []mcp.LoggingLevel{"warning", "error"} {
		var mu sync.Mutex
		var got []string
		client := mcp.NewClient(&mcp.Implementation{Name: "log-test", Version: "0"}, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
				b, _ := json.Marshal(req.Params.Data)
				mu.Lock()
				got = append(got, string(req.Params.Level)+" "+string(b))
				mu.Unlock()
			},
		})
		// logging/setLevel is how a client of protocol 2025-11-25 asks for log
		// messages; from 2026-07-28 a request carries its level in _meta instead.
		cs := connectVersion(t, client, "2025-11-25", "--workspace", filepath.Join(t.TempDir(), "ws"), "--allow-root", in)
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: level}); err != nil {
			t.Fatal(err)
		}
		mustSucceed(t, cs, "augment_dataset", map[string]any{"input": in, "output": "out", "pipeline": []any{map[string]any{"entry": "flip_horizontal"}}})
		// Notifications are handled apart from the reply: give one a moment to land.
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			n := len(got)
			mu.Unlock()
			if n > 0 {
				break
			}
		}
		mu.Lock()
		n := len(got)
		seen := strings.Join(got, "\n")
		mu.Unlock()
		switch {
		case level == "warning" && (n != 1 || !strings.Contains(seen, "broken.png skipped") || !strings.Contains(seen, `"code":"render_error"`)):
			t.Errorf("at level warning, got %d notifications: %s", n, seen)
		case level == "error" && n != 0:
			t.Errorf("at level error, got %d notifications: %s", n, seen)
		}
	}
}
