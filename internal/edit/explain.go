package edit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Errors about values said in the user's terms: the parameter to fix and its range,
// not the argument that carried it (value) or only the bound crossed.

// ExplainValue rewrites an argument error about the value given for entry primitive
// (the tool's "value", a scalar or an object of parameters) whose type is wrong, so
// that it names the entry's parameter and its range as a range error does:
// `exposure: ev: got string "bright", want a number in [-4, 4]`. Any other error is
// returned as it is.
func (s *Editor) ExplainValue(primitive string, err error) error {
	var de *darkroom.Error
	if !errors.As(err, &de) {
		return err
	}
	e, ok := s.Vocab.Entry(primitive)
	if !ok {
		return err
	}
	fields, _ := de.Details["fields"].([]any)
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		msg, _ := fm["message"].(string)
		rest, ok := strings.CutPrefix(msg, "value")
		if !ok {
			continue
		}
		var param string
		if after, ok := strings.CutPrefix(rest, "."); ok {
			param, rest, _ = strings.Cut(after, ":")
		} else if names := e.ParameterNames(); len(names) == 1 {
			param, rest = names[0], strings.TrimPrefix(rest, ":")
		}
		p, ok := e.Parameters[param]
		got, _, _ := strings.Cut(strings.TrimSpace(rest), ", want")
		if !ok || !strings.HasPrefix(got, "got ") {
			continue
		}
		m := fmt.Sprintf("%s: %s, want a number in [%s, %s]", param, got, number(p.Min), number(p.Max))
		return &darkroom.Error{Code: darkroom.InvalidInput, Message: e.Name + ": " + m,
			Details: map[string]any{"entry": e.Name, "parameter": param, "tool": e.Name,
				"fields": []any{map[string]any{"path": param, "message": m, "range": []any{p.Min, p.Max}}}}}
	}
	return err
}

// CheckOperation checks and completes the arguments of a catalog operation, as the
// contract does, and says a number outside its range as the range it must lie in:
// `exposure: ev: 9 is outside [-5, 5]`, not only the bound crossed.
func CheckOperation(c *contract.Contract, op string, args map[string]any) (engine.Args, error) {
	checked, err := c.CheckOperation(op, args)
	if err == nil {
		return checked, nil
	}
	var de *darkroom.Error
	if !errors.As(err, &de) {
		return nil, err
	}
	ops, oerr := c.Operations()
	if oerr != nil {
		return nil, err
	}
	var spec *contract.Operation
	for i := range ops {
		if ops[i].Name == op {
			spec = &ops[i]
		}
	}
	fields, _ := de.Details["fields"].([]any)
	if spec == nil || len(fields) == 0 {
		return nil, err
	}
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		path, _ := fm["path"].(string)
		old, _ := fm["message"].(string)
		for _, a := range spec.Args {
			x, isNum := args[path].(float64)
			if a.Name != path || a.Min == nil || a.Max == nil || !isNum || (x >= *a.Min && x <= *a.Max) {
				continue
			}
			m := fmt.Sprintf("%s: %s is outside [%s, %s]", path, number(x), number(*a.Min), number(*a.Max))
			fm["message"], fm["range"] = m, []any{*a.Min, *a.Max}
			de.Message = strings.Replace(de.Message, old, m, 1)
		}
	}
	return nil, de
}

// number prints a number as a person writes it: 5, -0.5, 1e-06.
func number(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
