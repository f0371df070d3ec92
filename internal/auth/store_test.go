package auth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

func TestStoreAddVerify(t *testing.T) {
	p := testPolicy(t)
	path := filepath.Join(t.TempDir(), "tokens.json")
	s, err := Load(path, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := s.Add("alice", []string{"edit", "read"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	own := &contract.Limits{RequestsPerMinute: 600, Burst: 50, ConcurrentCalls: 1, MaxInputBytes: 1 << 20}
	ci, err := s.Add("ci", []string{"validate"}, "team", own)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(alice, TokenPrefix) || len(alice) != len(TokenPrefix)+43 || alice == ci {
		t.Fatalf("tokens %q, %q: want %s and 43 base64url characters, distinct", alice, ci, TokenPrefix)
	}

	// The file holds hashes, no token, and only its owner may read it.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{alice, ci} {
		if strings.Contains(string(b), strings.TrimPrefix(tok, TokenPrefix)[:16]) {
			t.Errorf("the token file holds a token:\n%s", b)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o, want 0600", st.Mode().Perm())
	}

	// A fresh load (the server's start) verifies both.
	s2, err := Load(path, p, func(m string) { t.Errorf("warning for a 0600 file: %s", m) })
	if err != nil {
		t.Fatal(err)
	}
	got, err := s2.Verify(alice)
	if err != nil {
		t.Fatal(err)
	}
	want := &Principal{Name: "alice", UserID: "token:alice", Grants: []string{"read", "edit"}, Workspace: "alice", Limits: p.Defaults()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("alice (-want +got):\n%s", diff)
	}
	got, err = s2.Verify(ci)
	if err != nil {
		t.Fatal(err)
	}
	if got.Workspace != "team" || got.Limits != *own {
		t.Errorf("ci: workspace %s limits %+v, want team and %+v", got.Workspace, got.Limits, *own)
	}

	// Wrong tokens are refused, and removal takes effect and persists.
	for _, bad := range []string{"", alice + "x", alice[:len(alice)-1], strings.ToUpper(alice)} {
		if _, err := s2.Verify(bad); !errors.Is(err, sdkauth.ErrInvalidToken) {
			t.Errorf("Verify(a wrong token): %v, want ErrInvalidToken", err)
		}
	}
	if err := s2.Remove("alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Verify(alice); !errors.Is(err, sdkauth.ErrInvalidToken) {
		t.Errorf("a removed token: %v, want ErrInvalidToken", err)
	}
	s3, err := Load(path, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3.Verify(alice); err == nil {
		t.Error("a removed token passes after a reload")
	}
	if _, err := s3.Verify(ci); err != nil {
		t.Errorf("ci after alice's removal: %v", err)
	}
	if err := s3.Remove("alice"); darkroom.Code(err) != darkroom.NotFound {
		t.Errorf("removing alice twice: %v, want not_found", err)
	}
}

// Add refuses what the contract does not allow, and a refused Add leaves the file
// as it was.
func TestStoreAddRefuses(t *testing.T) {
	p := testPolicy(t)
	path := filepath.Join(t.TempDir(), "tokens.json")
	s, err := Load(path, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("alice", []string{"edit"}, "", nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name, workspace string
		grants          []string
		limits          *contract.Limits
		want            string
	}{
		{"alice", "", []string{"read"}, nil, "a token named alice exists"},
		{"Bob", "", []string{"read"}, nil, `name: "Bob" does not match`},
		{"bob", "../alice", []string{"read"}, nil, `workspace: "../alice" does not match`},
		{"bob", "", []string{"root"}, nil, `grants: "root" is not one of read, validate, augment, edit, admin`},
		{"bob", "", []string{"read"}, &contract.Limits{RequestsPerMinute: 10, Burst: 1, ConcurrentCalls: 1000, MaxInputBytes: 1 << 20}, "concurrent_calls: 1000 is above the maximum 64"},
	} {
		_, err := s.Add(tc.name, tc.grants, tc.workspace, tc.limits)
		if darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%s, %v, %q): %v, want invalid_input with %q", tc.name, tc.grants, tc.workspace, err, tc.want)
		}
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Errorf("refused adds changed the file:\n%s", after)
	}
	if n := len(s.Records()); n != 1 {
		t.Errorf("%d records after refused adds, want 1", n)
	}
}

// A token file others may write is refused (they could grant themselves admin); one
// they may read loads with a warning (it holds no token, but says who holds what).
func TestTokenFileMode(t *testing.T) {
	p := testPolicy(t)
	path := filepath.Join(t.TempDir(), "tokens.json")
	s, _ := Load(path, p, nil)
	tok, err := s.Add("alice", []string{"edit"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o666, 0o620, 0o602} {
		os.Chmod(path, mode)
		_, err := Load(path, p, nil)
		if err == nil || !strings.Contains(err.Error(), "lets others write it") {
			t.Errorf("mode %04o: %v, want a refusal", mode, err)
		}
	}
	os.Chmod(path, 0o644)
	var warnings []string
	s, err = Load(path, p, func(m string) { warnings = append(warnings, m) })
	if err != nil {
		t.Fatalf("mode 0644: %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "mode 0644 lets others read") || strings.Contains(warnings[0], tok) {
		t.Errorf("mode 0644 warnings %q", warnings)
	}
	if _, err := s.Verify(tok); err != nil {
		t.Errorf("a token from a 0644 file: %v", err)
	}
	// A record edited by hand into a bad state is refused at load, naming it.
	os.Chmod(path, 0o600)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"edit"`, `"superuser"`, 1)), 0o600)
	if _, err := Load(path, p, nil); err == nil || !strings.Contains(err.Error(), `token 0: grants: "superuser" is not one of`) {
		t.Errorf("a bad grant in the file: %v", err)
	}
}

// No error, warning or record ever carries the token.
func TestNoTokenInMessages(t *testing.T) {
	p := testPolicy(t)
	s, _ := Load(filepath.Join(t.TempDir(), "tokens.json"), p, nil)
	tok, err := s.Add("alice", []string{"edit"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, bad := range []string{tok + "0", tok[:20], tok + ".a.b"} {
		_, err := s.Verify(bad)
		msgs = append(msgs, err.Error())
		_, err = Verifier(s, nil)(t.Context(), bad, nil)
		msgs = append(msgs, err.Error())
	}
	recs := s.Records()
	msgs = append(msgs, recs[0].SHA256, strings.Join(recs[0].Grants, " "))
	for _, m := range msgs {
		if strings.Contains(m, tok[:20]) || strings.Contains(m, tok[len(tok)-20:]) {
			t.Errorf("a message carries the token: %s", m)
		}
	}
}

// A running server follows the file: a token added or removed by another process
// (darkroom token add) counts from the next check, and a bad edit keeps the tokens
// that were good.
func TestStoreFollowsFile(t *testing.T) {
	p := testPolicy(t)
	path := filepath.Join(t.TempDir(), "tokens.json")
	server, err := Load(path, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	server.now = func() time.Time { return now }
	server.checked = now
	var warnings []string
	server.warn = func(m string) { warnings = append(warnings, m) }

	cli, _ := Load(path, p, nil)
	stale, _ := Load(path, p, nil) // loaded before alice exists
	alice, err := cli.Add("alice", []string{"edit"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.Verify(alice); err == nil {
		t.Fatal("a token was seen before the recheck interval passed")
	}
	now = now.Add(recheck)
	if _, err := server.Verify(alice); err != nil {
		t.Fatalf("a token added by another process, after the recheck: %v", err)
	}

	// A process that loaded before alice was added does not drop her when it adds.
	bob, err := stale.Add("bob", []string{"read"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(recheck)
	if _, err := server.Verify(alice); err != nil {
		t.Errorf("alice after another process added bob: %v", err)
	}
	if err := cli.Remove("alice"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(recheck)
	if _, err := server.Verify(alice); err == nil {
		t.Error("a removed token still passes after the recheck")
	}
	if _, err := server.Verify(bob); err != nil {
		t.Errorf("bob: %v", err)
	}

	// A hand edit that breaks the file, or opens it to others' writes, keeps bob.
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"read"`, `"root"`, 1)), 0o600)
	now = now.Add(recheck)
	if _, err := server.Verify(bob); err != nil {
		t.Errorf("bob after a bad edit: %v", err)
	}
	os.WriteFile(path, b, 0o600)
	os.Chmod(path, 0o666)
	now = now.Add(recheck)
	if _, err := server.Verify(bob); err != nil {
		t.Errorf("bob after a chmod 666: %v", err)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], `"root" is not one of`) || !strings.Contains(warnings[1], "lets others write it") {
		t.Errorf("warnings %q", warnings)
	}
	for _, w := range warnings {
		if strings.Contains(w, bob[8:]) {
			t.Errorf("a warning carries a token: %s", w)
		}
	}
}
