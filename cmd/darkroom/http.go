package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/server"
	"github.com/darkroom-mcp/darkroom/internal/version"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// httpFlags are serve's flags for the Streamable HTTP transport.
type httpFlags struct {
	addr      string
	tokens    string
	jwks      string
	issuer    string
	audience  string
	resource  string
	timeScale float64
	origins   []string
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "http", "", "serve MCP over Streamable HTTP on `ADDR` (host:port; port 0 picks one) instead of stdio; an address that is not loopback needs --tokens or --jwks")
	fs.StringVar(&h.tokens, "tokens", os.Getenv("DARKROOM_TOKENS"), "the bearer token `FILE` (darkroom token add writes it; default $DARKROOM_TOKENS)")
	fs.StringVar(&h.jwks, "jwks", "", "verify JWT bearer tokens against the keys of this JWKS `FILE` (with --issuer and --audience)")
	fs.StringVar(&h.issuer, "issuer", "", "the iss a JWT must carry (with --jwks)")
	fs.StringVar(&h.audience, "audience", "", "the aud a JWT must carry (with --jwks; default the --resource URL)")
	fs.StringVar(&h.resource, "resource", "", "the MCP endpoint's public `URL` (behind a reverse proxy); default http://ADDR/mcp")
	fs.Float64Var(&h.timeScale, "time-limit-scale", 1, "multiply every tool's time limit (contracts/grants.cue) by this `factor`")
	fs.Func("allow-origin", "let web pages of this `ORIGIN` (scheme://host[:port]) call the endpoint, besides the --resource URL's own (repeatable); a request with any other Origin header is refused with 403", func(v string) error {
		o, err := server.CanonicalOrigin(v)
		if err != nil {
			return err
		}
		h.origins = append(h.origins, o)
		return nil
	})
}

// logger is the servers' logger: warnings and errors, on stderr.
func (m *Main) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// isLoopback reports whether host (of host:port) only listens on loopback.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves MCP over Streamable HTTP until ctx ends. Without --tokens or
// --jwks it serves the local user only, on loopback, as stdio does; with either,
// every principal works in its own workspace under <workspace>/workspaces/<name>.
func (m *Main) serveHTTP(ctx context.Context, h *httpFlags, wf *workspaceFlags, vocabDirs []string) error {
	host, _, err := net.SplitHostPort(h.addr)
	if err != nil {
		return usagef("--http %s: %v", h.addr, err)
	}
	authOn := h.tokens != "" || h.jwks != ""
	if !authOn && !isLoopback(host) {
		return usagef("--http %s is not a loopback address: anyone who reaches it could edit and read every image; give --tokens FILE or --jwks FILE, or bind 127.0.0.1", h.addr)
	}
	if h.jwks != "" && h.issuer == "" {
		return usagef("--jwks needs --issuer")
	}
	if h.timeScale <= 0 {
		return usagef("--time-limit-scale takes a positive factor, got %g", h.timeScale)
	}
	if !authOn && !server.PeerUIDSupported {
		return usagef("--http without --tokens or --jwks serves only the local OS user, and this system cannot tell which user opened a loopback connection: give --tokens FILE")
	}
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	v, err := m.loadVocab(c, vocabDirs)
	if err != nil {
		return err
	}
	root, err := wf.workspaceDir()
	if err != nil {
		return err
	}
	logger := m.logger()
	var opts server.HTTPOptions
	opts.Version, opts.Logger = version.String(), logger
	opts.AllowedOrigins, opts.LocalUserOnly = h.origins, !authOn
	if opts.Sessions, err = c.SessionLimits(); err != nil {
		return err
	}
	defaults, err := c.LimitDefaults()
	if err != nil {
		return err
	}
	opts.MaxInputBytes = defaults.MaxInputBytes
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		return darkroom.Wrap(darkroom.Unavailable, err, "--http %s", h.addr)
	}
	defer ln.Close()
	opts.Resource = h.resource
	if opts.Resource == "" {
		opts.Resource = "http://" + ln.Addr().String() + "/mcp"
	}
	var serverOpts []server.Option
	if authOn {
		p, err := server.NewPolicy(c, h.timeScale)
		if err != nil {
			return err
		}
		serverOpts = append(serverOpts, server.WithPolicy(p))
		opts.Policy = p
		var store *auth.Store
		if h.tokens != "" {
			warn := func(msg string) { fmt.Fprintf(m.Stderr, "darkroom: %s\n", msg) }
			if store, err = auth.Load(h.tokens, p.Auth, warn); err != nil {
				return darkroom.Wrap(darkroom.InvalidInput, err, "--tokens")
			}
		}
		var jwt *auth.JWTVerifier
		if h.jwks != "" {
			aud := h.audience
			if aud == "" {
				aud = opts.Resource
			}
			if jwt, err = auth.LoadJWKS(h.jwks, h.issuer, aud, p.Auth); err != nil {
				return darkroom.Wrap(darkroom.InvalidInput, err, "--jwks")
			}
			opts.AuthServers = []string{h.issuer}
		}
		opts.Verifier = auth.Verifier(store, jwt)
	}
	opts.Server = func(name string) (*server.Server, error) {
		dir := root
		if name != "" {
			dir = filepath.Join(root, "workspaces", name)
		}
		ws, err := workspace.Open(dir, wf.allow)
		if err != nil {
			return nil, err
		}
		for _, d := range wf.write {
			if err := ws.AllowWrite(d); err != nil {
				return nil, err
			}
		}
		s, err := server.New(c, v, logger, append(append([]server.Option{}, m.ServerOptions...), serverOpts...)...)
		if err != nil {
			return nil, err
		}
		s.Workspace = ws
		return s, nil
	}
	handler, err := server.NewHTTPHandler(opts)
	if err != nil {
		return usagef("--resource: %v", err)
	}
	// The root workspace is opened now, so a workspace that cannot be used stops
	// the server at start, not at the first call.
	if !authOn {
		if _, err := opts.Server(""); err != nil {
			return err
		}
	}
	// No ReadTimeout or WriteTimeout: they would end the event streams of long
	// calls and of GET; the handler bounds each body's arrival and each write
	// instead (server.BodyTimeout, server.WriteTimeout).
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: server.ReadHeaderTimeout, IdleTimeout: server.IdleTimeout}
	mode := "without authentication (loopback, the local user)"
	if authOn {
		mode = "with bearer tokens"
	}
	fmt.Fprintf(m.Stderr, "darkroom: listening on %s; MCP endpoint %s %s\n", ln.Addr(), opts.Resource, mode)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return darkroom.Wrap(darkroom.Unavailable, err, "serve --http")
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return darkroom.Wrap(darkroom.InternalError, err, "serve --http: shutdown")
	}
	return nil
}
