package edit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/darkroom-mcp/darkroom"
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

// number prints a number as a person writes it: 5, -0.5, 1e-06.
func number(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
