package pack

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// TestDerivedValuesAgreeWithValues: values a verb computes (apply_spot's offset,
// wb_from_gray_card's temperature and tint) are checked in plain Go exactly as the
// contract's check of the entry's #values would: the same completed values inside
// the range, the same invalid_input message and range outside it.
func TestDerivedValuesAgreeWithValues(t *testing.T) {
	c, voc := load(t)
	for _, tt := range []struct {
		entry  string
		values map[string]float64
	}{
		{"heal_spot", map[string]float64{"dx": 0.05, "dy": -0.05}},
		{"clone_spot", map[string]float64{"dx": 0, "dy": 0.1}},
		{"heal_spot", map[string]float64{"dx": 9, "dy": 0}},
		{"white_balance", map[string]float64{"temperature": 1200, "tint": 0.05}},
		{"white_balance", map[string]float64{"temperature": 1e6, "tint": 0}},
		{"white_balance", map[string]float64{"temperature": -1e6, "tint": -50}},
		{"white_balance", map[string]float64{"temperature": 300}},
		{"exposure", map[string]float64{"ev": 4.5}},
		{"exposure", map[string]float64{"ev": -0.25}},
		{"exposure", map[string]float64{"ev": -4.5}},
	} {
		e, ok := voc.Entry(tt.entry)
		if !ok {
			t.Fatalf("no entry %s", tt.entry)
		}
		raw, _ := json.Marshal(tt.values)
		want, werr := Values(c, e, raw)
		got, gerr := e.DerivedValues(tt.values)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s %s: error %v, the contract's check says %v", tt.entry, raw, gerr, werr)
			continue
		}
		if werr == nil {
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: %v, the contract's check makes %v", tt.entry, raw, got, want)
			}
			continue
		}
		var wd, gd *darkroom.Error
		if !errors.As(werr, &wd) || !errors.As(gerr, &gd) {
			t.Fatalf("%s: uncoded errors %v, %v", tt.entry, werr, gerr)
		}
		if gd.Code != wd.Code || gd.Message != wd.Message || !reflect.DeepEqual(gd.Details, wd.Details) {
			t.Errorf("%s %s:\n got %s %q %v\nwant %s %q %v", tt.entry, raw, gd.Code, gd.Message, gd.Details, wd.Code, wd.Message, wd.Details)
		}
	}
}
