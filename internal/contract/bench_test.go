package contract

import (
	"encoding/json"
	"testing"
)

// BenchmarkCheck is the cost of validating one call: JSON pre-pass, unification with
// the tool's CUE params, defaults filled, result decoded.
func BenchmarkCheck(b *testing.B) {
	c := loadTestContract(b)
	for _, bc := range []struct {
		tool string
		args string
	}{
		{"list_vocabulary", `{"layer":"L2","tags":["look","warm"],"category":"look"}`},
		{"list_available_transforms", `{"category":"blur","include_examples":null}`},
		{"get_contract", `{}`},
	} {
		t, _ := c.Tool(bc.tool)
		raw := json.RawMessage(bc.args)
		b.Run(bc.tool, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := t.Check(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("invalid", func(b *testing.B) {
		t, _ := c.Tool("list_vocabulary")
		raw := json.RawMessage(`{"layer":"L9"}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := t.Check(raw); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}

// BenchmarkCheckOperation validates one render operation's arguments.
func BenchmarkCheckOperation(b *testing.B) {
	c := loadTestContract(b)
	args := map[string]any{"amount": 0.5, "radius": 0.01}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CheckOperation("clarity", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is the start-up cost of loading the contracts and building every
// tool's schemas.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		loadTestContract(b)
	}
}
