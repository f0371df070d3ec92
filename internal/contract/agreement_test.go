package contract

import (
	"encoding/json"
	"os"
	"testing"

	"cuelang.org/go/cue"
	"github.com/google/jsonschema-go/jsonschema"
)

func loadTestContract(t testing.TB) *Contract {
	t.Helper()
	c, err := Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAgreement runs a corpus of arguments through CUE (Tool.Check, the server's own
// path) and through the advertised JSON Schema checked by a JSON Schema 2020-12
// validator, and requires the same verdict for every case: what a client validates
// before sending is exactly what the server accepts.
func TestAgreement(t *testing.T) {
	c := loadTestContract(t)
	type target struct {
		name   string
		schema map[string]any
		check  func(json.RawMessage) error
	}
	var targets []target
	for _, tool := range c.Tools {
		targets = append(targets, target{"tool " + tool.Name, tool.InputSchema, func(raw json.RawMessage) error {
			_, err := tool.Check(raw)
			return err
		}})
	}
	// Each catalog operation's arguments: what render and the vocabulary accept.
	ops, err := c.Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		def := c.Value.LookupPath(cue.MakePath(cue.Def("OperationArgs"), cue.Str(op.Name)))
		schema, err := Schema(def)
		if err != nil {
			t.Fatalf("operation %s: %v", op.Name, err)
		}
		targets = append(targets, target{"operation " + op.Name, schema, func(raw json.RawMessage) error {
			var args map[string]any
			if err := json.Unmarshal(raw, &args); err != nil {
				return err
			}
			_, err := c.check(def, op.Name, raw)
			return err
		}})
	}
	mask, err := Schema(c.Value.LookupPath(cue.ParsePath("#MaskSpec")))
	if err != nil {
		t.Fatal(err)
	}
	maskDef := c.Value.LookupPath(cue.ParsePath("#MaskSpec"))
	targets = append(targets, target{"#MaskSpec", mask, func(raw json.RawMessage) error {
		_, err := c.check(maskDef, "mask_spec", raw)
		return err
	}})

	total, accepted := 0, 0
	for _, tg := range targets {
		b, _ := json.Marshal(tg.schema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: schema: %v", tg.name, err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: schema does not resolve: %v", tg.name, err)
		}
		for _, raw := range corpus(tg.schema) {
			total++
			var inst any
			if err := json.Unmarshal(raw, &inst); err != nil {
				t.Fatalf("%s: corpus case %s is not JSON", tg.name, raw)
			}
			schemaErr := resolved.Validate(inst)
			cueErr := tg.check(raw)
			if (schemaErr == nil) != (cueErr == nil) {
				t.Errorf("%s: %s\n  JSON Schema: %v\n  CUE:         %v", tg.name, raw, errOrOK(schemaErr), errOrOK(cueErr))
			}
			if cueErr == nil {
				accepted++
			}
		}
	}
	// A corpus that is all valid or all invalid would test nothing.
	if accepted == 0 || accepted == total {
		t.Fatalf("corpus of %d cases had %d accepted: not a test", total, accepted)
	}
	t.Logf("%d cases over %d targets, %d accepted by both", total, len(targets), accepted)
}

func errOrOK(err error) string {
	if err == nil {
		return "accepted"
	}
	return "rejected: " + err.Error()
}
