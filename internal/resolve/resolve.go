// Package resolve turns a vocabulary entry with values into the engine's edits: the
// one resolve that editing (edit's entryEdits) and augmentation (augment's steps)
// share, with one way of filling defaults. A parameter the values omit takes the
// entry's declared default (vocab.Entry.Calls); an operation argument the entry
// neither binds nor sets takes the catalog's default (contract.OperationDefaults,
// made from CUE at start-up). Nothing here evaluates CUE: the values were checked
// at the boundary, and the manifest makes every bound parameter's range fit its
// argument's (contracts/manifest.cue).
package resolve

import (
	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Defaults are the operations' argument defaults, by operation and argument name
// (contract.OperationDefaults).
type Defaults map[string]map[string]any

// Edits returns the edits entry e makes with values: one per operation call, in the
// entry's order, its arguments the catalog's defaults overlaid with what the entry
// sets and binds, under mask (nil: the whole image) at strength. An operation the
// catalog does not have is internal_error (the pack was checked against it).
func Edits(e *vocab.Entry, values map[string]float64, mask *engine.Mask, strength float64, defaults Defaults) ([]engine.Edit, error) {
	calls := e.Calls(values)
	edits := make([]engine.Edit, 0, len(calls))
	for _, call := range calls {
		d, ok := defaults[call.Op]
		if !ok {
			return nil, darkroom.Errorf(darkroom.InternalError, "entry %s: no operation %q in the catalog", e.Name, call.Op)
		}
		args := make(engine.Args, len(d)+len(call.Args))
		for k, v := range d {
			args[k] = v
		}
		for k, v := range call.Args {
			args[k] = v
		}
		edits = append(edits, engine.Edit{Op: call.Op, Args: args, Mask: mask, Strength: strength})
	}
	return edits, nil
}

// Size is the size a w x h image has after entry e with values (its geometry, as the
// engine's maps say it; an entry that moves no pixel keeps it). It is how a size in
// pixels is read against the image the steps before it leave (a prompt's "pad to
// 640x640" after "longest side 640", an albumentations PadIfNeeded after
// LongestMaxSize), for the prompt parser and the albumentations reader alike.
func Size(e *vocab.Entry, values map[string]float64, defaults Defaults, w, h int) (int, int, error) {
	edits, err := Edits(e, values, nil, 1, defaults)
	if err != nil {
		return w, h, err
	}
	maps, err := engine.GeometryMaps(w, h, edits, engine.RenderOptions{})
	if err != nil {
		return w, h, err
	}
	if len(maps) == 0 {
		return w, h, nil
	}
	last := maps[len(maps)-1]
	return last.OutW, last.OutH, nil
}

// SizeRange is Size at both ends of ranges (each parameter at lo, then at hi) and
// whether they agree: a drawn size (a random scale) leaves no one size after it.
func SizeRange(e *vocab.Entry, values map[string]float64, ranges map[string][2]float64, defaults Defaults, w, h int) (int, int, bool) {
	at := func(end int) (int, int, error) {
		v := make(map[string]float64, len(values)+len(ranges))
		for k, x := range values {
			v[k] = x
		}
		for k, rg := range ranges {
			v[k] = rg[end]
		}
		return Size(e, v, defaults, w, h)
	}
	w0, h0, err0 := at(0)
	w1, h1, err1 := at(1)
	if err0 != nil || err1 != nil || w0 != w1 || h0 != h1 {
		return w, h, false
	}
	return w0, h0, true
}
