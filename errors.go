package darkroom

import "fmt"

// FieldError is invalid_input about one argument, named by its path, with the
// details the contract's own argument errors carry.
func FieldError(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: InvalidInput, Message: field + ": " + msg,
		Details: map[string]any{"fields": []any{map[string]any{"path": field, "message": msg}}}}
}
