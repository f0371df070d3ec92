package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augmentation"
	"github.com/darkroom-mcp/darkroom/internal/verify"
)

// Verification through the client's own model (MCP sampling): verify_augmentation,
// and augment_image's options.verify, which asks the same questions about the
// session it has just written. internal/verify makes the questions (verify.Questions)
// and reads the answers (verify.Answers); this file carries them over MCP.
//
// A tool asks a client the way the protocol says (SEP-2322, multi round-trip
// requests): the call answers with the sampling requests as inputRequests, and the
// client calls again with their results in inputResponses. The SDK turns this into
// sampling/createMessage requests for clients of earlier protocol versions, and
// calls the handler again itself. augment_image, whose questions exist only once
// it has rendered, holds its result until the retry (pendingAugments) and sends a
// client of an earlier protocol its questions itself (askDirectly).

// verifyVariants is how many variants augment_image's options.verify checks:
// verify_augmentation's default max_variants.
const verifyVariants = 4

type verifyArgs struct {
	SessionID   string   `json:"session_id"`
	Checks      []string `json:"checks"`
	MaxVariants int      `json:"max_variants"`
}

// verifyRequest reads verify_augmentation's arguments, defaults filled.
func verifyRequest(raw json.RawMessage) (verify.VerifyRequest, bool) {
	var a verifyArgs
	if json.Unmarshal(raw, &a) != nil || a.SessionID == "" {
		return verify.VerifyRequest{}, false
	}
	if len(a.Checks) == 0 {
		a.Checks = []string{"visual", "label"}
	}
	if a.MaxVariants == 0 {
		a.MaxVariants = verifyVariants
	}
	return verify.VerifyRequest{SessionID: a.SessionID, Checks: a.Checks, MaxVariants: a.MaxVariants, PathsOnly: true}, true
}

// verifyInputs asks the client's model verify_augmentation's questions before the
// handler runs, when the client speaks a protocol with multi round-trip requests:
// the call answers with the requests and the client calls again with the answers,
// so the server holds nothing meanwhile. nil lets the call go on: every question is
// answered, or the arguments or the client cannot have questions (the handler then
// says why), or the client speaks an earlier protocol, whose questions the handler
// sends itself (askSampling), inside the call's limits; the SDK would otherwise
// send them after the call returned, outside its time limit and slot, and wait for
// the answers with no limit at all.
func (s *Server) verifyInputs(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	if req.Session == nil || !offersSampling(req.Session.InitializeParams()) || !multiRoundTrip(req.Session.InitializeParams()) {
		return nil
	}
	// Arguments the contract refuses ask nothing: the handler reports them, and
	// the client's model is not asked questions about a call that fails.
	t, ok := s.Contract.Tool("verify_augmentation")
	if !ok {
		return nil
	}
	args, err := t.Check(req.Params.Arguments)
	if err != nil {
		return nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	vr, ok := verifyRequest(raw)
	if !ok {
		return nil
	}
	qs, err := s.verifyQuestions(vr)
	if err != nil {
		return nil
	}
	ask, err := s.samplingRequests(ctx, qs, req.Params.InputResponses)
	if err != nil || len(ask) == 0 {
		return nil
	}
	return &mcp.CallToolResult{InputRequests: ask, RequestState: "verify_augmentation"}
}

// samplingRequests are the sampling/createMessage requests for the questions the
// client has not answered yet in responses, keyed by question id: the original and
// the variant as image content (previews, previewQuestions), then the prompt.
func (s *Server) samplingRequests(ctx context.Context, qs []verify.Question, responses mcp.InputResponseMap) (mcp.InputRequestMap, error) {
	qs, err := s.previewQuestions(ctx, qs, func(id string) bool {
		_, answered := sampled(responses[id])
		return !answered
	})
	if err != nil {
		return nil, err
	}
	ask := mcp.InputRequestMap{}
	for _, q := range qs {
		msgs := []*mcp.SamplingMessage{}
		for _, im := range q.Images {
			msgs = append(msgs, &mcp.SamplingMessage{Role: "user", Content: &mcp.ImageContent{Data: im.Data, MIMEType: im.MIME}})
		}
		msgs = append(msgs, &mcp.SamplingMessage{Role: "user", Content: &mcp.TextContent{Text: q.Prompt}})
		ask[q.ID] = &mcp.CreateMessageParams{Messages: msgs, MaxTokens: 400,
			SystemPrompt: "You check image augmentations for a dataset. Answer with the JSON asked for, nothing else."}
	}
	return ask, nil
}

// sampled reads a sampling result the client sent back: the SDK decodes one as a
// CreateMessageWithToolsResult (its content a list), a handler may hold a
// CreateMessageResult.
func sampled(r mcp.InputResponse) (verify.Answer, bool) {
	var a verify.Answer
	var content []mcp.Content
	switch res := r.(type) {
	case *mcp.CreateMessageResult:
		a.Model, content = res.Model, []mcp.Content{res.Content}
	case *mcp.CreateMessageWithToolsResult:
		a.Model, content = res.Model, res.Content
	default:
		return a, false
	}
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok && len(a.Text) < maxAnswerBytes {
			a.Text += t.Text
		}
	}
	a.Text, a.Model = cutAnswer(a.Text), cutAnswer(a.Model)
	return a, true
}

