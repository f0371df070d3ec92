package main

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/server"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// Start-up. Loading the contracts and the packs takes a few hundred milliseconds,
// nearly all of it CUE evaluating the contracts package. An MCP client need not
// wait for it before its first tools/list reply: a start-up that loaded the
// embedded contract and the packs leaves in the user's cache a snapshot of the
// tool surface (contract.KeepSnapshot, keyed by the hashes of the contract files
// and the executable) and a verdict (startup.json, keyed by those and every pack's
// name and content). When both are there for this start-up, serve builds its
// server from the snapshot, answers initialize and tools/list from it, and loads
// the contract and the packs with CUE in the background exactly as it would have
// before answering; every other request waits for that load (server.Defer), so no
// call is validated by anything but CUE. If the loaded contract does not show what
// the snapshot did, its tools replace the snapshot's (server.Ready); if the load
// fails, serve stops with the error it would have refused to start with. A cache
// that is missing, stale (another key) or corrupt (its payload hash differs) is a
// miss: serve loads everything before it answers, as without a cache.

const startupFile = "startup.json"

// startupGCPercent is the collector's setting until the first replies are out.
const startupGCPercent = 400

// loadAfter is when a deferred server starts loading if no request made it start.
const loadAfter = 100 * time.Millisecond

// startupParts are what a start-up's verdict is keyed by, beside the executable:
// the contract's digest and every pack's name and content.
func startupParts(digest string, srcs []pack.Source) [][]byte {
	parts := [][]byte{[]byte("start-up"), []byte(digest)}
	for _, src := range srcs {
		parts = append(parts, []byte(src.Name), src.Data)
	}
	return parts
}

// keepStartup records that c (the embedded contract) and these packs loaded, with
// c's snapshot, unless the cache already says so.
func keepStartup(cache *contract.Cache, c *contract.Contract, srcs []pack.Source) {
	if cache == nil || c.Digest() == "" {
		return
	}
	parts := startupParts(c.Digest(), srcs)
	if cache.Verdict(startupFile, parts...) {
		if _, ok := contract.Snapshot(darkroom.Files, cache); ok {
			return
		}
	}
	c.KeepSnapshot(cache)
	cache.KeepVerdict(startupFile, parts...)
}

// focus makes the contract of a CLI call the cached snapshot focused on the verb's
// tool (contract.Focus): CUE then evaluates what that tool refers to, and the rest
// only if the call needs it. Without a snapshot, or when the focus fails, the
// contract is loaded whole (loadContract), as before.
func (m *Main) focus(verb string) {
	snap := m.snapshot()
	if snap == nil {
		return
	}
	t, ok := toolForVerb(snap, verb)
	if !ok || snap.Focus(darkroom.Files, contract.UserCache(), t.Name) != nil {
		return
	}
	m.contract, m.builtinContract = snap, true
}

// snapshot returns the cached snapshot of the embedded contract (see
// contract.Snapshot), read once, or nil.
func (m *Main) snapshot() *contract.Contract {
	if m.contract != nil {
		return nil // --contracts, or loaded already
	}
	if !m.snapRead {
		m.snapRead = true
		m.snap, _ = contract.Snapshot(darkroom.Files, contract.UserCache())
	}
	return m.snap
}

// stdioServer returns the server serve runs over stdio, and loaded, which waits
// for the contract and the packs to be loaded and returns the error that load
// ended with. Without a snapshot and a verdict for this start-up it loads them
// first (newServer); with them it returns a deferred server at once, loads them
// in the background, and calls stop with the error when that fails.
func (m *Main) stdioServer(vocabDirs []string, ws *workspace.Workspace, stop context.CancelCauseFunc) (*server.Server, func() error, error) {
	// The first replies allocate a few MiB (the snapshot, the SDK's copies of the
	// schemas) on a heap that starts small: at Go's default the collector runs
	// several times before them. It goes back to the default before CUE loads.
	gcPercent := debug.SetGCPercent(startupGCPercent)
	full := func() (*server.Server, func() error, error) {
		debug.SetGCPercent(gcPercent)
		s, err := m.newServer(vocabDirs, ws)
		return s, func() error { return nil }, err
	}
	snap := m.snapshot()
	if snap == nil {
		return full()
	}
	srcs, err := packSources(vocabDirs)
	if err != nil {
		return nil, nil, err
	}
	cache := contract.UserCache()
	if !cache.Verdict(startupFile, startupParts(snap.Digest(), srcs)...) {
		return full()
	}
	s, err := server.New(snap, nil, m.logger(), m.ServerOptions...)
	if err != nil {
		return nil, nil, err
	}
	s.Workspace = ws
	m.deferred = true
	done := make(chan error, 1)
	s.Defer(func() {
		debug.SetGCPercent(gcPercent)
		go func() {
			err := m.complete(s, srcs, cache)
			if err != nil {
				stop(err)
			}
			done <- err
		}()
	})
	// A client that sends nothing for a while gets its calls served sooner.
	time.AfterFunc(loadAfter, s.Load)
	var lerr error
	waited := false
	return s, func() error {
		if !waited {
			s.Load()
			waited, lerr = true, <-done
		}
		return lerr
	}, nil
}

// complete loads the contract and the packs as newServer does and readies s with
// them; its errors are newServer's.
func (m *Main) complete(s *server.Server, srcs []pack.Source, cache *contract.Cache) error {
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	v, err := pack.LoadCached(c, srcs, cache)
	if err != nil {
		return err
	}
	return s.Ready(c, v)
}
