package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/augmentation"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/prompt"
)

// The augmentation tools (contracts/tools_augment.cue): augment_image,
// validate_prompt, list_available_presets and set_default_seed.

// maxInlineVariantBytes caps the variants one augment_image result shows as image
// content, in all; the rest are named by path.
const maxInlineVariantBytes = 4 << 20

type augmentArgs struct {
	ImageID     string           `json:"image_id"`
	RefOrHash   string           `json:"ref_or_hash"`
	Path        string           `json:"path"`
	ImageB64    string           `json:"image_b64"`
	Prompt      string           `json:"prompt"`
	Preset      string           `json:"preset"`
	Pipeline    json.RawMessage  `json:"pipeline"`
	Seed        *uint64          `json:"seed"`
	Count       int              `json:"count"`
	Options     *augmentOptions  `json:"options"`
	Annotations *annotationsArgs `json:"annotations"`
	// albumentations-mcp's request shape (augment_compat.go).
	Image       string          `json:"image"`
	AuthContext json.RawMessage `json:"auth_context"`
	ImagePath   string          `json:"image_path"`
	SessionID   string          `json:"session_id"`
	OutputDir   string          `json:"output_dir"`
}

type augmentOptions struct {
	OutputFormat string   `json:"output_format"`
	Quality      int      `json:"quality"`
	ReturnImages *int     `json:"return_images"`
	Verify       []string `json:"verify"`
	// albumentations-mcp's options (augment_compat.go).
	EnableVisionVerification  *bool  `json:"enable_vision_verification"`
	EnableClassificationCheck *bool  `json:"enable_classification_check"`
	VisionModel               string `json:"vision_model"`
	ClassifierModel           string `json:"classifier_model"`
	// FullSizeImages inlines the files instead of previews.
	FullSizeImages bool `json:"full_size_images"`
}

type annotationsArgs struct {
	augment.Annotations
	MaskB64 string `json:"mask_b64"`
}

// seeds holds each MCP session's default seed (set_default_seed); the CLI, which
// has no session, keeps one under "".
type seeds struct {
	mu sync.Mutex
	by map[string]uint64
}

func sessionKey(ctx context.Context) string {
	if req, _ := ctx.Value(callRequestKey{}).(*mcp.CallToolRequest); req != nil && req.Session != nil {
		return req.Session.ID()
	}
	return ""
}

func (d *seeds) get(key string) (uint64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.by[key]
	return v, ok
}

func (d *seeds) set(key string, v *uint64) (prev *uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.by[key]; ok {
		prev = &old
	}
	if v == nil {
		delete(d.by, key)
	} else {
		if d.by == nil {
			d.by = map[string]uint64{}
		}
		d.by[key] = *v
	}
	return prev
}

type variantView struct {
	Index       int               `json:"index"`
	Path        string            `json:"path"`
	Width       int               `json:"width"`
	Height      int               `json:"height"`
	Bytes       int               `json:"bytes"`
	SHA256      string            `json:"sha256"`
	Inline      bool              `json:"inline"`
	Applied     []appliedView     `json:"applied_transforms"`
	Annotations *annotationsView  `json:"annotations"`
	skipped     []augment.Skipped // gathered into the result's skipped_transforms
}

type appliedView struct {
	Entry  string             `json:"entry"`
	Values map[string]float64 `json:"values"`
	P      float64            `json:"p"`
	Fired  bool               `json:"fired"`
	MS     float64            `json:"ms"`
}

type annotationsView struct {
	Boxes     *boxesView     `json:"bboxes"`
	Keypoints *keypointsView `json:"keypoints"`
	MaskPath  *string        `json:"mask_path"`
}

type boxesView struct {
	Format  string        `json:"format"`
	Boxes   [][4]float64  `json:"boxes"`
	Labels  []any         `json:"labels"`
	Dropped []droppedView `json:"dropped"`
}

type droppedView struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

type keypointsView struct {
	Points  [][2]float64  `json:"points"`
	Labels  []any         `json:"labels"`
	Dropped []droppedView `json:"dropped"`
}

type augmentMetadata struct {
	Width           int     `json:"width"`
	Height          int     `json:"height"`
	Format          string  `json:"format"`
	ConfigHash      string  `json:"config_hash"`
	ContractVersion string  `json:"contract_version"`
	ElapsedMS       float64 `json:"elapsed_ms"`
}

