package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Every tool is reachable by some grant, and the grants mean what their names say:
// read and validate change nothing, only admin calls destructive tools, and the
// order runs from least to most (each grant's tools are also admin's).
func TestGrantsCoverTheTools(t *testing.T) {
	c := loadTestContract(t)
	gs, err := c.Grants()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]Grant{}
	for _, g := range gs {
		names = append(names, g.Name)
		byName[g.Name] = g
	}
	if got, want := strings.Join(names, " "), "read validate augment edit admin"; got != want {
		t.Fatalf("grant order %q, want %q", got, want)
	}
	for _, tool := range c.Tools {
		a := tool.Annotations
		var allowed []string
		for _, g := range gs {
			if g.Allows(tool.Group, a.ReadOnly, a.Destructive) {
				allowed = append(allowed, g.Name)
			}
		}
		if len(allowed) == 0 || allowed[len(allowed)-1] != "admin" {
			t.Errorf("%s (group %s): allowed by %v, want at least admin", tool.Name, tool.Group, allowed)
		}
		for _, g := range allowed {
			if !a.ReadOnly && (g == "read" || g == "validate") {
				t.Errorf("%s changes something but the %s grant allows it", tool.Name, g)
			}
			if a.Destructive && g != "admin" {
				t.Errorf("%s is destructive but the %s grant allows it", tool.Name, g)
			}
		}
	}
	// The tools an editor needs are the editor's.
	for tool, grant := range map[string]string{"apply_primitive": "edit", "export_final": "edit", "render_preview": "read", "get_contract": "validate"} {
		tl, ok := c.Tool(tool)
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		if !byName[grant].Allows(tl.Group, tl.Annotations.ReadOnly, tl.Annotations.Destructive) {
			t.Errorf("the %s grant does not allow %s", grant, tool)
		}
	}
}

func TestGrantAllows(t *testing.T) {
	g := Grant{Groups: []string{"edit", "render"}, ReadOnlyOnly: true}
	for _, tc := range []struct {
		group                 string
		readOnly, destructive bool
		want                  bool
	}{
		{"render", true, false, true},
		{"render", false, false, false}, // read-only grant, mutating tool
		{"history", true, false, false}, // group not granted
	} {
		if got := g.Allows(tc.group, tc.readOnly, tc.destructive); got != tc.want {
			t.Errorf("Allows(%s, readOnly %v) = %v, want %v", tc.group, tc.readOnly, got, tc.want)
		}
	}
	g = Grant{Groups: []string{"context"}}
	if g.Allows("context", false, true) {
		t.Error("a grant without destructive allows a destructive tool")
	}
	g.Destructive = true
	if !g.Allows("context", false, true) {
		t.Error("a destructive grant refuses a destructive tool")
	}
}

// Export and batch tools get longer than the default; every tool has a limit.
func TestTimeLimits(t *testing.T) {
	c := loadTestContract(t)
	tl, err := c.TimeLimits()
	if err != nil {
		t.Fatal(err)
	}
	if tl.Default <= 0 {
		t.Fatalf("default time limit %v", tl.Default)
	}
	for _, name := range []string{"export_final", "propagate_state"} {
		tool, _ := c.Tool(name)
		if got := tl.For(name, tool.Group); got <= tl.Default {
			t.Errorf("%s: time limit %v, not above the default %v", name, got, tl.Default)
		}
	}
	if got := tl.For("render_preview", "render"); got != tl.Default {
		t.Errorf("render_preview: time limit %v, want the default %v", got, tl.Default)
	}
	if got := tl.For("any_augment_tool", "augment"); got != tl.Groups["augment"] || got <= tl.Default {
		t.Errorf("an augment tool: time limit %v, want the group's %v above the default", got, tl.Groups["augment"])
	}
	for name := range tl.Tools {
		if _, ok := c.Tool(name); !ok {
			t.Errorf("time_limits names %s, which is not a tool", name)
		}
	}
}

