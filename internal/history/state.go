package history

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Bounds on what one snapshot may hold. They keep a malicious or runaway caller from
// growing objects and the log without limit; going over one is limit_exceeded.
const (
	MaxEntries     = 512     // entries in one state
	MaxValues      = 64      // values in one entry
	MaxStateBytes  = 1 << 20 // canonical encoding of one state
	MaxMetaBytes   = 64 << 10
	MaxLabelBytes  = 1024
	maxKeyBytes    = 128 // a primitive, layer, value or extra key
	maxLogLine     = maxCarried + 16<<10
	logTailReadLen = 2*maxLogLine + 2
)

const (
	// maxCarried is the largest state a log line carries (doc.go, "Crash safety"): a
	// larger one is fsynced as its object file before its line is logged instead.
	// maxLogLine leaves 16 KiB beside it for the other fields and a label of
	// MaxLabelBytes, escaped to six bytes a byte at worst.
	maxCarried = 64 << 10
	// logTailFirstRead is how much of the log's end logTail reads first; it reads up
	// to logTailReadLen only when the last line is longer.
	logTailFirstRead = 16 << 10
)

// Entry is one applied primitive. Its identity within a state is its primitive plus its
// mask: setting an entry with the same pair replaces it.
type Entry struct {
	Primitive string             `json:"primitive"`
	Layer     string             `json:"layer"`
	Values    map[string]float64 `json:"values"`
	// Mask is an opaque JSON object, or nil for the whole image. Masks are compared
	// by their canonical encoding, so key order and spacing do not matter; null-valued
	// keys do, so callers should store masks with their defaults filled in.
	Mask     json.RawMessage `json:"mask,omitempty"`
	Strength float64         `json:"strength"`
}

