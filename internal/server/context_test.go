package server

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// ignoreTimes leaves out the time fields: a want says "", a result's time need
// only be RFC 3339 (one that is not stays in the comparison and fails it).
var ignoreTimes = cmpopts.IgnoreMapEntries(func(k string, v any) bool {
	s, ok := v.(string)
	if k != "time" || !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339, s)
	return s == "" || err == nil
})

func TestReadContextEmpty(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	d := mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	want := map[string]any{
		"image_id": "harbour", "tastes": "", "brief": "", "notes": "",
		"recent_log": []any{
			map[string]any{"time": "", "op": "tag", "hash": base, "parent": nil, "branch": "refs/tags/baseline", "label": nil},
			map[string]any{"time": "", "op": "init", "hash": base, "parent": nil, "branch": "main", "label": "baseline"},
		},
		"recent_gaps": []any{}, "pending": []any{},
	}
	if diff := cmp.Diff(want, d, ignoreTimes); diff != "" {
		t.Errorf("read_context (-want +got):\n%s", diff)
	}
	for _, args := range []map[string]any{{"image_id": "nope"}, {}} {
		want := darkroom.NotFound
		if len(args) == 0 {
			want = darkroom.InvalidInput
		}
		if _, code := call(t, s, "read_context", args); code != want {
			t.Errorf("%v: code %q, want %q", args, code, want)
		}
	}
}

// read_context returns the last 10 log entries, and the last 10 gaps of this image
// only, newest first.
func TestReadContextRecent(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	addImage(t, s, "other", testPhoto(t, 64, 48))
	for i := range 12 {
		applyEntries(t, s, "harbour", exposure(float64(i)/10))
		mustCall(t, s, "log_vocabulary_gap", map[string]any{"image_id": "harbour", "description": fmt.Sprintf("gap %d", i)})
		mustCall(t, s, "log_vocabulary_gap", map[string]any{"image_id": "other", "description": fmt.Sprintf("other gap %d", i)})
	}
	d := mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	log, gaps := d["recent_log"].([]any), d["recent_gaps"].([]any)
	if len(log) != 10 || len(gaps) != 10 {
		t.Fatalf("%d log entries and %d gaps, want 10 each", len(log), len(gaps))
	}
	if h := head(t, s, "harbour").Hash; log[0].(map[string]any)["hash"] != h {
		t.Errorf("log starts at %v, want HEAD %s", log[0], h)
	}
	for i, g := range gaps {
		m := g.(map[string]any)
		if want := fmt.Sprintf("gap %d", 11-i); m["description"] != want || m["image_id"] != "harbour" {
			t.Errorf("gap %d is %v, want %q of harbour", i, m, want)
		}
	}
}

