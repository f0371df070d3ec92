package catalog

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// cueAllowed are the packages that may import CUE: the boundary, which loads the
// contract and the packs and checks calls with them, and the tools that read the
// contract. Every other package under internal/ is the domain (or below it): it
// judges no request, works from plain facts (this package, vocab's entries) and
// must not carry the CUE evaluator. A new package that needs CUE is added here on
// purpose, with a reason a reviewer accepts.
var cueAllowed = []string{
	"internal/auth",           // reads the contract's grants
	"internal/compat",         // compares two contracts
	"internal/contract",       // loads CUE, checks calls
	"internal/limits",         // reads the contract's limits
	"internal/prompt/costgen", // a generator run by hand against the contract
	"internal/server",         // the boundary: the one check of a call
	"internal/vocab/pack",     // loads and checks packs against #Manifest
	// tests' one loader of the contract and the built-in packs (imported by
	// _test.go files only, which go list -deps does not follow)
	"internal/vocab/pack/packtest",
}

// Issue 33's line, go list -deps ./internal/edit/... ./internal/augment has no
// cuelang.org, held for every domain package, so that a package split out of edit
// is held too. Each offender is named with the first CUE package it reaches.
func TestDomainImportsNoCUE(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go tool on PATH")
		}
		t.Skip("no go tool on PATH to list dependencies with")
	}
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./internal/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/darkroom-mcp/darkroom/"
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		seen[pkg] = true
		if slices.Contains(cueAllowed, pkg) {
			continue
		}
		for _, dep := range fields[1:] {
			if strings.HasPrefix(dep, "cuelang.org/") {
				t.Errorf("%s imports CUE (%s): the domain must not; keep CUE checks at the boundary (%s) and give the domain plain facts", pkg, dep, strings.Join(cueAllowed, ", "))
				break
			}
		}
	}
	for _, pkg := range []string{"internal/edit", "internal/augment", "internal/vocab", "internal/dataset", "internal/catalog"} {
		if !seen[pkg] {
			t.Errorf("go list ./internal/... did not list %s", pkg)
		}
	}
}
