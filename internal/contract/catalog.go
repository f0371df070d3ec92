package contract

import (
	"encoding/json"
	"fmt"
	"sort"

	"cuelang.org/go/cue"

	"github.com/darkroom-mcp/darkroom/internal/catalog"
)

// The catalog's plain types live in internal/catalog, which imports no CUE; the
// contract makes them from CUE.
type (
	// Operation is one entry of the engine's operation catalog.
	Operation = catalog.Operation
	// Example is a telling set of arguments for an operation.
	Example = catalog.Example
	// Arg is one argument of an operation.
	Arg = catalog.Arg
)

// Operations returns the catalog in stage order, then by name.
func (c *Contract) Operations() ([]Operation, error) {
	var raw map[string]struct {
		Operation
		Args map[string]Arg `json:"args"`
	}
	if err := c.value().LookupPath(cue.ParsePath("operations")).Decode(&raw); err != nil {
		return nil, fmt.Errorf("operations: %s", FormatError(err))
	}
	var stages []string
	if err := c.value().LookupPath(cue.ParsePath("stages")).Decode(&stages); err != nil {
		return nil, fmt.Errorf("stages: %s", FormatError(err))
	}
	rank := map[string]int{}
	for i, s := range stages {
		rank[s] = i
	}
	var ops []Operation
	for name, r := range raw {
		op := r.Operation
		op.Name = name
		for an, a := range r.Args {
			a.Name = an
			op.Args = append(op.Args, a)
		}
		sort.Slice(op.Args, func(i, j int) bool { return op.Args[i].Name < op.Args[j].Name })
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool {
		if rank[ops[i].Stage] != rank[ops[j].Stage] {
			return rank[ops[i].Stage] < rank[ops[j].Stage]
		}
		return ops[i].Name < ops[j].Name
	})
	return ops, nil
}

// Lookup returns a value of the contracts package, such as a definition ("#MaskRef"),
// for CheckValue. It takes the contract's lock: CUE values are not safe for
// concurrent evaluation, and handlers run concurrently.
func (c *Contract) Lookup(path string) cue.Value {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value().LookupPath(cue.ParsePath(path))
}

// CheckOperation validates one operation's arguments against the catalog and returns
// them complete with defaults, for a stateless render. Errors are invalid_input.
func (c *Contract) CheckOperation(name string, args map[string]any) (map[string]any, error) {
	c.mu.Lock()
	def := c.operationArgs(name)
	c.mu.Unlock()
	if !def.Exists() {
		ops, _ := c.Operations()
		names := make([]string, len(ops))
		for i, o := range ops {
			names[i] = o.Name
		}
		return nil, invalid("operation", []FieldError{{name, fmt.Sprintf("no operation %q; the catalog has %v", name, names)}})
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return c.check(def, name, raw, maxArgumentNodes)
}
