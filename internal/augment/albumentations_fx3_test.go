package augment

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestFx3RoundTrip: RandomSizedCrop and MultiplicativeNoise, as albumentations 1.3.1
// and 2.x write them, read with albumentations' meaning (a crop height range in
// pixels of the image's height, an output size in pixels; a factor range and its two
// flags) and written back as the same parameters: a range albumentations requires
// stays a pair when it is one value, a flag stays a boolean.
func TestFx3RoundTrip(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	for _, tc := range []struct {
		name, transform string
		want            Step
		back            map[string]string
	}{
		{"RandomSizedCrop: a height range in pixels, an output size in pixels", `{"__class_fullname__": "RandomSizedCrop", "min_max_height": [200, 400], "height": 256, "width": 320, "w2h_ratio": 1.5, "p": 1}`,
			Step{Entry: "random_sized_crop", P: 1, Params: map[string]Value{"crop_height": {0.4, 0.8}, "w2h_ratio": Fixed(1.5), "width": Fixed(0.32), "height": Fixed(0.512)}},
			map[string]string{"__class_fullname__": `"RandomSizedCrop"`, "min_max_height": `[200,400]`, "height": `256`, "width": `320`, "w2h_ratio": `1.5`}},
		{"RandomSizedCrop: one height is still a pair, w2h_ratio 1 by default", `{"__class_fullname__": "RandomSizedCrop", "min_max_height": [250, 250], "height": 100, "width": 100, "p": 0.5}`,
			Step{Entry: "random_sized_crop", P: 0.5, Params: map[string]Value{"crop_height": Fixed(0.5), "w2h_ratio": Fixed(1), "width": Fixed(0.1), "height": Fixed(0.2)}},
			map[string]string{"min_max_height": `[250,250]`, "height": `100`, "width": `100`, "w2h_ratio": `1`}},
		{"RandomSizedCrop in 2.x: size is (height, width)", `{"__class_fullname__": "RandomSizedCrop", "min_max_height": [300, 500], "size": [128, 256], "p": 1}`,
			Step{Entry: "random_sized_crop", P: 1, Params: map[string]Value{"crop_height": {0.6, 1}, "w2h_ratio": Fixed(1), "width": Fixed(0.256), "height": Fixed(0.256)}},
			map[string]string{"min_max_height": `[300,500]`, "height": `128`, "width": `256`}},
		{"MultiplicativeNoise: a multiplier range is a center and a spread, the flags are 0 and 1", `{"__class_fullname__": "MultiplicativeNoise", "multiplier": [0.8, 1.3], "per_channel": true, "elementwise": true, "p": 0.5}`,
			Step{Entry: "multiplicative_noise", P: 0.5, Params: map[string]Value{"center": Fixed(1.05), "spread": Fixed(0.25), "elementwise": Fixed(1), "per_channel": Fixed(1)}},
			map[string]string{"__class_fullname__": `"MultiplicativeNoise"`, "multiplier": `[0.8,1.3]`, "per_channel": `true`, "elementwise": `true`}},
		{"MultiplicativeNoise's defaults: (0.9, 1.1), one factor for the image", `{"__class_fullname__": "MultiplicativeNoise", "p": 1}`,
			Step{Entry: "multiplicative_noise", P: 1, Params: map[string]Value{"center": Fixed(1), "spread": Fixed(0.1), "elementwise": Fixed(0), "per_channel": Fixed(0)}},
			map[string]string{"multiplier": `[0.9,1.1]`, "per_channel": `false`, "elementwise": `false`}},
		{"MultiplicativeNoise: one multiplier multiplies by it", `{"__class_fullname__": "MultiplicativeNoise", "multiplier": 1.2, "elementwise": false, "p": 1}`,
			Step{Entry: "multiplicative_noise", P: 1, Params: map[string]Value{"center": Fixed(1.2), "spread": Fixed(0), "elementwise": Fixed(0), "per_channel": Fixed(0)}},
			map[string]string{"multiplier": `[1.2,1.2]`, "elementwise": `false`}},
	} {
		t.Run(tc.name, func(t *testing.T) { roundTripOne(t, m, voc, tc.transform, tc.want, tc.back) })
	}
}

// TestFx3Refused: a flag that is no boolean is refused with the parameter named, and
// a drawn spread albumentations cannot carry is written as its middle and said.
func TestFx3Refused(t *testing.T) {
	voc, m := augmenter(t).Vocab, albuMap(t)
	raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [{"__class_fullname__": "MultiplicativeNoise", "elementwise": "yes", "p": 1}]}}`
	imp, err := m.Import([]byte(raw), voc, 1000, 500)
	if err == nil && len(imp.Skipped) == 0 {
		t.Fatalf("elementwise \"yes\" was read: %+v", imp.Pipeline)
	}
	p := Pipeline{{Entry: "multiplicative_noise", P: 1, Params: map[string]Value{"spread": {0.1, 0.3}}}}
	out, skipped, err := m.Export(p, voc, 1000, 500, ExportOptions{})
	if err != nil || len(skipped) != 1 || !bytes.Contains(out, []byte(`"multiplier": [`)) {
		t.Fatalf("a drawn spread: %v, skipped %v\n%s", err, skipped, out)
	}
	var doc struct {
		Transform struct {
			Transforms []struct {
				Multiplier []float64 `json:"multiplier"`
			} `json:"transforms"`
		} `json:"transform"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Transform.Transforms) != 1 || !slices.Equal(doc.Transform.Transforms[0].Multiplier, []float64{0.8, 1.2}) {
		t.Fatalf("multiplier of spread 0.1-0.3 around 1: %v\n%s", err, out)
	}
}
