package engine

import "testing"

func TestTHPDisabled(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                           false,
		"disablethp=1":               true,
		"gctrace=1,disablethp=1":     true,
		"disablethp=1,disablethp=0":  false,
		"disablethp=0, disablethp=1": true,
		"xdisablethp=1":              false,
	} {
		if got := thpDisabled(godebug); got != want {
			t.Errorf("GODEBUG=%q: disabled %v, want %v", godebug, got, want)
		}
	}
}
