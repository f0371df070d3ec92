package pack

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// The verdicts of pack checks are kept between runs (see contract.Cache), so that a
// start-up (every CLI call is one) does not check the built-in packs again. A
// verdict is kept only for a pack that passed, under a key of the pack's content
// and the name it is shown by, the contract's source files (contract.Digest) and
// the executable. One file a pack name, vocab-<hash of the name>.json.

type cachePayload struct {
	Pack        string          `json:"pack"`
	Description string          `json:"description"`
	Masks       json.RawMessage `json:"masks,omitempty"`
	Presets     json.RawMessage `json:"presets,omitempty"`
	Entries     []cacheEntry    `json:"entries"`
}

type cacheEntry struct {
	Name string          `json:"name"`
	JSON json.RawMessage `json:"json"`
}

func cacheFile(src Source) string {
	h := sha256.Sum256([]byte(src.Name))
	return "vocab-" + hex.EncodeToString(h[:12]) + ".json"
}

func cacheKey(cache *contract.Cache, c *contract.Contract, src Source) (string, bool) {
	if c.Digest() == "" {
		return "", false
	}
	return cache.Key([]byte("vocab pack"), []byte(c.Digest()), []byte(src.Name), src.Data)
}

// cached returns the verdict kept for src, or false.
func cached(cache *contract.Cache, c *contract.Contract, src Source) (*Checked, bool) {
	key, ok := cacheKey(cache, c, src)
	if !ok {
		return nil, false
	}
	b, ok := cache.Get(cacheFile(src), key)
	if !ok {
		return nil, false
	}
	var p cachePayload
	if json.Unmarshal(b, &p) != nil {
		return nil, false
	}
	ck := &Checked{pack: p.Pack, description: p.Description, masks: p.Masks, presets: p.Presets}
	for _, e := range p.Entries {
		ck.entries = append(ck.entries, checkedEntry{name: e.Name, json: e.JSON})
	}
	return ck, true
}

func keep(cache *contract.Cache, c *contract.Contract, src Source, ck *Checked) {
	key, ok := cacheKey(cache, c, src)
	if !ok {
		return
	}
	p := cachePayload{Pack: ck.pack, Description: ck.description, Masks: ck.masks, Presets: ck.presets, Entries: []cacheEntry{}}
	for _, e := range ck.entries {
		p.Entries = append(p.Entries, cacheEntry{Name: e.name, JSON: e.json})
	}
	if b, err := json.Marshal(p); err == nil {
		cache.Put(cacheFile(src), key, b)
	}
}

// LoadCached is Load with the verdicts of earlier runs: a pack whose verdict the
// cache holds is not checked again; one that passes its check is kept for the next
// run. A nil cache is Load.
func LoadCached(c *contract.Contract, srcs []Source, cache *contract.Cache) (*vocab.Vocabulary, error) {
	return loadWith(c, srcs, func(src Source) (*Checked, error) {
		if cache == nil {
			return Check(c, src)
		}
		if ck, ok := cached(cache, c, src); ok {
			return ck, nil
		}
		ck, err := Check(c, src)
		if err == nil {
			keep(cache, c, src, ck)
		}
		return ck, err
	})
}
