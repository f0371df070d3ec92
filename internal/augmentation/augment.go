package augmentation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/catalog"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/prompt"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// AugmentRequest is one augment_image call in domain terms: the image (exactly one
// of ImageID, Path and Data), the recipe (exactly one of Prompt, Preset and
// Pipeline), the seed and what to write.
type AugmentRequest struct {
	ImageID, Spec string // a workspace image at Spec (HEAD when empty)
	Path          string // a file under an allowed root
	Data          []byte // the file's bytes

	Prompt   string
	Preset   string
	Pipeline augment.Pipeline
	// Albumentations is a pipeline as albumentations' A.to_dict writes it, read for
	// the image's size instead of Pipeline (albumentations.go).
	Albumentations []byte
	// Progress, when set, is told after each variant is written.
	Progress func(done, total int)

	// Seed is the seed to use; SeedSource says where it came from ("argument",
	// "session_default"), and a nil Seed draws a random one ("random").
	Seed       *uint64
	SeedSource string
	Count      int
	Format     string // png, jpeg or webp (augment.Format's spellings)
	Quality    int
	// Annotations move with the pixels; MaskPNG is a label mask (augment.DecodeMask).
	Annotations *augment.Annotations
	MaskPNG     []byte
	// InlineVariants and InlineBytes say which variants' encoded bytes the result
	// keeps (AugmentedVariant.Bytes), for a caller that shows them: the first
	// InlineVariants, while their total stays within InlineBytes. Every other
	// variant is streamed to its file and only its size and hash are kept, so what
	// a call holds does not grow with Count.
	InlineVariants int
	InlineBytes    int
}

// AugmentedVariant is one variant as written. Its pixels (Variant.Image, and the
// moved label mask) are gone once it is written.
type AugmentedVariant struct {
	*augment.Variant
	Path     string // relative to the workspace
	MaskPath string // the moved label mask, when one was given
	Size     int64  // the file's size in bytes
	// Bytes is the file's content when the request's InlineVariants and
	// InlineBytes keep it, else nil.
	Bytes  []byte
	SHA256 string
}

// Augmented is what an augmentation wrote under augment/<SessionID>/.
type Augmented struct {
	SessionID  string
	Dir        string // relative to the workspace
	Seed       uint64
	SeedSource string
	Recipe     string // prompt, preset or pipeline
	Pipeline   augment.Pipeline
	Format     string
	Width      int
	Height     int
	ConfigHash string
	Variants   []AugmentedVariant
	Elapsed    time.Duration
	// Unread are the prompt's words no step took, each with why (invalid_input):
	// augment_image lists them in skipped_transforms, so nothing is dropped silently.
	Unread []augment.Skipped
	// Skipped are the albumentations transforms and parameters darkroom cannot do.
	Skipped []augment.Skipped
}

// MaxSeed is the largest seed a JSON number carries exactly (the contract's #Seed).
const MaxSeed = 1<<53 - 1

// SessionMeta is metadata.json: what a session was made from, so a person or a
// script can tell how to reproduce it (config.json with seed).
type SessionMeta struct {
	SessionID       string           `json:"session_id"`
	Source          string           `json:"source"`
	SourceSHA256    string           `json:"source_sha256"`
	Recipe          string           `json:"recipe"`
	Prompt          string           `json:"prompt,omitempty"`
	Preset          string           `json:"preset,omitempty"`
	Seed            uint64           `json:"seed"`
	Count           int              `json:"count"`
	Format          string           `json:"format"`
	Quality         int              `json:"quality,omitempty"`
	Width           int              `json:"width"`
	Height          int              `json:"height"`
	ConfigHash      string           `json:"config_hash"`
	ContractVersion string           `json:"contract_version"`
	Variants        []SessionVariant `json:"variants"`
}

// SessionVariant is one variant of metadata.json.
type SessionVariant struct {
	Index   int               `json:"index"`
	File    string            `json:"file"`
	SHA256  string            `json:"sha256"`
	Width   int               `json:"width"`
	Height  int               `json:"height"`
	Applied []augment.Applied `json:"applied_transforms"`
	Skipped []augment.Skipped `json:"skipped_transforms"`
}

