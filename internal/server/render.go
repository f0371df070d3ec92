package server

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/edit"
)

// The render tools: render_preview and compare draw from the cached proxy and show
// the agent the picture; export_final renders the source at full resolution.

const (
	// maxInlineBytes caps the picture carried in a result's content.
	maxInlineBytes = 1 << 20
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

type renderArgs struct {
	ImageID   string `json:"image_id"`
	RefOrHash string `json:"ref_or_hash"`
	Size      int    `json:"size"` // the contract fills the default
}

// rowProgress reports a render's rows as MCP progress (when the request carries a
// progress token; a time limit's timeout names the last one either way).
func (s *Server) rowProgress(ctx context.Context) edit.Progress {
	return func(done, total int, stage string) { s.progress(ctx, float64(done), float64(total), stage) }
}

func renderPreview(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[renderArgs](args)
	if err != nil {
		return nil, "", err
	}
	r, pic, err := s.Preview(ctx, a.ImageID, a.RefOrHash, a.Size, s.rowProgress(ctx))
	if err != nil {
		return nil, "", err
	}
	p, inline := newPicture(pic.JPEG)
	d := &renderData{ImageID: a.ImageID, Hash: r.Hash, Path: pic.Path, Width: pic.Width, Height: pic.Height, Bytes: int64(len(pic.JPEG)), Inline: inline, picture: p}
	return d, fmt.Sprintf("preview of %s at %s: %dx%d, %s, %s%s", a.ImageID, abbrev(r.Hash), d.Width, d.Height, humanBytes(d.Bytes), d.Path, inlineNote(inline)), nil
}

type compareArgs struct {
	ImageID string `json:"image_id"`
	HashA   string `json:"hash_a"`
	HashB   string `json:"hash_b"`
	Size    int    `json:"size"`
}

func compareTool(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[compareArgs](args)
	if err != nil {
		return nil, "", err
	}
	va, vb, pic, err := s.Compare(ctx, a.ImageID, a.HashA, a.HashB, a.Size)
	if err != nil {
		return nil, "", err
	}
	p, inline := newPicture(pic.JPEG)
	d := &compareData{ImageID: a.ImageID, HashA: va.Hash, HashB: vb.Hash, Path: pic.Path, Width: pic.Width, Height: pic.Height, Bytes: int64(len(pic.JPEG)), Inline: inline, picture: p}
	return d, fmt.Sprintf("%s: %s | %s side by side, %dx%d, %s, %s%s", a.ImageID, edit.VersionLabel(va.Version), edit.VersionLabel(vb.Version), d.Width, d.Height, humanBytes(d.Bytes), d.Path, inlineNote(inline)), nil
}

type exportArgs struct {
	ImageID   string `json:"image_id"`
	RefOrHash string `json:"ref_or_hash"`
	Format    string `json:"format"`
	Quality   int    `json:"quality"`
	Size      int    `json:"size"` // null: full resolution
}

func exportFinal(ctx context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[exportArgs](args)
	if err != nil {
		return nil, "", err
	}
	x, err := s.Export(ctx, edit.ExportRequest{
		ImageID: a.ImageID, Spec: a.RefOrHash, Format: a.Format, Quality: a.Quality, Size: a.Size,
		Progress: s.rowProgress(ctx),
	})
	if err != nil {
		return nil, "", err
	}
	d := &renderData{ImageID: a.ImageID, Hash: x.Hash, Path: x.Path, Width: x.Width, Height: x.Height, Bytes: x.Bytes}
	return d, fmt.Sprintf("exported %s at %s: %dx%d %s, %s, %s", a.ImageID, abbrev(x.Hash), x.Width, x.Height, a.Format, humanBytes(x.Bytes), x.Path), nil
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
