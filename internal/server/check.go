package server

import (
	"encoding/json"
	"fmt"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// The one check of a call. CUE judges a call's arguments once, here at the
// boundary: the tool's params, and for a call that names vocabulary entries each
// entry's #values in place of the generic value where it is given (ADR-079's
// shapes: nothing for no parameter, a number for one, an object for several), with
// the entry's default mask filled when the call gives none. Where a tool names
// entries is data, its traits' entries (tools.go). The handler gets the values typed
// and complete (edit.Checked) and nothing below evaluates them again. A refused call
// may be evaluated again, only to say its error in the user's terms.

// entryPlace says where a tool's arguments name an entry and give its value and
// mask: primitive_name, value and mask_spec at the top level, or (list) in each
// element of a list, whose primitive_name defaults to the top level's.
type entryPlace struct {
	list string
}

// entryRef is one entry a call names, as the call gave it.
type entryRef struct {
	at        string // "" or "regions.1"
	name      string
	value     json.RawMessage
	maskGiven bool
}

// refs returns the entries a call names, or false when the arguments do not
// decode to the shape (the tool's own check says why).
func (p entryPlace) refs(raw json.RawMessage) (string, []entryRef, bool) {
	type holder struct {
		Primitive *string         `json:"primitive_name"`
		Value     json.RawMessage `json:"value"`
		Mask      json.RawMessage `json:"mask_spec"`
	}
	given := func(m json.RawMessage) bool { return len(m) > 0 && string(m) != "null" }
	var top holder
	if json.Unmarshal(raw, &top) != nil {
		return "", nil, false
	}
	name := ""
	if top.Primitive != nil {
		name = *top.Primitive
	}
	if p.list == "" {
		return name, []entryRef{{name: name, value: top.Value, maskGiven: given(top.Mask)}}, true
	}
	var outer map[string]json.RawMessage
	if json.Unmarshal(raw, &outer) != nil {
		return "", nil, false
	}
	var elems []holder
	if json.Unmarshal(outer[p.list], &elems) != nil {
		return "", nil, false
	}
	refs := make([]entryRef, len(elems))
	for i, e := range elems {
		n := name
		if e.Primitive != nil {
			n = *e.Primitive
		}
		refs[i] = entryRef{at: fmt.Sprintf("%s.%d", p.list, i), name: n, value: e.Value, maskGiven: given(e.Mask)}
	}
	return name, refs, true
}

// check validates a call's arguments (see above).
func (s *Server) check(t *contract.Tool, raw json.RawMessage) (map[string]any, error) {
	place := s.traitsOf(t.Name).entries
	if place == nil {
		return t.Check(raw)
	}
	top, refs, ok := place.refs(raw)
	if !ok {
		return t.Check(raw)
	}
	entries := make([]*vocab.Entry, len(refs))
	evs := make([]contract.EntryValue, len(refs))
	for i, r := range refs {
		e, ok := s.Vocab.Entry(r.name)
		if !ok || e.Source() == nil {
			// Not an entry the check can name: the tool's own check, and the
			// domain says what is wrong with the name.
			args, err := t.Check(raw)
			if err != nil {
				return nil, s.ExplainValue(top, err)
			}
			return args, nil
		}
		entries[i] = e
		evs[i] = contract.EntryValue{Entry: e.Source(), Parameters: e.ParameterNames(), DefaultMask: e.DefaultMask, At: r.at}
	}
	args, err := t.CheckEntries(raw, evs)
	if err != nil {
		// Said as the tool's own check and the entry's would say it.
		if _, gerr := t.Check(raw); gerr != nil {
			return nil, s.ExplainValue(top, gerr)
		}
		for i, r := range refs {
			field := ""
			if r.at != "" {
				field = r.at + "."
			}
			if _, verr := s.Values(entries[i], r.value); verr != nil {
				return nil, edit.AtField(verr, field)
			}
			if serr := entries[i].ShapeError(r.value); serr != nil {
				return nil, edit.AtField(serr, field)
			}
		}
		return nil, err
	}
	for i, r := range refs {
		holder := args
		if r.at != "" {
			holder = objectAt(args, place.list, i)
			if holder == nil {
				continue
			}
		}
		holder["value"] = &edit.Checked{Values: checkedValues(entries[i].ParameterNames(), holder["value"]), MaskGiven: r.maskGiven}
	}
	return args, nil
}

// checkedValues are the entry's parameters from the checked value: a number for
// one parameter, an object for several.
func checkedValues(names []string, value any) map[string]float64 {
	values := make(map[string]float64, len(names))
	switch v := value.(type) {
	case float64:
		values[names[0]] = v
	case map[string]any:
		for k, x := range v {
			if f, ok := x.(float64); ok {
				values[k] = f
			}
		}
	}
	return values
}

// objectAt is element i of the checked list argument list.
func objectAt(args map[string]any, list string, i int) map[string]any {
	l, _ := args[list].([]any)
	if i >= len(l) {
		return nil
	}
	m, _ := l[i].(map[string]any)
	return m
}

// takeChecked removes what the one check made of the value from a checked
// object of the arguments and returns it (nil if the check did not make one).
func takeChecked(holder map[string]any) *edit.Checked {
	c, _ := holder["value"].(*edit.Checked)
	if c != nil {
		delete(holder, "value")
	}
	return c
}
