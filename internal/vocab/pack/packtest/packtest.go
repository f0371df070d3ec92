// Package packtest gives tests the built-in contract and vocabulary, loaded once per
// test binary from the module's own contracts/ and vocabulary/ (they take about a
// second to load and are safe to share, as the server shares them between calls).
package packtest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

// Root is the module's root directory, found from this file's place in it.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

var loaded = sync.OnceValues(func() (*contract.Contract, error) {
	return contract.Load(os.DirFS(Root()))
})

var builtin = sync.OnceValues(func() (*vocab.Vocabulary, error) {
	c, err := loaded()
	if err != nil {
		return nil, err
	}
	return pack.LoadBuiltin(c)
})

// Contract is the loaded contract; a test that cannot have it fails.
func Contract(t testing.TB) *contract.Contract {
	t.Helper()
	c, err := loaded()
	if err != nil {
		t.Fatalf("load the contract: %v", err)
	}
	return c
}

// Builtin is the loaded contract and the built-in vocabulary checked against it.
func Builtin(t testing.TB) (*contract.Contract, *vocab.Vocabulary) {
	t.Helper()
	c := Contract(t)
	v, err := builtin()
	if err != nil {
		t.Fatalf("load the built-in vocabulary: %v", err)
	}
	return c, v
}
