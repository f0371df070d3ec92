package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// The edit tools: apply_primitive, apply_per_region, apply_spot, wb_from_gray_card,
// remove_module, reset and propagate_state. Each validates everything it was given
// before it commits, and commits through Mutate, so a failing call leaves the image as
// it was and a successful one is exactly one snapshot per image.

type applyArgs struct {
	ImageID   string          `json:"image_id"`
	Primitive string          `json:"primitive_name"`
	Value     json.RawMessage `json:"value"`
	MaskSpec  json.RawMessage `json:"mask_spec"`
	Strength  float64         `json:"strength"` // the contract fills the default
}

func applyPrimitive(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	checked := takeChecked(args)
	a, err := decodeArgs[applyArgs](args)
	if err != nil {
		return nil, "", err
	}
	r, err := s.Apply(a.ImageID, edit.PrimitiveEdit{Name: a.Primitive, Value: a.Value, Mask: a.MaskSpec, Strength: a.Strength, Checked: checked})
	if err != nil {
		return nil, "", err
	}
	verb := "applied"
	if r.Replaced {
		verb = "replaced"
	}
	return r.Mutation, fmt.Sprintf("%s %s %s on %s; %s", verb, a.Primitive, describeValues(r.Entry), a.ImageID, describeMutation(r.Mutation)), nil
}

