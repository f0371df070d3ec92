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
}

// sessionTimeout closes a session idle for this long, so clients that vanish do not
// keep their state.
const sessionTimeout = 30 * time.Minute

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
	opts := &mcp.StreamableHTTPOptions{
		Logger:         o.Logger,
		EventStore:     mcp.NewMemoryEventStore(nil),
		SessionTimeout: sessionTimeout,
		// With authentication a request must carry a token, which a page that
		// rebinds a name to 127.0.0.1 does not have; and a reverse proxy on the same
		// host forwards the public Host. Without authentication the SDK's DNS
		// rebinding protection stays on.
		DisableLocalhostProtection: o.Verifier != nil,
	}
	var endpoint http.Handler = mcp.NewStreamableHTTPHandler(getServer, opts)
	path := u.Path
	if path == "" {
		path = "/"
	}
	mux := http.NewServeMux()
	if o.Verifier == nil {
		mux.Handle(path, endpoint)
		return mux, nil
	}
	mw, err := auth.Middleware(o.Verifier, o.Resource)
	if err != nil {
		return nil, err
	}
	mux.Handle(path, mw(auth.LimitInput(endpoint)))
	mdURL, err := auth.MetadataURL(o.Resource)
	if err != nil {
		return nil, err
	}
	md, err := url.Parse(mdURL)
	if err != nil {
		return nil, err
	}
	_, mdHandler := o.Policy.Auth.Metadata(o.Resource, o.AuthServers)
	mux.Handle(md.Path, mdHandler)
	return mux, nil
}
