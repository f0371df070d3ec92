package vocab

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"darkroom/internal/contract"
)

// Cache keeps the verdicts of pack checks between runs, so that a start-up (every
// CLI call is one) does not check the built-in packs again. A verdict is kept only
// for a pack that passed, under a key made of the content of the pack (and the name
// it is shown by), of the contract's source files and of this executable: a change
// to any of them is a miss, and the pack is checked by CUE again. Each file also
// holds a hash of its payload, so a torn or edited file is a miss too. A miss is
// never an error; neither is a cache that cannot be read or written.
//
// One file a pack name (vocab-<hash of the name>.json), so a pack that changes
// replaces its verdict instead of adding one.
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

// cacheVersion changes when the file's layout does.
const cacheVersion = "darkroom vocab cache 1"

type cacheFile struct {
	Key     string          `json:"key"`
	Sum     string          `json:"sum"` // sha256 of Payload
	Payload json.RawMessage `json:"payload"`
}

type cachePayload struct {
	Pack        string          `json:"pack"`
	Description string          `json:"description"`
	Masks       json.RawMessage `json:"masks,omitempty"`
	Entries     []cacheEntry    `json:"entries"`
}

type cacheEntry struct {
	Name string          `json:"name"`
	JSON json.RawMessage `json:"json"`
}

func (k *Cache) file(src Source) string {
	h := sha256.Sum256([]byte(src.Name))
	return filepath.Join(k.Dir, "vocab-"+hex.EncodeToString(h[:12])+".json")
}

func (k *Cache) key(c *contract.Contract, src Source) (string, bool) {
	exe, err := executableID()
	if err != nil || c.Digest() == "" {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nexecutable %s\ncontract %s\npack %q %d\n", cacheVersion, exe, c.Digest(), src.Name, len(src.Data))
	h.Write(src.Data)
	return hex.EncodeToString(h.Sum(nil)), true
}

// load returns the verdict kept for src, or false.
func (k *Cache) load(c *contract.Contract, src Source) (*Checked, bool) {
	key, ok := k.key(c, src)
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(k.file(src))
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
	var p cachePayload
	if json.Unmarshal(f.Payload, &p) != nil {
		return nil, false
	}
	ck := &Checked{pack: p.Pack, description: p.Description, masks: p.Masks}
	for _, e := range p.Entries {
		ck.entries = append(ck.entries, checkedEntry{name: e.Name, json: e.JSON})
	}
	return ck, true
}

// store keeps the verdict for src; it gives up quietly.
func (k *Cache) store(c *contract.Contract, src Source, ck *Checked) {
	key, ok := k.key(c, src)
	if !ok {
		return
	}
	p := cachePayload{Pack: ck.pack, Description: ck.description, Masks: ck.masks, Entries: []cacheEntry{}}
	for _, e := range ck.entries {
		p.Entries = append(p.Entries, cacheEntry{Name: e.name, JSON: e.json})
	}
	payload, err := json.Marshal(p)
	if err != nil {
		return
	}
	sum := sha256.Sum256(payload)
	b, err := json.Marshal(cacheFile{Key: key, Sum: hex.EncodeToString(sum[:]), Payload: payload})
	if err != nil {
		return
	}
	if os.MkdirAll(k.Dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(k.Dir, ".vocab-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), k.file(src)) != nil {
		os.Remove(tmp.Name())
	}
}

// LoadCached is Load with the verdicts of earlier runs: a pack whose verdict cache
// holds is not checked again; one that passes its check is kept for the next run.
// A nil cache is Load.
func LoadCached(c *contract.Contract, srcs []Source, cache *Cache) (*Vocabulary, error) {
	return loadWith(c, srcs, func(src Source) (*Checked, error) {
		if cache == nil {
			return Check(c, src)
		}
		if ck, ok := cache.load(c, src); ok {
			return ck, nil
		}
		ck, err := Check(c, src)
		if err == nil {
			cache.store(c, src, ck)
		}
		return ck, err
	})
}

var exeID struct {
	once sync.Once
	id   string
	err  error
}

// executableID names this executable by its content: the Go build ID in its ELF
// note (a hash of everything it was built from, read without reading the file),
// else a hash of the whole file.
func executableID() (string, error) {
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
