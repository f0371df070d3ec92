package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augmentation"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Server serves the contract's tools over MCP. Every tool is registered from the
// contract (name, title, description, annotations, schemas); a handler decodes the
// checked arguments, calls the editing service and says what it did. The embedded
// Editor is that service (its Vocab, Workspace and Logger are the server's; its
// Facts are the contract's, and its Judge is the server, the boundary's check).
type Server struct {
	*edit.Editor
	// Contract is the loaded contract: the server is the boundary that checks
	// calls with it (check.go); the domain gets its plain facts (Editor.Facts).
	Contract *contract.Contract
	// aug runs augment_image, augment_dataset and the prompts over the editor's
	// workspace (internal/augmentation).
	aug *augmentation.Service

	handlers map[string]handler
	// traits are what the dispatcher does for a tool besides its handler
	// (tools.go), made on first use.
	traits     map[string]traits
	traitsOnce sync.Once
	seeds      seeds           // set_default_seed's, per session
	pending    pendingAugments // augment_image results awaiting options.verify's answers
	// fault names a tool whose handler panics: a test hook (WithFault) that drives
	// the internal_error path through the real handlers.
	fault struct{ tool, by string }
	// policy gates every tool call of the HTTP transport (WithPolicy); nil over stdio.
	policy *Policy
	// samplingWaitOverride, when positive, replaces the contract's sampling_ms
	// (WithSamplingWait).
	samplingWaitOverride time.Duration
	// tools, when set, is which tools MCP offers (WithTools).
	tools *ToolFilter
	// ready, when set (Defer), is closed once the contract is complete and the
	// vocabulary loaded; until then MCP answers only what needs neither.
	ready chan struct{}
	// deferred is the SDK server MCP built for a deferred server.
	deferred *mcp.Server
	// load starts what ends in Ready, once (loadOnce).
	load     func()
	loadOnce sync.Once
}

// handler computes a tool's data from checked arguments (defaults filled). It
// returns the data, a one-line summary for people, or a coded error.
type handler func(ctx context.Context, s *Server, args map[string]any) (data any, summary string, err error)

// Option configures a Server.
type Option func(*Server)

// WithFault makes the named tool's handler panic, saying it was injected by by: a
// test hook for the internal_error path. Only tests pass it (cmd/darkroom's read
// DARKROOM_FAULT in their TestMain); the release binary never reads that variable.
func WithFault(tool, by string) Option {
	return func(s *Server) { s.fault.tool, s.fault.by = tool, by }
}

// New checks that every contract tool has a handler and every handler a contract
// tool, and returns the server.
func New(c *contract.Contract, v *vocab.Vocabulary, logger *slog.Logger, opts ...Option) (*Server, error) {
	e := edit.New(c.Facts(), v, logger)
	s := &Server{Editor: e, Contract: c, aug: augmentation.New(e), handlers: tools()}
	s.Editor.Judge = s
	for _, o := range opts {
		o(s)
	}
	if missing, extra := s.Unmatched(); len(missing)+len(extra) > 0 {
		return nil, errUnmatched(missing, extra)
	}
	if err := checkAliases(c); err != nil {
		return nil, err
	}
	return s, nil
}

func errUnmatched(missing, extra []string) error {
	return fmt.Errorf("tools without handlers: %v; handlers without tools: %v", missing, extra)
}