func TestLogVocabularyGap(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	tests := []struct {
		name  string
		args  map[string]any
		hash  func() string
		count float64
		want  map[string]any
	}{
		{"description only", map[string]any{"image_id": "harbour", "description": "no highlight recovery"},
			func() string { return base }, 1,
			map[string]any{"description": "no highlight recovery", "workaround": nil, "desired": nil}},
		{"everything, after an edit", map[string]any{"image_id": "harbour", "description": "no window recovery",
			"workaround": "highlights -1 with a rectangle mask", "desired": "highlight recovery by luminance range"},
			func() string { return applyEntries(t, s, "harbour", exposure(0.4)) }, 2,
			map[string]any{"description": "no window recovery", "workaround": "highlights -1 with a rectangle mask", "desired": "highlight recovery by luminance range"}},
		{"nulls", map[string]any{"image_id": "harbour", "description": "d", "workaround": nil, "desired": nil},
			func() string { return head(t, s, "harbour").Hash }, 3,
			map[string]any{"description": "d", "workaround": nil, "desired": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash := tt.hash()
			d := mustCall(t, s, "log_vocabulary_gap", tt.args)
			gap := map[string]any{"time": "", "image_id": "harbour", "snapshot_hash": hash}
			for k, v := range tt.want {
				gap[k] = v
			}
			want := map[string]any{"gap": gap, "count": tt.count}
			if diff := cmp.Diff(want, d, ignoreTimes); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
	// One line per gap, each a #Gap.
	b, err := os.ReadFile(filepath.Join(s.Workspace.Root, "context", "gaps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(`(?m)^\{.*\}$`).FindAll(b, -1)); n != 3 {
		t.Errorf("gaps.jsonl has %d gap lines, want 3:\n%s", n, b)
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope", "description": "d"}, darkroom.NotFound},
		{"no description", map[string]any{"image_id": "harbour"}, darkroom.InvalidInput},
		{"empty description", map[string]any{"image_id": "harbour", "description": ""}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "log_vocabulary_gap", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

// A crash can leave the gap log's last line torn; the next gap still gets a line of
// its own and readers skip the torn one.
func TestLogVocabularyGapAfterTornLine(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	mustCall(t, s, "log_vocabulary_gap", map[string]any{"image_id": "harbour", "description": "first"})
	path := filepath.Join(s.Workspace.Root, "context", "gaps.jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","image_id":"harb`)
	f.Close()
	d := mustCall(t, s, "log_vocabulary_gap", map[string]any{"image_id": "harbour", "description": "second"})
	if d["count"] != 2.0 {
		t.Errorf("count %v, want 2", d["count"])
	}
	ctx := mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	var got []any
	for _, g := range ctx["recent_gaps"].([]any) {
		got = append(got, g.(map[string]any)["description"])
	}
	if diff := cmp.Diff([]any{"second", "first"}, got); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
}

var proposalID = regexp.MustCompile(`^p[0-9a-f]{12}$`)

func TestTasteProposals(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	first := mustCall(t, s, "propose_taste_update", map[string]any{"content": "Prefers warm tones.", "reason": "chose the warm version twice"})
	p1 := first["proposal"].(map[string]any)
	want := map[string]any{"proposal": map[string]any{"proposal_id": p1["proposal_id"], "target": "tastes", "image_id": nil,
		"content": "Prefers warm tones.", "reason": "chose the warm version twice", "time": ""}, "superseded": nil}
	if diff := cmp.Diff(want, first, ignoreTimes); diff != "" {
		t.Errorf("first proposal (-want +got):\n%s", diff)
	}
	if !proposalID.MatchString(p1["proposal_id"].(string)) {
		t.Errorf("proposal id %v", p1["proposal_id"])
	}
	// Proposing changes nothing yet; read_context shows it as pending.
	ctx := mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	if ctx["tastes"] != "" || len(ctx["pending"].([]any)) != 1 {
		t.Errorf("after a proposal: tastes %q, pending %v", ctx["tastes"], ctx["pending"])
	}

	second := mustCall(t, s, "propose_taste_update", map[string]any{"content": "Prefers warm tones and soft contrast."})
	p2 := second["proposal"].(map[string]any)
	if second["superseded"] != p1["proposal_id"] || p2["reason"] != nil || p2["proposal_id"] == p1["proposal_id"] {
		t.Errorf("second proposal %v, want it to supersede %v", second, p1["proposal_id"])
	}

	steps := []struct {
		name string
		id   any
		code string
		want map[string]any
	}{
		{"the superseded one", p1["proposal_id"], darkroom.NotFound, nil},
		{"the pending one", p2["proposal_id"], "", map[string]any{"target": "tastes", "image_id": nil, "content": "Prefers warm tones and soft contrast."}},
		{"again", p2["proposal_id"], darkroom.NotFound, nil},
		{"never made", "p000000000000", darkroom.NotFound, nil},
		{"malformed", "q1", darkroom.InvalidInput, nil},
	}
	for _, st := range steps {
		d, code := call(t, s, "confirm_taste_update", map[string]any{"proposal_id": st.id})
		if code != st.code {
			t.Errorf("%s: code %q, want %q", st.name, code, st.code)
		}
		if diff := cmp.Diff(st.want, d, cmpopts.EquateEmpty()); st.code == "" && diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
	ctx = mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	if ctx["tastes"] != "Prefers warm tones and soft contrast." || len(ctx["pending"].([]any)) != 0 {
		t.Errorf("after confirming: tastes %q, pending %v", ctx["tastes"], ctx["pending"])
	}
	if _, code := call(t, s, "propose_taste_update", map[string]any{"content": ""}); code != darkroom.InvalidInput {
		t.Errorf("empty content: code %q, want invalid_input", code)
	}
}

func TestNotesProposals(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	addImage(t, s, "other", testPhoto(t, 64, 48))
	propose := func(args map[string]any) (id string, superseded any) {
		t.Helper()
		d := mustCall(t, s, "propose_notes_update", args)
		p := d["proposal"].(map[string]any)
		return p["proposal_id"].(string), d["superseded"]
	}
	notes1, sup := propose(map[string]any{"image_id": "harbour", "content": "Keep the boats neutral."})
	if sup != nil {
		t.Errorf("first notes proposal superseded %v", sup)
	}
	brief, sup := propose(map[string]any{"image_id": "harbour", "content": "For the client's website.", "section": "brief"})
	if sup != nil {
		t.Errorf("a brief proposal superseded %v; notes and brief are separate", sup)
	}
	otherNotes, sup := propose(map[string]any{"image_id": "other", "content": "Other notes.", "section": "notes", "reason": "r"})
	if sup != nil {
		t.Errorf("another image's proposal superseded %v", sup)
	}
	taste := mustCall(t, s, "propose_taste_update", map[string]any{"content": "Tastes."})["proposal"].(map[string]any)["proposal_id"].(string)
	notes2, sup := propose(map[string]any{"image_id": "harbour", "content": "Keep the boats neutral; the sky may go moody.", "section": nil})
	if sup != notes1 {
		t.Errorf("second notes proposal superseded %v, want %s", sup, notes1)
	}

	// read_context lists this image's proposals and the tastes', not other images'.
	ctx := mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	var pending []string
	for _, p := range ctx["pending"].([]any) {
		pending = append(pending, p.(map[string]any)["proposal_id"].(string))
	}
	if diff := cmp.Diff([]string{brief, taste, notes2}, pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}

	steps := []struct {
		name string
		tool string
		id   string
		code string
		want map[string]any
	}{
		{"superseded", "confirm_notes_update", notes1, darkroom.NotFound, nil},
		{"notes", "confirm_notes_update", notes2, "", map[string]any{"target": "notes", "image_id": "harbour", "content": "Keep the boats neutral; the sky may go moody."}},
		{"brief", "confirm_notes_update", brief, "", map[string]any{"target": "brief", "image_id": "harbour", "content": "For the client's website."}},
		{"a taste proposal", "confirm_notes_update", taste, darkroom.InvalidInput, nil},
		{"a notes proposal as a taste", "confirm_taste_update", otherNotes, darkroom.InvalidInput, nil},
		{"other image", "confirm_notes_update", otherNotes, "", map[string]any{"target": "notes", "image_id": "other", "content": "Other notes."}},
		{"unknown", "confirm_notes_update", "pabcdefabcdef", darkroom.NotFound, nil},
	}
	for _, st := range steps {
		d, code := call(t, s, st.tool, map[string]any{"proposal_id": st.id})
		if code != st.code {
			t.Errorf("%s: code %q, want %q", st.name, code, st.code)
		}
		if diff := cmp.Diff(st.want, d, cmpopts.EquateEmpty()); st.code == "" && diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
	ctx = mustCall(t, s, "read_context", map[string]any{"image_id": "harbour"})
	if ctx["notes"] != "Keep the boats neutral; the sky may go moody." || ctx["brief"] != "For the client's website." || ctx["tastes"] != "" {
		t.Errorf("after confirming: %v", ctx)
	}
	for _, f := range []string{"harbour/notes.md", "harbour/brief.md", "other/notes.md"} {
		if _, err := os.Stat(filepath.Join(s.Workspace.Root, "context", f)); err != nil {
			t.Error(err)
		}
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope", "content": "x"}, darkroom.NotFound},
		{"bad section", map[string]any{"image_id": "harbour", "content": "x", "section": "tastes"}, darkroom.InvalidInput},
		{"no content", map[string]any{"image_id": "harbour"}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "propose_notes_update", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

// A damaged proposals file is reported, not silently replaced: it may hold
// proposals the user has not seen yet.
func TestDamagedProposals(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	dir := filepath.Join(s.Workspace.Root, "context")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "proposals.json"), []byte(`[{"proposal_id":`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"propose_taste_update", map[string]any{"content": "x"}},
		{"read_context", map[string]any{"image_id": "harbour"}},
		{"confirm_taste_update", map[string]any{"proposal_id": "p000000000000"}},
	} {
		if _, code := call(t, s, c.tool, c.args); code != darkroom.InternalError {
			t.Errorf("%s: code %q, want internal_error", c.tool, code)
		}
	}
}
