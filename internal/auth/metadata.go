package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/darkroom-mcp/darkroom/internal/limits"
)

// wellKnown is the RFC 9728 path prefix of a protected resource's metadata.
const wellKnown = "/.well-known/oauth-protected-resource"

// MetadataURL returns where the metadata of resource (the MCP endpoint's URL, such
// as https://photos.example/mcp) is served, per RFC 9728 §3.1: the well-known path
// goes between the host and the resource's path
// (https://photos.example/.well-known/oauth-protected-resource/mcp). Its path is
// what the server mounts Metadata on.
func MetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("resource %q has a query or fragment (RFC 9728 §2 forbids them)", resource)
	}
	m := *u
	m.Path = wellKnown + strings.TrimSuffix(u.Path, "/")
	m.RawPath = ""
	return m.String(), nil
}

// Metadata returns the protected-resource metadata document of resource and its
// handler: the resource, the authorization servers a client gets tokens from (none
// for file tokens only), the grants as scopes_supported, and the header as the only
// bearer method.
func (p *Policy) Metadata(resource string, authServers []string) (*oauthex.ProtectedResourceMetadata, http.Handler) {
	md := &oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   authServers,
		ScopesSupported:        p.GrantNames(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "darkroom",
	}
	return md, sdkauth.ProtectedResourceMetadataHandler(md)
}

// Middleware is auth.RequireBearerToken set up for darkroom: a request without a
// valid token gets 401 with WWW-Authenticate naming the metadata URL. File tokens
// carry no expiry, so the middleware's own exp check is off; the JWT verifier checks
// exp itself.
func Middleware(verify sdkauth.TokenVerifier, resource string) (func(http.Handler) http.Handler, error) {
	mdURL, err := MetadataURL(resource)
	if err != nil {
		return nil, err
	}
	return sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{
		ResourceMetadataURL:    mdURL,
		AllowMissingExpiration: true,
	}), nil
}

// LimitInput bounds each request body by its principal's max_input_bytes; it goes
// after Middleware, which put the principal in the context. A body announced larger
// is refused at once with 413 and the limit; one that grows past it while read fails
// the read (http.MaxBytesReader), so no principal makes the server buffer more.
func LimitInput(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := FromTokenInfo(sdkauth.TokenInfoFromContext(r.Context()))
		if !ok {
			http.Error(w, "no principal: LimitInput runs behind the bearer token middleware", http.StatusInternalServerError)
			return
		}
		if err := limits.CheckInput(p.Name, r.ContentLength, p.Limits); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, p.Limits.MaxInputBytes)
		}
		next.ServeHTTP(w, r)
	})
}