// sampledAnswers are the answers among a retried call's inputResponses.
func sampledAnswers(req *mcp.CallToolRequest) map[string]verify.Answer {
	answers := map[string]verify.Answer{}
	for id, r := range req.Params.InputResponses {
		if a, ok := sampled(r); ok {
			answers[id] = a
		}
	}
	return answers
}

func offersSampling(p *mcp.InitializeParams) bool {
	return p != nil && p.Capabilities != nil && p.Capabilities.Sampling != nil
}

// samplingClient is the call's MCP request when its client offers sampling, or the
// unavailable error that says what is missing: tool names the tool in the message.
func samplingClient(ctx context.Context, tool string) (*mcp.CallToolRequest, error) {
	req, _ := ctx.Value(callRequestKey{}).(*mcp.CallToolRequest)
	if req == nil || req.Session == nil {
		return nil, &darkroom.Error{Code: darkroom.Unavailable,
			Message: tool + " asks the client's model through MCP sampling; the command line has no client: call it from an MCP client that offers sampling",
			Details: map[string]any{"missing": "an MCP client"}}
	}
	if !offersSampling(req.Session.InitializeParams()) {
		return nil, &darkroom.Error{Code: darkroom.Unavailable,
			Message: "the client does not offer sampling (capabilities.sampling in initialize): " + tool + " asks the client's own model and makes up no score without it",
			Details: map[string]any{"missing": "capabilities.sampling"}}
	}
	return req, nil
}

// verifiedData is verify_augmentation's data (#VerifyData) and summary.
func verifiedData(v verify.Verified) (map[string]any, string) {
	changed := 0
	for _, vv := range v.Variants {
		if vv.Label != nil && vv.Label.LabelChanged != nil && *vv.Label.LabelChanged {
			changed++
		}
	}
	d := map[string]any{"session_id": v.SessionID, "model": v.Model, "variants": v.Variants, "report": v.Report, "markdown": v.Markdown}
	return d, fmt.Sprintf("verified %d variant(s) of %s: %d with a changed label; %s", len(v.Variants), v.SessionID, changed, v.Markdown)
}

func verifyAugmentation(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	raw, _ := json.Marshal(args)
	vr, _ := verifyRequest(raw)
	req, err := samplingClient(ctx, "verify_augmentation")
	if err != nil {
		return nil, "", err
	}
	qs, err := s.verifyQuestions(vr)
	if err != nil {
		return nil, "", err
	}
	answers := sampledAnswers(req)
	if !multiRoundTrip(req.Session.InitializeParams()) {
		pending, err := s.samplingRequests(ctx, qs, req.Params.InputResponses)
		if err != nil {
			return nil, "", err
		}
		if len(pending) > 0 {
			got, err := s.askSampling(ctx, req.Session, pending)
			if err != nil {
				return nil, "", err
			}
			maps.Copy(answers, got)
		}
	}
	v, err := s.verifyAnswers(vr, answers)
	if err != nil {
		return nil, "", err
	}
	d, summary := verifiedData(v)
	return d, summary, nil
}

// askKey carries, in a tool call's context, the slot where a handler that needs
// the client's input while it runs leaves the input-required result; the MCP
// handler sends that instead of the envelope.
type askKey struct{}

type askSlot struct{ res *mcp.CallToolResult }

// ask makes the call answer with res (input requests) instead of its envelope; it
// reports false when the call has no MCP client to ask.
func ask(ctx context.Context, res *mcp.CallToolResult) bool {
	slot, _ := ctx.Value(askKey{}).(*askSlot)
	if slot == nil {
		return false
	}
	slot.res = res
	return true
}

// augmentState is augment_image's requestState while it waits for the answers of
// options.verify: the seed and where it came from, so the retried call, which the
// client sends with the same arguments, writes the same session (a random seed
// would otherwise be drawn again). It is the client's to echo, so it is checked
// like an argument.
type augmentState struct {
	Seed       uint64 `json:"seed"`
	SeedSource string `json:"seed_source"`
	// SessionID is the session the questions were about: answers are keyed by
	// variant and check only, so a retry that wrote another session (its
	// arguments changed) must not take them for its own.
	SessionID string `json:"session_id"`
}

const augmentStatePrefix = "augment_image:"

func (st augmentState) String() string {
	b, _ := json.Marshal(st)
	return augmentStatePrefix + string(b)
}

// readAugmentState reads a retried call's requestState; ok is false when there is
// none (a first call).
func readAugmentState(state string) (st augmentState, ok bool, err error) {
	rest, found := strings.CutPrefix(state, augmentStatePrefix)
	if !found {
		return st, false, nil
	}
	if json.Unmarshal([]byte(rest), &st) != nil || st.Seed > augmentation.MaxSeed ||
		(st.SeedSource != "argument" && st.SeedSource != "session_default" && st.SeedSource != "random") {
		return st, false, darkroom.Errorf(darkroom.InvalidInput, "requestState: not the state augment_image sent: call again without it")
	}
	return st, true, nil
}

