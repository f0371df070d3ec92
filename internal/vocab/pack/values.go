package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Values checks the value an agent passes for an entry with CUE, against the
// entry's #values (ADR-079's shapes: vocab.Entry.ValueObject). The wrong shape, an
// unknown parameter or a value outside its range is invalid_input naming the
// parameter, the value and the range (`exposure: ev: 9 is outside [-4, 4]`);
// nothing is clamped. Omitted parameters take their defaults. It is the boundary's:
// the server's one check of a call (contract.Tool.CheckEntries) judges a value with
// the call's other arguments, and asks Values only on the way to a refusal, to say
// it in the entry's terms; nothing in the domain evaluates a value again.
func Values(c *contract.Contract, e *vocab.Entry, value json.RawMessage) (map[string]float64, error) {
	obj, err := e.ValueObject(value)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		return map[string]float64{}, nil
	}
	names := e.ParameterNames()
	schema, err := valuesSchema(c, e)
	if err != nil {
		return nil, err
	}
	checked, err := c.CheckValue(schema, e.Name, obj)
	if err != nil {
		var de *darkroom.Error
		if errors.As(err, &de) {
			explainRanges(e, de, obj)
			de.Details["entry"] = e.Name
			if len(names) == 1 {
				// A scalar's path is the parameter: say so.
				de.Details["parameter"] = names[0]
			}
		}
		return nil, err
	}
	out := make(map[string]float64, len(checked))
	for k, v := range checked {
		f, ok := v.(float64)
		if !ok {
			return nil, darkroom.Errorf(darkroom.InternalError, "%s: parameter %s checked to %T", e.Name, k, v)
		}
		out[k] = f
	}
	return out, nil
}

// explainRanges rewrites the message of each parameter whose number lies outside its
// declared range so that it says the range, not just the bound crossed: ADR-079
// wants `ev: 9 is outside [-4, 4]` rather than `ev: 9 is above the maximum 4`. The
// value is printed as the caller wrote it.
func explainRanges(e *vocab.Entry, de *darkroom.Error, obj json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var given map[string]any
	if dec.Decode(&given) != nil {
		return
	}
	fields, _ := de.Details["fields"].([]any)
	msgs := make([]string, 0, len(fields))
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		if fm == nil {
			continue
		}
		path, _ := fm["path"].(string)
		if p, ok := e.Parameters[path]; ok {
			if n, ok := given[path].(json.Number); ok {
				if x, err := n.Float64(); err == nil && (x < p.Min || x > p.Max) {
					fm["message"] = fmt.Sprintf("%s: %s is outside [%s, %s]", path, n, formatNumber(p.Min), formatNumber(p.Max))
					fm["range"] = []any{p.Min, p.Max}
				}
			}
		}
		if m, ok := fm["message"].(string); ok {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) > 0 {
		de.Message = fmt.Sprintf("%s: %s", e.Name, strings.Join(msgs, "; "))
	}
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// schemas holds each entry's #values schema, by contract and entry, worked out
// when first asked for (valuesSchema).
var schemas sync.Map // schemaKey -> *schemaOnce

type schemaKey struct {
	c *contract.Contract
	e *vocab.Entry
}

type schemaOnce struct {
	once sync.Once
	v    cue.Value
	err  error
}

// valuesSchema returns the entry's #values schema: its parameters, as its pack
// was checked (Entry.Source), filled into the contract's #EntryValues, once per
// contract and entry. That needs neither the rest of the entry schema nor the
// operation catalog, which a focused contract has not evaluated.
func valuesSchema(c *contract.Contract, e *vocab.Entry) (cue.Value, error) {
	o, _ := schemas.LoadOrStore(schemaKey{c, e}, &schemaOnce{})
	s := o.(*schemaOnce)
	s.once.Do(func() {
		c.Evaluate(func() {
			v := c.EntryValues()
			params := cue.ParsePath("parameters")
			if p := v.Context().CompileBytes(e.Source()).LookupPath(params); p.Exists() {
				v = v.FillPath(params, p)
			}
			v = v.LookupPath(cue.MakePath(cue.Def("values")))
			if err := v.Err(); err != nil {
				s.err = darkroom.Errorf(darkroom.InternalError, "%s: #values: %s", e.Name, contract.FormatError(err))
				return
			}
			s.v = v
		})
	})
	return s.v, s.err
}
