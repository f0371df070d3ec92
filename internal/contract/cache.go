package contract

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// Cache keeps what start-up derives from the contracts between runs, so that a CLI
// call does not pay for it again: here the tools' JSON Schemas, in package vocab
// the verdicts of pack checks. The CUE values themselves are always loaded and
// evaluated; what is kept is only what is computed from them. Every entry is
// stored under a key of everything it was derived from (the contract's source
// files, this executable, and for a pack its content), with a hash of its payload:
// a key that differs, a torn or edited file, or a cache that cannot be read is a
// miss, and the work is done again. A miss is never an error.
type Cache struct {
	Dir string
}

// UserCache is the cache in the user's cache directory (os.UserCacheDir()/darkroom),
// or nil when there is none.
func UserCache() *Cache {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	return &Cache{Dir: filepath.Join(dir, "darkroom")}
}

type cacheFile struct {
	Key     string          `json:"key"`
	Sum     string          `json:"sum"` // sha256 of Payload
	Payload json.RawMessage `json:"payload"`
}

// Key hashes what an entry is derived from, with the executable's identity, which
// stands for every rule of the code that derived it.
func (k *Cache) Key(parts ...[]byte) (string, bool) {
	exe, err := ExecutableID()
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "darkroom cache 1\nexecutable %s\n", exe)
	for _, p := range parts {
		fmt.Fprintf(h, "%d\n", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Get returns the payload stored as file under key, or false.
func (k *Cache) Get(file, key string) ([]byte, bool) {
	if k == nil {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(k.Dir, file))
	if err != nil {
		return nil, false
	}
	var f cacheFile
	if json.Unmarshal(b, &f) != nil || f.Key != key {
		return nil, false
	}
	sum := sha256.Sum256(f.Payload)
	if f.Sum != hex.EncodeToString(sum[:]) {
		return nil, false
	}
	return f.Payload, true
}

// Put stores payload (JSON) as file under key; it gives up quietly. One file a
// name, so an entry that changes replaces the old one instead of adding to it.
func (k *Cache) Put(file, key string, payload []byte) {
	if k == nil {
		return
	}
	sum := sha256.Sum256(payload)
	b, err := json.Marshal(cacheFile{Key: key, Sum: hex.EncodeToString(sum[:]), Payload: payload})
	if err != nil || os.MkdirAll(k.Dir, 0o755) != nil {
		return
	}
	// darkroom's one atomic writer: another process starting at the same time
	// reads the old entry or the new one, never half of one.
	fsx.WriteFile(filepath.Join(k.Dir, file), b, nil)
}

var exeID struct {
	once sync.Once
	id   string
	err  error
}

// ExecutableID names this executable by its content: the Go build ID in its ELF
// note (a hash of everything it was built from, read without reading the whole
// file), else a hash of the whole file.
func ExecutableID() (string, error) {
	exeID.once.Do(func() {
		name, err := os.Executable()
		if err != nil {
			exeID.err = err
			return
		}
		if f, err := elf.Open(name); err == nil {
			defer f.Close()
			if s := f.Section(".note.go.buildid"); s != nil {
				if b, err := s.Data(); err == nil && len(b) > 16 && bytes.Contains(b, []byte("Go")) {
					exeID.id = "go-buildid " + hex.EncodeToString(b)
					return
				}
			}
		}
		f, err := os.Open(name)
		if err != nil {
			exeID.err = err
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			exeID.err = err
			return
		}
		exeID.id = "sha256 " + hex.EncodeToString(h.Sum(nil))
	})
	return exeID.id, exeID.err
}

// built is what build derives from the evaluated contracts, as the cache keeps it.
type built struct {
	Version    string
	ErrorCodes []ErrorCode
	Tools      []builtTool
	Labels     []string
}

// builtTool is a tool's exported fields as gob (which keeps the schema maps' Go
// types, int64 against float64 and []string against []any, where JSON would lose
// them, and carries any field Tool gains), with its field name in tools.
type builtTool struct {
	Key string
	Gob []byte
}

var gobTypes sync.Once

// registerGob tells gob the types a schema map holds.
func registerGob() {
	gobTypes.Do(func() {
		for _, v := range []any{map[string]any{}, []any{}, []string{}, int64(0), float64(0), "", false} {
			gob.Register(v)
		}
	})
}

// LoadCached is Load with the tools' schemas from the cache when they were derived
// from the same contract by the same executable; the contracts are loaded and
// evaluated by CUE either way. A nil cache is Load.
func LoadCached(fsys fs.FS, cache *Cache) (*Contract, error) {
	v, files, digest, err := loadPackage(cuecontext.New(), fsys, "contracts")
	if err != nil {
		return nil, err
	}
	key, ok := cache.Key([]byte("contract"), []byte(digest))
	if ok {
		if payload, hit := cache.Get("contract.json", key); hit {
			if c, err := fromBuilt(v, payload); err == nil {
				c.syntax, c.digest = files, digest
				c.pool = newPool(fsys)
				return c, nil
			}
		}
	}
	c, err := build(v)
	if err != nil {
		return nil, err
	}
	c.syntax, c.digest = files, digest
	c.pool = newPool(fsys)
	if ok {
		if b, err := c.built(); err == nil {
			if payload, err := json.Marshal(b); err == nil {
				cache.Put("contract.json", key, payload)
			}
		}
	}
	return c, nil
}

func (c *Contract) built() (built, error) {
	registerGob()
	b := built{Version: c.Version, ErrorCodes: c.ErrorCodes}
	for _, t := range c.Tools {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(t); err != nil {
			return built{}, err
		}
		b.Tools = append(b.Tools, builtTool{Key: t.key, Gob: buf.Bytes()})
	}
	for l := range c.labels {
		b.Labels = append(b.Labels, l)
	}
	sort.Strings(b.Labels)
	return b, nil
}

func fromBuilt(v cue.Value, payload []byte) (*Contract, error) {
	registerGob()
	var b built
	if err := json.Unmarshal(payload, &b); err != nil {
		return nil, err
	}
	c := &Contract{Value: v, Version: b.Version, ErrorCodes: b.ErrorCodes, byName: map[string]*Tool{}, codes: map[string]ErrorCode{}, labels: map[string]bool{}}
	for _, ec := range b.ErrorCodes {
		c.codes[ec.Code] = ec
	}
	for _, bt := range b.Tools {
		t := &Tool{}
		if err := gob.NewDecoder(bytes.NewReader(bt.Gob)).Decode(t); err != nil {
			return nil, err
		}
		tv := v.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(bt.Key)))
		t.contract, t.key = c, bt.Key
		t.params = tv.LookupPath(cue.ParsePath("params"))
		t.result = tv.LookupPath(cue.ParsePath("result"))
		if !t.params.Exists() || !t.result.Exists() {
			return nil, fmt.Errorf("tool %s: not in the contract", bt.Key)
		}
		c.Tools = append(c.Tools, t)
		c.byName[t.Name] = t
	}
	for _, l := range b.Labels {
		c.labels[l] = true
	}
	return c, nil
}
