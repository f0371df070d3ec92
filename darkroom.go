// Package darkroom holds what every layer shares: the embedded contracts and built-in
// vocabulary, and the coded error that domain packages return. Only internal/server
// turns a coded error into a wire envelope.
package darkroom

import (
	"embed"
	"errors"
	"fmt"
)

// Files is the CUE module (cue.mod), the contracts and the built-in vocabulary packs,
// embedded so the binary needs nothing on disk.
//
//go:embed cue.mod/module.cue contracts/*.cue vocabulary
var Files embed.FS

// SamplePhoto is the photo the demo edits (samples/README.md says where it is from).
//
//go:embed samples/coffee.png
var SamplePhoto []byte

// Error codes. They are public API and defined in contracts/errors.cue; these names
// only let Go code refer to them, and a test fails if one is missing from the contract.
const (
	InvalidInput    = "invalid_input"
	NotFound        = "not_found"
	StateError      = "state_error"
	VersioningError = "versioning_error"
	MaskingError    = "masking_error"
	RenderError     = "render_error"
	PermissionError = "permission_error"
	LimitExceeded   = "limit_exceeded"
	Unavailable     = "unavailable"
	Timeout         = "timeout"
	InternalError   = "internal_error"
)

// Error is a failure with a contract error code. Details carries machine-readable
// context (a field path, a bound); Message is one line for people.
type Error struct {
	Code    string
	Message string
	Details map[string]any
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with the given code that wraps err.
func Wrap(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// Code reports the contract error code of err: the code of the first *Error in its
// chain, or internal_error for any other error.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return InternalError
}
