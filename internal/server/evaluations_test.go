package server

import (
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// TestEveryToolEvaluatesOnce: CUE judges every call once, at the boundary. The
// table has a row for every tool of the contract (a tool added without one fails),
// each with arguments a client sends; a call that succeeds spends exactly one CUE
// evaluation of its data, whatever it names (entries, values, masks, regions).
func TestEveryToolEvaluatesOnce(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	f.ingest("chelsea.png", "cat")
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.3})
	first := f.head("cup")
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "contrast", "value": 0.2})
	second := f.head("cup")
	drawn := map[string]any{"shape": map[string]any{"kind": "ellipse", "center": []any{0.5, 0.5}, "radius_x": 0.2, "radius_y": 0.1}}
	proposal := func(tool string, args map[string]any) func() map[string]any {
		return func() map[string]any {
			p := f.ok(tool, args)["proposal"].(map[string]any)
			return map[string]any{"proposal_id": p["proposal_id"]}
		}
	}
	type row struct {
		args func() map[string]any // made just before the call (a proposal to confirm)
		want int64
		// code, when set, is the error the call answers after its check (a question
		// for a client's model, asked of a fixture that has none).
		code string
	}
	fixed := func(args map[string]any) func() map[string]any { return func() map[string]any { return args } }
	rows := map[string]row{
		"get_contract":              {args: fixed(map[string]any{}), want: 1},
		"list_vocabulary":           {args: fixed(map[string]any{"layer": "L1"}), want: 1},
		"list_masks_vocabulary":     {args: fixed(map[string]any{}), want: 1},
		"list_available_transforms": {args: fixed(map[string]any{}), want: 1},
		"ingest":                    {args: fixed(map[string]any{"path": f.photos + "/rocket-orient6.jpg", "image_id": "rocket"}), want: 1},
		"get_state":                 {args: fixed(map[string]any{"image_id": "cup"}), want: 1},
		"bind_layers":               {args: fixed(map[string]any{"image_id": "cup", "l2_template": "film_noir"}), want: 1},
		"apply_primitive":           {args: fixed(map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.5, "mask_spec": drawn}), want: 1},
		"apply_per_region": {args: fixed(map[string]any{"image_id": "cup", "primitive_name": "exposure", "regions": []any{
			map[string]any{"mask_spec": map[string]any{"name": "sky_gradient"}, "value": -0.5},
			map[string]any{"mask_spec": drawn, "value": 0.4, "strength": 0.5},
		}}), want: 1},
		"apply_spot":             {args: fixed(map[string]any{"image_id": "cup", "kind": "heal", "x": 0.5, "y": 0.5, "radius": 0.02}), want: 1},
		"wb_from_gray_card":      {args: fixed(map[string]any{"image_id": "cat", "x": 0.5, "y": 0.1, "sample_radius": 0.02}), want: 1},
		"remove_module":          {args: fixed(map[string]any{"image_id": "cup", "module_name": "contrast"}), want: 1},
		"reset":                  {args: fixed(map[string]any{"image_id": "cat"}), want: 1},
		"propagate_state":        {args: fixed(map[string]any{"source_image_id": "cup", "target_image_ids": []any{"cat"}, "exclude_ops": []any{"exposure"}}), want: 1},
		"snapshot":               {args: fixed(map[string]any{"image_id": "cup", "label": "kept"}), want: 1},
		"branch":                 {args: fixed(map[string]any{"image_id": "cup", "name": "alt", "from": first}), want: 1},
		"tag":                    {args: fixed(map[string]any{"image_id": "cup", "name": "v1"}), want: 1},
		"checkout":               {args: fixed(map[string]any{"image_id": "cup", "ref_or_hash": second}), want: 1},
		"log":                    {args: fixed(map[string]any{"image_id": "cup", "limit": 5}), want: 1},
		"diff":                   {args: fixed(map[string]any{"image_id": "cup", "hash_a": first, "hash_b": second}), want: 1},
		"render_preview":         {args: fixed(map[string]any{"image_id": "cup", "size": 128}), want: 1},
		"compare":                {args: fixed(map[string]any{"image_id": "cup", "hash_a": first, "hash_b": second, "size": 128}), want: 1},
		"export_final":           {args: fixed(map[string]any{"image_id": "cup", "size": 128, "format": "png"}), want: 1},
		"read_context":           {args: fixed(map[string]any{"image_id": "cup"}), want: 1},
		"log_vocabulary_gap":     {args: fixed(map[string]any{"image_id": "cup", "description": "no way to lift only the shadows' blue"}), want: 1},
		"propose_taste_update":   {args: fixed(map[string]any{"content": "Prefers warm tones."}), want: 1},
		"confirm_taste_update":   {args: proposal("propose_taste_update", map[string]any{"content": "Prefers soft contrast."}), want: 1},
		"propose_notes_update":   {args: fixed(map[string]any{"image_id": "cup", "content": "For the menu.", "section": "brief"}), want: 1},
		"confirm_notes_update":   {args: proposal("propose_notes_update", map[string]any{"image_id": "cup", "content": "Keep the cup white."}), want: 1},
		"validate_prompt":        {args: fixed(map[string]any{"prompt": "flip horizontally and add a little noise"}), want: 1},
		"list_available_presets": {args: fixed(map[string]any{}), want: 1},
		"set_default_seed":       {args: fixed(map[string]any{"seed": 7}), want: 1},
		"augment_image": {args: fixed(map[string]any{"image_id": "cup", "prompt": "flip horizontally and add a little noise",
			"seed": 7, "count": 3, "options": map[string]any{"return_images": 0}}), want: 1},
		"augment_dataset": {args: fixed(map[string]any{"input": f.photos, "output": "sets/once", "variants": 1,
			"prompt": "flip horizontally"}), want: 1},
		"verify_augmentation": {args: func() map[string]any {
			d := f.ok("augment_image", map[string]any{"image_id": "cup", "pipeline": []any{map[string]any{"entry": "flip_horizontal"}},
				"seed": 7, "count": 2, "options": map[string]any{"return_images": 0}})
			return map[string]any{"session_id": d["session_id"]}
		}, want: 1, code: "unavailable"},
	}
	for _, tool := range f.s.Contract.Tools {
		r, ok := rows[tool.Name]
		if !ok {
			t.Errorf("%s: no row; add one with the arguments a client sends", tool.Name)
			continue
		}
		delete(rows, tool.Name)
		if tool.Deprecated != nil {
			continue
		}
		args := r.args()
		before := contract.Evaluations()
		if r.code != "" {
			f.fail(tool.Name, args, r.code)
		} else {
			f.ok(tool.Name, args)
		}
		if n := contract.Evaluations() - before; n != r.want {
			t.Errorf("%s %v: %d CUE evaluations, want %d", tool.Name, args, n, r.want)
		}
	}
	for name := range rows {
		t.Errorf("%s: a row for a tool the contract does not have", name)
	}
}
