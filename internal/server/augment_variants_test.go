package server

import (
	"strings"
	"testing"
)

// A prompt that asks for a number of variants other than count is told so in the
// result's warnings, not left to draw count variants silently.
func TestPromptVariantsWarns(t *testing.T) {
	s := testServer(t)
	if w := promptVariants(s, "hflip + slight blur, 5 variants", 1); len(w) != 1 || !strings.Contains(w[0], "5 variants") || !strings.Contains(w[0], "count is 1") {
		t.Errorf("5 variants asked, count 1: warnings %q", w)
	}
	if w := promptVariants(s, "hflip + slight blur, 5 variants", 5); len(w) != 0 {
		t.Errorf("5 variants asked, count 5: warnings %q, want none", w)
	}
	if w := promptVariants(s, "rotate 10 degrees", 1); len(w) != 0 {
		t.Errorf("no variants asked: warnings %q, want none", w)
	}
}
