package procstat

import (
	"os"
	"runtime"
	"testing"
)

// RSS follows memory the process touches: 64 MiB written raises it by about that
// much, and this process read as itself or by its pid says the same.
func TestRSSGrowsWithTouchedMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	before := RSS(0)
	if before == 0 {
		t.Fatal("RSS of this process is 0")
	}
	b := make([]byte, 64<<20)
	for i := range b {
		if i%4096 == 0 {
			b[i] = 1
		}
	}
	after := RSS(os.Getpid())
	runtime.KeepAlive(b)
	if after < before+48<<20 {
		t.Errorf("RSS %d -> %d after touching 64 MiB, want at least 48 MiB more", before, after)
	}
	if RSS(-1) != 0 {
		t.Error("a process that does not exist has an RSS")
	}
}
