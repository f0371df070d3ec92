package engine

import (
	"math"
	"slices"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// args reads an operation's arguments, keeping the first error so an operation can read
// them all and check once. Numbers must be finite: the contract layer admits no NaN,
// and the engine does not trust that blindly.
type args struct {
	a   Args
	err error
}

func (r *args) num(name string) float64 {
	v, err := r.a.Float(name)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = darkroom.Errorf(darkroom.InvalidInput, "argument %s: %v is not a finite number", name, v)
	}
	r.keep(err)
	return v
}

func (r *args) integer(name string) int {
	v, err := r.a.Int(name)
	r.keep(err)
	return v
}

func (r *args) flag(name string) bool {
	v, err := r.a.Bool(name)
	r.keep(err)
	return v
}

func (r *args) enum(name string, values ...string) string {
	v, err := r.a.String(name)
	if err == nil && !slices.Contains(values, v) {
		err = darkroom.Errorf(darkroom.InvalidInput, "argument %s: %q is not one of %v", name, v, values)
	}
	r.keep(err)
	return v
}

func (r *args) points(name string) [][2]float64 {
	v, err := r.a.Points(name)
	if err == nil {
		for i, p := range v {
			if math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[0], 0) || math.IsInf(p[1], 0) {
				err = darkroom.Errorf(darkroom.InvalidInput, "argument %s[%d]: not a finite point", name, i)
				break
			}
		}
	}
	r.keep(err)
	return v
}

func (r *args) keep(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

// longEdge is the length in pixels that fractions of the long edge refer to.
func longEdge(m *Image) float64 { return float64(max(m.W, m.H)) }

// numOr reads an argument added after edits were first stored: absent (an edit written
// before it) it is def, the neutral value it has always had.
func (r *args) numOr(name string, def float64) float64 {
	if _, ok := r.a[name]; !ok {
		return def
	}
	return r.num(name)
}