// Unmatched lists contract tools that have no handler and handlers that no
// contract tool declares. A deprecated tool has no handler of its own: its
// replacement's serves it.
func (s *Server) Unmatched() (missing, extra []string) {
	for _, t := range s.Contract.Tools {
		if _, ok := s.handlers[t.Name]; !ok && t.Deprecated == nil {
			missing = append(missing, t.Name)
		}
	}
	for name := range s.handlers {
		if t, ok := s.Contract.Tool(name); !ok || t.Deprecated != nil {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	return missing, extra
}

// checkAliases refuses a contract whose deprecated tools cannot be served by their
// replacements: the replacement must exist and not be deprecated itself, rename
// must map parameters of the old tool to parameters of the replacement, the old
// tool must declare every error code the replacement returns, and its data must be
// the replacement's, since the replacement's handler computes it. The contract
// differ accepts such a contract (it reports the change); only serving it is wrong.
func checkAliases(c *contract.Contract) error {
	var errs []string
	for _, t := range c.Tools {
		d := t.Deprecated
		if d == nil {
			continue
		}
		r, ok := c.Tool(d.Replacement)
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s: replacement %s is not a tool", t.Name, d.Replacement))
			continue
		case r.Deprecated != nil:
			errs = append(errs, fmt.Sprintf("%s: replacement %s is deprecated too (name its own replacement)", t.Name, r.Name))
			continue
		}
		for _, from := range slices.Sorted(maps.Keys(d.Rename)) {
			to := d.Rename[from]
			if !slices.Contains(t.Params, from) {
				errs = append(errs, fmt.Sprintf("%s: rename %s: %s has no parameter %s", t.Name, from, t.Name, from))
			}
			if !slices.Contains(r.Params, to) {
				errs = append(errs, fmt.Sprintf("%s: rename %s: %s has no parameter %s", t.Name, from, r.Name, to))
			}
		}
		for _, code := range r.Errors {
			if !slices.Contains(t.Errors, code) {
				errs = append(errs, fmt.Sprintf("%s: does not declare %s, which its replacement %s returns", t.Name, code, r.Name))
			}
		}
		if !bytes.Equal(t.OutputSchemaJSON, r.OutputSchemaJSON) {
			errs = append(errs, fmt.Sprintf("%s: its data is not its replacement %s's data", t.Name, r.Name))
		}
	}
	if errs != nil {
		return fmt.Errorf("deprecated tools that cannot be served: %s", strings.Join(errs, "; "))
	}
	return nil
}

// DeprecationNote is what a deprecated tool's result says about it, one line; ""
// for a tool that is not deprecated.
func DeprecationNote(t *contract.Tool) string {
	if t == nil || t.Deprecated == nil {
		return ""
	}
	return fmt.Sprintf("%s is deprecated, use %s: this name may be removed after contract version %s",
		t.Name, t.Deprecated.Replacement, t.Deprecated.RemoveAfter)
}

// deprecationMeta is the _meta key of a deprecated tool's result.
const deprecationMeta = "darkroom/deprecation"

// MCP builds the SDK server with every tool registered.
func (s *Server) MCP(version string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "darkroom", Title: "darkroom", Version: version}, &mcp.ServerOptions{
		Instructions:      instructions,
		Logger:            s.Logger,
		CompletionHandler: s.complete,
	})
	if s.ready != nil {
		srv.AddReceivingMiddleware(s.holdUntilReady)
	}
	if s.policy != nil {
		srv.AddReceivingMiddleware(s.meterMethods)
	}
	s.addPrompts(srv)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "workspace-file",
		Title:       "A file darkroom wrote",
		Description: "A preview, comparison or export that a tool wrote under the workspace; tool results link to them (resource_link) with these URIs.",
		URITemplate: workspaceURI + "{+path}",
	}, s.readResource)
	s.addImageResources(srv)
	s.addTools(srv, s.Contract)
	if s.ready != nil {
		s.deferred = srv
	}
	return srv
}

// addTools registers the tools of c that the server offers.
func (s *Server) addTools(srv *mcp.Server, c *contract.Contract) {
	for _, t := range c.Tools {
		if s.tools != nil && !s.tools.offers(t) {
			continue
		}
		srv.AddTool(MCPTool(t), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if s.policy != nil {
				c, end, refused := s.policy.begin(ctx, s, t, req)
				if refused != nil {
					return refused, nil
				}
				defer end()
				ctx = c
			}
			if t.ReadsClientFiles && s.policy == nil {
				if ask := s.clientRoots(req); ask != nil {
					return ask, nil
				}
			}
			tr := s.traitsOf(t.Name)
			if tr.before != nil {
				if ask := tr.before(ctx, s, req); ask != nil {
					return ask, nil
				}
			}
			// A handler that must ask the client while it runs (augment_image's
			// options.verify) leaves the input requests in slot.
			slot := &askSlot{}
			ctx = context.WithValue(context.WithValue(ctx, callRequestKey{}, req), askKey{}, slot)
			res := s.Call(ctx, t.Name, req.Params.Arguments)
			if slot.res != nil {
				return slot.res, nil
			}
			if tr.after != nil {
				tr.after(s, srv, res)
			}
			return res, nil
		})
	}
}

// Files that tools write (previews, comparisons, exports) are MCP resources named
// darkroom://workspace/<path under the workspace>, and results link to them. A
// file:// URI would need the server's absolute path, which clients must not see
// (and which means nothing to a host that runs the server in a container); this
// scheme names the file relative to the workspace, and resources/read serves it
// to any client.
const (
	workspaceURI = "darkroom://workspace/"
	// maxResourceBytes bounds one resources/read: a 16-bit TIFF of a large photo is
	// over 100 MB, too much for one JSON-RPC message; such a file stays on disk
	// (data.path) and its link still names it.
	maxResourceBytes = 64 << 20
)

