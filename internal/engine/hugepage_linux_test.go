package engine

import (
	"testing"
	"unsafe"
)

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

// TestNewPixAligned: a large pixel buffer starts on a 2 MiB boundary (so all of it
// can be huge pages), is zero, and holds exactly the values asked for; a small one
// is an ordinary slice.
func TestNewPixAligned(t *testing.T) {
	if hugePagesOff {
		t.Skip("GODEBUG=disablethp=1")
	}
	for _, n := range []int{3 << 20, 3<<20 + 7, 1<<20 + 1} {
		b := newPix(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("n %d: len %d cap %d", n, len(b), cap(b))
		}
		if addr := uintptr(unsafe.Pointer(&b[0])); addr%hugePage != 0 {
			t.Errorf("n %d: starts at %#x, not on a 2 MiB boundary", n, addr)
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("n %d: value %d is %v", n, i, v)
			}
		}
	}
	if b := newPix(1000); len(b) != 1000 {
		t.Fatalf("len %d", len(b))
	}
}
