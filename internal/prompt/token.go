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
	// code says the token is inside a call's parentheses, as in albumentations code:
	// A.Rotate(limit=15, p=0.7).
	code bool
	// call says the word is a call's name: an opening parenthesis follows it.
	call bool
	// typo is the word as written when it was read as a vocabulary word one or two
	// letters away ("contrst" is read as contrast).
	typo string
	// joined says an underscore joins the word to the one before it, as in an
	// argument's name written in prose ("quality_lower 40").
	joined bool
	// arg numbers a call's arguments across the prompt: tokens of one argument
	// (border_mode=cv2.BORDER_CONSTANT) share it; 0 outside calls.
	arg int
	// depth is how many brackets are open around the token (code's nesting).
	depth int
	// pos is the token's place in the prompt, so a word is known as read wherever a
	// segment copies it.
	pos int
	// random says "random" or "randomly" came before it in the sentence: "random
	// scale 0.9-1.1 and translate 5%" asks for a random translation too.
	random bool
	// hyphen says a hyphen joins the word to the word before it ("crop-row").
	hyphen bool
	// pair marks the words of two phrases read from one shared word ("h and v
	// flips", "flip h/v"): each of them, and the shared word, carry the position of
	// the pair's first word plus one; 0 elsewhere.
	pair int
}

