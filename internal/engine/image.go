package engine

import (
	"encoding/json"
	"fmt"
	"math"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Image is linear-light RGB in float32, row-major, three values per pixel:
// Pix[(y*W+x)*3+c] for channel c (0 red, 1 green, 2 blue). Values are nominally in
// [0, 1] but operations may push them outside; output clamps.
type Image struct {
	W, H int
	Pix  []float32
}

// NewImage returns a black image of w x h pixels.
func NewImage(w, h int) *Image {
	return &Image{W: w, H: h, Pix: newPix(3 * w * h)}
}

// Clone returns a deep copy of m.
func (m *Image) Clone() *Image {
	c := &Image{W: m.W, H: m.H, Pix: newPix(len(m.Pix))}
	copy(c.Pix, m.Pix)
	return c
}

// Recycle hands m's pixels to the engine for a later render or decode to reuse,
// and leaves m empty (0 x 0): the caller promises nothing else refers to them. A
// loop that makes image after image of one size (augmenting a dataset, previews)
// then allocates, zeroes and collects almost nothing.
func Recycle(m *Image) {
	if m == nil {
		return
	}
	spare.put(m.Pix)
	m.W, m.H, m.Pix = 0, 0, nil
}

// scratchImage returns a w x h image whose pixels the caller must overwrite
// entirely: a recycled buffer when one fits.
func scratchImage(w, h int) *Image {
	return &Image{W: w, H: h, Pix: spare.get(3 * w * h)}
}

// Bytes is the memory the pixels take.
func (m *Image) Bytes() int64 { return int64(len(m.Pix)) * 4 }

// Args are an operation's arguments, as the contract layer validated them and filled
// in their defaults: numbers are float64 (integers included), booleans bool, enums
// string, point lists [][2]float64 or JSON-decoded []any of two-number []any.
type Args map[string]any

// Float returns a number argument.
func (a Args) Float(name string) (float64, error) {
	switch v := a[name].(type) {
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case nil:
		return 0, darkroom.Errorf(darkroom.InvalidInput, "argument %s is missing", name)
	default:
		return 0, darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not a number", name, v)
	}
}

// Int returns an integer argument; a number with a fraction is an error.
func (a Args) Int(name string) (int, error) {
	f, err := a.Float(name)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not an integer", name, f)
	}
	return int(f), nil
}

// Bool returns a boolean argument.
func (a Args) Bool(name string) (bool, error) {
	v, ok := a[name].(bool)
	if !ok {
		return false, darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not a boolean", name, a[name])
	}
	return v, nil
}

// String returns an enum argument.
func (a Args) String(name string) (string, error) {
	v, ok := a[name].(string)
	if !ok {
		return "", darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not a string", name, a[name])
	}
	return v, nil
}

// Points returns a point-list argument.
func (a Args) Points(name string) ([][2]float64, error) {
	switch v := a[name].(type) {
	case [][2]float64:
		return v, nil
	case []any:
		pts := make([][2]float64, len(v))
		for i, p := range v {
			pair, ok := p.([]any)
			if !ok || len(pair) != 2 {
				return nil, darkroom.Errorf(darkroom.InvalidInput, "argument %s[%d]: not an (x, y) pair", name, i)
			}
			for j := range 2 {
				f, err := Args{"v": pair[j]}.Float("v")
				if err != nil {
					return nil, darkroom.Errorf(darkroom.InvalidInput, "argument %s[%d][%d]: not a number", name, i, j)
				}
				pts[i][j] = f
			}
		}
		return pts, nil
	default:
		return nil, darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not a list of points", name, fmt.Sprint(v))
	}
}

// Edit is one operation of a render: the operation's catalog name, its complete
// arguments, an optional mask and a strength in [0, 1] that scales the mask.
type Edit struct {
	Op       string
	Args     Args
	Mask     *Mask
	Strength float64
}

// Mask mirrors the contract's #MaskSpec (contracts/mask.cue); the JSON tags are the
// contract's field names, so a validated mask spec decodes straight into it.
type Mask struct {
	Shape  *Shape        `json:"shape,omitempty"`
	Ranges []RangeFilter `json:"ranges,omitempty"`
	Invert bool          `json:"invert"`
}

// Shape is one drawn form; Kind says which of the fields apply.
type Shape struct {
	Kind     string       `json:"kind"` // gradient, ellipse, rectangle or polygon
	Start    [2]float64   `json:"start"`
	End      [2]float64   `json:"end"`
	Center   [2]float64   `json:"center"`
	RadiusX  float64      `json:"radius_x"`
	RadiusY  float64      `json:"radius_y"`
	X        float64      `json:"x"`
	Y        float64      `json:"y"`
	Width    float64      `json:"width"`
	Height   float64      `json:"height"`
	Rotation float64      `json:"rotation"`
	Feather  float64      `json:"feather"`
	Points   [][2]float64 `json:"points"`
}

// RangeFilter selects pixels whose channel (luminance, hue, saturation or lightness)
// lies in [Min, Max], softened by Feather; hue is in degrees and wraps.
type RangeFilter struct {
	Channel string  `json:"channel"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Feather float64 `json:"feather"`
}

// DecodeMask builds a Mask from a mask spec that the contract layer validated and
// completed with defaults (a JSON object, as decoded into Go values).
func DecodeMask(spec map[string]any) (*Mask, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.MaskingError, err, "mask spec")
	}
	var m Mask
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, darkroom.Wrap(darkroom.MaskingError, err, "mask spec")
	}
	return &m, nil
}
