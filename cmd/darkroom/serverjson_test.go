package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pythonJSONSchema returns the system interpreter with Debian's jsonschema, or skips
// (fails under CI=true, where .ci/run installs it).
func pythonJSONSchema(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import jsonschema").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with jsonschema is required in CI: %v", py, err)
		}
		t.Skipf("no %s with jsonschema (apt-get install python3-jsonschema): %v", py, err)
	}
	return py
}

// validateRegistry validates doc against the registry's server.json schema (draft-07,
// formats checked) with Python's jsonschema and returns its errors, one per line.
func validateRegistry(t *testing.T, py string, doc []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "server.json")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
for e in v.iter_errors(doc):
    print("/".join(str(p) for p in e.absolute_path) + ": " + e.message[:300])
`
	out, err := exec.Command(py, "-c", script, "../../testdata/registry/server.schema.json", f).CombinedOutput()
	if err != nil {
		t.Fatalf("jsonschema: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

type serverJSON struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Packages []struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Transport    struct {
			Type string `json:"type"`
		} `json:"transport"`
		PackageArguments []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"packageArguments"`
		EnvironmentVariables []struct {
			Name string `json:"name"`
		} `json:"environmentVariables"`
	} `json:"packages"`
}

// TestServerJSON checks the registry entry: valid against the registry's published
// schema (a copy in testdata/registry, with its source), named in the namespace the
// registry verifies for the GitHub organisation, an OCI package of the image this
// repository builds for stdio and for streamable-http, and nothing it names that the
// binary does not take: every flag is one of `serve -h`, every variable one serve
// reads.
func TestServerJSON(t *testing.T) {
	raw, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	py := pythonJSONSchema(t)
	if errs := validateRegistry(t, py, raw); errs != "" {
		t.Errorf("server.json is not valid against the registry schema:\n%s", errs)
	}
	// The validator must be able to say no: a transport the schema does not know.
	bad := bytes.Replace(raw, []byte(`"type": "stdio"`), []byte(`"type": "carrier-pigeon"`), 1)
	if errs := validateRegistry(t, py, bad); errs == "" {
		t.Errorf("the schema accepted a carrier-pigeon transport: the validation proves nothing")
	}

	var sj serverJSON
	if err := json.Unmarshal(raw, &sj); err != nil {
		t.Fatal(err)
	}
	if sj.Name != "io.github.darkroom-mcp/darkroom" {
		t.Errorf("name %q: the registry verifies io.github.<org>/ against the GitHub organisation", sj.Name)
	}
	var out, errOut bytes.Buffer
	if code := (&Main{Stdout: &out, Stderr: &errOut}).Run(context.Background(), []string{"serve", "-h"}); code != 0 {
		t.Fatalf("serve -h exited %d: %s", code, errOut.String())
	}
	help := out.String()
	transports := map[string]bool{}
	for _, p := range sj.Packages {
		transports[p.Transport.Type] = true
		if p.RegistryType != "oci" || p.Identifier != "ghcr.io/darkroom-mcp/darkroom:"+sj.Version {
			t.Errorf("package %s %s: want the oci image ghcr.io/darkroom-mcp/darkroom:%s", p.RegistryType, p.Identifier, sj.Version)
		}
		for _, a := range p.PackageArguments {
			switch a.Type {
			case "positional":
				if a.Value != "serve" {
					t.Errorf("positional argument %q: darkroom's server command is serve", a.Value)
				}
			case "named":
				flag := strings.TrimPrefix(a.Name, "--")
				if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(flag) + `( |$)`).MatchString(help) {
					t.Errorf("server.json names %s, which serve -h does not list", a.Name)
				}
			}
		}
		for _, e := range p.EnvironmentVariables {
			if !strings.Contains(help, "$"+e.Name) {
				t.Errorf("server.json names $%s, which serve -h does not mention", e.Name)
			}
		}
	}
	if !transports["stdio"] || !transports["streamable-http"] {
		t.Errorf("transports %v: want stdio and streamable-http", transports)
	}
}
