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

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"darkroom"
	"darkroom/internal/contract"
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

// Store is the token file, loaded. It is safe for concurrent use.
type Store struct {
	path   string
	policy *Policy

	mu     sync.RWMutex
	recs   []Record
	byHash map[string]*Principal
}

// Load reads the token file at path; a missing file is an empty store that Add
// creates. It refuses a file group or others may write and calls warn (when not nil)
// for one others may read. Every record is checked: names and workspaces are #Name,
// grants are the contract's, limits lie within #Limits.
func Load(path string, policy *Policy, warn func(string)) (*Store, error) {
	s := &Store{path: path, policy: policy, byHash: map[string]*Principal{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	if err := checkMode(filepath.Base(path), st.Mode(), warn); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, maxTokenFile+1)); err != nil {
		return nil, fmt.Errorf("token file %s: %w", filepath.Base(path), err)
	}
	if b.Len() > maxTokenFile {
		return nil, fmt.Errorf("token file %s: over %d bytes", filepath.Base(path), maxTokenFile)
	}
	var tf tokenFile
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		return nil, fmt.Errorf("token file %s: %w", filepath.Base(path), err)
	}
	for i, r := range tf.Tokens {
		if err := s.add(r); err != nil {
			return nil, fmt.Errorf("token file %s: token %d: %w", filepath.Base(path), i, err)
		}
	}
	return s, nil
}

// checkMode refuses a token file others may write and warns about one they may read.
func checkMode(name string, m fs.FileMode, warn func(string)) error {
	if !m.IsRegular() {
		return fmt.Errorf("token file %s: not a regular file", name)
	}
	if m.Perm()&0o022 != 0 {
		return fmt.Errorf("token file %s: mode %04o lets others write it and grant themselves anything; chmod 600 it", name, m.Perm())
	}
	if m.Perm()&0o044 != 0 && warn != nil {
		warn(fmt.Sprintf("token file %s: mode %04o lets others read who holds which grant (no token); chmod 600 it", name, m.Perm()))
	}
	return nil
}

// add checks r and indexes it; the caller holds mu or owns s alone.
func (s *Store) add(r Record) error {
	c := s.policy.c
	if err := c.CheckName("name", r.Name); err != nil {
		return err
	}
	for _, o := range s.recs {
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
	grants, err := s.policy.checkGrants(r.Grants)
	if err != nil {
		return err
	}
	lim := s.policy.defaults
	if r.Limits != nil {
		if err := c.CheckLimits(*r.Limits); err != nil {
			return err
		}
		lim = *r.Limits
	}
	if _, dup := s.byHash[r.SHA256]; dup {
		return darkroom.Errorf(darkroom.InvalidInput, "sha256: %s has the hash of another token", r.Name)
	}
	r.Grants = grants
	s.recs = append(s.recs, r)
	s.byHash[r.SHA256] = &Principal{
		Name: r.Name, UserID: "token:" + r.Name, Grants: grants, Workspace: r.Workspace, Limits: lim,
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.add(Record{Name: name, SHA256: hashToken(token), Grants: grants, Workspace: workspace, Limits: limits}); err != nil {
		return "", fmt.Errorf("token add: %w", err)
	}
	if err := s.save(); err != nil {
		// Not saved: forget it, so memory and file agree.
		last := s.recs[len(s.recs)-1]
		s.recs = s.recs[:len(s.recs)-1]
		delete(s.byHash, last.SHA256)
		return "", fmt.Errorf("token add: %w", err)
	}
	return token, nil
}

// Remove deletes the token named name; its bearer is refused from then on.
func (s *Store) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.recs, func(r Record) bool { return r.Name == name })
	if i < 0 {
		return darkroom.Errorf(darkroom.NotFound, "token remove: no token named %s", name)
	}
	old := slices.Clone(s.recs)
	r := s.recs[i]
	s.recs = slices.Delete(s.recs, i, i+1)
	if err := s.save(); err != nil {
		s.recs = old
		return fmt.Errorf("token remove: %w", err)
	}
	delete(s.byHash, r.SHA256)
	return nil
}

// Records returns the tokens' records (hashes, never tokens), by name.
func (s *Store) Records() []Record {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := slices.Clone(s.recs)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// save writes the file atomically (temp file, fsync, rename) with mode 0600.
func (s *Store) save() error {
	b, err := json.MarshalIndent(tokenFile{Tokens: s.recs}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(s.path, append(b, '\n')); err != nil {
		return fmt.Errorf("token file %s: %w", filepath.Base(s.path), err)
	}
	return nil
}

func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename this finds nothing
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Verify returns the principal of a token, or an error wrapping
// sdkauth.ErrInvalidToken that does not contain the token.
func (s *Store) Verify(token string) (*Principal, error) {
	h := hashToken(token)
	s.mu.RLock()
	p := s.byHash[h]
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