type augmentData struct {
	SessionID  string            `json:"session_id"`
	Dir        string            `json:"dir"`
	Seed       uint64            `json:"seed"`
	SeedSource string            `json:"seed_source"`
	Recipe     string            `json:"recipe"`
	Pipeline   augment.Pipeline  `json:"pipeline"`
	Variants   []variantView     `json:"variants"`
	Skipped    []augment.Skipped `json:"skipped_transforms"`
	// Warnings say what was accepted but not honoured as asked.
	Warnings []string `json:"warnings,omitempty"`
	// Verification is there when options.verify asked for it.
	Verification *verificationView `json:"verification,omitempty"`
	Metadata     augmentMetadata   `json:"metadata"`
	images       []*mcp.ImageContent
	// links are the variants' resources, then albumentations.json's.
	links []*mcp.ResourceLink
}

// Content implements contentCarrier: the inlined variants, then a link to each
// variant's resource and to albumentations.json.
func (d *augmentData) Content() []mcp.Content {
	out := make([]mcp.Content, 0, len(d.images)+len(d.links))
	for _, c := range d.images {
		out = append(out, c)
	}
	for _, l := range d.links {
		if l != nil {
			out = append(out, l)
		}
	}
	return out
}

func augmentImage(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[augmentArgs](args)
	if err != nil {
		return nil, "", err
	}
	warnings, err := a.compat()
	if err != nil {
		return nil, "", err
	}
	warnings = append(warnings, promptVariants(s, a.Prompt, max(a.Count, 1))...)
	req := augmentation.AugmentRequest{
		ImageID: a.ImageID, Spec: a.RefOrHash, Path: a.Path,
		Prompt: a.Prompt, Preset: a.Preset,
		Seed: a.Seed, SeedSource: "argument", Count: max(a.Count, 1), Format: "png",
	}
	if req.Pipeline, req.Albumentations, err = pipelineArg(a.Pipeline); err != nil {
		return nil, "", err
	}
	if a.ImageB64 != "" {
		if req.Data, err = edit.DecodeImageB64(a.ImageB64); err != nil {
			return nil, "", err
		}
	}
	if a.RefOrHash != "" && a.ImageID == "" {
		return nil, "", darkroom.FieldError("ref_or_hash", "ref_or_hash picks a version of image_id: give image_id too")
	}
	var verify []string
	if a.Options != nil {
		verify = a.Options.Verify
	}
	var d *augmentData
	if len(verify) > 0 {
		// The call retried with options.verify's answers takes the variants the
		// first one rendered, or renders them again with the first one's seed.
		if call, _ := ctx.Value(callRequestKey{}).(*mcp.CallToolRequest); call != nil && call.Params != nil {
			st, ok, err := readAugmentState(call.Params.RequestState)
			if err != nil {
				return nil, "", err
			}
			if ok && req.Seed != nil && *req.Seed != st.Seed {
				return nil, "", darkroom.FieldError("seed", "%d is not the seed %d of the call this one answers (requestState)", *req.Seed, st.Seed)
			}
			if ok {
				req.Seed, req.SeedSource = &st.Seed, st.SeedSource
				d = s.pending.take(pendingKey(ctx, st.SessionID, call))
			}
		}
	}
	if d == nil {
		if d, err = s.renderAugment(ctx, a, req); err != nil {
			return nil, "", err
		}
	}
	d.Warnings = append(d.Warnings, warnings...)
	for _, w := range warnings {
		s.notify(ctx, "warning", w, map[string]any{"tool": "augment_image"})
	}
	summary := fmt.Sprintf("%d variant(s) of %dx%d %s with seed %d (%s), %d step(s), in %s",
		len(d.Variants), d.Metadata.Width, d.Metadata.Height, d.Recipe, d.Seed, d.SeedSource, len(d.Pipeline), d.Dir)
	if len(d.Skipped) > 0 {
		summary += fmt.Sprintf("; %d step(s) skipped", len(d.Skipped))
	}
	if len(verify) > 0 && !s.augmentVerification(ctx, d, verify) {
		summary += "; " + d.Verification.summary
	}
	return d, summary, nil
}

