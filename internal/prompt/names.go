package prompt

import (
	"math"
	"slices"
	"strings"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// paramName is what the words at a position name: one or more parameters of an
// entry, and how a value given with them reads (nil: in the parameters' own units).
type paramName struct {
	params []string
	width  int
	as     *vocab.ParameterName
}

// paramsAt says whether the words at k name parameters of e: a parameter's own name
// ("clip limit", "clip_limit", "holes" for holes, "hole"), or one of its other names
// (the manifest's also: "limit", "var_limit", "kernel size", "x"), the longest first.
// A name marked code counts only as name=value inside a call's parentheses. Several
// parameters may share another name ("shift_limit"): each is named.
func paramsAt(voc *vocab.Vocabulary, e *vocab.Entry, seg []token, k int) paramName {
	var best paramName
	if e == nil {
		return best
	}
	for _, name := range voc.ParameterOrder(e) {
		if n := wordsAt(seg, k, strings.Split(name, "_")); n > best.width {
			best = paramName{params: []string{name}, width: n}
		}
	}
	for _, name := range voc.ParameterOrder(e) {
		for i := range e.Parameters[name].Also {
			al := &e.Parameters[name].Also[i]
			n := wordsAt(seg, k, texts(tokenize(strings.ReplaceAll(al.Name, "_", " "))))
			if n == 0 || al.Code && (!seg[k].code || k+n >= len(seg) || seg[k+n].text != "=") {
				continue
			}
			switch {
			case n > best.width || n == best.width && al.Code && best.as == nil:
				// In code, albumentations' meaning of a name wins over the
				// parameter's own (ColorJitter(brightness=0.2) is ±20%).
				best = paramName{params: []string{name}, width: n, as: al}
			case n == best.width && best.as == nil && !al.Code && slices.Equal(best.params, []string{name}):
				// The parameter's own name given a reading of its own ("crop
				// height" of crop_height, in pixels of the image's height).
				best.as = al
			case n == best.width && best.as != nil && best.as.Name == al.Name && !contains(best.params, name):
				best.params = append(best.params, name)
			}
		}
	}
	return best
}

// wordsAt is how many tokens at k spell words (a word or its plural), or 0.
func wordsAt(seg []token, k int, words []string) int {
	if len(words) == 0 || k+len(words) > len(seg) {
		return 0
	}
	for i, w := range words {
		t := seg[k+i]
		if t.kind != tWord || t.text != w && t.text+"s" != w && t.text != w+"s" && t.text != w+"es" {
			return 0
		}
	}
	return len(words)
}

// reads applies another name's reading to a value given with it, so that what comes
// out is in units convert knows: a limit becomes the range around the default, a
// variance a standard deviation, a kernel size a radius in pixels. code says the name
// was written as albumentations code, where negate applies.
func reads(x expr, as *vocab.ParameterName, prm *vocab.Parameter, code bool) expr {
	if as == nil {
		return x
	}
	x.as = as.As
	if as.Scale != 0 {
		x.a.v *= as.Scale
		x.b.v *= as.Scale
	}
	each := func(f func(q quantity) quantity) {
		x.a = f(x.a)
		if x.kind == span {
			x.b = f(x.b)
		}
	}
	// A single value of a limit is a symmetric range.
	symmetric := func() {
		if x.kind == one && !x.a.signed {
			lo := x.a
			lo.v, lo.signed = -x.a.v, true
			x.kind, x.a, x.b = span, lo, x.a
		}
	}
	switch as.As {
	case "limit":
		if x.kind == one && !x.a.signed {
			// Around the default: scale_limit 0.1 is 0.9..1.1.
			c := x.a
			lo, hi := c, c
			lo.v, hi.v = prm.Default-c.v, prm.Default+c.v
			lo.signed, hi.signed = true, true
			x.kind, x.a, x.b = span, lo, hi
		}
	case "limit_fraction":
		symmetric()
		each(func(q quantity) quantity {
			if q.unit == "" {
				q.v, q.unit = q.v*100, "%"
			}
			return q
		})
	case "turn_fraction":
		symmetric()
		each(func(q quantity) quantity {
			if q.unit == "" {
				q.v, q.unit = q.v*360, "deg"
			}
			return q
		})
	case "variance_255":
		each(func(q quantity) quantity {
			if q.unit == "" && q.v >= 0 {
				q.v = math.Sqrt(q.v) / 255
			}
			return q
		})
	case "percent":
		each(func(q quantity) quantity {
			if q.unit == "" {
				q.v /= 100
			}
			return q
		})
	case "px":
		each(func(q quantity) quantity {
			if q.unit == "" {
				q.unit = "px"
			}
			return q
		})
	case "long_edge_px", "short_edge_px", "width_px", "height_px":
		// A length an edge becomes: over that edge, a factor (convert).
		each(func(q quantity) quantity {
			if q.unit == "" || q.unit == "px" {
				q.unit = strings.TrimSuffix(as.As, "_px")
			}
			return q
		})
	case "level_255":
		each(func(q quantity) quantity {
			if q.unit == "" {
				q.v /= 255
			}
			return q
		})
	case "kernel_limit", "kernel_px":
		if x.upto && x.kind == span {
			// "kernel up to 9": albumentations' blur_limit 9, kernels 3 to 9.
			x.a.v, x.a.signed = 3, false
		}
		if as.As == "kernel_limit" && x.kind == one && !x.a.signed {
			lo := x.a
			lo.v = 3
			x.kind, x.a, x.b = span, lo, x.a
		}
		each(func(q quantity) quantity {
			if q.unit == "" || q.unit == "px" {
				q.v, q.unit = math.Max(q.v-1, 0)/2, "px"
			}
			return q
		})
	}
	// Only albumentations code turns its way; in words, the entry's own direction.
	if as.Negate && code {
		each(func(q quantity) quantity { q.v, q.signed = -q.v, true; return q })
		if x.kind == span {
			x.a, x.b = x.b, x.a
		}
	}
	return x
}
