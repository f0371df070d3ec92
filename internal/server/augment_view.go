package server

import (
	"bytes"
	"path"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// How augment_image shows its variants: each is a resource_link to
// darkroom://workspace/augment/<session>/result-<n>.<ext>, readable with
// resources/read, and the first options.return_images come back inline as JPEG
// previews at most previewLongEdge pixels on the long edge (render_preview's
// default), unless options.full_size_images asks for the files themselves.

// previewLongEdge bounds an inline variant preview's long edge.
const previewLongEdge = 1024

// previewQuality is the JPEG quality of an inline variant preview.
const previewQuality = 85

// inlineVariant is the image content of one variant: its file when full, else a
// JPEG preview decoded straight to previewLongEdge.
func inlineVariant(file []byte, mime string, full bool) (*mcp.ImageContent, error) {
	if full {
		return &mcp.ImageContent{Data: file, MIMEType: mime}, nil
	}
	src, err := engine.Decode(file, engine.DecodeOptions{MaxLongEdge: previewLongEdge})
	if err != nil {
		return nil, edit.RenderFailure(err, "decode a variant for its preview")
	}
	var buf bytes.Buffer
	err = engine.Encode(&buf, src.Image, engine.EncodeOptions{Format: "jpeg", Quality: previewQuality})
	engine.Recycle(src.Image)
	if err != nil {
		return nil, edit.RenderFailure(err, "encode a variant's preview")
	}
	return &mcp.ImageContent{Data: buf.Bytes(), MIMEType: "image/jpeg"}, nil
}

// variantLink is the resource_link of a file of an augmentation session (size -1 when
// not known), nil when the workspace does not serve it.
func (s *Server) variantLink(rel string, size int) *mcp.ResourceLink {
	uri, ok := s.resourceURI(rel)
	if !ok {
		return nil
	}
	l := &mcp.ResourceLink{URI: uri, Name: path.Base(rel), MIMEType: fileMIME(rel)}
	if size >= 0 {
		sz := int64(size)
		l.Size = &sz
	}
	return l
}
