package vocab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/darkroom-mcp/darkroom"
)

// Vocabulary is every loaded pack, resolved.
type Vocabulary struct {
	Packs   []Pack
	Entries []*Entry // sorted by name
	Masks   []*Mask  // sorted by name

	Presets []*Preset // sorted by name (presets.go)

	entries map[string]*Entry
	masks   map[string]*Mask

	presets        map[string]*Preset
	pendingPresets []pendingPreset
	paramOrder     map[string][]string
}

// Pack is one manifest file.
type Pack struct {
	Name        string
	Description string
	File        string
}

// Entry is one primitive, as a validated manifest declares it.
type Entry struct {
	Name        string                `json:"-"`
	Pack        string                `json:"-"`
	Layer       string                `json:"layer"`
	Category    string                `json:"category"`
	Tags        []string              `json:"tags"`
	Description string                `json:"description"`
	Aliases     []string              `json:"aliases"`
	Examples    []string              `json:"examples"`
	Parameters  map[string]*Parameter `json:"parameters"`
	Operations  []OperationUse        `json:"operations"`
	DefaultMask string                `json:"default_mask"`
	// Prompt is how a prompt reads the entry beyond its names (contracts/prompt.cue).
	Prompt *EntryPrompt `json:"prompt"`

	// raw is the entry as its pack was checked (Source).
	raw json.RawMessage
}

// Source is the entry as its pack was checked (JSON): what the contract fills into
// #EntryValues to check a call's value for it with the call's other arguments.
func (e *Entry) Source() json.RawMessage { return e.raw }

