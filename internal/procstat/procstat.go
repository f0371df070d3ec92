// Package procstat reads what Linux's /proc says of a process: its resident set
// size. Tests that watch memory and the load test read it here; where there is no
// /proc the answer is 0 (a memory watch then sees nothing grow).
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// RSS is the resident set size in bytes of the process pid (0: this process), from
// the VmRSS line of /proc/<pid>/status; 0 where it cannot be read.
func RSS(pid int) uint64 {
	name := "/proc/self/status"
	if pid != 0 {
		name = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
