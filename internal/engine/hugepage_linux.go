package engine

import (
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// newPix allocates n pixel values, zero. A buffer of 4 MiB or more (a 1024 px
// image is 12 MiB) starts on a 2 MiB boundary, and the whole 2 MiB pages it spans
// are advised for transparent huge pages (madvise MADV_HUGEPAGE), where the kernel
// is set to give them on request, as Debian and most distributions are by default.
// Such a buffer is written in full and then recycled (see spare): one page fault
// per 2 MiB instead of 512, each at several microseconds on a virtual machine, and
// far fewer TLB misses in every pass over it. The tail past the last whole huge
// page stays in small pages, so the buffer takes no more memory than its size; the
// 2 MiB of address space the alignment takes is never touched. The advice changes
// no contents; where it is refused it is ignored.
func newPix(n int) []float32 {
	size := uintptr(n) * 4
	if size < 2*hugePage || hugePagesOff {
		return make([]float32, n)
	}
	raw := make([]float32, n+hugePage/4)
	mem := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(raw))), uintptr(len(raw))*4)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	lo := (start+hugePage-1)&^(hugePage-1) - start // within the first 2 MiB
	_ = unix.Madvise(mem[lo:lo+size&^(hugePage-1)], unix.MADV_HUGEPAGE)
	off := int(lo / 4)
	return raw[off : off+n : off+n]
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