// Augmenter is the editor's augmentation engine: the vocabulary's entries rendered
// through the engine, as the editing path renders them, with the contract's facts
// (AugmentFacts).
func (s *Service) Augmenter() *augment.Augmenter {
	// The facts are made from a contract that loaded; were that to fail, the facts
	// lacking (no defaults) make each step skipped as internal_error, naming its
	// operation, and an albumentations pipeline fails on the same error.
	f, _ := AugmentFacts(s.Facts)
	return augment.New(s.Vocab, f)
}

// augmentFacts holds AugmentFacts' result per contract's facts.
var augmentFacts sync.Map // *catalog.Facts -> *factsOnce

type factsOnce struct {
	once sync.Once
	f    augment.Facts
	err  error
}

// AugmentFacts are the contract's facts augmentation needs, as plain data, made
// once per contract: the operations' defaults, the albumentations readings, and
// the words of a refused range, said in plain Go from the parameters the pack's
// check made (vocab.Entry.DerivedValues, which says it as the entry's #values
// check would: TestDerivedValuesAgreeWithValues).
func AugmentFacts(facts *catalog.Facts) (augment.Facts, error) {
	o, _ := augmentFacts.LoadOrStore(facts, &factsOnce{})
	l := o.(*factsOnce)
	l.once.Do(func() {
		l.f.Explain = explainRange
		defs, err := facts.OperationDefaults()
		if err != nil {
			l.err = darkroom.Wrap(darkroom.InternalError, err, "operation catalog")
			return
		}
		l.f.Defaults = defs
		checked, err := facts.Albumentations()
		if err != nil {
			l.err = err
			return
		}
		l.f.Albumentations, l.err = augment.NewAlbuMap(checked)
		if l.f.Albumentations != nil {
			l.f.Albumentations.Defaults = defs
		}
	})
	return l.f, l.err
}

// explainRange says why an entry's parameters refuse values (a JSON object of
// numbers by parameter name), for augment.Facts.Explain.
func explainRange(e *vocab.Entry, values json.RawMessage) error {
	var given map[string]float64
	if err := json.Unmarshal(values, &given); err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "%s: values", e.Name)
	}
	_, err := e.DerivedValues(given)
	return err
}

// PromptParser is the parser of augmentation prompts over the editor's vocabulary,
// built once.
func (s *Service) PromptParser() *prompt.Parser {
	s.parserOnce.Do(func() {
		s.parser = prompt.New(s.Vocab)
		// What albumentations has and darkroom cannot do is named as such in a
		// prompt's result, never replaced by a near entry.
		if m, err := s.albumentations(); err == nil && m != nil {
			s.parser.Lacking(m.Unsupported)
			// albumentations code in a prompt means what it means in a pipeline file.
			s.parser.ReadCalls(func(src string, w, h int) (prompt.CallReading, bool) {
				return readCall(m, s.Vocab, src, w, h)
			})
		}
		// A size in pixels is of the image the steps before it leave.
		if f, err := AugmentFacts(s.Facts); err == nil {
			s.parser.Frames(f.Defaults)
		}
	})
	return s.parser
}