// augmentVerification runs options.verify for the session d wrote: it asks the
// client's model (the call then answers with the input requests, and ask reports
// true) or, when the retried call carries the answers, reads them and writes the
// reports. A verification that cannot be done is reported in d.Verification, never
// as the call's error: the variants are written.
func (s *Server) augmentVerification(ctx context.Context, d *augmentData, checks []string) (asked bool) {
	t, _ := s.Contract.Tool("verify_augmentation")
	fail := func(err error) bool {
		e := s.failure(t, err).Error
		d.Verification = &verificationView{Error: e, summary: fmt.Sprintf("verification %s: %s", e.Code, e.Message)}
		return false
	}
	if call, _ := ctx.Value(callRequestKey{}).(*mcp.CallToolRequest); call != nil && call.Params != nil {
		if st, ok, _ := readAugmentState(call.Params.RequestState); ok && st.SessionID != d.SessionID {
			return fail(darkroom.Errorf(darkroom.InvalidInput,
				"options.verify: the answers are about session %s, this call wrote %s: a retried call must repeat the first call's arguments", st.SessionID, d.SessionID))
		}
	}
	req, err := samplingClient(ctx, "options.verify")
	if err != nil {
		return fail(err)
	}
	vr := verify.VerifyRequest{SessionID: d.SessionID, Checks: checks, MaxVariants: verifyVariants, PathsOnly: true}
	qs, err := s.verifyQuestions(vr)
	if err != nil {
		return fail(err)
	}
	answers := sampledAnswers(req)
	pending, err := s.samplingRequests(ctx, qs, req.Params.InputResponses)
	if err != nil {
		return fail(err)
	}
	if len(pending) > 0 {
		if !multiRoundTrip(req.Session.InitializeParams()) {
			got, err := s.askSampling(ctx, req.Session, pending)
			if err != nil {
				return fail(err)
			}
			maps.Copy(answers, got)
		} else {
			st := augmentState{Seed: d.Seed, SeedSource: d.SeedSource, SessionID: d.SessionID}
			if ask(ctx, &mcp.CallToolResult{InputRequests: pending, RequestState: st.String()}) {
				s.pending.put(pendingKey(ctx, d.SessionID, req), d)
				return true
			}
			return fail(darkroom.Errorf(darkroom.Unavailable, "options.verify: this call cannot ask the client"))
		}
	}
	v, err := s.verifyAnswers(vr, answers)
	if err != nil {
		return fail(err)
	}
	data, summary := verifiedData(v)
	d.Verification = &verificationView{Data: data, summary: summary}
	return false
}

// multiRoundTrip reports whether the client speaks a protocol with multi
// round-trip requests (2026-07-28 and later; the SDK's own test is unexported).
func multiRoundTrip(p *mcp.InitializeParams) bool {
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// verificationView is augment_image's verification.
type verificationView struct {
	Data    map[string]any `json:"data"`
	Error   *ErrorInfo     `json:"error"`
	summary string
}

// pendingAugments holds the results of augment_image calls that asked
// options.verify's questions, until the retried call brings the answers, so the
// retry does not render the variants again. Bounded, the oldest dropped first: a
// retry that finds nothing renders again, with the first call's seed, the same
// bytes.
type pendingAugments struct {
	mu    sync.Mutex
	order []string
	by    map[string]*augmentData
}

// maxPendingAugments bounds the results held: each holds at most
// maxInlineVariantBytes of images.
const maxPendingAugments = 8

func (p *pendingAugments) put(key string, d *augmentData) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.by == nil {
		p.by = map[string]*augmentData{}
	}
	if _, ok := p.by[key]; !ok {
		p.order = append(p.order, key)
	}
	p.by[key] = d
	for len(p.order) > maxPendingAugments {
		delete(p.by, p.order[0])
		p.order = p.order[1:]
	}
}

// take returns and forgets the result held under key, or nil.
func (p *pendingAugments) take(key string) *augmentData {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.by[key]
	if !ok {
		return nil
	}
	delete(p.by, key)
	p.order = slices.DeleteFunc(p.order, func(k string) bool { return k == key })
	return d
}

// pendingKey names a held result: the MCP session, the augmentation session and
// the call's arguments, so only the same client's retry of the same call takes it.
func pendingKey(ctx context.Context, sessionID string, call *mcp.CallToolRequest) string {
	sum := sha256.Sum256(call.Params.Arguments)
	return sessionKey(ctx) + "\x00" + sessionID + "\x00" + hex.EncodeToString(sum[:])
}

// verifyQuestions and verifyAnswers ask internal/verify about a session of the
// editor's workspace: unavailable when there is none.
func (s *Server) verifyQuestions(vr verify.VerifyRequest) ([]verify.Question, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, err
	}
	return verify.Questions(ws, vr)
}

func (s *Server) verifyAnswers(vr verify.VerifyRequest, answers map[string]verify.Answer) (verify.Verified, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return verify.Verified{}, err
	}
	return verify.Answers(ws, vr, answers)
}
