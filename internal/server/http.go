package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// HTTPOptions configure the Streamable HTTP transport.
type HTTPOptions struct {
	// Resource is the MCP endpoint's URL as clients reach it (behind a reverse
	// proxy, the public one): its path is where the endpoint is mounted, and the
	// protected-resource metadata names it.
	Resource string
	// Verifier checks bearer tokens (auth.Verifier). Nil serves without
	// authentication, every call as the local user in the root workspace, as stdio
	// does: only on a loopback address, which the caller checks.
	Verifier sdkauth.TokenVerifier
	// AuthServers are the authorization servers the metadata names (a JWT issuer).
	AuthServers []string
	// Policy gates every call of an authenticated principal; required with Verifier.
	Policy *Policy
	// Server returns the server of a workspace: "" names the root workspace (no
	// authentication), anything else a principal's workspace (a #Name). It is called
	// once per workspace; the server built serves all its sessions.
	Server func(workspace string) (*Server, error)
	// Version is the server's version in initialize.
	Version string
	Logger  *slog.Logger
	// MaxInputBytes bounds a request's body without authentication (the contract's
	// limit_defaults.max_input_bytes); with it, each principal's max_input_bytes.
	MaxInputBytes int64
	// Sessions bound each principal's sessions (the contract's sessions): how many
	// at once, and how long an idle one lives.
	Sessions contract.SessionLimits
	// AllowedOrigins are the origins (CanonicalOrigin) besides the resource's own
	// whose pages may call the endpoint; any other Origin header is refused.
	AllowedOrigins []string
	// LocalUserOnly refuses the requests of loopback connections that another OS
	// user opened (PeerUID); a server without authentication sets it.
	LocalUserOnly bool
	// BodyTimeout and WriteTimeout replace the constants of the same names when
	// positive (a test's shorter ones).
	BodyTimeout, WriteTimeout time.Duration
}

// NewHTTPHandler returns the Streamable HTTP handler: the MCP endpoint at the
// resource's path and, with authentication, the RFC 9728 metadata beside it. A
// request without a valid bearer token gets 401 with WWW-Authenticate naming the
// metadata; a body over the principal's max_input_bytes gets 413. Each principal's
// sessions are served by the server of its workspace, so no principal reaches
// another's images, previews, exports or context.
func NewHTTPHandler(o HTTPOptions) (http.Handler, error) {
	u, err := url.Parse(o.Resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("resource %q is not an absolute URL", o.Resource)
	}
	if o.Verifier != nil && o.Policy == nil {
		return nil, errors.New("http: a verifier needs a policy")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Sessions.PerPrincipal <= 0 || o.Sessions.Idle <= 0 {
		return nil, errors.New("http: the session limits are not set (the contract's sessions)")
	}
	if o.Verifier == nil && o.MaxInputBytes <= 0 {
		return nil, errors.New("http: the request size limit is not set (the contract's limit_defaults)")
	}
	own, err := CanonicalOrigin(u.Scheme + "://" + u.Host)
	if err != nil {
		return nil, fmt.Errorf("resource %q: %w", o.Resource, err)
	}
	allowed := make([]string, 0, len(o.AllowedOrigins))
	for _, a := range o.AllowedOrigins {
		c, err := CanonicalOrigin(a)
		if err != nil {
			return nil, err
		}
		allowed = append(allowed, c)
	}
	sessions := newSessionCap(o.Sessions)
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = BodyTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = WriteTimeout
	}
	var (
		mu      sync.Mutex
		servers = map[string]*mcp.Server{}
	)
	serverOf := func(workspace string) *mcp.Server {
		mu.Lock()
		defer mu.Unlock()
		if srv, ok := servers[workspace]; ok {
			return srv
		}
		s, err := o.Server(workspace)
		if err != nil {
			o.Logger.Error("workspace", "workspace", workspace, "err", err)
			return nil
		}
		srv := s.MCP(o.Version)
		srv.AddReceivingMiddleware(sessions.middleware)
		servers[workspace] = srv
		return srv
	}
	getServer := func(r *http.Request) *mcp.Server {
		if o.Verifier == nil {
			return serverOf("")
		}
		p, ok := auth.FromTokenInfo(sdkauth.TokenInfoFromContext(r.Context()))
		if !ok {
			return nil
		}
		return serverOf(p.Workspace)
	}
	gate := newReplyGate()
	opts := &mcp.StreamableHTTPOptions{
		Logger:         o.Logger,
		EventStore:     gate.store(mcp.NewMemoryEventStore(nil)),
		SessionTimeout: o.Sessions.Idle,
		// readBody has read the body whole, within the principal's max_input_bytes
		// (the SDK's own default, 4 MiB, would refuse what the contract allows).
		MaxRequestBodyBytes: -1,
		// With authentication a request must carry a token, which a page that
		// rebinds a name to 127.0.0.1 does not have; and a reverse proxy on the same
		// host forwards the public Host. Without authentication the SDK's DNS
		// rebinding protection stays on.
		DisableLocalhostProtection: o.Verifier != nil,
	}
	var endpoint http.Handler = mcp.NewStreamableHTTPHandler(getServer, opts)
	endpoint = gate.wrap(endpoint)
	endpoint = readBody(endpoint, o.BodyTimeout, func(r *http.Request) (string, int64) {
		if p, ok := auth.FromTokenInfo(sdkauth.TokenInfoFromContext(r.Context())); ok {
			return p.Name, p.Limits.MaxInputBytes
		}
		return "the local user", o.MaxInputBytes
	})
	path := u.Path
	if path == "" {
		path = "/"
	}
	// Outermost first: who may connect at all, then the Origin, then (with
	// authentication) the bearer token, then the body.
	wrap := func(h http.Handler) http.Handler {
		h = writeDeadlines(checkOrigin(h, own, allowed), o.WriteTimeout)
		if o.LocalUserOnly {
			h = localUserOnly(h)
		}
		return h
	}
	mux := http.NewServeMux()
	if o.Verifier == nil {
		mux.Handle(path, wrap(endpoint))
		return mux, nil
	}
	mw, err := auth.Middleware(o.Verifier, o.Resource)
	if err != nil {
		return nil, err
	}
	mux.Handle(path, wrap(mw(auth.LimitInput(endpoint))))
	mdURL, err := auth.MetadataURL(o.Resource)
	if err != nil {
		return nil, err
	}
	md, err := url.Parse(mdURL)
	if err != nil {
		return nil, err
	}
	_, mdHandler := o.Policy.Auth.Metadata(o.Resource, o.AuthServers)
	mux.Handle(md.Path, writeDeadlines(mdHandler, o.WriteTimeout))
	return mux, nil
}
