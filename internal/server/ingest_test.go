package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// Fixtures of the ingest and edit tests: a server over a fresh workspace whose one
// allowed root holds photos, every call made through Invoke (the path MCP and the CLI
// share) and every result checked against the tool's advertised outputSchema.

var edShared struct {
	once    sync.Once
	c       *contract.Contract
	v       *vocab.Vocabulary
	schemas map[string]*jsonschema.Resolved
	err     error
}

// edContract loads the contract, the built-in vocabulary and the tools' output
// schemas once for all tests.
func edContract(t testing.TB) (*contract.Contract, *vocab.Vocabulary, map[string]*jsonschema.Resolved) {
	t.Helper()
	edShared.once.Do(func() {
		c, v := packtest.Builtin(t)
		schemas := map[string]*jsonschema.Resolved{}
		for _, tool := range c.Tools {
			b, _ := json.Marshal(tool.OutputSchema)
			var sch jsonschema.Schema
			if err := json.Unmarshal(b, &sch); err != nil {
				edShared.err = err
				return
			}
			r, err := sch.Resolve(nil)
			if err != nil {
				edShared.err = err
				return
			}
			schemas[tool.Name] = r
		}
		edShared.c, edShared.v, edShared.schemas = c, v, schemas
	})
	if edShared.err != nil {
		t.Fatal(edShared.err)
	}
	return edShared.c, edShared.v, edShared.schemas
}

type edFixture struct {
	t       testing.TB
	s       *Server
	photos  string // the allowed root
	schemas map[string]*jsonschema.Resolved
}

// edPhotos are copied into every fixture's allowed root.
var edPhotos = map[string]string{
	"coffee.png":         "../../samples/coffee.png",
	"chelsea.png":        "../engine/testdata/chelsea.png",
	"rocket-orient6.jpg": "../engine/testdata/rocket-orient6.jpg",
	"adobergb.jpg":       "../engine/testdata/io/adobergb.jpg",
	"huge-header.png":    "../engine/testdata/io/huge-header.png",
	"truncated.jpg":      "../engine/testdata/io/truncated.jpg",
}

