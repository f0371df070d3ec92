package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The context files under the workspace are formats: each record, fully populated,
// is pinned to a golden JSON file (testdata/<name>.json); DARKROOM_UPDATE=1
// rewrites them.
func TestContextFileFormats(t *testing.T) {
	s := func(v string) *string { return &v }
	for name, v := range map[string]any{
		"gap": contextGap{Time: "2026-01-02T10:00:00Z", ImageID: "cup", SnapshotHash: "0123456789abcdef",
			Description: "no dodge tool", Workaround: s("exposure with a mask"), Desired: s("a dodge brush")},
		"proposal": contextProposal{ID: "p-0123", Target: "notes", ImageID: s("cup"), Content: "The cup is the subject.",
			Reason: s("the user said so"), Time: "2026-01-02T10:00:00Z"},
	} {
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		p := filepath.Join("testdata", name+".json")
		if os.Getenv("DARKROOM_UPDATE") != "" {
			os.MkdirAll("testdata", 0o755)
			if err := os.WriteFile(p, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v (DARKROOM_UPDATE=1 writes it)", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s changed its file format:\n got %s\nwant %s", name, got, want)
		}
	}
}