// State is an image's edit state: an ordered list of entries, plus opaque state-level
// data the editing layer wants versioned with them (layer bindings, say). The history
// package gives none of it meaning beyond identity and equality.
type State struct {
	Entries []Entry                    `json:"entries"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

// Clone returns a deep copy, so a caller can edit a state it got from the store
// without aliasing maps or mask bytes.
func (s State) Clone() State {
	out := State{Entries: make([]Entry, len(s.Entries))}
	for i, e := range s.Entries {
		out.Entries[i] = e.clone()
	}
	if s.Extra != nil {
		out.Extra = make(map[string]json.RawMessage, len(s.Extra))
		for k, v := range s.Extra {
			out.Extra[k] = bytes.Clone(v)
		}
	}
	return out
}

func (e Entry) clone() Entry {
	out := e
	if e.Values != nil {
		out.Values = make(map[string]float64, len(e.Values))
		for k, v := range e.Values {
			out.Values[k] = v
		}
	}
	out.Mask = bytes.Clone(e.Mask)
	return out
}

// Set applies e: an entry with the same primitive and the same mask is replaced in
// place, so setting twice is the same as setting once; otherwise e is appended. It
// reports whether an entry was replaced. The mask is stored canonically encoded when it
// is valid JSON; an invalid mask is kept as given and rejected when the state is
// committed.
func (s *State) Set(e Entry) (replaced bool) {
	e = e.clone()
	key := maskKey(e.Mask)
	if key == "" {
		e.Mask = nil
	} else if canon, err := canonicalJSON(e.Mask); err == nil {
		e.Mask = canon
	}
	for i := range s.Entries {
		if s.Entries[i].Primitive == e.Primitive && maskKey(s.Entries[i].Mask) == key {
			s.Entries[i] = e
			return true
		}
	}
	s.Entries = append(s.Entries, e)
	return false
}

// Remove deletes every entry of primitive, whatever its mask, and reports how many
// it removed, so the caller can tell "not applied" (0) apart.
func (s *State) Remove(primitive string) int {
	n := len(s.Entries)
	s.Entries = slices.DeleteFunc(s.Entries, func(e Entry) bool { return e.Primitive == primitive })
	return n - len(s.Entries)
}

// maskKey is the identity of a mask: "" for no mask (nil or JSON null), else its
// canonical encoding, or its raw bytes when it is not valid JSON so that comparison
// still works on a state that will fail validation.
func maskKey(m json.RawMessage) string {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	if canon, err := canonicalJSON(t); err == nil {
		return string(canon)
	}
	return string(m)
}

type entryKey struct{ primitive, mask string }

func keyOf(e Entry) entryKey { return entryKey{e.Primitive, maskKey(e.Mask)} }

// Change is an entry present in both states with different layer, values or strength.
type Change struct {
	Primitive string          `json:"primitive"`
	Mask      json.RawMessage `json:"mask,omitempty"`
	Old       Entry           `json:"old"`
	New       Entry           `json:"new"`
}

// Difference is what it takes to go from one state to another. Added and Changed
// follow the order of the new state, Removed the order of the old one.
type Difference struct {
	Added   []Entry  `json:"added"`
	Removed []Entry  `json:"removed"`
	Changed []Change `json:"changed"`
	// Reordered is set when the entries both states share appear in a different order:
	// the engine renders in its own stage order, but the hashes still differ.
	Reordered bool `json:"reordered"`
	// Extra lists the keys of State.Extra that were added, removed or changed.
	Extra []string `json:"extra,omitempty"`
}

// Empty reports whether the two states were equal.
func (d Difference) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0 && !d.Reordered && len(d.Extra) == 0
}

// Diff compares two states entry by entry, matching entries by primitive and mask.
func Diff(a, b State) Difference {
	d := Difference{Added: []Entry{}, Removed: []Entry{}, Changed: []Change{}}
	inA := make(map[entryKey]Entry, len(a.Entries))
	for _, e := range a.Entries {
		inA[keyOf(e)] = e
	}
	inB := make(map[entryKey]bool, len(b.Entries))
	var orderA, orderB []entryKey
	for _, e := range b.Entries {
		k := keyOf(e)
		inB[k] = true
		old, ok := inA[k]
		if !ok {
			d.Added = append(d.Added, e.clone())
			continue
		}
		orderB = append(orderB, k)
		if !sameEntry(old, e) {
			d.Changed = append(d.Changed, Change{Primitive: e.Primitive, Mask: bytes.Clone(e.Mask), Old: old.clone(), New: e.clone()})
		}
	}
	for _, e := range a.Entries {
		k := keyOf(e)
		if !inB[k] {
			d.Removed = append(d.Removed, e.clone())
			continue
		}
		orderA = append(orderA, k)
	}
	d.Reordered = !slices.Equal(orderA, orderB)
	for k, v := range a.Extra {
		if w, ok := b.Extra[k]; !ok || maskKey(v) != maskKey(w) {
			d.Extra = append(d.Extra, k)
		}
	}
	for k := range b.Extra {
		if _, ok := a.Extra[k]; !ok {
			d.Extra = append(d.Extra, k)
		}
	}
	sort.Strings(d.Extra)
	return d
}

func sameEntry(a, b Entry) bool {
	if a.Layer != b.Layer || a.Strength != b.Strength || len(a.Values) != len(b.Values) {
		return false
	}
	for k, v := range a.Values {
		if w, ok := b.Values[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Hash returns the snapshot hash of st: the hex SHA-256 of its canonical JSON. It
// returns invalid_input or limit_exceeded for a state Commit would refuse.
func Hash(st State) (string, error) {
	_, h, err := encodeState(st)
	return h, err
}

// encodeState validates st and returns its canonical encoding and hash.
func encodeState(st State) ([]byte, string, error) {
	norm, err := normalize(st)
	if err != nil {
		return nil, "", err
	}
	raw, err := json.Marshal(norm)
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.InvalidInput, err, "encode state")
	}
	canon, err := canonicalJSON(raw)
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.InvalidInput, err, "encode state")
	}
	if len(canon) > MaxStateBytes {
		e := darkroom.Errorf(darkroom.LimitExceeded, "state is %d bytes encoded, over the limit of %d", len(canon), MaxStateBytes)
		e.Details = map[string]any{"limit": MaxStateBytes}
		return nil, "", e
	}
	return canon, hashBytes(canon), nil
}

// normalize checks st and returns a copy in the one in-memory form every equal state
// shares: no nil slices or maps where JSON would say null instead of empty, masks
// canonical, no JSON-null masks.
func normalize(st State) (State, error) {
	if len(st.Entries) > MaxEntries {
		e := darkroom.Errorf(darkroom.LimitExceeded, "entries: %d entries, over the limit of %d", len(st.Entries), MaxEntries)
		e.Details = map[string]any{"field": "entries", "limit": MaxEntries}
		return State{}, e
	}
	out := State{Entries: make([]Entry, 0, len(st.Entries))}
	seen := make(map[entryKey]int, len(st.Entries))
	for i, e := range st.Entries {
		field := "entries[" + strconv.Itoa(i) + "]"
		if err := checkKey(field+".primitive", e.Primitive); err != nil {
			return State{}, err
		}
		if e.Layer != "" {
			if err := checkKey(field+".layer", e.Layer); err != nil {
				return State{}, err
			}
		}
		if len(e.Values) > MaxValues {
			err := darkroom.Errorf(darkroom.LimitExceeded, "%s.values: %d values, over the limit of %d", field, len(e.Values), MaxValues)
			err.Details = map[string]any{"field": field + ".values", "limit": MaxValues}
			return State{}, err
		}
		n := Entry{Primitive: e.Primitive, Layer: e.Layer, Values: make(map[string]float64, len(e.Values)), Strength: e.Strength}
		for k, v := range e.Values {
			if err := checkKey(field+".values", k); err != nil {
				return State{}, err
			}
			if err := checkFinite(field+".values."+k, v); err != nil {
				return State{}, err
			}
			n.Values[k] = v
		}
		if err := checkFinite(field+".strength", e.Strength); err != nil {
			return State{}, err
		}
		mask, err := canonicalObject(field+".mask", e.Mask)
		if err != nil {
			return State{}, err
		}
		n.Mask = mask
		k := entryKey{n.Primitive, string(n.Mask)}
		if j, dup := seen[k]; dup {
			err := darkroom.Errorf(darkroom.InvalidInput, "%s: primitive %q with this mask is already entries[%d]; set replaces it instead of adding a second", field, e.Primitive, j)
			err.Details = map[string]any{"field": field}
			return State{}, err
		}
		seen[k] = i
		out.Entries = append(out.Entries, n)
	}
	if len(st.Extra) > 0 {
		out.Extra = make(map[string]json.RawMessage, len(st.Extra))
		for k, v := range st.Extra {
			if err := checkKey("extra", k); err != nil {
				return State{}, err
			}
			canon, err := canonicalJSON(v)
			if err != nil {
				return State{}, invalidField("extra."+k, "not valid JSON: %v", err)
			}
			out.Extra[k] = canon
		}
	}
	return out, nil
}

// canonicalObject returns the canonical encoding of a JSON object, nil for an absent or
// null one, and invalid_input for anything else.
func canonicalObject(field string, m json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if t[0] != '{' {
		return nil, invalidField(field, "must be a JSON object or null")
	}
	canon, err := canonicalJSON(t)
	if err != nil {
		return nil, invalidField(field, "not valid JSON: %v", err)
	}
	return canon, nil
}

func checkKey(field, s string) error {
	switch {
	case s == "":
		return invalidField(field, "must not be empty")
	case len(s) > maxKeyBytes:
		return invalidField(field, "%d bytes, over the limit of %d", len(s), maxKeyBytes)
	case !utf8.ValidString(s):
		return invalidField(field, "not valid UTF-8")
	}
	return nil
}

func checkFinite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return invalidField(field, "%v is not a finite number", v)
	}
	return nil
}

func invalidField(field, format string, args ...any) error {
	e := darkroom.Errorf(darkroom.InvalidInput, field+": "+format, args...)
	e.Details = map[string]any{"field": field}
	return e
}