// Augment draws req.Count variants of an image and writes the session folder. The
// session id is a hash of everything the bytes depend on (the source, the pipeline,
// the seed, count, format and quality, the annotations), so the same call writes the
// same folder again. ctx stops the work between variants.
func (s *Service) Augment(ctx context.Context, req AugmentRequest) (Augmented, error) {
	start := time.Now()
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Augmented{}, err
	}
	format, err := augment.Format(req.Format)
	if err != nil {
		return Augmented{}, err
	}
	if req.Quality == 0 {
		req.Quality = 90
	}
	in, err := s.augmentInput(ws, req)
	if err != nil {
		return Augmented{}, err
	}
	// The working set is reserved from the decode budget before anything is
	// decoded, in one take for a file (from its header and the recipe read at its
	// size): calls that took part of it and waited for the rest could each hold a
	// share and wait for the others until they all gave up. A workspace image's
	// size is known once its version is rendered: its decode and render are
	// reserved first, and the reservation grows to the rest.
	var res *engine.Reservation
	defer func() { res.Release() }()
	reserve := func(subject string, n int64) error {
		if res == nil {
			var err error
			res, err = engine.Reserve(ctx, "augment_image", subject, n)
			return err
		}
		return res.Grow(ctx, "augment_image", subject, n)
	}
	if in.edits != nil {
		if err := reserve(in.sourceSubject(), in.sourceCost()); err != nil {
			return Augmented{}, err
		}
	}
	out := Augmented{Format: format, SeedSource: req.SeedSource}
	// plan reads the recipe at the image's size, checks the mask's header against
	// it, and reserves the whole working set.
	plan := func(w, h int) error {
		out.Width, out.Height = w, h
		// An albumentations pipeline is read at the image's size (its pixel
		// sizes become fractions) into darkroom's steps, before the recipe.
		var err error
		if out.Skipped, err = s.importAlbumentations(&req, w, h); err != nil {
			return err
		}
		if err := s.augmentPlan(req, &out); err != nil {
			return err
		}
		if err := checkMaskHeader(req.MaskPNG, w, h); err != nil {
			return err
		}
		return reserve(fmt.Sprintf("%d variant(s) of the %dx%d image", req.Count, w, h), s.augmentWorkingSet(in, req, out))
	}
	if in.edits == nil {
		if err := plan(in.header.UprightWidth, in.header.UprightHeight); err != nil {
			return Augmented{}, err
		}
	}
	src, srcName, srcData, err := s.augmentSource(ctx, in, res)
	if err != nil {
		return Augmented{}, err
	}
	if in.edits != nil {
		if err := plan(src.W, src.H); err != nil {
			return Augmented{}, err
		}
	}
	aug := s.Augmenter()
	ann := req.Annotations
	if req.MaskPNG != nil {
		m, err := augment.DecodeMask(req.MaskPNG, src.W, src.H, engine.DecodeOptions{Context: ctx, Reserved: res.Bytes})
		if err != nil {
			return Augmented{}, maskFieldError(err)
		}
		if ann == nil {
			ann = &augment.Annotations{}
		}
		ann.Mask = m
	}

	config, err := json.MarshalIndent(out.Pipeline, "", "  ")
	if err != nil {
		return Augmented{}, darkroom.Wrap(darkroom.InternalError, err, "encode the pipeline")
	}
	config = append(config, '\n')
	sum := sha256.Sum256(config)
	out.ConfigHash = hex.EncodeToString(sum[:])
	annJSON, _ := json.Marshal(ann)
	srcSum := sha256.Sum256(srcData)
	key := sha256.New()
	fmt.Fprintf(key, "darkroom-augment-v1\x00%x\x00%s\x00%d\x00%d\x00%s\x00%d\x00", srcSum, out.ConfigHash, out.Seed, req.Count, format, req.Quality)
	key.Write(annJSON)
	key.Write(req.MaskPNG)
	out.SessionID = hex.EncodeToString(key.Sum(nil))[:16]
	dir := filepath.Join(ws.Root, workspace.AugmentDir, out.SessionID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Augmented{}, ws.FSError(err, "create %s", ws.Rel(dir))
	}
	out.Dir = ws.Rel(dir)

	ext := augment.Ext(format)
	if err := ws.WriteFile(filepath.Join(dir, "original."+srcName), srcData); err != nil {
		return Augmented{}, err
	}
	meta := SessionMeta{SessionID: out.SessionID, Source: req.source(), SourceSHA256: hex.EncodeToString(srcSum[:]),
		Recipe: out.Recipe, Prompt: req.Prompt, Preset: req.Preset, Seed: out.Seed, Count: req.Count,
		Format: format, Width: src.W, Height: src.H, ConfigHash: out.ConfigHash, ContractVersion: s.Facts.Version}
	if format == "jpeg" {
		meta.Quality = req.Quality
	}
	inlined := 0
	for n := range req.Count {
		if err := ctx.Err(); err != nil {
			return Augmented{}, darkroom.Wrap(darkroom.Unavailable, err, "augmentation cancelled after %d of %d variants", n, req.Count)
		}
		turn, err := engine.Bulk(ctx)
		if err != nil {
			return Augmented{}, darkroom.Wrap(darkroom.Unavailable, err, "augmentation cancelled after %d of %d variants", n, req.Count)
		}
		v, err := aug.Variant(src, out.Pipeline, out.Seed, n, ann)
		if err != nil {
			turn()
			return Augmented{}, err
		}
		name := filepath.Join(dir, fmt.Sprintf("result-%d.%s", n, ext))
		keep := 0
		if n < req.InlineVariants {
			keep = req.InlineBytes - inlined
		}
		sink := newVariantSink(keep)
		err = ws.WriteFileFrom(name, func(w io.Writer) error {
			if err := augment.Encode(io.MultiWriter(w, sink), v.Image, format, req.Quality); err != nil {
				return edit.RenderFailure(err, "encode variant %d", n)
			}
			return nil
		})
		turn()
		engine.Recycle(v.Image)
		v.Image = nil // written: let the pixels go before the next variant
		if err != nil {
			return Augmented{}, err
		}
		av := AugmentedVariant{Variant: v, Path: ws.Rel(name), Size: sink.size, Bytes: sink.kept(), SHA256: hex.EncodeToString(sink.sum.Sum(nil))}
		inlined += len(av.Bytes)
		if v.Annotations != nil && v.Annotations.Mask != nil {
			png, err := v.Annotations.Mask.PNG()
			if err != nil {
				return Augmented{}, edit.RenderFailure(err, "encode the mask of variant %d", n)
			}
			mname := filepath.Join(dir, fmt.Sprintf("mask-%d.png", n))
			if err := ws.WriteFile(mname, png); err != nil {
				return Augmented{}, err
			}
			av.MaskPath = ws.Rel(mname)
			moved := *v.Annotations
			moved.Mask = nil // written: its labels go too
			v.Annotations = &moved
		}
		out.Variants = append(out.Variants, av)
		meta.Variants = append(meta.Variants, SessionVariant{Index: n, File: filepath.Base(name), SHA256: av.SHA256,
			Width: v.OutW, Height: v.OutH, Applied: nonNilSlice(v.Applied), Skipped: nonNilSlice(v.Skipped)})
		if req.Progress != nil {
			req.Progress(n+1, req.Count)
		}
	}
	metaJSON, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return Augmented{}, darkroom.Wrap(darkroom.InternalError, err, "encode metadata.json")
	}
	if err := ws.WriteFile(filepath.Join(dir, "metadata.json"), append(metaJSON, '\n')); err != nil {
		return Augmented{}, err
	}
	if err := s.writeAlbumentations(ws, dir, out.Pipeline, src.W, src.H, ann); err != nil {
		return Augmented{}, err
	}
	// config.json last: a folder that has it is complete.
	if err := ws.WriteFile(filepath.Join(dir, "config.json"), config); err != nil {
		return Augmented{}, err
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (req AugmentRequest) source() string {
	switch {
	case req.ImageID != "":
		spec := req.Spec
		if spec == "" {
			spec = "HEAD"
		}
		return "image_id:" + req.ImageID + "@" + spec
	case req.Path != "":
		return "path:" + filepath.Base(req.Path)
	}
	return "image_b64"
}

// recipe turns the request's recipe into a pipeline: a prompt parsed at the image's
// size (an invalid prompt is invalid_input carrying the parser's errors), a preset
// by name or alias, or the pipeline as given.
func (s *Service) recipe(req AugmentRequest, w, h int) (string, augment.Pipeline, []augment.Skipped, error) {
	given := 0
	for _, ok := range []bool{req.Prompt != "", req.Preset != "", req.Pipeline != nil} {
		if ok {
			given++
		}
	}
	if given != 1 {
		return "", nil, nil, darkroom.FieldError("prompt", "give exactly one of prompt, preset or pipeline")
	}
	switch {
	case req.Preset != "":
		p, ok := s.Vocab.Preset(req.Preset)
		if !ok {
			return "", nil, nil, darkroom.Errorf(darkroom.NotFound, "preset %q does not exist (list_available_presets lists them)", req.Preset)
		}
		return "preset", PresetPipeline(p), nil, nil
	case req.Pipeline != nil:
		return "pipeline", req.Pipeline, nil, nil
	}
	r := s.PromptParser().Parse(req.Prompt, prompt.Options{Width: w, Height: h})
	if !r.Valid {
		return "", nil, nil, PromptError(r)
	}
	return "prompt", PromptPipeline(s.Vocab, r), PromptUnread(r), nil
}

// PromptUnread lists the words of a parsed prompt that no step took, each with the
// parser's reason, as skipped transforms named by the words (invalid_input).
func PromptUnread(r *prompt.Result) []augment.Skipped {
	out := []augment.Skipped{}
	for _, is := range r.Unread() {
		reason := is.Message
		if is.Suggestion != "" {
			reason += " (" + is.Suggestion + ")"
		}
		out = append(out, augment.Skipped{Entry: is.Phrase, Reason: reason, Code: darkroom.InvalidInput})
	}
	return out
}

// PromptError is the invalid_input of a prompt that does not read as a pipeline,
// with the parser's errors in details.
func PromptError(r *prompt.Result) error {
	msg := "the prompt names no transform darkroom knows"
	var errs []any
	for _, e := range r.Errors {
		if e.Severity != "error" {
			continue
		}
		if len(errs) == 0 {
			msg = e.Message
		}
		errs = append(errs, map[string]any{"message": e.Message, "suggestion": e.Suggestion})
	}
	if len(errs) > 1 {
		msg = fmt.Sprintf("%s (and %d more)", msg, len(errs)-1)
	}
	return &darkroom.Error{Code: darkroom.InvalidInput, Message: "prompt: " + msg,
		Details: map[string]any{"fields": []any{map[string]any{"path": "prompt", "message": msg}}, "validation_errors": errs}}
}

// PromptPipeline is the pipeline a parsed prompt asks for: its transforms, then the
// steps of the preset it names ("random 90 degree rotations and the aerial preset").
func PromptPipeline(voc *vocab.Vocabulary, r *prompt.Result) augment.Pipeline {
	p := augment.Pipeline{}
	groups := map[*prompt.Group]*augment.Group{}
	var group func(g *prompt.Group) *augment.Group
	group = func(g *prompt.Group) *augment.Group {
		if g == nil {
			return nil
		}
		if ag, ok := groups[g]; ok {
			return ag
		}
		ag := &augment.Group{ID: g.ID, Kind: g.Kind, P: g.P, N: g.N, Replace: g.Replace, Parent: group(g.Parent)}
		groups[g] = ag
		return ag
	}
	for _, t := range r.Transforms {
		st := pipelineStep(t.Entry, t.P, t.Values, t.Ranges)
		// A container written in the prompt's code (A.OneOf([...], p=0.2)) is the
		// steps' group, as in a pipeline given as albumentations code.
		st.Group = group(t.Group)
		p = append(p, st)
	}
	if r.Preset != "" {
		if pr, ok := voc.Preset(r.Preset); ok {
			p = append(p, PresetPipeline(pr)...)
		}
	}
	return p
}

// PresetPipeline is a preset's pipeline.
func PresetPipeline(pr *vocab.Preset) augment.Pipeline {
	p := augment.Pipeline{}
	for _, s := range pr.Pipeline {
		p = append(p, pipelineStep(s.Entry, s.P, s.Values, s.Ranges))
	}
	return p
}

// pipelineStep is one step from fixed values and [lo, hi] ranges by parameter.
func pipelineStep(entry string, p float64, values map[string]float64, ranges map[string][2]float64) augment.Step {
	st := augment.Step{Entry: entry, P: p, Params: map[string]augment.Value{}}
	for k, v := range values {
		st.Params[k] = augment.Fixed(v)
	}
	for k, rg := range ranges {
		st.Params[k] = augment.Value{Lo: rg[0], Hi: rg[1]}
	}
	return st
}

// readCall reads one albumentations call a prompt wrote as a pipeline file reads the
// same transform; false when it is not a call of literals or does not become exactly
// one step.
func readCall(m *augment.AlbuMap, voc *vocab.Vocabulary, src string, w, h int) (prompt.CallReading, bool) {
	call, err := m.ParseCall(src)
	if err != nil {
		return prompt.CallReading{}, false
	}
	imp, err := m.ReadCall(call, voc, w, h)
	if err != nil || len(imp.Pipeline) != 1 || imp.Pipeline[0].Group != nil || len(imp.Skipped) > 0 {
		// Not one step, or one that leaves part of the call undone: the prompt's
		// own reading stands (it reads some of what a pipeline lists, such as
		// RandomBrightnessContrast's contrast, approximately).
		return prompt.CallReading{}, false
	}
	st := imp.Pipeline[0]
	rd := prompt.CallReading{Entry: st.Entry, Values: map[string]float64{}, Ranges: map[string][2]float64{}}
	for k, v := range st.Params {
		if v.Lo == v.Hi {
			rd.Values[k] = v.Lo
		} else {
			rd.Ranges[k] = [2]float64{v.Lo, v.Hi}
		}
	}
	return rd, true
}
