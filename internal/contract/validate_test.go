package contract

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"darkroom"
)

// A number beyond float64 (JSON has no limit) is the caller's mistake wherever it
// sits: invalid_input naming the field, never a value CUE keeps exactly and a
// handler then fails to decode (internal_error).
func TestCheckOverflowingNumbers(t *testing.T) {
	c, err := Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args string
		want       []FieldError
	}{
		{"apply_primitive", `{"image_id": "a", "primitive_name": "exposure", "value": 1e400}`,
			[]FieldError{{"value", "value: 1e400 is too large a number (beyond ±1.798e+308)"}}},
		{"apply_primitive", `{"image_id": "a", "primitive_name": "exposure", "value": 0.5, "strength": -2E999}`,
			[]FieldError{{"strength", "strength: -2E999 is too large a number (beyond ±1.798e+308)"}}},
		{"apply_primitive", `{"image_id": "a", "primitive_name": "white_balance", "value": {"tint": 1e309}}`,
			[]FieldError{{"value.tint", "value.tint: 1e309 is too large a number (beyond ±1.798e+308)"}}},
	}
	for _, tt := range tests {
		tool, _ := c.Tool(tt.tool)
		_, err := tool.Check(json.RawMessage(tt.args))
		var de *darkroom.Error
		if !errors.As(err, &de) || de.Code != darkroom.InvalidInput {
			t.Errorf("%s %s: got %v, want invalid_input", tt.tool, tt.args, err)
			continue
		}
		var got []FieldError
		for _, f := range de.Details["fields"].([]any) {
			m := f.(map[string]any)
			got = append(got, FieldError{m["path"].(string), m["message"].(string)})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tool, tt.args, diff)
		}
	}
	// A member of a value object that is not a number is named, not its object.
	_, err = tool0(c).Check(json.RawMessage(`{"image_id": "a", "primitive_name": "exposure", "value": {"ev": "bright"}}`))
	if err == nil || err.Error() != `apply_primitive: value.ev: got string "bright", want number` {
		t.Errorf(`{"ev": "bright"}: got %v`, err)
	}
	// Tiny numbers are not refused: they round to zero, as JSON parsers do.
	if _, err := tool0(c).Check(json.RawMessage(`{"image_id": "a", "primitive_name": "exposure", "value": 1e-400}`)); err != nil {
		t.Errorf("1e-400: %v", err)
	}
}

func tool0(c *Contract) *Tool {
	t, _ := c.Tool("apply_primitive")
	return t
}
