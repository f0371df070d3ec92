package contract

import (
	"encoding/json"
	"os"
	"regexp"
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
		Meta        map[string]struct {
			Packages []struct {
				Version   string `json:"version"`
				Transport struct {
					Type string `json:"type"`
				} `json:"transport"`
			} `json:"packages"`
		} `json:"_meta"`
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
	for _, p := range sj.Meta["io.modelcontextprotocol.registry/publisher-provided"].Packages {
		transports = append(transports, p.Transport.Type)
		if p.Version != c.Version {
			t.Errorf("a %s package has version %s, contract_version %s", p.Transport.Type, p.Version, c.Version)
		}
	}
	if len(transports) != 2 || transports[0] != "stdio" || transports[1] != "streamable-http" {
		t.Errorf("server.json transports %v, want stdio and streamable-http", transports)
	}
}
