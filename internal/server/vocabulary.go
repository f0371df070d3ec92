package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

type entryView struct {
	Name        string          `json:"name"`
	Pack        string          `json:"pack"`
	Layer       string          `json:"layer"`
	Category    string          `json:"category"`
	Tags        []string        `json:"tags"`
	Description string          `json:"description"`
	Aliases     []string        `json:"aliases"`
	Examples    []string        `json:"examples"`
	ValueShape  string          `json:"value_shape"`
	Parameters  []parameterView `json:"parameters"`
	Operations  []string        `json:"operations"`
	DefaultMask *string         `json:"default_mask"`
}

type parameterView struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	Default     float64 `json:"default"`
	Unit        string  `json:"unit"`
	Description string  `json:"description"`
}

type vocabularyArgs struct {
	Layer    string   `json:"layer"`
	Category string   `json:"category"`
	Tags     []string `json:"tags"`
}

type transformsArgs struct {
	Category        string `json:"category"`
	IncludeExamples bool   `json:"include_examples"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func viewEntry(e *vocab.Entry) entryView {
	v := entryView{
		Name: e.Name, Pack: e.Pack, Layer: e.Layer, Category: e.Category,
		Tags: nonNil(e.Tags), Description: e.Description, Aliases: nonNil(e.Aliases),
		Examples: nonNil(e.Examples), ValueShape: e.ValueShape(),
		Parameters: []parameterView{}, Operations: []string{},
	}
	for _, n := range e.ParameterNames() {
		p := e.Parameters[n]
		v.Parameters = append(v.Parameters, parameterView{n, p.Type, p.Min, p.Max, p.Default, p.Unit, p.Description})
	}
	for _, op := range e.Operations {
		v.Operations = append(v.Operations, op.Op)
	}
	if e.DefaultMask != "" {
		m := e.DefaultMask
		v.DefaultMask = &m
	}
	return v
}

func listVocabulary(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[vocabularyArgs](args)
	if err != nil {
		return nil, "", err
	}
	f := vocab.Filter{Layer: a.Layer, Category: a.Category, Tags: a.Tags}
	entries := s.Vocab.Select(f)
	views := make([]entryView, len(entries))
	for i, e := range entries {
		views[i] = viewEntry(e)
	}
	return map[string]any{"count": len(views), "entries": views},
		fmt.Sprintf("%d vocabulary entries%s", len(views), describeFilter(f)), nil
}

func describeFilter(f vocab.Filter) string {
	var s string
	if f.Layer != "" {
		s += " in layer " + f.Layer
	}
	if f.Category != "" {
		s += " in category " + f.Category
	}
	if len(f.Tags) > 0 {
		s += fmt.Sprintf(" tagged %v", f.Tags)
	}
	return s
}

type maskView struct {
	Name        string         `json:"name"`
	Pack        string         `json:"pack"`
	Description string         `json:"description"`
	Tags        []string       `json:"tags"`
	Spec        map[string]any `json:"spec"`
}

func listMasksVocabulary(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[vocabularyArgs](args)
	if err != nil {
		return nil, "", err
	}
	masks := s.Vocab.SelectMasks(a.Tags)
	views := make([]maskView, len(masks))
	for i, m := range masks {
		views[i] = maskView{m.Name, m.Pack, m.Description, nonNil(m.Tags), m.Spec}
	}
	return map[string]any{"count": len(views), "masks": views}, fmt.Sprintf("%d named masks", len(views)), nil
}

type transformView struct {
	Name        string               `json:"name"`
	Category    string               `json:"category"`
	Description string               `json:"description"`
	Parameters  map[string]rangeView `json:"parameters"`
	Aliases     []string             `json:"aliases"`
	Examples    []string             `json:"examples,omitempty"`
}

type rangeView struct {
	Type    string  `json:"type"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Default float64 `json:"default"`
	Unit    string  `json:"unit"`
}

func listAvailableTransforms(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[transformsArgs](args)
	if err != nil {
		return nil, "", err
	}
	examples, category := a.IncludeExamples, a.Category
	var entries []*vocab.Entry
	for _, e := range s.Vocab.Select(vocab.Filter{}) {
		if category == "" || category == "all" || e.Category == category || slices.Contains(e.Tags, category) {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil, "", darkroom.FieldError("category", "no transform has category or tag %q; the categories are %s (or \"all\")",
			category, strings.Join(s.Vocab.Categories(), ", "))
	}
	views := make([]transformView, len(entries))
	for i, e := range entries {
		v := transformView{
			Name: e.Name, Category: e.Category, Description: e.Description,
			Parameters: map[string]rangeView{}, Aliases: nonNil(e.Aliases),
		}
		for n, p := range e.Parameters {
			v.Parameters[n] = rangeView{p.Type, p.Min, p.Max, p.Default, p.Unit}
		}
		if examples {
			v.Examples = nonNil(e.Examples)
		}
		views[i] = v
	}
	return map[string]any{"transforms": views, "total_count": len(views), "categories": nonNil(s.Vocab.Categories())},
		fmt.Sprintf("%d transforms in %d categories", len(views), len(s.Vocab.Categories())), nil
}