// The default limits pass their own bounds and fit the transport: a principal may
// not be allowed a request body the stdio framing would refuse anyway.
func TestLimitDefaults(t *testing.T) {
	c := loadTestContract(t)
	l, err := c.LimitDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckLimits(l); err != nil {
		t.Fatalf("defaults fail #Limits: %v", err)
	}
	if l.MaxInputBytes > MaxArgumentBytes {
		t.Errorf("max_input_bytes %d above MaxArgumentBytes %d", l.MaxInputBytes, MaxArgumentBytes)
	}
	if l.RequestsPerMinute < 1 || l.Burst < 1 || l.ConcurrentCalls < 1 {
		t.Errorf("defaults %+v allow nothing", l)
	}
	bad := l
	bad.ConcurrentCalls = 0
	err = c.CheckLimits(bad)
	if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), "concurrent_calls") {
		t.Errorf("concurrent_calls 0: %v, want invalid_input naming concurrent_calls", err)
	}
	bad = l
	bad.MaxInputBytes = 1 << 30
	if err := c.CheckLimits(bad); darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), "max_input_bytes") {
		t.Errorf("max_input_bytes 1 GiB: %v, want invalid_input naming max_input_bytes", err)
	}
}

func TestCheckName(t *testing.T) {
	c := loadTestContract(t)
	if err := c.CheckName("workspace", "team_a"); err != nil {
		t.Errorf("team_a: %v", err)
	}
	for _, bad := range []string{"", "../etc", "Team", "a/b", "a b"} {
		err := c.CheckName("workspace", bad)
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), "workspace") {
			t.Errorf("%q: %v, want invalid_input naming workspace", bad, err)
		}
	}
}

func TestCheckNameMessage(t *testing.T) {
	c := loadTestContract(t)
	err := c.CheckName("workspace", "../etc")
	if want := `workspace: "../etc" does not match "^[a-z][a-z0-9]*(_[a-z0-9]+)*$"`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// The contract refuses grants and limits that cannot mean what they say: a time
// limit for a tool that does not exist, an admin that cannot reach every tool, a
// grant_order that leaves a grant out, a read-only grant allowed destructive tools.
func TestGrantsChecksInCUE(t *testing.T) {
	base := fstest.MapFS{}
	files, _ := filepath.Glob("../../contracts/*.cue")
	for _, f := range append(files, "../../cue.mod/module.cue") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base[strings.TrimPrefix(f, "../../")] = &fstest.MapFile{Data: b}
	}
	grants := string(base["contracts/grants.cue"].Data)
	for _, tc := range []struct{ old, new, want string }{
		{"propagate_state: 300000", "propagate_statx: 300000", "_timeLimitTools.propagate_statx: conflicting values false and true"},
		{`"render", "context", "augment"]`, `"render", "augment"]`, "_adminAllowsAll"},
		{`grant_order: ["read", "validate", "augment", "edit", "admin"]`, `grant_order: ["read", "augment", "edit", "admin"]`, "_grantOrder.count: conflicting values 5 and 4"},
		{"readOnlyOnly: true\n", "readOnlyOnly: true\n\t\tdestructive: true\n", "grants.read.destructive: conflicting values"},
		{"default_ms: #Millis & 60000", "default_ms: #Millis & 10", "time_limits.default_ms: invalid value 10"},
	} {
		if !strings.Contains(grants, tc.old) {
			t.Fatalf("grants.cue no longer has %q", tc.old)
		}
		fsys := fstest.MapFS{}
		for k, v := range base {
			fsys[k] = v
		}
		fsys["contracts/grants.cue"] = &fstest.MapFile{Data: []byte(strings.Replace(grants, tc.old, tc.new, 1))}
		_, err := Load(fsys)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: %v, want an error with %q", tc.old, tc.new, err, tc.want)
		}
	}
}

// The HTTP transport's session limits and the sampling wait are read from
// contracts/grants.cue; each bounds something (a zero would allow nothing, or
// make every question unavailable at once), and a sampling wait never outlasts the
// tools that ask (augment's time limit).
func TestSessionLimitsAndSamplingWait(t *testing.T) {
	c := loadTestContract(t)
	sl, err := c.SessionLimits()
	if err != nil {
		t.Fatal(err)
	}
	if sl.PerPrincipal < 1 || sl.Idle < time.Second {
		t.Errorf("sessions %+v", sl)
	}
	sw, err := c.SamplingWait()
	if err != nil {
		t.Fatal(err)
	}
	tl, err := c.TimeLimits()
	if err != nil {
		t.Fatal(err)
	}
	if sw < time.Second || sw > tl.For("verify_augmentation", "augment") {
		t.Errorf("sampling wait %s, augment's time limit %s", sw, tl.For("verify_augmentation", "augment"))
	}
}
