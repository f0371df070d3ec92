package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// annotationArgs is augment_image's arguments with n boxes and n keypoints, each
// with a label, and a pipeline of steps steps.
func annotationArgs(n, steps int) json.RawMessage {
	boxes, labels, points := make([]any, n), make([]any, n), make([]any, n)
	for i := range n {
		boxes[i] = []any{i % 50, 1, i%50 + 10, 20}
		labels[i] = fmt.Sprintf("label-%d", i%7)
		points[i] = []any{i % 50, 3}
	}
	pipeline := make([]any, steps)
	for i := range pipeline {
		pipeline[i] = map[string]any{"entry": "rotate", "params": map[string]any{"angle": []any{-10, 10}}, "p": 0.5}
	}
	b, _ := json.Marshal(map[string]any{
		"path": "photo.png", "pipeline": pipeline, "seed": 1, "count": 1,
		"annotations": map[string]any{
			"bboxes":    map[string]any{"format": "pascal_voc", "boxes": boxes, "labels": labels},
			"keypoints": map[string]any{"points": points, "labels": labels},
		},
	})
	return b
}

// The argument cap agrees with the contract: augment_image's annotations at their
// declared bounds (4096 boxes and 4096 keypoints, each labelled, beside a full
// pipeline) reach CUE and pass, where the fixed cap of 20,000 values refused them;
// one box over the bound is refused by the contract's own bound, by name.
func TestArgumentNodesAgreeWithContract(t *testing.T) {
	c, err := Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := c.Tool("augment_image")
	if !ok {
		t.Fatal("no augment_image")
	}
	start := time.Now()
	if _, err := tool.Check(annotationArgs(4096, 32)); err != nil {
		t.Fatalf("4096 labelled boxes and keypoints: %v", err)
	}
	t.Logf("checked the largest annotations in %s", time.Since(start))
	_, err = tool.Check(annotationArgs(4097, 1))
	if err == nil {
		t.Fatal("4097 boxes passed")
	}
	if msg := err.Error(); strings.Contains(msg, "too large") || !strings.Contains(msg, "annotations.bboxes.boxes") {
		t.Errorf("4097 boxes: %v, want the contract's bound on annotations.bboxes.boxes", err)
	}
	// Every other tool keeps at least the general cap.
	for _, tl := range c.Tools {
		c.ensure(tl)
		if n := tl.argumentNodes(); n < maxArgumentNodes {
			t.Errorf("%s: cap %d below %d", tl.Name, n, maxArgumentNodes)
		}
	}
}