// resourceDirs are the workspace directories a client may read as resources: what
// render_preview, compare, export_final and augment_image write. Sources, history
// and context are not served.
var resourceDirs = []string{"previews", "exports", "augment"}

// resourceURI is the darkroom:// URI of a file the workspace holds (p absolute, or
// relative to the workspace), or ok false when p is not a file a client may read.
func (s *Server) resourceURI(p string) (uri string, ok bool) {
	if s.Workspace == nil {
		return "", false
	}
	rel := p
	if filepath.IsAbs(p) {
		var err error
		if rel, err = filepath.Rel(s.Workspace.Root, p); err != nil {
			return "", false
		}
	}
	rel = filepath.ToSlash(rel)
	if !servedPath(rel) {
		return "", false
	}
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return workspaceURI + strings.Join(segs, "/"), true
}

// servedPath reports whether a slash-separated path relative to the workspace names
// a file under one of the resourceDirs, with no . or .. elements.
func servedPath(rel string) bool {
	if !fs.ValidPath(rel) {
		return false
	}
	top, rest, found := strings.Cut(rel, "/")
	return found && rest != "" && slices.Contains(resourceDirs, top)
}

// readResource serves a darkroom://workspace/ URI: a regular file under the
// previews or exports, opened through os.Root so no symbolic link leads out of the
// workspace. Anything else is "resource not found", whether it exists or not.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	escaped, ok := strings.CutPrefix(uri, workspaceURI)
	if !ok || s.Workspace == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rel, err := url.PathUnescape(escaped)
	if err != nil || !servedPath(rel) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	root, err := os.OpenRoot(s.Workspace.Root)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if fi.Size() > maxResourceBytes {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("%s is %d bytes, over the %d a resource read may carry: read the file on disk", rel, fi.Size(), maxResourceBytes)}
	}
	release, err := resourceBytes.acquire(ctx, fi.Size())
	if err != nil {
		return nil, err
	}
	defer release()
	b, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil || int64(len(b)) > maxResourceBytes {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: fileMIME(rel), Blob: b}}}, nil
}

// fileMIME is the MIME type of a file darkroom writes, by its extension; a fixed
// table, so results do not depend on the machine's mime.types.
func fileMIME(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".tif", ".tiff":
		return "image/tiff"
	case ".webp":
		return "image/webp"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}

// rootsRequest names the roots/list input request of a tool call.
const rootsRequest = "roots"

// clientRoots makes the client's roots (MCP roots) the roots a call that names a
// path may read under, besides --allow-root. When the client offers roots, the call
// first answers with an input request for roots/list (SEP-2322): the SDK fulfils it
// (asking a client of an older protocol itself, or letting a client of the newer one
// answer) and calls again with the roots, so they are never stale. It returns that
// input request, or nil when the call can go on.
func (s *Server) clientRoots(req *mcp.CallToolRequest) *mcp.CallToolResult {
	if s.Workspace == nil || req.Session == nil || !offersRoots(req.Session.InitializeParams()) {
		return nil
	}
	var args struct {
		Path  *string `json:"path"`
		Input *string `json:"input"` // augment_dataset's folder
	}
	if json.Unmarshal(req.Params.Arguments, &args) != nil || args.Path == nil && args.Input == nil {
		return nil
	}
	res, ok := req.Params.InputResponses[rootsRequest].(*mcp.ListRootsResult)
	if !ok && req.Params.RequestState != "" {
		// A later round of the same call (augment_image's options.verify answers):
		// its first round asked for the roots, and they are set.
		return nil
	}
	if !ok {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsRequest: &mcp.ListRootsParams{}}}
	}
	var paths []string
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
			s.Logger.Warn("ignoring a root that is not a local file:// URI", "uri", r.URI)
			continue
		}
		paths = append(paths, filepath.FromSlash(u.Path))
	}
	for _, p := range s.Workspace.SetClientRoots(paths) {
		s.Logger.Warn("ignoring a client root that does not exist", "path", p)
	}
	return nil
}

func offersRoots(p *mcp.InitializeParams) bool {
	return p != nil && p.Capabilities != nil && (p.Capabilities.RootsV2 != nil || p.Capabilities.Roots.ListChanged)
}

