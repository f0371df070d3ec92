package server

import (
	"encoding/json"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// decodeArgs decodes a call's arguments, already checked and completed with their
// defaults by the contract, into the tool's own argument struct: a handler reads
// fields, so a misspelt name is a compile error rather than a silent zero. Absent
// and null arguments leave the zero value.
func decodeArgs[T any](args map[string]any) (T, error) {
	var out T
	b, err := json.Marshal(args)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		return out, darkroom.Wrap(darkroom.InternalError, err, "decode checked arguments")
	}
	return out, nil
}