// renderAugment draws and writes the variants of an augment_image call.
func (s *Server) renderAugment(ctx context.Context, a augmentArgs, req augmentation.AugmentRequest) (*augmentData, error) {
	var err error
	if req.Seed == nil {
		if v, ok := s.seeds.get(sessionKey(ctx)); ok {
			req.Seed, req.SeedSource = &v, "session_default"
		}
	}
	returnImages, full := 4, false
	if o := a.Options; o != nil {
		full = o.FullSizeImages
		if o.OutputFormat != "" {
			req.Format = o.OutputFormat
		}
		req.Quality = o.Quality
		if o.ReturnImages != nil {
			returnImages = *o.ReturnImages
		}
	}
	if an := a.Annotations; an != nil {
		ann := an.Annotations
		req.Annotations = &ann
		if an.MaskB64 != "" {
			if req.MaskPNG, err = base64.StdEncoding.DecodeString(an.MaskB64); err != nil {
				return nil, darkroom.FieldError("annotations.mask_b64", "not base64: %v", err)
			}
		}
	}
	// Only the variants shown inline keep their bytes: the rest are streamed to
	// their files, so the call's memory does not grow with count.
	req.InlineVariants, req.InlineBytes = returnImages, maxInlineVariantBytes
	req.Progress = func(done, total int) {
		s.progress(ctx, float64(done), float64(total), fmt.Sprintf("variant %d of %d written", done, total))
	}
	out, err := s.aug.Augment(ctx, req)
	if err != nil {
		return nil, err
	}
	d := &augmentData{
		SessionID: out.SessionID, Dir: out.Dir, Seed: out.Seed, SeedSource: out.SeedSource,
		Recipe: out.Recipe, Pipeline: out.Pipeline, Skipped: append([]augment.Skipped{}, out.Unread...),
		Metadata: augmentMetadata{Width: out.Width, Height: out.Height, Format: out.Format,
			ConfigHash: out.ConfigHash, ContractVersion: s.Contract.Version, ElapsedMS: ms(out.Elapsed.Seconds())},
	}
	seen := map[string]bool{}
	for _, sk := range out.Skipped {
		if k := sk.Entry + "\x00" + sk.Code + "\x00" + sk.Reason; !seen[k] {
			seen[k] = true
			d.Skipped = append(d.Skipped, sk)
		}
	}
	inlineBytes := 0
	mime := "image/" + out.Format
	for _, v := range out.Variants {
		vv := variantView{Index: v.Index, Path: v.Path, Width: v.OutW, Height: v.OutH, Bytes: int(v.Size),
			SHA256: v.SHA256, Applied: []appliedView{}}
		for _, ap := range v.Applied {
			vv.Applied = append(vv.Applied, appliedView{ap.Entry, nonNilMap(ap.Values), ap.P, ap.Fired, ms(ap.Duration.Seconds())})
		}
		for _, sk := range v.Skipped {
			if k := sk.Entry + "\x00" + sk.Code + "\x00" + sk.Reason; !seen[k] {
				seen[k] = true
				d.Skipped = append(d.Skipped, sk)
			}
		}
		if v.Bytes != nil {
			img, err := inlineVariant(v.Bytes, mime, full)
			if err != nil {
				return nil, err
			}
			if inlineBytes+len(img.Data) <= maxInlineVariantBytes {
				inlineBytes += len(img.Data)
				vv.Inline = true
				d.images = append(d.images, img)
			}
		}
		d.links = append(d.links, s.variantLink(v.Path, int(v.Size)))
		if req.Annotations != nil || req.MaskPNG != nil {
			vv.Annotations = viewAnnotations(v)
		}
		d.Variants = append(d.Variants, vv)
	}
	d.links = append(d.links, s.variantLink(out.Dir+"/"+augmentation.AlbumentationsFile, -1))
	for _, sk := range d.Skipped {
		s.notify(ctx, "warning", fmt.Sprintf("step %s skipped: %s", sk.Entry, sk.Reason), map[string]any{"tool": "augment_image", "code": sk.Code})
	}
	return d, nil
}

// ms is a duration in milliseconds to a tenth.
func ms(seconds float64) float64 { return float64(int64(seconds*1e4+0.5)) / 10 }

func nonNilMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

