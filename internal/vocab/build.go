package vocab

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Assembling a Vocabulary from packs their loader checked (internal/vocab/pack
// checks each against the contract's #Manifest with CUE): plain Go, what only the
// whole set can tell, names unique across packs, default masks that exist, and
// presets whose steps name entries of other packs.

// Checked is one pack as its check made it: plain data, every field with its
// defaults filled.
type Checked struct {
	Pack        string
	Description string
	Masks       json.RawMessage // the masks object, or nil
	Presets     json.RawMessage // the presets object, or nil
	Entries     []CheckedEntry  // in the pack's order
}

// CheckedEntry is one entry of a checked pack: its name and its fields as JSON.
type CheckedEntry struct {
	Name string
	JSON json.RawMessage
}

// Builder assembles a Vocabulary from checked packs, in the order they are added.
type Builder struct {
	voc *Vocabulary
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{voc: &Vocabulary{entries: map[string]*Entry{}, masks: map[string]*Mask{}}}
}

// Add adds a checked pack read from file (its name for messages). An error says
// what in it clashes with the packs added before (a pack or entry name already
// used), with file, and leaves the rest of the pack out.
func (b *Builder) Add(file string, ck *Checked) error {
	if err := b.voc.add(file, ck); err != nil {
		return err
	}
	return b.voc.addPresets(file, ck)
}

// Build resolves what needs every pack (default masks, presets) and returns the
// vocabulary with each problem found, one message a problem; a vocabulary with
// problems must not be used.
func (b *Builder) Build() (*Vocabulary, []string) {
	voc := b.voc
	var perrs []string
	for _, e := range voc.Entries {
		if e.DefaultMask != "" && voc.masks[e.DefaultMask] == nil {
			perrs = append(perrs, fmt.Sprintf("entries.%s.default_mask: no mask named %q in any pack (pack %s)", e.Name, e.DefaultMask, e.Pack))
		}
	}
	perrs = append(perrs, voc.resolvePresets()...)
	sort.Slice(voc.Entries, func(i, j int) bool { return voc.Entries[i].Name < voc.Entries[j].Name })
	sort.Slice(voc.Masks, func(i, j int) bool { return voc.Masks[i].Name < voc.Masks[j].Name })
	return voc, perrs
}

func (voc *Vocabulary) add(file string, ck *Checked) error {
	m := struct {
		Pack        string
		Description string
		Entries     map[string]*Entry
		Masks       map[string]*Mask
	}{Pack: ck.Pack, Description: ck.Description, Entries: map[string]*Entry{}}
	if len(ck.Masks) > 0 {
		if err := json.Unmarshal(ck.Masks, &m.Masks); err != nil {
			return fmt.Errorf("%s: masks: %w", file, err)
		}
	}
	for _, ce := range ck.Entries {
		var e Entry
		if err := json.Unmarshal(ce.JSON, &e); err != nil {
			return fmt.Errorf("%s: entries.%s: %w", file, ce.Name, err)
		}
		e.raw = ce.JSON
		m.Entries[ce.Name] = &e
	}
	for _, p := range voc.Packs {
		if p.Name == m.Pack {
			return fmt.Errorf("%s: pack name %q is already used by %s\n", file, m.Pack, p.File)
		}
	}
	voc.Packs = append(voc.Packs, Pack{Name: m.Pack, Description: m.Description, File: file})
	var dups []string
	for _, name := range slices.Sorted(maps.Keys(m.Entries)) {
		e := m.Entries[name]
		if old := voc.entries[name]; old != nil {
			dups = append(dups, fmt.Sprintf("%s: entries.%s: already defined by pack %s\n", file, name, old.Pack))
			continue
		}
		e.Name, e.Pack = name, m.Pack
		for pn, p := range e.Parameters {
			p.Name = pn
		}
		voc.entries[name] = e
		voc.Entries = append(voc.Entries, e)
	}
	for _, name := range slices.Sorted(maps.Keys(m.Masks)) {
		mk := m.Masks[name]
		if old := voc.masks[name]; old != nil {
			dups = append(dups, fmt.Sprintf("%s: masks.%s: already defined by pack %s\n", file, name, old.Pack))
			continue
		}
		mk.Name, mk.Pack = name, m.Pack
		voc.masks[name] = mk
		voc.Masks = append(voc.Masks, mk)
	}
	if dups != nil {
		return fmt.Errorf("%s", strings.Join(dups, ""))
	}
	return nil
}
