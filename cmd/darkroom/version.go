package main

import (
	"encoding/json"
	"fmt"

	"github.com/darkroom-mcp/darkroom/internal/version"
)

const versionSynopsis = `version [--json]

Prints the version of this binary, the commit it was built from and when, the Go
toolchain and platform, and the contract version it serves. A release says its
tag; ` + "`go install ...@vX.Y.Z`" + ` says the module version (a pseudo-version names its
commit and time); a build from a checkout says the checkout's commit. The MCP
serverInfo.version and get_contract's server_version are this version.`

// versionCmd prints the build information: `darkroom version`, `--version`, `-v`.
func (m *Main) versionCmd(args []string) error {
	fs := m.flags("version", versionSynopsis)
	jsonOut := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments, got %q", fs.Args())
	}
	in := version.Get()
	contractVersion := ""
	if c := m.snapshot(); c != nil {
		contractVersion = c.Version
	} else if c, err := m.loadContract(); err == nil {
		contractVersion = c.Version
	} else {
		return err
	}
	if *jsonOut {
		b, err := json.Marshal(struct {
			version.Info
			Contract string `json:"contract_version"`
		}{in, contractVersion})
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "%s\n", b)
		return nil
	}
	or := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	fmt.Fprintf(m.Stdout, "darkroom %s\ncommit:   %s\nbuilt:    %s\ncontract: %s\nmodule:   %s\ngo:       %s %s/%s\n",
		in.Version, or(in.Commit), or(in.Date), contractVersion, in.Module, in.Go, in.OS, in.Arch)
	return nil
}
