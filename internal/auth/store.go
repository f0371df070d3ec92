package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// TokenPrefix starts every token Add makes.
const TokenPrefix = "drk_"

// maxTokenFile bounds the token file read at start-up.
const maxTokenFile = 4 << 20

// Record is one token of the file: never the token, only its hash.
type Record struct {
	Name      string           `json:"name"`
	SHA256    string           `json:"sha256"`
	Grants    []string         `json:"grants"`
	Workspace string           `json:"workspace"`
	Limits    *contract.Limits `json:"limits,omitempty"`
}

type tokenFile struct {
	Tokens []Record `json:"tokens"`
}

// Store is the token file, loaded. It is safe for concurrent use, and it follows
// the file: `darkroom token add` and `token remove` in another process take effect
// in a running server within recheck (Verify looks at the file's stamp at most that
// often; a stat costs about a microsecond).
type Store struct {
	path   string
	policy *Policy
	warn   func(string)
	// now is the clock for recheck (time.Now; tests move it by hand).
	now func() time.Time

	mu      sync.RWMutex
	set     *tokenSet
	stamp   fs.FileInfo // of the file the set was read from; nil when there was none
	checked time.Time
}

// recheck is how often Verify looks whether the token file changed.
const recheck = time.Second

// tokenSet is one reading of the file: never modified once published in Store.set.
type tokenSet struct {
	recs   []Record
	byHash map[string]*Principal
}

// Load reads the token file at path; a missing file is an empty store that Add
// creates. It refuses a file group or others may write and calls warn (when not nil)
// for one others may read. Every record is checked: names and workspaces are #Name,
// grants are the contract's, limits lie within #Limits.
func Load(path string, policy *Policy, warn func(string)) (*Store, error) {
	if warn == nil {
		warn = func(string) {}
	}
	s := &Store{path: path, policy: policy, warn: warn, now: time.Now}
	set, stamp, err := s.read()
	if err != nil {
		return nil, err
	}
	s.set, s.stamp, s.checked = set, stamp, s.now()
	return s, nil
}

// read reads and checks the file.
func (s *Store) read() (*tokenSet, fs.FileInfo, error) {
	set := &tokenSet{byHash: map[string]*Principal{}}
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	name := filepath.Base(s.path)
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("token file: %w", err)
	}
	if err := checkMode(name, st.Mode(), s.warn); err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, maxTokenFile+1)); err != nil {
		return nil, nil, fmt.Errorf("token file %s: %w", name, err)
	}
	if b.Len() > maxTokenFile {
		return nil, nil, fmt.Errorf("token file %s: over %d bytes", name, maxTokenFile)
	}
	var tf tokenFile
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		return nil, nil, fmt.Errorf("token file %s: %w", name, err)
	}
	for i, r := range tf.Tokens {
		if err := set.add(s.policy, r); err != nil {
			return nil, nil, fmt.Errorf("token file %s: token %d: %w", name, i, err)
		}
	}
	return set, st, nil
}

// checkMode refuses a token file others may write and warns about one they may read.
func checkMode(name string, m fs.FileMode, warn func(string)) error {
	if !m.IsRegular() {
		return fmt.Errorf("token file %s: not a regular file", name)
	}
	if m.Perm()&0o022 != 0 {
		return fmt.Errorf("token file %s: mode %04o lets others write it and grant themselves anything; chmod 600 it", name, m.Perm())
	}
	if m.Perm()&0o044 != 0 {
		warn(fmt.Sprintf("token file %s: mode %04o lets others read who holds which grant (no token); chmod 600 it", name, m.Perm()))
	}
	return nil
}

// changed reports whether the file is not the one st describes.
func changed(old fs.FileInfo, path string) bool {
	st, err := os.Stat(path)
	if err != nil || old == nil {
		return (err == nil) != (old != nil)
	}
	return !os.SameFile(old, st) || !st.ModTime().Equal(old.ModTime()) || st.Size() != old.Size() || st.Mode() != old.Mode()
}

