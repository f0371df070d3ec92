package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Outside validators: node (the TypeScript SDK's Ajv, Ajv 2020 strict, plain Ajv) and
// Python's jsonschema, each run once over a whole batch. They run when installed
// (`npm ci` in testdata/outside, Debian's python3-jsonschema); otherwise the part is
// skipped with what to install, except under CI=true, where a missing validator
// fails: CI must never pass without them.

// outsideDir holds the npm project and the Python script, from this package.
const outsideDir = "../../testdata/outside"

// batch is what the node and Python scripts read on stdin.
type batch struct {
	Schemas []json.RawMessage `json:"schemas"`
	Cases   [][2]any          `json:"cases"` // schema index, instance (json.RawMessage)
}

// outsideReport is what they print: per validator, a compile error (or null) per
// schema and a verdict (null when accepted, else the errors) per case.
type outsideReport struct {
	Compile    map[string][]*string `json:"compile"`
	Verdicts   map[string][]*string `json:"verdicts"`
	Validators []string             `json:"validators"`
}

// missing skips or, under CI, fails the test for an outside validator that is not
// installed.
func missing(t *testing.T, what, install string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not available and CI=true: %s", what, install)
	}
	t.Skipf("%s is not available (%s); skipping this part", what, install)
}

// nodeCommand returns node with the outside project's modules, or skips.
func nodeCommand(t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node", "install Node.js 20 or newer")
	}
	if _, err := os.Stat(filepath.Join(outsideDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		missing(t, "testdata/outside/node_modules", "run npm ci in testdata/outside")
	}
	dir, err := filepath.Abs(outsideDir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	return cmd
}

// pythonCommand returns a Python 3 that imports jsonschema, or skips. The system
// interpreter comes first: python3 on PATH may be a version manager's shim without
// Debian's packages.
func pythonCommand(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	var candidates []string
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			candidates = append(candidates, path)
		}
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import jsonschema").Run() == nil {
			cmd := exec.Command(py, filepath.Join(outsideDir, script))
			return cmd
		}
	}
	missing(t, "python3 with jsonschema", "apt-get install python3-jsonschema")
	return nil
}

// runBatch feeds b to cmd and decodes its report.
func runBatch(t *testing.T, cmd *exec.Cmd, b batch) outsideReport {
	t.Helper()
	in, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, errb.String())
	}
	var r outsideReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%s: report is not JSON: %v\n%.500s", cmd, err, out.String())
	}
	return r
}
