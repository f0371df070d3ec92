//go:build unix

package augmentation

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// An output name over the system's limits is the caller's mistake, found when the
// run creates the folder: invalid_input, not internal_error.
func TestAugmentDatasetOutputTooLong(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	allowed, write := filepath.Join(tmp, "allowed"), filepath.Join(tmp, "write")
	for _, d := range []string{allowed, write} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(filepath.Join(tmp, "ws"), []string{allowed})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.AllowWrite(write); err != nil {
		t.Fatal(err)
	}
	s := testEditor(t)
	s.Workspace = ws
	longName := strings.Repeat("n", 300)             // over every file system's NAME_MAX
	longPath := strings.Repeat("d/", 2500) + "photo" // over Linux's PATH_MAX
	for _, out := range []string{"cats/" + longName, longPath, filepath.Join(write, longName)} {
		_, err := s.AugmentDataset(t.Context(), DatasetRequest{Input: allowed, Output: out, Preset: "classification_light", Variants: 1})
		var de *darkroom.Error
		if !errors.As(err, &de) || de.Code != darkroom.InvalidInput {
			t.Errorf("AugmentDataset(output %.60q) = %v, want invalid_input", out, err)
			continue
		}
		if msg := strings.ReplaceAll(de.Message, out, "<output>"); strings.Contains(msg, tmp) {
			t.Errorf("message %q shows the absolute path %s", msg, tmp)
		}
	}
}
