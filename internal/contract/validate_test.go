package contract

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
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

// A value outside an enum says what the enum allows, also where the enum sits inside
// a nullable object or list ({...} | null, [...T] | null): not "want null", the
// disjunction's last arm.
func TestCheckNamesEnumsInsideNullables(t *testing.T) {
	c, err := Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tool, args, want string }{
		{"augment_image", `{"image_id": "a", "prompt": "flip", "options": {"output_format": "gif"}}`,
			`augment_image: options.output_format: "gif" is not one of png, jpeg, jpg, webp, PNG, JPEG, JPG, WEBP`},
		{"augment_image", `{"image_id": "a", "pipeline": [{"entry": "rotate", "interpolation": "nearest"}]}`,
			`augment_image: pipeline.0.interpolation: "nearest" is not one of linear, cubic`},
		{"verify_augmentation", `{"session_id": "e03b00227520f515", "checks": ["colour"]}`,
			`verify_augmentation: checks.0: "colour" is not one of visual, label`},
	} {
		tool, ok := c.Tool(tt.tool)
		if !ok {
			t.Fatalf("no tool %s", tt.tool)
		}
		_, err := tool.Check(json.RawMessage(tt.args))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s %s:\n got %v\nwant %s", tt.tool, tt.args, err, tt.want)
		}
	}
}
