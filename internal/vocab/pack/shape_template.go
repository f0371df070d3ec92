package pack

// Writing an entry of a checked shape from its template, without decoding it again.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// entryTemplate is a checked entry's JSON taken apart once, so that every entry of
// its shape is written with its own free values put back without decoding the
// entry again: its fields as json.Marshal writes a map (sorted by name), its
// parameters in the manifest's order (ParameterOrder reads it), each parameter's
// fields sorted.
type entryTemplate struct {
	keys   []string
	fields map[string]json.RawMessage
	order  []string // nil when the entry has no parameters
	params map[string]map[string]json.RawMessage
	pkeys  map[string][]string
	// names are the field and parameter names written as JSON strings, once;
	// size is the longest entry written, to size the next one's buffer.
	names map[string][]byte
	size  int
}

func newTemplate(entry []byte) (*entryTemplate, error) {
	t := &entryTemplate{names: map[string][]byte{}}
	if err := json.Unmarshal(entry, &t.fields); err != nil {
		return nil, err
	}
	t.keys = slices.Sorted(maps.Keys(t.fields))
	if err := t.addNames(t.keys); err != nil {
		return nil, err
	}
	if _, ok := t.fields["parameters"]; !ok {
		return t, nil
	}
	if err := json.Unmarshal(t.fields["parameters"], &t.params); err != nil {
		return nil, err
	}
	order, err := vocab.ParameterOrderOf(entry)
	if err != nil {
		return nil, err
	}
	t.order = order
	t.pkeys = map[string][]string{}
	for name, p := range t.params {
		t.pkeys[name] = slices.Sorted(maps.Keys(p))
		if err := t.addNames(append([]string{name}, t.pkeys[name]...)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *entryTemplate) addNames(names []string) error {
	for _, n := range names {
		b, err := json.Marshal(n)
		if err != nil {
			return err
		}
		t.names[n] = b
	}
	return nil
}

// withFree writes an entry of the template's shape with its own free values.
func (t *entryTemplate) withFree(slots []slotUse, values map[string]map[string]json.RawMessage) ([]byte, error) {
	free := func(field string) (json.RawMessage, bool) {
		for _, s := range slots {
			if s.field == field {
				return values[s.kind][s.key], true
			}
		}
		return nil, false
	}
	for _, s := range slots {
		if pname, ok := strings.CutPrefix(s.field, "parameters\x00"); ok && t.params[pname] == nil {
			return nil, fmt.Errorf("parameter %s missing from its checked shape", pname)
		}
	}
	var buf bytes.Buffer
	buf.Grow(t.size)
	buf.WriteByte('{')
	for i, k := range t.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(t.names[k])
		buf.WriteByte(':')
		if k != "parameters" || t.order == nil {
			v, ok := free(k)
			if !ok {
				v = t.fields[k]
			}
			buf.Write(v)
			continue
		}
		buf.WriteByte('{')
		for j, name := range t.order {
			if j > 0 {
				buf.WriteByte(',')
			}
			buf.Write(t.names[name])
			buf.WriteString(":{")
			for n, pk := range t.pkeys[name] {
				if n > 0 {
					buf.WriteByte(',')
				}
				buf.Write(t.names[pk])
				buf.WriteByte(':')
				v, ok := json.RawMessage(nil), false
				if pk == freeParamField {
					v, ok = free("parameters\x00" + name)
				}
				if !ok {
					v = t.params[name][pk]
				}
				buf.Write(v)
			}
			buf.WriteByte('}')
		}
		buf.WriteByte('}')
	}
	buf.WriteByte('}')
	t.size = max(t.size, buf.Len())
	return buf.Bytes(), nil
}
