package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Printing a tool's data for people.

// printData prints a result's data for people, one field per line, keeping the
// order of the fields: nested objects indented, lists of scalars on one line, each
// object of a list after a dash. What the summary line and the command line already
// say is left out: the image_id the user gave, and a mutation's state_after (one
// line) and snapshot_hash (when it is the head).
func printData(w io.Writer, data []byte, givenID bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return err
	}
	obj, ok := v.(ordered)
	if !ok {
		if v != nil {
			fmt.Fprintf(w, "  %s\n", scalarText(v))
		}
		return nil
	}
	head := ""
	var shown ordered
	for _, f := range obj {
		switch f.key {
		case "image_id":
			if givenID {
				continue
			}
		case "state_after":
			if sa, ok := f.value.(ordered); ok {
				head = scalarText(sa.get("head"))
				f.value = describeStateAfter(sa)
			}
		case "snapshot_hash":
			if scalarText(f.value) == head {
				continue
			}
		}
		shown = append(shown, f)
	}
	var buf bytes.Buffer
	writeFields(&buf, shown, "  ")
	_, err = w.Write(buf.Bytes())
	return err
}

// ordered is a JSON object with its keys in order.
type ordered []field

type field struct {
	key   string
	value any
}

func (o ordered) get(key string) any {
	for _, f := range o {
		if f.key == key {
			return f.value
		}
	}
	return nil
}

// describeStateAfter is a #StateAfter on one line: "<head> on main (2 entries, layers
// [L1], masks [sky_gradient])".
func describeStateAfter(sa ordered) string {
	where := "detached"
	if b, ok := sa.get("branch").(string); ok {
		where = "on " + b
	}
	n := scalarText(sa.get("entry_count"))
	entries := n + " entries"
	if n == "1" {
		entries = "1 entry"
	}
	return fmt.Sprintf("%s %s (%s, layers %s, masks %s)", scalarText(sa.get("head")), where,
		entries, scalarText(sa.get("layers")), scalarText(sa.get("masks")))
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var obj ordered
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, field{k.(string), v})
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	return tok, nil
}

func scalarText(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if v == "" || strings.ContainsAny(v, "\n\"") || strings.TrimSpace(v) != v {
			return strconv.Quote(v)
		}
		return v
	case json.Number:
		return v.String()
	case ordered:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = f.key + ": " + scalarText(f.value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = scalarText(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// simple reports whether a value fits on one line: a scalar, or an object or a list
// of scalars only.
func simple(v any) bool {
	switch v := v.(type) {
	case ordered:
		return len(v) == 0
	case []any:
		for _, x := range v {
			switch x.(type) {
			case ordered, []any:
				return false
			}
		}
	}
	return true
}

func writeFields(b *bytes.Buffer, obj ordered, indent string) {
	for _, f := range obj {
		if simple(f.value) {
			fmt.Fprintf(b, "%s%s: %s\n", indent, f.key, scalarText(f.value))
			continue
		}
		fmt.Fprintf(b, "%s%s:\n", indent, f.key)
		switch v := f.value.(type) {
		case ordered:
			writeFields(b, v, indent+"  ")
		case []any:
			for _, x := range v {
				if o, ok := x.(ordered); ok && len(o) > 0 {
					fmt.Fprintf(b, "%s- ", indent+"  ")
					var item bytes.Buffer
					writeFields(&item, o, indent+"    ")
					b.WriteString(strings.TrimPrefix(item.String(), indent+"    "))
					continue
				}
				fmt.Fprintf(b, "%s- %s\n", indent+"  ", scalarText(x))
			}
		}
	}
}
