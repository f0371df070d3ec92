package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// verifyFixture is what the client's model answers, by the check its prompt asks
// for: the label check names the same subject in both images, the visual one sees
// the flip.
var verifyFixture = map[string]string{
	"main subject":               `{"original_subject": "a gradient", "augmented_subject": "gradients"}`,
	"Are these transforms visib": `{"visible": true, "confidence": 4, "changes_seen": "mirrored left to right"}`,
}

// connectSampling connects an SDK client to s at protocol (empty: the SDK's
// latest, else one that knows no multi round-trip requests); with sampling it answers every sampling request from verifyFixture and
// records it.
// A non-empty root is offered as the client's root.
func connectSampling(t *testing.T, s *Server, protocol string, sampling bool, root string) (*mcp.ClientSession, func() []*mcp.CreateMessageParams) {
	t.Helper()
	var mu sync.Mutex
	var got []*mcp.CreateMessageParams
	opts := &mcp.ClientOptions{}
	if protocol != "" {
		// A client of an earlier protocol knows no input requests: it takes a
		// result that carries them for the answer.
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	if sampling {
		opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
			last, _ := req.Params.Messages[len(req.Params.Messages)-1].Content.(*mcp.TextContent)
			for k, answer := range verifyFixture {
				if last != nil && strings.Contains(last.Text, k) {
					return &mcp.CreateMessageResult{Model: "fixture-model", Role: "assistant", Content: &mcp.TextContent{Text: answer}}, nil
				}
			}
			t.Errorf("a sampling request the fixture does not answer: %+v", req.Params)
			return &mcp.CreateMessageResult{Model: "fixture-model", Role: "assistant", Content: &mcp.TextContent{Text: "?"}}, nil
		}
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "verify-test", Version: "0"}, opts)
	if root != "" {
		client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(root), Name: "photos"})
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() []*mcp.CreateMessageParams {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

type verifiedResult struct {
	SessionID    string `json:"session_id"`
	Dir          string `json:"dir"`
	SeedSource   string `json:"seed_source"`
	Variants     []struct{ Path string }
	Verification *struct {
		Data *struct {
			SessionID string  `json:"session_id"`
			Model     *string `json:"model"`
			Variants  []struct {
				Index  int `json:"index"`
				Visual *struct {
					Parsed     bool `json:"parsed"`
					Visible    bool `json:"visible"`
					Confidence int  `json:"confidence"`
				} `json:"visual"`
				Label *struct {
					Changed bool   `json:"label_changed"`
					Risk    string `json:"risk"`
				} `json:"label"`
			} `json:"variants"`
			Report   string `json:"report"`
			Markdown string `json:"markdown"`
		} `json:"data"`
		Error *ErrorInfo `json:"error"`
	} `json:"verification"`
}

func callAugment(t *testing.T, cs *mcp.ClientSession, args map[string]any) (verifiedResult, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "augment_image", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env struct {
		Success bool            `json:"success"`
		Data    verifiedResult  `json:"data"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil || !env.Success {
		t.Fatalf("augment_image: %s (%v)", b, err)
	}
	return env.Data, res
}

// TestAugmentVerify: augment_image with options.verify asks the client's model,
// through the SDK's client at the latest protocol (multi round-trip: the client
// calls again with the answers) and at 2025-06-18 (the SDK sends
// sampling/createMessage and calls the handler again), the questions
// verify_augmentation asks, each with the original and the variant as image
// content; the verdict is in the result and the reports in the session folder. The
// seed is drawn at random, so the call that carries the answers must render with
// the first call's seed: one session folder, not two. A path under a client root
// costs an earlier client a roots round-trip first, which the SDK's one retry
// would spend: the questions must still be asked.
func TestAugmentVerify(t *testing.T) {
	photo := testPhoto(t, 48, 32)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "photo.png"), photo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, protocol string
		path           bool
	}{{"latest", "", false}, {"latest,path", "", true}, {"2025-06-18", "2025-06-18", false}, {"2025-06-18,path", "2025-06-18", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := editServer(t)
			root := ""
			args := map[string]any{
				"image_b64": base64.StdEncoding.EncodeToString(photo), "count": 5,
				"pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
				"options":  map[string]any{"verify": []any{"visual", "label"}, "return_images": 1},
			}
			if tc.path {
				root = dir
				delete(args, "image_b64")
				args["path"] = filepath.Join(dir, "photo.png")
			}
			cs, requests := connectSampling(t, s, tc.protocol, true, root)
			d, res := callAugment(t, cs, args)
			if d.SeedSource != "random" {
				t.Errorf("seed_source %q, want random", d.SeedSource)
			}
			sessions, _ := os.ReadDir(filepath.Join(s.Workspace.Root, "augment"))
			if len(sessions) != 1 {
				t.Errorf("%d session folders, want 1: the call with the answers rendered another seed", len(sessions))
			}
			v := d.Verification
			if v == nil || v.Error != nil || v.Data == nil {
				t.Fatalf("verification %+v, want data", v)
			}
			if v.Data.SessionID != d.SessionID || v.Data.Model == nil || *v.Data.Model != "fixture-model" {
				t.Errorf("verification of %s by %v, want %s by fixture-model", v.Data.SessionID, v.Data.Model, d.SessionID)
			}
			if len(v.Data.Variants) != verifyVariants {
				t.Fatalf("%d variants verified, want the first %d of 5", len(v.Data.Variants), verifyVariants)
			}
			for i, vv := range v.Data.Variants {
				if vv.Index != i || vv.Visual == nil || !vv.Visual.Parsed || !vv.Visual.Visible || vv.Visual.Confidence != 4 ||
					vv.Label == nil || vv.Label.Changed || vv.Label.Risk != "low" {
					t.Errorf("variant %d: %+v", i, vv)
				}
			}
			for _, f := range []string{v.Data.Report, v.Data.Markdown} {
				if filepath.Dir(f) != d.Dir {
					t.Errorf("report %s is not in the session folder %s", f, d.Dir)
				}
				if _, err := os.Stat(filepath.Join(s.Workspace.Root, f)); err != nil {
					t.Error(err)
				}
			}
			// The result shows the augmentation as without verify: the inline variant.
			images := 0
			for _, c := range res.Content {
				if _, ok := c.(*mcp.ImageContent); ok {
					images++
				}
			}
			if images != 1 {
				t.Errorf("%d images in the result's content, want return_images 1", images)
			}
			if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "verified 4 variant(s)") {
				t.Errorf("summary %q does not give the verdict", res.Content[0].(*mcp.TextContent).Text)
			}

			reqs := requests()
			if len(reqs) != 2*verifyVariants {
				t.Fatalf("%d sampling requests, want %d (2 checks x %d variants)", len(reqs), 2*verifyVariants, verifyVariants)
			}
			// Each request carries previews (JPEG, never larger than the photo,
			// at most samplePreviewEdge on the long edge) of the original, then of
			// a variant; the original's is the same in every request.
			var original []byte
			for _, r := range reqs {
				var imgs []*mcp.ImageContent
				for _, m := range r.Messages {
					if im, ok := m.Content.(*mcp.ImageContent); ok {
						imgs = append(imgs, im)
					}
				}
				if len(imgs) != 2 {
					t.Fatalf("a sampling request with %d images, want the original and a variant", len(imgs))
				}
				for _, im := range imgs {
					cfg, err := jpeg.DecodeConfig(bytes.NewReader(im.Data))
					if err != nil || im.MIMEType != "image/jpeg" || cfg.Width != 48 || cfg.Height != 32 {
						t.Errorf("an image of a sampling request: %s %dx%d (%v), want a 48x32 JPEG preview", im.MIMEType, cfg.Width, cfg.Height, err)
					}
				}
				if original == nil {
					original = imgs[0].Data
				} else if !bytes.Equal(original, imgs[0].Data) {
					t.Error("the original's preview differs between requests")
				}
			}
		})
	}
}

// TestAugmentVerifyWithoutSampling: a client that offers no sampling still gets
// its augmentation; verification says unavailable, recoverable, naming what is
// missing, and no report is written (no score is made up).
func TestAugmentVerifyWithoutSampling(t *testing.T) {
	s := editServer(t)
	cs, _ := connectSampling(t, s, "", false, "")
	d, _ := callAugment(t, cs, map[string]any{
		"image_b64": base64.StdEncoding.EncodeToString(testPhoto(t, 48, 32)), "seed": 3,
		"pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
		"options":  map[string]any{"verify": []any{"label"}},
	})
	if len(d.Variants) != 1 {
		t.Errorf("%d variants, want 1", len(d.Variants))
	}
	v := d.Verification
	if v == nil || v.Data != nil || v.Error == nil {
		t.Fatalf("verification %+v, want an error", v)
	}
	want := &ErrorInfo{Code: "unavailable", Recoverable: true, Details: map[string]any{"missing": "capabilities.sampling"},
		Message: "the client does not offer sampling (capabilities.sampling in initialize): options.verify asks the client's own model and makes up no score without it"}
	if diff := cmp.Diff(want, v.Error); diff != "" {
		t.Errorf("verification error (-want +got):\n%s", diff)
	}
	for _, f := range []string{"visual_verification.md", "classification_report.json"} {
		if _, err := os.Stat(filepath.Join(s.Workspace.Root, d.Dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s written without a model to ask (%v)", f, err)
		}
	}
	// Without options.verify the result has no verification at all.
	plain, _ := callAugment(t, cs, map[string]any{
		"image_b64": base64.StdEncoding.EncodeToString(testPhoto(t, 48, 32)), "seed": 3,
		"pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
	})
	if plain.Verification != nil {
		t.Errorf("verification %+v without options.verify", plain.Verification)
	}
}

// TestAugmentVerifyState: the requestState a retried call echoes is the client's,
// so it is checked like an argument: one that augment_image did not send, or one
// whose seed contradicts the call's seed, is invalid_input, and answers about
// another session are refused.
func TestAugmentVerifyState(t *testing.T) {
	s := editServer(t)
	args := json.RawMessage(`{"image_b64": "` + base64.StdEncoding.EncodeToString(testPhoto(t, 16, 16)) +
		`", "seed": 1, "pipeline": [{"entry": "flip_horizontal"}], "options": {"verify": ["visual"]}}`)
	for _, state := range []string{`augment_image:{"seed": -1}`, `augment_image:{"seed": 2, "seed_source": "random"}`, `augment_image:{"seed": 1, "seed_source": "guess"}`} {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "augment_image", Arguments: args, RequestState: state}}
		env, _ := s.Invoke(context.WithValue(context.Background(), callRequestKey{}, req), "augment_image", args)
		if env.Error == nil || env.Error.Code != "invalid_input" {
			t.Errorf("requestState %s: %+v, want invalid_input", state, env)
		}
	}
	// Answers about another session (the retry's arguments changed) are not taken
	// for this one's: the variants are written, verification says why not.
	state := `augment_image:{"seed": 1, "seed_source": "argument", "session_id": "0123456789abcdef"}`
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "augment_image", Arguments: args, RequestState: state}}
	env, _ := s.Invoke(context.WithValue(context.Background(), callRequestKey{}, req), "augment_image", args)
	d, _ := env.Data.(*augmentData)
	if d == nil || d.Verification == nil || d.Verification.Error == nil || d.Verification.Error.Code != "invalid_input" ||
		!strings.Contains(d.Verification.Error.Message, "0123456789abcdef") {
		t.Errorf("answers about another session: %+v, want verification.error invalid_input", env)
	}
}

