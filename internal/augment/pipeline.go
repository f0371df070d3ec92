package augment

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/resolve"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Pipeline is an augmentation recipe: steps applied in order. Its JSON is the list
// of steps, the config.json an augmentation writes and takes back.
type Pipeline []Step

// Step is one vocabulary entry with, per parameter, a fixed value or a range to
// draw from, fired with probability P.
type Step struct {
	// Entry names a vocabulary entry.
	Entry string `json:"entry"`
	// Params holds a value or a range per parameter; an omitted parameter takes its
	// declared default.
	Params map[string]Value `json:"params,omitempty"`
	// P is the probability that the step fires, in [0, 1]; 1 when the JSON omits it.
	P float64 `json:"p"`
	// Interpolation is how the step's warps read between pixels: "linear" (when
	// empty: albumentations' and OpenCV's default) or "cubic" (the editing renders'
	// Catmull-Rom, sharper, about four times the cost).
	Interpolation string `json:"interpolation,omitempty"`
	// Group joins consecutive steps into a container (albumentations' OneOf,
	// SomeOf, OneOrOther, Sequential), the innermost when groups nest (Group.Parent);
	// nil for a step on its own.
	Group *Group `json:"group,omitempty"`
}

// renderOptions are the engine options of the step's render under seed.
func (s Step) renderOptions(seed uint64) engine.RenderOptions {
	interp := s.Interpolation
	if interp == "" {
		interp = "linear"
	}
	return engine.RenderOptions{Seed: seed, Interpolation: interp}
}

// UnmarshalJSON reads a step, P defaulting to 1.
func (s *Step) UnmarshalJSON(b []byte) error {
	type plain Step
	v := struct {
		plain
		P *float64 `json:"p"`
	}{}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Step(v.plain)
	s.P = 1
	if v.P != nil {
		s.P = *v.P
	}
	return nil
}

// Value is a fixed value (Lo == Hi), written as a number, or a range [Lo, Hi] drawn
// from uniformly (an integer parameter: each whole number in it equally likely),
// written as a two-number list.
type Value struct{ Lo, Hi float64 }

// Fixed returns the Value v.
func Fixed(v float64) Value { return Value{v, v} }

// MarshalJSON writes a number or [lo, hi].
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Lo == v.Hi {
		return json.Marshal(v.Lo)
	}
	return json.Marshal([2]float64{v.Lo, v.Hi})
}

// UnmarshalJSON reads a number or [lo, hi].
func (v *Value) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		*v = Value{f, f}
		return nil
	}
	var r []float64
	if err := json.Unmarshal(b, &r); err != nil || len(r) != 2 {
		return fmt.Errorf("a value is a number or a list [lo, hi], not %s", b)
	}
	*v = Value{r[0], r[1]}
	return nil
}

// Augmenter runs pipelines against a vocabulary and the contract's facts, plain
// data made from CUE at start-up (Facts): it evaluates no CUE itself.
type Augmenter struct {
	Vocab *vocab.Vocabulary
	Facts

	// passed holds the pipelines Check accepted, by their JSON: a dataset makes a
	// variant of each of thousands of images from one pipeline.
	passed  sync.Map
	nPassed atomic.Int64
}

// Facts are what augmentation needs of the contract, as plain Go data.
type Facts struct {
	// Defaults are the operations' argument defaults a step's edits are completed
	// with (resolve.Edits; contract.OperationDefaults).
	Defaults resolve.Defaults
	// Albumentations are the albumentations readings (NewAlbuMap of
	// contract.AlbumentationsMap).
	Albumentations *AlbuMap
	// Explain says why the entry's parameters refuse values (a JSON object by
	// parameter name), in the words of the entry's values check (vocab.Values): asked
	// only for a step found outside a parameter's range, to say its error.
	Explain func(e *vocab.Entry, values json.RawMessage) error
}

// New returns an Augmenter over v with the contract's facts f.
func New(v *vocab.Vocabulary, f Facts) *Augmenter {
	return &Augmenter{Vocab: v, Facts: f}
}

// maxChecked bounds the pipelines an Augmenter remembers as checked; past it the
// cache starts again.
const maxChecked = 4096

// Check validates a pipeline without rendering. A p outside [0, 1], a range whose lo
// is above its hi, an unknown parameter, or a value or range end outside the entry's
// declared range is invalid_input naming pipeline[i] and the parameter (ADR-079:
// nothing is clamped). An entry no pack defines is not an error here: Run skips it
// (not_found), as it skips a step whose render fails.
func (a *Augmenter) Check(p Pipeline) error {
	key, err := json.Marshal(p)
	if err == nil {
		if _, ok := a.passed.Load(string(key)); ok {
			return nil
		}
	}
	if err := a.check(p); err != nil {
		return err
	}
	if key != nil {
		if a.nPassed.Add(1) > maxChecked {
			a.passed.Clear()
			a.nPassed.Store(1)
		}
		a.passed.Store(string(key), true)
	}
	return nil
}

