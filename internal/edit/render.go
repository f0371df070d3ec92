package edit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// Rendering: previews and comparisons draw from the cached proxy; an export renders
// the source at full resolution. Paths in results are relative to the workspace,
// slash-separated: a client never sees the server's absolute paths.

// PreviewQuality is the JPEG quality of previews and comparisons: small enough to
// inline, good enough to judge colour and tone.
const PreviewQuality = 88

// RenderFailure reports why a version cannot be drawn. A failure of the version
// itself is a render_error to the agent: a corrupt source copy (the decoder's
// invalid_input), an entry whose pack is gone (not_found), a mask that no longer
// resolves. A failure of the server's resources keeps its own code, since it says
// what to do: limit_exceeded (the decode budget: retry later), permission_error and
// unavailable (the workspace), and an internal error stays one.
func RenderFailure(err error, format string, args ...any) error {
	if ResourceFailure(err) {
		return err
	}
	e := darkroom.Wrap(darkroom.RenderError, err, format, args...)
	var de *darkroom.Error
	if errors.As(err, &de) && de.Details != nil {
		e.Details = de.Details
	}
	return e
}

// ResourceFailure says err is about the server's resources (memory, the workspace's
// disk and permissions) or a bug, not about what was asked: wrapping it in a
// verb-specific code would hide what the client can do about it.
func ResourceFailure(err error) bool {
	switch darkroom.Code(err) {
	case darkroom.LimitExceeded, darkroom.PermissionError, darkroom.Unavailable, darkroom.InternalError:
		return true
	}
	return false
}

// Resolved is one version of an image ready to render: its source and the engine
// edits of its state.
type Resolved struct {
	Version
	Meta  workspace.SourceMeta
	Load  engine.Loader
	Edits []engine.Edit
}

// ResolveEdits resolves spec (HEAD when empty) of image id to its source (metadata
// and a loader of its bytes) and the engine edits of its state. The state was
// checked when it was committed; one that no longer resolves (a pack removed) is a
// render_error.
func (s *Editor) ResolveEdits(id, spec string) (Resolved, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Resolved{}, err
	}
	meta, load, err := ws.Source(id)
	if err != nil {
		return Resolved{}, err
	}
	v, err := s.Resolve(id, spec)
	if err != nil {
		return Resolved{}, err
	}
	edits, err := s.Edits(v.State)
	if err != nil {
		return Resolved{}, RenderFailure(err, "image %s at %s", id, Abbrev(v.Hash))
	}
	return Resolved{Version: v, Meta: meta, Load: load, Edits: edits}, nil
}

// Picture is a rendered JPEG written under the workspace's previews.
type Picture struct {
	Path          string // relative to the workspace
	Width, Height int
	JPEG          []byte
}

// Progress is told how much of a render is done: rows of total, and what the rows
// are of ("decode", "render"). done increases from call to call.
type Progress func(done, total int, stage string)

// Preview renders version spec of image id with size pixels on the long edge (never
// larger than the photo) and writes it under the image's previews. ctx stops it
// (between rows of the source's decode when its proxy is not cached, and between
// the render's steps): a stopped preview writes no file and caches nothing, and
// its error wraps ctx's. progress, when set, is told the rows of the decode.
func (s *Editor) Preview(ctx context.Context, id, spec string, size int, progress Progress) (Resolved, Picture, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Resolved{}, Picture{}, err
	}
	r, err := s.ResolveEdits(id, spec)
	if err != nil {
		return Resolved{}, Picture{}, err
	}
	req := engine.PreviewRequest{Key: r.Meta.SHA256, Load: r.Load, Edits: r.Edits, LongEdge: size, Context: ctx}
	if progress != nil {
		req.Rows = func(done, total int) { progress(done, total, "decode") }
	}
	img, err := ws.Previews.Preview(req)
	if err != nil {
		return Resolved{}, Picture{}, RenderFailure(err, "preview of %s at %s", id, Abbrev(r.Hash))
	}
	pic, err := s.writePreview(ws, id, fmt.Sprintf("%s-%d.jpg", r.Hash[:12], size), img)
	return r, pic, err
}

// Compare renders two versions of image id side by side, each in a cell of size
// pixels (never larger than the photo), labelled, and writes the sheet under the
// image's previews.
// ctx stops the decode of the source when its proxy is not cached, as for Preview;
// the two cells are rendered at preview size.
func (s *Editor) Compare(ctx context.Context, id, specA, specB string, size int) (a, b Resolved, pic Picture, err error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return
	}
	if a, err = s.ResolveEdits(id, specA); err != nil {
		return
	}
	if b, err = s.ResolveEdits(id, specB); err != nil {
		return
	}
	proxy, err := ws.Previews.ProxyContext(ctx, a.Meta.SHA256, a.Load, nil)
	if err != nil {
		err = RenderFailure(err, "compare %s", id)
		return
	}
	// Like a preview, a cell is never larger than the photo.
	cell := max(16, min(size, max(proxy.Width, proxy.Height)))
	sheet, err := engine.ContactSheet(proxy.Image, []engine.Panel{
		{Label: VersionLabel(a.Version), Edits: a.Edits},
		{Label: VersionLabel(b.Version), Edits: b.Edits},
	}, cell)
	if err == nil && ctx.Err() != nil {
		err = darkroom.Wrap(darkroom.Unavailable, ctx.Err(), "compare stopped: the request was cancelled")
	}
	if err != nil {
		err = RenderFailure(err, "compare %s", id)
		return
	}
	pic, err = s.writePreview(ws, id, fmt.Sprintf("compare-%s-%s-%d.jpg", a.Hash[:12], b.Hash[:12], size), sheet)
	return
}

