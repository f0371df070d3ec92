package pack

// The subset reader's scalars: quoted, plain, numbers and block scalars, each
// written as CUE's YAML reader writes it (yamlsubset.go).

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// quoted reads a quoted scalar that ends on its own line, with no escapes but the
// commonest.
func (r *subsetReader) quoted() (ast.Expr, bool) {
	start := r.off
	q := r.data[start]
	var b strings.Builder
	i := start + 1
	for {
		if i == len(r.data) || r.data[i] == '\n' {
			return nil, false
		}
		c := r.data[i]
		switch {
		case c == q && q == '\'' && i+1 < len(r.data) && r.data[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
			continue
		case c == q:
			r.off = i + 1
			// A closing quote followed by more text is not a scalar's end.
			if r.off < len(r.data) && r.data[r.off] != ' ' && r.data[r.off] != '\n' &&
				r.data[r.off] != ',' && r.data[r.off] != ']' && r.data[r.off] != '}' {
				return nil, false
			}
			return r.str(start, b.String()), true
		case c == '\\' && q == '"':
			if i+1 == len(r.data) {
				return nil, false
			}
			switch r.data[i+1] {
			case '\\', '"':
				b.WriteByte(r.data[i+1])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return nil, false
			}
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
}

func (r *subsetReader) str(off int, s string) *ast.BasicLit {
	l := r.lits.next()
	*l = ast.BasicLit{ValuePos: r.pos(off), Kind: token.STRING, Value: literal.String.WithOptionalTabIndent(1).Quote(s)}
	return l
}

// plain reads a plain scalar that YAML resolves as text, a boolean, or a decimal
// integer or float, up to the line's end or a comment (and in a flow collection,
// a comma or closing bracket).
func (r *subsetReader) plain(inFlow bool) (ast.Expr, bool) {
	start := r.off
	i := start
	for i < len(r.data) && r.data[i] != '\n' {
		c := r.data[i]
		if c == '#' {
			if r.data[i-1] == ' ' {
				break
			}
			return nil, false
		}
		if c == ':' {
			return nil, false // a key, or text YAML splits otherwise
		}
		if inFlow && (c == ',' || c == ']' || c == '}') {
			break
		}
		// In a flow collection, CUE's reader finds the closing bracket by skipping
		// what looks quoted, so a quote inside a plain scalar moves it.
		if inFlow && (c == '[' || c == '{' || c == '"' || c == '\'') {
			return nil, false
		}
		i++
	}
	end := i
	for end > start && r.data[end-1] == ' ' {
		end--
	}
	if end == start {
		return nil, false
	}
	s := string(r.data[start:end])
	r.off = end
	switch c := s[0]; {
	case strings.IndexByte("-?:,[]{}#&*!|>'\"%@`~.+", c) >= 0 || c >= '0' && c <= '9':
		if c == '-' || c >= '0' && c <= '9' {
			return r.number(start, s)
		}
		return nil, false
	}
	switch s {
	case "true", "True", "TRUE":
		b := ast.NewBool(true)
		b.ValuePos = r.pos(start)
		return b, true
	case "false", "False", "FALSE":
		b := ast.NewBool(false)
		b.ValuePos = r.pos(start)
		return b, true
	case "null", "Null", "NULL":
		return nil, false
	}
	return r.str(start, s), true
}

// number writes a decimal number as CUE's reader does: its spelling, with a minus
// sign as a unary operator. It takes -?(0|[1-9][0-9]*) as an integer (of at most
// 18 digits, within int64), with a fraction .[0-9]+ or an exponent [eE][-+]?[0-9]+
// as a float that float64 can hold (yaml.v3 reads any other as a string).
func (r *subsetReader) number(off int, s string) (ast.Expr, bool) {
	val, neg := strings.CutPrefix(s, "-")
	i := digits(val, 0)
	if i == 0 || val[0] == '0' && i > 1 {
		return nil, false
	}
	kind := token.INT
	if i < len(val) && val[i] == '.' {
		j := digits(val, i+1)
		if j == i+1 {
			return nil, false
		}
		i, kind = j, token.FLOAT
	}
	if i < len(val) && (val[i] == 'e' || val[i] == 'E') {
		i++
		if i < len(val) && (val[i] == '-' || val[i] == '+') {
			i++
		}
		j := digits(val, i)
		if j == i {
			return nil, false
		}
		i, kind = j, token.FLOAT
	}
	if i != len(val) || kind == token.INT && len(val) > 18 {
		return nil, false
	}
	if kind == token.FLOAT {
		if _, err := strconv.ParseFloat(val, 64); err != nil {
			return nil, false
		}
	}
	pos := r.pos(off)
	l := r.lits.next()
	*l = ast.BasicLit{ValuePos: pos, Kind: kind, Value: val}
	if neg {
		return &ast.UnaryExpr{OpPos: pos, Op: token.SUB, X: l}, true
	}
	return l, true
}

// digits returns the index of the first byte at or after i in s that is not a
// decimal digit.
func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// blockScalar reads a literal (|) or folded (>) scalar, clipped or stripped, whose
// lines are all at one indentation (more for a literal's), with no blank line
// before its first.
func (r *subsetReader) blockScalar(parent int) (ast.Expr, bool) {
	start := r.off
	folded := r.data[start] == '>'
	r.off++
	strip := false
	if r.off < len(r.data) && r.data[r.off] == '-' {
		strip = true
		r.off++
	}
	if r.off < len(r.data) && r.data[r.off] != ' ' && r.data[r.off] != '\n' {
		return nil, false // keep (+) or an indentation indicator
	}
	if !r.endOfLine() {
		return nil, false
	}
	var lines []string
	indent := -1
	breakAfterLast := false
	empties := 0 // blank lines since the last content line
	for r.off < len(r.data) {
		ls := r.off
		i := ls
		for i < len(r.data) && r.data[i] == ' ' {
			i++
		}
		col := i - ls
		if i == len(r.data) || r.data[i] == '\n' {
			if indent < 0 || col > indent {
				return nil, false // a blank line first, or one with trailing spaces past the indentation
			}
			empties++
			r.off = min(i+1, len(r.data))
			continue
		}
		if indent < 0 {
			if col <= parent {
				return nil, false // empty
			}
			indent = col
		}
		if col < indent {
			break
		}
		if col > indent && folded {
			return nil, false
		}
		end := i
		for end < len(r.data) && r.data[end] != '\n' {
			end++
		}
		for range empties {
			lines = append(lines, "")
		}
		empties = 0
		lines = append(lines, string(r.data[ls+indent:end]))
		breakAfterLast = end < len(r.data)
		r.off = min(end+1, len(r.data))
	}
	if indent < 0 {
		return nil, false
	}
	// The trailing blank lines belong to nobody: leave the offset after them (the
	// caller skips blank lines anyway).
	s := strings.Join(lines, "\n")
	if folded {
		s = fold(lines)
	}
	if !strip && breakAfterLast {
		s += "\n"
	}
	return r.str(start, s), true
}

// fold folds a folded scalar's lines: consecutive lines are joined by a
// space, and a run of n blank lines between two lines is n line breaks.
func fold(lines []string) string {
	var b strings.Builder
	blank := 0
	for k, l := range lines {
		if l == "" {
			blank++
			continue
		}
		if k > 0 {
			if blank == 0 {
				b.WriteByte(' ')
			}
			for range blank {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(l)
	}
	return b.String()
}
