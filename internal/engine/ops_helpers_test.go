package engine

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Helpers of the operation tests. Test photos are decoded with the standard library
// here, not with Decode, so these tests stand on their own.

// opDefaults returns op's arguments at the catalog's neutral defaults.
func opDefaults(t testing.TB, op string) Args {
	t.Helper()
	specs, ok := opSpecs[op]
	if !ok {
		t.Fatalf("no argument spec for operation %q", op)
	}
	a := Args{}
	for _, s := range specs {
		if p, ok := s.def.([][2]float64); ok {
			a[s.name] = append([][2]float64(nil), p...)
			continue
		}
		a[s.name] = s.def
	}
	return a
}

// opArgs returns op's defaults with some arguments replaced.
func opArgs(t testing.TB, op string, set map[string]any) Args {
	t.Helper()
	a := opDefaults(t, op)
	for k, v := range set {
		if _, ok := a[k]; !ok {
			t.Fatalf("operation %s has no argument %q", op, k)
		}
		a[k] = v
	}
	return a
}

// opSamples are telling, clearly non-neutral arguments for every operation: what the
// golden images show and the benchmarks measure.
var opSamples = map[string]map[string]any{
	"crop":            {"left": 0.1, "right": 0.05, "top": 0.2},
	"random_crop":     {"scale": 0.5},
	"rotate":          {"angle": 12.0},
	"flip":            {"horizontal": true},
	"exposure":        {"ev": 1.0},
	"white_balance":   {"temperature": 1500.0, "tint": 0.2},
	"tone":            {"highlights": -0.7, "shadows": 0.6, "whites": 0.2, "blacks": -0.3},
	"contrast":        {"amount": 0.5},
	"curve":           {"points": [][2]float64{{0, 0}, {0.25, 0.18}, {0.75, 0.85}, {1, 1}}},
	"clahe":           {"amount": 1.0, "clip_limit": 3.0},
	"dehaze":          {"amount": 0.6},
	"saturation":      {"amount": 0.6},
	"vibrance":        {"amount": 0.7},
	"hue_shift":       {"degrees": 90.0},
	"hsl":             {"band": "orange", "hue": 0.5, "saturation": -0.8, "lightness": 0.3},
	"color_balance":   {"shadows_blue": 0.6, "highlights_red": 0.5},
	"black_and_white": {"amount": 1.0, "red": 0.5, "green": 0.4, "blue": 0.1},
	"split_tone":      {"highlights_hue": 45.0, "highlights_saturation": 0.6, "shadows_hue": 220.0, "shadows_saturation": 0.6},
	"clarity":         {"amount": 0.8, "radius": 0.03},
	"sharpen":         {"amount": 2.0, "radius": 0.002},
	"denoise":         {"amount": 0.8, "radius": 0.004},
	"blur":            {"kind": "motion", "radius": 0.02, "angle": 30.0},
	"spot":            {"kind": "heal", "dx": 0.08, "dy": 0.03},
	"vignette":        {"amount": -0.8, "midpoint": 0.4},
	"grain":           {"amount": 0.6, "size": 0.002},
	"noise":           {"sigma": 0.08},
	"safe_rotate":     {"angle": 30.0},
	"sun_flare":       {"radius": 0.3, "circles": 8.0, "angle": 30.0},
	"spatter":         {"amount": 0.6},
	"gravel":          {"patches": 4.0},
	"cutout":          {"holes": 5.0, "size": 0.12, "fill": 0.5},

	"rotate90":             {"turns": 1.0},
	"transpose":            {"diagonal": "main"},
	"center_crop":          {"width": 0.5, "height": 0.6},
	"pad":                  {"width": 1.0, "height": 1.0, "mode": "reflect"},
	"affine":               {"scale": 1.2, "angle": 15.0, "shear_x": 10.0, "translate_x": 0.05, "mode": "reflect"},
	"perspective":          {"scale": 0.1},
	"elastic":              {"alpha": 0.03, "sigma": 0.05},
	"grid_distortion":      {"steps": 5.0, "distort": 0.4},
	"gamma":                {"gamma": 0.6},
	"posterize":            {"bits": 3.0},
	"equalize":             {"amount": 1.0},
	"rgb_shift":            {"red": 0.15, "blue": -0.1},
	"channel_shuffle":      {"order": "random"},
	"sepia":                {"amount": 1.0},
	"emboss":               {"alpha": 0.6, "strength": 0.8},
	"downscale":            {"scale": 0.25},
	"multiplicative_noise": {"spread": 0.3, "elementwise": 1, "per_channel": 1},
	"iso_noise":            {"intensity": 0.6, "color_shift": 0.06},
	"fog":                  {"density": 0.5},
	"shadow":               {"count": 2.0, "intensity": 0.6},
	"rain":                 {"amount": 0.5, "slant": 15.0},
	"jpeg_compression":     {"quality": 10.0},
	"lens_distortion":      {"k": 0.3},
	"grid_shuffle":         {"cells": 3.0},
	"auto_contrast":        {"amount": 1.0, "cutoff": 0.02},
	"contrast_mean":        {"amount": 0.4},
	"channel_dropout":      {"channel": "random", "fill": 0.2},
	"morphology":           {"operation": "erode", "size": 0.004},
	"chromatic_aberration": {"amount": 0.01},
	"snow":                 {"amount": 0.5},
	"shot_noise":           {"scale": 0.01},
	"salt_and_pepper":      {"amount": 0.05},
	"pixel_dropout":        {"probability": 0.1, "per_channel": true},
	"scale":                {"factor": 0.7},
	"random_tone_curve":    {"scale": 0.2},
	"fancy_pca":            {"alpha": 0.8},
	"zoom_blur":            {"amount": 0.1},
	"median_blur":          {"radius": 0.008},
	"defocus":              {"radius": 0.01, "alias_blur": 0.0005},
	"sharpen_kernel":       {"alpha": 0.5, "lightness": 1.0},
	"solarize":             {"threshold": 0.5, "amount": 1.0},
	"grid_dropout":         {"ratio": 0.4, "cells": 6.0},
	"plasma":               {"brightness": 0.25, "contrast": 0.2, "shadow": 0.3},
	"xy_masking":           {"vertical": 2.0, "horizontal": 1.0, "width": 0.05},
	"border_crop":          {"limit": 0.3},
	"crop_and_pad":         {"percent": 0.15, "mode": "reflect"},
	"glass_blur":           {"sigma": 0.002, "delta": 0.01},
}

