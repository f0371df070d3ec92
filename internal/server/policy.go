package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/limits"
)

// Policy is what the HTTP transport asks of every tool call, in order: who calls
// (auth.FromTokenInfo), whether their grants allow the tool (auth.Policy.Allow),
// whether their rate and concurrency limits admit one more call (limits.Limiter),
// and the tool's time limit (limits.Deadlines), whose end turns the handler's
// context error into timeout (limits.Result). Over stdio no Policy is set: the local
// user owns the process.
//
// The codes it answers (permission_error, limit_exceeded, timeout) are in every
// tool's declared errors (contracts/contract.cue, _policyErrors), so a refusal goes
// through the same declared-code check as a handler's error.
type Policy struct {
	Auth      *auth.Policy
	Limiter   *limits.Limiter
	Deadlines limits.Deadlines
	// SamplingWait bounds a call's wait for the client's sampling answers
	// (time_limits.sampling_ms, scaled as the time limits are).
	SamplingWait time.Duration
}

// NewPolicy reads the grants, the default limits and the time limits from the
// contract. scale multiplies every time limit (1 serves the contract's; a test
// passes a tiny scale to reach a limit at once).
func NewPolicy(c *contract.Contract, scale float64) (*Policy, error) {
	ap, err := auth.NewPolicy(c)
	if err != nil {
		return nil, err
	}
	tl, err := c.TimeLimits()
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if scale <= 0 {
		return nil, fmt.Errorf("policy: time limit scale %g is not positive", scale)
	}
	sw, err := c.SamplingWait()
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	sw = scaled(sw, scale)
	if scale != 1 {
		tl.Default = scaled(tl.Default, scale)
		for k, v := range tl.Groups {
			tl.Groups[k] = scaled(v, scale)
		}
		for k, v := range tl.Tools {
			tl.Tools[k] = scaled(v, scale)
		}
	}
	return &Policy{Auth: ap, Limiter: limits.New(nil), Deadlines: limits.Deadlines{Limits: tl}, SamplingWait: sw}, nil
}

func scaled[D ~int64](d D, f float64) D { return max(D(float64(d)*f), 1) }

// WithPolicy makes every tool call pass p (the HTTP transport's servers). A server
// with a policy also ignores the client's roots: a remote client's file:// roots
// name directories on the server's disk that its user never chose to share.
func WithPolicy(p *Policy) Option {
	return func(s *Server) { s.policy = p }
}

// callRecord is what the policy keeps of one running call: its time-limited context,
// and the last progress it reported, which a timeout gives as what was done.
type callRecord struct {
	ctx context.Context

	mu       sync.Mutex
	progress *mcp.ProgressNotificationParams
}

type callRecordKey struct{}

// begin admits a call: it returns the context to run it under and the function that
// ends it, or the refusal to answer instead.
func (p *Policy) begin(ctx context.Context, s *Server, t *contract.Tool, req *mcp.CallToolRequest) (context.Context, func(), *mcp.CallToolResult) {
	refuse := func(err error) (context.Context, func(), *mcp.CallToolResult) {
		return ctx, nil, s.result(t.Name, s.failure(t, err), "")
	}
	var ti = req.Extra
	pr, ok := (*auth.Principal)(nil), false
	if ti != nil {
		pr, ok = auth.FromTokenInfo(ti.TokenInfo)
	}
	if !ok {
		// The bearer token middleware runs before any call reaches here; a call
		// without a principal is a server set up wrong, refused rather than served.
		return refuse(darkroom.Errorf(darkroom.PermissionError, "%s: the call carries no verified principal", t.Name))
	}
	if err := p.Auth.Allow(pr, auth.MetaOf(t)); err != nil {
		return refuse(err)
	}
	release, err := p.Limiter.Acquire(pr.UserID, pr.Limits)
	if err != nil {
		return refuse(err)
	}
	tctx, cancel := p.Deadlines.Start(ctx, t.Name, t.Group)
	rec := &callRecord{ctx: tctx}
	tctx = context.WithValue(tctx, callRecordKey{}, rec)
	rec.ctx = tctx
	return tctx, func() { cancel(); release() }, nil
}

// noteProgress keeps the last progress of a call run under a policy.
func noteProgress(ctx context.Context, done, total float64, message string) {
	rec, _ := ctx.Value(callRecordKey{}).(*callRecord)
	if rec == nil {
		return
	}
	rec.mu.Lock()
	rec.progress = &mcp.ProgressNotificationParams{Progress: done, Total: total, Message: message}
	rec.mu.Unlock()
}

// timeLimited turns the error of a handler stopped by its tool's time limit into
// timeout, with the last progress it reported as what was done; any other error,
// and every error of a call run without a policy, is returned as it is.
func timeLimited(ctx context.Context, err error) error {
	rec, _ := ctx.Value(callRecordKey{}).(*callRecord)
	if rec == nil || err == nil {
		return err
	}
	done := map[string]any{}
	rec.mu.Lock()
	if pg := rec.progress; pg != nil {
		done["progress"] = pg.Progress
		if pg.Total > 0 { // 0 is a total not known yet (an export still decoding)
			done["total"] = pg.Total
		}
		if pg.Message != "" {
			done["message"] = pg.Message
		}
	}
	rec.mu.Unlock()
	res := limits.Result(rec.ctx, err, done)
	if darkroom.Code(res) == darkroom.Timeout {
		return res
	}
	return err
}
