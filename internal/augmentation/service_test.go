package augmentation

import (
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// testEditor is the augmentation service over the built-in contract and
// vocabulary, without a workspace.
func testEditor(t testing.TB) *Service {
	t.Helper()
	c, v := packtest.Builtin(t)
	return New(edit.New(c.Facts(), v, nil))
}
