package server

import (
	"context"
	"darkroom/internal/edit"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"darkroom"
	"darkroom/internal/engine"
	"darkroom/internal/history"
)

// The edit tools: apply_primitive, apply_per_region, apply_spot, wb_from_gray_card,
// remove_module, reset and propagate_state. Each validates everything it was given
// before it commits, and commits through Mutate, so a failing call leaves the image as
// it was and a successful one is exactly one snapshot per image.

// editArgs reads arguments the contract has checked and completed with defaults.
type editArgs map[string]any

// number returns a number argument; ok is false when it is absent or null.
func (a editArgs) number(name string) (v float64, ok bool) {
	v, ok = a[name].(float64)
	return v, ok
}

// raw returns an argument as JSON, nil when it is absent or null.
func (a editArgs) raw(name string) (json.RawMessage, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "%s: re-encode checked argument", name)
	}
	return b, nil
}

type applyArgs struct {
	ImageID   string          `json:"image_id"`
	Primitive string          `json:"primitive_name"`
	Value     json.RawMessage `json:"value"`
	MaskSpec  json.RawMessage `json:"mask_spec"`
	Strength  float64         `json:"strength"` // the contract fills the default
}

func applyPrimitive(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[applyArgs](args)
	if err != nil {
		return nil, "", err
	}
	r, err := s.Apply(a.ImageID, edit.PrimitiveEdit{Name: a.Primitive, Value: a.Value, Mask: a.MaskSpec, Strength: a.Strength})
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

func applyPerRegion(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	id, top := stringArg(args, "image_id"), stringArg(args, "primitive_name")
	regions, _ := args["regions"].([]any)
	// Every region is checked before anything is committed: one bad region fails the
	// call and leaves the state as it was.
	var entries []history.Entry
	var scratch history.State
	for i, r := range regions {
		ra := editArgs(objectArg(r))
		field := fmt.Sprintf("regions.%d.", i)
		name := stringArg(ra, "primitive_name")
		if name == "" {
			name = top
		}
		if name == "" {
			f := field + "primitive_name"
			return nil, "", &darkroom.Error{Code: darkroom.InvalidInput,
				Message: f + ": no primitive: give primitive_name in the region or once at the top level",
				Details: map[string]any{"fields": []any{map[string]any{"path": f, "message": "required when the top-level primitive_name is absent"}}}}
		}
		value, err := ra.raw("value")
		if err != nil {
			return nil, "", err
		}
		mask, err := ra.raw("mask_spec")
		if err != nil {
			return nil, "", err
		}
		strength, _ := ra.number("strength")
		e, err := s.StateEntry(edit.PrimitiveEdit{Field: field, Name: name, Value: value, Mask: mask, Strength: strength})
		if err != nil {
			return nil, "", err
		}
		if scratch.Set(e) {
			f := strings.TrimSuffix(field, ".")
			return nil, "", &darkroom.Error{Code: darkroom.InvalidInput,
				Message: fmt.Sprintf("%s: %s with this mask_spec is already an earlier region; each region needs its own mask or primitive", f, name),
				Details: map[string]any{"fields": []any{map[string]any{"path": f + ".mask_spec", "message": "repeats an earlier region"}}}}
		}
		entries = append(entries, e)
	}
	m, err := s.Mutate(id, fmt.Sprintf("apply_per_region %d %s", len(entries), plural(len(entries), "region", "regions")), func(st *history.State) error {
		for _, e := range entries {
			st.Set(e)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Primitive
	}
	return m, fmt.Sprintf("applied %d %s (%s) on %s; %s", len(entries), plural(len(entries), "region", "regions"), strings.Join(names, ", "), id, describeMutation(m)), nil
}

func objectArg(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func applySpot(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	a := editArgs(args)
	id, kind := stringArg(args, "image_id"), stringArg(args, "kind")
	x, _ := a.number("x")
	y, _ := a.number("y")
	radius, _ := a.number("radius")
	opacity, _ := a.number("opacity")
	border, _ := a.number("border")
	sx, hasX := a.number("source_x")
	sy, hasY := a.number("source_y")
	if hasX != hasY {
		return nil, "", &darkroom.Error{Code: darkroom.InvalidInput,
			Message: "source_x and source_y go together: give both, or neither to let apply_spot pick a source beside the spot",
			Details: map[string]any{"fields": []any{map[string]any{"path": "source_x", "message": "given without source_y, or the other way round"}}}}
	}
	if hasX && sx == x && sy == y {
		return nil, "", &darkroom.Error{Code: darkroom.InvalidInput,
			Message: "source_x, source_y: the source is the spot itself; pick a clean area beside it",
			Details: map[string]any{"fields": []any{map[string]any{"path": "source_x", "message": "equal to x, y"}}}}
	}
	entry, err := s.LookupEntry("kind", kind+"_spot")
	if err != nil {
		return nil, "", err
	}
	meta, load, err := ws.Source(id)
	if err != nil {
		return nil, "", err
	}
	mask, err := json.Marshal(map[string]any{"shape": map[string]any{
		"kind": "ellipse", "center": []float64{x, y}, "radius_x": radius, "radius_y": radius, "feather": border * radius,
	}})
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.InternalError, err, "spot mask")
	}
	if mask, err = s.CheckMask(mask); err != nil {
		return nil, "", err
	}
	m, err := s.Mutate(id, "apply_spot "+kind, func(st *history.State) error {
		// The spot's coordinates are fractions of the frame the spot operation sees:
		// the image after its geometry edits.
		w, h, err := s.frameSize(ws, meta, load, *st)
		if err != nil {
			return err
		}
		if !hasX {
			sx, sy = edit.SpotSource(x, y, radius, w, h)
		}
		long := float64(max(w, h))
		offset, _ := json.Marshal(map[string]float64{
			"dx": (sx - x) * float64(w) / long,
			"dy": (sy - y) * float64(h) / long,
		})
		values, err := s.Vocab.Values(s.Contract, entry, offset)
		if err != nil {
			return err
		}
		spot := history.Entry{Primitive: entry.Name, Layer: entry.Layer, Values: values, Mask: mask, Strength: opacity}
		if err := s.CheckEntry(spot); err != nil {
			return err
		}
		st.Set(spot)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%s spot at (%.3g, %.3g) radius %.3g from (%.3g, %.3g) on %s; %s", kind, x, y, radius, sx, sy, id, describeMutation(m)), nil
}

// frameSize returns the size of the image that the detail stage sees for state st:
// the source's own when st has no geometry, else the preview's after geometry, whose
// aspect ratio is the full-size frame's.
func (s *Server) frameSize(ws *edit.Workspace, meta edit.SourceMeta, load engine.Loader, st history.State) (int, int, error) {
	edits, err := s.Edits(st)
	if err != nil {
		return 0, 0, err
	}
	var geom []engine.Edit
	for _, e := range edits {
		if stage, _ := engine.OpStage(e.Op); stage == "geometry" {
			geom = append(geom, e)
		}
	}
	if len(geom) == 0 {
		return meta.Width, meta.Height, nil
	}
	img, err := ws.Previews.Preview(engine.PreviewRequest{Key: meta.SHA256, Load: load, Edits: geom})
	if err != nil {
		if edit.ResourceFailure(err) {
			return 0, 0, err
		}
		return 0, 0, darkroom.Wrap(darkroom.InternalError, err, "frame of %s after its geometry", meta.File)
	}
	return img.W, img.H, nil
}

// Limits of a grey reference for wb_from_gray_card.
const (
	// grayMinLuminance is the darkest patch (linear luminance) whose colour is still
	// more signal than noise.
	grayMinLuminance = 0.02
	// grayClipLevel and grayMaxClipped: a patch with more than this share of pixels
	// with a channel at white has lost its colour to clipping.
	grayClipLevel  = 0.99
	grayMaxClipped = 0.05
	// grayMaxSaturation is the largest (max-min)/max of the patch's linear channels; a
	// strong tungsten cast on a grey card is about 0.7.
	grayMaxSaturation = 0.85
	// grayMaxResidual is the most cast the best white balance may leave, in
	// sqrt(ln(R/G)^2 + ln(B/G)^2): about 1% off grey.
	grayMaxResidual = 0.01
)

// wbData is #WBFromGrayCardData.
type wbData struct {
	edit.Mutation
	Temperature float64 `json:"temperature"`
	Tint        float64 `json:"tint"`
}

func wbFromGrayCard(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	a := editArgs(args)
	id := stringArg(args, "image_id")
	x, _ := a.number("x")
	y, _ := a.number("y")
	radius, _ := a.number("sample_radius")
	entry, ok := s.Vocab.Entry("white_balance")
	if !ok {
		return nil, "", darkroom.Errorf(darkroom.NotFound, "the vocabulary has no white_balance entry to set")
	}
	tempParam, tintParam := "", ""
	for _, u := range entry.Operations {
		if u.Op == "white_balance" {
			tempParam, tintParam = u.Bind["temperature"], u.Bind["tint"]
		}
	}
	if tempParam == "" || tintParam == "" {
		return nil, "", darkroom.Errorf(darkroom.InternalError, "the white_balance entry does not bind the operation's temperature and tint")
	}
	meta, load, err := ws.Source(id)
	if err != nil {
		return nil, "", err
	}
	var temp, tint float64
	m, err := s.Mutate(id, "wb_from_gray_card", func(st *history.State) error {
		// Sample what white balance sees: the image after geometry (so x, y are
		// where the agent saw the card) and the other light-stage edits (exposure, a
		// masked white balance), without the whole-image white_balance entry this
		// call replaces. Tone and colour edits come after white balance in the
		// render; the patch is made grey where white balance acts on it.
		sample := history.State{Extra: st.Extra}
		for _, e := range st.Entries {
			if e.Primitive != entry.Name || len(e.Mask) > 0 {
				sample.Entries = append(sample.Entries, e)
			}
		}
		edits, err := s.Edits(sample)
		if err != nil {
			return err
		}
		var early []engine.Edit
		for _, e := range edits {
			if stage, _ := engine.OpStage(e.Op); stage == "geometry" || stage == "light" {
				early = append(early, e)
			}
		}
		img, err := ws.Previews.Preview(engine.PreviewRequest{Key: meta.SHA256, Load: load, Edits: early})
		if err != nil {
			if edit.ResourceFailure(err) {
				return err
			}
			return darkroom.Wrap(darkroom.RenderError, err, "render %s to sample the grey card", id)
		}
		patch, clipped := engine.SamplePatch(img, x, y, radius, grayClipLevel)
		lum := 0.2126*patch[0] + 0.7152*patch[1] + 0.0722*patch[2]
		where := fmt.Sprintf("the patch at (%.3g, %.3g)", x, y)
		switch {
		case lum < grayMinLuminance:
			return grayError("%s is too dark to be a grey reference: linear luminance %.4f, below %.2f; pick a brighter neutral area", where, lum, grayMinLuminance)
		case clipped > grayMaxClipped:
			return grayError("%s is clipped: %.0f%% of its pixels are at white, so its colour is lost; pick a neutral area that is not blown out", where, 100*clipped)
		}
		if sat := 1 - min(patch[0], patch[1], patch[2])/max(patch[0], patch[1], patch[2]); sat > grayMaxSaturation {
			return grayError("%s is strongly coloured (saturation %.2f), not a grey reference; pick a neutral grey or white area", where, sat)
		}
		t, ti, residual, err := engine.NeutralWhiteBalance(patch[0], patch[1], patch[2])
		if err != nil {
			return grayError("%s: %v", where, err)
		}
		if residual > grayMaxResidual {
			return grayError("%s is too strongly coloured to be a grey reference: the best white balance (temperature %.0f, tint %.2f) leaves it %.1f%% off grey; pick a neutral area", where, t, ti, 100*residual)
		}
		temp, tint = math.Round(t*10)/10, math.Round(ti*1e4)/1e4
		raw, _ := json.Marshal(map[string]float64{tempParam: temp, tintParam: tint})
		values, err := s.Vocab.Values(s.Contract, entry, raw)
		if err != nil {
			return &darkroom.Error{Code: darkroom.InvalidInput,
				Message: fmt.Sprintf("the colour cast at (%.3g, %.3g) is too strong to correct: it needs temperature %.0f and tint %.3f, outside what %s allows (%v)", x, y, temp, tint, entry.Name, err),
				Details: map[string]any{"temperature": temp, "tint": tint}}
		}
		wb := history.Entry{Primitive: entry.Name, Layer: entry.Layer, Values: values, Strength: 1}
		if err := s.CheckEntry(wb); err != nil {
			return err
		}
		st.Set(wb)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return wbData{Mutation: m, Temperature: temp, Tint: tint},
		fmt.Sprintf("white balance from the grey card at (%.3g, %.3g) on %s: temperature %g, tint %g; %s", x, y, id, temp, tint, describeMutation(m)), nil
}

func grayError(format string, args ...any) error {
	return darkroom.Errorf(darkroom.InvalidInput, format, args...)
}

func removeModule(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	id, name := stringArg(args, "image_id"), stringArg(args, "module_name")
	var removed int
	m, err := s.Mutate(id, "remove_module "+name, func(st *history.State) error {
		if removed = st.Remove(name); removed > 0 {
			return nil
		}
		// Removing works for an entry whose pack is gone too; only when nothing is
		// removed does the vocabulary say whether the name was a typo.
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
		return nil, "", err
	}
	return m, fmt.Sprintf("removed %d %s %s from %s; %s", removed, name, plural(removed, "entry", "entries"), id, describeMutation(m)), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func resetImage(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	hash, err := ws.History.Resolve(id, "refs/tags/baseline")
	if err != nil {
		return nil, "", err
	}
	baseline, err := ws.History.Get(id, hash)
	if err != nil {
		return nil, "", err
	}
	m, err := s.Mutate(id, "reset", func(st *history.State) error {
		*st = baseline.Clone()
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("reset %s to its baseline; %s", id, describeMutation(m)), nil
}

// propagateData is #PropagateStateData.
type propagateData struct {
	SourceImageID string          `json:"source_image_id"`
	Copied        []string        `json:"copied"`
	Skipped       []string        `json:"skipped"`
	Targets       []edit.Mutation `json:"targets"`
}

func propagateState(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	src := stringArg(args, "source_image_id")
	targets := stringsArg(args, "target_image_ids")
	_, explicit := args["exclude_ops"].([]any)
	exclude := stringsArg(args, "exclude_ops")

	for i, t := range targets {
		field := fmt.Sprintf("target_image_ids.%d", i)
		if t == src {
			return nil, "", edit.FieldError(field, "%s is the source image", t)
		}
		if j := slices.Index(targets, t); j < i {
			return nil, "", edit.FieldError(field, "%s is already target_image_ids.%d", t, j)
		}
	}
	_, source, err := s.StateAfter(src)
	if err != nil {
		return nil, "", err
	}
	for i, name := range exclude {
		inSource := slices.ContainsFunc(source.Entries, func(e history.Entry) bool { return e.Primitive == name })
		if _, ok := s.Vocab.Entry(name); !ok && !inSource {
			_, err := s.LookupEntry(fmt.Sprintf("exclude_ops.%d", i), name)
			return nil, "", err
		}
	}

	// What to copy: the source's entries and bound templates, less the excluded ones
	// (by default the framing-bound ones).
	skip := func(name string) (bool, error) {
		if explicit {
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
			return nil, "", err
		}
		if sk {
			note(&skipped, e.Primitive)
			continue
		}
		note(&copied, e.Primitive)
		entries = append(entries, e)
	}
	srcT, err := edit.StateTemplates(source)
	if err != nil {
		return nil, "", err
	}
	var templates edit.Templates
	for _, p := range []struct{ from, to *string }{{&srcT.L1, &templates.L1}, {&srcT.L2, &templates.L2}} {
		if *p.from == "" {
			continue
		}
		sk, err := skip(*p.from)
		if err != nil {
			return nil, "", err
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
		t, err := edit.StateTemplates(*st)
		if err != nil {
			return err
		}
		if templates.L1 != "" {
			t.L1 = templates.L1
		}
		if templates.L2 != "" {
			t.L2 = templates.L2
		}
		edit.SetStateTemplates(st, t)
		return nil
	}

	// Every target is checked before any is committed: it exists, and its state with
	// the copied entries resolves, renders and fits the store's limits.
	for _, t := range targets {
		_, st, err := s.StateAfter(t)
		if err != nil {
			return nil, "", edit.AtField(err, "target "+t)
		}
		next := st.Clone()
		if err := apply(&next); err != nil {
			return nil, "", edit.AtField(err, "target "+t)
		}
		if _, err := s.Edits(next); err != nil {
			return nil, "", edit.AtField(err, "target "+t)
		}
		if _, err := history.Hash(next); err != nil {
			return nil, "", edit.AtField(err, "target "+t)
		}
	}
	// The history has no transaction across images: a target can still fail here (a
	// full disk, its files damaged in between), after earlier targets were committed.
	// The error then names the ones already updated.
	data := propagateData{SourceImageID: src, Copied: nonNil(copied), Skipped: nonNil(skipped), Targets: []edit.Mutation{}}
	for _, t := range targets {
		m, err := s.Mutate(t, "propagate_state from "+src, apply)
		if err != nil {
			done := make([]string, len(data.Targets))
			for i, d := range data.Targets {
				done[i] = d.ImageID
			}
			if len(done) > 0 {
				return nil, "", edit.AtField(err, fmt.Sprintf("target %s (already updated: %s)", t, strings.Join(done, ", ")))
			}
			return nil, "", edit.AtField(err, "target "+t)
		}
		data.Targets = append(data.Targets, m)
	}
	summary := fmt.Sprintf("copied %d %s from %s to %d %s", len(data.Copied), plural(len(data.Copied), "primitive", "primitives"),
		src, len(targets), plural(len(targets), "image", "images"))
	if len(data.Skipped) > 0 {
		summary += " (skipped " + strings.Join(data.Skipped, ", ") + ")"
	}
	return data, summary, nil
}
