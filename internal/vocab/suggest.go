package vocab

import (
	"sort"
	"strings"
)

// Suggestions for a name no entry has: what a not_found error offers instead.

// Suggest returns up to five entry names close to name: an alias that matches it,
// a name that contains it or is contained in it, or one a few edits away.
func (v *Vocabulary) Suggest(name string) []string {
	norm := func(x string) string {
		return strings.Map(func(r rune) rune {
			if r == ' ' || r == '-' {
				return '_'
			}
			return r
		}, strings.ToLower(strings.TrimSpace(x)))
	}
	n := norm(name)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, e := range v.Entries {
		d := EditDistance(n, e.Name)
		for _, a := range e.Aliases {
			if norm(a) == n {
				d = 0
			}
		}
		if len(n) >= 3 && (strings.Contains(e.Name, n) || strings.Contains(n, e.Name)) {
			d = min(d, 1)
		}
		if d <= max(2, len(n)/4) {
			cs = append(cs, cand{e.Name, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for _, c := range cs[:min(len(cs), 5)] {
		out = append(out, c.name)
	}
	return out
}

// EditDistance is the Levenshtein distance between a and b, in characters (runes):
// darkroom's one, for the names suggested when an entry is unknown and the phrases
// suggested when a prompt is not understood (internal/prompt). It costs
// len(a)*len(b) steps: callers bound what they pass.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
