package pack

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// Reading the YAML that packs are written in, without the YAML library.
//
// CUE's YAML reader builds a yaml.v3 node tree and then converts it, and the two
// were two thirds of a 4 MiB pack's check (0.65 s of 1 s CPU, and most of its
// 270 MB). Packs are written in a small part of YAML: block mappings and
// sequences, one-line flow lists and mappings, plain, quoted and folded scalars,
// comments. readYAMLSubset reads exactly that part into the syntax tree
// yaml.Extract makes of it, node for node and position for position: the same
// node types, the same literals (kind and spelling, quoted by the same function),
// the same offsets for every label, value, brace and bracket. It leaves out what
// neither the check nor its messages read: comments, the relative positions that
// only guide formatting, and where a block mapping's or sequence's invisible
// closing brace would sit.
//
// Anything outside that part (anchors, aliases, tags, null values, a plain scalar
// over several lines or one YAML would resolve otherwise than as text, a number
// or a boolean, a quoted scalar with a rare escape, a duplicate key, a tab, a
// byte CUE's reader would refuse...) makes it answer ok=false, and the pack is read
// by yaml.Extract as before. So it never decides what a pack means where the YAML
// library would decide otherwise: TestYAMLSubsetRandomDocuments and
// FuzzYAMLSubset hold the two readings equal on every input the subset reader
// accepts (scalars, numbers and block scalars are in yamlsubset_scalar.go). And since a pack read this way that fails
// its check is checked again from yaml.Extract's reading, a bad pack's message is
// cue vet's whatever this reader does.

// maxSubsetDepth bounds the nesting this reader follows (a pack needs about five).
const maxSubsetDepth = 32

type subsetReader struct {
	data  []byte
	file  *token.File
	off   int // the next byte to read
	depth int

	// Nodes are allocated a slab at a time and keys read once per spelling: a
	// 4 MiB pack is some 300,000 nodes, and its keys are a few dozen words.
	fields slab[ast.Field]
	idents slab[ast.Ident]
	lits   slab[ast.BasicLit]
	keys   map[string]subsetKey

	pieces    int  // how many pieces a large pack's entries are read in
	nonASCII  bool // the pack has a byte over 0x7f
	misplaced bool // a node follows one on its line (see posRel)
	// The line posRel last looked at, [line, lineEnd), and where its first
	// non-ASCII byte is (lineEnd when it has none).
	line, lineEnd, wide int
	// A collection's elements are gathered in a buffer of its depth and copied out
	// at its end, one allocation each.
	decls [maxSubsetDepth + 2][]ast.Decl
	exprs [maxSubsetDepth + 2][]ast.Expr
}

// subsetKey is a key as it is written in a label.
type subsetKey struct {
	name   string
	quoted string // the label's string literal when it cannot be an identifier
}

// slab hands out pointers into slices allocated a chunk at a time.
type slab[T any] struct{ buf []T }

func (s *slab[T]) next() *T {
	if len(s.buf) == cap(s.buf) {
		s.buf = make([]T, 0, 512)
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// readYAMLSubset reads a pack written in the subset above. ok is false when the
// pack is to be read by yaml.Extract.
func readYAMLSubset(data []byte, fname string) (*ast.File, bool) {
	return readYAMLSubsetPieces(data, fname, yamlPieces())
}

// readYAMLSubsetPieces is readYAMLSubset reading a large pack's entries in at
// most pieces pieces at once (see piecewise).
func readYAMLSubsetPieces(data []byte, fname string, pieces int) (f *ast.File, ok bool) {
	defer func() {
		// A bug here must cost a slower reading, not the server.
		if recover() != nil {
			f, ok = nil, false
		}
	}()
	ascii, ok := subsetBytes(data)
	if !ok {
		return nil, false
	}
	// As CUE's reader does: one byte past the end, for positions at the end.
	tf := token.NewFile(fname, 0, len(data)+1)
	tf.SetLinesForContent(data)
	r := &subsetReader{data: data, file: tf, keys: map[string]subsetKey{}, nonASCII: !ascii, pieces: pieces}
	if r.skipBlank() != 0 {
		return nil, false
	}
	m, ok := r.blockMapping(0)
	if !ok || r.skipBlank() != -1 || r.misplaced {
		return nil, false
	}
	return &ast.File{Filename: fname, Decls: m.Elts}, true
}

// subsetBytes reports whether data is all ASCII, and refuses what the reader does not follow byte by byte: tabs, carriage
// returns, control and other unprintable characters, byte order marks, the
// characters YAML counts as line breaks besides \n, invalid UTF-8, and document
// markers and directives.
func subsetBytes(data []byte) (ascii, ok bool) {
	if len(data) == 0 || data[0] == '%' || hasPrefixAt(data, 0, "---") || hasPrefixAt(data, 0, "...") {
		return false, false
	}
	ascii = true
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false, false
			}
			if c == '\n' && i+1 < len(data) && (data[i+1] == '%' || hasPrefixAt(data, i+1, "---") || hasPrefixAt(data, i+1, "...")) {
				return false, false
			}
			i++
			continue
		}
		ascii = false
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1,
			r < 0xa0, // C1 controls and NEL
			r == 0x2028, r == 0x2029,
			r >= 0xd800 && r < 0xe000,
			r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false, false
		}
		i += n
	}
	return ascii, true
}

