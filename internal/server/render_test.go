package server

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// decodeFile decodes a written picture and returns its size.
func decodeFile(t *testing.T, path string) (w, h int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := engine.Decode(b, engine.DecodeOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return src.Image.W, src.Image.H
}

// corruptImage adds an image whose source copy is not a photo.
func corruptImage(t *testing.T, s *Server, id string) {
	t.Helper()
	data := testPhoto(t, 64, 48)
	addImage(t, s, id, data[:len(data)/3])
}

func TestRenderPreview(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 300, 200))
	edited := applyEntries(t, s, "harbour", exposure(0.7))
	if _, err := s.Workspace.History.Branch("harbour", edited[:4], "baseline"); err != nil {
		t.Fatal(err)
	}
	corruptImage(t, s, "broken")
	tests := []struct {
		name         string
		args         map[string]any
		hash         string
		w, h         int
		previewName  string
		wantInline   bool
		wantReadback bool
	}{
		{"HEAD at the default size, never above the photo's", map[string]any{"image_id": "harbour"}, edited, 300, 200, edited[:12] + "-1024.jpg", true, true},
		{"sized", map[string]any{"image_id": "harbour", "size": 128}, edited, 128, 85, edited[:12] + "-128.jpg", true, true},
		{"a ref", map[string]any{"image_id": "harbour", "size": 64, "ref_or_hash": "baseline"}, base, 64, 43, base[:12] + "-64.jpg", true, true},
		{"nulls", map[string]any{"image_id": "harbour", "size": nil, "ref_or_hash": nil}, edited, 300, 200, edited[:12] + "-1024.jpg", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "render_preview", tt.args)
			path := filepath.Join(s.Workspace.Root, d["path"].(string))
			want := map[string]any{"image_id": "harbour", "hash": tt.hash, "width": float64(tt.w), "height": float64(tt.h),
				"path": "previews/harbour/" + tt.previewName, "bytes": d["bytes"], "inline": tt.wantInline}
			if diff := cmp.Diff(want, d); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			info, err := os.Stat(path)
			if err != nil || info.Size() != int64(d["bytes"].(float64)) {
				t.Fatalf("preview file: %v, size %v, want %v bytes", err, info, d["bytes"])
			}
			if w, h := decodeFile(t, path); w != tt.w || h != tt.h {
				t.Errorf("file is %dx%d, data says %dx%d", w, h, tt.w, tt.h)
			}
		})
	}
	// Two versions render differently.
	a, _ := os.ReadFile(filepath.Join(s.Workspace.Root, "previews", "harbour", edited[:12]+"-1024.jpg"))
	mustCall(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 1024, "ref_or_hash": "baseline"})
	b, _ := os.ReadFile(filepath.Join(s.Workspace.Root, "previews", "harbour", base[:12]+"-1024.jpg"))
	if bytes.Equal(a, b) {
		t.Error("the edited and the baseline preview are the same file")
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope"}, darkroom.NotFound},
		{"unknown ref", map[string]any{"image_id": "harbour", "ref_or_hash": "nothing"}, darkroom.NotFound},
		{"ambiguous ref", map[string]any{"image_id": "harbour", "ref_or_hash": edited[:4]}, darkroom.VersioningError},
		{"corrupt source copy", map[string]any{"image_id": "broken"}, darkroom.RenderError},
		{"size below the minimum", map[string]any{"image_id": "harbour", "size": 10}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "render_preview", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

// An entry whose vocabulary entry is gone cannot be drawn: render_error, not the
// not_found the agent would read as "no such image".
func TestRenderPreviewUnknownEntry(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 64, 48))
	if _, err := s.Workspace.History.Update("harbour", "old pack", func(st *history.State) error {
		st.Set(history.Entry{Primitive: "removed_entry", Layer: "L3", Values: map[string]float64{}, Strength: 1})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"render_preview", "export_final"} {
		if _, code := call(t, s, tool, map[string]any{"image_id": "harbour"}); code != darkroom.RenderError {
			t.Errorf("%s: code %q, want render_error", tool, code)
		}
	}
}

// A preview after an edit renders from the cached proxy: with the source copy gone
// after the first preview, the next one, of a new state, still renders (a reload
// would fail with render_error), and differs.
func TestRenderPreviewAfterEditUsesProxy(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 300, 200))
	first := mustCall(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 256})
	meta, _, err := s.Workspace.Source("harbour")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Workspace.Root, meta.File)); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []float64{0.5, -0.5, 1} {
		applyEntries(t, s, "harbour", exposure(ev))
		d := mustCall(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 256})
		if d["hash"] == first["hash"] || d["path"] == first["path"] {
			t.Errorf("ev %v: preview %v is the first one's", ev, d["path"])
		}
	}
	// Forgetting the proxy makes the next preview load the source, which is gone.
	s.Workspace.Previews.Forget(meta.SHA256)
	if _, code := call(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 256}); code != darkroom.InternalError {
		t.Errorf("preview without proxy or source: code %q, want internal_error (the source copy is unreadable)", code)
	}
}

