package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
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

// target is one generated schema with the CUE check it stands for.
type target struct {
	name   string
	schema map[string]any
	json   json.RawMessage // as clients get it
	check  func(json.RawMessage) error
}

// agreementCase is one instance for one target; recorded results must be accepted.
type agreementCase struct {
	target   int
	instance json.RawMessage
	source   string // a golden's file:line for a recorded result
	cueErr   error
}

// targets lists every schema the contract advertises or checks with: each tool's
// input (judged by Tool.Check, the server's own path) and output (the envelope, judged
// by unifying the result with the tool's result value), each catalog operation's
// arguments and #MaskSpec.
func agreementTargets(t *testing.T, c *Contract) []target {
	var targets []target
	for _, tool := range c.Tools {
		targets = append(targets, target{"tool " + tool.Name + " input", tool.InputSchema, tool.InputSchemaJSON, func(raw json.RawMessage) error {
			_, err := tool.Check(raw)
			return err
		}})
		targets = append(targets, target{"tool " + tool.Name + " output", tool.OutputSchema, tool.OutputSchemaJSON, func(raw json.RawMessage) error {
			return checkResult(tool.result, raw)
		}})
	}
	ops, err := c.Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		def := c.Value.LookupPath(cue.MakePath(cue.Def("OperationArgs"), cue.Str(op.Name)))
		schema, js, err := Schema(def)
		if err != nil {
			t.Fatalf("operation %s: %v", op.Name, err)
		}
		targets = append(targets, target{"operation " + op.Name, schema, js, func(raw json.RawMessage) error {
			_, err := c.check(def, op.Name, raw, maxArgumentNodes)
			return err
		}})
	}
	maskDef := c.Value.LookupPath(cue.ParsePath("#MaskSpec"))
	mask, js, err := Schema(maskDef)
	if err != nil {
		t.Fatal(err)
	}
	targets = append(targets, target{"#MaskSpec", mask, js, func(raw json.RawMessage) error {
		_, err := c.check(maskDef, "mask_spec", raw, maxArgumentNodes)
		return err
	}})
	return targets
}

// checkResult is CUE's verdict on a tool result: the JSON unified with the tool's
// result value, numbers read as the contract's decoder reads them (10.0 is an
// integer, as in JSON Schema).
func checkResult(result cue.Value, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return err
	}
	v := result.Context().Encode(normalizeNumbers(x))
	if err := v.Err(); err != nil {
		return err
	}
	if err := result.Unify(v).Validate(cue.Concrete(true)); err != nil {
		return fmt.Errorf("%s", strings.ReplaceAll(FormatError(err), "\n", "; "))
	}
	return nil
}

func normalizeNumbers(x any) any {
	switch x := x.(type) {
	case json.Number:
		if v, ok := normalizeNumber(x); ok {
			return v
		}
		return x
	case map[string]any:
		for k, v := range x {
			x[k] = normalizeNumbers(v)
		}
	case []any:
		for i, v := range x {
			x[i] = normalizeNumbers(v)
		}
	}
	return x
}