func hasPrefixAt(data []byte, i int, s string) bool {
	return len(data)-i >= len(s) && string(data[i:i+len(s)]) == s
}

// skipBlank moves from the start of a line past blank lines and comment lines to
// the first byte of the next line with content, and returns its column, or -1 at
// the end.
func (r *subsetReader) skipBlank() int {
	for {
		start := r.off
		for r.off < len(r.data) && r.data[r.off] == ' ' {
			r.off++
		}
		if r.off == len(r.data) {
			return -1
		}
		switch r.data[r.off] {
		case '\n':
			r.off++
			continue
		case '#':
			r.toEOL()
			continue
		}
		return r.off - start
	}
}

// toEOL moves past the rest of the line and its line break.
func (r *subsetReader) toEOL() {
	for r.off < len(r.data) && r.data[r.off] != '\n' {
		r.off++
	}
	if r.off < len(r.data) {
		r.off++
	}
}

// endOfLine moves past trailing spaces and a comment to the next line; ok is false
// when anything else is left on the line.
func (r *subsetReader) endOfLine() bool {
	i := r.off
	for i < len(r.data) && r.data[i] == ' ' {
		i++
	}
	switch {
	case i == len(r.data):
	case r.data[i] == '\n':
	case r.data[i] == '#' && i > r.off:
	default:
		return false
	}
	r.off = i
	r.toEOL()
	return true
}

// pos is the position of a node that starts at off.
func (r *subsetReader) pos(off int) token.Pos { return r.posRel(off, token.NoRelPos) }

// posRel is pos with a relative position. yaml.v3 counts a node's column in
// characters and CUE's reader takes it for bytes, so a node after a non-ASCII
// character on its line gets a position CUE's reader alone can work out: such a
// pack is left to it.
func (r *subsetReader) posRel(off int, rel token.RelPos) token.Pos {
	if r.nonASCII && !r.misplaced {
		if off < r.line || off >= r.lineEnd {
			// Each line is looked at once (not once per node on it, which a long
			// flow list would make quadratic).
			r.line, r.lineEnd = off, off
			for r.line > 0 && r.data[r.line-1] != '\n' {
				r.line--
			}
			for r.lineEnd < len(r.data) && r.data[r.lineEnd] != '\n' {
				r.lineEnd++
			}
			r.lineEnd++
			r.wide = r.lineEnd
			for i := r.line; i < r.lineEnd && i < len(r.data); i++ {
				if r.data[i] >= utf8.RuneSelf {
					r.wide = i
					break
				}
			}
		}
		r.misplaced = r.wide < off
	}
	return r.file.Pos(off, rel)
}