// Call adds the picture after the summary when it is at most 1 MiB; Invoke (the
// CLI's path) carries only the data.
func TestRenderContent(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 300, 200))
	noise := image.NewRGBA(image.Rect(0, 0, 1600, 1000))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(r.IntN(256))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, noise, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	addImage(t, s, "noise", buf.Bytes())

	tests := []struct {
		name       string
		tool       string
		args       map[string]any
		wantInline bool
	}{
		{"preview", "render_preview", map[string]any{"image_id": "harbour", "size": 256}, true},
		{"compare", "compare", map[string]any{"image_id": "harbour", "hash_a": "baseline", "hash_b": "main", "size": 128}, true},
		{"preview over 1 MiB", "render_preview", map[string]any{"image_id": "noise", "size": 1600}, false},
		{"export", "export_final", map[string]any{"image_id": "harbour"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.args)
			res := s.Call(context.Background(), tt.tool, raw)
			env := res.StructuredContent.(Envelope)
			if res.IsError {
				t.Fatalf("%s: %+v", tt.tool, env.Error)
			}
			checkOutput(t, s, tt.tool, env)
			b, _ := json.Marshal(env.Data)
			var d struct {
				Path   string `json:"path"`
				Bytes  int    `json:"bytes"`
				Inline bool   `json:"inline"`
			}
			json.Unmarshal(b, &d)
			if d.Inline != tt.wantInline {
				t.Errorf("inline %v, want %v (%d bytes)", d.Inline, tt.wantInline, d.Bytes)
			}
			if _, ok := res.Content[0].(*mcp.TextContent); !ok {
				t.Fatalf("content[0] is %T, want the summary", res.Content[0])
			}
			if text, ok := res.Content[1].(*mcp.TextContent); !ok || text.Text != string(mustJSON(t, env)) {
				t.Fatalf("content[1] is %T %+v, want the envelope as JSON", res.Content[1], res.Content[1])
			}
			// The file is linked as a resource last, with or without the picture.
			link, ok := res.Content[len(res.Content)-1].(*mcp.ResourceLink)
			rel := d.Path // relative to the workspace
			if !ok || link.URI != "darkroom://workspace/"+filepath.ToSlash(rel) || link.MIMEType != "image/jpeg" || link.Size == nil || *link.Size != int64(d.Bytes) {
				t.Fatalf("the last content is %T %+v, want a link to %s", res.Content[len(res.Content)-1], res.Content[len(res.Content)-1], rel)
			}
			if !tt.wantInline {
				if len(res.Content) != 3 {
					t.Errorf("%d content items, want the summary, the envelope and the link", len(res.Content))
				}
				return
			}
			if len(res.Content) != 4 {
				t.Fatalf("%d content items, want the summary, the envelope, the picture and the link", len(res.Content))
			}
			img, ok := res.Content[2].(*mcp.ImageContent)
			if !ok || img.MIMEType != "image/jpeg" {
				t.Fatalf("content[2] is %T %+v, want a JPEG image", res.Content[2], res.Content[2])
			}
			file, _ := os.ReadFile(filepath.Join(s.Workspace.Root, d.Path))
			if !bytes.Equal(img.Data, file) || len(file) != d.Bytes {
				t.Errorf("the inline picture (%d bytes) is not the file (%d bytes, data says %d)", len(img.Data), len(file), d.Bytes)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 300, 200))
	edited := applyEntries(t, s, "harbour", exposure(0.7))
	mustCall(t, s, "branch", map[string]any{"image_id": "harbour", "name": "moody"})
	moody := applyEntries(t, s, "harbour", exposure(-1))
	if _, err := s.Workspace.History.Branch("harbour", edited[:4], "baseline"); err != nil {
		t.Fatal(err)
	}
	corruptImage(t, s, "broken")

	tests := []struct {
		name         string
		args         map[string]any
		hashA, hashB string
		file         string
	}{
		{"branches", map[string]any{"image_id": "harbour", "hash_a": "main", "hash_b": "moody"}, edited, moody,
			"compare-" + edited[:12] + "-" + moody[:12] + "-768.jpg"},
		{"hashes, sized", map[string]any{"image_id": "harbour", "hash_a": base, "hash_b": moody[:8], "size": 128}, base, moody,
			"compare-" + base[:12] + "-" + moody[:12] + "-128.jpg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "compare", tt.args)
			wantPath := "previews/harbour/" + tt.file
			if d["hash_a"] != tt.hashA || d["hash_b"] != tt.hashB || d["path"] != wantPath {
				t.Errorf("got %v, want hashes %s %s and path %s", d, tt.hashA, tt.hashB, wantPath)
			}
			w, h := decodeFile(t, filepath.Join(s.Workspace.Root, wantPath))
			if float64(w) != d["width"] || float64(h) != d["height"] {
				t.Errorf("file is %dx%d, data says %vx%v", w, h, d["width"], d["height"])
			}
			// Side by side: two landscape cells make a sheet wider than tall.
			if w <= h {
				t.Errorf("sheet is %dx%d, want the two versions side by side", w, h)
			}
		})
	}
	if got := edit.VersionLabel(edit.Version{Spec: "main", Hash: edited}); got != "main "+edited[:7] {
		t.Errorf("label %q", got)
	}
	if got := edit.VersionLabel(edit.Version{Spec: edited[:9], Hash: edited}); got != edited[:7] {
		t.Errorf("label of a hash spec %q, want the short hash alone", got)
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope", "hash_a": "HEAD", "hash_b": "main"}, darkroom.NotFound},
		{"unknown ref", map[string]any{"image_id": "harbour", "hash_a": "HEAD", "hash_b": "nothing"}, darkroom.NotFound},
		{"ambiguous ref", map[string]any{"image_id": "harbour", "hash_a": edited[:4], "hash_b": "main"}, darkroom.VersioningError},
		{"corrupt source copy", map[string]any{"image_id": "broken", "hash_a": "HEAD", "hash_b": "baseline"}, darkroom.RenderError},
		{"size above the maximum", map[string]any{"image_id": "harbour", "hash_a": "HEAD", "hash_b": "main", "size": 4096}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "compare", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
}

func TestExportFinal(t *testing.T) {
	s := editServer(t)
	base := addImage(t, s, "harbour", testPhoto(t, 300, 200))
	edited := applyEntries(t, s, "harbour", exposure(0.7))
	if _, err := s.Workspace.History.Branch("harbour", edited[:4], "baseline"); err != nil {
		t.Fatal(err)
	}
	corruptImage(t, s, "broken")

	tests := []struct {
		name   string
		args   map[string]any
		hash   string
		file   string
		format string
		w, h   int
	}{
		{"jpeg at HEAD", map[string]any{"image_id": "harbour"}, edited, "harbour-" + edited[:12] + ".jpg", "jpeg", 300, 200},
		{"png of a ref", map[string]any{"image_id": "harbour", "format": "png", "ref_or_hash": "baseline"}, base, "harbour-" + base[:12] + ".png", "png", 300, 200},
		{"tiff, sized", map[string]any{"image_id": "harbour", "format": "tiff", "size": 150}, edited, "harbour-" + edited[:12] + "-150.tiff", "tiff", 150, 100},
		{"jpeg, quality", map[string]any{"image_id": "harbour", "quality": 40, "size": 100}, edited, "harbour-" + edited[:12] + "-100.jpg", "jpeg", 100, 67},
		{"size above the photo's", map[string]any{"image_id": "harbour", "format": "png", "size": 4000}, edited, "harbour-" + edited[:12] + "-4000.png", "png", 300, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCall(t, s, "export_final", tt.args)
			path := filepath.Join(s.Workspace.Root, "exports", "harbour", tt.file)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"image_id": "harbour", "hash": tt.hash, "path": "exports/harbour/" + tt.file,
				"width": float64(tt.w), "height": float64(tt.h), "bytes": float64(info.Size()), "inline": false}
			if diff := cmp.Diff(want, d); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			b, _ := os.ReadFile(path)
			src, err := engine.Decode(b, engine.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if src.Format != tt.format || src.Image.W != tt.w || src.Image.H != tt.h {
				t.Errorf("file is %s %dx%d", src.Format, src.Image.W, src.Image.H)
			}
		})
	}
	// No temporary file is left beside the exports.
	des, _ := os.ReadDir(filepath.Join(s.Workspace.Root, "exports", "harbour"))
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			t.Errorf("left behind: %s", de.Name())
		}
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown image", map[string]any{"image_id": "nope"}, darkroom.NotFound},
		{"unknown ref", map[string]any{"image_id": "harbour", "ref_or_hash": "nothing"}, darkroom.NotFound},
		{"ambiguous ref", map[string]any{"image_id": "harbour", "ref_or_hash": edited[:4]}, darkroom.VersioningError},
		{"corrupt source copy", map[string]any{"image_id": "broken"}, darkroom.RenderError},
		{"unknown format", map[string]any{"image_id": "harbour", "format": "gif"}, darkroom.InvalidInput},
		{"quality 0", map[string]any{"image_id": "harbour", "quality": 0}, darkroom.InvalidInput},
	}
	for _, tt := range errs {
		if _, code := call(t, s, "export_final", tt.args); code != tt.want {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.want)
		}
	}
	// A failed export leaves nothing under the exports.
	des, _ = os.ReadDir(filepath.Join(s.Workspace.Root, "exports", "broken"))
	if len(des) != 0 {
		t.Errorf("a failed export left %d files", len(des))
	}
}

