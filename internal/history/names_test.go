package history

import (
	"strings"
	"testing"

	"darkroom"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"main", true},
		{"warm-look_2", true},
		{"v1.0", true},
		{"0", true},
		{"img_0001.jpg", true},
		{strings.Repeat("a", MaxNameLen), true},
		{strings.Repeat("a", MaxNameLen+1), false},
		{"", false},
		{".hidden", false},
		{".", false},
		{"..", false},
		{"a..b", false},
		{"-flag", false},
		{"_x", false},
		{"a/b", false},
		{`a\b`, false},
		{"Main", false},
		{"HEAD", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		err := ValidateName("branch", tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("ValidateName(%q): code %q, want invalid_input", tt.name, darkroom.Code(err))
		}
	}
}
