package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGet(t *testing.T) {
	mod := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/darkroom-mcp/darkroom", Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	type vcd struct{ Version, Commit, Date string }
	for _, tc := range []struct {
		name                    string
		bi                      *debug.BuildInfo
		ldVersion, ldCommit, ld string
		want                    vcd
	}{
		{name: "test binary", bi: mod("(devel)"), want: vcd{Version: "(devel)"}},
		{name: "no build info", bi: nil, want: vcd{Version: "(devel)"}},
		{name: "go install at a tag", bi: mod("v0.3.0"), want: vcd{Version: "0.3.0"}},
		{name: "go install at a commit", bi: mod("v0.0.0-20261127155725-455834a1b2c3"),
			want: vcd{"0.0.0-20261127155725-455834a1b2c3", "455834a1b2c3", "2026-11-27T15:57:25Z"}},
		{name: "go build in a modified checkout",
			bi:   mod("v0.2.1-0.20261127155725-455834a1b2c3+dirty", "vcs.revision", "455834a1b2c3d4e5f60718293a4b5c6d7e8f9012", "vcs.time", "2026-11-27T15:57:25Z", "vcs.modified", "true"),
			want: vcd{"0.2.1-0.20261127155725-455834a1b2c3+dirty", "455834a1b2c3d4e5f60718293a4b5c6d7e8f9012-dirty", "2026-11-27T15:57:25Z"}},
		{name: "release (ldflags win)", bi: mod("(devel)", "vcs.revision", "aaaa", "vcs.time", "2026-01-01T00:00:00Z"),
			ldVersion: "0.3.0", ldCommit: "455834a1b2c3d4e5f60718293a4b5c6d7e8f9012", ld: "2026-11-28T10:00:00Z",
			want: vcd{"0.3.0", "455834a1b2c3d4e5f60718293a4b5c6d7e8f9012", "2026-11-28T10:00:00Z"}},
		{name: "release tag with a v", bi: mod("(devel)"), ldVersion: "v0.3.0", want: vcd{Version: "0.3.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := get(tc.bi, tc.ldVersion, tc.ldCommit, tc.ld)
			if diff := cmp.Diff(tc.want, vcd{in.Version, in.Commit, in.Date}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if in.Module != "github.com/darkroom-mcp/darkroom" || in.Go == "" || in.OS == "" {
				t.Errorf("module/go/os: %+v", in)
			}
		})
	}
}