func viewAnnotations(v augmentation.AugmentedVariant) *annotationsView {
	out := &annotationsView{}
	a := v.Annotations
	if a == nil {
		a = &augment.Annotations{}
	}
	dropped := map[string][]augment.Dropped{}
	for _, d := range v.Dropped {
		dropped[d.Kind] = append(dropped[d.Kind], d)
	}
	if a.Boxes != nil {
		b := &boxesView{Format: a.Boxes.Format, Boxes: a.Boxes.Boxes, Labels: a.Boxes.Labels, Dropped: []droppedView{}}
		if b.Boxes == nil {
			b.Boxes = [][4]float64{}
		}
		for _, d := range dropped["bbox"] {
			b.Dropped = append(b.Dropped, droppedView{d.Index, d.Reason})
		}
		out.Boxes = b
	}
	if a.Keypoints != nil {
		k := &keypointsView{Points: a.Keypoints.Points, Labels: a.Keypoints.Labels, Dropped: []droppedView{}}
		if k.Points == nil {
			k.Points = [][2]float64{}
		}
		for _, d := range dropped["keypoint"] {
			k.Dropped = append(k.Dropped, droppedView{d.Index, d.Reason})
		}
		out.Keypoints = k
	}
	if v.MaskPath != "" {
		p := v.MaskPath
		out.MaskPath = &p
	}
	return out
}

