package augmentation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// A run the server makes (Shared) takes a bulk turn per image, so it waits while
// other long jobs hold every turn, and gives up with its context; once a turn is
// free it runs. The CLI's run (not Shared) does not wait for turns.
func TestSharedDatasetTakesBulkTurns(t *testing.T) {
	in := t.TempDir()
	b, err := os.ReadFile("../engine/testdata/chelsea.png")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "cat.png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(filepath.Join(t.TempDir(), "ws"), []string{in})
	if err != nil {
		t.Fatal(err)
	}
	s := testEditor(t)
	s.Workspace = ws
	req := func(out string, shared bool) DatasetRequest {
		return DatasetRequest{Input: in, Output: out, Preset: "classification_light", Variants: 1, Seed: 1, Shared: shared}
	}

	var turns []func()
	release := func() {
		for _, end := range turns {
			end()
		}
		turns = nil
	}
	defer release()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		end, err := engine.Bulk(ctx)
		cancel()
		if err != nil {
			break
		}
		turns = append(turns, end)
	}
	if _, err := s.AugmentDataset(t.Context(), req("cli", false)); err != nil {
		t.Fatalf("the CLI's run with every bulk turn taken: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if res, err := s.AugmentDataset(ctx, req("shared", true)); err == nil && res.Report.Written > 0 {
		t.Fatalf("a shared run wrote %d variants while every bulk turn was taken", res.Report.Written)
	} else if err != nil && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		t.Fatalf("a shared run waiting for a turn: %v", err)
	}
	release()
	res, err := s.AugmentDataset(t.Context(), req("shared2", true))
	if err != nil || res.Report.Written != 1 {
		t.Fatalf("a shared run with turns free: %v, %+v", err, res.Report)
	}
}
