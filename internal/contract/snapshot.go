package contract

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
)

// A server's first replies (initialize, tools/list) need only what the contract
// shows a client, and what the server reads of a tool before it runs it (its
// group, annotations, errors, parameters): Snapshot returns that part from the
// cache without evaluating any CUE, so a server can answer them while LoadCached
// loads and evaluates the contracts. A snapshot has no CUE values and no schema
// maps: nothing may be validated with it (Tool.Check, CheckValue and every reader
// of Value need the loaded contract), and SameSurface says whether the loaded
// contract shows what the snapshot showed.

type snapshotTool struct {
	Key              string          `json:"key"`
	Name             string          `json:"name"`
	Title            string          `json:"title"`
	Description      string          `json:"description"`
	Group            string          `json:"group"`
	Since            string          `json:"since"`
	Annotations      Annotations     `json:"annotations"`
	Deprecated       *Deprecation    `json:"deprecated"`
	Errors           []string        `json:"errors"`
	ReadsClientFiles bool            `json:"reads_client_files"`
	Params           []string        `json:"params"`
	InputSchema      json.RawMessage `json:"input_schema"`
	OutputSchema     json.RawMessage `json:"output_schema"`
}

type snapshotData struct {
	Version    string         `json:"version"`
	ErrorCodes []ErrorCode    `json:"error_codes"`
	Tools      []snapshotTool `json:"tools"`
	// Labels are the argument keys the contract knows (KnownLabels); they are no
	// part of the surface SameSurface compares.
	Labels []string `json:"labels,omitempty"`
}

const snapshotFile = "snapshot.json"

func (c *Contract) snapshotData() snapshotData {
	d := snapshotData{Version: c.Version, ErrorCodes: c.ErrorCodes}
	for _, t := range c.Tools {
		d.Tools = append(d.Tools, snapshotTool{
			Key: t.key, Name: t.Name, Title: t.Title, Description: t.Description, Group: t.Group,
			Since: t.Since, Annotations: t.Annotations, Deprecated: t.Deprecated, Errors: t.Errors,
			ReadsClientFiles: t.ReadsClientFiles, Params: t.Params,
			InputSchema: t.InputSchemaJSON, OutputSchema: t.OutputSchemaJSON,
		})
	}
	return d
}

// encode is the snapshot's JSON as the cache stores it: compact, as json.Marshal
// writes it (the schemas were written by json.Marshal too, so they keep their bytes).
func (d snapshotData) encode() ([]byte, error) {
	return json.Marshal(d)
}

// KeepSnapshot stores what Snapshot returns for c's contract files and this
// executable. It gives up quietly, like every cache write.
func (c *Contract) KeepSnapshot(cache *Cache) {
	if cache == nil || c.digest == "" {
		return
	}
	key, ok := cache.Key([]byte("snapshot"), []byte(c.digest))
	if !ok {
		return
	}
	d := c.snapshotData()
	d.Labels = c.KnownLabels()
	if b, err := d.encode(); err == nil {
		cache.Put(snapshotFile, key, b)
	}
}

// Snapshot returns the contract of fsys as KeepSnapshot stored it, without CUE
// values or schema maps, or false when the cache has no entry for exactly these
// contract files and this executable (or the entry is torn or edited). It reads the
// files and hashes them; it evaluates nothing.
func Snapshot(fsys fs.FS, cache *Cache) (*Contract, bool) {
	if cache == nil {
		return nil, false
	}
	_, digest, err := sources(fsys, "contracts")
	if err != nil {
		return nil, false
	}
	key, ok := cache.Key([]byte("snapshot"), []byte(digest))
	if !ok {
		return nil, false
	}
	payload, hit := cache.Get(snapshotFile, key)
	if !hit {
		return nil, false
	}
	var d snapshotData
	if json.Unmarshal(payload, &d) != nil || len(d.Tools) == 0 {
		return nil, false
	}
	c := &Contract{Version: d.Version, ErrorCodes: d.ErrorCodes, byName: map[string]*Tool{}, codes: map[string]ErrorCode{}, labels: map[string]bool{}, digest: digest}
	for _, ec := range d.ErrorCodes {
		c.codes[ec.Code] = ec
	}
	for _, l := range d.Labels {
		c.labels[l] = true
	}
	for _, st := range d.Tools {
		t := &Tool{
			Name: st.Name, Title: st.Title, Description: st.Description, Group: st.Group, Since: st.Since,
			Annotations: st.Annotations, Deprecated: st.Deprecated, Errors: st.Errors,
			ReadsClientFiles: st.ReadsClientFiles, Params: st.Params,
			InputSchemaJSON: st.InputSchema, OutputSchemaJSON: st.OutputSchema,
			contract: c, key: st.Key,
		}
		c.Tools = append(c.Tools, t)
		c.byName[t.Name] = t
	}
	if !slices.IsSortedFunc(c.Tools, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) }) {
		return nil, false
	}
	return c, true
}

// SameSurface reports whether c and o show a client the same thing and tell the
// server the same about each tool: everything a Snapshot holds, schemas byte for
// byte.
func (c *Contract) SameSurface(o *Contract) bool {
	if len(c.Tools) != len(o.Tools) {
		return false
	}
	for i, t := range c.Tools {
		if !bytes.Equal(t.InputSchemaJSON, o.Tools[i].InputSchemaJSON) || !bytes.Equal(t.OutputSchemaJSON, o.Tools[i].OutputSchemaJSON) {
			return false
		}
	}
	a, err := c.snapshotData().encode()
	if err != nil {
		return false
	}
	b, err := o.snapshotData().encode()
	return err == nil && bytes.Equal(a, b)
}

// Verdict reports whether the cache holds a verdict kept with KeepVerdict as file
// under the same parts (and this executable).
func (k *Cache) Verdict(file string, parts ...[]byte) bool {
	key, ok := k.Key(parts...)
	if !ok {
		return false
	}
	b, hit := k.Get(file, key)
	return hit && string(b) == verdictPayload
}

// KeepVerdict records that what parts describe passed its check.
func (k *Cache) KeepVerdict(file string, parts ...[]byte) {
	if key, ok := k.Key(parts...); ok {
		k.Put(file, key, []byte(verdictPayload))
	}
}

const verdictPayload = `{"passed":true}`
