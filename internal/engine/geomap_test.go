package engine

import (
	"fmt"
	"math"
	"testing"
)

// geoCases are geometry edits with telling arguments, several per operation, so the
// maps are checked on odd sizes, both signs and the seeded draws.
func geoCases(t *testing.T) []Edit {
	t.Helper()
	e := func(op string, set map[string]any) Edit { return opEdit(op, opArgs(t, op, set)) }
	return []Edit{
		e("crop", map[string]any{"left": 0.1, "right": 0.05, "top": 0.2, "bottom": 0.13}),
		e("random_crop", map[string]any{"scale": 0.4, "keep_size": false}),
		e("random_crop", map[string]any{"scale": 0.5, "keep_size": true}),
		e("random_crop", map[string]any{"width": 0.55, "height": 0.8, "keep_size": false}),
		e("random_crop", map[string]any{"scale": 0.5, "keep_size": true, "out_width": 0.7, "out_height": 1.3}),
		e("random_crop", map[string]any{"height": 0.6, "aspect": 1.25, "keep_size": true, "out_width": 0.5, "out_height": 0.9}),
		e("rotate", map[string]any{"angle": 90.0}),
		e("rotate", map[string]any{"angle": -90.0}),
		e("rotate", map[string]any{"angle": 180.0}),
		e("rotate", map[string]any{"angle": 17.0}),
		e("rotate", map[string]any{"angle": -33.0, "auto_crop": true}),
		e("flip", map[string]any{"horizontal": true}),
		e("flip", map[string]any{"vertical": true}),
		e("flip", map[string]any{"horizontal": true, "vertical": true}),
		e("rotate90", map[string]any{"turns": 1}),
		e("rotate90", map[string]any{"turns": 2}),
		e("rotate90", map[string]any{"turns": 3}),
		e("transpose", map[string]any{"diagonal": "main"}),
		e("transpose", map[string]any{"diagonal": "anti"}),
		e("center_crop", map[string]any{"width": 0.5, "height": 0.7}),
		e("pad", map[string]any{"width": 1.0, "height": 1.0, "mode": "constant"}),
		e("pad", map[string]any{"width": 1.3, "height": 1.1, "mode": "reflect"}),
		e("affine", map[string]any{"scale": 1.2, "angle": 15.0, "shear_x": 10.0, "shear_y": -5.0, "translate_x": 0.1, "translate_y": -0.05, "mode": "reflect"}),
		e("affine", map[string]any{"scale": 0.7, "angle": -40.0, "mode": "constant"}),
		e("perspective", map[string]any{"scale": 0.1}),
		e("elastic", map[string]any{"alpha": 0.03, "sigma": 0.2}),
		e("grid_distortion", map[string]any{"steps": 5, "distort": 0.3}),
		e("lens_distortion", map[string]any{"k": 0.3}),
		e("lens_distortion", map[string]any{"k": -0.3}),
		e("grid_shuffle", map[string]any{"cells": 3}),
		e("scale", map[string]any{"factor": 1.7}),
		e("scale", map[string]any{"factor": 0.6}),
		e("scale", map[string]any{"factor": 0.62, "factor_y": 1.45, "round": true}),
		e("border_crop", map[string]any{"limit": 0.3}),
		e("crop_and_pad", map[string]any{"percent": 0.15, "mode": "edge"}),
		e("crop_and_pad", map[string]any{"percent": -0.2, "keep_size": true}),
		e("safe_rotate", map[string]any{"angle": 30.0}),
		e("safe_rotate", map[string]any{"angle": -125.0, "mode": "constant"}),
		e("safe_rotate", map[string]any{"angle": 90.0, "mode": "edge"}),
	}
}

// TestGeoCasesCoverCatalog keeps geoCases honest: every geometry operation the
// engine has is in it, so a new one cannot go without a map.
func TestGeoCasesCoverCatalog(t *testing.T) {
	have := map[string]bool{}
	for _, e := range geoCases(t) {
		have[e.Op] = true
	}
	for _, op := range Operations() {
		if st, _ := OpStage(op); st == "geometry" && !have[op] {
			t.Errorf("geometry operation %s has no case in geoCases", op)
		}
	}
}

// geoRamp is a w x h image whose red and green channels are the pixel centre's x/w
// and y/h: a cubic or Lanczos resampling of it shows, away from the border, the very
// position it sampled, so the pixels themselves say where they came from.
func geoRamp(w, h int) *Image {
	m := NewImage(w, h)
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			m.Pix[i] = float32((float64(x) + 0.5) / float64(w))
			m.Pix[i+1] = float32((float64(y) + 0.5) / float64(h))
			m.Pix[i+2] = 0.5
		}
	}
	return m
}

// TestGeoMapMatchesPixels renders a coordinate ramp through every geometry case and
// checks that every output pixel whose source lies inside the frame shows the source
// position Inverse gives, that Forward takes it back, and that the output size is the
// map's: the maps cannot drift from the pixel operations without failing here.
func TestGeoMapMatchesPixels(t *testing.T) {
	src := geoRamp(61, 43)
	for _, seed := range []uint64{1, 7} {
		for _, e := range geoCases(t) {
			name := fmt.Sprintf("seed%d/%s%v", seed, e.Op, e.Args)
			checkGeoMap(t, name, src, seed, e, 2.5, 4)
		}
	}
}

