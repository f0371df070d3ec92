package contract

import (
	"encoding/json"
	"sync"

	"cuelang.org/go/cue"
)

// Contract facts the editing domain needs, as plain Go data made from CUE once
// (never a hand-written copy): the domain completes what it builds itself without
// evaluating CUE on a request's data.

// MaskDefaults are the defaults #MaskSpec fills: those of the spec itself
// (invert) and, by shape kind, those of each #Shape (rotation, feather).
type MaskDefaults struct {
	Spec  map[string]any
	Shape map[string]map[string]any
}

// Complete returns a drawn mask spec with every default it lacks filled, as the
// contract's check of #MaskRef completes it. It does not check the spec: the caller
// built it from arguments the contract checked.
func (d MaskDefaults) Complete(spec map[string]any) map[string]any {
	out := make(map[string]any, len(spec)+len(d.Spec))
	for k, v := range d.Spec {
		out[k] = v
	}
	for k, v := range spec {
		out[k] = v
	}
	if shape, ok := spec["shape"].(map[string]any); ok {
		kind, _ := shape["kind"].(string)
		full := make(map[string]any, len(shape)+len(d.Shape[kind]))
		for k, v := range d.Shape[kind] {
			full[k] = v
		}
		for k, v := range shape {
			full[k] = v
		}
		out["shape"] = full
	}
	return out
}

var (
	maskDefaultsMu sync.Mutex
	maskDefaults   = map[*Contract]MaskDefaults{}
)

// MaskDefaults returns the mask defaults of the contract, read from #MaskSpec and
// #Shape's kinds the first time it is asked.
func (c *Contract) MaskDefaults() (MaskDefaults, error) {
	maskDefaultsMu.Lock()
	defer maskDefaultsMu.Unlock()
	if d, ok := maskDefaults[c]; ok {
		return d, nil
	}
	var d MaskDefaults
	var err error
	c.Evaluate(func() {
		root := c.value()
		if d.Spec, err = defaultsOf(root.LookupPath(cue.ParsePath("#MaskSpec"))); err != nil {
			return
		}
		d.Shape = map[string]map[string]any{}
		shape := root.LookupPath(cue.ParsePath("#Shape"))
		kinds := []cue.Value{shape}
		if op, args := shape.Expr(); op == cue.OrOp {
			kinds = args
		}
		for _, k := range kinds {
			if r, p := k.ReferencePath(); r.Exists() {
				k = r.LookupPath(p)
			}
			kind, kerr := fieldString(k, "kind")
			if kerr != nil {
				err = kerr
				return
			}
			if d.Shape[kind], err = defaultsOf(k); err != nil {
				return
			}
		}
	})
	if err != nil {
		return MaskDefaults{}, err
	}
	maskDefaults[c] = d
	return d, nil
}

// defaultsOf returns the concrete defaults of a struct's fields.
func defaultsOf(v cue.Value) (map[string]any, error) {
	out := map[string]any{}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil, err
	}
	for it.Next() {
		d, ok := it.Value().Default()
		if !ok || d.Validate(cue.Concrete(true)) != nil {
			continue
		}
		b, err := d.MarshalJSON()
		if err != nil {
			continue
		}
		var x any
		if json.Unmarshal(b, &x) == nil && x != nil {
			out[it.Selector().Unquoted()] = x
		}
	}
	return out, nil
}

// fieldString is the concrete string of a struct's field, required ones included.
func fieldString(v cue.Value, name string) (string, error) {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return "", err
	}
	for it.Next() {
		if it.Selector().Unquoted() == name {
			return it.Value().String()
		}
	}
	return "", loadError("no field " + name)
}
