package contract

import (
	"encoding/json"
	"sync"

	"cuelang.org/go/cue"

	"github.com/darkroom-mcp/darkroom/internal/catalog"
)

// Contract facts the editing domain needs, as plain Go data made from CUE once
// (never a hand-written copy): the domain completes what it builds itself without
// evaluating CUE on a request's data.

// MaskDefaults are the defaults #MaskSpec fills (catalog.MaskDefaults).
type MaskDefaults = catalog.MaskDefaults

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

// facts holds Facts' result per contract.
var facts sync.Map // *Contract -> *catalog.Facts

// Facts returns the contract's facts as the domain takes them (internal/catalog):
// plain Go data made from this contract's CUE, each when first asked for (the
// catalog decoded under factsMu, since decoding walks the CUE value). One value per
// contract, so the domain may key its own caches by it.
func (c *Contract) Facts() *catalog.Facts {
	if f, ok := facts.Load(c); ok {
		return f.(*catalog.Facts)
	}
	f, _ := facts.LoadOrStore(c, &catalog.Facts{
		Version: c.Version,
		Operations: func() ([]catalog.Operation, error) {
			factsMu.Lock()
			defer factsMu.Unlock()
			return c.Operations()
		},
		OperationDefaults: c.OperationDefaults,
		MaskDefaults:      c.MaskDefaults,
		Albumentations:    c.AlbumentationsMap,
	})
	return f.(*catalog.Facts)
}
