package prompt

import (
	"os"
	"sync"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

var (
	parserOnce sync.Once
	parser     *Parser
	parserErr  error
)

// testParser is a parser of the built-in vocabulary, loaded once for the package.
func testParser(t testing.TB) *Parser {
	t.Helper()
	parserOnce.Do(func() {
		c, err := contract.Load(os.DirFS("../.."))
		if err != nil {
			parserErr = err
			return
		}
		v, err := pack.LoadBuiltin(c)
		if err != nil {
			parserErr = err
			return
		}
		parser = New(v)
		// As the augmentation service does: pixel sizes after a resize are of the
		// resized image.
		defs, err := c.OperationDefaults()
		if err != nil {
			parserErr = err
			return
		}
		parser.Frames(defs)
	})
	if parserErr != nil {
		t.Fatal(parserErr)
	}
	return parser
}