// TestAgreement runs one corpus through CUE and four JSON Schema validators and
// requires one verdict for every case: the TypeScript MCP SDK's own validator (Ajv
// draft-07 as the SDK configures it), Ajv 2020 in strict mode, jsonschema-go, and
// Python's jsonschema with the validator class it picks for the schema. The corpus
// is values around every edge of every advertised schema (arguments and results)
// plus every result recorded in the goldens, which must also be accepted: what a
// client validates is exactly what the server accepts and sends. The node and
// Python validators run once each over the whole corpus.
func TestAgreement(t *testing.T) {
	c := loadTestContract(t)
	targets := agreementTargets(t, c)
	var cases []agreementCase
	for i, tg := range targets {
		// Arguments are the differ's corpus (null, the protocol's "no arguments",
		// left out); a result null is judged.
		gen := Corpus
		if strings.HasSuffix(tg.name, " output") {
			gen = func(s map[string]any) []json.RawMessage { return samples(s, 0) }
		}
		for _, raw := range gen(tg.schema) {
			cases = append(cases, agreementCase{target: i, instance: raw})
		}
	}
	recordedN := 0
	results, skipped := goldenResults(t, c, "../../testscripts")
	byName := map[string]int{}
	for i, tg := range targets {
		byName[tg.name] = i
	}
	for _, r := range results {
		i, ok := byName["tool "+r.tool+" output"]
		if !ok {
			t.Errorf("%s: result of unknown tool %s", r.source, r.tool)
			continue
		}
		cases = append(cases, agreementCase{target: i, instance: r.result, source: r.source})
		recordedN++
	}

	accepted := 0
	for i := range cases {
		cs := &cases[i]
		cs.cueErr = targets[cs.target].check(cs.instance)
		if cs.cueErr == nil {
			accepted++
		}
		if cs.source != "" && cs.cueErr != nil {
			t.Errorf("%s: recorded %s rejected by CUE: %v", cs.source, targets[cs.target].name, cs.cueErr)
		}
	}
	// A corpus that is all valid or all invalid would test nothing.
	if accepted == 0 || accepted == len(cases) || recordedN == 0 {
		t.Fatalf("corpus of %d cases (%d recorded) had %d accepted: not a test", len(cases), recordedN, accepted)
	}
	t.Logf("%d cases over %d targets (%d recorded results, %d skipped: a placeholder or a fixture contract), %d accepted by CUE",
		len(cases), len(targets), recordedN, skipped, accepted)

	verdicts := func(validator string, got []*string) {
		t.Helper()
		if len(got) != len(cases) {
			t.Fatalf("%s: %d verdicts for %d cases", validator, len(got), len(cases))
		}
		bad := 0
		for i, cs := range cases {
			if (got[i] == nil) == (cs.cueErr == nil) {
				continue
			}
			if bad++; bad > 20 {
				continue
			}
			what := "case"
			if cs.source != "" {
				what = "recorded result " + cs.source
			}
			t.Errorf("%s disagrees with CUE on %s of %s: %s\n  %s: %s\n  CUE: %s", validator, what, targets[cs.target].name,
				cs.instance, validator, verdictText(got[i]), errOrOK(cs.cueErr))
		}
		if bad > 20 {
			t.Errorf("%s: %d more disagreements", validator, bad-20)
		}
	}

	t.Run("jsonschema-go", func(t *testing.T) {
		resolved := make([]*jsonschema.Resolved, len(targets))
		for i, tg := range targets {
			var s jsonschema.Schema
			if err := json.Unmarshal(tg.json, &s); err != nil {
				t.Fatalf("%s: schema: %v", tg.name, err)
			}
			r, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("%s: schema does not resolve: %v", tg.name, err)
			}
			resolved[i] = r
		}
		got := make([]*string, len(cases))
		for i, cs := range cases {
			var inst any
			if err := json.Unmarshal(cs.instance, &inst); err != nil {
				t.Fatalf("case %s is not JSON", cs.instance)
			}
			if err := resolved[cs.target].Validate(inst); err != nil {
				msg := err.Error()
				got[i] = &msg
			}
		}
		verdicts("jsonschema-go", got)
	})

	b := batch{}
	for _, tg := range targets {
		b.Schemas = append(b.Schemas, tg.json)
	}
	for _, cs := range cases {
		b.Cases = append(b.Cases, [2]any{cs.target, cs.instance})
	}
	compiled := func(validator string, errs []*string) {
		t.Helper()
		if len(errs) != len(targets) {
			t.Fatalf("%s: %d compile results for %d schemas", validator, len(errs), len(targets))
		}
		for i, e := range errs {
			if e != nil {
				t.Errorf("%s refuses the schema of %s: %s", validator, targets[i].name, *e)
			}
		}
	}
	t.Run("node", func(t *testing.T) {
		r := runBatch(t, nodeCommand(t, "validate.mjs"), b)
		// Plain `new Ajv()` (draft-07, default strictness) must compile every
		// schema, as some hosts construct it.
		compiled("new Ajv()", r.Compile["plain"])
		compiled("the TypeScript SDK's Ajv", r.Compile["sdk"])
		compiled("Ajv 2020 strict", r.Compile["ajv2020"])
		verdicts("the TypeScript SDK's Ajv", r.Verdicts["sdk"])
		verdicts("Ajv 2020 strict", r.Verdicts["ajv2020"])
	})
	t.Run("python", func(t *testing.T) {
		r := runBatch(t, pythonCommand(t, "validate.py"), b)
		compiled("Python jsonschema", r.Compile["python"])
		verdicts("Python jsonschema", r.Verdicts["python"])
		classes := map[string]int{}
		for _, v := range r.Validators {
			classes[v]++
		}
		t.Logf("Python jsonschema validator classes: %v", classes)
	})
}

func verdictText(v *string) string {
	if v == nil {
		return "accepted"
	}
	return "rejected: " + *v
}

func errOrOK(err error) string {
	if err == nil {
		return "accepted"
	}
	return "rejected: " + err.Error()
}
