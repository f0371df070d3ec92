package prompt

import (
	"os"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

// TestSwitchParameters reads a switch (an integer parameter of 0 or 1, as
// albumentations' MultiplicativeNoise elementwise and per_channel) named in a prompt:
// on when named with no value, its value when given 0, 1, true or false, and never
// the range written beside it. The built-in multiplicative_noise gets the two
// switches here, as a pack declaring them would give them.
func TestSwitchParameters(t *testing.T) {
	c, err := contract.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	v, err := pack.LoadBuiltin(c)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := v.Entry("multiplicative_noise")
	if !ok {
		t.Fatal("no multiplicative_noise entry")
	}
	e.Parameters["elementwise"] = &vocab.Parameter{Name: "elementwise", Type: "integer", Min: 0, Max: 1, Default: 0, Unit: "count",
		Also: []vocab.ParameterName{{Name: "per pixel", As: "same"}, {Name: "pixelwise", As: "same"}}}
	e.Parameters["per_channel"] = &vocab.Parameter{Name: "per_channel", Type: "integer", Min: 0, Max: 1, Default: 0, Unit: "count"}
	p := New(v)
	for _, c := range []struct {
		prompt string
		values map[string]float64
	}{
		{"multiplicative noise 0.8-1.2 per pixel", map[string]float64{"elementwise": 1, "spread": 0.2}},
		{"multiplicative noise 0.9-1.1, elementwise", map[string]float64{"elementwise": 1, "spread": 0.1}},
		{"speckle noise per channel 0.8 to 1.2, pixelwise", map[string]float64{"elementwise": 1, "per_channel": 1, "spread": 0.2}},
		{"A.MultiplicativeNoise(multiplier=(0.9, 1.1), elementwise=True, per_channel=False)", map[string]float64{"elementwise": 1, "per_channel": 0, "spread": 0.1}},
	} {
		r := p.Parse(c.prompt, Options{})
		if len(r.Transforms) != 1 || r.Transforms[0].Entry != "multiplicative_noise" {
			t.Errorf("%q: got %+v, want one multiplicative_noise", c.prompt, r.Transforms)
			continue
		}
		tr := r.Transforms[0]
		for k, want := range c.values {
			if got, ok := tr.Values[k]; !ok || got < want-1e-9 || got > want+1e-9 {
				t.Errorf("%q: %s = %v (set %v), want %v; values %v ranges %v", c.prompt, k, got, ok, want, tr.Values, tr.Ranges)
			}
		}
		for _, u := range r.Unread() {
			t.Errorf("%q: %q listed unread: %s", c.prompt, u.Phrase, u.Message)
		}
		if r.hasError() {
			t.Errorf("%q: errors %+v", c.prompt, r.Errors)
		}
	}
}
