package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/image/tiff"

	"darkroom"
	"darkroom/internal/engine"
)

// The render tools: render_preview and compare draw from the cached proxy and show
// the agent the picture; export_final renders the source at full resolution.

func init() {
	register("render_preview", renderPreview)
	register("compare", compareTool)
	register("export_final", exportFinal)
}

const (
	// previewQuality is the JPEG quality of previews and comparisons: small enough to
	// inline, good enough to judge colour and tone.
	previewQuality = 88
	// maxInlineBytes caps the picture carried in a result's content.
	maxInlineBytes = 1 << 20
	// exportStages are decode, render, encode and write.
	exportStages = 4
)

// picture is a rendered JPEG that a result also shows as MCP image content, when it
// is small enough; it adds nothing to the JSON.
type picture struct{ jpeg []byte }

func newPicture(b []byte) (picture, bool) {
	if len(b) > maxInlineBytes {
		return picture{}, false
	}
	return picture{b}, true
}

// Content implements contentCarrier.
func (p picture) Content() []mcp.Content {
	if p.jpeg == nil {
		return nil
	}
	return []mcp.Content{&mcp.ImageContent{Data: p.jpeg, MIMEType: "image/jpeg"}}
}

// renderData is the #RenderData of the contract.
type renderData struct {
	ImageID string `json:"image_id"`
	Hash    string `json:"hash"`
	Path    string `json:"path"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Bytes   int64  `json:"bytes"`
	Inline  bool   `json:"inline"`
	picture
}

// linkedFile implements fileCarrier: previews and exports are linked as resources.
func (d *renderData) linkedFile() (string, int64) { return d.Path, d.Bytes }

// linkedFile implements fileCarrier.
func (d *compareData) linkedFile() (string, int64) { return d.Path, d.Bytes }

// compareData is the #CompareData of the contract.
type compareData struct {
	ImageID string `json:"image_id"`
	HashA   string `json:"hash_a"`
	HashB   string `json:"hash_b"`
	Path    string `json:"path"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Bytes   int64  `json:"bytes"`
	Inline  bool   `json:"inline"`
	picture
}

// renderFailure reports why a version cannot be drawn. A failure of the version
// itself is a render_error to the agent: a corrupt source copy (the decoder's
// invalid_input), an entry whose pack is gone (not_found), a mask that no longer
// resolves. A failure of the server's resources keeps its own code, since it says
// what to do: limit_exceeded (the decode budget: retry later), permission_error and
// unavailable (the workspace), and an internal error stays one.
func renderFailure(err error, format string, args ...any) error {
	if resourceFailure(err) {
		return err
	}
	e := darkroom.Wrap(darkroom.RenderError, err, format, args...)
	var de *darkroom.Error
	if errors.As(err, &de) && de.Details != nil {
		e.Details = de.Details
	}
	return e
}

// resourceFailure says err is about the server's resources (memory, the workspace's
// disk and permissions) or a bug, not about what was asked: wrapping it in a
// tool-specific code would hide what the client can do about it.
func resourceFailure(err error) bool {
	switch darkroom.Code(err) {
	case darkroom.LimitExceeded, darkroom.PermissionError, darkroom.Unavailable, darkroom.InternalError:
		return true
	}
	return false
}

// renderVersion is one resolved version of an image, ready to render.
type renderVersion struct {
	spec  string
	hash  string
	edits []engine.Edit
}

// resolveVersion resolves spec (HEAD when empty) and turns its state into engine
// edits.
func (s *Server) resolveVersion(ws *Workspace, id, spec string) (renderVersion, error) {
	if spec == "" {
		spec = "HEAD"
	}
	hash, st, err := resolveSpec(ws, id, spec)
	if err != nil {
		return renderVersion{}, err
	}
	edits, err := s.Edits(st)
	if err != nil {
		return renderVersion{}, renderFailure(err, "image %s at %s", id, abbrev(hash))
	}
	return renderVersion{spec: spec, hash: hash, edits: edits}, nil
}

// checkedInt reads an integer argument the contract checked; ok is false when it is
// absent or null.
func checkedInt(args map[string]any, name string) (n int, ok bool) {
	f, ok := args[name].(float64)
	return int(f), ok
}

func renderPreview(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	size, _ := checkedInt(args, "size") // the contract fills the default
	meta, load, err := ws.Source(id)
	if err != nil {
		return nil, "", err
	}
	v, err := s.resolveVersion(ws, id, stringArg(args, "ref_or_hash"))
	if err != nil {
		return nil, "", err
	}
	img, err := ws.Previews.Preview(engine.PreviewRequest{Key: meta.SHA256, Load: load, Edits: v.edits, LongEdge: size})
	if err != nil {
		return nil, "", renderFailure(err, "preview of %s at %s", id, abbrev(v.hash))
	}
	path, b, err := writePreview(ws, id, fmt.Sprintf("%s-%d.jpg", v.hash[:12], size), img)
	if err != nil {
		return nil, "", err
	}
	pic, inline := newPicture(b)
	d := &renderData{ImageID: id, Hash: v.hash, Path: path, Width: img.W, Height: img.H, Bytes: int64(len(b)), Inline: inline, picture: pic}
	return d, fmt.Sprintf("preview of %s at %s: %dx%d, %s, %s%s", id, abbrev(v.hash), img.W, img.H, humanBytes(d.Bytes), path, inlineNote(inline)), nil
}

