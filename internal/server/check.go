package server

import (
	"encoding/json"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/edit"
)

// The one check of a call. CUE judges a call's arguments once, here at the
// boundary: the tool's params, and for a call that names a vocabulary entry the
// entry's #values in place of the generic value (ADR-079's shapes: nothing for no
// parameter, a number for one, an object for several), with the entry's default
// mask filled when the call gives none. The handler gets the values typed and
// complete (edit.Checked) and nothing below evaluates them again. A refused call may
// be evaluated again, only to say its error in the user's terms.

// entryChecked are the tools whose value is checked with its entry's #values.
var entryChecked = map[string]bool{"apply_primitive": true}

// check validates a call's arguments (see above).
func (s *Server) check(t *contract.Tool, raw json.RawMessage) (map[string]any, error) {
	if !entryChecked[t.Name] {
		return t.Check(raw)
	}
	var a struct {
		Primitive string `json:"primitive_name"`
		Value     json.RawMessage
	}
	if json.Unmarshal(raw, &a) != nil {
		return t.Check(raw)
	}
	e, ok := s.Vocab.Entry(a.Primitive)
	if !ok || e.Source() == nil {
		args, err := t.Check(raw)
		if err != nil {
			return nil, s.ExplainValue(a.Primitive, err)
		}
		return args, nil
	}
	names := e.ParameterNames()
	args, err := t.CheckEntry(raw, contract.EntryValue{Entry: e.Source(), Parameters: names, DefaultMask: e.DefaultMask})
	if err != nil {
		// Said as the tool's own check and the entry's would say it.
		if _, gerr := t.Check(raw); gerr != nil {
			return nil, s.ExplainValue(a.Primitive, gerr)
		}
		if _, verr := s.Vocab.Values(s.Contract, e, a.Value); verr != nil {
			return nil, verr
		}
		if serr := e.ShapeError(a.Value); serr != nil {
			return nil, serr
		}
		return nil, err
	}
	values := make(map[string]float64, len(names))
	switch v := args["value"].(type) {
	case float64:
		values[names[0]] = v
	case map[string]any:
		for k, x := range v {
			if f, ok := x.(float64); ok {
				values[k] = f
			}
		}
	}
	_, given := args["mask_spec"]
	if given && e.DefaultMask != "" {
		// The default mask was filled in by the check when the call gave none.
		var m struct {
			Mask json.RawMessage `json:"mask_spec"`
		}
		given = json.Unmarshal(raw, &m) == nil && len(m.Mask) > 0 && string(m.Mask) != "null"
	}
	args["value"] = &edit.Checked{Values: values, MaskGiven: given}
	return args, nil
}
