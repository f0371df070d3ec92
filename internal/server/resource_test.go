package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkSession connects the SDK's own client to the server in memory.
func sdkSession(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "resource-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The files tools write are readable as darkroom://workspace/ resources, by a
// path relative to the workspace; nothing else in the workspace or outside it is,
// however the URI is spelled.
func TestWorkspaceResources(t *testing.T) {
	s := editServer(t)
	addImage(t, s, "harbour", testPhoto(t, 96, 64))
	preview := mustCall(t, s, "render_preview", map[string]any{"image_id": "harbour", "size": 64})["path"].(string)
	export := mustCall(t, s, "export_final", map[string]any{"image_id": "harbour", "format": "png"})["path"].(string)
	outside := filepath.Join(t.TempDir(), "secret.jpg")
	if err := os.WriteFile(outside, []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.Workspace.Root, "previews", "harbour", "link.jpg")); err != nil {
		t.Fatal(err)
	}
	cs := sdkSession(t, s)
	ctx := context.Background()

	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || !slices.ContainsFunc(templates.ResourceTemplates, func(rt *mcp.ResourceTemplate) bool { return rt.URITemplate == "darkroom://workspace/{+path}" }) {
		t.Fatalf("resource templates: %v, %v", templates, err)
	}
	for _, f := range []struct{ path, mime string }{{preview, "image/jpeg"}, {export, "image/png"}} {
		uri, ok := s.resourceURI(f.path)
		if !ok {
			t.Fatalf("%s has no resource URI", f.path)
		}
		rel := f.path // relative to the workspace
		if uri != "darkroom://workspace/"+filepath.ToSlash(rel) {
			t.Errorf("URI %s for %s", uri, rel)
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		want, _ := os.ReadFile(filepath.Join(s.Workspace.Root, f.path))
		if len(res.Contents) != 1 || !bytes.Equal(res.Contents[0].Blob, want) || res.Contents[0].MIMEType != f.mime || res.Contents[0].URI != uri {
			t.Errorf("read %s: %d contents, want the file's %d bytes as %s", uri, len(res.Contents), len(want), f.mime)
		}
	}
	src, _, _ := s.Workspace.Source("harbour")
	for _, uri := range []string{
		"darkroom://workspace/sources/harbour/" + filepath.Base(src.File), // a source copy: not served
		"darkroom://workspace/images/harbour/HEAD",
		"darkroom://workspace/previews/../sources/harbour/" + filepath.Base(src.File),
		"darkroom://workspace/previews/%2E%2E/context/tastes.md",
		"darkroom://workspace/previews/harbour/link.jpg", // a symbolic link out
		"darkroom://workspace/previews/harbour",          // a directory
		"darkroom://workspace/previews/harbour/none.jpg",
		"darkroom://workspace/previews",
		"darkroom://workspace//etc/passwd",
		"file://" + outside,
	} {
		if res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: got %d contents, want resource not found", uri, len(res.Contents))
		}
	}
	for _, p := range []string{filepath.Join(s.Workspace.Root, "sources", "x.jpg"), outside, "previews"} {
		if uri, ok := s.resourceURI(p); ok {
			t.Errorf("%s has URI %s: it is not a file a client may read", p, uri)
		}
	}
}