func compareTool(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	size, _ := checkedInt(args, "size")
	meta, load, err := ws.Source(id)
	if err != nil {
		return nil, "", err
	}
	a, err := s.resolveVersion(ws, id, stringArg(args, "hash_a"))
	if err != nil {
		return nil, "", err
	}
	b, err := s.resolveVersion(ws, id, stringArg(args, "hash_b"))
	if err != nil {
		return nil, "", err
	}
	proxy, err := ws.Previews.Proxy(meta.SHA256, load)
	if err != nil {
		return nil, "", renderFailure(err, "compare %s", id)
	}
	// Like a preview, a cell is never larger than the photo.
	cell := max(16, min(size, max(proxy.Width, proxy.Height)))
	sheet, err := engine.ContactSheet(proxy.Image, []engine.Panel{
		{Label: versionLabel(a), Edits: a.edits},
		{Label: versionLabel(b), Edits: b.edits},
	}, cell)
	if err != nil {
		return nil, "", renderFailure(err, "compare %s", id)
	}
	path, jb, err := writePreview(ws, id, fmt.Sprintf("compare-%s-%s-%d.jpg", a.hash[:12], b.hash[:12], size), sheet)
	if err != nil {
		return nil, "", err
	}
	pic, inline := newPicture(jb)
	d := &compareData{ImageID: id, HashA: a.hash, HashB: b.hash, Path: path, Width: sheet.W, Height: sheet.H, Bytes: int64(len(jb)), Inline: inline, picture: pic}
	return d, fmt.Sprintf("%s: %s | %s side by side, %dx%d, %s, %s%s", id, versionLabel(a), versionLabel(b), sheet.W, sheet.H, humanBytes(d.Bytes), path, inlineNote(inline)), nil
}

// versionLabel names a version under its picture: the spec as the agent gave it and
// the short hash ("main 1a2b3c4"), or just the hash when the spec was one.
func versionLabel(v renderVersion) string {
	if strings.HasPrefix(v.hash, v.spec) {
		return abbrev(v.hash)
	}
	return v.spec + " " + abbrev(v.hash)
}

// writePreview encodes img as a preview JPEG and writes it atomically under the
// image's previews, returning the path and the bytes.
func writePreview(ws *Workspace, id, name string, img *engine.Image) (string, []byte, error) {
	var buf bytes.Buffer
	if err := engine.Encode(&buf, img, engine.EncodeOptions{Format: "jpeg", Quality: previewQuality}); err != nil {
		return "", nil, renderFailure(err, "encode preview of %s", id)
	}
	dir, err := ws.Dir("previews", id)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, name)
	if err := ws.WriteFile(path, buf.Bytes()); err != nil {
		return "", nil, err
	}
	return path, buf.Bytes(), nil
}

// exportExt is the file extension of each export format.
var exportExt = map[string]string{"jpeg": "jpg", "png": "png", "tiff": "tiff"}

func exportFinal(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	format := stringArg(args, "format")
	quality, _ := checkedInt(args, "quality")
	size, sized := checkedInt(args, "size")
	_, load, err := ws.Source(id)
	if err != nil {
		return nil, "", err
	}
	v, err := s.resolveVersion(ws, id, stringArg(args, "ref_or_hash"))
	if err != nil {
		return nil, "", err
	}
	ext, ok := exportExt[format]
	if !ok {
		return nil, "", darkroom.Errorf(darkroom.InternalError, "export %s: no extension for format %q", id, format)
	}
	name := fmt.Sprintf("%s-%s.%s", id, v.hash[:12], ext)
	if sized {
		name = fmt.Sprintf("%s-%s-%d.%s", id, v.hash[:12], size, ext)
	}
	dir, err := ws.Dir("exports", id)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, name)

	s.progress(ctx, 0, exportStages, "decode")
	data, err := load()
	if err != nil {
		return nil, "", renderFailure(err, "export %s", id)
	}
	opt := engine.ExportOptions{
		Encode:   engine.EncodeOptions{Format: format},
		LongEdge: size,
		Stage: func(next string) {
			switch next {
			case "render":
				s.progress(ctx, 1, exportStages, "render")
			case "encode":
				s.progress(ctx, 2, exportStages, "encode")
			}
		},
	}
	switch format {
	case "jpeg":
		opt.Encode.Quality = quality
	case "png":
		opt.Encode.Depth = 16
	}
	var n int64
	err = ws.WriteFileFrom(path, func(w io.Writer) error {
		cw := &countingWriter{w: w}
		_, err := engine.Export(cw, data, v.edits, opt)
		n = cw.n
		if err != nil {
			return renderFailure(err, "export %s at %s", id, abbrev(v.hash))
		}
		s.progress(ctx, 3, exportStages, "write")
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	w, h, err := fileDimensions(path, format)
	if err != nil {
		return nil, "", err
	}
	s.progress(ctx, 4, exportStages, "done")
	d := &renderData{ImageID: id, Hash: v.hash, Path: path, Width: w, Height: h, Bytes: n}
	return d, fmt.Sprintf("exported %s at %s: %dx%d %s, %s, %s", id, abbrev(v.hash), w, h, format, humanBytes(n), path), nil
}

// fileDimensions reads the pixel size of an exported file from its header: the
// export's geometry edits decide it, so it is read back rather than predicted.
func fileDimensions(path, format string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, darkroom.Wrap(darkroom.InternalError, err, "read back %s", path)
	}
	defer f.Close()
	decode := map[string]func(io.Reader) (image.Config, error){
		"jpeg": jpeg.DecodeConfig, "png": png.DecodeConfig, "tiff": tiff.DecodeConfig,
	}[format]
	cfg, err := decode(f)
	if err != nil {
		return 0, 0, darkroom.Wrap(darkroom.InternalError, err, "read back %s", path)
	}
	return cfg.Width, cfg.Height, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func inlineNote(inline bool) string {
	if inline {
		return " (shown)"
	}
	return fmt.Sprintf(" (over %s, not inlined: open the file)", humanBytes(maxInlineBytes))
}
