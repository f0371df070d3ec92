package edit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contextfile"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// The files darkroom keeps under the workspace are formats: renaming a Go field
// must not change them. Each record, fully populated, is pinned to a golden JSON
// file (testdata/<name>.json); DARKROOM_UPDATE=1 rewrites them.
func TestWorkspaceFileFormats(t *testing.T) {
	s := func(v string) *string { return &v }
	st := history.State{Entries: []history.Entry{}}
	SetStateTemplates(&st, Templates{L1: "auto_exposure", L2: "film_noir"})
	for name, v := range map[string]any{
		"meta": workspace.SourceMeta{File: "sources/cup/source-0123456789abcdef.jpg", SHA256: "0123456789abcdef", Format: "jpeg",
			Width: 6000, Height: 4000, Name: "IMG_1234.JPG",
			EXIF: workspace.SourceEXIF{Orientation: 6, Make: "Fujifilm", Model: "X-T5", LensModel: "XF23mmF2 R WR", FocalLength: 23}},
		"state_templates": st.Extra[templatesKey],
		"gap": contextfile.Gap{Time: "2026-01-02T10:00:00Z", ImageID: "cup", SnapshotHash: "0123456789abcdef",
			Description: "no dodge tool", Workaround: s("exposure with a mask"), Desired: s("a dodge brush")},
		"proposal": contextfile.Proposal{ID: "p-0123", Target: "notes", ImageID: s("cup"), Content: "The cup is the subject.",
			Reason: s("the user said so"), Time: "2026-01-02T10:00:00Z"},
	} {
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		p := filepath.Join("testdata", name+".json")
		if os.Getenv("DARKROOM_UPDATE") != "" {
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