// Parameter is one value an entry takes.
type Parameter struct {
	Name        string  `json:"-"`
	Type        string  `json:"type"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	Default     float64 `json:"default"`
	Unit        string  `json:"unit"`
	Description string  `json:"description"`
	// Also are other names a prompt or albumentations code gives the parameter.
	Also []ParameterName `json:"also"`
}

// EntryPrompt is an entry's #EntryPrompt: what a prompt that names it draws, its
// strength parameter and the generic nouns among its aliases.
type EntryPrompt struct {
	Sample   map[string][2]float64 `json:"sample"`
	Free     []string              `json:"free"`
	Strength *Strength             `json:"strength"`
	Heads    []string              `json:"heads"`
	CodeP    *float64              `json:"code_p"`
}

// Strength is the parameter without which an entry does nothing, and the value it
// takes when a prompt gives other parameters but not it: Lo == Hi for one value.
type Strength struct {
	Parameter string
	Lo, Hi    float64
}

// UnmarshalJSON reads value as a number or as [lo, hi].
func (s *Strength) UnmarshalJSON(b []byte) error {
	var raw struct {
		Parameter string          `json:"parameter"`
		Value     json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.Parameter = raw.Parameter
	var v float64
	if json.Unmarshal(raw.Value, &v) == nil {
		s.Lo, s.Hi = v, v
		return nil
	}
	var r [2]float64
	if err := json.Unmarshal(raw.Value, &r); err != nil {
		return fmt.Errorf("strength.value: %w", err)
	}
	s.Lo, s.Hi = r[0], r[1]
	return nil
}

// ParameterName is another name of a parameter and how a value given with it reads
// (#ParameterName).
type ParameterName struct {
	Name   string  `json:"name"`
	As     string  `json:"as"`
	Code   bool    `json:"code"`
	Negate bool    `json:"negate"`
	Scale  float64 `json:"scale"`
}

// OperationUse is one engine operation an entry drives.
type OperationUse struct {
	Op   string            `json:"op"`
	Set  map[string]any    `json:"set"`
	Bind map[string]string `json:"bind"`
}

// Mask is a named mask; Spec is the #MaskSpec with its defaults filled in.
type Mask struct {
	Name        string         `json:"-"`
	Pack        string         `json:"-"`
	Description string         `json:"description"`
	Tags        []string       `json:"tags"`
	Spec        map[string]any `json:"spec"`
}

// ParameterNames returns the entry's parameter names, sorted.
func (e *Entry) ParameterNames() []string {
	names := make([]string, 0, len(e.Parameters))
	for n := range e.Parameters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ValueShape says what apply_primitive's value is for this entry: "none", "scalar"
// (one parameter) or "object" (several).
func (e *Entry) ValueShape() string {
	switch len(e.Parameters) {
	case 0:
		return "none"
	case 1:
		return "scalar"
	}
	return "object"
}

// Entry returns the entry with the given name.
func (voc *Vocabulary) Entry(name string) (*Entry, bool) {
	e, ok := voc.entries[name]
	return e, ok
}

// Mask returns the named mask.
func (voc *Vocabulary) Mask(name string) (*Mask, bool) {
	m, ok := voc.masks[name]
	return m, ok
}

// Filter selects entries: by layer, by category, and by tags (an entry must carry
// every one). Empty criteria select everything.
type Filter struct {
	Layer    string
	Category string
	Tags     []string
}

// Select returns the entries that pass f, sorted by name.
func (voc *Vocabulary) Select(f Filter) []*Entry {
	var out []*Entry
	for _, e := range voc.Entries {
		if f.Layer != "" && e.Layer != f.Layer || f.Category != "" && e.Category != f.Category || !hasAll(e.Tags, f.Tags) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// SelectMasks returns the masks that carry every tag, sorted by name.
func (voc *Vocabulary) SelectMasks(tags []string) []*Mask {
	var out []*Mask
	for _, m := range voc.Masks {
		if hasAll(m.Tags, tags) {
			out = append(out, m)
		}
	}
	return out
}

// Categories returns the categories in use, sorted.
func (voc *Vocabulary) Categories() []string {
	var out []string
	for _, e := range voc.Entries {
		if !slices.Contains(out, e.Category) {
			out = append(out, e.Category)
		}
	}
	sort.Strings(out)
	return out
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// ValueObject turns the value an agent passes for an entry into the object of
// parameters its #values checks (ADR-079): nothing for an entry without parameters
// (nil), a scalar for one parameter, an object keyed by parameter name for several
// (or for one, as a pipeline step's params give it: {"ev": 0.6} is the same as 0.6;
// a tool's value refuses that form, see ShapeError); nothing given is {}, every
// parameter at its default. The wrong shape is invalid_input naming the entry.
func (e *Entry) ValueObject(value json.RawMessage) (json.RawMessage, error) {
	value = bytes.TrimSpace(value)
	given := len(value) > 0 && string(value) != "null"
	names := e.ParameterNames()
	switch {
	case len(names) == 0:
		if given {
			return nil, valueError(e, "value", "%s takes no value", e.Name)
		}
		return nil, nil
	case !given:
		return json.RawMessage(`{}`), nil
	case value[0] == '{':
		return value, nil
	case len(names) > 1:
		return nil, valueError(e, "value", "%s takes an object with %s, not a scalar", e.Name, strings.Join(names, ", "))
	}
	b, err := json.Marshal(map[string]json.RawMessage{names[0]: value})
	if err != nil {
		return nil, valueError(e, "value", "%s: %v", e.Name, err)
	}
	return b, nil
}

// ShapeError is ADR-079's refusal of a tool's value in the object form for a
// one-parameter entry (it takes a number); nil for any other value.
func (e *Entry) ShapeError(value json.RawMessage) error {
	value = bytes.TrimSpace(value)
	if names := e.ParameterNames(); len(names) == 1 && len(value) > 0 && value[0] == '{' {
		return valueError(e, "value", "%s takes a number for %s, not an object", e.Name, names[0])
	}
	return nil
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func valueError(e *Entry, field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &darkroom.Error{Code: darkroom.InvalidInput, Message: msg, Details: map[string]any{
		"entry": e.Name, "fields": []any{map[string]any{"path": field, "message": msg}},
	}}
}

// OperationCall is one engine operation with the arguments an entry gives it; the
// catalog fills in the rest with their neutral defaults.
type OperationCall struct {
	Op   string
	Args map[string]any
}

// Calls expands the entry into operation calls: fixed arguments as set, bound ones
// from values, a parameter missing from values taking its default. Values are
// assumed checked against the parameters' ranges.
func (e *Entry) Calls(values map[string]float64) []OperationCall {
	calls := make([]OperationCall, len(e.Operations))
	for i, u := range e.Operations {
		args := map[string]any{}
		for k, v := range u.Set {
			args[k] = v
		}
		for arg, param := range u.Bind {
			v, ok := values[param]
			if !ok {
				v = e.Parameters[param].Default
			}
			args[arg] = v
		}
		calls[i] = OperationCall{Op: u.Op, Args: args}
	}
	return calls
}
