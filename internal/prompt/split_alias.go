package prompt

import "strings"

// splitAlias reads an alias written with its value inside it as that alias: "rotate up
// to 90 degrees without losing the corners" is safe_rotate's "rotate without losing the
// corners", not a rotation and a second phrase. A match followed in its sentence (a
// comma or "and" may stand between, no other separator) by a match of another entry that has an
// alias made of a name of the first match's entry, maybe "and", and the second phrase ("rotate" and
// "without losing the corners"; "random rotation up to 20 degrees, without cropping
// the corners" and "rotate 15 degrees and keep the whole image" too) becomes that entry. The second match goes; its words were read as
// the alias's, so they become filler for the reading of the clause's values.
func (p *Parser) splitAlias(toks []token, ms []match) []match {
	norm := func(s string) string { return strings.Join(texts(tokenize(s)), " ") }
	var out []match
	for _, m := range ms {
		n := len(out)
		if n == 0 || len(m.claims) != 1 || len(out[n-1].claims) != 1 || m.claims[0] == out[n-1].claims[0] || toks[m.start].code {
			out = append(out, m)
			continue
		}
		prev := out[n-1]
		sep := false
		for j := prev.end; j < m.start; j++ {
			sep = sep || toks[j].kind == tSep && toks[j].text != "," || toks[j].kind == tWord && separators[toks[j].text] && toks[j].text != "and"
		}
		e, ok := p.voc.Entry(m.claims[0])
		first, ok2 := p.voc.Entry(prev.claims[0])
		if sep || !ok || !ok2 {
			out = append(out, m)
			continue
		}
		names := map[string]bool{norm(first.Name): true}
		for _, al := range first.Aliases {
			names[norm(al)] = true
		}
		split := false
		for _, al := range e.Aliases {
			a := norm(al)
			head, ok := strings.CutSuffix(a, " "+m.phrase)
			if ok && (names[head] || names[strings.TrimSuffix(head, " and")]) {
				split = true
				break
			}
		}
		if !split {
			out = append(out, m)
			continue
		}
		out[n-1].claims, out[n-1].example = m.claims, false
		out[n-1].phrase += " " + m.phrase
		for k := m.start; k < m.end; k++ {
			toks[k].text = "the"
		}
	}
	return out
}
