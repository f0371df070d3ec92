// Package version says which darkroom this binary is: its version, the commit it was
// built from and when, for `darkroom version`, the MCP serverInfo and get_contract.
//
// A release build sets them with the linker (goreleaser passes
//
//	-X github.com/darkroom-mcp/darkroom/internal/version.version=0.3.0
//	-X github.com/darkroom-mcp/darkroom/internal/version.commit=<sha>
//	-X github.com/darkroom-mcp/darkroom/internal/version.date=<RFC 3339>
//
// ). Without them the Go toolchain's build information answers: `go install
// github.com/darkroom-mcp/darkroom/cmd/darkroom@v0.3.0` records the module version
// (a pseudo-version names its commit and time), and `go build` in a git checkout
// records the revision, its time and whether the tree was modified. A test binary
// records neither and reports "(devel)", so goldens stay the same on every machine.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

// Set by the linker in release builds (-X); empty otherwise.
var (
	version string
	commit  string
	date    string
)

// Devel is the version of a build that carries none: a test binary, or `go build`
// outside a checkout.
const Devel = "(devel)"

// Info is what a binary knows about its own build.
type Info struct {
	Version string `json:"version"`          // semver without a leading v, or Devel
	Commit  string `json:"commit,omitempty"` // the full revision when known; "-dirty" when built from a modified tree
	Date    string `json:"date,omitempty"`   // RFC 3339, UTC: the commit's time unless a release stamped its build time
	Module  string `json:"module"`           // the main module's path
	Go      string `json:"go"`               // the toolchain that built it
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// Get returns the binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return get(bi, version, commit, date)
}

// String is the version alone, as serverInfo.version and get_contract give it.
func String() string { return Get().Version }

func get(bi *debug.BuildInfo, ldVersion, ldCommit, ldDate string) Info {
	in := Info{Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Module: "github.com/darkroom-mcp/darkroom"}
	var modVersion string
	if bi != nil {
		if bi.Main.Path != "" {
			in.Module = bi.Main.Path
		}
		modVersion = bi.Main.Version
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.time":
				in.Date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && in.Commit != "" {
			in.Commit += "-dirty"
		}
	}
	switch {
	case ldVersion != "":
		in.Version = ldVersion
	case modVersion != "" && modVersion != Devel:
		in.Version = modVersion
		// A module zip carries no VCS settings; a pseudo-version still names the
		// commit (its 12-digit prefix) and the commit's time.
		if in.Commit == "" && module.IsPseudoVersion(modVersion) {
			if rev, err := module.PseudoVersionRev(modVersion); err == nil {
				in.Commit = rev
			}
			if t, err := module.PseudoVersionTime(modVersion); err == nil {
				in.Date = t.UTC().Format(time.RFC3339)
			}
		}
	default:
		in.Version = Devel
	}
	in.Version = strings.TrimPrefix(in.Version, "v")
	if ldCommit != "" {
		in.Commit = ldCommit
	}
	if ldDate != "" {
		in.Date = ldDate
	}
	return in
}
