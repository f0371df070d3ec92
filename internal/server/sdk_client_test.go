package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEveryToolThroughSDKClient runs one editing session that calls every contract
// tool through the MCP SDK's own client (not darkroom's code path), and requires
// each call to succeed with a structuredContent that satisfies the tool's advertised
// outputSchema. A tool added to the contract without a call here fails the test.
func TestEveryToolThroughSDKClient(t *testing.T) {
	s := editServer(t)
	photos := t.TempDir()
	photo := filepath.Join(photos, "harbour.jpg")
	if err := os.WriteFile(photo, testPhoto(t, 96, 64), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Workspace.Allow(photos); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := sdkSession(t, s)

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}

	called := map[string]bool{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env map[string]any
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s %v: %s", name, args, b)
		}
		if err := schemas[name].Validate(env); err != nil {
			t.Fatalf("%s: structuredContent does not satisfy the outputSchema: %v", name, err)
		}
		called[name] = true
		return env["data"].(map[string]any)
	}
	img := map[string]any{"image_id": "harbour"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{"image_id": "harbour"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	call("get_contract", nil)
	call("list_vocabulary", map[string]any{"layer": "L2"})
	call("list_masks_vocabulary", nil)
	call("list_available_transforms", map[string]any{"category": "blur"})
	call("ingest", map[string]any{"path": photo, "image_id": "harbour"})
	call("ingest", map[string]any{"image_b64": base64.StdEncoding.EncodeToString(testPhoto(t, 64, 48)), "image_id": "harbour_2"})
	call("get_state", img)
	call("read_context", img)
	call("bind_layers", with(map[string]any{"l2_template": "golden_hour"}))
	call("apply_primitive", with(map[string]any{"primitive_name": "exposure", "value": 0.5}))
	call("apply_primitive", with(map[string]any{"primitive_name": "highlights", "value": -0.4, "mask_spec": map[string]any{"name": "sky_gradient"}}))
	call("apply_per_region", with(map[string]any{"primitive_name": "exposure", "regions": []any{
		map[string]any{"mask_spec": map[string]any{"name": "foreground_gradient"}, "value": 0.2},
	}}))
	call("apply_spot", with(map[string]any{"kind": "heal", "x": 0.3, "y": 0.3, "radius": 0.03}))
	call("wb_from_gray_card", with(map[string]any{"x": 0.5, "y": 0.5}))
	call("snapshot", with(map[string]any{"label": "first pass"}))
	call("tag", with(map[string]any{"name": "first_pass"}))
	call("branch", with(map[string]any{"name": "moody"}))
	call("apply_primitive", with(map[string]any{"primitive_name": "film_noir", "strength": 0.7}))
	call("remove_module", with(map[string]any{"module_name": "exposure"}))
	call("diff", with(map[string]any{"hash_a": "first_pass", "hash_b": "HEAD"}))
	call("render_preview", with(map[string]any{"size": 256}))
	call("compare", with(map[string]any{"hash_a": "first_pass", "hash_b": "moody", "size": 128}))
	call("export_final", with(map[string]any{"format": "png"}))
	call("checkout", with(map[string]any{"ref_or_hash": "main"}))
	call("propagate_state", map[string]any{"source_image_id": "harbour", "target_image_ids": []any{"harbour_2"}})
	call("log", with(map[string]any{"limit": 5}))
	call("log_vocabulary_gap", with(map[string]any{"description": "no highlight recovery by luminance range"}))
	taste := call("propose_taste_update", map[string]any{"content": "Prefers warm tones."})
	call("confirm_taste_update", map[string]any{"proposal_id": taste["proposal"].(map[string]any)["proposal_id"]})
	notes := call("propose_notes_update", with(map[string]any{"content": "For the harbour brochure.", "section": "brief"}))
	call("confirm_notes_update", map[string]any{"proposal_id": notes["proposal"].(map[string]any)["proposal_id"]})
	call("reset", img)
	call("list_available_presets", nil)
	call("validate_prompt", map[string]any{"prompt": "rotate between -10 and 10 degrees and add noise"})
	call("set_default_seed", map[string]any{"seed": 3})
	aug := call("augment_image", with(map[string]any{"preset": "classification_light", "count": 2}))
	if aug["seed_source"] != "session_default" {
		t.Errorf("augment_image after set_default_seed: seed_source %v", aug["seed_source"])
	}
	call("augment_dataset", map[string]any{"input": filepath.Dir(photo), "output": "harbour-set", "prompt": "flip horizontally", "variants": 2})
	called["verify_augmentation"] = true // needs a client with sampling: cmd/darkroom's TestVerifyThroughSampling

	var want, got []string
	for _, tool := range s.Contract.Tools {
		want = append(want, tool.Name)
	}
	for name := range called {
		got = append(got, name)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools called through the SDK client (-contract +called):\n%s", diff)
	}
}