// blockMapping reads a block mapping whose keys are at column indent, the first at
// the current offset.
func (r *subsetReader) blockMapping(indent int) (*ast.StructLit, bool) {
	if r.depth++; r.depth > maxSubsetDepth {
		return nil, false
	}
	defer func() { r.depth-- }()
	m := &ast.StructLit{Lbrace: r.posRel(r.off, token.Blank)}
	elts := r.decls[r.depth][:0]
	var keys uniqueKeys
	for {
		keyOff := r.off
		key, ok := r.key()
		if !ok || !keys.add(key.name) {
			return nil, false
		}
		label := r.label(key, keyOff)
		r.off++ // the colon
		var value ast.Expr
		if !r.endOfLine() {
			r.off++ // the space after the colon
			for r.off < len(r.data) && r.data[r.off] == ' ' {
				r.off++
			}
			if value, ok = r.inlineValue(indent); !ok {
				return nil, false
			}
		} else {
			// The value is on the lines below: a mapping or a sequence indented
			// further, or a sequence at the key's own column.
			col := r.skipBlank()
			switch {
			case col > indent && r.dash():
				value, ok = r.blockSequence(col)
			case col > indent && r.depth == 1 && key.name == "entries" && r.pieces > 1 && len(r.data) >= minSplitBytes:
				value, ok = r.piecewise(col)
			case col > indent:
				value, ok = r.blockMapping(col)
			case col == indent && r.dash():
				value, ok = r.blockSequence(col)
			default:
				return nil, false // a null value
			}
			if !ok {
				return nil, false
			}
		}
		elts = append(elts, r.field(label, value))
		r.decls[r.depth] = elts
		save := r.off
		col := r.skipBlank()
		switch {
		case col == indent:
			if r.dash() {
				return nil, false
			}
		case col < indent && col >= -1:
			r.off = save
			m.Elts = slices.Clone(elts)
			return m, keys.unique()
		default:
			return nil, false
		}
	}
}

// uniqueKeys are a mapping's keys so far: yaml.v3 refuses a key used twice. The
// first few are compared as they come; a long mapping's are sorted at its end.
type uniqueKeys struct {
	few  [16]string
	n    int
	rest []string
}

// add reports whether key is not one of the first few.
func (u *uniqueKeys) add(key string) bool {
	if u.rest != nil || u.n == len(u.few) {
		u.rest = append(u.rest, key)
		return true
	}
	for _, k := range u.few[:u.n] {
		if k == key {
			return false
		}
	}
	u.few[u.n] = key
	u.n++
	return true
}

// unique reports whether no key came twice.
func (u *uniqueKeys) unique() bool {
	if u.rest == nil {
		return true
	}
	all := append(u.rest, u.few[:]...)
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			return false
		}
	}
	return true
}

// dash reports whether the current offset starts a block sequence entry.
func (r *subsetReader) dash() bool {
	return r.off < len(r.data) && r.data[r.off] == '-' &&
		(r.off+1 == len(r.data) || r.data[r.off+1] == ' ' || r.data[r.off+1] == '\n')
}

// key reads a plain key up to its colon, which must be followed by a space or the
// line's end; the offset is left at the colon. The keys it takes are plain text
// that YAML resolves as a string: a letter or underscore, then letters, digits,
// underscores and dashes, at most 128 bytes (yaml.v3 limits a key's length).
func (r *subsetReader) key() (subsetKey, bool) {
	i := r.off
	for i < len(r.data) && i-r.off <= 128 {
		c := r.data[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > r.off && (c >= '0' && c <= '9' || c == '-') {
			i++
			continue
		}
		break
	}
	if i == r.off || i-r.off > 128 || i == len(r.data) || r.data[i] != ':' ||
		i+1 < len(r.data) && r.data[i+1] != ' ' && r.data[i+1] != '\n' {
		return subsetKey{}, false
	}
	k, ok := r.keys[string(r.data[r.off:i])]
	if !ok {
		name := string(r.data[r.off:i])
		if resolvesAsWord(name) {
			return subsetKey{}, false
		}
		k = subsetKey{name: name}
		if ast.StringLabelNeedsQuoting(name) {
			k.quoted = literal.String.Quote(name)
		}
		if len(r.keys) < 1024 {
			r.keys[name] = k
		}
	}
	r.off = i
	return k, true
}

// label writes a key as ast.NewStringLabel does, at off.
func (r *subsetReader) label(k subsetKey, off int) ast.Label {
	if k.quoted != "" {
		l := r.lits.next()
		*l = ast.BasicLit{ValuePos: r.pos(off), Kind: token.STRING, Value: k.quoted}
		return l
	}
	id := r.idents.next()
	*id = ast.Ident{NamePos: r.pos(off), Name: k.name}
	return id
}

func (r *subsetReader) field(label ast.Label, value ast.Expr) *ast.Field {
	f := r.fields.next()
	f.Label, f.Value = label, value
	return f
}

// resolvesAsWord reports the plain words yaml.v3 reads as something other than a
// string: booleans and nulls.
func resolvesAsWord(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~":
		return true
	}
	return false
}

