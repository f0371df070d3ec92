package edit

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// The retouching verbs that place an entry from where it lies in the frame:
// apply_spot and wb_from_gray_card.

// SpotRequest is one spot to heal or clone: the spot's centre and radius as fractions
// of the frame the spot operation sees (after geometry), the source's centre, or nil
// for both to let Spot pick one beside the spot.
type SpotRequest struct {
	ImageID          string
	Kind             string // heal or clone
	X, Y, Radius     float64
	Opacity, Border  float64
	SourceX, SourceY *float64
}

// Spotted is what Spot did: the commit and the source it took.
type Spotted struct {
	Mutation
	SourceX, SourceY float64
}

// Spot sets a <kind>_spot entry with an elliptic mask on the spot, as one snapshot
// labelled "apply_spot <kind>". Returns invalid_input when only one source
// coordinate is given or the source is the spot itself.
func (s *Editor) Spot(req SpotRequest) (Spotted, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Spotted{}, err
	}
	x, y, radius := req.X, req.Y, req.Radius
	if (req.SourceX == nil) != (req.SourceY == nil) {
		return Spotted{}, &darkroom.Error{Code: darkroom.InvalidInput,
			Message: "source_x and source_y go together: give both, or neither to let apply_spot pick a source beside the spot",
			Details: map[string]any{"fields": []any{map[string]any{"path": "source_x", "message": "given without source_y, or the other way round"}}}}
	}
	given := req.SourceX != nil
	var sx, sy float64
	if given {
		sx, sy = *req.SourceX, *req.SourceY
		if sx == x && sy == y {
			return Spotted{}, &darkroom.Error{Code: darkroom.InvalidInput,
				Message: "source_x, source_y: the source is the spot itself; pick a clean area beside it",
				Details: map[string]any{"fields": []any{map[string]any{"path": "source_x", "message": "equal to x, y"}}}}
		}
	}
	entry, err := s.LookupEntry("kind", req.Kind+"_spot")
	if err != nil {
		return Spotted{}, err
	}
	meta, _, err := ws.Source(req.ImageID)
	if err != nil {
		return Spotted{}, err
	}
	// The spot's ellipse is drawn from checked arguments that keep it inside
	// #MaskSpec's ranges; it is completed with the contract's defaults, as the
	// state records a checked mask, without evaluating CUE again.
	defaults, err := s.Facts.MaskDefaults()
	if err != nil {
		return Spotted{}, darkroom.Wrap(darkroom.InternalError, err, "mask defaults")
	}
	mask, err := json.Marshal(defaults.Complete(map[string]any{"shape": map[string]any{
		"kind": "ellipse", "center": []float64{x, y}, "radius_x": radius, "radius_y": radius, "feather": req.Border * radius,
	}}))
	if err != nil {
		return Spotted{}, darkroom.Wrap(darkroom.InternalError, err, "spot mask")
	}
	m, err := s.Mutate(req.ImageID, "apply_spot "+req.Kind, func(st *history.State) error {
		// The spot's coordinates are fractions of the frame the spot operation sees:
		// the image after its geometry edits.
		w, h, err := s.frameSize(meta, *st)
		if err != nil {
			return err
		}
		if !given {
			sx, sy = SpotSource(x, y, radius, w, h)
		}
		long := float64(max(w, h))
		values, err := entry.DerivedValues(map[string]float64{
			"dx": (sx - x) * float64(w) / long,
			"dy": (sy - y) * float64(h) / long,
		})
		if err != nil {
			return err
		}
		spot := history.Entry{Primitive: entry.Name, Layer: entry.Layer, Values: values, Mask: mask, Strength: req.Opacity}
		if err := s.CheckEntry(spot); err != nil {
			return err
		}
		st.Set(spot)
		return nil
	})
	if err != nil {
		return Spotted{}, err
	}
	return Spotted{Mutation: m, SourceX: sx, SourceY: sy}, nil
}

// frameSize returns the full-size frame the detail stage sees for state st: the
// source's size after st's geometry edits, told by the geometry maps without
// rendering anything.
func (s *Editor) frameSize(meta workspace.SourceMeta, st history.State) (int, int, error) {
	edits, err := s.Edits(st)
	if err != nil {
		return 0, 0, err
	}
	w, h, err := engine.FrameSize(meta.Width, meta.Height, edits, 0)
	if err != nil {
		if ResourceFailure(err) {
			return 0, 0, err
		}
		return 0, 0, darkroom.Wrap(darkroom.InternalError, err, "frame of %s after its geometry", meta.File)
	}
	return w, h, nil
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

// Balanced is what GrayCard did: the commit and the white balance it set.
type Balanced struct {
	Mutation
	Temperature float64
	Tint        float64
}

// GrayCard sets the whole-image white_balance entry that makes the patch of radius
// at (x, y) neutral, as one snapshot labelled "wb_from_gray_card". Returns
// invalid_input when the patch cannot be a grey reference (too dark, clipped,
// strongly coloured) or its cast is beyond what the entry allows.
func (s *Editor) GrayCard(id string, x, y, radius float64) (Balanced, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Balanced{}, err
	}
	entry, ok := s.Vocab.Entry("white_balance")
	if !ok {
		return Balanced{}, darkroom.Errorf(darkroom.NotFound, "the vocabulary has no white_balance entry to set")
	}
	tempParam, tintParam := "", ""
	for _, u := range entry.Operations {
		if u.Op == "white_balance" {
			tempParam, tintParam = u.Bind["temperature"], u.Bind["tint"]
		}
	}
	if tempParam == "" || tintParam == "" {
		return Balanced{}, darkroom.Errorf(darkroom.InternalError, "the white_balance entry does not bind the operation's temperature and tint")
	}
	meta, load, err := ws.Source(id)
	if err != nil {
		return Balanced{}, err
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
			if ResourceFailure(err) {
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
		values, err := entry.DerivedValues(map[string]float64{tempParam: temp, tintParam: tint})
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
		return Balanced{}, err
	}
	return Balanced{Mutation: m, Temperature: temp, Tint: tint}, nil
}

func grayError(format string, args ...any) error {
	return darkroom.Errorf(darkroom.InvalidInput, format, args...)
}
