package server

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// A tool that replaces text the user wrote (their tastes, an image's brief or notes)
// must say destructiveHint: true, so a host asks before running it. The contract
// declares the hint and this test checks it against behaviour: every tool runs its
// own contract example on a workspace where the user's text exists and proposals
// for each kind are pending, and a tool whose successful call changed that text
// must be declared destructive. Every example must succeed, so a tool cannot slip
// by failing, and at least one tool must be seen replacing text, so a broken
// fixture cannot make the test pass without looking.
func TestToolsThatReplaceUserTextAreDestructive(t *testing.T) {
	c, _ := packtest.Builtin(t)
	replacers := 0
	for _, tool := range c.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Annotations.OpenWorld {
				t.Skip("its example asks the client's model (MCP sampling), which Invoke has no client for")
			}
			args := contractExample(t, tool.Description)
			// branch's example makes moody, ingest's brings in harbour: the fixture
			// leaves them to it (and keeps the user's notes on harbour_2 for ingest).
			fx := fixtureOptions{moody: tool.Name != "branch", harbour: tool.Name != "ingest"}
			s, pending := contextFixture(t, fx)
			before := userText(t, s, fx.notesImage())
			if lastErr := invokeExample(s, tool.Name, args, pending); lastErr != nil {
				t.Fatalf("its contract example %v fails in the fixture: %s: %s", args, lastErr.Code, lastErr.Message)
			}
			after := userText(t, s, fx.notesImage())
			if after == before {
				return
			}
			replacers++
			if !tool.Annotations.Destructive {
				t.Errorf("it replaced the user's text (%q became %q) but its contract says destructive: false", before, after)
			}
		})
	}
	if replacers == 0 {
		t.Fatal("no tool was seen replacing the user's text: the fixture does not exercise the confirm tools")
	}
}

// contractExample is the first JSON object after "Example: " in a tool's description.
func contractExample(t *testing.T, desc string) map[string]any {
	t.Helper()
	_, after, found := strings.Cut(desc, "Example: ")
	if !found {
		t.Fatal("its description has no Example: the contract shows one for every tool")
	}
	var args map[string]any
	if err := json.NewDecoder(strings.NewReader(after)).Decode(&args); err != nil {
		t.Fatalf("its example is not JSON: %v", err)
	}
	return args
}

// contextFixture is a workspace where the contract examples can run: the images
// harbour (unless ingest's example is to bring it in), harbour_2 and harbour_3 (a grey ramp, so a grey-card sample is neutral),
// a branch moody (unless branch's own example is to make it), the photo
// shoots/harbour.jpg under the working directory, an allowed root, the user's
// tastes, an image's brief and notes, and a pending proposal for each of the three.
// It returns the server and the pending proposals' ids.
type fixtureOptions struct{ moody, harbour bool }

// notesImage is the image whose brief and notes the user wrote.
func (o fixtureOptions) notesImage() string {
	if o.harbour {
		return "harbour"
	}
	return "harbour_2"
}

func contextFixture(t *testing.T, o fixtureOptions) (*Server, []string) {
	t.Helper()
	c, v := packtest.Builtin(t)
	dir := t.TempDir()
	photo := greyRamp(t, 96, 64)
	if err := os.MkdirAll(filepath.Join(dir, "photos", "shoots"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "photos", "shoots", "harbour.jpg"), photo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "photos"))
	ws, err := workspace.Open(filepath.Join(dir, "ws"), []string{filepath.Join(dir, "photos")})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(c, v, ws)
	for _, id := range []string{"harbour", "harbour_2", "harbour_3"} {
		if id != "harbour" || o.harbour {
			addImage(t, s, id, photo)
		}
	}
	img := o.notesImage()
	mustCall(t, s, "apply_primitive", map[string]any{"image_id": img, "primitive_name": "vignette", "value": map[string]any{"amount": -0.3}})
	if o.moody {
		mustCall(t, s, "branch", map[string]any{"image_id": img, "name": "moody"})
		mustCall(t, s, "checkout", map[string]any{"image_id": img, "ref_or_hash": "main"})
	}
	confirm := func(tool, proposeTool string, args map[string]any) {
		d := mustCall(t, s, proposeTool, args)
		id := d["proposal"].(map[string]any)["proposal_id"]
		mustCall(t, s, tool, map[string]any{"proposal_id": id})
	}
	confirm("confirm_taste_update", "propose_taste_update", map[string]any{"content": "the user's own tastes"})
	confirm("confirm_notes_update", "propose_notes_update", map[string]any{"image_id": img, "content": "the user's own brief", "section": "brief"})
	confirm("confirm_notes_update", "propose_notes_update", map[string]any{"image_id": img, "content": "the user's own notes"})
	var pending []string
	for _, p := range []struct {
		tool string
		args map[string]any
	}{
		{"propose_taste_update", map[string]any{"content": "proposed tastes"}},
		{"propose_notes_update", map[string]any{"image_id": img, "content": "proposed brief", "section": "brief"}},
		{"propose_notes_update", map[string]any{"image_id": img, "content": "proposed notes"}},
	} {
		d := mustCall(t, s, p.tool, p.args)
		pending = append(pending, d["proposal"].(map[string]any)["proposal_id"].(string))
	}
	return s, pending
}

// userText is the user's text as read_context shows it for an image.
func userText(t *testing.T, s *Server, id string) string {
	t.Helper()
	d := mustCall(t, s, "read_context", map[string]any{"image_id": id})
	b, _ := json.Marshal(map[string]any{"tastes": d["tastes"], "brief": d["brief"], "notes": d["notes"]})
	return string(b)
}

// greyRamp is a w x h JPEG of neutral greys, dark to light.
func greyRamp(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			g := uint8(40 + 180*x/w)
			m.Set(x, y, color.RGBA{g, g, g, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// invokeExample runs a tool's contract example on the fixture: nil when a call
// succeeds, else the last call's error. A confirm tool's example names a made-up
// proposal, so each pending proposal is tried in its place.
func invokeExample(s *Server, tool string, args map[string]any, pending []string) *ErrorInfo {
	candidates := []string{""}
	if _, ok := args["proposal_id"]; ok {
		candidates = pending
	}
	var last *ErrorInfo
	for _, p := range candidates {
		if p != "" {
			args["proposal_id"] = p
		}
		raw, _ := json.Marshal(args)
		env, _ := s.Invoke(context.Background(), tool, raw)
		if env.Success {
			return nil
		}
		last = env.Error
	}
	return last
}
