package edit

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// The verbs that set and remove entries beyond one primitive: apply_per_region,
// remove_module, reset, propagate_state and bind_layers, and get_state which reads
// them. Each checks everything it was given before it commits, and commits through
// Mutate, so a failing call leaves the image as it was and a successful one is
// exactly one snapshot per image.

// ApplyRegions checks every region (StateEntry; a region's empty Name is top) and
// sets them all on image id's HEAD as one snapshot. One bad region fails the call
// and commits nothing; so does a region that repeats an earlier one's primitive and
// mask. It returns the commit and the entries set, in the regions' order.
func (s *Editor) ApplyRegions(id, top string, regions []PrimitiveEdit) (Mutation, []history.Entry, error) {
	var entries []history.Entry
	var scratch history.State
	for i, r := range regions {
		r.Field = fmt.Sprintf("regions.%d.", i)
		if r.Name == "" {
			r.Name = top
		}
		if r.Name == "" {
			f := r.Field + "primitive_name"
			return Mutation{}, nil, &darkroom.Error{Code: darkroom.InvalidInput,
				Message: f + ": no primitive: give primitive_name in the region or once at the top level",
				Details: map[string]any{"fields": []any{map[string]any{"path": f, "message": "required when the top-level primitive_name is absent"}}}}
		}
		e, err := s.StateEntry(r)
		if err != nil {
			return Mutation{}, nil, err
		}
		if scratch.Set(e) {
			f := strings.TrimSuffix(r.Field, ".")
			return Mutation{}, nil, &darkroom.Error{Code: darkroom.InvalidInput,
				Message: fmt.Sprintf("%s: %s with this mask_spec is already an earlier region; each region needs its own mask or primitive", f, r.Name),
				Details: map[string]any{"fields": []any{map[string]any{"path": f + ".mask_spec", "message": "repeats an earlier region"}}}}
		}
		entries = append(entries, e)
	}
	m, err := s.Mutate(id, fmt.Sprintf("apply_per_region %d %s", len(entries), Plural(len(entries), "region", "regions")), func(st *history.State) error {
		for _, e := range entries {
			st.Set(e)
		}
		return nil
	})
	if err != nil {
		return Mutation{}, nil, err
	}
	return m, entries, nil
}

// Plural is one or many by n, for the labels and summaries that count.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RemoveModule removes every entry of primitive name from image id's HEAD as one
// snapshot and returns how many it removed. Removing works for an entry whose pack
// is gone too. Returns not_found for a name the vocabulary does not know (with
// suggestions) and state_error for a known one that is not applied.
func (s *Editor) RemoveModule(id, name string) (Mutation, int, error) {
	var removed int
	m, err := s.Mutate(id, "remove_module "+name, func(st *history.State) error {
		if removed = st.Remove(name); removed > 0 {
			return nil
		}
		// Only when nothing is removed does the vocabulary say whether the name was
		// a typo.
		if _, err := s.LookupEntry("module_name", name); err != nil {
			return err
		}
		applied := map[string]bool{}
		for _, e := range st.Entries {
			applied[e.Primitive] = true
		}
		return &darkroom.Error{Code: darkroom.StateError,
			Message: fmt.Sprintf("module_name: %s is not applied to %s; applied: %v", name, id, nonNil(slices.Sorted(maps.Keys(applied)))),
			Details: map[string]any{"field": "module_name", "name": name}}
	})
	if err != nil {
		return Mutation{}, 0, err
	}
	return m, removed, nil
}

// Reset commits image id's baseline state (its tag baseline) on HEAD as one
// snapshot labelled "reset": the history keeps everything before it.
func (s *Editor) Reset(id string) (Mutation, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Mutation{}, err
	}
	hash, err := ws.History.Resolve(id, "refs/tags/baseline")
	if err != nil {
		return Mutation{}, err
	}
	baseline, err := ws.History.Get(id, hash)
	if err != nil {
		return Mutation{}, err
	}
	return s.Mutate(id, "reset", func(st *history.State) error {
		*st = baseline.Clone()
		return nil
	})
}

// BindLayers binds the L1 and L2 templates (an empty name leaves that template as
// it is) on image id's HEAD as one snapshot, and returns the templates bound after
// it. Returns invalid_input when both are empty or a name is an entry of another
// layer, and not_found for a name the vocabulary does not know.
func (s *Editor) BindLayers(id, l1, l2 string) (Mutation, Templates, error) {
	if l1 == "" && l2 == "" {
		return Mutation{}, Templates{}, darkroom.FieldError("l1_template", "give l1_template, l2_template or both (null leaves a template as it is)")
	}
	for _, b := range []struct{ field, name, layer string }{{"l1_template", l1, "L1"}, {"l2_template", l2, "L2"}} {
		if b.name == "" {
			continue
		}
		e, err := s.LookupEntry(b.field, b.name)
		if err != nil {
			return Mutation{}, Templates{}, err
		}
		if e.Layer != b.layer {
			return Mutation{}, Templates{}, darkroom.FieldError(b.field, "%s is an %s entry; an %s template must be an %s entry (list_vocabulary with layer %s lists them)", e.Name, e.Layer, b.layer, b.layer, b.layer)
		}
		if err := s.CheckEntry(history.Entry{Primitive: e.Name, Strength: 1}); err != nil {
			return Mutation{}, Templates{}, AtField(err, b.field+".")
		}
	}
	var bound Templates
	m, err := s.Mutate(id, "bind_layers", func(st *history.State) error {
		t, err := StateTemplates(*st)
		if err != nil {
			return err
		}
		if l1 != "" {
			t.L1 = l1
		}
		if l2 != "" {
			t.L2 = l2
		}
		SetStateTemplates(st, t)
		bound = t
		return nil
	})
	if err != nil {
		return Mutation{}, Templates{}, err
	}
	return m, bound, nil
}

// ImageState is an image's HEAD as get_state shows it.
type ImageState struct {
	StateAfter StateAfter
	State      history.State
	Templates  Templates
	// Width and Height are the source's, upright.
	Width, Height int
}

// State reads image id's HEAD. Returns not_found for an unknown image and
// state_error when its stored templates do not decode.
func (s *Editor) State(id string) (ImageState, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return ImageState{}, err
	}
	meta, _, err := ws.Source(id)
	if err != nil {
		return ImageState{}, err
	}
	sa, st, err := s.StateAfter(id)
	if err != nil {
		return ImageState{}, err
	}
	t, err := StateTemplates(st)
	if err != nil {
		return ImageState{}, err
	}
	return ImageState{StateAfter: sa, State: st, Templates: t, Width: meta.Width, Height: meta.Height}, nil
}
