package contextfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// contextWorkspace is a workspace holding the images cup and tea.
func contextWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"cup", "tea"} {
		if _, err := ws.History.Init(id, history.State{Entries: []history.Entry{}}, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// The rules of the texts, step by step: a text changes only when its proposal is
// confirmed with the right verb, a newer proposal for the same text supersedes the
// pending one, proposals for other texts stay, and what read_context shows of an
// image is its own texts and pending proposals plus the tastes'.
func TestProposals(t *testing.T) {
	ws := contextWorkspace(t)
	reason := "the user said so"
	tastes1, sup, err := ProposeTastes(ws, "warm tones", &reason)
	if err != nil || sup != nil {
		t.Fatalf("first tastes proposal: superseded %v, %v", sup, err)
	}
	tastes2, sup, err := ProposeTastes(ws, "warm tones, no vignette", nil)
	if err != nil || sup == nil || *sup != tastes1.ID {
		t.Fatalf("second tastes proposal: superseded %v, want %s (%v)", sup, tastes1.ID, err)
	}
	brief, sup, err := ProposeNotes(ws, "cup", "brief", "for the menu", nil)
	if err != nil || sup != nil {
		t.Fatalf("cup brief: superseded %v, %v", sup, err)
	}
	teaNotes, _, err := ProposeNotes(ws, "tea", "notes", "too blue", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ProposeNotes(ws, "nowhere", "notes", "x", nil); darkroom.Code(err) != darkroom.NotFound {
		t.Errorf("notes of an unknown image: %v, want not_found", err)
	}

	c, err := Read(ws, "cup")
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, p := range c.Pending {
		pending = append(pending, p.ID)
	}
	if diff := cmp.Diff([]string{tastes2.ID, brief.ID}, pending); diff != "" {
		t.Errorf("cup's pending proposals: the tastes' newest and its own brief, not tea's (-want +got):\n%s", diff)
	}
	if c.Tastes != "" || c.Brief != "" {
		t.Errorf("texts changed before any confirmation: tastes %q, brief %q", c.Tastes, c.Brief)
	}

	for _, step := range []struct {
		name, id string
		targets  []string
		code     string // "" when confirmed
	}{
		{"a superseded proposal", tastes1.ID, []string{"tastes"}, darkroom.NotFound},
		{"a brief through the tastes' verb", brief.ID, []string{"tastes"}, darkroom.InvalidInput},
		{"the tastes", tastes2.ID, []string{"tastes"}, ""},
		{"the tastes again", tastes2.ID, []string{"tastes"}, darkroom.NotFound},
		{"the brief", brief.ID, []string{"notes", "brief"}, ""},
	} {
		_, err := Confirm(ws, step.id, step.targets...)
		if got := darkroom.Code(err); err != nil && got != step.code || err == nil && step.code != "" {
			t.Errorf("confirm %s: %v, want %q", step.name, err, step.code)
		}
	}
	c, err = Read(ws, "cup")
	if err != nil {
		t.Fatal(err)
	}
	if c.Tastes != "warm tones, no vignette" || c.Brief != "for the menu" || c.Notes != "" || len(c.Pending) != 0 {
		t.Errorf("after confirming: %+v", c)
	}
	tea, err := Read(ws, "tea")
	if err != nil {
		t.Fatal(err)
	}
	if tea.Brief != "" || len(tea.Pending) != 1 || tea.Pending[0].ID != teaNotes.ID || tea.Tastes != c.Tastes {
		t.Errorf("tea after cup's confirmations: %+v", tea)
	}
	if _, err := Read(ws, "nowhere"); darkroom.Code(err) != darkroom.NotFound {
		t.Errorf("read_context of an unknown image: %v, want not_found", err)
	}
}

// Gaps are appended per image and counted; read_context shows the newest first.
// A line a crash left torn is skipped, and the next gap does not join it.
func TestGaps(t *testing.T) {
	ws := contextWorkspace(t)
	for i, d := range []string{"no dodge", "no burn"} {
		g, n, err := LogGap(ws, "cup", d, nil, nil)
		if err != nil || n != i+1 || g.Description != d || g.SnapshotHash == "" {
			t.Fatalf("gap %d: %+v, count %d, %v", i, g, n, err)
		}
	}
	if _, n, err := LogGap(ws, "tea", "no haze", nil, nil); err != nil || n != 1 {
		t.Fatalf("tea's first gap: count %d, %v", n, err)
	}
	log := filepath.Join(ws.Root, workspace.ContextDir, gapsFile)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-01-02T10:00:00Z","image_id":"cup","descr`) // torn by a crash
	f.Close()
	if _, n, err := LogGap(ws, "cup", "no clone", nil, nil); err != nil || n != 3 {
		t.Fatalf("a gap after a torn line: count %d, %v", n, err)
	}
	c, err := Read(ws, "cup")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range c.Gaps {
		got = append(got, g.Description)
	}
	if diff := cmp.Diff([]string{"no clone", "no burn", "no dodge"}, got); diff != "" {
		t.Errorf("cup's gaps, newest first (-want +got):\n%s", diff)
	}
	if _, _, err := LogGap(ws, "nowhere", "x", nil, nil); darkroom.Code(err) != darkroom.NotFound {
		t.Errorf("a gap of an unknown image: %v, want not_found", err)
	}
}
