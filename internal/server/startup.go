package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// A server may start before its contract is evaluated. Built from a
// contract.Snapshot (what an earlier start-up with the same contract files and
// executable derived, read from the cache without CUE), a deferred server answers
// initialize and tools/list at once while its caller loads the contract and the
// vocabulary with CUE; every other request waits until Ready, so no call is
// validated by anything but CUE.

// Defer makes the server hold back every request but initialize, ping and
// tools/list until Ready. It is called before MCP, on a server built from a
// snapshot with a nil vocabulary. load starts the loading that ends in Ready; the
// server calls it once, when it has answered tools/list or holds a request,
// whichever comes first, so that the first replies do not share the processor
// with CUE (the caller may start it earlier by calling Load).
func (s *Server) Defer(load func()) {
	s.ready = make(chan struct{})
	s.load = load
}

// Load starts a deferred server's load, if it has not started.
func (s *Server) Load() {
	s.loadOnce.Do(s.load)
}

// Ready gives a deferred server the loaded contract and vocabulary and lets the
// held requests through. When the loaded contract does not show what the snapshot
// showed (contract.SameSurface), it is checked as New checks a contract, and its
// tools replace the snapshot's in the SDK server (which tells the client that the
// list changed): from then on the server is the one New would have built. An error
// means New would have refused the loaded contract; the server stays held, and
// the caller stops it.
func (s *Server) Ready(c *contract.Contract, v *vocab.Vocabulary) error {
	if !c.SameSurface(s.Contract) {
		old := s.Contract
		s.Contract = c
		if missing, extra := s.Unmatched(); len(missing)+len(extra) > 0 {
			s.Contract = old
			return errUnmatched(missing, extra)
		}
		if err := checkAliases(c); err != nil {
			s.Contract = old
			return err
		}
		if s.deferred != nil {
			s.deferred.RemoveTools(old.ToolNames()...)
			s.addTools(s.deferred, c)
		}
	}
	s.Contract = c
	s.Editor.Facts = c.Facts()
	s.Editor.Vocab = v
	close(s.ready)
	return nil
}

// awaitReady starts a deferred server's load and blocks until it is ready; the
// stdio transport's own answers that read the contract wait on it.
func (s *Server) awaitReady() {
	if s.ready != nil {
		s.Load()
		<-s.ready
	}
}

// answeredEarly are the methods a deferred server answers before Ready: they read
// only what the snapshot holds (the server's description and its tools' specs),
// and the SDK itself answers them.
var answeredEarly = map[string]bool{
	"initialize":                true,
	"notifications/initialized": true,
	"ping":                      true,
	"tools/list":                true,
}

// holdUntilReady is the middleware of a deferred server.
func (s *Server) holdUntilReady(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if answeredEarly[method] {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				s.Load()
			}
			return res, err
		}
		s.Load()
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return next(ctx, method, req)
	}
}
