package edit

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Checking an edit before it is committed: the entry named, its values, its mask.

// PrimitiveEdit is one primitive to apply as a tool gives it. field is where it came from in
// the arguments ("" or "regions.2."), so errors name the exact path.
type PrimitiveEdit struct {
	Field    string
	Name     string
	Value    json.RawMessage // nil: the parameters' defaults
	Mask     json.RawMessage // nil: the entry's default mask, if any
	Strength float64
	// Checked is set when the server's adapter checked the value and the mask with
	// the call's other arguments (contract.Tool.CheckEntry): Value and Mask are
	// then the checked, completed forms and no CUE runs on them again.
	Checked *Checked
}

// Checked is what the one check of a call made of its value and mask.
type Checked struct {
	// Values are the entry's parameters, each given or at its default.
	Values map[string]float64
	// MaskGiven says the call gave its mask_spec (Mask); else Mask is the entry's
	// default mask, completed, or nil.
	MaskGiven bool
}

// StateEntry validates an edit against the vocabulary and the contract and returns
// the state entry that records it: values checked and completed (never clamped), the
// mask checked and completed, or the entry's default mask when none is given.
func (s *Editor) StateEntry(ed PrimitiveEdit) (history.Entry, error) {
	// JSON null is the same as absent: the defaults, the entry's default mask.
	if string(ed.Value) == "null" {
		ed.Value = nil
	}
	if string(ed.Mask) == "null" {
		ed.Mask = nil
	}
	e, err := s.LookupEntry(ed.Field+"primitive_name", ed.Name)
	if err != nil {
		return history.Entry{}, err
	}
	if ed.Checked != nil {
		return s.checkedEntry(e, ed)
	}
	// Not checked by the boundary with the call (see Judge): the boundary
	// checks it now.
	if s.Judge == nil {
		return history.Entry{}, darkroom.Errorf(darkroom.InternalError, "%sprimitive_name: %s: the value was not checked, and the editor has no check", ed.Field, e.Name)
	}
	values, err := s.Judge.Values(e, ed.Value)
	if err != nil {
		return history.Entry{}, AtField(err, ed.Field)
	}
	mask := ed.Mask
	if mask == nil && e.DefaultMask != "" {
		mask, _ = json.Marshal(map[string]string{"name": e.DefaultMask})
	}
	if mask != nil {
		if ed.Mask != nil {
			if err := s.checkMaskable(e, ed.Field+"mask_spec"); err != nil {
				return history.Entry{}, err
			}
		}
		if mask, err = s.Judge.CheckMask(mask); err != nil {
			return history.Entry{}, AtField(err, ed.Field)
		}
	}
	entry := history.Entry{Primitive: e.Name, Layer: e.Layer, Values: values, Mask: mask, Strength: ed.Strength}
	if err := s.CheckEntry(entry); err != nil {
		return history.Entry{}, AtField(err, ed.Field)
	}
	return entry, nil
}

// checkedEntry is StateEntry for an edit the adapter's one check completed: only
// what the contract cannot know is looked at here (a mask's name among the packs'
// masks, a mask on an entry that cannot take one), in plain Go.
func (s *Editor) checkedEntry(e *vocab.Entry, ed PrimitiveEdit) (history.Entry, error) {
	var mask json.RawMessage
	if ed.Mask != nil {
		if ed.Checked.MaskGiven {
			if err := s.checkMaskable(e, ed.Field+"mask_spec"); err != nil {
				return history.Entry{}, err
			}
		}
		var spec map[string]any
		if err := json.Unmarshal(ed.Mask, &spec); err != nil {
			return history.Entry{}, darkroom.Wrap(darkroom.InternalError, err, "mask_spec")
		}
		m, err := s.FinishMask(spec)
		if err != nil {
			return history.Entry{}, AtField(err, ed.Field)
		}
		mask = m
	}
	entry := history.Entry{Primitive: e.Name, Layer: e.Layer, Values: ed.Checked.Values, Mask: mask, Strength: ed.Strength}
	if err := s.CheckEntry(entry); err != nil {
		return history.Entry{}, AtField(err, ed.Field)
	}
	return entry, nil
}

