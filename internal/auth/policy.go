package auth

import (
	"fmt"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// Principal is who a verified request comes from.
type Principal struct {
	// Name is the token's name or the JWT's subject.
	Name string
	// UserID is unique across sources: "token:NAME" or "jwt:ISSUER#SUBJECT".
	UserID string
	// Grants are the grants held, in the contract's grant_order.
	Grants []string
	// Workspace names the directory the principal's images, previews, exports and
	// context live in: a #Name, never a path. Principals with the same Workspace share
	// it.
	Workspace string
	// Limits are the principal's rate, concurrency and input limits.
	Limits contract.Limits
}

// principalKey is the TokenInfo.Extra key the principal travels under.
const principalKey = "darkroom.principal"

// TokenInfo wraps p for the go-sdk middleware: the grants as scopes, the user ID for
// session binding, and p itself in Extra. Expiration is exp for a JWT; a file token
// has none, so the middleware must run with AllowMissingExpiration (the JWT verifier
// checks exp itself).
func (p *Principal) tokenInfo() *sdkauth.TokenInfo {
	return &sdkauth.TokenInfo{
		Scopes: slices.Clone(p.Grants),
		UserID: p.UserID,
		Extra:  map[string]any{principalKey: p},
	}
}

// FromTokenInfo returns the principal a verifier of this package put in ti (a tool
// handler passes req.Extra.TokenInfo), or false when there is none.
func FromTokenInfo(ti *sdkauth.TokenInfo) (*Principal, bool) {
	if ti == nil {
		return nil, false
	}
	p, ok := ti.Extra[principalKey].(*Principal)
	return p, ok && p != nil
}

// ToolMeta is what the policy needs to know of a tool: its name, group and
// annotations, as the contract declares them.
type ToolMeta struct {
	Name        string
	Group       string
	ReadOnly    bool
	Destructive bool
}

// MetaOf returns the policy's view of a contract tool.
func MetaOf(t *contract.Tool) ToolMeta {
	return ToolMeta{Name: t.Name, Group: t.Group, ReadOnly: t.Annotations.ReadOnly, Destructive: t.Annotations.Destructive}
}

// Policy decides which calls a principal's grants allow (contracts/grants.cue).
type Policy struct {
	grants   []contract.Grant // in grant_order
	byName   map[string]contract.Grant
	defaults contract.Limits
	c        *contract.Contract
}

// NewPolicy reads the grants and the default limits from the contract.
func NewPolicy(c *contract.Contract) (*Policy, error) {
	gs, err := c.Grants()
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	d, err := c.LimitDefaults()
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p := &Policy{grants: gs, byName: map[string]contract.Grant{}, defaults: d, c: c}
	for _, g := range gs {
		p.byName[g.Name] = g
	}
	return p, nil
}

// GrantNames returns the contract's grants in grant_order.
func (p *Policy) GrantNames() []string {
	names := make([]string, len(p.grants))
	for i, g := range p.grants {
		names[i] = g.Name
	}
	return names
}

// Defaults returns the limits of a principal whose token sets none.
func (p *Policy) Defaults() contract.Limits { return p.defaults }

// checkGrants returns grants in grant_order without repeats, or invalid_input for a
// name that is not a grant.
func (p *Policy) checkGrants(grants []string) ([]string, error) {
	var out []string
	for _, g := range grants {
		if _, ok := p.byName[g]; !ok {
			return nil, darkroom.Errorf(darkroom.InvalidInput, "grants: %q is not one of %s", g, strings.Join(p.GrantNames(), ", "))
		}
	}
	for _, g := range p.grants {
		if slices.Contains(grants, g.Name) {
			out = append(out, g.Name)
		}
	}
	return out, nil
}

// Allow returns nil when one of the principal's grants allows the tool, else a
// permission_error naming the first grant in grant_order that would (details: tool,
// needed, allowed_by, held).
func (p *Policy) Allow(pr *Principal, t ToolMeta) error {
	var allowedBy []string
	for _, g := range p.grants {
		if g.Allows(t.Group, t.ReadOnly, t.Destructive) {
			if slices.Contains(pr.Grants, g.Name) {
				return nil
			}
			allowedBy = append(allowedBy, g.Name)
		}
	}
	held := "no grant"
	if len(pr.Grants) > 0 {
		held = strings.Join(pr.Grants, ", ")
	}
	if len(allowedBy) == 0 {
		// The contract's own check (every tool reachable by admin) makes this a bug.
		return darkroom.Errorf(darkroom.PermissionError, "%s: no grant allows it (group %s); %s holds %s", t.Name, t.Group, pr.Name, held)
	}
	e := darkroom.Errorf(darkroom.PermissionError, "%s needs the %s grant; %s holds %s", t.Name, allowedBy[0], pr.Name, held)
	e.Details = map[string]any{
		"tool":       t.Name,
		"needed":     allowedBy[0],
		"allowed_by": allowedBy,
		"held":       append([]string{}, pr.Grants...),
	}
	return e
}
