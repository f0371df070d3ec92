package augmentation

import (
	"os"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

// testEditor is the augmentation service over the built-in contract and
// vocabulary, without a workspace.
func testEditor(t testing.TB) *Service {
	t.Helper()
	c, err := contract.Load(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	v, err := pack.LoadBuiltin(c)
	if err != nil {
		t.Fatal(err)
	}
	return New(edit.New(c.Facts(), v, nil))
}
