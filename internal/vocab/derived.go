package vocab

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// DerivedValues checks values a verb computed for the entry (apply_spot's offset,
// wb_from_gray_card's temperature and tint), not values a client sent: in plain Go,
// against the entry's parameters as its pack was checked by CUE at load (their
// #value: a number inside [min, max], an integer for an integer parameter). It
// refuses as CUE's check of #values does (pack.Values), with the same invalid_input
// naming the parameter, the value and the range; omitted parameters take their
// defaults. Augmentation words a step's refused range with it too.
func (e *Entry) DerivedValues(given map[string]float64) (map[string]float64, error) {
	out := make(map[string]float64, len(e.Parameters))
	var fields []any
	var msgs []string
	for _, name := range slices.Sorted(maps.Keys(given)) {
		x := given[name]
		p, ok := e.Parameters[name]
		var msg string
		switch {
		case !ok:
			msg = fmt.Sprintf("%s: field not allowed", name)
		case x < p.Min || x > p.Max || math.IsNaN(x):
			msg = fmt.Sprintf("%s: %s is outside [%s, %s]", name, jsonNumber(x), formatNumber(p.Min), formatNumber(p.Max))
			fields = append(fields, map[string]any{"path": name, "message": msg, "range": []any{p.Min, p.Max}})
			msgs = append(msgs, msg)
			continue
		case p.Type == "integer" && x != math.Trunc(x):
			msg = fmt.Sprintf("%s: %s is not an integer", name, jsonNumber(x))
		default:
			out[name] = x
			continue
		}
		fields = append(fields, map[string]any{"path": name, "message": msg})
		msgs = append(msgs, msg)
	}
	if len(msgs) > 0 {
		details := map[string]any{"tool": e.Name, "entry": e.Name, "fields": fields}
		if len(e.Parameters) == 1 {
			details["parameter"] = e.ParameterNames()[0]
		}
		return nil, &darkroom.Error{Code: darkroom.InvalidInput, Message: e.Name + ": " + strings.Join(msgs, "; "), Details: details}
	}
	for name, p := range e.Parameters {
		if _, ok := out[name]; !ok {
			out[name] = p.Default
		}
	}
	return out, nil
}

// jsonNumber prints x as JSON does, as Values' messages show a number given as JSON.
func jsonNumber(x float64) string {
	b, err := json.Marshal(x)
	if err != nil {
		return formatNumber(x)
	}
	return string(b)
}
