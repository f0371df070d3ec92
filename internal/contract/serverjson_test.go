package contract

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// server.json (the MCP registry's install manifest) announces the version clients
// see in initialize, which is the contract's, and keeps to the registry's bounds on
// name and description.
func TestServerJSON(t *testing.T) {
	b, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	var sj struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Version     string `json:"version"`
		Packages    []struct {
			Identifier string `json:"identifier"`
			Transport  struct {
				Type string `json:"type"`
			} `json:"transport"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &sj); err != nil {
		t.Fatal(err)
	}
	c := loadTestContract(t)
	if sj.Version != c.Version {
		t.Errorf("server.json version %s, contract_version %s", sj.Version, c.Version)
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(sj.Name) || len(sj.Description) == 0 || len(sj.Description) > 100 {
		t.Errorf("name %q or description (%d characters) outside the registry's bounds", sj.Name, len(sj.Description))
	}
	var transports []string
	for _, p := range sj.Packages {
		transports = append(transports, p.Transport.Type)
		// An OCI package's version is its image tag.
		if !strings.HasSuffix(p.Identifier, ":"+c.Version) {
			t.Errorf("a %s package is %s, not tagged with version %s", p.Transport.Type, p.Identifier, c.Version)
		}
	}
	if len(transports) != 2 || transports[0] != "stdio" || transports[1] != "streamable-http" {
		t.Errorf("server.json transports %v, want stdio and streamable-http", transports)
	}
}
