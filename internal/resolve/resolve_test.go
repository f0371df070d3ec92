package resolve

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// Edits fills defaults one way: a value given wins, then the entry's parameter
// default for a bound argument, then what the entry sets, then the catalog's
// default for the rest; mask and strength reach every edit.
func TestEdits(t *testing.T) {
	defaults := Defaults{
		"exposure": {"ev": 0.0, "protect_highlights": false},
		"vignette": {"amount": 0.0, "midpoint": 0.5, "roundness": 0.0},
	}
	entry := &vocab.Entry{
		Name: "lift",
		Parameters: map[string]*vocab.Parameter{
			"ev":     {Name: "ev", Type: "number", Min: -2, Max: 2, Default: 0.3},
			"amount": {Name: "amount", Type: "number", Min: -1, Max: 1, Default: -0.2},
		},
		Operations: []vocab.OperationUse{
			{Op: "exposure", Bind: map[string]string{"ev": "ev"}},
			{Op: "vignette", Bind: map[string]string{"amount": "amount"}, Set: map[string]any{"midpoint": 0.7}},
		},
	}
	mask := &engine.Mask{Shape: &engine.Shape{Kind: "ellipse", Center: [2]float64{0.5, 0.5}, RadiusX: 0.2, RadiusY: 0.1}}
	for _, c := range []struct {
		name     string
		values   map[string]float64
		mask     *engine.Mask
		strength float64
		want     []engine.Edit
	}{
		{"parameter defaults", nil, nil, 1, []engine.Edit{
			{Op: "exposure", Args: engine.Args{"ev": 0.3, "protect_highlights": false}, Strength: 1},
			{Op: "vignette", Args: engine.Args{"amount": -0.2, "midpoint": 0.7, "roundness": 0.0}, Strength: 1},
		}},
		{"values given", map[string]float64{"ev": -1.5, "amount": 0.4}, nil, 1, []engine.Edit{
			{Op: "exposure", Args: engine.Args{"ev": -1.5, "protect_highlights": false}, Strength: 1},
			{Op: "vignette", Args: engine.Args{"amount": 0.4, "midpoint": 0.7, "roundness": 0.0}, Strength: 1},
		}},
		{"one value given, mask, strength", map[string]float64{"amount": 1}, mask, 0.5, []engine.Edit{
			{Op: "exposure", Args: engine.Args{"ev": 0.3, "protect_highlights": false}, Mask: mask, Strength: 0.5},
			{Op: "vignette", Args: engine.Args{"amount": 1.0, "midpoint": 0.7, "roundness": 0.0}, Mask: mask, Strength: 0.5},
		}},
	} {
		got, err := Edits(entry, c.values, c.mask, c.strength, defaults)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	// The shared defaults are not changed by a resolve.
	if defaults["vignette"]["midpoint"] != 0.5 {
		t.Errorf("Edits changed the catalog's defaults: %v", defaults["vignette"])
	}
	if _, err := Edits(entry, nil, nil, 1, Defaults{"exposure": {}}); darkroom.Code(err) != darkroom.InternalError {
		t.Errorf("an operation the catalog lacks: %v, want internal_error", err)
	}
}

// The two resolves this one replaced agreed: augmentation completed an entry's
// operation calls with the contract's check (Contract.CheckOperation, one CUE
// evaluation per call), editing with the catalog's defaults. For every built-in
// entry, with its parameters at their defaults, minima and maxima, Edits gives
// exactly the arguments the contract's check gives.
func TestEditsAreTheContractsCheck(t *testing.T) {
	c, v := packtest.Builtin(t)
	defaults, err := c.OperationDefaults()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range v.Entries {
		valueSets := []map[string]float64{{}}
		for name, p := range e.Parameters {
			valueSets = append(valueSets, map[string]float64{name: p.Min}, map[string]float64{name: p.Max})
		}
		for _, values := range valueSets {
			edits, err := Edits(e, values, nil, 1, defaults)
			if err != nil {
				t.Fatalf("%s %v: %v", e.Name, values, err)
			}
			for i, call := range e.Calls(values) {
				want, err := c.CheckOperation(call.Op, call.Args)
				if err != nil {
					t.Errorf("%s %v: the contract refuses %s %v: %v", e.Name, values, call.Op, call.Args, err)
					continue
				}
				if diff := cmp.Diff(want, map[string]any(edits[i].Args)); diff != "" {
					t.Errorf("%s %v: %s arguments (-contract +resolve):\n%s", e.Name, values, call.Op, diff)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d operation calls compared: the vocabulary did not load", n)
	}
}
