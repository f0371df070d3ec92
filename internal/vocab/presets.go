package vocab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Preset is a named augmentation recipe a pack declares under presets: a pipeline of
// entries, each with fixed values or ranges to sample from, and a probability.
type Preset struct {
	Name        string   `json:"name"`
	Pack        string   `json:"pack"`
	Description string   `json:"description"`
	Aliases     []string `json:"aliases,omitempty"`
	Pipeline    []Step   `json:"pipeline"`
}

// Step is one entry of a preset. Values holds the parameters given one value, Ranges
// those given a range [lo, hi] to sample from; a parameter in neither takes its
// default. P is the probability that the step runs (1: always).
type Step struct {
	Entry  string                `json:"entry"`
	Values map[string]float64    `json:"values,omitempty"`
	Ranges map[string][2]float64 `json:"ranges,omitempty"`
	P      float64               `json:"p"`
}

// rawStep is a step as the manifest writes it; value is a scalar, a range or an object
// keyed by parameter name (see #Step in contracts/manifest.cue).
type rawStep struct {
	Entry string          `json:"entry"`
	From  string          `json:"from"`
	Value json.RawMessage `json:"value"`
	P     float64         `json:"p"`
}

type rawPreset struct {
	Description string    `json:"description"`
	Aliases     []string  `json:"aliases"`
	Pipeline    []rawStep `json:"pipeline"`
}

// pendingPreset waits for every pack to be loaded: a step may name another pack's entry.
type pendingPreset struct {
	file   string
	pack   string
	name   string
	preset rawPreset
}

// addPresets records the presets of one checked pack, and the declared order of its
// entries' parameters, for resolvePresets.
func (voc *Vocabulary) addPresets(file string, ck *Checked) error {
	for _, e := range ck.Entries {
		order, err := ParameterOrderOf(e.JSON)
		if err != nil {
			return fmt.Errorf("%s: entries.%s: %w", file, e.Name, err)
		}
		if voc.paramOrder == nil {
			voc.paramOrder = map[string][]string{}
		}
		if _, dup := voc.paramOrder[e.Name]; !dup {
			voc.paramOrder[e.Name] = order
		}
	}
	if len(ck.Presets) == 0 {
		return nil
	}
	var raw map[string]rawPreset
	if err := json.Unmarshal(ck.Presets, &raw); err != nil {
		return fmt.Errorf("%s: presets: %w", file, err)
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		voc.pendingPresets = append(voc.pendingPresets, pendingPreset{file, ck.Pack, name, raw[name]})
	}
	return nil
}

