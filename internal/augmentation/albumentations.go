package augmentation

import (
	"path/filepath"
	"slices"
	"sync"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// AlbumentationsFile is the pipeline every augmentation session also writes for
// albumentations' A.from_dict.
const AlbumentationsFile = "albumentations.json"

// albumentations returns the albumentations readings.
func (s *Service) albumentations() (*augment.AlbuMap, error) {
	f, err := AugmentFacts(s.Facts)
	return f.Albumentations, err
}

// importAlbumentations reads req.Albumentations (A.to_dict's object) for a w x h
// image into req.Pipeline, and its bbox_params into the annotations: a box format the
// request leaves out is the pipeline's, and its min_visibility counts when the
// request's is 0. It returns what darkroom cannot do, to report.
func (s *Service) importAlbumentations(req *AugmentRequest, w, h int) ([]augment.Skipped, error) {
	if req.Albumentations == nil {
		return nil, nil
	}
	if req.Prompt != "" || req.Preset != "" {
		return nil, darkroom.FieldError("prompt", "give exactly one of prompt, preset or pipeline")
	}
	m, err := s.albumentations()
	if err != nil {
		return nil, err
	}
	imp, err := m.Import(req.Albumentations, s.Vocab, w, h)
	if err != nil {
		return nil, err
	}
	req.Pipeline, req.Albumentations = imp.Pipeline, nil
	if err := applyBoxParams(req.Annotations, imp); err != nil {
		return nil, err
	}
	return imp.Skipped, nil
}

// applyBoxParams fills the annotations' box format and min_visibility from the
// pipeline's bbox_params.
func applyBoxParams(ann *augment.Annotations, imp *augment.Imported) error {
	if ann == nil {
		return nil
	}
	if b := ann.Boxes; b != nil {
		switch {
		case b.Format == "" && imp.BoxFormat == "":
			return darkroom.FieldError("annotations.bboxes.format", "annotations.bboxes.format is required (the pipeline has no bbox_params format)")
		case b.Format == "":
			b.Format = imp.BoxFormat
		case imp.BoxFormat != "" && b.Format != imp.BoxFormat:
			return darkroom.FieldError("annotations.bboxes.format", "annotations.bboxes.format %s differs from the pipeline's bbox_params format %s", b.Format, imp.BoxFormat)
		}
	}
	if ann.MinVisibility == 0 && imp.MinVisibility != nil {
		ann.MinVisibility = *imp.MinVisibility
	}
	return nil
}

// writeAlbumentations writes albumentations.json into a session folder.
func (s *Service) writeAlbumentations(ws *workspace.Workspace, dir string, p augment.Pipeline, w, h int, ann *augment.Annotations) error {
	m, err := s.albumentations()
	if err != nil {
		return err
	}
	opt := augment.ExportOptions{}
	if ann != nil {
		if ann.Boxes != nil {
			opt.BoxFormat, opt.MinVisibility = ann.Boxes.Format, ann.MinVisibility
			opt.BoxLabels = ann.Boxes.Labels != nil
		}
		if ann.Keypoints != nil {
			opt.Keypoints, opt.KeypointLabels = true, ann.Keypoints.Labels != nil
		}
	}
	b, _, err := m.Export(p, s.Vocab, w, h, opt)
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "encode %s", AlbumentationsFile)
	}
	return ws.WriteFile(filepath.Join(dir, AlbumentationsFile), b)
}

// albuRecipe is an albumentations pipeline a dataset runs: read once at a nominal
// size to check it, and again at each image's size when a value is in pixels.
type albuRecipe struct {
	s       *Service
	raw     []byte
	nominal *augment.Imported
	mu      sync.Mutex
	bySize  map[[2]int]augment.Pipeline
	skipped []augment.Skipped
	seen    map[augment.Skipped]bool
}

// albuNominal is the size a dataset's albumentations pipeline is checked at.
const albuNominal = 1024

func (s *Service) newAlbuRecipe(raw []byte) (*albuRecipe, error) {
	m, err := s.albumentations()
	if err != nil {
		return nil, err
	}
	imp, err := m.Import(raw, s.Vocab, albuNominal, albuNominal)
	if err != nil {
		return nil, err
	}
	r := &albuRecipe{s: s, raw: raw, nominal: imp, bySize: map[[2]int]augment.Pipeline{}, seen: map[augment.Skipped]bool{}}
	r.note(imp.Skipped)
	return r, nil
}

func (r *albuRecipe) note(sk []augment.Skipped) {
	for _, x := range sk {
		if !r.seen[x] {
			r.seen[x] = true
			r.skipped = append(r.skipped, x)
		}
	}
}

// at is the pipeline for a w x h image.
func (r *albuRecipe) at(w, h int) (augment.Pipeline, error) {
	if r == nil {
		return nil, nil
	}
	if !r.nominal.SizeDependent {
		return r.nominal.Pipeline, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.bySize[[2]int{w, h}]; ok {
		return p, nil
	}
	m, err := r.s.albumentations()
	if err != nil {
		return nil, err
	}
	imp, err := m.Import(r.raw, r.s.Vocab, w, h)
	if err != nil {
		return nil, err
	}
	r.note(imp.Skipped)
	if len(r.bySize) < 256 {
		r.bySize[[2]int{w, h}] = imp.Pipeline
	}
	return imp.Pipeline, nil
}

// Skipped is what darkroom could not do, at every size met so far.
func (r *albuRecipe) Skipped() []augment.Skipped {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.skipped)
}