// tokenize lowers the text and cuts it into words, numbers, sizes and separators. A
// hyphen between letters is a space ("salt-and-pepper"); one before a digit at the start
// of a word is a sign ("-15"). Manifest phrases go through the same function, so a
// prompt and an alias compare token by token.
func tokenize(s string) []token {
	rs := []rune(strings.ToLower(s))
	var out []token
	i := 0
	// opens is the stack of brackets open at i: in albumentations code a comma between
	// a call's arguments is no clause boundary, and one inside a tuple or a list of
	// numbers ((10, 20), [3, 7]) joins the ends of a range.
	var opens []rune
	var callOpen []bool
	// Only a call's parentheses hold code: a bracket in prose ("blur (sigma 0.5-1.5
	// px)") is read as prose.
	calls := func() bool {
		for _, c := range callOpen {
			if c {
				return true
			}
		}
		return false
	}
	arg := 0
	emit := func(t token) {
		t.code = calls()
		if t.code {
			t.arg = arg
		}
		t.pos = len(out)
		t.depth = len(opens)
		out = append(out, t)
	}
	// upper says the text as written has a capital in [a, b).
	written := []rune(s)
	upper := func(a, b int) bool {
		if len(written) != len(rs) {
			return true
		}
		for k := a; k < b; k++ {
			if unicode.IsUpper(written[k]) {
				return true
			}
		}
		return false
	}
	lastNum := func() bool { return len(out) > 0 && out[len(out)-1].kind == tNum }
	// unitAfterNum says the last token is a percent or degree sign right after a
	// number ("-30%..+30%").
	unitAfterNum := func() bool {
		n := len(out)
		return n > 1 && out[n-2].kind == tNum && (out[n-1].text == "%" || out[n-1].text == "°")
	}
	isDigit := func(k int) bool { return k < len(rs) && rs[k] >= '0' && rs[k] <= '9' }
	startsNumber := func(k int) bool {
		return isDigit(k) || k+1 < len(rs) && rs[k] == '.' && isDigit(k+1)
	}
	// tupleEnd says the number at k closes a bracket in prose ("gamma (80, 120)"),
	// or is followed by a comma as in a longer tuple, so the two are a range: in
	// "(sigma 0.5, delta 2, 1 iteration)" the 1 is a value of its own.
	tupleEnd := func(k int) bool {
		for k < len(rs) && (isDigit(k) || rs[k] == '.') {
			k++
		}
		for k < len(rs) && rs[k] == ' ' {
			k++
		}
		return k < len(rs) && (rs[k] == ')' || rs[k] == ']' || rs[k] == ',')
	}
	signAt := func(k int) bool {
		return k < len(rs) && (rs[k] == '+' || rs[k] == '-' || rs[k] == '−') && startsNumber(k+1)
	}
	// dotsEnd is where the number after a range's two or three dots at k starts,
	// past spaces; 0 when no number follows them.
	dotsEnd := func(k int) int {
		k += 2
		if k < len(rs) && rs[k] == '.' {
			k++
		}
		for k < len(rs) && rs[k] == ' ' {
			k++
		}
		if startsNumber(k) || signAt(k) {
			return k
		}
		return 0
	}
	for i < len(rs) {
		r := rs[i]
		// After a range's dots a sign is the second end's: "-30..+30".
		prevSpace := i == 0 || unicode.IsSpace(rs[i-1]) || strings.ContainsRune("([,;:=", rs[i-1]) || i > 1 && rs[i-1] == '.' && rs[i-2] == '.' && len(out) > 0 && out[len(out)-1].text == "to"

		switch {
		case unicode.IsSpace(r) && r != '\n':
			i++
		case r == '(' || r == '[':
			isCall := r == '(' && len(out) > 0 && out[len(out)-1].kind == tWord && i > 0 && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			if isCall {
				out[len(out)-1].call = true
			}
			opens = append(opens, r)
			callOpen = append(callOpen, isCall)
			if isCall {
				arg++
			}
			i++
		case (r == ')' || r == ']') && len(opens) > 0:
			wasCall := callOpen[len(callOpen)-1]
			opens, callOpen = opens[:len(opens)-1], callOpen[:len(callOpen)-1]
			if wasCall {
				// A call ends its transform: what follows (a container's p) is not its.
				emit(token{kind: tSep, text: ")"})
			}
			i++
		case r == ',' && len(opens) > 0:
			// Inside brackets: a range's comma between two numbers, a call's argument
			// separator, or (in a list of calls) a clause boundary.
			j := i + 1
			for j < len(rs) && rs[j] == ' ' {
				j++
			}
			top := opens[len(opens)-1]
			// A bracket in prose holds a tuple ("gamma (80, 120)"): its two numbers
			// are a range, as a call's nested tuple is.
			nested := top == '[' || len(opens) > 1 && opens[len(opens)-2] == '(' || !callOpen[len(callOpen)-1] && !calls()
			switch {
			case lastNum() && startsNumber(j) && nested && (top == '[' || calls() || tupleEnd(j)):
				emit(token{kind: tWord, text: "to"})
			case top == '[':
				emit(token{kind: tSep, text: ","})
			case callOpen[len(callOpen)-1]:
				arg++
			}
			i++
		case (r == '-' || r == '–') && i > 0 && isDigit(i-1) && (startsNumber(i+1) || i+1 < len(rs) && rs[i+1] == ' ' && startsNumber(i+2)):
			// "10-50": a range.
			emit(token{kind: tWord, text: "to"})
			i++
		case r == '.' && i+2 < len(rs) && rs[i+1] == '.' && (lastNum() || unitAfterNum()) && dotsEnd(i) > 0:
			// "10..50", "10...50": a range, as in code and in notes; so are "-30 ..
			// +30 %" with spaces round the dots and "-30%..+30%" with a unit on
			// each end.
			emit(token{kind: tWord, text: "to"})
			i = dotsEnd(i)
		case r == '.' && len(out) > 0 && out[len(out)-1].text == "a" && i > 0 && rs[i-1] == 'a' && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			// "A.Rotate": the module's name is no word of the prompt.
			out = out[:len(out)-1]
			i++
		case r == '.' && calls() && i > 0 && i+1 < len(rs) && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1])) && unicode.IsLetter(rs[i+1]):
			// "cv2.BORDER_CONSTANT" inside a call: a dotted name, one argument's
			// value, no full stop.
			i++
		case (r == '-' || r == '–') && i > 1 && rs[i-1] == ' ' && isDigit(i-2) && i+2 < len(rs) && rs[i+1] == ' ' && startsNumber(i+2) && lastNum():
			// "10 - 20", "10 – 20": a range written with spaces round its hyphen.
			emit(token{kind: tWord, text: "to"})
			i++
		case r == '-' && i > 0 && i+1 < len(rs) && rs[i-1] == ' ' && rs[i+1] == ' ' && !calls() && !(i > 1 && isDigit(i-2) && startsNumber(i+2)):
			// A hyphen standing alone between words is a dash ("invert - each at
			// 5%"), not between two numbers ("10 - 20").
			emit(token{kind: tSep, text: ","})
			i++
		case r == '—' || r == '–' && !(i > 0 && isDigit(i-1)):
			// A dash between clauses ("FancyPCA — all rarely").
			emit(token{kind: tSep, text: ","})
			i++
		case r == '\n' || r == ',' || r == ';' || r == '!' || r == '?' || r == '.' && !startsNumber(i+1):
			emit(token{kind: tSep, text: string(r)})
			i++
		case r == '+' && i+1 < len(rs) && (rs[i+1] == '-' || rs[i+1] == '/' && i+2 < len(rs) && rs[i+2] == '-'):
			emit(token{kind: tWord, text: "±"})
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
					emit(token{kind: tSize, text: string(rs[i:e]), num: v, num2: h})
					i = e
					continue
				}
			}
			// "0.4/0.4/0.4/0.1": values listed with slashes, each a number (a
			// ratio has whole numbers and two of them).
			listed := strings.ContainsRune(string(rs[i:k]), '.') || len(out) > 1 && out[len(out)-1].text == "/" && out[len(out)-2].kind == tNum
			for n := k + 1; !listed && n < len(rs) && (isDigit(n) || rs[n] == '.' || rs[n] == '/'); n++ {
				listed = rs[n] == '/' || rs[n] == '.' && isDigit(n+1)
			}
			if !signed && k+1 < len(rs) && rs[k] == '/' && isDigit(k+1) && !listed {
				// "50/50", "1/3": a ratio written as such, one word.
				e := k + 1
				for e < len(rs) && isDigit(e) {
					e++
				}
				emit(token{kind: tWord, text: string(rs[i:e])})
				i = e
				continue
			}
			emit(token{kind: tNum, text: string(rs[i:k]), num: v, signed: signed})
			i = k
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '\'' || rs[j] == '’') {
				j++
			}
			// "q60-95", "quality80": a parameter's name run into its number is the
			// name and the number (jpeg's q shorthand, or a word of four letters or
			// more written in lower case; "rot90", "x10" and a class name,
			// RandomRotate90, stay words).
			if l := i; true {
				for l < j && unicode.IsLetter(rs[l]) {
					l++
				}
				digits := l < j
				for d := l; d < j; d++ {
					digits = digits && isDigit(d)
				}
				if digits && (l-i >= 4 && !upper(i, j) && (j == len(rs) || rs[j] != '(') || l-i == 1 && rs[i] == 'q') {
					emit(token{kind: tWord, text: string(rs[i:l]), joined: i > 0 && rs[i-1] == '_'})
					i = l
					continue
				}
			}
			w := strings.NewReplacer("'", "", "’", "").Replace(string(rs[i:j]))
			if j+5 <= len(rs) && rs[j] == '-' && string(rs[j+1:j+5]) == "wise" && (j+5 == len(rs) || !unicode.IsLetter(rs[j+5])) {
				// "pixel-wise", "channel-wise": one word, as "elementwise" is.
				w += "wise"
				j += 5
			}
			emit(token{kind: tWord, text: w, joined: i > 0 && rs[i-1] == '_', hyphen: i > 1 && rs[i-1] == '-' && unicode.IsLetter(rs[i-2])})
			i = j
		case r == '+' && !calls():
			// "rot90 + transpose", "random 90 deg rotations + random flips": a plus
			// between transforms joins a list, as "and" does.
			emit(token{kind: tWord, text: "+"})
			i++
		case r == '&' || r == '/' || r == '%' || r == '°' || r == '±' || r == '=' || r == ':':
			emit(token{kind: tWord, text: string(r)})
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
