package server

import (
	"context"
	"encoding/json"
	"fmt"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/edit"
)

// The ingest tools: ingest, get_state and bind_layers.

// ingestData is #IngestData.
type ingestData struct {
	edit.Mutation
	Width     int           `json:"width"`
	Height    int           `json:"height"`
	Format    string        `json:"format"`
	EXIF      ingestEXIF    `json:"exif"`
	Suggested templatesView `json:"suggested"`
	Warnings  []string      `json:"warnings"`
}

type ingestEXIF struct {
	Make        *string  `json:"make"`
	Model       *string  `json:"model"`
	Lens        *string  `json:"lens"`
	FocalLength *float64 `json:"focal_length"`
	Orientation int      `json:"orientation"`
	// Camera raw files only.
	ISO          *int     `json:"iso,omitempty"`
	ExposureTime *float64 `json:"exposure_time,omitempty"`
	FNumber      *float64 `json:"f_number,omitempty"`
}

// templatesView is a pair of templates as the contract shows them: null for none.
type templatesView struct {
	L1 *string `json:"l1_template"`
	L2 *string `json:"l2_template"`
}

func viewTemplates(t edit.Templates) templatesView {
	var v templatesView
	if t.L1 != "" {
		v.L1 = &t.L1
	}
	if t.L2 != "" {
		v.L2 = &t.L2
	}
	return v
}

func nonZeroPtr[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

type ingestArgs struct {
	Path     string `json:"path"`
	ImageB64 string `json:"image_b64"`
	ImageID  string `json:"image_id"`
}

func ingest(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[ingestArgs](args)
	if err != nil {
		return nil, "", err
	}
	req := edit.IngestRequest{Path: a.Path, ImageID: a.ImageID}
	if a.ImageB64 != "" {
		if a.Path != "" {
			return nil, "", darkroom.FieldError("path", "give exactly one of path or image_b64")
		}
		if req.Data, err = edit.DecodeImageB64(a.ImageB64); err != nil {
			return nil, "", err
		}
	}
	in, err := s.Ingest(req)
	if err != nil {
		return nil, "", err
	}
	out := ingestData{
		Mutation: in.Mutation, Width: in.Width, Height: in.Height, Format: in.Format,
		EXIF: ingestEXIF{
			Make: nonZeroPtr(in.EXIF.Make), Model: nonZeroPtr(in.EXIF.Model), Lens: nonZeroPtr(in.EXIF.LensModel),
			FocalLength: nonZeroPtr(in.EXIF.FocalLength), Orientation: min(max(in.EXIF.Orientation, 1), 8),
			ISO: nonZeroPtr(in.EXIF.ISO), ExposureTime: nonZeroPtr(in.EXIF.ExposureTime), FNumber: nonZeroPtr(in.EXIF.FNumber),
		},
		Suggested: viewTemplates(edit.Templates{L1: in.SuggestedL1}),
		Warnings:  nonNil(in.Warnings),
	}
	for _, w := range in.Warnings {
		s.notify(ctx, "warning", w, map[string]any{"tool": "ingest", "image_id": in.ImageID})
	}
	summary := fmt.Sprintf("ingested %s: %dx%d %s, baseline %.12s", in.ImageID, out.Width, out.Height, out.Format, in.SnapshotHash)
	if in.SuggestedL1 != "" {
		summary += "; suggested L1 template " + in.SuggestedL1
	}
	return out, summary, nil
}

// getStateData is #GetStateData.
type getStateData struct {
	ImageID    string           `json:"image_id"`
	StateAfter edit.StateAfter  `json:"state_after"`
	Entries    []stateEntryView `json:"entries"`
	Templates  templatesView    `json:"templates"`
	Width      int              `json:"width"`
	Height     int              `json:"height"`
}

// stateEntryView is the contract's #StateEntry.
type stateEntryView struct {
	Primitive string             `json:"primitive"`
	Layer     string             `json:"layer"`
	Values    map[string]float64 `json:"values"`
	Mask      json.RawMessage    `json:"mask"` // nil encodes as null: the whole image
	Strength  float64            `json:"strength"`
}

func getState(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[imageArgs](args)
	if err != nil {
		return nil, "", err
	}
	is, err := s.State(a.ImageID)
	if err != nil {
		return nil, "", err
	}
	sa := is.StateAfter
	out := getStateData{ImageID: a.ImageID, StateAfter: sa, Entries: []stateEntryView{}, Templates: viewTemplates(is.Templates), Width: is.Width, Height: is.Height}
	for _, e := range is.State.Entries {
		v := stateEntryView{Primitive: e.Primitive, Layer: e.Layer, Values: e.Values, Mask: e.Mask, Strength: e.Strength}
		if v.Values == nil {
			v.Values = map[string]float64{}
		}
		out.Entries = append(out.Entries, v)
	}
	where := "on branch " + derefOr(sa.Branch, "")
	if sa.Detached {
		where = "detached"
	}
	return out, fmt.Sprintf("%s: %d %s, head %.12s %s", a.ImageID, len(out.Entries), plural(len(out.Entries), "entry", "entries"), sa.Head, where), nil
}

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

type bindArgs struct {
	ImageID string `json:"image_id"`
	L1      string `json:"l1_template"` // "" (absent or null): leave it as it is
	L2      string `json:"l2_template"`
}

func bindLayers(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[bindArgs](args)
	if err != nil {
		return nil, "", err
	}
	m, bound, err := s.BindLayers(a.ImageID, a.L1, a.L2)
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("templates of %s: L1 %s, L2 %s; %s", a.ImageID, derefOr(nonZeroPtr(bound.L1), "none"), derefOr(nonZeroPtr(bound.L2), "none"), describeMutation(m)), nil
}
