package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestAugmentListsUnreadPhrases: a prompt with a phrase no entry reads still augments
// what it can, and the phrase is in augment_image's skipped_transforms with why, as
// in validate_prompt's validation_errors, never dropped with an empty list.
func TestAugmentListsUnreadPhrases(t *testing.T) {
	dir := photoDir(t)
	ws := filepath.Join(t.TempDir(), "ws")
	cs := connect(t, newClient(), "--workspace", ws, "--allow-root", dir)
	photo := filepath.Join(dir, "coffee.png")

	const text = "flip horizontally and add some confetti"
	var res struct {
		Pipeline []struct {
			Entry string `json:"entry"`
		} `json:"pipeline"`
		Skipped []struct {
			Name   string `json:"name"`
			Reason string `json:"reason"`
			Code   string `json:"code"`
		} `json:"skipped_transforms"`
	}
	raw := mustSucceed(t, cs, "augment_image", map[string]any{"path": photo, "prompt": text, "seed": 1,
		"options": map[string]any{"return_images": 0}})
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Pipeline) != 1 || res.Pipeline[0].Entry != "flip_horizontal" {
		t.Errorf("pipeline = %+v, want flip_horizontal alone", res.Pipeline)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Name != "add some confetti" || res.Skipped[0].Code != "invalid_input" ||
		!strings.Contains(res.Skipped[0].Reason, "names no vocabulary entry") {
		t.Errorf("skipped_transforms = %+v, want the unread phrase with its reason", res.Skipped)
	}

	var v struct {
		Errors []struct {
			Phrase *string `json:"phrase"`
		} `json:"validation_errors"`
	}
	if err := json.Unmarshal(mustSucceed(t, cs, "validate_prompt", map[string]any{"prompt": text}), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Errors) != 1 || v.Errors[0].Phrase == nil || *v.Errors[0].Phrase != "add some confetti" {
		t.Errorf("validate_prompt's validation_errors do not name the phrase: %s", raw)
	}

	// A prompt of the fresh set (tune29), with a class darkroom does not have in
	// place of RandomSunFlare (which it now has): that class is listed with the
	// clause that gave its p; the one it has runs with the p a later clause gave it,
	// once.
	const fresh = "Can you do RandomFog and PiecewiseAffine on my driving dataset? Fog fairly often, like 70% of the time, piecewise affine only rarely. Thanks!"
	var got struct {
		Pipeline []struct {
			Entry string  `json:"entry"`
			P     float64 `json:"p"`
		} `json:"pipeline"`
		Skipped []struct {
			Name string `json:"name"`
		} `json:"skipped_transforms"`
	}
	raw = mustSucceed(t, cs, "augment_image", map[string]any{"path": photo, "prompt": fresh, "seed": 1,
		"options": map[string]any{"return_images": 0}})
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Pipeline) != 1 || got.Pipeline[0].Entry != "random_fog" || got.Pipeline[0].P != 0.7 {
		t.Errorf("pipeline = %+v, want random_fog at p 0.7 alone", got.Pipeline)
	}
	var names []string
	for _, s := range got.Skipped {
		names = append(names, s.Name)
	}
	if strings.Join(names, "|") != "piecewiseaffine on my driving dataset|piecewise affine only rarely" {
		t.Errorf("skipped_transforms = %q, want the piecewise affine's two phrases", names)
	}
}