// ParameterOrderOf returns the keys of an entry's parameters in the order its JSON
// (CUE's, which keeps the manifest's order) writes them.
func ParameterOrderOf(entry []byte) ([]string, error) {
	var e struct {
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(entry, &e); err != nil || len(e.Parameters) == 0 {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(e.Parameters))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var order []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		order = append(order, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// resolvePresets checks every preset against the whole vocabulary and indexes it. cue
// vet already checked the steps that name an entry of their own pack; a step with from
// names another pack's entry, which only the whole set can check: the pack exists and
// defines the entry, every parameter is the entry's, every value and range lies inside
// its parameter's range. A name or alias used twice is refused too.
func (voc *Vocabulary) resolvePresets() []string {
	var errs []string
	voc.presets = map[string]*Preset{}
	for _, pp := range voc.pendingPresets {
		p := &Preset{Name: pp.name, Pack: pp.pack, Description: pp.preset.Description, Aliases: pp.preset.Aliases}
		ok := true
		for i, rs := range pp.preset.Pipeline {
			where := fmt.Sprintf("%s: presets.%s.pipeline.%d", pp.file, pp.name, i)
			st, err := voc.resolveStep(pp.pack, rs)
			if err != nil {
				errs = append(errs, where+": "+err.Error())
				ok = false
				continue
			}
			p.Pipeline = append(p.Pipeline, st)
		}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if old := voc.presets[strings.ToLower(n)]; old != nil {
				errs = append(errs, fmt.Sprintf("%s: presets.%s: name %q is already used by preset %s (pack %s)", pp.file, pp.name, n, old.Name, old.Pack))
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			voc.presets[strings.ToLower(n)] = p
		}
		voc.Presets = append(voc.Presets, p)
	}
	voc.pendingPresets = nil
	sort.Slice(voc.Presets, func(i, j int) bool { return voc.Presets[i].Name < voc.Presets[j].Name })
	return errs
}

func (voc *Vocabulary) resolveStep(pack string, rs rawStep) (Step, error) {
	st := Step{Entry: rs.Entry, P: rs.P}
	if rs.P < 0 || rs.P > 1 {
		return st, fmt.Errorf("p: %s is outside [0, 1]", formatNumber(rs.P))
	}
	e, found := voc.entries[rs.Entry]
	want := pack
	if rs.From != "" {
		want = rs.From
	}
	if !found || e.Pack != want {
		msg := fmt.Sprintf("entry: no entry %q in pack %s", rs.Entry, want)
		if found {
			msg += fmt.Sprintf(" (pack %s defines it: say from: %s)", e.Pack, e.Pack)
		}
		return st, fmt.Errorf("%s", msg)
	}
	raw := strings.TrimSpace(string(rs.Value))
	if raw == "" || raw == "null" {
		return st, nil
	}
	order := voc.ParameterOrder(e)
	given := map[string]json.RawMessage{}
	switch {
	case len(order) == 0:
		return st, fmt.Errorf("value: %s takes no value", e.Name)
	case raw[0] == '{':
		if err := json.Unmarshal([]byte(raw), &given); err != nil {
			return st, fmt.Errorf("value: %w", err)
		}
	case len(order) > 1:
		return st, fmt.Errorf("value: %s takes an object with %s, not a scalar", e.Name, strings.Join(order, ", "))
	default:
		given[order[0]] = json.RawMessage(raw)
	}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		prm, ok := e.Parameters[name]
		if !ok {
			return st, fmt.Errorf("value.%s: %s has no parameter %s (it has %s)", name, e.Name, name, strings.Join(order, ", "))
		}
		var one float64
		var pair [2]float64
		if json.Unmarshal(given[name], &one) == nil {
			if err := inside(prm, one); err != nil {
				return st, fmt.Errorf("value.%s: %w", name, err)
			}
			if st.Values == nil {
				st.Values = map[string]float64{}
			}
			st.Values[name] = one
			continue
		}
		if err := json.Unmarshal(given[name], &pair); err != nil {
			return st, fmt.Errorf("value.%s: want a number or a range [lo, hi]", name)
		}
		for _, x := range pair {
			if err := inside(prm, x); err != nil {
				return st, fmt.Errorf("value.%s: %w", name, err)
			}
		}
		if pair[0] > pair[1] {
			return st, fmt.Errorf("value.%s: range [%s, %s] is upside down", name, formatNumber(pair[0]), formatNumber(pair[1]))
		}
		if st.Ranges == nil {
			st.Ranges = map[string][2]float64{}
		}
		st.Ranges[name] = pair
	}
	return st, nil
}

func inside(p *Parameter, x float64) error {
	if x < p.Min || x > p.Max {
		return fmt.Errorf("%s is outside [%s, %s]", formatNumber(x), formatNumber(p.Min), formatNumber(p.Max))
	}
	if p.Type == "integer" && x != float64(int64(x)) {
		return fmt.Errorf("%s is not an integer", strconv.FormatFloat(x, 'g', -1, 64))
	}
	return nil
}

// Preset returns the preset with the given name or alias (case does not matter).
func (voc *Vocabulary) Preset(name string) (*Preset, bool) {
	p, ok := voc.presets[strings.ToLower(strings.TrimSpace(name))]
	return p, ok
}

// ParameterOrder returns the entry's parameter names in the order its manifest declares
// them: the first is the one a bare value means (the prompt parser reads "motion blur
// 0.01" as radius, not angle).
func (voc *Vocabulary) ParameterOrder(e *Entry) []string {
	if order, ok := voc.paramOrder[e.Name]; ok && len(order) == len(e.Parameters) {
		return order
	}
	return e.ParameterNames()
}