// blockSequence reads a block sequence whose dashes are at column indent, the
// first at the current offset.
func (r *subsetReader) blockSequence(indent int) (*ast.ListLit, bool) {
	if r.depth++; r.depth > maxSubsetDepth {
		return nil, false
	}
	defer func() { r.depth-- }()
	l := &ast.ListLit{Lbrack: r.posRel(r.off, token.Blank)}
	elts := r.exprs[r.depth][:0]
	for {
		r.off++ // the dash
		if r.off == len(r.data) || r.data[r.off] != ' ' {
			return nil, false // an entry on the lines below
		}
		for r.off < len(r.data) && r.data[r.off] == ' ' {
			r.off++
		}
		var elem ast.Expr
		var ok bool
		if r.startsMapping() {
			elem, ok = r.blockMapping(r.off - r.lineStart())
		} else {
			elem, ok = r.inlineValue(indent)
		}
		if !ok {
			return nil, false
		}
		elts = append(elts, elem)
		r.exprs[r.depth] = elts
		save := r.off
		c := r.skipBlank()
		switch {
		case c == indent && r.dash():
			continue
		case c <= indent && c >= -1:
			r.off = save
			l.Elts = slices.Clone(elts)
			return l, true
		default:
			return nil, false
		}
	}
}

func (r *subsetReader) lineStart() int {
	i := r.off
	for i > 0 && r.data[i-1] != '\n' {
		i--
	}
	return i
}

// startsMapping reports whether the rest of the line starts a block mapping: a key
// and its colon.
func (r *subsetReader) startsMapping() bool {
	save := r.off
	_, ok := r.key()
	r.off = save
	return ok
}

// inlineValue reads a value that starts on the current line; parent is the column
// of the key or dash it belongs to. It leaves the offset at the start of the next
// line (or the end).
func (r *subsetReader) inlineValue(parent int) (ast.Expr, bool) {
	if r.off == len(r.data) {
		return nil, false
	}
	var v ast.Expr
	var ok bool
	switch r.data[r.off] {
	case '|', '>':
		return r.blockScalar(parent)
	case '[', '{':
		v, ok = r.flow()
	case '"', '\'':
		v, ok = r.quoted()
	default:
		v, ok = r.plain(false)
	}
	if !ok || !r.endOfLine() {
		return nil, false
	}
	return v, true
}

// flow reads a flow sequence or mapping that ends on its own line.
func (r *subsetReader) flow() (ast.Expr, bool) {
	if r.depth++; r.depth > maxSubsetDepth {
		return nil, false
	}
	defer func() { r.depth-- }()
	open := r.off
	isMap := r.data[open] == '{'
	closer := byte(']')
	if isMap {
		closer = '}'
	}
	r.off++
	elts := r.decls[r.depth][:0]
	list := r.exprs[r.depth][:0]
	var keys uniqueKeys
	r.spaces()
	if r.off < len(r.data) && r.data[r.off] == closer {
		// empty
	} else {
		for {
			if isMap {
				keyOff := r.off
				key, ok := r.key()
				if !ok || !keys.add(key.name) {
					return nil, false
				}
				label := r.label(key, keyOff)
				r.off++ // the colon
				if r.off == len(r.data) || r.data[r.off] != ' ' {
					return nil, false
				}
				r.spaces()
				v, ok := r.flowValue()
				if !ok {
					return nil, false
				}
				elts = append(elts, r.field(label, v))
				r.decls[r.depth] = elts
			} else {
				v, ok := r.flowValue()
				if !ok {
					return nil, false
				}
				list = append(list, v)
				r.exprs[r.depth] = list
			}
			r.spaces()
			if r.off == len(r.data) {
				return nil, false
			}
			if r.data[r.off] == closer {
				break
			}
			if r.data[r.off] != ',' {
				return nil, false
			}
			r.off++
			if r.off == len(r.data) || r.data[r.off] != ' ' {
				return nil, false
			}
			r.spaces()
			if r.off < len(r.data) && (r.data[r.off] == ']' || r.data[r.off] == '}') {
				return nil, false // a trailing comma
			}
		}
	}
	end := r.off
	r.off++ // the closer
	if isMap {
		return &ast.StructLit{Lbrace: r.posRel(open, token.Blank), Elts: slices.Clone(elts), Rbrace: r.file.Pos(end, token.Blank)}, keys.unique()
	}
	return &ast.ListLit{Lbrack: r.posRel(open, token.Blank), Elts: slices.Clone(list), Rbrack: r.file.Pos(end, token.Blank)}, true
}

