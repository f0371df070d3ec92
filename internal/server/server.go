package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"darkroom"
	"darkroom/internal/contract"
	"darkroom/internal/vocab"
)

// Server serves the contract's tools over MCP. Every tool is registered from the
// contract (name, title, description, annotations, schemas); a handler only computes
// the tool's data.
type Server struct {
	Contract *contract.Contract
	Vocab    *vocab.Vocabulary
	Logger   *slog.Logger
	// Workspace holds images and their history; the editing tools need it.
	Workspace *Workspace
	// WorkspaceErr, when Workspace is nil, says why the workspace could not be opened.
	WorkspaceErr error

	handlers map[string]handler
	// fault names a tool whose handler panics, from DARKROOM_FAULT: a test hook that
	// drives the internal_error path through the real binary.
	fault string
}

// handler computes a tool's data from checked arguments (defaults filled). It
// returns the data, a one-line summary for people, or a coded error.
type handler func(ctx context.Context, s *Server, args map[string]any) (data any, summary string, err error)

// handlers maps every tool to its handler; each group's file adds its own.
var handlers = map[string]handler{}

func register(name string, h handler) {
	if _, dup := handlers[name]; dup {
		panic("server: handler registered twice: " + name)
	}
	handlers[name] = h
}

// New checks that every contract tool has a handler and every handler a contract
// tool, and returns the server.
func New(c *contract.Contract, v *vocab.Vocabulary, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{Contract: c, Vocab: v, Logger: logger, handlers: handlers, fault: os.Getenv("DARKROOM_FAULT")}
	if missing, extra := s.Unmatched(); len(missing)+len(extra) > 0 {
		return nil, fmt.Errorf("tools without handlers: %v; handlers without tools: %v", missing, extra)
	}
	return s, nil
}

// Unmatched lists contract tools that have no handler and handlers that no
// contract tool declares.
func (s *Server) Unmatched() (missing, extra []string) {
	for _, t := range s.Contract.Tools {
		if _, ok := s.handlers[t.Name]; !ok {
			missing = append(missing, t.Name)
		}
	}
	for name := range s.handlers {
		if _, ok := s.Contract.Tool(name); !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	return missing, extra
}

// workspace returns the workspace, or unavailable when the server has none.
func (s *Server) workspace() (*Workspace, error) {
	if s.Workspace == nil {
		if s.WorkspaceErr != nil {
			return nil, s.WorkspaceErr
		}
		return nil, darkroom.Errorf(darkroom.Unavailable, "no workspace: start darkroom with --workspace DIR")
	}
	return s.Workspace, nil
}

// MCP builds the SDK server with every tool registered.
func (s *Server) MCP(version string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "darkroom", Title: "darkroom", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       s.Logger,
	})
	for _, t := range s.Contract.Tools {
		props, _ := t.InputSchema["properties"].(map[string]any)
		_, readsPaths := props["path"] // a file the client names: ingest
		srv.AddTool(MCPTool(t), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if readsPaths {
				if ask := s.clientRoots(req); ask != nil {
					return ask, nil
				}
			}
			return s.Call(context.WithValue(ctx, callRequestKey{}, req), t.Name, req.Params.Arguments), nil
		})
	}
	return srv
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
		Path *string `json:"path"`
	}
	if json.Unmarshal(req.Params.Arguments, &args) != nil || args.Path == nil {
		return nil
	}
	res, ok := req.Params.InputResponses[rootsRequest].(*mcp.ListRootsResult)
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
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
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
	res := &mcp.CallToolResult{StructuredContent: env, IsError: !env.Success}
	if !env.Success {
		summary = fmt.Sprintf("error %s: %s", env.Error.Code, env.Error.Message)
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: summary}}
	if c, ok := env.Data.(contentCarrier); ok && env.Success {
		res.Content = append(res.Content, c.Content()...)
	}
	return res
}

// contentCarrier is tool data that has more to show than its JSON: render_preview's
// picture. Call adds the content after the summary; Invoke (the CLI) leaves it out.
type contentCarrier interface {
	Content() []mcp.Content
}

// callRequestKey carries the MCP request of a tool call in its context, for
// handlers that talk to the client while they run.
type callRequestKey struct{}

// progress sends notifications/progress for the running tool call when its request
// carries a progress token; for the CLI, or a client that sent no token, it does
// nothing. A failure to notify only gets logged: the call goes on.
func (s *Server) progress(ctx context.Context, done, total float64, message string) {
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
	t, ok := s.Contract.Tool(name)
	if !ok {
		return s.failure(nil, darkroom.Errorf(darkroom.NotFound, "no tool named %q", name)), ""
	}
	args, err := t.Check(raw)
	if err != nil {
		return s.failure(t, err), ""
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
	if s.fault == t.Name {
		panic("fault injected by DARKROOM_FAULT")
	}
	return s.handlers[t.Name](ctx, s, args)
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
