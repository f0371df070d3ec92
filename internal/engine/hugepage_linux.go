package engine

import (
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// adviseHuge asks the kernel to back the 2 MiB pages that lie wholly inside b with
// transparent huge pages (madvise MADV_HUGEPAGE), where it is set to do so on
// request, as Debian and most distributions are by default. b is a new pixel buffer
// of several megabytes that will be written in full and recycled (see spare): one
// fault per 2 MiB instead of 512, and far fewer TLB misses in every pass over it.
// The advice changes no contents; where it is refused or unsupported it is ignored.
func adviseHuge(b []float32) {
	n := uintptr(cap(b)) * 4
	if n < 2*hugePage || hugePagesOff {
		return
	}
	mem := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	lo := (start+hugePage-1)&^(hugePage-1) - start
	hi := (start+n)&^(hugePage-1) - start
	if hi > lo {
		_ = unix.Madvise(mem[lo:hi], unix.MADV_HUGEPAGE)
	}
}

// hugePagesOff honours the Go runtime's own switch, GODEBUG=disablethp=1, which
// keeps transparent huge pages off the heap for systems where they misbehave.
var hugePagesOff = thpDisabled(os.Getenv("GODEBUG"))

// thpDisabled reads disablethp from a GODEBUG value as the runtime does: the last
// setting wins.
func thpDisabled(godebug string) bool {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			off = v == "1"
		}
	}
	return off
}
