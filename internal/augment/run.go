package augment

import (
	"fmt"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/resolve"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// MaxVariants is the most variants one Run makes (the contract's count bound).
const MaxVariants = 64

// Applied is one step of a variant that was considered: the values drawn for it,
// its probability, whether it fired, and how long its render took (0 when it did not
// fire).
type Applied struct {
	Entry    string             `json:"entry"`
	Values   map[string]float64 `json:"values"`
	P        float64            `json:"p"`
	Fired    bool               `json:"fired"`
	Duration time.Duration      `json:"-"`
}

// Skipped is a step that could not be applied, with the contract's error code: an
// entry no pack defines (not_found), arguments the operation refuses, a render that
// fails (limit_exceeded for a scale too large, invalid_input for a crop that leaves
// nothing, render_error).
type Skipped struct {
	Entry  string `json:"name"`
	Reason string `json:"reason"`
	Code   string `json:"code"`
}

// Variant is one augmented image.
type Variant struct {
	// Index is n, the variant's number, from 0.
	Index int
	Image *engine.Image
	// Applied lists every step that rendered or was drawn not to fire, in order.
	Applied []Applied
	// Skipped lists the steps that could not be applied.
	Skipped []Skipped
	// InW, InH and OutW, OutH are the dimensions before and after.
	InW, InH, OutW, OutH int
	// Annotations are the caller's annotations moved as the pixels moved, nil when
	// none were given; Dropped says which boxes and keypoints were removed and why.
	Annotations *Annotations
	Dropped     []Dropped
}

// Run makes count variants (1 to MaxVariants) of src, variant n being exactly what
// Variant(src, p, seed, n, ann) makes: the same bytes whatever count is. The
// pipeline is checked first (Check's errors).
func (a *Augmenter) Run(src *engine.Image, p Pipeline, seed uint64, count int, ann *Annotations) ([]*Variant, error) {
	if count < 1 || count > MaxVariants {
		return nil, fieldError("count", "count %d is outside [1, %d]", count, MaxVariants)
	}
	if err := a.Check(p); err != nil {
		return nil, err
	}
	if err := ann.check(src.W, src.H); err != nil {
		return nil, err
	}
	out := make([]*Variant, count)
	for n := range out {
		v, err := a.variant(src, p, seed, n, ann, false)
		if err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, nil
}

// Variant makes variant n of src: each step in order fires with its probability,
// draws its values, and renders (engine.Render) the edits its entry resolves to, as
// the editing path resolves them, with a seed of its own; every draw is keyed by
// (seed, n, step). Annotations follow each geometry edit through the engine's
// geometry maps. A step that cannot be applied is skipped and reported; only a bad
// pipeline or bad annotations fail the call.
func (a *Augmenter) Variant(src *engine.Image, p Pipeline, seed uint64, n int, ann *Annotations) (*Variant, error) {
	return a.checkedVariant(src, p, seed, n, ann, false)
}

// VariantOwned is Variant for a caller that gives src up, as a dataset worker gives
// the image it decoded: src must not be used afterwards (its pixels may be the
// variant's, or recycled), and a step of per-pixel tone edits changes the image in
// place instead of writing another. Every value is Variant's. When it fails, src is
// still the caller's.
func (a *Augmenter) VariantOwned(src *engine.Image, p Pipeline, seed uint64, n int, ann *Annotations) (*Variant, error) {
	return a.checkedVariant(src, p, seed, n, ann, true)
}

// checkedVariant checks the pipeline and the annotations, then makes variant n.
func (a *Augmenter) checkedVariant(src *engine.Image, p Pipeline, seed uint64, n int, ann *Annotations, own bool) (*Variant, error) {
	if err := a.Check(p); err != nil {
		return nil, err
	}
	if err := ann.check(src.W, src.H); err != nil {
		return nil, err
	}
	return a.variant(src, p, seed, n, ann, own)
}

// variant makes variant n; own says whether src is the variant's to change or
// give up. The fired steps render in the recipe's order in one engine.RenderSteps,
// which asks for each step at the size the steps before it left: the step's edits
// and geometry maps are resolved then, and a step whose annotations cannot follow
// is skipped before it renders. The engine reports, step by step in order, whether
// each rendered; a step that did not is skipped and leaves the image as it was.
func (a *Augmenter) variant(src *engine.Image, p Pipeline, seed uint64, n int, ann *Annotations, own bool) (*Variant, error) {
	v := &Variant{Index: n, InW: src.W, InH: src.H}
	tr := newTracker(ann, src.W, src.H)
	// Each drawn step's outcome: its record when it was drawn not to fire or
	// rendered, its skip when it could not be applied.
	type outcome struct {
		rec     *Applied
		skip    *Skipped
		maps    []engine.GeoMap
		started time.Time
		entry   string
	}
	// The steps as drawn, in the order they apply (a some_of's in the order it drew
	// them, a step it drew twice twice); outs follow them.
	firing := p.firing(seed, n)
	outs := make([]outcome, len(firing))
	var sent []int // the outcomes given to the engine and not yet reported, in order
	i := 0
	next := func(w, h int) (engine.Step, bool) {
		for ; i < len(firing); i++ {
			ev := firing[i]
			s := p[ev.t]
			e, ok := a.Vocab.Entry(s.Entry)
			if !ok {
				outs[i].skip = &Skipped{s.Entry, fmt.Sprintf("no vocabulary entry %q", s.Entry), darkroom.NotFound}
				continue
			}
			key := repKey(stepKey(seed, n, ev.t), ev.rep)
			values := sample(key, s, e)
			rec := Applied{Entry: s.Entry, Values: values, P: s.P, Fired: ev.fired}
			if !rec.Fired {
				outs[i].rec = &rec
				continue
			}
			start := time.Now()
			edits, err := a.edits(e, values)
			opt := s.renderOptions(renderSeed(key))
			// The geometry maps first: a step whose annotations cannot follow is
			// skipped before it renders.
			var maps []engine.GeoMap
			if err == nil && tr != nil {
				maps, err = engine.GeometryMaps(w, h, edits, opt)
			}
			if err != nil {
				outs[i].skip = &Skipped{s.Entry, err.Error(), darkroom.Code(err)}
				continue
			}
			outs[i] = outcome{rec: &rec, maps: maps, started: start, entry: s.Entry}
			sent = append(sent, i)
			i++
			return engine.Step{Edits: edits, Opt: opt}, true
		}
		return engine.Step{}, false
	}
	done := func(err error) {
		k := sent[0]
		sent = sent[1:]
		o := &outs[k]
		if err != nil {
			o.skip = &Skipped{o.entry, err.Error(), darkroom.Code(err)}
			o.rec = nil
			return
		}
		for i := range o.maps {
			tr.apply(&o.maps[i])
		}
		o.rec.Duration = time.Since(o.started)
	}
	cur := engine.RenderSteps(src, own, next, done)
	for _, o := range outs {
		if o.rec != nil {
			v.Applied = append(v.Applied, *o.rec)
		}
		if o.skip != nil {
			v.Skipped = append(v.Skipped, *o.skip)
		}
	}
	v.Image, v.OutW, v.OutH = cur, cur.W, cur.H
	if tr != nil {
		v.Annotations, v.Dropped = tr.result(cur.W, cur.H)
	}
	return v, nil
}

// edits resolves an entry with values into engine edits as the editing path does
// (resolve.Edits), under the entry's default mask if it declares one. The values
// were checked with the pipeline; nothing here evaluates CUE.
func (a *Augmenter) edits(e *vocab.Entry, values map[string]float64) ([]engine.Edit, error) {
	var mask *engine.Mask
	if e.DefaultMask != "" {
		mk, ok := a.Vocab.Mask(e.DefaultMask)
		if !ok {
			return nil, darkroom.Errorf(darkroom.MaskingError, "entry %s: no mask named %q", e.Name, e.DefaultMask)
		}
		var err error
		if mask, err = engine.DecodeMask(mk.Spec); err != nil {
			return nil, darkroom.Wrap(darkroom.Code(err), err, "entry %s", e.Name)
		}
	}
	return resolve.Edits(e, values, mask, 1, a.Defaults)
}