func opEdit(op string, a Args) Edit { return Edit{Op: op, Args: a, Strength: 1} }

// opSample returns the edit of op at its sample arguments.
func opSample(t testing.TB, op string) Edit {
	t.Helper()
	return opEdit(op, opArgs(t, op, opSamples[op]))
}

func opRender(t testing.TB, src *Image, seed uint64, edits ...Edit) *Image {
	t.Helper()
	out, err := Render(src, edits, RenderOptions{Seed: seed})
	if err != nil {
		t.Fatalf("render %v: %v", edits, err)
	}
	return out
}

var (
	opPhotoMu    sync.Mutex
	opPhotoCache = map[string]*Image{}
)

// opPhoto decodes testdata/<name>.png into linear light. Callers must not modify it.
func opPhoto(t testing.TB, name string) *Image {
	t.Helper()
	opPhotoMu.Lock()
	defer opPhotoMu.Unlock()
	if m, ok := opPhotoCache[name]; ok {
		return m
	}
	f, err := os.Open(filepath.Join("testdata", name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	b := m.Bounds()
	img := NewImage(b.Dx(), b.Dy())
	for y := range img.H {
		for x := range img.W {
			r, g, bl, _ := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := 3 * (y*img.W + x)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = Linear16(uint16(r)), Linear16(uint16(g)), Linear16(uint16(bl))
		}
	}
	opPhotoCache[name] = img
	return img
}

// opShrink averages f x f blocks of linear light: a small image for goldens that
// depends on nothing but this code.
func opShrink(m *Image, f int) *Image {
	out := NewImage(m.W/f, m.H/f)
	for y := range out.H {
		for x := range out.W {
			for c := range 3 {
				var s float32
				for j := range f {
					for i := range f {
						s += m.Pix[3*((y*f+j)*m.W+x*f+i)+c]
					}
				}
				out.Pix[3*(y*out.W+x)+c] = s / float32(f*f)
			}
		}
	}
	return out
}

// opQuant8 quantizes to 8-bit sRGB, as an 8-bit export would.
func opQuant8(m *Image) []uint8 {
	out := make([]uint8, len(m.Pix))
	for i, v := range m.Pix {
		out[i] = uint8(math.Round(float64(LinearToSRGB(v)) * 255))
	}
	return out
}

// opToNRGBA converts to an 8-bit image for PNG.
func opToNRGBA(m *Image) *image.NRGBA {
	q := opQuant8(m)
	out := image.NewNRGBA(image.Rect(0, 0, m.W, m.H))
	for p := range m.W * m.H {
		out.Pix[4*p], out.Pix[4*p+1], out.Pix[4*p+2], out.Pix[4*p+3] = q[3*p], q[3*p+1], q[3*p+2], 255
	}
	return out
}

func opPNG(t testing.TB, m *Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, opToNRGBA(m)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// opReadPNG8 reads an 8-bit PNG into its sRGB bytes and size.
func opReadPNG8(data []byte) (pix []uint8, w, h int, err error) {
	m, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, err
	}
	b := m.Bounds()
	pix = make([]uint8, 0, 3*b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
			pix = append(pix, c.R, c.G, c.B)
		}
	}
	return pix, b.Dx(), b.Dy(), nil
}

// opFlat returns a w x h image of one linear colour.
func opFlat(w, h int, r, g, b float32) *Image {
	m := NewImage(w, h)
	for p := range w * h {
		m.Pix[3*p], m.Pix[3*p+1], m.Pix[3*p+2] = r, g, b
	}
	return m
}

// opLuma returns the display luma of every pixel.
func opLuma(m *Image) []float64 {
	out := make([]float64, m.W*m.H)
	for p := range out {
		out[p] = float64(toDisp(luma(m.Pix[3*p], m.Pix[3*p+1], m.Pix[3*p+2])))
	}
	return out
}

// opHighFreq is the mean squared difference of horizontally and vertically adjacent
// display lumas: the energy of the finest detail.
func opHighFreq(m *Image) float64 {
	l := opLuma(m)
	var s float64
	var n int
	for y := 0; y+1 < m.H; y++ {
		for x := 0; x+1 < m.W; x++ {
			p := y*m.W + x
			dx, dy := l[p+1]-l[p], l[p+m.W]-l[p]
			s += dx*dx + dy*dy
			n++
		}
	}
	return s / float64(n)
}

// opStats returns the mean and standard deviation of v.
func opStats(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}
