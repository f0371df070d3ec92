package augment

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// A call to one albumentations transform, as a user pastes it from a training script
// into a prompt ("A.CLAHE(clip_limit=2, tile_grid_size=(4, 4), p=0.3)"), is read by
// the same readings as the pipeline A.to_dict writes: its arguments become the
// serialised transform's parameters (positional ones named by the class's
// constructor order, AlbuMap.Positional), so a prompt and a pipeline file mean the
// same thing by the same code. Only Python literals are read: numbers, strings,
// None, True, False, tuples, lists, dicts and OpenCV's border and interpolation
// constants; anything else (a variable, an expression, a nested call) makes the call
// unreadable here, and the prompt reader's own reading stands.

// cvConstants are the OpenCV constants albumentations code passes, by the name after
// "cv2.".
var cvConstants = map[string]float64{
	"BORDER_CONSTANT": 0, "BORDER_REPLICATE": 1, "BORDER_REFLECT": 2, "BORDER_WRAP": 3,
	"BORDER_REFLECT_101": 4, "BORDER_REFLECT101": 4, "BORDER_DEFAULT": 4,
	"INTER_NEAREST": 0, "INTER_LINEAR": 1, "INTER_CUBIC": 2, "INTER_AREA": 3, "INTER_LANCZOS4": 4,
}

// Call is one albumentations call read from text.
type Call struct {
	// Class is the transform's class name (Rotate for "A.Rotate(...)").
	Class string
	// Args are its arguments by name, as A.to_dict would write them (tuples as
	// lists); P is its p when the call writes one.
	Args map[string]any
	P    *float64
}

// ParseCall reads src, one call of an albumentations class ("A.Rotate(limit=15)",
// "Rotate(15)" or "albumentations.Rotate(...)"), with m's constructor orders for
// positional arguments. It fails when src is not exactly such a call of Python
// literals.
func (m *AlbuMap) ParseCall(src string) (*Call, error) {
	c := &callParser{s: []rune(src)}
	name := c.dotted()
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || !unicode.IsUpper([]rune(name)[0]) {
		return nil, fmt.Errorf("not a call of a class")
	}
	c.space()
	if !c.eat('(') {
		return nil, fmt.Errorf("%s: no argument list", name)
	}
	call := &Call{Class: name, Args: map[string]any{}}
	order := m.Positional[name]
	for n := 0; ; n++ {
		c.space()
		if c.eat(')') {
			break
		}
		if n > 0 {
			if !c.eat(',') {
				return nil, fmt.Errorf("%s: expected , or ) at %d", name, c.i)
			}
			c.space()
			if c.eat(')') {
				break
			}
		}
		key := ""
		save := c.i
		if id := c.ident(); id != "" {
			c.space()
			if c.peek() == '=' && c.peekAt(1) != '=' {
				c.i++
				key = id
			} else {
				c.i = save
			}
		} else {
			c.i = save
		}
		v, err := c.value()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if key == "" {
			if n >= len(order) {
				return nil, fmt.Errorf("%s: positional argument %d has no known name", name, n+1)
			}
			key = order[n]
		}
		if key == "p" {
			f, ok := v.(float64)
			if !ok {
				return nil, fmt.Errorf("%s: p is not a number", name)
			}
			call.P = &f
			continue
		}
		call.Args[key] = v
	}
	c.space()
	if c.i != len(c.s) {
		return nil, fmt.Errorf("%s: text after the call", name)
	}
	return call, nil
}

// ReadCall reads one albumentations call for an image of w x h pixels, as Import
// reads the same transform in a pipeline file.
func (m *AlbuMap) ReadCall(call *Call, voc *vocab.Vocabulary, w, h int) (*Imported, error) {
	if _, ok := m.Containers[call.Class]; ok {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s is a container", call.Class)
	}
	tr := map[string]any{"__class_fullname__": call.Class, "p": 1.0}
	for k, v := range call.Args {
		tr[k] = v
	}
	raw, err := json.Marshal(tr)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InvalidInput, err, "%s", call.Class)
	}
	imp, err := m.Import(raw, voc, w, h)
	if err != nil {
		return nil, err
	}
	// A to_dict pipeline writes every parameter; a call leaves most to their
	// defaults, and a default darkroom cannot honour is said as a written one is.
	for _, r := range m.Transforms[call.Class] {
		if !r.matches(tr) {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(r.Unread)) {
			if _, ok := call.Args[k]; !ok {
				imp.Skipped = append(imp.Skipped, Skipped{Entry: call.Class, Reason: fmt.Sprintf("parameter %s (albumentations' default): %s", k, r.Unread[k]), Code: darkroom.InvalidInput})
			}
		}
		break
	}
	return imp, nil
}

