package pack

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

func load(t *testing.T) (*contract.Contract, *vocab.Vocabulary) {
	t.Helper()
	c, err := contract.Load(os.DirFS("../../.."))
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	v, err := Load(c, srcs)
	if err != nil {
		t.Fatal(err)
	}
	return c, v
}

// The value rules of ADR-079, on built-in entries: exposure has one parameter (ev),
// white_balance two (temperature, tint), flip_horizontal none.
func TestValues(t *testing.T) {
	c, v := load(t)
	tests := []struct {
		entry   string
		value   string
		want    map[string]float64 // nil: the entry's defaults, with overrides below
		wantErr string             // the message when it starts with the entry's name, else a substring
	}{
		{"exposure", `0.7`, map[string]float64{"ev": 0.7}, ""},
		{"exposure", ``, nil, ""},
		{"exposure", `null`, nil, ""},
		// The object form works for one parameter too: it is what --param ev=0.7 sends.
		{"exposure", `{"ev": 0.7}`, map[string]float64{"ev": 0.7}, ""},
		{"exposure", `{"ev": 0.7, "gain": 1}`, nil, "exposure: gain: field not allowed"},
		// A range error names the entry, the parameter, the value and the range.
		{"exposure", `99`, nil, "exposure: ev: 99 is outside [-4, 4]"},
		{"exposure", `-4.5`, nil, "exposure: ev: -4.5 is outside [-4, 4]"},
		{"white_balance", `{"temperature": 800, "tint": 7}`, nil, "white_balance: tint: 7 is outside [-1, 1]"},
		{"exposure", `"bright"`, nil, `ev: got string "bright"`},
		{"white_balance", `{"temperature": 800}`, nil, ""},
		{"white_balance", `{"temperature": 800, "warmth": 1}`, nil, "warmth: field not allowed"},
		{"white_balance", `0.4`, nil, "takes an object with"},
		{"flip_horizontal", ``, map[string]float64{}, ""},
		{"flip_horizontal", `1`, nil, "takes no value"},
	}
	for _, tt := range tests {
		e, ok := v.Entry(tt.entry)
		if !ok {
			t.Fatalf("no entry %s", tt.entry)
		}
		got, err := Values(c, e, json.RawMessage(tt.value))
		if tt.wantErr != "" {
			if err == nil || !strings.HasPrefix(tt.wantErr, tt.entry+": ") && !strings.Contains(err.Error(), tt.wantErr) ||
				strings.HasPrefix(tt.wantErr, tt.entry+": ") && err.Error() != tt.wantErr || darkroom.Code(err) != darkroom.InvalidInput {
				t.Errorf("%s %s: got %v, want invalid_input containing %q", tt.entry, tt.value, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", tt.entry, tt.value, err)
			continue
		}
		if tt.want == nil {
			tt.want = map[string]float64{}
			for n, p := range e.Parameters {
				tt.want[n] = p.Default
			}
			if tt.entry == "white_balance" {
				tt.want["temperature"] = 800
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.entry, tt.value, diff)
		}
	}
}

// Calls binds parameter values and keeps fixed arguments.
func TestCalls(t *testing.T) {
	_, v := load(t)
	e, _ := v.Entry("exposure")
	want := []vocab.OperationCall{{Op: "exposure", Args: map[string]any{"ev": 1.5}}}
	if diff := cmp.Diff(want, e.Calls(map[string]float64{"ev": 1.5})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Packs that break the cross-pack rules are refused with the pack named.
func TestLoadRefusesDuplicatesAndMissingMasks(t *testing.T) {
	c, err := contract.Load(os.DirFS("../../.."))
	if err != nil {
		t.Fatal(err)
	}
	builtin, _ := Builtin()
	for _, tt := range []struct {
		name, pack, want string
	}{
		{"dup.yaml", "pack: dup\ndescription: d\nentries:\n  exposure:\n    layer: L1\n    category: light\n    tags: [light]\n    description: d\n    aliases: [a]\n    examples: [e]\n    operations: [{op: exposure}]\n", "entries.exposure: already defined by pack fundamentals"},
		{"mask.yaml", "pack: nomask\ndescription: d\nentries:\n  moody_sky:\n    layer: L2\n    category: look\n    tags: [look]\n    description: d\n    aliases: [a]\n    examples: [e]\n    default_mask: no_such_mask\n    operations: [{op: exposure, set: {ev: -1}}]\n", `no mask named "no_such_mask"`},
	} {
		_, err := Load(c, append(builtin, Source{Name: "./" + tt.name, Data: []byte(tt.pack)}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

// Input that makes CUE's YAML reader panic is a refusal naming the pack, for the
// check and for a load (serve --vocab), not a crash.
func TestYAMLReaderPanicIsRefusal(t *testing.T) {
	c := loadContract(t)
	for _, data := range []string{"\r\r0", "\r\r0\n"} {
		src := Source{Name: "./crash.yaml", Data: []byte(data)}
		_, err := check(c, src)
		var pe *Error
		if !errors.As(err, &pe) || pe.File != "./crash.yaml" || !strings.HasPrefix(pe.Detail, "./crash.yaml: the YAML reader cannot read this pack") {
			t.Errorf("check %q: %v, want a refusal naming ./crash.yaml", data, err)
		}
		_, err = Load(c, []Source{src})
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), "./crash.yaml: the YAML reader cannot read this pack") {
			t.Errorf("Load %q: %v, want invalid_input naming ./crash.yaml", data, err)
		}
	}
}
