package engine

import "slices"

// Step is one step of a pipeline rendered in the order given (an augmentation
// recipe): its edits render as one Render would render them, in stage order, with
// the step's own options (its seed keys its random operations).
type Step struct {
	Edits []Edit
	Opt   RenderOptions
}

// RenderSteps renders a pipeline: steps one after the other in the order next gives
// them, each as Render renders it on the image the steps before it left, so the
// result is, bit for bit, what rendering each step with Render on the previous
// step's result gives. next returns the step to render on a w x h image (the size
// the steps before it left), or false when there is none; done is told, for each
// step next returned and in that order, nil or why the step could not be applied.
// A step that fails leaves the image as it was and the pipeline goes on.
//
// Rendering the whole pipeline in one call is what makes it cheaper than a Render
// per step: the steps share one buffer pool, so an image a step drops is the next
// step's output instead of a fresh allocation; a step of per-pixel tone edits
// changes the image in place; and a step of flips waits for the next step, which
// reads the image mirrored when its first edit is a bilinear warp (the flip then
// costs nothing; the pixels are the same).
//
// When own is set the caller gives src up: it must not be used afterwards (its
// pixels may be the result's, or reused). Otherwise src is never modified, and the
// result is a new image even when no step changed anything.
func RenderSteps(src *Image, own bool, next func(w, h int) (Step, bool), done func(error)) *Image {
	pool := &bufPool{}
	defer pool.recycle()
	cur, owned := src, own
	// render renders one step (or a held flip with the step after it) on cur; when
	// it fails, cur is unchanged.
	render := func(edits []Edit, opt RenderOptions) error {
		order, err := checkRender(cur, edits, opt)
		if err != nil {
			return err
		}
		// Per-pixel tone edits change an image the pipeline owns in place, in one
		// pass that runs after every argument was read: a failing edit fails the
		// step before any pixel is written.
		inPlace := owned && allChainable(edits)
		out, err := renderFrameOwn(cur, edits, order, opt, frame{}, pool, inPlace)
		if err != nil {
			return err
		}
		if out != cur {
			if owned && !inPlace {
				pool.put(cur.Pix)
			}
			cur, owned = out, true
		}
		return nil
	}
	var held *Step // a step of flips waiting for the step after it
	for {
		s, ok := next(cur.W, cur.H)
		if !ok {
			break
		}
		if held != nil {
			h := *held
			held = nil
			if fuseFlips && len(s.Edits) > 0 && flipTaken(s.Edits[0], s.Opt) {
				if render(append(slices.Clip(h.Edits), s.Edits...), s.Opt) == nil {
					done(nil)
					done(nil)
					continue
				}
			}
			done(render(h.Edits, h.Opt))
		}
		if fuseFlips && onlyHoldableFlips(s.Edits) {
			// A flip keeps the image's size: the next step is asked for at the
			// size it will get either way.
			held = &s
			continue
		}
		done(render(s.Edits, s.Opt))
	}
	if held != nil {
		done(render(held.Edits, held.Opt))
	}
	if cur == src && !own {
		return src.Clone()
	}
	return cur
}

// fuseFlips lets RenderSteps hold a step of flips for the step after it (tests turn
// it off to compare with rendering step by step).
var fuseFlips = true

// allChainable reports whether every edit that does anything is an unmasked
// per-pixel tone edit (rowOps) at full strength.
func allChainable(edits []Edit) bool {
	for _, e := range edits {
		if e.Strength != 0 && !(rowOps[e.Op] && e.Mask == nil && e.Strength == 1) {
			return false
		}
	}
	return true
}

// onlyHoldableFlips reports whether edits are flips a warp may take, and at least
// one.
func onlyHoldableFlips(edits []Edit) bool {
	for _, e := range edits {
		if !holdableFlip(e) {
			return false
		}
	}
	return len(edits) > 0
}
