package pack

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// bigPack writes a legal YAML pack of about size bytes: many entries with one
// bound parameter each, the shape an author's large pack has.
func bigPack(size int) []byte {
	var b strings.Builder
	b.WriteString("pack: big_pack\ndescription: A large generated pack.\nentries:\n")
	for i := 0; b.Len() < size-400; i++ {
		fmt.Fprintf(&b, `  big_entry_%d:
    layer: L3
    category: tone
    tags: [tone, generated]
    description: Generated entry number %d, more contrast by amount.
    aliases: [big %d, generated %d]
    examples: ["more generated contrast %d"]
    parameters:
      amount: {type: number, min: 0, max: 1, default: 0.3, unit: amount, description: How much.}
    operations:
      - op: contrast
        bind: {amount: amount}
      - op: exposure
        set: {ev: 0.1}
`, i, i, i, i, i)
	}
	return []byte(b.String())
}

func loadContract(t testing.TB) *contract.Contract {
	t.Helper()
	c, err := contract.Load(os.DirFS("../../.."))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// BenchmarkCheck4MiB checks a legal pack just under the size cap, which the server
// does at every start. It calls check, not Check: Check remembers its verdicts, so
// every op after the first would measure a lookup.
func BenchmarkCheck4MiB(b *testing.B) {
	c := loadContract(b)
	src := Source{Name: "./big.yaml", Data: bigPack(MaxPackBytes - 1)}
	b.SetBytes(int64(len(src.Data)))
	b.ReportAllocs()
	// CPU time as well as wall time: on a shared machine the wall time says more
	// about the neighbours than about the check, and the pieces are read on every
	// core, so the two differ.
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for b.Loop() {
		if _, err := check(c, src); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	b.ReportMetric(float64(cpu(after)-cpu(before))/float64(b.N), "cpu-ns/op")
}

// A named pipe called pack.yaml in a --vocab directory is refused by what was
// opened, without waiting for a writer that never comes.
func TestDirRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pack.yaml"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Dir(dir)
		done <- err
	}()
	select {
	case err := <-done:
		want := DisplayPath(filepath.Join(dir, "pack.yaml")) + ": not a regular file (a named pipe); a pack must be a regular file"
		if err == nil || err.Error() != want {
			t.Errorf("Dir with a named pipe: %v, want %q", err, want)
		}
		if darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("code %s, want %s", darkroom.Code(err), darkroom.InvalidInput)
		}
	case <-time.After(time.Minute): // a deadlock guard, not a timing assertion
		t.Fatal("Dir is still blocked on the named pipe after a minute")
	}
}

// One pack over MaxPackBytes, and packs that together pass MaxTotalPackBytes, are
// limit_exceeded naming the pack, read no further than the limit.
func TestDirSizeCaps(t *testing.T) {
	write := func(dir, name string, n int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte("#\n"), n/2), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	one := t.TempDir()
	write(one, "big.yaml", MaxPackBytes+2)
	_, err := Dir(one)
	if darkroom.Code(err) != darkroom.LimitExceeded || !strings.Contains(err.Error(), "big.yaml: 4194306 bytes, over the manifest limit of 4194304") {
		t.Errorf("one big pack: %v, want limit_exceeded naming big.yaml", err)
	}
	all := t.TempDir()
	for i := range MaxTotalPackBytes/MaxPackBytes + 1 {
		write(all, fmt.Sprintf("p%d.yaml", i), MaxPackBytes)
	}
	_, err = Dir(all)
	if darkroom.Code(err) != darkroom.LimitExceeded || !strings.Contains(err.Error(), "p4.yaml: the packs up to this one are") {
		t.Errorf("packs over the total: %v, want limit_exceeded naming p4.yaml", err)
	}
}

// CUE packs that compute without bound are refused with limit_exceeded naming the
// pack, while this process stays small: they are evaluated in a child that gives
// up at MaxCUEEvalBytes. A CUE pack that evaluates within the limits loads as its
// YAML twin does.
func TestCUEPackBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes that use hundreds of megabytes")
	}
	c := loadContract(t)
	var doubling strings.Builder
	doubling.WriteString("s0: \"ab\"\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&doubling, "s%d: s%d + s%d\n", i, i-1, i-1)
	}
	bombs := []Source{
		{Name: "./doubling.cue", Data: []byte(doubling.String())},
		{Name: "./range.cue", Data: []byte("import \"list\"\n\nbig: [for i in list.Range(0, 1e9, 1) {\"entry \\(i)\"}]\n")},
	}
	for _, src := range bombs {
		_, err := Check(c, src)
		t.Logf("Check(%s): %v", src.Name, err)
		if darkroom.Code(err) != darkroom.LimitExceeded || !strings.HasPrefix(err.Error(), src.Name+": this CUE pack ") {
			t.Errorf("Check(%s): %v, want limit_exceeded naming the pack", src.Name, err)
		}
	}
	if hwm := peakRSS(t); hwm > 512<<20 {
		t.Errorf("this process peaked at %d MiB: the evaluation was not contained", hwm>>20)
	}

	good := Source{Name: "./good.cue", Data: []byte(`pack: "cue_pack"
description: "A pack written in CUE."
_contrast: {op: "contrast", bind: {amount: "amount"}}
entries: {
	punch: {
		layer: "L3", category: "tone", tags: ["tone"]
		description: "More contrast, by amount."
		aliases: ["pop"], examples: ["more punch"]
		parameters: amount: {type: "number", min: 0, max: 1, default: 0.3, unit: "amount", description: "How much."}
		operations: [_contrast]
	}
}
`)}
	v, err := Load(c, []Source{good})
	if err != nil {
		t.Fatalf("Load(good.cue): %v", err)
	}
	if e, ok := v.Entry("punch"); !ok || e.Pack != "cue_pack" || len(e.Operations) != 1 {
		t.Errorf("Load(good.cue): entry punch = %+v, %v", e, ok)
	}
}

func peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status here")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// vocab vet checks a file, asks its pack name and loads it with the built-in packs:
// the pack is evaluated once, not three times.
func TestCheckRemembers(t *testing.T) {
	c := loadContract(t)
	src := Source{Name: "./big.yaml", Data: bigPack(64 << 10)}
	allocs := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		return b.Mallocs - a.Mallocs
	}
	first := allocs(func() {
		if _, err := Check(c, src); err != nil {
			t.Fatal(err)
		}
	})
	again := allocs(func() {
		if name := Name(c, src); name != "big_pack" {
			t.Errorf("Name = %q, want big_pack", name)
		}
	})
	if again*10 > first {
		t.Errorf("asking for the pack name of a checked pack made %d allocations, the check itself %d: it was checked again", again, first)
	}
	changed := Source{Name: src.Name, Data: append(bytes.Clone(src.Data), "\n"...)}
	if allocs(func() { Check(c, changed) })*2 < first {
		t.Error("a pack whose content changed was not checked again")
	}
}

// The environment variable alone does not make a process the preflight child: left
// in a user's environment it would turn `darkroom serve` into a process that reads
// its stdin as a CUE pack and exits.
func TestPreflightNeedsItsArgument(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), preflightEnv+"=1")
	cmd.Stdin = strings.NewReader("a: 1\n")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) == verdictOK || !strings.Contains(string(out), "PASS") {
		t.Errorf("test binary with %s=1 but no preflight argument: %v, output %q; want it to run as itself", preflightEnv, err, out)
	}
}
