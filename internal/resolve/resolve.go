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
