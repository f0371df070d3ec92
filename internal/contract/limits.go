package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"cuelang.org/go/cue"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Grant is what one grant allows (contracts/grants.cue): the tools of Groups, only
// the read-only ones when ReadOnlyOnly, the destructive ones only when Destructive.
type Grant struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Groups       []string `json:"groups"`
	ReadOnlyOnly bool     `json:"readOnlyOnly"`
	Destructive  bool     `json:"destructive"`
}

// Allows reports whether the grant allows a tool of group with these annotations.
func (g Grant) Allows(group string, readOnly, destructive bool) bool {
	if g.ReadOnlyOnly && !readOnly || destructive && !g.Destructive {
		return false
	}
	for _, x := range g.Groups {
		if x == group {
			return true
		}
	}
	return false
}

// Grants returns the contract's grants in grant_order, from the one that allows
// least to the one that allows most.
func (c *Contract) Grants() ([]Grant, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var order []string
	if err := c.value().LookupPath(cue.ParsePath("grant_order")).Decode(&order); err != nil {
		return nil, fmt.Errorf("grant_order: %s", FormatError(err))
	}
	var specs map[string]Grant
	if err := c.value().LookupPath(cue.ParsePath("grants")).Decode(&specs); err != nil {
		return nil, fmt.Errorf("grants: %s", FormatError(err))
	}
	gs := make([]Grant, len(order))
	for i, name := range order {
		gs[i] = specs[name]
		gs[i].Name = name
	}
	return gs, nil
}

// Limits bound one principal's traffic (#Limits in contracts/grants.cue).
type Limits struct {
	RequestsPerMinute int   `json:"requests_per_minute"`
	Burst             int   `json:"burst"`
	ConcurrentCalls   int   `json:"concurrent_calls"`
	MaxInputBytes     int64 `json:"max_input_bytes"`
}

// LimitDefaults returns the limits a principal has when its token sets none.
func (c *Contract) LimitDefaults() (Limits, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var l Limits
	if err := c.value().LookupPath(cue.ParsePath("limit_defaults")).Decode(&l); err != nil {
		return Limits{}, fmt.Errorf("limit_defaults: %s", FormatError(err))
	}
	return l, nil
}

// CheckLimits checks limits against #Limits: a token's own limits must lie within
// the contract's bounds. Errors are invalid_input naming the field and the bound.
func (c *Contract) CheckLimits(l Limits) error {
	raw, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("limits: %w", err)
	}
	_, err = c.CheckValue(c.Lookup("#Limits"), "limits", raw)
	return err
}

// TimeLimits bound each tool call's wall time (time_limits in contracts/grants.cue).
type TimeLimits struct {
	Default time.Duration
	Groups  map[string]time.Duration
	Tools   map[string]time.Duration
}

// For returns the time limit of a tool: its own, else its group's, else the default.
func (t TimeLimits) For(tool, group string) time.Duration {
	if d, ok := t.Tools[tool]; ok {
		return d
	}
	if d, ok := t.Groups[group]; ok {
		return d
	}
	return t.Default
}

// TimeLimits returns the contract's per-tool time limits.
func (c *Contract) TimeLimits() (TimeLimits, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var raw struct {
		DefaultMS int64            `json:"default_ms"`
		Groups    map[string]int64 `json:"groups"`
		Tools     map[string]int64 `json:"tools"`
	}
	if err := c.value().LookupPath(cue.ParsePath("time_limits")).Decode(&raw); err != nil {
		return TimeLimits{}, fmt.Errorf("time_limits: %s", FormatError(err))
	}
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	t := TimeLimits{Default: ms(raw.DefaultMS), Groups: map[string]time.Duration{}, Tools: map[string]time.Duration{}}
	for g, n := range raw.Groups {
		t.Groups[g] = ms(n)
	}
	for n, v := range raw.Tools {
		t.Tools[n] = ms(v)
	}
	return t, nil
}

// CheckName checks s against #Name (snake_case), the names of tokens and
// workspaces as of tools, entries and packs. Errors are invalid_input.
func (c *Contract) CheckName(field, s string) error {
	raw, err := json.Marshal(map[string]string{field: s})
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	c.mu.Lock()
	name := c.value().LookupPath(cue.MakePath(cue.Def("Name")))
	schema := c.value().Context().CompileString("{}").FillPath(cue.MakePath(cue.Str(field)), name)
	c.mu.Unlock()
	if _, err = c.CheckValue(schema, field, raw); err != nil {
		var e *darkroom.Error
		if errors.As(err, &e) {
			// The field's message names the field already.
			e.Message = strings.TrimPrefix(e.Message, field+": ")
		}
		return err
	}
	return nil
}

// SessionLimits bound one principal's Streamable HTTP sessions (sessions in
// contracts/grants.cue).
type SessionLimits struct {
	PerPrincipal int
	Idle         time.Duration
}

// SessionLimits returns how many sessions a principal may hold and how long an idle
// one lives.
func (c *Contract) SessionLimits() (SessionLimits, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var raw struct {
		PerPrincipal int   `json:"per_principal"`
		IdleMS       int64 `json:"idle_ms"`
	}
	if err := c.value().LookupPath(cue.ParsePath("sessions")).Decode(&raw); err != nil {
		return SessionLimits{}, fmt.Errorf("sessions: %s", FormatError(err))
	}
	return SessionLimits{PerPrincipal: raw.PerPrincipal, Idle: time.Duration(raw.IdleMS) * time.Millisecond}, nil
}

// SamplingWait returns how long a call waits for the client's model to answer its
// sampling requests (time_limits.sampling_ms).
func (c *Contract) SamplingWait() (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ms int64
	if err := c.value().LookupPath(cue.ParsePath("time_limits.sampling_ms")).Decode(&ms); err != nil {
		return 0, fmt.Errorf("time_limits.sampling_ms: %s", FormatError(err))
	}
	return time.Duration(ms) * time.Millisecond, nil
}