// Through the SDK's client: export_final of a large photo with a progress token
// sends 0 rows as it starts decoding, then the rows rendered after each strip,
// increasing, to all of them; render_preview of a photo whose proxy is not cached
// sends the rows of its decode likewise. Without a token, a call just answers.
func TestRenderProgress(t *testing.T) {
	s := editServer(t)
	const w, h = 2400, 1600 // an export of strips of about 145 rows
	addImage(t, s, "harbour", testPhoto(t, w, h))
	applyEntries(t, s, "harbour", exposure(0.3))
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var (
		mu   sync.Mutex
		got  = map[string][]mcp.ProgressNotificationParams{}
		last = make(chan string, 4)
	)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			tok, _ := req.Params.ProgressToken.(string)
			got[tok] = append(got[tok], *req.Params)
			if req.Params.Total > 0 && req.Params.Progress == req.Params.Total {
				last <- tok
			}
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// Without a token first: no notification may carry anything but the tokens below.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_final", Arguments: map[string]any{"image_id": "harbour", "size": 64, "format": "png"}})
	if err != nil || res.IsError {
		t.Fatalf("export without a token: %v %+v", err, res)
	}
	for _, call := range []struct{ token, tool string }{{"preview-1", "render_preview"}, {"export-1", "export_final"}} {
		params := &mcp.CallToolParams{Name: call.tool, Arguments: map[string]any{"image_id": "harbour"}}
		params.SetProgressToken(call.token)
		res, err = cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", call.tool, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env Envelope
		json.Unmarshal(b, &env)
		checkOutput(t, s, call.tool, env)
		// The handler may run after the reply arrives; the test deadline bounds this.
		if tok := <-last; tok != call.token {
			t.Fatalf("the last rows of %s came with token %q", call.token, tok)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Errorf("progress came with tokens %v", slices.Sorted(maps.Keys(got)))
	}
	for tok, first := range map[string]string{"export-1": "decode", "preview-1": ""} {
		notes := got[tok]
		// Notifications are handled as they come, not necessarily in order.
		sort.Slice(notes, func(i, j int) bool { return notes[i].Progress < notes[j].Progress })
		if len(notes) < 5 {
			t.Fatalf("%s: %d notifications, want several: %+v", tok, len(notes), notes)
		}
		t.Logf("%s: %d notifications", tok, len(notes))
		if first != "" && (notes[0].Progress != 0 || notes[0].Message != first) {
			t.Errorf("%s: the first notification is %+v, want 0 rows, %s", tok, notes[0], first)
		}
		end := notes[len(notes)-1]
		if end.Total != h || end.Progress != h {
			t.Errorf("%s: the last notification is %+v, want %d of %d rows", tok, end, h, h)
		}
		for i := 1; i < len(notes); i++ {
			if notes[i].Progress == notes[i-1].Progress || notes[i].Total != h && notes[i].Total != 0 {
				t.Fatalf("%s: notifications %+v and %+v", tok, notes[i-1], notes[i])
			}
		}
	}
}

// A masked edit renders where its mask is: the sky gradient darkens the top of the
// frame against the bottom.
func TestRenderMaskedEdit(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 300, 200))
	plain := mustCall(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 128})
	e := exposure(-2)
	e.Mask = mask(t, s, `{"name": "sky_gradient"}`)
	applyEntries(t, s, "harbour", e)
	masked := mustCall(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 128})
	top := func(path string) (r float64) {
		b, _ := os.ReadFile(filepath.Join(s.Workspace.Root, path))
		m, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		bottom := color.GrayModel.Convert(m.At(64, 80)).(color.Gray).Y
		return float64(color.GrayModel.Convert(m.At(64, 2)).(color.Gray).Y) - float64(bottom)
	}
	if top(masked["path"].(string)) >= top(plain["path"].(string)) {
		t.Error("a sky-gradient exposure of -2 did not darken the top relative to the bottom")
	}
}
