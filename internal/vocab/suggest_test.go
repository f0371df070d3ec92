package vocab

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "blur", 4},
		{"blur", "", 4},
		{"exposure", "exposure", 0},
		{"exposre", "exposure", 1},   // a letter left out
		{"exposurre", "exposure", 1}, // one too many
		{"exposura", "exposure", 1},  // one changed
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"café", "cafe", 1}, // one character, two bytes
		{"über", "uber", 1},
		{"日本", "日本語", 1},
	}
	for _, tt := range tests {
		got := []int{EditDistance(tt.a, tt.b), EditDistance(tt.b, tt.a)}
		if diff := cmp.Diff([]int{tt.want, tt.want}, got); diff != "" {
			t.Errorf("EditDistance(%q, %q) both ways (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
}
