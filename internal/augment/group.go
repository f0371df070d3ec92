package augment

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Group is the container a step belongs to (#StepGroup): consecutive steps with the
// same ID are its members. Parent is the group that holds it, so groups nest as
// albumentations' containers do (a OneOf inside a SomeOf); a member of a group is a
// step or a run of consecutive steps in one inner group. Each container, as
// albumentations 1.3.1 runs it (core/composition.py), where "picked" means called
// with force_apply:
//
//   - one_of: with probability P (or when picked) one member, drawn with the members'
//     p as weights (a group member's weight is its group's P), runs picked;
//   - some_of: with probability P (or when picked) N members, drawn with their p as
//     weights, with or without replacement, run picked in the order drawn (a member
//     drawn twice runs twice, with values drawn anew);
//   - one_or_other: the first member with probability P, else the last, picked;
//     its P is the choice even when it is picked itself;
//   - sequential: with probability P (or when picked), then each member with its
//     own p (albumentations' nested Compose).
//
// A picked step fires whatever its p. A group's draws hang off its own key,
// Hash(seed, n, first member's index, 3) for an outermost group and 3+depth inside,
// so like a step's they depend on nothing but the seed, the variant and its place.
type Group struct {
	ID      int     `json:"id"`
	Kind    string  `json:"kind"`
	P       float64 `json:"p"`
	N       int     `json:"n"`
	Replace bool    `json:"replace"`
	Parent  *Group  `json:"parent,omitempty"`
}

// chain is a step's groups, outermost first.
func (s Step) chain() []*Group {
	var c []*Group
	for g := s.Group; g != nil; g = g.Parent {
		c = append(c, g)
	}
	slices.Reverse(c)
	return c
}

// same reports whether two descriptions of a group agree, parents included.
func (g *Group) same(o *Group) bool {
	for ; g != nil && o != nil; g, o = g.Parent, o.Parent {
		if g.ID != o.ID || g.Kind != o.Kind || g.P != o.P || g.N != o.N || g.Replace != o.Replace {
			return false
		}
	}
	return g == nil && o == nil
}

// node is a member of a pipeline's tree: a step (g nil) or a group of members.
type node struct {
	t     int // the step, or a group's first step
	end   int // one past a group's last step
	depth int
	g     *Group
	kids  []node
}

// weight is a member's p: a step's, or its group's.
func (nd node) weight(p Pipeline) float64 {
	if nd.g == nil {
		return p[nd.t].P
	}
	return nd.g.P
}

// tree reads the steps lo..hi at depth d (all inside the same d groups) into
// members. The pipeline was checked: a group's steps are consecutive.
func (p Pipeline) tree(lo, hi, d int) []node {
	var out []node
	for t := lo; t < hi; {
		c := p[t].chain()
		if len(c) <= d {
			out = append(out, node{t: t, end: t + 1, depth: d})
			t++
			continue
		}
		g := c[d]
		end := t + 1
		for end < hi {
			ce := p[end].chain()
			if len(ce) <= d || ce[d].ID != g.ID {
				break
			}
			end++
		}
		out = append(out, node{t: t, end: end, depth: d, g: g, kids: p.tree(t, end, d+1)})
		t = end
	}
	return out
}

// event is one step of a variant as drawn: applied (fired) for the rep-th time, or
// considered and not fired.
type event struct {
	t, rep int
	fired  bool
}

// firer draws the containers and steps of one variant.
type firer struct {
	p       Pipeline
	seed    uint64
	n       int
	reps    []int          // how many times each step was drawn
	greps   map[[2]int]int // how many times each group (first step, depth) ran
	events  []event
	applied []bool
}

// firing decides what variant n applies, in order: a step on its own fires with its
// p (the draw every pipeline made before groups), a group's members run as the group
// decides. Every step is in the result, once as not fired when it never fired.
func (p Pipeline) firing(seed uint64, n int) []event {
	f := &firer{p: p, seed: seed, n: n, reps: make([]int, len(p)), greps: map[[2]int]int{}, applied: make([]bool, len(p))}
	for _, nd := range p.tree(0, len(p), 0) {
		f.run(nd, false)
	}
	out := make([]event, 0, len(f.events))
	listed := make([]bool, len(p))
	for _, e := range f.events {
		if !e.fired && (f.applied[e.t] || listed[e.t]) {
			continue
		}
		listed[e.t] = true
		out = append(out, e)
	}
	return out
}

// repKey is the key of a step's rep-th draw: the step key the first time, so a
// step run once draws what it drew before groups nested.
func repKey(key uint64, rep int) uint64 {
	if rep == 0 {
		return key
	}
	return engine.Hash(key, rep, 0, 3)
}

// off lists a member's steps as not fired.
func (f *firer) off(nd node) {
	for t := nd.t; t < nd.end; t++ {
		f.events = append(f.events, event{t: t, rep: f.reps[t]})
	}
}

// run runs a member; picked says its container chose it (albumentations'
// force_apply).
func (f *firer) run(nd node, picked bool) {
	if nd.g == nil {
		t := nd.t
		rep := f.reps[t]
		f.reps[t]++
		on := picked || fires(repKey(stepKey(f.seed, f.n, t), rep), f.p[t].P)
		f.applied[t] = f.applied[t] || on
		f.events = append(f.events, event{t: t, rep: rep, fired: on})
		return
	}
	g := nd.g
	gk := engine.Hash(f.seed, f.n, nd.t, 3+nd.depth)
	// A group run again (a some_of drew it twice) draws anew.
	at := [2]int{nd.t, nd.depth}
	if r := f.greps[at]; r > 0 {
		gk = engine.Hash(gk, r, 0, 3)
	}
	f.greps[at]++
	u := engine.Uniform(engine.Hash(gk, 0, 0, 0))
	on := picked || u < g.P
	switch g.Kind {
	case "sequential":
		if !on {
			f.off(nd)
			return
		}
		for _, k := range nd.kids {
			f.run(k, false)
		}
	case "one_or_other":
		// Two members (checkGroup).
		if u < g.P {
			f.run(nd.kids[0], true)
			f.off(nd.kids[len(nd.kids)-1])
		} else {
			f.off(nd.kids[0])
			f.run(nd.kids[len(nd.kids)-1], true)
		}
	case "one_of", "some_of":
		if !on {
			f.off(nd)
			return
		}
		draws := 1
		if g.Kind == "some_of" {
			draws = max(g.N, 1)
		}
		picks := f.pick(gk, nd, draws, g.Kind == "some_of" && g.Replace)
		if g.Kind == "one_of" {
			// One member: the record keeps the members' order.
			for i, k := range nd.kids {
				if len(picks) > 0 && picks[0] == i {
					f.run(k, true)
				} else {
					f.off(k)
				}
			}
			return
		}
		for _, i := range picks {
			f.run(nd.kids[i], true)
		}
		for i, k := range nd.kids {
			if !slices.Contains(picks, i) {
				f.off(k)
			}
		}
	}
}

// pick draws members of nd by weight: draws of them, with replacement or not (each
// draw among the members not yet taken, weights renormalised: numpy's choice
// without replacement gives the same distribution).
func (f *firer) pick(gk uint64, nd node, draws int, replace bool) []int {
	var picks []int
	taken := make([]bool, len(nd.kids))
	for k := range draws {
		total := 0.0
		for i, m := range nd.kids {
			if replace || !taken[i] {
				total += m.weight(f.p)
			}
		}
		if total <= 0 {
			break
		}
		u := engine.Uniform(engine.Hash(gk, 1+k, 0, 0)) * total
		pick := -1
		for i, m := range nd.kids {
			w := m.weight(f.p)
			if !replace && taken[i] || w <= 0 {
				continue
			}
			pick = i
			if u < w {
				break
			}
			u -= w
		}
		if pick >= 0 {
			taken[pick] = true
			picks = append(picks, pick)
		}
	}
	return picks
}

// checkGroup checks step i's groups: each group's steps are consecutive, every
// step describes a group (and its parents) the same way, no group is its own
// parent, groups nest at most maxDepth deep (0: no bound here), and a one_or_other
// has two members.
func checkGroup(p Pipeline, i, maxDepth int) error {
	if p[i].Group == nil {
		return nil
	}
	field := fmt.Sprintf("pipeline[%d].group", i)
	c := p[i].chain()
	if maxDepth > 0 && len(c) > maxDepth {
		return limitError(field, "%s: groups nest %d deep, more than %d", field, len(c), maxDepth)
	}
	ids := map[int]bool{}
	for d := len(c) - 1; d >= 0; d-- {
		g := c[d]
		gf := field
		for range len(c) - 1 - d {
			gf += ".parent"
		}
		if ids[g.ID] {
			return fieldError(gf+".id", "%s: group %d holds itself", gf, g.ID)
		}
		ids[g.ID] = true
		switch g.Kind {
		case "one_of", "some_of", "one_or_other", "sequential":
		default:
			return fieldError(gf+".kind", "%s: kind %q is not one_of, some_of, one_or_other or sequential", gf, g.Kind)
		}
		if !(g.P >= 0 && g.P <= 1) {
			return fieldError(gf+".p", "%s: p %v is outside [0, 1]", gf, g.P)
		}
		// The previous step in the same group describes it the same way; else this
		// is the group's first step, and no earlier step may have used its id.
		if i > 0 {
			if pc := p[i-1].chain(); len(pc) > d && pc[d].ID == g.ID {
				if !pc[d].same(g) {
					return fieldError(gf, "%s: group %d is described differently by its members", gf, g.ID)
				}
				continue
			}
		}
		for j := 0; j < i; j++ {
			for _, h := range p[j].chain() {
				if h.ID == g.ID {
					return fieldError(gf+".id", "%s: the members of group %d are not consecutive", gf, g.ID)
				}
			}
		}
		if g.Kind == "one_or_other" {
			end := i + 1
			for end < len(p) {
				ce := p[end].chain()
				if len(ce) <= d || ce[d].ID != g.ID {
					break
				}
				end++
			}
			if n := len(p.tree(i, end, d+1)); n != 2 {
				return fieldError(gf, "%s: a one_or_other group has 2 members, not %d", gf, n)
			}
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
