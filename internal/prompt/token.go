package prompt

import (
	"strconv"
	"strings"
	"unicode"
)

type tokKind int

const (
	tWord tokKind = iota // a word, or a symbol that reads as one (&, /, %, °, ±, =, :)
	tNum                 // a number; signed when written with + or -
	tSize                // W x H
	tSep                 // , ; . ! ? and line breaks: clause boundaries
)

type token struct {
	kind   tokKind
	text   string
	num    float64
	num2   float64 // tSize: the height
	signed bool
}

// tokenize lowers the text and cuts it into words, numbers, sizes and separators. A
// hyphen between letters is a space ("salt-and-pepper"); one before a digit at the start
// of a word is a sign ("-15"). Manifest phrases go through the same function, so a
// prompt and an alias compare token by token.
func tokenize(s string) []token {
	rs := []rune(strings.ToLower(s))
	var out []token
	i := 0
	isDigit := func(k int) bool { return k < len(rs) && rs[k] >= '0' && rs[k] <= '9' }
	startsNumber := func(k int) bool {
		return isDigit(k) || k+1 < len(rs) && rs[k] == '.' && isDigit(k+1)
	}
	for i < len(rs) {
		r := rs[i]
		prevSpace := i == 0 || unicode.IsSpace(rs[i-1]) || strings.ContainsRune("([,;:=", rs[i-1])
		switch {
		case unicode.IsSpace(r) && r != '\n':
			i++
		case r == '\n' || r == ',' || r == ';' || r == '!' || r == '?' || r == '.' && !startsNumber(i+1):
			out = append(out, token{kind: tSep, text: string(r)})
			i++
		case r == '+' && i+1 < len(rs) && (rs[i+1] == '-' || rs[i+1] == '/' && i+2 < len(rs) && rs[i+2] == '-'):
			out = append(out, token{kind: tWord, text: "±"})
			if rs[i+1] == '/' {
				i += 3
			} else {
				i += 2
			}
		case startsNumber(i) || (r == '+' || r == '-' || r == '−') && prevSpace && startsNumber(i+1):
			j := i
			signed := false
			neg := false
			if r == '+' || r == '-' || r == '−' {
				signed, neg = true, r != '+'
				j++
			}
			k := j
			for k < len(rs) && (isDigit(k) || rs[k] == '.' && isDigit(k+1)) {
				k++
			}
			v, err := strconv.ParseFloat(string(rs[j:k]), 64)
			if err != nil {
				// "1.2.3": keep what parses, drop the rest.
				i = k
				continue
			}
			if neg {
				v = -v
			}
			// A size: 512x512, 512 x 512, 512×512.
			m := k
			for m < len(rs) && rs[m] == ' ' {
				m++
			}
			if !signed && m < len(rs) && (rs[m] == 'x' || rs[m] == '×' || rs[m] == '*') {
				n := m + 1
				for n < len(rs) && rs[n] == ' ' {
					n++
				}
				e := n
				for e < len(rs) && isDigit(e) {
					e++
				}
				if e > n && (e == len(rs) || !unicode.IsLetter(rs[e])) {
					h, _ := strconv.ParseFloat(string(rs[n:e]), 64)
					out = append(out, token{kind: tSize, text: string(rs[i:e]), num: v, num2: h})
					i = e
					continue
				}
			}
			out = append(out, token{kind: tNum, text: string(rs[i:k]), num: v, signed: signed})
			i = k
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '\'' || rs[j] == '’') {
				j++
			}
			w := strings.NewReplacer("'", "", "’", "").Replace(string(rs[i:j]))
			out = append(out, token{kind: tWord, text: w})
			i = j
		case r == '&' || r == '/' || r == '%' || r == '°' || r == '±' || r == '=' || r == ':':
			out = append(out, token{kind: tWord, text: string(r)})
			i++
		default:
			// Hyphens between words, brackets, quotes: spaces.
			i++
		}
	}
	return out
}

// splitCamel writes GaussianBlur as "Gaussian Blur" and ISONoise as "ISO Noise", so an
// albumentations class name in a manifest also matches the words a person types.
func splitCamel(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsUpper(prev) && nextLower) ||
				unicode.IsDigit(r) && unicode.IsLetter(prev) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func texts(ts []token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.text
	}
	return out
}
