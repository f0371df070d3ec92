package auth

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

func testPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := NewPolicy(packtest.Contract(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func toolMeta(t *testing.T, p *Policy, name string) ToolMeta {
	t.Helper()
	tl, ok := p.c.Tool(name)
	if !ok {
		t.Fatalf("no tool %s in the contract", name)
	}
	return MetaOf(tl)
}

// Each grant allows what contracts/grants.cue says and refuses the rest with the
// grant that would allow the call.
func TestAllowPerGrant(t *testing.T) {
	p := testPolicy(t)
	// The augment group's tools are declared by their own file; the policy needs
	// only a tool's group and annotations.
	augment := ToolMeta{Name: "augment_image", Group: "augment"}
	validatePrompt := ToolMeta{Name: "validate_prompt", Group: "augment", ReadOnly: true}
	type call struct {
		tool  ToolMeta
		needs string // "" when allowed
	}
	meta := func(n string) ToolMeta { return toolMeta(t, p, n) }
	for _, tc := range []struct {
		grant string
		calls []call
	}{
		{"read", []call{
			{meta("render_preview"), ""}, {meta("list_vocabulary"), ""}, {meta("log"), ""},
			{meta("get_state"), ""}, {meta("read_context"), ""},
			{meta("apply_primitive"), "edit"}, {meta("export_final"), "edit"},
			{meta("confirm_taste_update"), "admin"}, {validatePrompt, "validate"}, {augment, "augment"},
		}},
		{"validate", []call{
			{validatePrompt, ""}, {meta("get_contract"), ""}, {meta("list_available_transforms"), ""},
			{meta("render_preview"), "read"}, {augment, "augment"}, {meta("ingest"), "edit"},
		}},
		{"augment", []call{
			{augment, ""}, {validatePrompt, ""}, {meta("list_vocabulary"), ""},
			{meta("get_state"), "read"}, {meta("apply_primitive"), "edit"},
		}},
		{"edit", []call{
			{meta("ingest"), ""}, {meta("apply_primitive"), ""}, {meta("propagate_state"), ""},
			{meta("branch"), ""}, {meta("export_final"), ""}, {meta("render_preview"), ""},
			{meta("propose_taste_update"), ""},
			{meta("confirm_taste_update"), "admin"}, {meta("confirm_notes_update"), "admin"},
			{augment, "augment"},
		}},
		{"admin", []call{
			{meta("confirm_taste_update"), ""}, {meta("export_final"), ""}, {augment, ""}, {meta("get_contract"), ""},
		}},
	} {
		pr := &Principal{Name: "alice", Grants: []string{tc.grant}}
		for _, c := range tc.calls {
			err := p.Allow(pr, c.tool)
			if c.needs == "" {
				if err != nil {
					t.Errorf("%s: %s refused: %v", tc.grant, c.tool.Name, err)
				}
				continue
			}
			var e *darkroom.Error
			if !errors.As(err, &e) || e.Code != darkroom.PermissionError {
				t.Errorf("%s: %s: %v, want permission_error", tc.grant, c.tool.Name, err)
				continue
			}
			if e.Details["needed"] != c.needs {
				t.Errorf("%s: %s: needed %v, want %s (%s)", tc.grant, c.tool.Name, e.Details["needed"], c.needs, e.Message)
			}
		}
	}
}

func TestAllowMessage(t *testing.T) {
	p := testPolicy(t)
	err := p.Allow(&Principal{Name: "bob", Grants: []string{"read", "validate"}}, toolMeta(t, p, "export_final"))
	var e *darkroom.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not coded", err)
	}
	if want := "export_final needs the edit grant; bob holds read, validate"; e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	want := map[string]any{"tool": "export_final", "needed": "edit", "allowed_by": []string{"edit", "admin"}, "held": []string{"read", "validate"}}
	if diff := cmp.Diff(want, e.Details); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
	// A principal with no grant at all (a JWT whose scopes name none) is told so.
	err = p.Allow(&Principal{Name: "carol"}, toolMeta(t, p, "log"))
	if !errors.As(err, &e) || e.Message != "log needs the read grant; carol holds no grant" {
		t.Errorf("no grants: %v", err)
	}
	if diff := cmp.Diff([]string{}, e.Details["held"]); diff != "" {
		t.Errorf("held (-want +got):\n%s", diff)
	}
}
