package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
)

// Every request a principal sends passes the policy, not only tools/call: a
// resource read, a prompt, a completion, a listing, initialize and ping each mirror
// a tool, whose grants they need and whose rate, concurrency and time limit they
// count against. What a method reveals decides the tool it mirrors:
//
//   - resources/read of an image's state: get_state; of a preview or comparison
//     (darkroom://images/<id>/preview, darkroom://workspace/previews/…):
//     render_preview; of an export: export_final.
//   - resources/list and resources/templates/list (the workspace's image ids),
//     resources/subscribe and completion/complete (image ids again): get_state.
//   - initialize, ping, tools/list, prompts/list, prompts/get and any other method:
//     get_contract, which every grant allows; they still count against the rate and
//     the concurrency.
//
// Notifications (notifications/cancelled above all) are never refused: they cost
// nothing and cancelling must always work. tools/call passes the policy in its
// handler (Policy.begin), which answers refusals inside the envelope.
func (s *Server) meterMethods(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		name := mirroredTool(method, req)
		t, ok := s.Contract.Tool(name)
		if !ok {
			return nil, policyWireError(darkroom.Errorf(darkroom.InternalError, "%s: the tool it mirrors, %s, is not in the contract", method, name))
		}
		var pr *auth.Principal
		if ex := req.GetExtra(); ex != nil {
			pr, ok = auth.FromTokenInfo(ex.TokenInfo)
		}
		if !ok {
			return nil, policyWireError(darkroom.Errorf(darkroom.PermissionError, "%s: the request carries no verified principal", method))
		}
		if err := s.policy.Auth.Allow(pr, auth.MetaOf(t)); err != nil {
			return nil, policyWireError(prefixed(method, name, err))
		}
		release, err := s.policy.Limiter.Acquire(pr.UserID, pr.Limits)
		if err != nil {
			return nil, policyWireError(err)
		}
		defer release()
		ctx, cancel := s.policy.Deadlines.Start(ctx, t.Name, t.Group)
		defer cancel()
		return next(ctx, method, req)
	}
}

// mirroredTool names the tool whose grants and limits a method of the protocol
// passes (see meterMethods).
func mirroredTool(method string, req mcp.Request) string {
	switch method {
	case "resources/read":
		var uri string
		if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok && p != nil {
			uri = p.URI
		}
		switch {
		case strings.HasPrefix(uri, imagesURI) && strings.HasSuffix(uri, "/preview"),
			strings.HasPrefix(uri, workspaceURI+"previews/"):
			return "render_preview"
		case strings.HasPrefix(uri, workspaceURI+"exports/"):
			return "export_final"
		}
		return "get_state"
	case "resources/list", "resources/templates/list", "resources/subscribe", "resources/unsubscribe", "completion/complete":
		return "get_state"
	}
	return "get_contract"
}

// prefixed says which method a refusal of the tool it mirrors was about.
func prefixed(method, tool string, err error) error {
	var de *darkroom.Error
	if !errors.As(err, &de) {
		return err
	}
	c := *de
	c.Message = method + " (as " + tool + "): " + de.Message
	return &c
}

// Codes of JSON-RPC errors the policy answers to methods other than tools/call,
// which have no envelope: the server-defined range, one per darkroom code, the
// darkroom code itself and its details in data.
const (
	codePolicyRefused = -32001 // permission_error
	codeLimited       = -32002 // limit_exceeded
	codeTimedOut      = -32003 // timeout
)

// policyWireError is the JSON-RPC error of a coded refusal: "<code>: <message>", with
// data {code, details}.
func policyWireError(err error) error {
	code := darkroom.Code(err)
	num := int64(jsonrpc.CodeInternalError)
	switch code {
	case darkroom.PermissionError:
		num = codePolicyRefused
	case darkroom.LimitExceeded:
		num = codeLimited
	case darkroom.Timeout:
		num = codeTimedOut
	}
	data := map[string]any{"code": code}
	var de *darkroom.Error
	msg := err.Error()
	if errors.As(err, &de) {
		msg = de.Message
		if de.Details != nil {
			data["details"] = de.Details
		}
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: num, Message: code + ": " + msg, Data: raw}
}