func (r *subsetReader) spaces() {
	for r.off < len(r.data) && r.data[r.off] == ' ' {
		r.off++
	}
}

func (r *subsetReader) flowValue() (ast.Expr, bool) {
	if r.off == len(r.data) {
		return nil, false
	}
	switch r.data[r.off] {
	case '[', '{':
		return r.flow()
	case '"', '\'':
		return r.quoted()
	}
	return r.plain(true)
}

// piecewise reads a large pack's entries, a block mapping at column col from the
// current offset, in pieces at once. The block ends at the first line with
// content at column 0; it is cut at lines with content at column col, each of
// which starts an entry in a pack the reader takes whole (a line at that column
// ends any block scalar above it, and quoted and flow scalars end on their own
// line). Each piece is read as a mapping of its own, over the same bytes and
// file, so positions are those of the whole reading; a piece that does not read
// to its end, or a name in two pieces, sends the pack to yaml.Extract.
func (r *subsetReader) piecewise(col int) (*ast.StructLit, bool) {
	start, end := r.off, len(r.data)
	for i := start; ; {
		nl := bytes.IndexByte(r.data[i:], '\n')
		if nl < 0 {
			break
		}
		if i += nl + 1; i < len(r.data) && r.data[i] != ' ' && r.data[i] != '#' && r.data[i] != '\n' {
			end = i
			break
		}
	}
	indent := strings.Repeat(" ", col)
	startsEntry := func(i int) bool {
		return i+col < end && string(r.data[i:i+col]) == indent &&
			r.data[i+col] != ' ' && r.data[i+col] != '#' && r.data[i+col] != '\n'
	}
	cuts := []int{start}
	for k := 1; k < r.pieces; k++ {
		at := max(start+(end-start)*k/r.pieces, cuts[len(cuts)-1]+1)
		for at < end && (r.data[at-1] != '\n' || !startsEntry(at)) {
			at++
		}
		if at < end {
			cuts = append(cuts, at)
		}
	}
	cuts = append(cuts, end)
	parts := make([]*ast.StructLit, len(cuts)-1)
	oks := make([]bool, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		from := cuts[i] // the first entry's key, the others' line
		if i > 0 {
			from += col
		}
		sub := &subsetReader{data: r.data[:cuts[i+1]], file: r.file, off: from, depth: r.depth,
			keys: map[string]subsetKey{}, nonASCII: r.nonASCII}
		wg.Go(func() {
			defer func() {
				if recover() != nil {
					oks[i] = false
				}
			}()
			parts[i], oks[i] = sub.blockMapping(col)
			oks[i] = oks[i] && sub.skipBlank() == -1 && !sub.misplaced
		})
	}
	wg.Wait()
	n := 0
	for i, p := range parts {
		if !oks[i] {
			return nil, false
		}
		n += len(p.Elts)
	}
	m := &ast.StructLit{Lbrace: parts[0].Lbrace, Elts: make([]ast.Decl, 0, n)}
	names := make([]string, 0, n)
	for _, p := range parts {
		m.Elts = append(m.Elts, p.Elts...)
		for _, d := range p.Elts {
			name, _, err := ast.LabelName(d.(*ast.Field).Label)
			if err != nil {
				return nil, false
			}
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			return nil, false
		}
	}
	r.off = end
	return m, true
}
