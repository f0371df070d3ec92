package augment

import (
	"encoding/json"
	"fmt"

	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Group is the container a step belongs to (#StepGroup): consecutive steps with the
// same ID are its members.
//
//   - one_of: with probability P exactly one member fires, drawn with the members' p
//     as weights (albumentations OneOf);
//   - some_of: with probability P, N members drawn with their p as weights, with or
//     without replacement; a member drawn twice fires once (albumentations SomeOf
//     would apply it twice);
//   - one_or_other: the first member with probability P, else the last;
//   - sequential: with probability P, then each member with its own p.
//
// A group's draws hang off its own key, Hash(seed, n, first member's index, 3), so
// like a step's they depend on nothing but the seed, the variant and its place.
type Group struct {
	ID      int     `json:"id"`
	Kind    string  `json:"kind"`
	P       float64 `json:"p"`
	N       int     `json:"n"`
	Replace bool    `json:"replace"`
}

// firing decides which steps of variant n fire: a step on its own with its p (the
// draw every pipeline made before groups), a group's members as the group decides.
func (p Pipeline) firing(seed uint64, n int) []bool {
	out := make([]bool, len(p))
	for t := 0; t < len(p); {
		s := p[t]
		if s.Group == nil {
			out[t] = fires(stepKey(seed, n, t), s.P)
			t++
			continue
		}
		end := t + 1
		for end < len(p) && p[end].Group != nil && p[end].Group.ID == s.Group.ID {
			end++
		}
		g := s.Group
		gk := engine.Hash(seed, n, t, 3)
		on := engine.Uniform(engine.Hash(gk, 0, 0, 0)) < g.P
		members := p[t:end]
		switch g.Kind {
		case "sequential":
			for i := range members {
				out[t+i] = on && fires(stepKey(seed, n, t+i), members[i].P)
			}
		case "one_or_other":
			if on {
				out[t] = true
			} else {
				out[end-1] = true
			}
		case "one_of", "some_of":
			if !on {
				break
			}
			draws := 1
			if g.Kind == "some_of" {
				draws = max(g.N, 1)
			}
			taken := make([]bool, len(members))
			for k := range draws {
				total := 0.0
				for i, m := range members {
					if g.Replace || !taken[i] {
						total += m.P
					}
				}
				if total <= 0 {
					break
				}
				u := engine.Uniform(engine.Hash(gk, 1+k, 0, 0)) * total
				pick := -1
				for i, m := range members {
					if !g.Replace && taken[i] || m.P <= 0 {
						continue
					}
					pick = i
					if u < m.P {
						break
					}
					u -= m.P
				}
				if pick >= 0 {
					taken[pick] = true
					out[t+pick] = true
				}
			}
		}
		t = end
	}
	return out
}

// checkGroup checks step i's group: its members are consecutive and agree on the
// group, and a one_or_other has two.
func checkGroup(p Pipeline, i int) error {
	g := p[i].Group
	if g == nil {
		return nil
	}
	field := fmt.Sprintf("pipeline[%d].group", i)
	switch g.Kind {
	case "one_of", "some_of", "one_or_other", "sequential":
	default:
		return fieldError(field+".kind", "%s: kind %q is not one_of, some_of, one_or_other or sequential", field, g.Kind)
	}
	if !(g.P >= 0 && g.P <= 1) {
		return fieldError(field+".p", "%s: p %v is outside [0, 1]", field, g.P)
	}
	if i > 0 && p[i-1].Group != nil && p[i-1].Group.ID == g.ID {
		if *p[i-1].Group != *g {
			return fieldError(field, "%s: group %d is described differently by its members", field, g.ID)
		}
		return nil
	}
	// The first member: no earlier step may have used the id.
	for j := 0; j < i; j++ {
		if p[j].Group != nil && p[j].Group.ID == g.ID {
			return fieldError(field+".id", "%s: the members of group %d are not consecutive", field, g.ID)
		}
	}
	if g.Kind == "one_or_other" {
		n := 0
		for j := i; j < len(p) && p[j].Group != nil && p[j].Group.ID == g.ID; j++ {
			n++
		}
		if n != 2 {
			return fieldError(field, "%s: a one_or_other group has 2 members, not %d", field, n)
		}
	}
	return nil
}

// UnmarshalJSON reads a group with the contract's defaults: p 1, n 1, replace true.
func (g *Group) UnmarshalJSON(b []byte) error {
	type plain Group
	v := struct {
		plain
		P       *float64 `json:"p"`
		N       *int     `json:"n"`
		Replace *bool    `json:"replace"`
	}{}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*g = Group(v.plain)
	g.P, g.N, g.Replace = 1, 1, true
	if v.P != nil {
		g.P = *v.P
	}
	if v.N != nil {
		g.N = *v.N
	}
	if v.Replace != nil {
		g.Replace = *v.Replace
	}
	return nil
}
