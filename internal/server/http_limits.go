package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// What a connection may cost the Streamable HTTP server, besides what each call may
// (the Policy) and each principal's sessions (sessionCap). A request's headers must
// arrive within ReadHeaderTimeout and its body within BodyTimeout; the server writes
// each piece of a response within WriteTimeout or drops the connection; a
// keep-alive connection idle for IdleTimeout is closed. A stream of server-sent
// events lives as long as its call or session: the write limit is per write, not per
// response, so a client that stops reading loses its stream and one that reads keeps
// it.
const (
	// ReadHeaderTimeout bounds the arrival of a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// BodyTimeout bounds the arrival of a request's body: 24 MiB at 512 KiB/s.
	BodyTimeout = 60 * time.Second
	// WriteTimeout bounds each write of a response (an SSE event, a flush).
	WriteTimeout = 60 * time.Second
	// IdleTimeout closes a keep-alive connection with no request for this long.
	IdleTimeout = 2 * time.Minute
)

// readBody reads a POST's body whole before the endpoint sees it, bounded in size
// by limit (the principal's max_input_bytes) and in time by BodyTimeout. A body
// announced or grown larger is 413 naming the limit, one that does not arrive in time
// 408. The endpoint then reads it from memory: the SDK reads every body whole
// anyway, and its own 4 MiB bound is lifted since this one applies.
//
// The time bound is a read deadline set for the body alone, not http.Server's
// ReadTimeout: that one would also end a GET's event stream, whose connection the
// server keeps reading to notice a client that hangs up.
func readBody(next http.Handler, timeout time.Duration, limit func(*http.Request) (who string, n int64)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		who, n := limit(r)
		tooLarge := func(got string) {
			http.Error(w, fmt.Sprintf("a request of %s bytes is over %s's limit of %d bytes", got, who, n), http.StatusRequestEntityTooLarge)
		}
		if r.ContentLength > n {
			tooLarge(fmt.Sprint(r.ContentLength))
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
		b, err := io.ReadAll(io.LimitReader(r.Body, n+1))
		if err == nil && int64(len(b)) <= n {
			_ = rc.SetReadDeadline(time.Time{})
		}
		// Otherwise the deadline stays: the server discards what is left of a body
		// the handler did not read before it answers, and must not wait for it.
		var ne net.Error
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe), err == nil && int64(len(b)) > n:
			tooLarge("more than " + fmt.Sprint(n))
			return
		case errors.As(err, &ne) && ne.Timeout():
			http.Error(w, fmt.Sprintf("the request body did not arrive within %s", timeout), http.StatusRequestTimeout)
			return
		case err != nil:
			http.Error(w, "read the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		next.ServeHTTP(w, r)
	})
}

// writeDeadlines gives each write of a response WriteTimeout to complete (see the
// constants above).
func writeDeadlines(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
		dw.extend()
		// The server finishes the response after the handler returns (the last
		// chunk), perhaps long after the last event: give that its own time.
		defer dw.extend()
		next.ServeHTTP(dw, r)
	})
}

type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) WriteHeader(code int) {
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(b)
}

func (w *deadlineWriter) Flush() {
	w.extend()
	_ = w.rc.Flush()
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkOrigin refuses with 403 a request whose Origin header names another site
// than the endpoint's own (the resource URL's scheme, host and port) or one of
// allowed, as the MCP transport requires of servers: a web page's script must not
// reach a server its user runs. A request without Origin (not from a browser) passes.
func checkOrigin(next http.Handler, own string, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := r.Header.Get("Origin")
		if o == "" {
			next.ServeHTTP(w, r)
			return
		}
		if c, err := CanonicalOrigin(o); err == nil && (c == own || slices.Contains(allowed, c)) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not this server's (%s) nor one allowed with --allow-origin", o, own), http.StatusForbidden)
	})
}

// CanonicalOrigin returns an origin as browsers send it: scheme://host[:port], in
// lower case, without the scheme's default port. Anything else (a path, "null", no
// host) is an error.
func CanonicalOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("origin %q is not scheme://host[:port] (http or https)", s)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
}

// sessionCap bounds each principal's sessions (the contract's
// sessions.per_principal): an initialize past the limit is refused, and a session
// leaves the count when it ends (DELETE, idle timeout, server shutdown).
type sessionCap struct {
	max int

	mu  sync.Mutex
	all map[string]map[*mcp.ServerSession]struct{}
}

func newSessionCap(lim contract.SessionLimits) *sessionCap {
	return &sessionCap{max: lim.PerPrincipal, all: map[string]map[*mcp.ServerSession]struct{}{}}
}

// principalOf names who a request comes from: the verified principal's user id and
// name, or the local user when the server has no authentication.
func principalOf(ti *sdkauth.TokenInfo) (id, name string) {
	if p, ok := auth.FromTokenInfo(ti); ok {
		return p.UserID, p.Name
	}
	return "", "the local user"
}

func (c *sessionCap) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if method != "initialize" || !ok {
			return next(ctx, method, req)
		}
		var ti *sdkauth.TokenInfo
		if ex := req.GetExtra(); ex != nil {
			ti = ex.TokenInfo
		}
		id, name := principalOf(ti)
		c.mu.Lock()
		set := c.all[id]
		if _, held := set[ss]; !held {
			if len(set) >= c.max {
				c.mu.Unlock()
				e := darkroom.Errorf(darkroom.LimitExceeded, "%s already holds %d sessions, the most at once: end one (HTTP DELETE) or let an idle one expire", name, c.max)
				e.Details = map[string]any{"limit": "sessions", "sessions": c.max}
				return nil, policyWireError(e)
			}
			if set == nil {
				set = map[*mcp.ServerSession]struct{}{}
				c.all[id] = set
			}
			set[ss] = struct{}{}
			go func() {
				_ = ss.Wait()
				c.mu.Lock()
				delete(set, ss)
				if len(c.all[id]) == 0 {
					delete(c.all, id)
				}
				c.mu.Unlock()
			}()
		}
		c.mu.Unlock()
		return next(ctx, method, req)
	}
}
