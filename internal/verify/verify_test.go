package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/augmentation"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

func ptr[T any](v T) *T { return &v }

// A model's reply is free text: the first JSON object in it is read, and what
// cannot be read is kept as unparsed rather than guessed.
func TestParseVisual(t *testing.T) {
	tests := []struct {
		name, reply string
		want        *VisualCheck
	}{
		{"plain JSON", `{"visible": true, "confidence": 4, "changes_seen": "rotated"}`,
			&VisualCheck{Parsed: true, Visible: ptr(true), Confidence: ptr(4), ChangesSeen: "rotated"}},
		{"JSON inside prose", "Sure.\n{\"visible\": false, \"confidence\": 2.6}\nThanks",
			&VisualCheck{Parsed: true, Visible: ptr(false), Confidence: ptr(3), ChangesSeen: "Sure.\n{\"visible\": false, \"confidence\": 2.6}\nThanks"}},
		{"confidence out of 1..5 is dropped", `{"visible": true, "confidence": 9}`,
			&VisualCheck{Parsed: true, Visible: ptr(true), ChangesSeen: `{"visible": true, "confidence": 9}`}},
		{"no visible: unparsed", `{"confidence": 3}`, &VisualCheck{ChangesSeen: `{"confidence": 3}`}},
		{"no JSON: unparsed", "  it looks rotated  ", &VisualCheck{ChangesSeen: "it looks rotated"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseVisual(tt.reply)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// The label changed when the subjects differ once case, articles, punctuation and a
// plural s are set aside; the risk is high then, medium when the transforms were
// not visible, else low.
func TestParseLabel(t *testing.T) {
	invisible := &VisualCheck{Parsed: true, Visible: ptr(false)}
	tests := []struct {
		name, reply string
		visual      *VisualCheck
		want        *LabelCheck
	}{
		{"same subject", `{"original_subject": "A cup.", "augmented_subject": "cups"}`, nil,
			&LabelCheck{Parsed: true, OriginalSubject: ptr("A cup."), AugmentedSubject: ptr("cups"), LabelChanged: ptr(false), Risk: ptr("low")}},
		{"another subject", `{"original_subject": "cup", "augmented_subject": "bowl"}`, nil,
			&LabelCheck{Parsed: true, OriginalSubject: ptr("cup"), AugmentedSubject: ptr("bowl"), LabelChanged: ptr(true), Risk: ptr("high")}},
		{"same subject, transforms not seen", `{"original_subject": "the dog", "augmented_subject": "Dog"}`, invisible,
			&LabelCheck{Parsed: true, OriginalSubject: ptr("the dog"), AugmentedSubject: ptr("Dog"), LabelChanged: ptr(false), Risk: ptr("medium")}},
		{"one subject missing", `{"original_subject": "cup"}`, nil, &LabelCheck{}},
		{"no JSON", "a cup, then a cup", nil, &LabelCheck{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseLabel(tt.reply, tt.visual)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// session writes an augmentation session as augment_image leaves it: the original,
// two variants and metadata.json.
func session(t *testing.T, ws *workspace.Workspace, id string) {
	t.Helper()
	dir := filepath.Join(ws.Root, workspace.AugmentDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := augmentation.SessionMeta{SessionID: id, Recipe: "prompt", Seed: 7, Count: 2, Format: "png",
		Variants: []augmentation.SessionVariant{
			{Index: 0, File: "result-0.png", Applied: []augment.Applied{{Entry: "rotate", Fired: true, Values: map[string]float64{"angle": 90}}}},
			{Index: 1, File: "result-1.png", Applied: []augment.Applied{{Entry: "rotate", Fired: false}}},
		}}
	b, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"metadata.json": b, "original.jpg": []byte("orig"), "result-0.png": []byte("v0"), "result-1.png": []byte("v1")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The questions are one per variant and check, the original first; the answers
// become the report written beside the variants. An unknown session is not_found,
// a damaged one state_error, a question left unanswered unavailable.
func TestQuestionsAndAnswers(t *testing.T) {
	ws, err := workspace.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	session(t, ws, "s1")
	req := VerifyRequest{SessionID: "s1", Checks: []string{"visual", "label"}, MaxVariants: 5}
	qs, err := Questions(ws, req)
	if err != nil {
		t.Fatal(err)
	}
	type q struct{ ID, Images, MIME, Prompt string }
	var got []q
	for _, x := range qs {
		got = append(got, q{x.ID, string(x.Images[0].Data) + "," + string(x.Images[1].Data), x.Images[0].MIME + "," + x.Images[1].MIME, x.Prompt})
	}
	want := []q{
		{"0/visual", "orig,v0", "image/jpeg,image/png", visualPrompt([]augment.Applied{{Entry: "rotate", Fired: true, Values: map[string]float64{"angle": 90}}})},
		{"0/label", "orig,v0", "image/jpeg,image/png", labelPrompt},
		{"1/visual", "orig,v1", "image/jpeg,image/png", visualPrompt(nil)},
		{"1/label", "orig,v1", "image/jpeg,image/png", labelPrompt},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Questions (-want +got):\n%s", diff)
	}
	if p := want[0].Prompt; !strings.Contains(p, "rotate (angle 90)") {
		t.Errorf("visual prompt %q does not name the fired step with its value", p)
	}
	if p := want[2].Prompt; !strings.Contains(p, "no transform") {
		t.Errorf("visual prompt %q of a variant where nothing fired", p)
	}

	answers := map[string]Answer{
		"0/visual": {Model: "m", Text: `{"visible": true, "confidence": 5, "changes_seen": "rotated"}`},
		"0/label":  {Text: `{"original_subject": "cup", "augmented_subject": "cup"}`},
		"1/visual": {Text: `{"visible": false}`},
	}
	if _, err := Answers(ws, req, answers); darkroom.Code(err) != darkroom.Unavailable {
		t.Errorf("an unanswered question: %v, want unavailable", err)
	}
	answers["1/label"] = Answer{Text: `{"original_subject": "cup", "augmented_subject": "bowl"}`}
	v, err := Answers(ws, req, answers)
	if err != nil {
		t.Fatal(err)
	}
	if v.Model == nil || *v.Model != "m" || len(v.Variants) != 2 || *v.Variants[1].Label.Risk != "high" || *v.Variants[0].Label.Risk != "low" {
		t.Errorf("Answers = %+v", v)
	}
	if v.Report != "augment/s1/classification_report.json" || v.Markdown != "augment/s1/visual_verification.md" {
		t.Errorf("report at %q and %q", v.Report, v.Markdown)
	}
	b, err := os.ReadFile(filepath.Join(ws.Root, filepath.FromSlash(v.Report)))
	if err != nil {
		t.Fatal(err)
	}
	var written Verified
	if err := json.Unmarshal(b, &written); err != nil || written.SessionID != "s1" || len(written.Variants) != 2 {
		t.Errorf("classification_report.json: %s (%v)", b, err)
	}

	if _, err := Questions(ws, VerifyRequest{SessionID: "missing", Checks: []string{"visual"}, MaxVariants: 1}); darkroom.Code(err) != darkroom.NotFound {
		t.Errorf("an unknown session: %v, want not_found", err)
	}
	session(t, ws, "s2")
	if err := os.WriteFile(filepath.Join(ws.Root, workspace.AugmentDir, "s2", "metadata.json"), []byte("{torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Questions(ws, VerifyRequest{SessionID: "s2", Checks: []string{"visual"}, MaxVariants: 1}); darkroom.Code(err) != darkroom.StateError {
		t.Errorf("a damaged session: %v, want state_error", err)
	}
}