func newEdFixture(t testing.TB) *edFixture {
	t.Helper()
	c, v, schemas := edContract(t)
	s, err := New(c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	photos := filepath.Join(t.TempDir(), "photos")
	if err := os.MkdirAll(photos, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range edPhotos {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(photos, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(photos, "notes.txt"), []byte("not a photo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(filepath.Join(t.TempDir(), "ws"), []string{photos})
	if err != nil {
		t.Fatal(err)
	}
	s.Workspace = ws
	return &edFixture{t: t, s: s, photos: photos, schemas: schemas}
}

// sub returns the fixture for a subtest, so its failures stop the subtest.
func (f *edFixture) sub(t testing.TB) *edFixture {
	g := *f
	g.t = t
	return &g
}

// call invokes a tool and checks the envelope against its outputSchema; it returns the
// envelope re-read as JSON values, as a client sees it.
func (f *edFixture) call(tool string, args any) map[string]any {
	f.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	env, _ := f.s.Invoke(context.Background(), tool, raw)
	b, err := json.Marshal(env)
	if err != nil {
		f.t.Fatalf("%s: envelope does not encode: %v", tool, err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		f.t.Fatal(err)
	}
	if err := f.schemas[tool].Validate(out); err != nil {
		f.t.Errorf("%s %s: result does not satisfy the outputSchema: %v\n%s", tool, raw, err, b)
	}
	return out
}

// ok calls a tool that must succeed and returns its data.
func (f *edFixture) ok(tool string, args any) map[string]any {
	f.t.Helper()
	out := f.call(tool, args)
	if out["success"] != true {
		f.t.Fatalf("%s %v: %v", tool, args, out["error"])
	}
	return out["data"].(map[string]any)
}

// fail calls a tool that must fail with code and returns the error.
func (f *edFixture) fail(tool string, args any, code string) map[string]any {
	f.t.Helper()
	out := f.call(tool, args)
	if out["success"] != false {
		f.t.Fatalf("%s succeeded, want %s: %v", tool, code, out["data"])
	}
	e := out["error"].(map[string]any)
	if e["code"] != code {
		f.t.Fatalf("%s: error %s %q, want %s", tool, e["code"], e["message"], code)
	}
	return e
}

// ingest ingests a photo of the allowed root as id.
func (f *edFixture) ingest(name, id string) map[string]any {
	f.t.Helper()
	return f.ok("ingest", map[string]any{"path": filepath.Join(f.photos, name), "image_id": id})
}

func (f *edFixture) state(id string) history.State {
	f.t.Helper()
	_, st, err := f.s.StateAfter(id)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *edFixture) head(id string) string {
	f.t.Helper()
	h, err := f.s.Workspace.History.Head(id)
	if err != nil {
		f.t.Fatal(err)
	}
	return h.Hash
}

// writePhoto encodes img as a 16-bit PNG into the allowed root.
func (f *edFixture) writePhoto(name string, img *engine.Image) string {
	f.t.Helper()
	var buf bytes.Buffer
	if err := engine.Encode(&buf, img, engine.EncodeOptions{Format: "png", Depth: 16}); err != nil {
		f.t.Fatal(err)
	}
	p := filepath.Join(f.photos, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func flatPhoto(w, h int, r, g, b float32) *engine.Image {
	m := engine.NewImage(w, h)
	for p := range w * h {
		m.Pix[3*p], m.Pix[3*p+1], m.Pix[3*p+2] = r, g, b
	}
	return m
}

func TestIngest(t *testing.T) {
	f := newEdFixture(t)
	t.Chdir(f.photos) // for the relative path
	coffee, err := os.ReadFile(filepath.Join(f.photos, "coffee.png"))
	if err != nil {
		t.Fatal(err)
	}
	type exif struct {
		Make, Model, Lens any
		Focal             any
		Orientation       float64
	}
	tests := []struct {
		name          string
		args          map[string]any
		id            string
		width, height float64
		format        string
		exif          exif
		warnings      bool
	}{
		{"path with id", map[string]any{"path": filepath.Join(f.photos, "coffee.png"), "image_id": "cup"}, "cup", 600, 400, "png", exif{Orientation: 1}, false},
		{"id from the file name", map[string]any{"path": filepath.Join(f.photos, "rocket-orient6.jpg")}, "rocket-orient6", 427, 640, "jpeg",
			exif{Make: "Example", Model: "Orientation Test", Orientation: 6}, true},
		{"relative to the working directory", map[string]any{"path": "chelsea.png", "image_id": nil}, "chelsea", 451, 300, "png", exif{Orientation: 1}, false},
		{"colour profile warning", map[string]any{"path": filepath.Join(f.photos, "adobergb.jpg"), "image_id": "adobe"}, "adobe", 112, 75, "jpeg", exif{Orientation: 1}, true},
		{"base64", map[string]any{"image_b64": base64.StdEncoding.EncodeToString(coffee), "image_id": "b64"}, "b64", 600, 400, "png", exif{Orientation: 1}, false},
		{"base64 data URL without padding", map[string]any{"image_b64": "data:image/png;base64," + base64.RawStdEncoding.EncodeToString(coffee), "image_id": "dataurl"}, "dataurl", 600, 400, "png", exif{Orientation: 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			d := f.ok("ingest", tc.args)
			e := d["exif"].(map[string]any)
			got := exif{e["make"], e["model"], e["lens"], e["focal_length"], e["orientation"].(float64)}
			if diff := cmp.Diff(tc.exif, got); diff != "" {
				t.Errorf("exif (-want +got):\n%s", diff)
			}
			want := map[string]any{"image_id": tc.id, "width": tc.width, "height": tc.height, "format": tc.format}
			gotTop := map[string]any{"image_id": d["image_id"], "width": d["width"], "height": d["height"], "format": d["format"]}
			if diff := cmp.Diff(want, gotTop); diff != "" {
				t.Errorf("ingest data (-want +got):\n%s", diff)
			}
			if w := d["warnings"].([]any); (len(w) > 0) != tc.warnings {
				t.Errorf("warnings %v, want some: %v", w, tc.warnings)
			}
			// The baseline: an empty state on main, tagged baseline, and the source
			// copied under the workspace.
			sa := d["state_after"].(map[string]any)
			if diff := cmp.Diff(map[string]any{"head": d["snapshot_hash"], "branch": "main", "detached": false, "entry_count": 0.0, "layers": []any{}, "masks": []any{}}, sa); diff != "" {
				t.Errorf("state_after (-want +got):\n%s", diff)
			}
			refs, err := f.s.Workspace.History.Refs(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if refs.Tags["baseline"] != d["snapshot_hash"] {
				t.Errorf("tags %v: baseline is not the snapshot %v", refs.Tags, d["snapshot_hash"])
			}
			meta, load, err := f.s.Workspace.Source(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := load(); err != nil || meta.Format != tc.format || len(b) == 0 {
				t.Errorf("source copy %s: %d bytes, format %s, error %v", meta.File, len(b), meta.Format, err)
			}
		})
	}
	// The copy is the photo as it was: changing the original changes nothing.
	if err := os.WriteFile(filepath.Join(f.photos, "coffee.png"), []byte("overwritten"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, load, _ := f.s.Workspace.Source("cup")
	if b, _ := load(); !bytes.Equal(b, coffee) {
		t.Error("the source copy changed with the original")
	}
	// A base64 upload without an id is named by its content, so uploading the same
	// photo twice is refused.
	chelsea, _ := os.ReadFile(filepath.Join(f.photos, "chelsea.png"))
	up := map[string]any{"image_b64": base64.StdEncoding.EncodeToString(chelsea)}
	if id := f.ok("ingest", up)["image_id"].(string); !strings.HasPrefix(id, "img-") || len(id) != 16 {
		t.Errorf("image id of an upload: %q", id)
	}
	f.fail("ingest", up, darkroom.VersioningError)
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIngestErrors(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	outside := filepath.Join(t.TempDir(), "outside.png")
	b, _ := os.ReadFile(filepath.Join(f.photos, "coffee.png"))
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.photos, "link-out.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.photos, "coffee.png"), filepath.Join(f.photos, "link-in.png")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"neither path nor image_b64", map[string]any{"image_id": "x"}, darkroom.InvalidInput, "exactly one of path or image_b64"},
		{"both path and image_b64", map[string]any{"path": filepath.Join(f.photos, "coffee.png"), "image_b64": "AAAA"}, darkroom.InvalidInput, "exactly one"},
		{"bad base64", map[string]any{"image_b64": "not base64!"}, darkroom.InvalidInput, "not valid base64"},
		{"bad image_id", map[string]any{"path": filepath.Join(f.photos, "coffee.png"), "image_id": "Cup Two"}, darkroom.InvalidInput, "image_id"},
		{"missing file", map[string]any{"path": filepath.Join(f.photos, "nothing.png")}, darkroom.NotFound, "nothing.png"},
		{"dot dot", map[string]any{"path": f.photos + "/../photos/coffee.png", "image_id": "dotdot"}, darkroom.PermissionError, ".. is not allowed"},
		{"relative dot dot", map[string]any{"path": "../../samples/coffee.png", "image_id": "dotdot"}, darkroom.PermissionError, ".. is not allowed"},
		{"absolute path outside", map[string]any{"path": outside}, darkroom.PermissionError, "outside the allowed roots"},
		{"symlink out", map[string]any{"path": filepath.Join(f.photos, "link-out.png")}, darkroom.PermissionError, "symbolic link"},
		{"decompression bomb", map[string]any{"path": filepath.Join(f.photos, "huge-header.png")}, darkroom.LimitExceeded, "100000"},
		{"not a photo", map[string]any{"path": filepath.Join(f.photos, "notes.txt")}, darkroom.RenderError, "not a photo darkroom can decode"},
		{"truncated photo", map[string]any{"path": filepath.Join(f.photos, "truncated.jpg")}, darkroom.RenderError, "truncated"},
		{"existing image_id", map[string]any{"path": filepath.Join(f.photos, "chelsea.png"), "image_id": "cup"}, darkroom.VersioningError, "cup already exists"},
		{"existing id from the file name", map[string]any{"path": filepath.Join(f.photos, "link-in.png"), "image_id": "cup"}, darkroom.VersioningError, "already exists"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			e := f.fail("ingest", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
		})
	}
	// Nothing failed left an image behind; a symlink inside the root is fine.
	ids, err := f.s.Workspace.History.ListImages()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"cup"}, ids); diff != "" {
		t.Errorf("images after the failures (-want +got):\n%s", diff)
	}
	f.ingest("link-in.png", "linked")
}

// image_b64 is bounded from its encoded length before anything is decoded. Over MCP
// the contract's 1 MiB bound on a call's arguments refuses a payload this large
// first, so the bound is tested here, on the decoder itself.
func TestDecodeImageB64(t *testing.T) {
	want := []byte("\x89PNG and some bytes")
	enc := base64.StdEncoding.EncodeToString(want)
	for name, in := range map[string]string{
		"padded":     enc,
		"unpadded":   strings.TrimRight(enc, "="),
		"data URL":   "data:image/png;base64," + enc,
		"line break": enc[:8] + "\r\n" + enc[8:],
	} {
		got, err := edit.DecodeImageB64(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	over := strings.Repeat("A", base64.StdEncoding.EncodedLen(workspace.MaxImageB64Bytes)+4)
	if _, err := edit.DecodeImageB64(over); darkroom.Code(err) != darkroom.LimitExceeded {
		t.Errorf("payload over %d bytes: %v, want limit_exceeded", workspace.MaxImageB64Bytes, err)
	}
	if _, err := edit.DecodeImageB64("a!b"); darkroom.Code(err) != darkroom.InvalidInput {
		t.Errorf("bad base64: %v, want invalid_input", err)
	}
}

func TestImageIDFromName(t *testing.T) {
	for name, want := range map[string]string{
		"Harbour.JPG":          "Harbour",
		"IMG_1234.CR2":         "IMG_1234",
		"DSC 0042 (edit).tiff": "DSC_0042_edit",
		"0F8FAD5B-D9CB-469F-A165-70867728950E.jpeg": "0F8FAD5B-D9CB-469F-A165-70867728950E",
		"-_weird--name__.png":                       "weird--name",
		"été.jpg":                                   "t",
		"....png":                                   "image",
		strings.Repeat("a", 80):                     strings.Repeat("a", 64),
		"photo.final.version.jpg":                   "photo_final_version",
	} {
		if got := edit.ImageIDFromName(name); got != want {
			t.Errorf("edit.ImageIDFromName(%q) = %q, want %q", name, got, want)
		}
	}
}

// ingest suggests an L1 template for a photo that looks under- or overexposed and
// none for one that looks fine; never an L2 look.
func TestIngestSuggestsTemplates(t *testing.T) {
	f := newEdFixture(t)
	tests := map[string]struct {
		img  *engine.Image
		want any
	}{
		"dark":   {flatPhoto(64, 48, 0.01, 0.01, 0.01), "lift_underexposed"},
		"bright": {flatPhoto(64, 48, 0.85, 0.85, 0.85), "recover_overexposed"},
		"mid":    {flatPhoto(64, 48, 0.18, 0.18, 0.18), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := f.sub(t)
			f.writePhoto(name+".png", tc.img)
			d := f.ingest(name+".png", name)
			want := map[string]any{"l1_template": tc.want, "l2_template": nil}
			if diff := cmp.Diff(want, d["suggested"]); diff != "" {
				t.Errorf("suggested (-want +got):\n%s", diff)
			}
		})
	}
	d := f.ingest("coffee.png", "cup")
	t.Logf("coffee.png suggests %v", d["suggested"])
}

func TestGetState(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "exposure", "value": 0.5})
	f.ok("apply_primitive", map[string]any{"image_id": "cup", "primitive_name": "highlights", "value": -0.3, "mask_spec": map[string]any{"name": "sky_gradient"}, "strength": 0.5})
	f.ok("bind_layers", map[string]any{"image_id": "cup", "l2_template": "golden_hour"})
	d := f.ok("get_state", map[string]any{"image_id": "cup"})
	want := map[string]any{
		"image_id": "cup",
		"entries": []any{
			map[string]any{"primitive": "exposure", "layer": "L1", "values": map[string]any{"ev": 0.5}, "mask": nil, "strength": 1.0},
			map[string]any{"primitive": "highlights", "layer": "L1", "values": map[string]any{"amount": -0.3},
				"mask": map[string]any{"name": "sky_gradient", "invert": false}, "strength": 0.5},
		},
		"templates": map[string]any{"l1_template": nil, "l2_template": "golden_hour"},
		"width":     600.0, "height": 400.0,
	}
	sa := d["state_after"].(map[string]any)
	delete(d, "state_after")
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("get_state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"head": f.head("cup"), "branch": "main", "detached": false, "entry_count": 2.0,
		"layers": []any{"L1", "L2"}, "masks": []any{"sky_gradient"}}, sa); diff != "" {
		t.Errorf("state_after (-want +got):\n%s", diff)
	}

	f.fail("get_state", map[string]any{"image_id": "nope"}, darkroom.NotFound)
	f.fail("get_state", map[string]any{"image_id": "Not An Id"}, darkroom.InvalidInput)
	f.fail("get_state", map[string]any{}, darkroom.InvalidInput)
}

func TestBindLayers(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	steps := []struct {
		args map[string]any
		want edit.Templates
	}{
		{map[string]any{"l1_template": "lift_underexposed"}, edit.Templates{L1: "lift_underexposed"}},
		{map[string]any{"l2_template": "film_noir", "l1_template": nil}, edit.Templates{L1: "lift_underexposed", L2: "film_noir"}},
		{map[string]any{"l1_template": "recover_overexposed", "l2_template": "golden_hour"}, edit.Templates{L1: "recover_overexposed", L2: "golden_hour"}},
		// Binding the same again is idempotent: the same state, so the same hash.
		{map[string]any{"l2_template": "golden_hour"}, edit.Templates{L1: "recover_overexposed", L2: "golden_hour"}},
	}
	var prev string
	for i, st := range steps {
		st.args["image_id"] = "cup"
		d := f.ok("bind_layers", st.args)
		got, err := edit.StateTemplates(f.state("cup"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("step %d: templates (-want +got):\n%s", i, diff)
		}
		if i == len(steps)-1 && d["snapshot_hash"] != prev {
			t.Errorf("binding the same templates again changed the snapshot: %v -> %v", prev, d["snapshot_hash"])
		}
		prev = d["snapshot_hash"].(string)
	}
	// The templates render: an L1 template at its defaults brightens or darkens.
	edits, err := f.s.Edits(f.state("cup"))
	if err != nil || len(edits) == 0 {
		t.Fatalf("edits of the bound templates: %v, %v", edits, err)
	}

	errs := []struct {
		name string
		args map[string]any
		code string
		msg  string
	}{
		{"nothing to bind", map[string]any{"image_id": "cup"}, darkroom.InvalidInput, "give l1_template, l2_template or both"},
		{"L2 entry as L1", map[string]any{"image_id": "cup", "l1_template": "film_noir"}, darkroom.InvalidInput, "film_noir is an L2 entry"},
		{"L1 entry as L2", map[string]any{"image_id": "cup", "l2_template": "exposure"}, darkroom.InvalidInput, "an L2 template must be an L2 entry"},
		{"unknown entry", map[string]any{"image_id": "cup", "l2_template": "golden_hours"}, darkroom.NotFound, "did you mean golden_hour"},
		{"unknown image", map[string]any{"image_id": "nope", "l2_template": "golden_hour"}, darkroom.NotFound, "nope"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			f := f.sub(t)
			before := f.head("cup")
			e := f.fail("bind_layers", tc.args, tc.code)
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not say %q", e["message"], tc.msg)
			}
			if after := f.head("cup"); after != before {
				t.Errorf("a failed bind_layers moved HEAD")
			}
		})
	}
	// An image whose files are damaged is a state_error.
	if err := os.WriteFile(filepath.Join(f.s.Workspace.Root, "images", "cup", "HEAD"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.fail("bind_layers", map[string]any{"image_id": "cup", "l2_template": "film_noir"}, darkroom.StateError)
}

// A handler's panic is internal_error, whatever the tool: every tool of this group
// declares it.
func TestEditToolsInternalError(t *testing.T) {
	f := newEdFixture(t)
	f.ingest("coffee.png", "cup")
	f.ingest("chelsea.png", "cat")
	for tool, args := range map[string]map[string]any{
		"ingest":            {"path": filepath.Join(f.photos, "coffee.png"), "image_id": "cup2"},
		"get_state":         {"image_id": "cup"},
		"bind_layers":       {"image_id": "cup", "l2_template": "film_noir"},
		"apply_primitive":   {"image_id": "cup", "primitive_name": "exposure"},
		"apply_per_region":  {"image_id": "cup", "primitive_name": "exposure", "regions": []any{map[string]any{"mask_spec": map[string]any{"name": "sky_gradient"}}}},
		"apply_spot":        {"image_id": "cup", "kind": "heal", "x": 0.5, "y": 0.5, "radius": 0.02},
		"wb_from_gray_card": {"image_id": "cup", "x": 0.5, "y": 0.5},
		"remove_module":     {"image_id": "cup", "module_name": "exposure"},
		"reset":             {"image_id": "cup"},
		"propagate_state":   {"source_image_id": "cup", "target_image_ids": []any{"cat"}},
	} {
		t.Run(tool, func(t *testing.T) {
			f := f.sub(t)
			WithFault(tool, "the test")(f.s)
			defer WithFault("", "")(f.s)
			e := f.fail(tool, args, darkroom.InternalError)
			if e["recoverable"] != false {
				t.Errorf("internal_error is recoverable: %v", e)
			}
		})
	}
}
