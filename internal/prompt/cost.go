package prompt

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// costs.json is measured on the engine by ./costgen (see its doc for how to
// regenerate it); it is data, not a guess.
//
//go:embed costs.json
var costsJSON []byte

type costTable struct {
	Width      int                `json:"width"`
	Height     int                `json:"height"`
	Cores      int                `json:"cores"`
	NsPerPixel map[string]float64 `json:"ns_per_pixel"`
	median     float64
}

func builtinCosts() *costTable {
	var t costTable
	if err := json.Unmarshal(costsJSON, &t); err != nil {
		panic(fmt.Sprintf("prompt: costs.json: %v", err)) // the embedded file is checked by a test
	}
	var all []float64
	for _, v := range t.NsPerPixel {
		all = append(all, v)
	}
	sort.Float64s(all)
	if len(all) > 0 {
		t.median = all[len(all)/2]
	}
	return &t
}

// Estimate is estimated_execution_time: what the engine is expected to spend on the
// transforms for one image of Width x Height, from the measured cost table. Each
// transform costs the sum of its operations' nanoseconds per pixel times the pixels,
// weighted by its probability p; an operation missing from the table counts the
// table's median. It leaves out decoding, encoding and geometry that changes the size.
type Estimate struct {
	Width   int             `json:"width"`
	Height  int             `json:"height"`
	Seconds float64         `json:"seconds"`
	Per     []TransformTime `json:"per_transform"`
	// Basis says where the numbers come from.
	Basis string `json:"basis"`
}

// TransformTime is one transform's share of an Estimate.
type TransformTime struct {
	Entry   string  `json:"entry"`
	Seconds float64 `json:"seconds"`
}

// Estimate prices transforms on a w x h image.
func (p *Parser) Estimate(ts []Transform, w, h int) Estimate {
	est := Estimate{Width: w, Height: h, Per: []TransformTime{},
		Basis: fmt.Sprintf("engine operations measured on a %dx%d image with %d cores (internal/prompt/costs.json)", p.costs.Width, p.costs.Height, p.costs.Cores)}
	px := float64(w) * float64(h)
	for _, t := range ts {
		e, ok := p.voc.Entry(t.Entry)
		if !ok {
			continue
		}
		ns := 0.0
		for _, u := range e.Operations {
			c, ok := p.costs.NsPerPixel[u.Op]
			if !ok {
				c = p.costs.median
			}
			ns += c
		}
		s := sig(ns*px*t.P*1e-9, 3)
		est.Per = append(est.Per, TransformTime{Entry: t.Entry, Seconds: s})
		est.Seconds += ns * px * t.P * 1e-9
	}
	est.Seconds = sig(est.Seconds, 3)
	return est
}

// sig rounds to n significant digits: the table is a measurement, not a promise.
func sig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	d := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*d) / d
}
