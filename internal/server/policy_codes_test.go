package server

import (
	"context"
	"slices"
	"testing"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// Every refusal the HTTP policy can make, for every tool, reaches the client with
// its own code: each is in the tool's declared errors, so a client can rely on the
// declared set (an undeclared code would come back as internal_error). The
// refusals are made by the policy's own parts: the grants (a principal holding
// none), the limiter (a second call where one may run) and the time limit (a
// context past its deadline, as the policy starts it).
func TestPolicyRefusalsAreDeclared(t *testing.T) {
	c, _ := packtest.Builtin(t)
	p, err := NewPolicy(c, 1e-12) // every time limit a nanosecond at most
	if err != nil {
		t.Fatal(err)
	}
	s := testServer(t)
	nobody := &auth.Principal{Name: "nobody", UserID: "token:nobody"}
	one := contract.Limits{RequestsPerMinute: 6000, Burst: 100, ConcurrentCalls: 1, MaxInputBytes: 1 << 20}
	tools := c.Tools
	if len(tools) < 30 {
		t.Fatalf("only %d tools: the check would be vacuous", len(tools))
	}
	for _, tool := range tools {
		refusals := map[string]error{}
		refusals[darkroom.PermissionError] = p.Auth.Allow(nobody, auth.MetaOf(tool))

		release, err := p.Limiter.Acquire("busy:"+tool.Name, one)
		if err != nil {
			t.Fatal(err)
		}
		_, refusals[darkroom.LimitExceeded] = p.Limiter.Acquire("busy:"+tool.Name, one)
		release()

		ctx, cancel := p.Deadlines.Start(context.Background(), tool.Name, tool.Group)
		<-ctx.Done()
		rec := &callRecord{ctx: ctx}
		refusals[darkroom.Timeout] = timeLimited(context.WithValue(ctx, callRecordKey{}, rec), ctx.Err())
		cancel()

		for code, err := range refusals {
			if darkroom.Code(err) != code {
				t.Fatalf("%s: the policy's refusal is %v, want %s", tool.Name, err, code)
			}
			if !slices.Contains(tool.Errors, code) {
				t.Errorf("%s does not declare %s, which the policy answers", tool.Name, code)
			}
			if env := s.failure(tool, err); env.Error.Code != code {
				t.Errorf("%s: the policy's %s reached the client as %s", tool.Name, code, env.Error.Code)
			}
		}
	}
}