// refresh rereads the file when it changed since it was read, at most once per
// recheck. A file that no longer loads (a bad edit, a mode others may write) keeps
// the tokens read before, with a warning.
func (s *Store) refresh() {
	t := s.now()
	s.mu.RLock()
	due := t.Sub(s.checked) >= recheck
	s.mu.RUnlock()
	if !due {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Sub(s.checked) < recheck {
		return
	}
	s.checked = t
	if !changed(s.stamp, s.path) {
		return
	}
	set, stamp, err := s.read()
	if err != nil {
		s.warn(fmt.Sprintf("%v; keeping the tokens loaded before", err))
		return
	}
	s.set, s.stamp = set, stamp
}

// add checks r and indexes it in a set nobody else sees yet.
func (set *tokenSet) add(policy *Policy, r Record) error {
	c := policy.c
	if err := c.CheckName("name", r.Name); err != nil {
		return err
	}
	for _, o := range set.recs {
		if o.Name == r.Name {
			return darkroom.Errorf(darkroom.InvalidInput, "name: a token named %s exists", r.Name)
		}
	}
	if err := c.CheckName("workspace", r.Workspace); err != nil {
		return err
	}
	r.SHA256 = strings.ToLower(r.SHA256)
	h, err := hex.DecodeString(r.SHA256)
	if err != nil || len(h) != sha256.Size {
		return darkroom.Errorf(darkroom.InvalidInput, "sha256: want %d hex digits", 2*sha256.Size)
	}
	grants, err := policy.checkGrants(r.Grants)
	if err != nil {
		return err
	}
	lim := policy.defaults
	if r.Limits != nil {
		if err := c.CheckLimits(*r.Limits); err != nil {
			return err
		}
		lim = *r.Limits
	}
	if _, dup := set.byHash[r.SHA256]; dup {
		return darkroom.Errorf(darkroom.InvalidInput, "sha256: %s has the hash of another token", r.Name)
	}
	r.Grants = grants
	set.recs = append(set.recs, r)
	set.byHash[r.SHA256] = &Principal{
		Name: r.Name, UserID: "token:" + r.Name, Grants: grants, Workspace: r.Workspace, Limits: lim,
	}
	return nil
}

// edit rereads the file (so another process's change is not overwritten), applies
// change to a copy and saves it; the store's set changes only when the file did.
func (s *Store) edit(change func(set *tokenSet) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, _, err := s.read()
	if err != nil {
		return err
	}
	next := &tokenSet{byHash: map[string]*Principal{}}
	if err := change(cur); err != nil {
		return err
	}
	for _, r := range cur.recs {
		if err := next.add(s.policy, r); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(tokenFile{Tokens: next.recs}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(s.path, append(b, '\n')); err != nil {
		return fmt.Errorf("token file %s: %w", filepath.Base(s.path), err)
	}
	st, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	s.set, s.stamp = next, st
	return nil
}

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// Add makes a token for name with grants, working in workspace (the name's own when
// empty) within limits (the contract's defaults when nil), saves its hash and returns
// the token: the only time it is ever shown.
func (s *Store) Add(name string, grants []string, workspace string, limits *contract.Limits) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	if workspace == "" {
		workspace = name
	}
	err := s.edit(func(set *tokenSet) error {
		return set.add(s.policy, Record{Name: name, SHA256: hashToken(token), Grants: grants, Workspace: workspace, Limits: limits})
	})
	if err != nil {
		return "", fmt.Errorf("token add: %w", err)
	}
	return token, nil
}

// Remove deletes the token named name; its bearer is refused from then on.
func (s *Store) Remove(name string) error {
	err := s.edit(func(set *tokenSet) error {
		i := slices.IndexFunc(set.recs, func(r Record) bool { return r.Name == name })
		if i < 0 {
			return darkroom.Errorf(darkroom.NotFound, "no token named %s", name)
		}
		set.recs = slices.Delete(set.recs, i, i+1)
		return nil
	})
	if err != nil {
		return fmt.Errorf("token remove: %w", err)
	}
	return nil
}

// Records returns the tokens' records (hashes, never tokens), by name.
func (s *Store) Records() []Record {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := slices.Clone(s.set.recs)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// writeAtomic replaces path with b through darkroom's one atomic and durable writer
// (internal/fsx), readable by its owner only: the file holds token hashes.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsx.WriteFilePerm(path, b, 0o600, nil)
}

// Verify returns the principal of a token, or an error wrapping
// sdkauth.ErrInvalidToken that does not contain the token.
func (s *Store) Verify(token string) (*Principal, error) {
	h := hashToken(token)
	s.refresh()
	s.mu.RLock()
	p := s.set.byHash[h]
	s.mu.RUnlock()
	if p == nil {
		return nil, fmt.Errorf("%w: unknown bearer token", sdkauth.ErrInvalidToken)
	}
	return p, nil
}

// TokenVerifier is Verify for auth.RequireBearerToken.
func (s *Store) TokenVerifier() sdkauth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		p, err := s.Verify(token)
		if err != nil {
			return nil, err
		}
		return p.tokenInfo(), nil
	}
}
