package augment

import (
	"fmt"
	"slices"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
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
// recycle. Each step renders with engine.RenderOwned once the image is the
// variant's own, which leaves it unchanged when the step fails (and is skipped).
//
// A fired step that only flips waits for the next step that fires: when that
// step's first edit warps and can read the image mirrored (engine.TakesFlip), both
// render in one call and the flip costs nothing. The pixels, annotations and
// records are those of rendering the two one after the other; if the joint render
// fails, they are rendered one after the other.
func (a *Augmenter) variant(src *engine.Image, p Pipeline, seed uint64, n int, ann *Annotations, own bool) (*Variant, error) {
	v := &Variant{Index: n, InW: src.W, InH: src.H}
	tr := newTracker(ann, src.W, src.H)
	cur := src
	render := func(edits []engine.Edit, opt engine.RenderOptions) (*engine.Image, error) {
		if cur != src || own {
			return engine.RenderOwned(cur, edits, opt) // cur is unchanged if it fails
		}
		return engine.Render(cur, edits, opt)
	}
	// applied records a rendered step: its maps move the annotations.
	applied := func(out *engine.Image, maps []engine.GeoMap) {
		for i := range maps {
			tr.apply(&maps[i])
		}
		cur = out
	}
	var held *heldFlip
	// flush renders the held flip on its own, in its place among the records.
	flush := func() {
		if held == nil {
			return
		}
		h := held
		held = nil
		out, err := render(h.edits, h.opt)
		if err != nil {
			v.Applied = slices.Delete(v.Applied, h.applied, h.applied+1)
			v.Skipped = slices.Insert(v.Skipped, h.skipped, Skipped{h.entry, err.Error(), darkroom.Code(err)})
			return
		}
		applied(out, h.maps)
	}
	firing := p.firing(seed, n)
	for t, s := range p {
		e, ok := a.Vocab.Entry(s.Entry)
		if !ok {
			v.Skipped = append(v.Skipped, Skipped{s.Entry, fmt.Sprintf("no vocabulary entry %q", s.Entry), darkroom.NotFound})
			continue
		}
		key := stepKey(seed, n, t)
		values := sample(key, s, e)
		rec := Applied{Entry: s.Entry, Values: values, P: s.P, Fired: firing[t]}
		if !rec.Fired {
			v.Applied = append(v.Applied, rec)
			continue
		}
		start := time.Now()
		edits, err := a.edits(e, values)
		opt := s.renderOptions(renderSeed(key))
		// The geometry maps first: a step whose annotations cannot follow is
		// skipped before an owned image is given to its render.
		var maps []engine.GeoMap
		if err == nil && tr != nil {
			maps, err = engine.GeometryMaps(cur.W, cur.H, edits, opt)
		}
		if err != nil {
			v.Skipped = append(v.Skipped, Skipped{s.Entry, err.Error(), darkroom.Code(err)})
			continue
		}
		if held != nil && len(edits) > 0 && engine.TakesFlip(edits[0], opt) {
			if out, err := render(append(slices.Clip(held.edits), edits...), opt); err == nil {
				applied(out, held.maps)
				applied(out, maps)
				held = nil
				rec.Duration = time.Since(start)
				v.Applied = append(v.Applied, rec)
				continue
			}
		}
		flush()
		if holdFlips && onlyFlips(edits) {
			rec.Duration = time.Since(start)
			held = &heldFlip{entry: s.Entry, edits: edits, opt: opt, maps: maps, applied: len(v.Applied), skipped: len(v.Skipped)}
			v.Applied = append(v.Applied, rec)
			continue
		}
		out, err := render(edits, opt)
		if err != nil {
			v.Skipped = append(v.Skipped, Skipped{s.Entry, err.Error(), darkroom.Code(err)})
			continue
		}
		applied(out, maps)
		rec.Duration = time.Since(start)
		v.Applied = append(v.Applied, rec)
	}
	flush()
	if cur == src && !own {
		cur = src.Clone()
	}
	v.Image, v.OutW, v.OutH = cur, cur.W, cur.H
	if tr != nil {
		v.Annotations, v.Dropped = tr.result(cur.W, cur.H)
	}
	return v, nil
}

// holdFlips lets variant hold a step of flips for the next step (tests turn it off
// to compare with rendering step by step).
var holdFlips = true

// heldFlip is a fired step of flips not yet rendered (see variant): its edits,
// render options and geometry maps, and where its records go.
type heldFlip struct {
	entry   string
	edits   []engine.Edit
	opt     engine.RenderOptions
	maps    []engine.GeoMap
	applied int // its index in Variant.Applied
	skipped int // where in Variant.Skipped it goes if it fails
}

// onlyFlips reports whether edits are flips a warp may take, and at least one.
func onlyFlips(edits []engine.Edit) bool {
	for _, e := range edits {
		if !engine.HoldableFlip(e) {
			return false
		}
	}
	return len(edits) > 0
}

// Warm does ahead of the first image what checking p's operation arguments needs:
// the contract evaluates each operation's schema once per process (milliseconds
// each, under a lock a second worker would wait on) and the arguments of steps with
// fixed values once per run. A dataset run calls it while its first images decode.
// Errors are left for the steps to report when they render.
func (a *Augmenter) Warm(p Pipeline) {
	for _, s := range p {
		if e, ok := a.Vocab.Entry(s.Entry); ok {
			_, _ = a.edits(e, sample(0, s, e)) // an error is the step's to report
		}
	}
}

// edits resolves an entry with values into engine edits, as the editing path does:
// the entry's operation calls, their arguments completed and checked by the contract,
// under the entry's default mask if it declares one.
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
	var edits []engine.Edit
	for _, call := range e.Calls(values) {
		args, err := a.checkOperation(call.Op, call.Args)
		if err != nil {
			return nil, darkroom.Wrap(darkroom.Code(err), err, "entry %s", e.Name)
		}
		edits = append(edits, engine.Edit{Op: call.Op, Args: args, Mask: mask, Strength: 1})
	}
	return edits, nil
}