// callParser reads Python literals from s at i.
type callParser struct {
	s []rune
	i int
}

func (c *callParser) peek() rune { return c.peekAt(0) }

func (c *callParser) peekAt(k int) rune {
	if c.i+k < len(c.s) {
		return c.s[c.i+k]
	}
	return 0
}

func (c *callParser) eat(r rune) bool {
	if c.peek() == r {
		c.i++
		return true
	}
	return false
}

func (c *callParser) space() {
	for c.i < len(c.s) && unicode.IsSpace(c.s[c.i]) {
		c.i++
	}
}

// ident reads a Python identifier.
func (c *callParser) ident() string {
	start := c.i
	for c.i < len(c.s) && (c.s[c.i] == '_' || unicode.IsLetter(c.s[c.i]) || c.i > start && unicode.IsDigit(c.s[c.i])) {
		c.i++
	}
	return string(c.s[start:c.i])
}

// dotted reads a dotted name (cv2.BORDER_CONSTANT, A.Rotate).
func (c *callParser) dotted() string {
	c.space()
	name := c.ident()
	for name != "" && c.peek() == '.' && (unicode.IsLetter(c.peekAt(1)) || c.peekAt(1) == '_') {
		c.i++
		name += "." + c.ident()
	}
	return name
}

// value reads one Python literal.
func (c *callParser) value() (any, error) {
	c.space()
	switch r := c.peek(); {
	case r == '(' || r == '[':
		c.i++
		closing := map[rune]rune{'(': ')', '[': ']'}[r]
		out := []any{}
		for {
			c.space()
			if c.eat(closing) {
				return out, nil
			}
			if len(out) > 0 {
				if !c.eat(',') {
					return nil, fmt.Errorf("expected , at %d", c.i)
				}
				c.space()
				if c.eat(closing) {
					return out, nil
				}
			}
			v, err := c.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	case r == '{':
		c.i++
		out := map[string]any{}
		for {
			c.space()
			if c.eat('}') {
				return out, nil
			}
			if len(out) > 0 {
				if !c.eat(',') {
					return nil, fmt.Errorf("expected , at %d", c.i)
				}
				c.space()
				if c.eat('}') {
					return out, nil
				}
			}
			k, err := c.value()
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("a dict key that is not a string")
			}
			c.space()
			if !c.eat(':') {
				return nil, fmt.Errorf("expected : at %d", c.i)
			}
			v, err := c.value()
			if err != nil {
				return nil, err
			}
			out[ks] = v
		}
	case r == '\'' || r == '"':
		c.i++
		start := c.i
		for c.i < len(c.s) && c.s[c.i] != r {
			if c.s[c.i] == '\\' {
				return nil, fmt.Errorf("an escaped string")
			}
			c.i++
		}
		if c.i == len(c.s) {
			return nil, fmt.Errorf("an unclosed string")
		}
		c.i++
		return string(c.s[start : c.i-1]), nil
	case r == '-' || r == '+' || r == '.' || unicode.IsDigit(r):
		start := c.i
		c.i++
		for c.i < len(c.s) && (unicode.IsDigit(c.s[c.i]) || strings.ContainsRune(".eE_", c.s[c.i]) ||
			(c.s[c.i] == '-' || c.s[c.i] == '+') && (c.s[c.i-1] == 'e' || c.s[c.i-1] == 'E')) {
			c.i++
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(string(c.s[start:c.i]), "_", ""), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", string(c.s[start:c.i]))
		}
		return f, nil
	default:
		name := c.dotted()
		switch name {
		case "None":
			return nil, nil
		case "True":
			return true, nil
		case "False":
			return false, nil
		}
		if k, ok := strings.CutPrefix(name, "cv2."); ok {
			if v, ok := cvConstants[k]; ok {
				return v, nil
			}
		}
		if name == "" {
			return nil, fmt.Errorf("no value at %d", c.i)
		}
		return nil, fmt.Errorf("%s is not a literal", name)
	}
}