// TestAugmentVerifyRetry drives the multi round-trip by hand: the first call
// answers with one sampling request per variant and check and a requestState, and
// the retry with the answers takes the variants the first call rendered instead of
// rendering them again (a result file changed between the rounds stays changed). A
// retry the server holds nothing for (another server) renders again with the seed
// in requestState: the same session, the same bytes.
func TestAugmentVerifyRetry(t *testing.T) {
	photo := testPhoto(t, 48, 32)
	s := editServer(t)
	ctx := context.Background()
	connect := func(s *Server) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.MCP("test").Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		client := mcp.NewClient(&mcp.Implementation{Name: "mrtr-test", Version: "0"}, &mcp.ClientOptions{
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				t.Error("a sampling request outside the call's input requests")
				return nil, nil
			},
		})
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	params := &mcp.CallToolParams{Name: "augment_image", Arguments: map[string]any{
		"image_b64": base64.StdEncoding.EncodeToString(photo), "count": 2,
		"pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
		"options":  map[string]any{"verify": []any{"visual"}},
	}}
	cs := connect(s)
	first, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.InputRequests) != 2 || first.RequestState == "" || len(first.Content) != 0 {
		t.Fatalf("first call: %d input requests, state %q, %d content, want 2 questions and a state", len(first.InputRequests), first.RequestState, len(first.Content))
	}
	answers := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = &mcp.CreateMessageResult{Model: "fixture-model", Role: "assistant",
			Content: &mcp.TextContent{Text: verifyFixture["Are these transforms visib"]}}
	}
	sessions, _ := filepath.Glob(filepath.Join(s.Workspace.Root, "augment", "*", "result-0.png"))
	if len(sessions) != 1 {
		t.Fatalf("%d sessions written by the first call, want 1", len(sessions))
	}
	rendered, err := os.ReadFile(sessions[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sessions[0], []byte("changed between the rounds"), 0o644); err != nil {
		t.Fatal(err)
	}
	retry := *params
	retry.InputResponses, retry.RequestState = answers, first.RequestState
	decode := func(res *mcp.CallToolResult) verifiedResult {
		t.Helper()
		b, _ := json.Marshal(res.StructuredContent)
		var env struct {
			Data verifiedResult `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil || res.IsError || len(res.InputRequests) != 0 {
			t.Fatalf("retry: %s (%v)", b, err)
		}
		return env.Data
	}
	res, err := cs.CallTool(ctx, &retry)
	if err != nil {
		t.Fatal(err)
	}
	d := decode(res)
	if v := d.Verification; v == nil || v.Data == nil || len(v.Data.Variants) != 2 || !v.Data.Variants[0].Visual.Visible {
		t.Fatalf("verification %+v, want both variants verified", v)
	}
	if b, _ := os.ReadFile(sessions[0]); string(b) != "changed between the rounds" {
		t.Error("the retry rendered the variants again")
	}

	// Another server holds nothing: it renders with the state's seed.
	other := editServer(t)
	res, err = connect(other).CallTool(ctx, &retry)
	if err != nil {
		t.Fatal(err)
	}
	d2 := decode(res)
	if d2.SessionID != d.SessionID || d2.SeedSource != d.SeedSource {
		t.Errorf("render again: session %s (%s), want %s (%s)", d2.SessionID, d2.SeedSource, d.SessionID, d.SeedSource)
	}
	again, err := os.ReadFile(filepath.Join(other.Workspace.Root, d2.Dir, "result-0.png"))
	if err != nil || !bytes.Equal(again, rendered) {
		t.Errorf("rendered again: %d bytes, want the first call's %d (%v)", len(again), len(rendered), err)
	}
}

// TestPendingAugmentsBound: at most maxPendingAugments results are held, the
// oldest dropped first, and a result is taken once.
func TestPendingAugmentsBound(t *testing.T) {
	var p pendingAugments
	for i := range maxPendingAugments + 1 {
		p.put(string(rune('a'+i)), &augmentData{SessionID: string(rune('a' + i))})
	}
	if d := p.take("a"); d != nil {
		t.Errorf("the oldest is still held: %+v", d)
	}
	if d := p.take("b"); d == nil || d.SessionID != "b" {
		t.Errorf("take b: %+v", d)
	}
	if d := p.take("b"); d != nil {
		t.Errorf("b taken twice")
	}
	if len(p.by) != maxPendingAugments-1 || len(p.order) != len(p.by) {
		t.Errorf("%d held, %d in order, want %d", len(p.by), len(p.order), maxPendingAugments-1)
	}
}
