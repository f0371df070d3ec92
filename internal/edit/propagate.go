package edit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// PropagateRequest copies one image's edits to others. Exclude names the entries
// and templates not to copy; with ExcludeGiven false the framing-bound ones are
// skipped instead.
type PropagateRequest struct {
	Source       string
	Targets      []string
	Exclude      []string
	ExcludeGiven bool
}

// Propagated is what Propagate did: the names copied and skipped, in the source's
// order, and one commit per target.
type Propagated struct {
	Copied, Skipped []string
	Targets         []Mutation
}

// Propagate sets the source's entries and bound templates, less the excluded ones,
// on every target's HEAD, one snapshot per target labelled "propagate_state from
// <source>". Every target is checked before any is committed. Returns invalid_input
// for a target that is the source or repeats another, not_found for an unknown
// image or excluded name; an error about a target names it.
func (s *Editor) Propagate(req PropagateRequest) (Propagated, error) {
	src, targets, exclude := req.Source, req.Targets, req.Exclude
	for i, t := range targets {
		field := fmt.Sprintf("target_image_ids.%d", i)
		if t == src {
			return Propagated{}, darkroom.FieldError(field, "%s is the source image", t)
		}
		if j := slices.Index(targets, t); j < i {
			return Propagated{}, darkroom.FieldError(field, "%s is already target_image_ids.%d", t, j)
		}
	}
	_, source, err := s.StateAfter(src)
	if err != nil {
		return Propagated{}, err
	}
	for i, name := range exclude {
		inSource := slices.ContainsFunc(source.Entries, func(e history.Entry) bool { return e.Primitive == name })
		if _, ok := s.Vocab.Entry(name); !ok && !inSource {
			_, err := s.LookupEntry(fmt.Sprintf("exclude_ops.%d", i), name)
			return Propagated{}, err
		}
	}

	// What to copy: the source's entries and bound templates, less the excluded ones
	// (by default the framing-bound ones).
	skip := func(name string) (bool, error) {
		if req.ExcludeGiven {
			return slices.Contains(exclude, name), nil
		}
		return s.FramingBound(name)
	}
	var copied, skipped []string
	note := func(list *[]string, name string) {
		if !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	var entries []history.Entry
	for _, e := range source.Entries {
		sk, err := skip(e.Primitive)
		if err != nil {
			return Propagated{}, err
		}
		if sk {
			note(&skipped, e.Primitive)
			continue
		}
		note(&copied, e.Primitive)
		entries = append(entries, e)
	}
	srcT, err := StateTemplates(source)
	if err != nil {
		return Propagated{}, err
	}
	var templates Templates
	for _, p := range []struct{ from, to *string }{{&srcT.L1, &templates.L1}, {&srcT.L2, &templates.L2}} {
		if *p.from == "" {
			continue
		}
		sk, err := skip(*p.from)
		if err != nil {
			return Propagated{}, err
		}
		if sk {
			note(&skipped, *p.from)
			continue
		}
		note(&copied, *p.from)
		*p.to = *p.from
	}
	apply := func(st *history.State) error {
		for _, e := range entries {
			st.Set(e)
		}
		t, err := StateTemplates(*st)
		if err != nil {
			return err
		}
		if templates.L1 != "" {
			t.L1 = templates.L1
		}
		if templates.L2 != "" {
			t.L2 = templates.L2
		}
		SetStateTemplates(st, t)
		return nil
	}

	// Every target is checked before any is committed: it exists, and its state with
	// the copied entries resolves, renders and fits the store's limits.
	for _, t := range targets {
		_, st, err := s.StateAfter(t)
		if err != nil {
			return Propagated{}, AtField(err, "target "+t)
		}
		next := st.Clone()
		if err := apply(&next); err != nil {
			return Propagated{}, AtField(err, "target "+t)
		}
		if _, err := s.Edits(next); err != nil {
			return Propagated{}, AtField(err, "target "+t)
		}
		if _, err := history.Hash(next); err != nil {
			return Propagated{}, AtField(err, "target "+t)
		}
	}
	// The history has no transaction across images: a target can still fail here (a
	// full disk, its files damaged in between), after earlier targets were committed.
	// The error then names the ones already updated.
	out := Propagated{Copied: nonNil(copied), Skipped: nonNil(skipped), Targets: []Mutation{}}
	for _, t := range targets {
		m, err := s.Mutate(t, "propagate_state from "+src, apply)
		if err != nil {
			done := make([]string, len(out.Targets))
			for i, d := range out.Targets {
				done[i] = d.ImageID
			}
			if len(done) > 0 {
				return Propagated{}, AtField(err, fmt.Sprintf("target %s (already updated: %s)", t, strings.Join(done, ", ")))
			}
			return Propagated{}, AtField(err, "target "+t)
		}
		out.Targets = append(out.Targets, m)
	}
	return out, nil
}