func (a *Augmenter) check(p Pipeline) error {
	depth := 0
	if a.Albumentations != nil {
		depth = a.Albumentations.MaxGroupDepth
	}
	for i, s := range p {
		field := fmt.Sprintf("pipeline[%d]", i)
		if !(s.P >= 0 && s.P <= 1) {
			return fieldError(field+".p", "%s (%s): p %v is outside [0, 1]", field, s.Entry, s.P)
		}
		if err := checkGroup(p, i, depth); err != nil {
			return err
		}
		if err := s.renderOptions(0).Check(); err != nil {
			return fieldError(field+".interpolation", "%s (%s): interpolation %q is not linear or cubic", field, s.Entry, s.Interpolation)
		}
		e, ok := a.Vocab.Entry(s.Entry)
		if !ok {
			continue
		}
		lo, hi := map[string]float64{}, map[string]float64{}
		for _, name := range slices.Sorted(maps.Keys(s.Params)) {
			v := s.Params[name]
			par, ok := e.Parameters[name]
			if !ok {
				return fieldError(field+".params."+name, "%s (%s): no parameter %q; it has %v", field, s.Entry, name, e.ParameterNames())
			}
			if math.IsNaN(v.Lo) || math.IsNaN(v.Hi) || v.Lo > v.Hi {
				return fieldError(field+".params."+name, "%s (%s): %s: range [%v, %v] is empty", field, s.Entry, name, v.Lo, v.Hi)
			}
			if par.Type == "integer" && (v.Lo != math.Trunc(v.Lo) || v.Hi != math.Trunc(v.Hi)) {
				return fieldError(field+".params."+name, "%s (%s): %s is an integer, not [%v, %v]", field, s.Entry, name, v.Lo, v.Hi)
			}
			lo[name], hi[name] = v.Lo, v.Hi
		}
		if err := a.inRange(field, e, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// inRange checks a step's range ends against its entry's parameters: each inside
// [min, max], the #value of contracts/manifest.cue, read from the parameters the
// pack's check made (plain data, no CUE evaluation). A value outside is said as
// the entry's values check says it (Facts.Explain, asked only then).
func (a *Augmenter) inRange(field string, e *vocab.Entry, lo, hi map[string]float64) error {
	for _, ends := range []map[string]float64{lo, hi} {
		for _, name := range slices.Sorted(maps.Keys(ends)) {
			v, par := ends[name], e.Parameters[name]
			if v >= par.Min && v <= par.Max {
				continue
			}
			b, err := json.Marshal(ends)
			if err != nil {
				return darkroom.Wrap(darkroom.InternalError, err, "%s", field)
			}
			if a.Explain != nil {
				if err := a.Explain(e, b); err != nil {
					return inStep(field, err)
				}
			}
			return fieldError(field+".params."+name, "%s (%s): %s: %v is outside [%v, %v]", field, e.Name, name, v, par.Min, par.Max)
		}
	}
	return nil
}

// inStep puts a parameter error of the vocabulary in the step's context: its message
// and its field paths (a parameter name) prefixed with the step, its details kept.
func inStep(field string, err error) error {
	var de *darkroom.Error
	if !errors.As(err, &de) {
		return darkroom.Wrap(darkroom.InternalError, err, "%s", field)
	}
	out := &darkroom.Error{Code: de.Code, Message: field + ": " + de.Message, Details: map[string]any{}}
	for k, v := range de.Details {
		out.Details[k] = v
	}
	if fields, ok := de.Details["fields"].([]any); ok {
		moved := make([]any, len(fields))
		for i, f := range fields {
			fm, ok := f.(map[string]any)
			if !ok {
				moved[i] = f
				continue
			}
			c := map[string]any{}
			for k, v := range fm {
				c[k] = v
			}
			if path, ok := fm["path"].(string); ok {
				c["path"] = field + ".params." + path
			}
			moved[i] = c
		}
		out.Details["fields"] = moved
	}
	return out
}

// limitError is limit_exceeded naming the field.
func limitError(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &darkroom.Error{Code: darkroom.LimitExceeded, Message: msg, Details: map[string]any{
		"fields": []any{map[string]any{"path": path, "message": msg}},
	}}
}

func fieldError(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &darkroom.Error{Code: darkroom.InvalidInput, Message: msg, Details: map[string]any{
		"fields": []any{map[string]any{"path": path, "message": msg}},
	}}
}

// Draws. Every random choice of variant n's step t hangs off stepKey(seed, n, t), a
// counter-based hash: what step t of variant n draws depends on nothing else, not on
// the other steps, the other variants, how many variants were asked for or how many
// cores there are. From the step key, counter (0, 0, 0) decides whether the step
// fires, (1+i, 0, 1) draws the i-th parameter in name order, and (0, 0, 2) is the
// seed of the step's render (which keys the engine's own random operations).

func stepKey(seed uint64, variant, step int) uint64 { return engine.Hash(seed, variant, step, 0) }

func fires(key uint64, p float64) bool {
	return engine.Uniform(engine.Hash(key, 0, 0, 0)) < p
}

func renderSeed(key uint64) uint64 { return engine.Hash(key, 0, 0, 2) }

// sample draws the step's parameter values: fixed ones as given, ranges uniformly
// (integers: each whole number of the range equally likely). Omitted parameters are
// left to their defaults.
func sample(key uint64, s Step, e *vocab.Entry) map[string]float64 {
	out := map[string]float64{}
	for i, name := range slices.Sorted(maps.Keys(s.Params)) {
		v := s.Params[name]
		if v.Lo == v.Hi {
			out[name] = v.Lo
			continue
		}
		u := engine.Uniform(engine.Hash(key, 1+i, 0, 1))
		if par := e.Parameters[name]; par != nil && par.Type == "integer" {
			out[name] = min(v.Lo+math.Floor(u*(v.Hi-v.Lo+1)), v.Hi)
			continue
		}
		out[name] = v.Lo + u*(v.Hi-v.Lo)
	}
	return out
}
