package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/augmentation"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// Question is one sampling request verify_augmentation needs answered: an id
// ("<variant>/<check>"), the prompt, and the images (the original, then the variant).
type Question struct {
	ID     string
	Prompt string
	Images []SampleImage
}

// Answer is the client's model's reply to a Question.
type Answer struct {
	Model, Text string
}

// SampleImage is an image sent with a sampling request: its bytes, or with
// VerifyRequest.PathsOnly the file that holds them (for the caller to read when it
// sends it, so questions waiting to be sent hold no image).
type SampleImage struct {
	Data []byte
	MIME string
	Path string
}

// VisualCheck is what the model said about whether the transforms are visible.
type VisualCheck struct {
	Parsed      bool   `json:"parsed"`
	Visible     *bool  `json:"visible"`
	Confidence  *int   `json:"confidence"`
	ChangesSeen string `json:"changes_seen"`
}

// LabelCheck is what the model named as the main subject of each image.
type LabelCheck struct {
	Parsed           bool    `json:"parsed"`
	OriginalSubject  *string `json:"original_subject"`
	AugmentedSubject *string `json:"augmented_subject"`
	LabelChanged     *bool   `json:"label_changed"`
	Risk             *string `json:"risk"`
}

// VerifiedVariant is one variant's checks.
type VerifiedVariant struct {
	Index  int          `json:"index"`
	Visual *VisualCheck `json:"visual"`
	Label  *LabelCheck  `json:"label"`
}

// Verified is what verify_augmentation found and wrote.
type Verified struct {
	SessionID string            `json:"session_id"`
	Model     *string           `json:"model"`
	Variants  []VerifiedVariant `json:"variants"`
	Report    string            `json:"-"` // classification_report.json, relative to the workspace
	Markdown  string            `json:"-"` // visual_verification.md
}

var jsonObject = regexp.MustCompile(`(?s)\{.*\}`)

// VerifyRequest names what to verify: the variants (at most MaxVariants) of an
// augmentation session, with the checks visual and/or label.
type VerifyRequest struct {
	SessionID   string
	Checks      []string
	MaxVariants int
	// PathsOnly makes Questions name each image's file (SampleImage.Path)
	// instead of reading it.
	PathsOnly bool
}

type verifySession struct {
	ws   *workspace.Workspace
	dir  string
	meta augmentation.SessionMeta
}

func openSession(ws *workspace.Workspace, id string) (*verifySession, error) {
	dir := filepath.Join(ws.Root, workspace.AugmentDir, id)
	metaJSON, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, darkroom.Errorf(darkroom.NotFound, "no augmentation session %q (augment_image reports session_id)", id)
		}
		return nil, ws.FSError(err, "read %s", ws.Rel(dir))
	}
	v := &verifySession{ws: ws, dir: dir}
	if err := json.Unmarshal(metaJSON, &v.meta); err != nil {
		return nil, darkroom.Wrap(darkroom.StateError, err, "session %s: metadata.json is damaged", id)
	}
	return v, nil
}

// Questions are the sampling requests a verification needs: one per variant
// and check, each with the original and the variant as images.
func Questions(ws *workspace.Workspace, req VerifyRequest) ([]Question, error) {
	vs, err := openSession(ws, req.SessionID)
	if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(vs.dir, "original.*"))
	if err != nil || len(names) != 1 {
		return nil, darkroom.Errorf(darkroom.NotFound, "session %s has no original image", req.SessionID)
	}
	read := func(path string) (SampleImage, error) {
		if req.PathsOnly {
			return SampleImage{Path: path, MIME: mimeOf(path)}, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return SampleImage{}, vs.ws.FSError(err, "read %s", vs.ws.Rel(path))
		}
		return SampleImage{Data: data, MIME: mimeOf(path)}, nil
	}
	orig, err := read(names[0])
	if err != nil {
		return nil, err
	}
	var qs []Question
	for i, v := range vs.meta.Variants {
		if i >= req.MaxVariants {
			break
		}
		variant, err := read(filepath.Join(vs.dir, v.File))
		if err != nil {
			return nil, err
		}
		imgs := []SampleImage{orig, variant}
		for _, c := range req.Checks {
			prompt := labelPrompt
			if c == "visual" {
				prompt = visualPrompt(v.Applied)
			}
			qs = append(qs, Question{ID: fmt.Sprintf("%d/%s", v.Index, c), Prompt: prompt, Images: imgs})
		}
	}
	return qs, nil
}

// Answers reads the model's answers to Questions, writes
// classification_report.json and visual_verification.md into the session folder and
// returns what they say. A question without an answer is unavailable.
func Answers(ws *workspace.Workspace, req VerifyRequest, answers map[string]Answer) (Verified, error) {
	vs, err := openSession(ws, req.SessionID)
	if err != nil {
		return Verified{}, err
	}
	out := Verified{SessionID: req.SessionID, Variants: []VerifiedVariant{}}
	for i, v := range vs.meta.Variants {
		if i >= req.MaxVariants {
			break
		}
		vv := VerifiedVariant{Index: v.Index}
		for _, c := range req.Checks {
			a, ok := answers[fmt.Sprintf("%d/%s", v.Index, c)]
			if !ok {
				return Verified{}, darkroom.Errorf(darkroom.Unavailable, "the client answered no %s question about variant %d", c, v.Index)
			}
			if out.Model == nil && a.Model != "" {
				m := a.Model
				out.Model = &m
			}
			if c == "visual" {
				vv.Visual = parseVisual(a.Text)
			}
		}
		for _, c := range req.Checks {
			if c == "label" {
				vv.Label = parseLabel(answers[fmt.Sprintf("%d/label", v.Index)].Text, vv.Visual)
			}
		}
		out.Variants = append(out.Variants, vv)
	}
	report, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return Verified{}, darkroom.Wrap(darkroom.InternalError, err, "encode the report")
	}
	rp, mp := filepath.Join(vs.dir, "classification_report.json"), filepath.Join(vs.dir, "visual_verification.md")
	if err := vs.ws.WriteFile(rp, append(report, '\n')); err != nil {
		return Verified{}, err
	}
	if err := vs.ws.WriteFile(mp, []byte(verificationMarkdown(out, vs.meta))); err != nil {
		return Verified{}, err
	}
	out.Report, out.Markdown = vs.ws.Rel(rp), vs.ws.Rel(mp)
	return out, nil
}

func mimeOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".tif", ".tiff":
		return "image/tiff"
	}
	return "image/png"
}

func visualPrompt(applied []augment.Applied) string {
	var fired []string
	for _, a := range applied {
		if a.Fired {
			fired = append(fired, appliedPhrase(a))
		}
	}
	intended := "no transform (the variant should look like the original)"
	if len(fired) > 0 {
		intended = strings.Join(fired, "; ")
	}
	return "The first image is an original photo, the second an augmented copy of it. " +
		"The augmentation intended to apply: " + intended + ". " +
		`Are these transforms visible in the second image? Answer with JSON only: {"visible": true or false, "confidence": 1 to 5, "changes_seen": "what differs"}.`
}

// appliedPhrase names a step that fired for a model to read: the entry, then its
// drawn values by parameter ("rotate (angle 90)"), not Go's map syntax.
func appliedPhrase(a augment.Applied) string {
	if len(a.Values) == 0 {
		return a.Entry
	}
	var vals []string
	for _, k := range slices.Sorted(maps.Keys(a.Values)) {
		vals = append(vals, fmt.Sprintf("%s %.4g", k, a.Values[k]))
	}
	return a.Entry + " (" + strings.Join(vals, ", ") + ")"
}

const labelPrompt = "The first image is an original photo, the second an augmented copy of it. " +
	`Name the main subject of each in a word or two. Answer with JSON only: {"original_subject": "...", "augmented_subject": "..."}.`

func parseVisual(text string) *VisualCheck {
	v := &VisualCheck{ChangesSeen: strings.TrimSpace(text)}
	var r struct {
		Visible     *bool    `json:"visible"`
		Confidence  *float64 `json:"confidence"`
		ChangesSeen *string  `json:"changes_seen"`
	}
	if m := jsonObject.FindString(text); m == "" || json.Unmarshal([]byte(m), &r) != nil || r.Visible == nil {
		return v
	}
	v.Parsed, v.Visible = true, r.Visible
	if r.Confidence != nil && *r.Confidence >= 1 && *r.Confidence <= 5 {
		c := int(*r.Confidence + 0.5)
		v.Confidence = &c
	}
	if r.ChangesSeen != nil {
		v.ChangesSeen = *r.ChangesSeen
	}
	return v
}

// parseLabel reads the subjects; the label changed when they differ once articles,
// case and a plural s are set aside. The risk is high when it changed, medium when
// the visual check found the transforms invisible, else low.
func parseLabel(text string, visual *VisualCheck) *LabelCheck {
	l := &LabelCheck{}
	var r struct {
		Original  *string `json:"original_subject"`
		Augmented *string `json:"augmented_subject"`
	}
	if m := jsonObject.FindString(text); m == "" || json.Unmarshal([]byte(m), &r) != nil || r.Original == nil || r.Augmented == nil {
		return l
	}
	l.Parsed, l.OriginalSubject, l.AugmentedSubject = true, r.Original, r.Augmented
	changed := subject(*r.Original) != subject(*r.Augmented)
	l.LabelChanged = &changed
	risk := "low"
	switch {
	case changed:
		risk = "high"
	case visual != nil && visual.Visible != nil && !*visual.Visible:
		risk = "medium"
	}
	l.Risk = &risk
	return l
}

// subject normalises a subject's name for comparison: case, articles, punctuation
// and plural s set aside ("A cup of coffee." is "cups of coffee").
func subject(s string) string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Trim(w, ".,;:!?\"'")
		if w == "a" || w == "an" || w == "the" || w == "" {
			continue
		}
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

func verificationMarkdown(v Verified, meta augmentation.SessionMeta) string {
	var b strings.Builder
	model := "the client's model"
	if v.Model != nil {
		model = *v.Model
	}
	fmt.Fprintf(&b, "# Verification of augmentation %s\n\nAsked %s through MCP sampling, seed %d, recipe %s.\n\n", v.SessionID, model, meta.Seed, meta.Recipe)
	for _, vv := range v.Variants {
		fmt.Fprintf(&b, "## Variant %d\n\n", vv.Index)
		if c := vv.Visual; c != nil {
			switch {
			case !c.Parsed:
				fmt.Fprintf(&b, "- visual: unparsed reply: %s\n", c.ChangesSeen)
			default:
				conf := "none given"
				if c.Confidence != nil {
					conf = fmt.Sprintf("%d/5", *c.Confidence)
				}
				fmt.Fprintf(&b, "- visual: transforms visible %v (confidence %s); seen: %s\n", *c.Visible, conf, c.ChangesSeen)
			}
		}
		if l := vv.Label; l != nil {
			if !l.Parsed {
				b.WriteString("- label: unparsed reply\n")
			} else {
				fmt.Fprintf(&b, "- label: %q then %q, changed %v, risk %s\n", *l.OriginalSubject, *l.AugmentedSubject, *l.LabelChanged, *l.Risk)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
