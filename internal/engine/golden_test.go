package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden images: every operation at its sample arguments on a 120x80 version of
// coffee.png, stored as 8-bit PNG in testdata/golden/<op>.png and compared with a
// tolerance of one level per channel (fused multiply-add and math library differences
// across platforms move a few values by one). DARKROOM_UPDATE=1 rewrites them; without
// it a missing golden fails, and so does a golden for an operation that no longer
// exists.

const goldenDir = "testdata/golden"

func opUpdating() bool { return os.Getenv("DARKROOM_UPDATE") == "1" }

func TestOpsGolden(t *testing.T) {
	src := opShrink(opPhoto(t, "coffee"), 5)
	for _, op := range Operations() {
		t.Run(op, func(t *testing.T) {
			out := opRender(t, src, 1, opSample(t, op))
			path := filepath.Join(goldenDir, op+".png")
			if opUpdating() {
				if err := os.WriteFile(path, opPNG(t, out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("missing golden %s: run DARKROOM_UPDATE=1 go test ./internal/engine", path)
			}
			if err != nil {
				t.Fatal(err)
			}
			want, w, h, err := opReadPNG8(data)
			if err != nil {
				t.Fatalf("golden %s: %v", path, err)
			}
			if w != out.W || h != out.H {
				t.Fatalf("size %dx%d, golden %dx%d", out.W, out.H, w, h)
			}
			got := opQuant8(out)
			bad, worst := 0, 0
			for i := range got {
				d := int(got[i]) - int(want[i])
				d = max(d, -d)
				if d > 1 {
					bad++
				}
				worst = max(worst, d)
			}
			if bad > 0 {
				t.Errorf("%d of %d values differ from %s by more than 1 level (worst %d); if the change is intended, run DARKROOM_UPDATE=1 go test ./internal/engine",
					bad, len(got), path, worst)
			}
		})
	}
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		op := strings.TrimSuffix(e.Name(), ".png")
		if _, ok := OpStage(op); !ok || !strings.HasSuffix(e.Name(), ".png") {
			t.Errorf("orphan golden %s: no operation %q", filepath.Join(goldenDir, e.Name()), op)
		}
	}
}