// checkMaskable refuses a mask on an entry that drives an operation the catalog marks
// not maskable (geometry applies to the whole frame).
func (s *Editor) checkMaskable(e *vocab.Entry, field string) error {
	ops, err := s.catalog()
	if err != nil {
		return err
	}
	for _, u := range e.Operations {
		if op, ok := ops[u.Op]; ok && !op.Maskable {
			return &darkroom.Error{Code: darkroom.MaskingError,
				Message: fmt.Sprintf("%s: %s drives %s, which cannot be masked: it applies to the whole frame", field, e.Name, u.Op),
				Details: map[string]any{"field": field, "entry": e.Name, "operation": u.Op}}
		}
	}
	return nil
}

// LookupEntry returns the vocabulary entry name, or not_found suggesting the closest
// names (by spelling and by alias) so the agent can retry at once.
func (s *Editor) LookupEntry(field, name string) (*vocab.Entry, error) {
	if e, ok := s.Vocab.Entry(name); ok {
		return e, nil
	}
	close := s.Vocab.Suggest(name)
	msg := fmt.Sprintf("%s: no vocabulary entry %q", field, name)
	if len(close) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(close, ", "))
	}
	msg += " (list_vocabulary lists them all)"
	return nil, &darkroom.Error{Code: darkroom.NotFound, Message: msg,
		Details: map[string]any{"field": field, "name": name, "suggestions": nonNil(close)}}
}

// AtField prefixes a coded error's message with a path in the arguments (a region),
// keeping its code and details.
func AtField(err error, field string) error {
	field = strings.TrimSuffix(field, ".")
	var de *darkroom.Error
	if field == "" || !errors.As(err, &de) {
		return err
	}
	details := maps.Clone(de.Details)
	if details == nil {
		details = map[string]any{}
	}
	details["at"] = field
	return &darkroom.Error{Code: de.Code, Message: field + ": " + de.Message, Details: details, Err: de.Err}
}

// SpotSource picks a source for a spot of radius r (a fraction of the long edge) at
// (x, y) in a w x h frame: spotSourceDistance radii away, to the right, left, below,
// above or diagonally, the first whose whole disc lies inside the frame; when none
// does (a spot near a corner of a tiny frame), the one that lies deepest inside.
func SpotSource(x, y, r float64, w, h int) (float64, float64) {
	fw, fh := float64(w), float64(h)
	long := max(fw, fh)
	cx, cy, rp := x*fw, y*fh, r*long
	d := spotSourceDistance * rp
	diag := d / math.Sqrt2
	best, bx, by := math.Inf(-1), cx, cy
	for _, o := range [][2]float64{{d, 0}, {-d, 0}, {0, d}, {0, -d}, {diag, diag}, {-diag, diag}, {diag, -diag}, {-diag, -diag}} {
		px, py := cx+o[0], cy+o[1]
		// How far the disc's edge is inside the frame (negative: it sticks out).
		inside := min(px, fw-px, py, fh-py) - rp
		if inside >= 0 {
			return px / fw, py / fh
		}
		if inside > best {
			best, bx, by = inside, px, py
		}
	}
	return min(max(bx/fw, 0), 1), min(max(by/fh, 0), 1)
}

// nonNil is s, or an empty slice for nil: a JSON list, never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// spotSourceDistance is how far from a spot apply_spot takes its source when none is
// given, in radii: clear of the spot and its soft edge, close enough to match it.
const spotSourceDistance = 2.5

// Applied is what Apply did: the commit, the entry it set, and whether it replaced
// an entry with the same primitive and mask.
type Applied struct {
	Mutation
	Entry    history.Entry
	Replaced bool
}

// Apply checks one primitive edit (StateEntry) and sets it on image id's HEAD as one
// snapshot labelled "apply_primitive <name>".
func (s *Editor) Apply(id string, ed PrimitiveEdit) (Applied, error) {
	e, err := s.StateEntry(ed)
	if err != nil {
		return Applied{}, err
	}
	var replaced bool
	m, err := s.Mutate(id, "apply_primitive "+ed.Name, func(st *history.State) error {
		replaced = st.Set(e)
		return nil
	})
	if err != nil {
		return Applied{}, err
	}
	return Applied{Mutation: m, Entry: e, Replaced: replaced}, nil
}