// checkGeoMap renders src through the geometry edit e under seed and checks that
// every output pixel whose source lies inside the frame shows the source position
// the map's Inverse gives, that Forward takes it back, and that the output size is
// the map's; at least 1/minPart of the output's pixels must be checked. zoom is at least the
// enlargement of a resizing crop (random_crop, crop_and_pad with keep_size), whose
// resampling cannot show the ramp near its input's edges.
func checkGeoMap(t *testing.T, name string, src *Image, seed uint64, e Edit, zoom float64, minPart int) {
	t.Helper()
	W, H := src.W, src.H
	w, h := float64(W), float64(H)
	out := opRender(t, src, seed, e)
	maps, err := GeometryMaps(W, H, []Edit{e}, RenderOptions{Seed: seed})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(maps) != 1 {
		t.Fatalf("%s: %d maps, want 1", name, len(maps))
	}
	m := maps[0]
	if m.InW != W || m.InH != H || m.OutW != out.W || m.OutH != out.H {
		t.Fatalf("%s: map %dx%d -> %dx%d, render %dx%d -> %dx%d", name, m.InW, m.InH, m.OutW, m.OutH, W, H, out.W, out.H)
	}
	// The cubic reaches 2 source pixels, so only positions that far inside
	// the source show the ramp; copies (crops, pads, flips, turns, shuffles)
	// show it everywhere. Lanczos (scale, and the resizing crops) also stops
	// at its own input's edges: 3 of its input pixels, in output pixels.
	margin, edge := 2.0, 0.0
	switch m.Op {
	case "crop", "center_crop", "border_crop", "pad", "flip", "rotate90", "transpose", "grid_shuffle":
		margin = 0
	case "rotate":
		if math.Mod(e.Args["angle"].(float64), 90) == 0 {
			margin = 0
		}
	case "random_crop", "crop_and_pad":
		if e.Args["keep_size"] == false {
			margin = 0
			break
		}
		fallthrough
	case "scale":
		k := float64(m.OutW) / w
		if m.Op != "scale" {
			k = zoom // at least the zoom of the resizing crops
		}
		margin, edge = 3/min(k, 1)+1, 3*max(k, 1)+1
	}
	checked, bad := 0, 0
	for y := range out.H {
		for x := range out.W {
			if float64(x) < edge || float64(y) < edge || float64(x) >= float64(out.W)-edge || float64(y) >= float64(out.H)-edge {
				continue
			}
			sx, sy := m.Inverse(float64(x)+0.5, float64(y)+0.5)
			if sx < margin || sy < margin || sx > w-margin || sy > h-margin {
				continue
			}
			checked++
			i := 3 * (y*out.W + x)
			px, py := float64(out.Pix[i])*w, float64(out.Pix[i+1])*h
			if math.Abs(px-sx) > 0.02 || math.Abs(py-sy) > 0.02 {
				if bad++; bad <= 3 {
					t.Errorf("%s: pixel (%d, %d) shows source (%.3f, %.3f), Inverse says (%.3f, %.3f)", name, x, y, px, py, sx, sy)
				}
			}
			// Forward takes the source back to this pixel, or, where the warp folds
			// (Forward's doc), to another output position that shows it too.
			fx, fy := m.Forward(sx, sy)
			if math.Abs(fx-(float64(x)+0.5)) > 1e-4 || math.Abs(fy-(float64(y)+0.5)) > 1e-4 {
				if ix, iy := m.Inverse(fx, fy); math.Abs(ix-sx) > 1e-3 || math.Abs(iy-sy) > 1e-3 {
					if bad++; bad <= 3 {
						t.Errorf("%s: Forward(Inverse(%d.5, %d.5)) = (%.5f, %.5f), which shows (%.5f, %.5f)", name, x, y, fx, fy, ix, iy)
					}
				}
			}
		}
	}
	if checked < out.W*out.H/minPart {
		t.Errorf("%s: only %d of %d pixels checked", name, checked, out.W*out.H)
	}
}

// TestGeoMapAtRangeEdges checks the map of every geometry operation against its
// pixels, one row per operation and argument edge: each numeric argument at the
// least and the most its range allows (the others at their defaults), each enum
// value and both booleans. A render and its map fail together or not at all.
func TestGeoMapAtRangeEdges(t *testing.T) {
	src := geoRamp(61, 43)
	rows := 0
	for _, op := range Operations() {
		if st, _ := OpStage(op); st != "geometry" {
			continue
		}
		for _, s := range opSpecs[op] {
			var edges []any
			switch s.kind {
			case "number":
				edges = []any{s.min, s.max}
			case "integer":
				edges = []any{int(s.min), int(s.max)}
			case "boolean":
				edges = []any{false, true}
			case "enum":
				for _, v := range s.values {
					edges = append(edges, v)
				}
			}
			for _, v := range edges {
				e := opEdit(op, opArgs(t, op, map[string]any{s.name: v}))
				name := fmt.Sprintf("%s/%s=%v", op, s.name, v)
				_, rerr := Render(src, []Edit{e}, RenderOptions{Seed: 5})
				_, merr := GeometryMaps(src.W, src.H, []Edit{e}, RenderOptions{Seed: 5})
				if (rerr == nil) != (merr == nil) {
					t.Errorf("%s: render error %v, map error %v", name, rerr, merr)
					continue
				}
				if rerr != nil {
					continue
				}
				rows++
				zoom := 2.5
				if op == "random_crop" {
					zoom = 1 / math.Sqrt(e.Args["scale"].(float64)) * 1.5
				}
				checkGeoMap(t, name, src, 5, e, zoom, 32)
			}
		}
	}
	if rows < 30 {
		t.Errorf("only %d argument edges rendered", rows)
	}
}