const instructions = "darkroom edits photographs through a declared vocabulary of primitives. " +
	"Call get_contract once to check the contract version, list_vocabulary to see the primitives " +
	"and their parameters, list_masks_vocabulary for named masks. Every result is an envelope " +
	"{success, data, error}; on failure error.code is one of the contract's codes and " +
	"error.recoverable says whether fixing the call can help."

// MCPTool is the MCP description of a contract tool.
func MCPTool(t *contract.Tool) *mcp.Tool {
	destructive, openWorld := t.Annotations.Destructive, t.Annotations.OpenWorld
	desc := t.Description
	if t.Deprecated != nil {
		desc = fmt.Sprintf("Deprecated: use %s instead; this name may be removed after contract version %s.\n%s",
			t.Deprecated.Replacement, t.Deprecated.RemoveAfter, desc)
	}
	return &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: desc,
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    t.Annotations.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Annotations.Idempotent,
			OpenWorldHint:   &openWorld,
		},
		InputSchema:  t.InputSchemaJSON,
		OutputSchema: t.OutputSchemaJSON,
	}
}

// Envelope is the result every tool returns; its JSON is the tool's
// structuredContent and satisfies the tool's outputSchema.
type Envelope struct {
	Success bool       `json:"success"`
	Data    any        `json:"data"`
	Error   *ErrorInfo `json:"error"`
}

// ErrorInfo is the envelope's error.
type ErrorInfo struct {
	Code        string         `json:"code"`
	Message     string         `json:"message"`
	Details     map[string]any `json:"details"`
	Recoverable bool           `json:"recoverable"`
}

// Call validates a call's arguments, runs the handler and wraps the outcome in the
// envelope. It never returns a Go error and never panics: a handler's panic is an
// internal_error result and the server goes on.
func (s *Server) Call(ctx context.Context, name string, raw json.RawMessage) *mcp.CallToolResult {
	env, summary := s.Invoke(ctx, name, raw)
	return s.result(name, env, summary)
}

// result shapes a call's envelope as an MCP tool result: the one path for every
// result, those of Call and the transport's own refusals (errorResult) alike.
func (s *Server) result(name string, env Envelope, summary string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{StructuredContent: env, IsError: !env.Success}
	if !env.Success {
		summary = fmt.Sprintf("error %s: %s", env.Error.Code, env.Error.Message)
	}
	if t, ok := s.Contract.Tool(name); ok && t.Deprecated != nil {
		// The note rides in the line every host shows, and in _meta for programs.
		summary += " (" + DeprecationNote(t) + ")"
		res.Meta = mcp.Meta{deprecationMeta: map[string]any{
			"tool": t.Name, "replacement": t.Deprecated.Replacement, "removeAfter": t.Deprecated.RemoveAfter,
		}}
	}
	// content is for hosts that show a model only content, not structuredContent:
	// the summary line for people, then the envelope as JSON (the MCP spec's SHOULD
	// for a tool that returns structured content), then pictures as images and
	// files as links to their resources.
	res.Content = []mcp.Content{&mcp.TextContent{Text: summary}}
	if b, err := json.Marshal(env); err == nil {
		res.Content = append(res.Content, &mcp.TextContent{Text: string(b)})
	} else {
		s.Logger.Error("marshal the envelope", "tool", name, "err", err)
	}
	if !env.Success {
		return res
	}
	if c, ok := env.Data.(contentCarrier); ok {
		res.Content = append(res.Content, c.Content()...)
	}
	if f, ok := env.Data.(fileCarrier); ok {
		p, size := f.linkedFile()
		if uri, ok := s.resourceURI(p); ok {
			res.Content = append(res.Content, &mcp.ResourceLink{URI: uri, Name: path.Base(uri), MIMEType: fileMIME(uri), Size: &size})
		}
	}
	return res
}

// contentCarrier is tool data that has more to show than its JSON: render_preview's
// picture. Call adds the content after the summary; Invoke (the CLI) leaves it out.
type contentCarrier interface {
	Content() []mcp.Content
}

// fileCarrier is tool data that names a file the tool wrote (its path, absolute or
// relative to the workspace, and its size): Call links it as a resource.
type fileCarrier interface {
	linkedFile() (path string, bytes int64)
}

// callRequestKey carries the MCP request of a tool call in its context, for
// handlers that talk to the client while they run.
type callRequestKey struct{}