// VersionLabel names a version under its picture: the spec as given and the short
// hash ("main 1a2b3c4"), or just the hash when the spec was one.
func VersionLabel(v Version) string {
	if len(v.Spec) <= len(v.Hash) && v.Hash[:len(v.Spec)] == v.Spec {
		return Abbrev(v.Hash)
	}
	return v.Spec + " " + Abbrev(v.Hash)
}

// Abbrev is the abbreviated hash people read (7 hex digits, as git prints).
func Abbrev(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

// NewestPreview names the newest preview of image id, relative to the workspace
// (comparisons are not previews of it); false when it has none, or there is no
// workspace.
func (s *Editor) NewestPreview(id string) (string, bool) {
	if s.Workspace == nil {
		return "", false
	}
	rel := filepath.ToSlash(filepath.Join("previews", history.DirName(id)))
	des, err := os.ReadDir(filepath.Join(s.Workspace.Root, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	var newest string
	var newestTime int64
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, ".jpg") || strings.HasPrefix(name, "compare-") || strings.HasPrefix(name, ".") {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		if t := fi.ModTime().UnixNano(); newest == "" || t > newestTime || t == newestTime && name > newest {
			newest, newestTime = name, t
		}
	}
	if newest == "" {
		return "", false
	}
	return rel + "/" + newest, true
}

// writePreview encodes img as a preview JPEG and writes it atomically under the
// image's previews.
func (s *Editor) writePreview(ws *workspace.Workspace, id, name string, img *engine.Image) (Picture, error) {
	var buf bytes.Buffer
	if err := engine.Encode(&buf, img, engine.EncodeOptions{Format: "jpeg", Quality: PreviewQuality}); err != nil {
		return Picture{}, RenderFailure(err, "encode preview of %s", id)
	}
	dir, err := ws.Dir("previews", id)
	if err != nil {
		return Picture{}, err
	}
	p := filepath.Join(dir, name)
	if err := ws.WriteFile(p, buf.Bytes()); err != nil {
		return Picture{}, err
	}
	return Picture{Path: ws.Rel(p), Width: img.W, Height: img.H, JPEG: buf.Bytes()}, nil
}

// ExportRequest is what to export and how.
type ExportRequest struct {
	ImageID string
	Spec    string // HEAD when empty
	Format  string // jpeg, png or tiff
	Quality int    // JPEG quality
	Size    int    // long edge; 0 keeps the full resolution
	Seed    uint64 // of the random effects
	// Progress, when set, is told 0 rows as the decode starts, then the rows
	// rendered after each strip of them (engine.ExportOptions.Rows), as "render".
	Progress Progress
}

// Exported is what an export wrote.
type Exported struct {
	Resolved
	Path          string // relative to the workspace
	Width, Height int
	Bytes         int64
}

// exportExt is the file extension of each export format.
var exportExt = map[string]string{"jpeg": "jpg", "png": "png", "tiff": "tiff"}

// Export renders a version at full resolution (or shrunk to Size) and writes it
// under the image's exports as <image_id>-<hash12>[-<size>].<ext>, atomically. ctx
// ends a wait for the decode budget and stops the render between strips.
func (s *Editor) Export(ctx context.Context, req ExportRequest) (Exported, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Exported{}, err
	}
	id := req.ImageID
	progress := func(done, total int, stage string) {
		if req.Progress != nil {
			req.Progress(done, total, stage)
		}
	}
	r, err := s.ResolveEdits(id, req.Spec)
	if err != nil {
		return Exported{}, err
	}
	ext, ok := exportExt[req.Format]
	if !ok {
		return Exported{}, darkroom.Errorf(darkroom.InternalError, "export %s: no extension for format %q", id, req.Format)
	}
	name := fmt.Sprintf("%s-%s.%s", id, r.Hash[:12], ext)
	if req.Size > 0 {
		name = fmt.Sprintf("%s-%s-%d.%s", id, r.Hash[:12], req.Size, ext)
	}
	dir, err := ws.Dir("exports", id)
	if err != nil {
		return Exported{}, err
	}
	p := filepath.Join(dir, name)

	progress(0, 0, "decode")
	data, err := r.Load()
	if err != nil {
		return Exported{}, RenderFailure(err, "export %s", id)
	}
	opt := engine.ExportOptions{
		Encode:   engine.EncodeOptions{Format: req.Format},
		LongEdge: req.Size,
		Seed:     req.Seed,
		Context:  ctx,
	}
	// The rows are rendered, then (PNG and TIFF) encoded: the stage, told from the
	// export's goroutines, names which in each progress message.
	var stage atomic.Value
	stage.Store("render")
	opt.Stage = func(next string) { stage.Store(next) }
	opt.Rows = func(done, total int) { progress(done, total, stage.Load().(string)) }
	switch req.Format {
	case "jpeg":
		opt.Encode.Quality = req.Quality
	case "png":
		opt.Encode.Depth = 16
	}
	var n int64
	var res engine.ExportResult
	err = ws.WriteFileFrom(p, func(w io.Writer) error {
		cw := &countingWriter{w: w}
		var err error
		res, err = engine.Export(cw, data, r.Edits, opt)
		n = cw.n
		if err != nil {
			return RenderFailure(err, "export %s at %s", id, Abbrev(r.Hash))
		}
		return nil
	})
	if err != nil {
		return Exported{}, err
	}
	return Exported{Resolved: r, Path: ws.Rel(p), Width: res.Width, Height: res.Height, Bytes: n}, nil
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
