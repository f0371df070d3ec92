package pack

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// The built-in presets: albumentations-mcp's three, its "make it vintage" chain and five more, each step resolved
// with its values and ranges in the entry's own units.
func TestBuiltinPresets(t *testing.T) {
	_, v := load(t)
	var names []string
	for _, p := range v.Presets {
		names = append(names, p.Name)
	}
	want := []string{"aerial", "classification_light", "detection_safe", "document_scan", "low_light", "night_shift", "portrait", "segmentation", "vintage", "webcam"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("presets (-want +got):\n%s", diff)
	}
	seg, ok := v.Preset("segmentation")
	if !ok {
		t.Fatal("no segmentation preset")
	}
	wantSeg := []vocab.Step{
		{Entry: "flip_horizontal", P: 0.5},
		{Entry: "brightness_contrast", Ranges: map[string][2]float64{"brightness": {-0.14, 0.14}, "contrast": {-0.1, 0.1}}, P: 0.8},
		{Entry: "hue_saturation_value", Ranges: map[string][2]float64{"hue": {-10, 10}, "saturation": {-0.06, 0.06}, "value": {-0.06, 0.06}}, P: 0.7},
		{Entry: "rotate", Ranges: map[string][2]float64{"angle": {-15, 15}}, P: 0.6},
		{Entry: "random_resized_crop", Ranges: map[string][2]float64{"scale": {0.9, 1}}, P: 0.5},
	}
	if diff := cmp.Diff(wantSeg, seg.Pipeline); diff != "" {
		t.Errorf("segmentation (-want +got):\n%s", diff)
	}
	// albumentations-mcp clients say "lowlight".
	if p, ok := v.Preset("lowlight"); !ok || p.Name != "low_light" {
		t.Errorf("Preset(lowlight) = %v, %v; want low_light", p, ok)
	}
	portrait, _ := v.Preset("portrait")
	if got := portrait.Pipeline[2]; got.Entry != "clahe" || got.Values["clip_limit"] != 2 || got.Ranges["amount"] != [2]float64{0.5, 1} {
		t.Errorf("portrait step 2 = %+v; want clahe with clip_limit 2 and amount [0.5, 1]", got)
	}
}

const presetPack = `pack: extra
description: A pack with one preset.
entries:
  soften_more:
    layer: L1
    category: blur
    tags: [blur]
    description: Blur.
    aliases: [softer blur]
    examples: [soften more]
    parameters:
      radius: {type: number, min: 0, max: 0.05, default: 0, unit: fraction, description: Radius.}
    operations:
      - op: blur
        bind: {radius: radius}
presets:
  mine:
    description: A preset.
    pipeline:
`

// A bad preset is refused, by the #Manifest check (what cue vet runs) for a step in its
// own pack and by the load for a step naming another pack, with a message that names
// the step and what is wrong.
func TestBadPresets(t *testing.T) {
	c, _ := load(t)
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, step string
		want       []string // substrings of the load's error
	}{
		{"ok", `{entry: soften_more, value: [0, 0.01], p: 0.5}`, nil},
		{"ok from", `{entry: rotate, from: fundamentals, value: [-5, 5]}`, nil},
		{"unknown entry", `{entry: sharpen_more}`, []string{"presets.mine.pipeline.0.entry", `conflicting values "soften_more" and "sharpen_more"`}},
		{"range outside", `{entry: soften_more, value: [0, 0.5]}`, []string{"presets.mine.pipeline.0.value.1: invalid value 0.5 (out of bound <=0.05)"}},
		{"value outside", `{entry: soften_more, value: 0.5}`, []string{"presets.mine.pipeline.0.value: invalid value 0.5 (out of bound <=0.05)"}},
		{"upside down", `{entry: soften_more, value: [0.02, 0.01]}`, []string{"presets.mine.pipeline.0.value.1: invalid value 0.01 (out of bound >=0.02)"}},
		{"p above 1", `{entry: soften_more, p: 1.5}`, []string{"presets.mine.pipeline.0.p: invalid value 1.5 (out of bound <=1)"}},
		{"p below 0", `{entry: soften_more, p: -0.1}`, []string{"presets.mine.pipeline.0.p: invalid value -0.1 (out of bound >=0)"}},
		{"from unknown entry", `{entry: spin, from: fundamentals}`, []string{`./extra.yaml: presets.mine.pipeline.0: entry: no entry "spin" in pack fundamentals`}},
		{"from wrong pack", `{entry: rotate, from: augment}`, []string{`entry: no entry "rotate" in pack augment (pack fundamentals defines it: say from: fundamentals)`}},
		{"from range outside", `{entry: rotate, from: fundamentals, value: [-200, 15]}`, []string{"presets.mine.pipeline.0: value.angle: -200 is outside [-180, 180]"}},
		{"from unknown parameter", `{entry: white_balance, from: fundamentals, value: {warmth: 1}}`, []string{"value.warmth: white_balance has no parameter warmth (it has temperature, tint)"}},
		{"from p", `{entry: rotate, from: fundamentals, p: 1.5}`, []string{"p: invalid value 1.5 (out of bound <=1)"}},
		{"from integer", `{entry: random_rotate_90, from: augment, value: 1.5}`, []string{"value.turns: 1.5 is not an integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := Source{Name: "./extra.yaml", Data: []byte(presetPack + "      - " + tt.step + "\n")}
			voc, err := Load(c, append(append([]Source{}, builtin...), src))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if p, ok := voc.Preset("mine"); !ok || len(p.Pipeline) != 1 {
					t.Fatalf("preset mine = %+v, %v", p, ok)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load accepted %s", tt.step)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load error lacks %q:\n%s", w, err)
				}
			}
		})
	}
}