type validatePromptArgs struct {
	Prompt     string `json:"prompt"`
	StrictMode bool   `json:"strict_mode"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
}

type parsedView struct {
	Entry      string         `json:"entry"`
	Phrase     string         `json:"phrase"`
	Params     map[string]any `json:"params"`
	P          float64        `json:"p"`
	Confidence float64        `json:"confidence"`
}

type issueView struct {
	Message    string  `json:"message"`
	Severity   string  `json:"severity"`
	Phrase     *string `json:"phrase"`
	Suggestion *string `json:"suggestion"`
}

type ambiguityView struct {
	Phrase          string   `json:"phrase"`
	Interpretations []string `json:"interpretations"`
}

func validatePrompt(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[validatePromptArgs](args)
	if err != nil {
		return nil, "", err
	}
	r := s.aug.PromptParser().Parse(a.Prompt, prompt.Options{Strict: a.StrictMode, Width: a.Width, Height: a.Height,
		EstimateWidth: a.Width, EstimateHeight: a.Height})
	d := map[string]any{
		"valid": r.Valid, "pipeline": augment.Pipeline{}, "parsed_transforms": []parsedView{},
		"validation_errors": []issueView{}, "suggestions": nonNil(r.Suggestions), "ambiguities": []ambiguityView{},
		"complexity_score": r.Complexity, "estimated_ms": ms(r.Estimate.Seconds),
	}
	if r.Valid {
		d["pipeline"] = augmentation.PromptPipeline(s.Vocab, r)
	}
	parsed := []parsedView{}
	for _, t := range r.Transforms {
		pv := parsedView{Entry: t.Entry, Phrase: t.Phrase, Params: map[string]any{}, P: t.P, Confidence: t.Confidence}
		for k, v := range t.Values {
			pv.Params[k] = v
		}
		for k, rg := range t.Ranges {
			pv.Params[k] = rg
		}
		parsed = append(parsed, pv)
	}
	d["parsed_transforms"] = parsed
	issues := []issueView{}
	nerr := 0
	for _, e := range r.Errors {
		iv := issueView{Message: e.Message, Severity: e.Severity}
		if e.Phrase != "" {
			ph := e.Phrase
			iv.Phrase = &ph
		}
		if e.Suggestion != "" {
			sg := e.Suggestion
			iv.Suggestion = &sg
		}
		if e.Severity == "error" {
			nerr++
		}
		issues = append(issues, iv)
	}
	d["validation_errors"] = issues
	amb := []ambiguityView{}
	for _, x := range r.Ambiguities {
		amb = append(amb, ambiguityView{x.Phrase, x.Interpretations})
	}
	d["ambiguities"] = amb
	verdict := "valid"
	if !r.Valid {
		verdict = fmt.Sprintf("not valid (%d error(s))", nerr)
	}
	return d, fmt.Sprintf("prompt is %s: %d step(s), %d ambiguity(ies)", verdict, len(parsed), len(amb)), nil
}

type presetView struct {
	Name        string           `json:"name"`
	Pack        string           `json:"pack"`
	Description string           `json:"description"`
	Pipeline    augment.Pipeline `json:"pipeline"`
}

func listAvailablePresets(_ context.Context, s *Server, _ map[string]any) (any, string, error) {
	views := []presetView{}
	for _, p := range s.Vocab.Presets {
		views = append(views, presetView{p.Name, p.Pack, p.Description, augmentation.PresetPipeline(p)})
	}
	sort.Slice(views, func(i, j int) bool { return views[i].Name < views[j].Name })
	return map[string]any{"count": len(views), "presets": views}, fmt.Sprintf("%d presets", len(views)), nil
}

type setSeedArgs struct {
	Seed *uint64 `json:"seed"`
}

func setDefaultSeed(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[setSeedArgs](args)
	if err != nil {
		return nil, "", err
	}
	if a.Seed != nil && *a.Seed > augmentation.MaxSeed {
		return nil, "", darkroom.Errorf(darkroom.InvalidInput, "seed: %d is above %d", *a.Seed, uint64(augmentation.MaxSeed))
	}
	prev := s.seeds.set(sessionKey(ctx), a.Seed)
	summary := "default seed cleared: each augment_image call without a seed draws one"
	if a.Seed != nil {
		summary = fmt.Sprintf("default seed is %d for this session", *a.Seed)
	}
	return map[string]any{"seed": a.Seed, "previous": prev}, summary, nil
}

type datasetArgs struct {
	Input        string          `json:"input"`
	Output       string          `json:"output"`
	Prompt       string          `json:"prompt"`
	Preset       string          `json:"preset"`
	Pipeline     json.RawMessage `json:"pipeline"`
	Variants     int             `json:"variants"`
	Seed         uint64          `json:"seed"`
	Shard        string          `json:"shard"`
	OutputFormat string          `json:"output_format"`
}

func augmentDataset(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[datasetArgs](args)
	if err != nil {
		return nil, "", err
	}
	pipeline, albu, err := pipelineArg(a.Pipeline)
	if err != nil {
		return nil, "", err
	}
	res, err := s.aug.AugmentDataset(ctx, augmentation.DatasetRequest{
		Input: a.Input, Output: a.Output, Prompt: a.Prompt, Preset: a.Preset, Pipeline: pipeline, Albumentations: albu,
		Variants: max(a.Variants, 1), Seed: a.Seed, Shard: a.Shard, Format: a.OutputFormat, Shared: true,
		Progress: func(p dataset.Progress) {
			s.progress(ctx, float64(p.Done), float64(p.Total),
				fmt.Sprintf("%d of %d variants, %.1f/s, ETA %s", p.Done, p.Total, p.Rate, p.ETA.Round(time.Second)))
		},
	})
	if err != nil {
		return nil, "", err
	}
	r := res.Report
	var shard *string
	if res.Shard != "" {
		shard = &res.Shard
	}
	skipped := []map[string]any{}
	// The prompt's words no step took come first, with source "prompt".
	for _, u := range res.Unread {
		s.notify(ctx, "warning", fmt.Sprintf("prompt words %q skipped: %s", u.Entry, u.Reason), map[string]any{"tool": "augment_dataset", "code": u.Code})
		skipped = append(skipped, map[string]any{"source": "prompt", "code": u.Code, "message": fmt.Sprintf("%q: %s", u.Entry, u.Reason)})
	}
	for _, sk := range r.Skipped {
		s.notify(ctx, "warning", fmt.Sprintf("%s skipped: %s", sk.Source, sk.Message), map[string]any{"tool": "augment_dataset", "code": sk.Code})
		skipped = append(skipped, map[string]any{"source": sk.Source, "code": sk.Code, "message": sk.Message})
	}
	for _, sk := range res.Skipped {
		s.notify(ctx, "warning", fmt.Sprintf("%s skipped: %s", sk.Entry, sk.Reason), map[string]any{"tool": "augment_dataset", "code": sk.Code})
	}
	d := map[string]any{
		"output": res.Output, "manifest": res.Manifest, "shard": shard, "images": r.Images, "variants": r.Total,
		"written": r.Written, "reused": r.Reused, "skipped": skipped, "elapsed_ms": ms(res.Elapsed.Seconds()),
	}
	if res.Skipped != nil {
		d["skipped_transforms"] = res.Skipped
	}
	summary := fmt.Sprintf("%d variants of %d images in %s: %d written, %d reused, %d images skipped; manifest %s",
		r.Total, r.Images, res.Output, r.Written, r.Reused, len(r.Skipped), res.Manifest)
	return d, summary, nil
}
