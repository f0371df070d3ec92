package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every image the server decodes goes through the engine's header-first, budgeted
// decode (Decode, Export, the Previewer, DecodeLabelMask). A decoder called
// anywhere else in the module on bytes a client sent would allocate what a header
// claims: a 92-byte PNG as a label mask once aborted the process. This test fails
// on any call of an image decoder (or of DecodeConfig, whose size a caller would
// then have to check itself) outside the engine and the JPEG decoder's own
// package; test files and testdata generators are not the server.
func TestDecodersOnlyInTheEngine(t *testing.T) {
	decoders := map[string]bool{"Decode": true, "DecodeConfig": true}
	packages := map[string]bool{"image": true, "png": true, "jpeg": true, "gif": true, "tiff": true, "webp": true, "bmp": true, "jpegdec": true}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() && p != root {
			switch {
			case d.Name() == "testdata", strings.HasPrefix(d.Name(), "."), rel == "internal/engine", rel == "internal/jpegdec":
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !decoders[sel.Sel.Name] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && packages[id.Name] {
				t.Errorf("%s: %s.%s: decode images through the engine (engine.Decode, engine.ReadHeader, engine.DecodeLabelMask)", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked: the walk did not find the module", checked)
	}
}
