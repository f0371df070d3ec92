package main

import (
	"encoding/json"
	"testing"
)

// Numbers on the command line are read as people write them and sent as JSON
// numbers; anything else is not a number (and the server never sees it as one).
func TestPeopleNumber(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0.4", "0.4"}, {"+0.4", "0.4"}, {".5", "0.5"}, {"-.25", "-0.25"}, {"5.", "5"}, {"5.e2", "5e2"},
		{"1e-2", "1e-2"}, {"1E+3", "1e+3"}, {"007", "7"}, {"-0", "-0"}, {"600", "600"}, {"1e400", "1e400"},
		{"abc", ""}, {"0x10", ""}, {"inf", ""}, {"NaN", ""}, {"1_000", ""}, {"", ""}, {".", ""}, {"+", ""},
		{"1e", ""}, {"--1", ""}, {"+-1", ""}, {"1.2.3", ""}, {" 1", ""},
	} {
		got, ok := peopleNumber(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("peopleNumber(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
		if ok && !json.Valid([]byte(got)) {
			t.Errorf("peopleNumber(%q) = %q, not a JSON number", tt.in, got)
		}
	}
}