// notify sends the client a log message (notifications/message) at level, for what
// it should see beside a result: a photo read with a colour profile that is not
// sRGB, a step or an image an augmentation skipped. The SDK drops it unless the
// client asked for that level with logging/setLevel. The CLI has no client.
func (s *Server) notify(ctx context.Context, level mcp.LoggingLevel, msg string, data map[string]any) {
	req, _ := ctx.Value(callRequestKey{}).(*mcp.CallToolRequest)
	if req == nil || req.Session == nil {
		return
	}
	payload := map[string]any{"message": msg}
	for k, v := range data {
		payload[k] = v
	}
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "darkroom", Data: payload}); err != nil {
		s.Logger.Warn("log notification", "err", err)
	}
}

// progress sends notifications/progress for the running tool call when its request
// carries a progress token, and tells the ProgressFunc of WithProgress (the CLI's
// progress bar); for a client that sent no token it sends nothing. A failure to
// notify only gets logged: the call goes on.
func (s *Server) progress(ctx context.Context, done, total float64, message string) {
	noteProgress(ctx, done, total, message)
	tellProgress(ctx, done, total, message)
	req, _ := ctx.Value(callRequestKey{}).(*mcp.CallToolRequest)
	if req == nil || req.Session == nil || req.Params == nil {
		return
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return
	}
	err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token, Progress: done, Total: total, Message: message,
	})
	if err != nil {
		s.Logger.Warn("progress notification", "err", err)
	}
}

// Invoke is Call without the MCP wrapping; the CLI verbs use it, so the CLI and MCP
// share one code path per tool.
func (s *Server) Invoke(ctx context.Context, name string, raw json.RawMessage) (env Envelope, summary string) {
	if ctx == nil {
		ctx = context.Background()
	}
	t, ok := s.Contract.Tool(name)
	if !ok {
		return s.failure(nil, darkroom.Errorf(darkroom.NotFound, "no tool named %q", name)), ""
	}
	args, err := s.check(t, raw)
	if err != nil {
		return s.failure(t, err), ""
	}
	if d := t.Deprecated; d != nil {
		// Served by the replacement: the old arguments, checked and completed by
		// the old tool's params, renamed as the contract says.
		mapped := make(map[string]any, len(args))
		for k, v := range args {
			if to, ok := d.Rename[k]; ok {
				k = to
			}
			mapped[k] = v
		}
		b, err := json.Marshal(mapped)
		if err != nil {
			return s.failure(t, darkroom.Wrap(darkroom.InternalError, err, "%s: arguments for %s", t.Name, d.Replacement)), ""
		}
		return s.Invoke(ctx, d.Replacement, b)
	}
	data, summary, err := s.run(ctx, t, args)
	if err != nil {
		return s.failure(t, err), ""
	}
	return Envelope{Success: true, Data: data}, summary
}

func (s *Server) run(ctx context.Context, t *contract.Tool, args map[string]any) (data any, summary string, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.Logger.Error("handler panic", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			data, summary = nil, ""
			err = darkroom.Errorf(darkroom.InternalError, "%s: unexpected failure: %v", t.Name, p)
		}
	}()
	if s.fault.tool == t.Name {
		panic("fault injected by " + s.fault.by)
	}
	data, summary, err = s.handlers[t.Name](ctx, s, args)
	return data, summary, timeLimited(ctx, err)
}

// Failure is the error envelope of a call of the named tool that failed before it
// reached the server: the CLI's own argument errors, shaped as MCP's would be.
func (s *Server) Failure(name string, err error) Envelope {
	t, _ := s.Contract.Tool(name)
	return s.failure(t, err)
}

// failure builds the error envelope. A code the tool does not declare is a bug in
// darkroom, reported as internal_error so clients only ever see declared codes.
func (s *Server) failure(t *contract.Tool, err error) Envelope {
	code := darkroom.Code(err)
	msg := s.Workspace.Redact(err.Error())
	details := map[string]any{}
	var de *darkroom.Error
	if errors.As(err, &de) && de.Details != nil {
		details = de.Details
	}
	if t != nil && !slices.Contains(t.Errors, code) {
		s.Logger.Error("undeclared error code", "tool", t.Name, "code", code, "err", msg)
		details = map[string]any{"undeclared_code": code}
		code = darkroom.InternalError
	}
	ec, _ := s.Contract.ErrorCode(code)
	return Envelope{Error: &ErrorInfo{
		Code:        code,
		Message:     strings.TrimSpace(msg),
		Details:     details,
		Recoverable: ec.Recoverable,
	}}
}
