package server

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// editServer is a server over a fresh workspace. It is built directly rather than by
// New, which refuses to start while a contract tool lacks a handler.
func editServer(t testing.TB) *Server {
	t.Helper()
	c, v := packtest.Builtin(t)
	ws, err := workspace.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(c, v, ws)
}

// testPhoto is a w x h JPEG with a colour gradient, so edits visibly change it.
func testPhoto(t testing.TB, w, h int) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(255 * x / w), uint8(255 * y / h), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// addImage puts a photo into the workspace the way ingest does: the source copy,
// then the history with the empty baseline and the source's metadata. It returns
// the baseline's hash.
func addImage(t testing.TB, s *Server, id string, data []byte) string {
	t.Helper()
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		cfg = image.Config{Width: 1, Height: 1} // a corrupt source, on purpose
	}
	rel, sum, err := s.Workspace.StoreSource(id, "photo.jpg", data)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := json.Marshal(workspace.SourceMeta{File: rel, SHA256: sum, Format: "jpeg", Width: cfg.Width, Height: cfg.Height, Name: "photo.jpg"})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := s.Workspace.History.Init(id, history.State{}, meta)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

// applyEntries sets entries the way apply_primitive does and returns the new HEAD.
func applyEntries(t testing.TB, s *Server, id string, entries ...history.Entry) string {
	t.Helper()
	m, err := s.Mutate(id, "apply_primitive", func(st *history.State) error {
		for _, e := range entries {
			st.Set(e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m.SnapshotHash
}

func exposure(ev float64) history.Entry {
	return history.Entry{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": ev}, Strength: 1}
}

// mask returns a mask_spec as the state records it.
func mask(t testing.TB, s *Server, spec string) json.RawMessage {
	t.Helper()
	m, err := s.CheckMask(json.RawMessage(spec))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var (
	schemaMu sync.Mutex
	schemas  = map[string]*jsonschema.Resolved{}
)

// checkOutput validates an envelope's JSON against the tool's advertised
// outputSchema, as an MCP client would.
func checkOutput(t testing.TB, s *Server, tool string, env Envelope) map[string]any {
	t.Helper()
	schemaMu.Lock()
	r, ok := schemas[tool]
	if !ok {
		ct, found := s.Contract.Tool(tool)
		if !found {
			schemaMu.Unlock()
			t.Fatalf("no tool %s", tool)
		}
		b, _ := json.Marshal(ct.OutputSchema)
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			schemaMu.Unlock()
			t.Fatalf("%s: output schema: %v", tool, err)
		}
		var err error
		if r, err = sch.Resolve(nil); err != nil {
			schemaMu.Unlock()
			t.Fatalf("%s: output schema: %v", tool, err)
		}
		schemas[tool] = r
	}
	schemaMu.Unlock()
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("%s: marshal result: %v", tool, err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(v); err != nil {
		t.Fatalf("%s: result does not satisfy the outputSchema: %v\n%s", tool, err, b)
	}
	return v
}

// invokeTool invokes a tool and checks its result against the outputSchema. It
// returns the data as JSON values, or the error.
func invokeTool(t testing.TB, s *Server, tool string, args any) (map[string]any, *ErrorInfo) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := s.Invoke(context.Background(), tool, raw)
	v := checkOutput(t, s, tool, env)
	if !env.Success {
		return nil, env.Error
	}
	return v["data"].(map[string]any), nil
}

// call is invokeTool for a call that may fail: it returns the error code, "" on
// success.
func call(t testing.TB, s *Server, tool string, args any) (map[string]any, string) {
	t.Helper()
	d, e := invokeTool(t, s, tool, args)
	if e != nil {
		return nil, e.Code
	}
	return d, ""
}

// mustCall is invokeTool for a call that must succeed.
func mustCall(t testing.TB, s *Server, tool string, args any) map[string]any {
	t.Helper()
	d, e := invokeTool(t, s, tool, args)
	if e != nil {
		t.Fatalf("%s %v: %s: %s", tool, args, e.Code, e.Message)
	}
	return d
}

func head(t testing.TB, s *Server, id string) history.Head {
	t.Helper()
	h, err := s.Workspace.History.Head(id)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func ptr[T any](v T) *T { return &v }

// stateAfter reads a mutation's state_after.
func stateAfter(d map[string]any) edit.StateAfter {
	var m edit.Mutation
	b, _ := json.Marshal(d)
	json.Unmarshal(b, &m)
	return m.StateAfter
}

func TestSnapshot(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	edited := applyEntries(t, s, "harbour", exposure(0.5))
	tests := []struct {
		name      string
		args      map[string]any
		wantLabel string
	}{
		{"labelled", map[string]any{"image_id": "harbour", "label": "before the look"}, "before the look"},
		{"no label", map[string]any{"image_id": "harbour"}, "snapshot"},
		{"null label", map[string]any{"image_id": "harbour", "label": nil}, "snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "snapshot", tt.args)
			// An equal state has the same hash: the snapshot is HEAD's state.
			if d["snapshot_hash"] != edited {
				t.Errorf("snapshot_hash %v, want HEAD's %s", d["snapshot_hash"], edited)
			}
			want := edit.StateAfter{Head: edited, Branch: ptr("main"), EntryCount: 1, Layers: []string{"L1"}, Masks: []string{}}
			if diff := cmp.Diff(want, stateAfter(d)); diff != "" {
				t.Errorf("state_after (-want +got):\n%s", diff)
			}
			log, err := s.Workspace.History.Log("harbour", 1)
			if err != nil {
				t.Fatal(err)
			}
			if log[0].Op != history.OpCommit || log[0].Label != tt.wantLabel || log[0].Parent != edited {
				t.Errorf("log head %+v, want a commit labelled %q on %s", log[0], tt.wantLabel, edited)
			}
		})
	}
	// The baseline state snapshotted again has the baseline's hash.
	if _, err := s.Workspace.History.Checkout("harbour", "baseline"); err != nil {
		t.Fatal(err)
	}
	if d := mustCall(t, s, "snapshot", map[string]any{"image_id": "harbour"}); d["snapshot_hash"] != base {
		t.Errorf("snapshot of the baseline state: %v, want %s", d["snapshot_hash"], base)
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope"}, darkroom.NotFound},
		{"bad image id", map[string]any{"image_id": "Bad/Id"}, darkroom.InvalidInput},
		{"empty label", map[string]any{"image_id": "harbour", "label": ""}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "snapshot", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

func TestCheckout(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	edited := applyEntries(t, s, "harbour", exposure(0.5))
	// A branch named like a prefix of a snapshot's hash makes that spec ambiguous.
	if _, err := s.Workspace.History.Branch("harbour", edited[:6], ""); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		want edit.StateAfter
	}{
		{"baseline", edit.StateAfter{Head: base, Detached: true, Layers: []string{}, Masks: []string{}}},
		{"main", edit.StateAfter{Head: edited, Branch: ptr("main"), EntryCount: 1, Layers: []string{"L1"}, Masks: []string{}}},
		{base[:8], edit.StateAfter{Head: base, Detached: true, Layers: []string{}, Masks: []string{}}},
		{"refs/heads/main", edit.StateAfter{Head: edited, Branch: ptr("main"), EntryCount: 1, Layers: []string{"L1"}, Masks: []string{}}},
		{"refs/tags/baseline", edit.StateAfter{Head: base, Detached: true, Layers: []string{}, Masks: []string{}}},
		{"HEAD", edit.StateAfter{Head: base, Detached: true, Layers: []string{}, Masks: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			d := mustCall(t, s, "checkout", map[string]any{"image_id": "harbour", "ref_or_hash": tt.spec})
			if diff := cmp.Diff(tt.want, stateAfter(d)); diff != "" {
				t.Errorf("state_after (-want +got):\n%s", diff)
			}
			if d["snapshot_hash"] != tt.want.Head {
				t.Errorf("snapshot_hash %v, want %s", d["snapshot_hash"], tt.want.Head)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown ref", map[string]any{"image_id": "harbour", "ref_or_hash": "nothing"}, darkroom.NotFound},
		{"unknown hash", map[string]any{"image_id": "harbour", "ref_or_hash": "ffffffff"}, darkroom.NotFound},
		{"unknown image", map[string]any{"image_id": "nope", "ref_or_hash": "main"}, darkroom.NotFound},
		{"ambiguous", map[string]any{"image_id": "harbour", "ref_or_hash": edited[:6]}, darkroom.VersioningError},
		{"bad spec", map[string]any{"image_id": "harbour", "ref_or_hash": "../main"}, darkroom.InvalidInput},
		{"missing spec", map[string]any{"image_id": "harbour"}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "checkout", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

func TestBranch(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	edited := applyEntries(t, s, "harbour", exposure(0.5))
	tests := []struct {
		name string
		args map[string]any
		want edit.StateAfter
	}{
		{"from HEAD", map[string]any{"image_id": "harbour", "name": "moody"},
			edit.StateAfter{Head: edited, Branch: ptr("moody"), EntryCount: 1, Layers: []string{"L1"}, Masks: []string{}}},
		{"from a tag", map[string]any{"image_id": "harbour", "name": "fresh", "from": "baseline"},
			edit.StateAfter{Head: base, Branch: ptr("fresh"), Layers: []string{}, Masks: []string{}}},
		{"from null", map[string]any{"image_id": "harbour", "name": "again", "from": nil},
			edit.StateAfter{Head: base, Branch: ptr("again"), Layers: []string{}, Masks: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "branch", tt.args)
			if diff := cmp.Diff(tt.want, stateAfter(d)); diff != "" {
				t.Errorf("state_after (-want +got):\n%s", diff)
			}
		})
	}
	// Edits now extend the new branch, not main.
	next := applyEntries(t, s, "harbour", exposure(-1))
	refs, err := s.Workspace.History.Refs("harbour")
	if err != nil {
		t.Fatal(err)
	}
	if refs.Branches["again"] != next || refs.Branches["main"] != edited {
		t.Errorf("refs after an edit on the new branch: %v", refs.Branches)
	}

	if _, err := s.Workspace.History.Branch("harbour", base[:5], ""); err != nil {
		t.Fatal(err)
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"branch exists", map[string]any{"image_id": "harbour", "name": "moody"}, darkroom.VersioningError},
		{"a tag has the name", map[string]any{"image_id": "harbour", "name": "baseline"}, darkroom.VersioningError},
		{"ambiguous from", map[string]any{"image_id": "harbour", "name": "x", "from": base[:5]}, darkroom.VersioningError},
		{"unknown from", map[string]any{"image_id": "harbour", "name": "y", "from": "nothing"}, darkroom.NotFound},
		{"unknown image", map[string]any{"image_id": "nope", "name": "z"}, darkroom.NotFound},
		{"bad name", map[string]any{"image_id": "harbour", "name": "Moody"}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "branch", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

func TestTag(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	edited := applyEntries(t, s, "harbour", exposure(0.5))
	tests := []struct {
		name     string
		args     map[string]any
		wantHash string
	}{
		{"HEAD", map[string]any{"image_id": "harbour", "name": "client_pick"}, edited},
		{"a ref", map[string]any{"image_id": "harbour", "name": "original", "hash": "baseline"}, base},
		{"a prefix", map[string]any{"image_id": "harbour", "name": "first", "hash": base[:10]}, base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "tag", tt.args)
			if d["snapshot_hash"] != tt.wantHash {
				t.Errorf("snapshot_hash %v, want the tagged %s", d["snapshot_hash"], tt.wantHash)
			}
			// HEAD does not move.
			want := edit.StateAfter{Head: edited, Branch: ptr("main"), EntryCount: 1, Layers: []string{"L1"}, Masks: []string{}}
			if diff := cmp.Diff(want, stateAfter(d)); diff != "" {
				t.Errorf("state_after (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := s.Workspace.History.Branch("harbour", edited[:5], "baseline"); err != nil {
		t.Fatal(err)
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"tag exists", map[string]any{"image_id": "harbour", "name": "client_pick", "hash": "baseline"}, darkroom.VersioningError},
		{"a branch has the name", map[string]any{"image_id": "harbour", "name": "main"}, darkroom.VersioningError},
		{"ambiguous hash", map[string]any{"image_id": "harbour", "name": "t1", "hash": edited[:5]}, darkroom.VersioningError},
		{"unknown hash", map[string]any{"image_id": "harbour", "name": "t2", "hash": "abcdef12"}, darkroom.NotFound},
		{"unknown image", map[string]any{"image_id": "nope", "name": "t3"}, darkroom.NotFound},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "tag", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

func TestLog(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 64, 48))
	e1 := applyEntries(t, s, "harbour", exposure(0.5))
	mustCall(t, s, "branch", map[string]any{"image_id": "harbour", "name": "moody", "from": "baseline"})
	mustCall(t, s, "tag", map[string]any{"image_id": "harbour", "name": "pick", "hash": "main"})
	mustCall(t, s, "checkout", map[string]any{"image_id": "harbour", "ref_or_hash": "pick"})
	e2 := applyEntries(t, s, "harbour", exposure(1))

	type entry struct {
		Op     string
		Hash   string
		Parent *string
		Branch *string
		Label  *string
	}
	all := []entry{ // newest first
		{"commit", e2, ptr(e1), nil, ptr("apply_primitive")},
		{"checkout", e1, ptr(base), nil, ptr("pick")},
		{"tag", e1, nil, ptr("refs/tags/pick"), nil},
		{"checkout", base, ptr(e1), ptr("moody"), ptr("refs/heads/moody")},
		{"branch", base, nil, ptr("moody"), nil},
		{"commit", e1, ptr(base), ptr("main"), ptr("apply_primitive")},
		{"tag", base, nil, ptr("refs/tags/baseline"), nil},
		{"init", base, nil, ptr("main"), ptr("baseline")},
	}
	tests := []struct {
		name  string
		limit any
		want  []entry
	}{
		{"default", nil, all},
		{"limit", 3, all[:3]},
		{"limit above the count", 500, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"image_id": "harbour"}
			if tt.limit != nil {
				args["limit"] = tt.limit
			}
			d := mustCall(t, s, "log", args)
			if d["head"] != e2 {
				t.Errorf("head %v, want %s", d["head"], e2)
			}
			var got []entry
			for _, x := range d["entries"].([]any) {
				m := x.(map[string]any)
				if _, err := time.Parse(time.RFC3339, m["time"].(string)); err != nil {
					t.Errorf("time %v: %v", m["time"], err)
				}
				str := func(k string) *string {
					if v, ok := m[k].(string); ok {
						return &v
					}
					return nil
				}
				got = append(got, entry{m["op"].(string), m["hash"].(string), str("parent"), str("branch"), str("label")})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope"}, darkroom.NotFound},
		{"limit 0", map[string]any{"image_id": "harbour", "limit": 0}, darkroom.InvalidInput},
		{"limit 501", map[string]any{"image_id": "harbour", "limit": 501}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "log", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

func TestDiff(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	sky := mask(t, s, `{"name": "sky_gradient"}`)
	contrast := history.Entry{Primitive: "contrast", Layer: "L1", Values: map[string]float64{"amount": 0.2}, Strength: 1}
	a := applyEntries(t, s, "harbour", exposure(0.5), contrast)
	// b: exposure changed, contrast removed, a masked exposure added.
	if _, err := s.Mutate("harbour", "apply_primitive", func(st *history.State) error {
		st.Set(exposure(0.8))
		st.Remove("contrast")
		masked := exposure(-0.7)
		masked.Mask = sky
		masked.Strength = 0.5
		st.Set(masked)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b := head(t, s, "harbour").Hash
	if _, err := s.Workspace.History.Branch("harbour", a[:4], ""); err != nil {
		t.Fatal(err)
	}

	var skyJSON any
	json.Unmarshal(sky, &skyJSON)
	entry := func(ev float64, m any, strength float64) map[string]any {
		return map[string]any{"primitive": "exposure", "layer": "L1", "values": map[string]any{"ev": ev}, "mask": m, "strength": strength}
	}
	contrastJSON := map[string]any{"primitive": "contrast", "layer": "L1", "values": map[string]any{"amount": 0.2}, "mask": nil, "strength": 1.0}
	tests := []struct {
		name   string
		a, b   string
		wantA  string
		wantB  string
		add    []any
		remove []any
		change []any
	}{
		{"forward", a, "HEAD", a, b,
			[]any{entry(-0.7, skyJSON, 0.5)},
			[]any{contrastJSON},
			[]any{map[string]any{"old": entry(0.5, nil, 1), "new": entry(0.8, nil, 1)}}},
		{"backward by refs", "main", "baseline", b, "",
			[]any{},
			[]any{entry(0.8, nil, 1), entry(-0.7, skyJSON, 0.5)},
			[]any{}},
		{"same", "HEAD", "main", b, b, []any{}, []any{}, []any{}},
	}
	baseline, _ := s.Workspace.History.Resolve("harbour", "baseline")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "diff", map[string]any{"image_id": "harbour", "hash_a": tt.a, "hash_b": tt.b})
			wantB := tt.wantB
			if wantB == "" {
				wantB = baseline
			}
			want := map[string]any{"image_id": "harbour", "hash_a": tt.wantA, "hash_b": wantB,
				"added": tt.add, "removed": tt.remove, "changed": tt.change}
			if diff := cmp.Diff(want, d); diff != "" {
				t.Errorf("diff (-want +got):\n%s", diff)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown ref", map[string]any{"image_id": "harbour", "hash_a": "nothing", "hash_b": "HEAD"}, darkroom.NotFound},
		{"unknown image", map[string]any{"image_id": "nope", "hash_a": "HEAD", "hash_b": "HEAD"}, darkroom.NotFound},
		{"ambiguous", map[string]any{"image_id": "harbour", "hash_a": "HEAD", "hash_b": a[:4]}, darkroom.VersioningError},
		{"missing hash_b", map[string]any{"image_id": "harbour", "hash_a": "HEAD"}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "diff", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

// The summary says what the data cannot: changed templates and a new order.
func TestDescribeDiff(t *testing.T) {
	d := history.Difference{Reordered: true, Extra: []string{"templates"}}
	got := describeDiff("harbour", strings.Repeat("a", 64), strings.Repeat("b", 64), d)
	want := "harbour: aaaaaaa..bbbbbbb: 0 added, 0 removed, 0 changed; entries reordered; also changed: templates"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
