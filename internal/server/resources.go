package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each image of the workspace is two resources: its state (what get_state returns,
// as JSON) and its latest preview (the newest JPEG render_preview wrote), named
// darkroom://images/<image_id>/state and …/preview. The templates let a client read
// them for any image id; resources/list names those of the images the workspace
// held when the server started and those ingested since.
const imagesURI = "darkroom://images/"

// addImageResources registers the image templates and the resources of the images
// the workspace holds.
func (s *Server) addImageResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "image-state",
		Title:       "An image's editing state",
		Description: "The image's state as get_state returns it: its entries, head, branch and dimensions.",
		URITemplate: imagesURI + "{image_id}/state",
		MIMEType:    "application/json",
	}, s.readImageState)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "image-preview",
		Title:       "An image's latest preview",
		Description: "The newest preview render_preview wrote for the image (JPEG); not_found until one was rendered.",
		URITemplate: imagesURI + "{image_id}/preview",
		MIMEType:    "image/jpeg",
	}, s.readImagePreview)
	if s.Workspace == nil {
		return
	}
	ids, err := s.Workspace.History.ListImages()
	if err != nil {
		s.Logger.Warn("listing the images as resources", "err", err)
		return
	}
	for _, id := range ids {
		s.addImage(srv, id)
	}
}

// addImage lists one image's resources.
func (s *Server) addImage(srv *mcp.Server, id string) {
	srv.AddResource(&mcp.Resource{URI: imagesURI + id + "/state", Name: id + "-state", Title: id + ": editing state", MIMEType: "application/json"}, s.readImageState)
	srv.AddResource(&mcp.Resource{URI: imagesURI + id + "/preview", Name: id + "-preview", Title: id + ": latest preview", MIMEType: "image/jpeg"}, s.readImagePreview)
}

// ingested lists the resources of the image a successful ingest brought in.
func (s *Server) ingested(srv *mcp.Server, res *mcp.CallToolResult) {
	env, ok := res.StructuredContent.(Envelope)
	if !ok || !env.Success {
		return
	}
	b, err := json.Marshal(env.Data)
	if err != nil {
		return
	}
	var d struct {
		ImageID string `json:"image_id"`
	}
	if json.Unmarshal(b, &d) == nil && d.ImageID != "" {
		s.addImage(srv, d.ImageID)
	}
}

// imageOf returns the image id of a darkroom://images/<id>/<what> URI.
func imageOf(uri, what string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, imagesURI)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/"+what)
	return id, ok && id != "" && !strings.Contains(id, "/")
}

func (s *Server) readImageState(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := imageOf(uri, "state")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	args, err := json.Marshal(map[string]string{"image_id": id})
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	env, _ := s.Invoke(ctx, "get_state", args)
	if !env.Success {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	b, err := json.MarshalIndent(env.Data, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("state of %s: %w", id, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (s *Server) readImagePreview(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := imageOf(uri, "preview")
	if !ok || s.Workspace == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rel, ok := s.NewestPreview(id)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	fileURI, ok := s.resourceURI(rel)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	fileReq := &mcp.ReadResourceRequest{Session: req.Session, Params: &mcp.ReadResourceParams{URI: fileURI}}
	res, err := s.readResource(ctx, fileReq)
	if err != nil {
		return nil, err
	}
	for _, c := range res.Contents {
		c.URI = uri
	}
	return res, nil
}