// describeValues says what an entry was applied with, for the summary line.
func describeValues(e history.Entry) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(e.Values)) {
		parts = append(parts, fmt.Sprintf("%s %g", k, e.Values[k]))
	}
	if len(e.Mask) > 0 {
		var m struct {
			Name *string `json:"name"`
		}
		json.Unmarshal(e.Mask, &m)
		if m.Name != nil {
			parts = append(parts, "mask "+*m.Name)
		} else {
			parts = append(parts, "drawn mask")
		}
	}
	if e.Strength != 1 {
		parts = append(parts, fmt.Sprintf("strength %g", e.Strength))
	}
	if len(parts) == 0 {
		return "at its defaults"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func describeMutation(m edit.Mutation) string {
	n := m.StateAfter.EntryCount
	return fmt.Sprintf("%d %s, head %.12s", n, plural(n, "entry", "entries"), m.SnapshotHash)
}

type regionArgs struct {
	Primitive string          `json:"primitive_name"`
	Value     json.RawMessage `json:"value"`
	MaskSpec  json.RawMessage `json:"mask_spec"`
	Strength  float64         `json:"strength"`
}

type perRegionArgs struct {
	ImageID   string       `json:"image_id"`
	Primitive string       `json:"primitive_name"`
	Regions   []regionArgs `json:"regions"`
}

func applyPerRegion(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	list, _ := args["regions"].([]any)
	checked := make([]*edit.Checked, len(list))
	for i, r := range list {
		if m, ok := r.(map[string]any); ok {
			checked[i] = takeChecked(m)
		}
	}
	a, err := decodeArgs[perRegionArgs](args)
	if err != nil {
		return nil, "", err
	}
	regions := make([]edit.PrimitiveEdit, len(a.Regions))
	for i, r := range a.Regions {
		regions[i] = edit.PrimitiveEdit{Name: r.Primitive, Value: r.Value, Mask: r.MaskSpec, Strength: r.Strength}
		if i < len(checked) {
			regions[i].Checked = checked[i]
		}
	}
	m, entries, err := s.ApplyRegions(a.ImageID, a.Primitive, regions)
	if err != nil {
		return nil, "", err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Primitive
	}
	return m, fmt.Sprintf("applied %d %s (%s) on %s; %s", len(entries), plural(len(entries), "region", "regions"), strings.Join(names, ", "), a.ImageID, describeMutation(m)), nil
}

type spotArgs struct {
	ImageID string   `json:"image_id"`
	Kind    string   `json:"kind"`
	X       float64  `json:"x"`
	Y       float64  `json:"y"`
	Radius  float64  `json:"radius"`
	Opacity float64  `json:"opacity"` // the contract fills the defaults
	Border  float64  `json:"border"`
	SourceX *float64 `json:"source_x"`
	SourceY *float64 `json:"source_y"`
}

func applySpot(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[spotArgs](args)
	if err != nil {
		return nil, "", err
	}
	r, err := s.Spot(edit.SpotRequest{ImageID: a.ImageID, Kind: a.Kind, X: a.X, Y: a.Y, Radius: a.Radius,
		Opacity: a.Opacity, Border: a.Border, SourceX: a.SourceX, SourceY: a.SourceY})
	if err != nil {
		return nil, "", err
	}
	return r.Mutation, fmt.Sprintf("%s spot at (%.3g, %.3g) radius %.3g from (%.3g, %.3g) on %s; %s", a.Kind, a.X, a.Y, a.Radius, r.SourceX, r.SourceY, a.ImageID, describeMutation(r.Mutation)), nil
}

// wbData is #WBFromGrayCardData.
type wbData struct {
	edit.Mutation
	Temperature float64 `json:"temperature"`
	Tint        float64 `json:"tint"`
}

type grayCardArgs struct {
	ImageID string  `json:"image_id"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Radius  float64 `json:"sample_radius"` // the contract fills the default
}

func wbFromGrayCard(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[grayCardArgs](args)
	if err != nil {
		return nil, "", err
	}
	b, err := s.GrayCard(a.ImageID, a.X, a.Y, a.Radius)
	if err != nil {
		return nil, "", err
	}
	return wbData{Mutation: b.Mutation, Temperature: b.Temperature, Tint: b.Tint},
		fmt.Sprintf("white balance from the grey card at (%.3g, %.3g) on %s: temperature %g, tint %g; %s", a.X, a.Y, a.ImageID, b.Temperature, b.Tint, describeMutation(b.Mutation)), nil
}

type removeArgs struct {
	ImageID string `json:"image_id"`
	Module  string `json:"module_name"`
}

func removeModule(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[removeArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, removed, err := s.RemoveModule(a.ImageID, a.Module)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("removed %d %s %s from %s; %s", removed, a.Module, plural(removed, "entry", "entries"), a.ImageID, describeMutation(m)), nil
}

func plural(n int, one, many string) string { return edit.Plural(n, one, many) }

type imageArgs struct {
	ImageID string `json:"image_id"`
}

func resetImage(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[imageArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, err := s.Reset(a.ImageID)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("reset %s to its baseline; %s", a.ImageID, describeMutation(m)), nil
}

// propagateData is #PropagateStateData.
type propagateData struct {
	SourceImageID string          `json:"source_image_id"`
	Copied        []string        `json:"copied"`
	Skipped       []string        `json:"skipped"`
	Targets       []edit.Mutation `json:"targets"`
}

type propagateArgs struct {
	Source  string    `json:"source_image_id"`
	Targets []string  `json:"target_image_ids"`
	Exclude *[]string `json:"exclude_ops"` // nil: absent or null, skip the framing-bound
}

func propagateState(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[propagateArgs](args)
	if err != nil {
		return nil, "", err
	}
	req := edit.PropagateRequest{Source: a.Source, Targets: a.Targets, ExcludeGiven: a.Exclude != nil}
	if a.Exclude != nil {
		req.Exclude = *a.Exclude
	}
	p, err := s.Propagate(req)
	if err != nil {
		return nil, "", err
	}
	data := propagateData{SourceImageID: a.Source, Copied: p.Copied, Skipped: p.Skipped, Targets: p.Targets}
	summary := fmt.Sprintf("copied %d %s from %s to %d %s", len(data.Copied), plural(len(data.Copied), "primitive", "primitives"),
		a.Source, len(a.Targets), plural(len(a.Targets), "image", "images"))
	if len(data.Skipped) > 0 {
		summary += " (skipped " + strings.Join(data.Skipped, ", ") + ")"
	}
	return data, summary, nil
}
