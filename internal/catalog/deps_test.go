package catalog

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The domain judges no request, so it does not carry the CUE evaluator: CUE checks
// a call once, at the boundary (internal/server with internal/contract), and the
// domain works from plain facts (this package, vocab's entries). Issue 33's line:
// go list -deps ./internal/edit/... ./internal/augment has no cuelang.org. The
// packages below are each listed on their own, so a failure names the one that
// brought CUE back.
func TestDomainImportsNoCUE(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go tool on PATH")
		}
		t.Skip("no go tool on PATH to list dependencies with")
	}
	for _, pkg := range []string{
		"./internal/edit/...",
		"./internal/augment",
		"./internal/vocab",
		"./internal/catalog",
		"./internal/dataset",
		"./internal/resolve",
		"./internal/prompt",
	} {
		cmd := exec.Command(goTool, "list", "-deps", pkg)
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
		}
		var cue []string
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "cuelang.org/") {
				cue = append(cue, dep)
			}
		}
		if len(cue) > 0 {
			t.Errorf("go list -deps %s has %d cuelang.org packages (%s, ...): the domain must not import CUE; keep CUE checks at the boundary (internal/server, internal/contract, internal/vocab/pack) and give the domain plain facts", pkg, len(cue), cue[0])
		}
	}
}
