package pack

import (
	"bytes"
	"regexp"
	"runtime"
	"sync"

	"cuelang.org/go/cue/ast"
)

// Reading a large YAML pack on every core.
//
// CUE's YAML reader is single-threaded and was most of a 4 MiB pack's check. A
// pack in the YAML packs are written in no longer meets it (yamlsubset.go, which
// cuts the entries the same way); this is for a large pack outside that part. A
// pack's entries are independent mappings under entries:, so a large pack is cut
// at lines that start an entry (two spaces, a name, a colon, nothing else) and
// the pieces are read at once. Each piece after the first is the text from its
// cut, preceded by blank lines and an entries: line so that every line keeps its
// number. The reading in pieces is used only when it is the reading of the whole:
//   - the cuts lie inside the entries block, whose first line is already an entry
//     at that indentation, so a line there that starts a key at column 2 starts an
//     entry, unless it continues a quoted scalar or a flow collection: then the
//     piece before the cut ends inside it, and fails to read;
//   - a piece that fails to read (an alias to an anchor in another piece among the
//     reasons), a name used in two pieces, directives or several documents: the
//     pack is read whole.
// And a pack read in pieces that fails its check is checked again from the whole
// reading, so a bad pack's message is cue vet's, positions and order included.

// minSplitBytes is the size below which a pack is read in one piece (a variable
// for the tests, which check the reading in pieces on small packs).
var minSplitBytes = 256 << 10

var entryLine = regexp.MustCompile(`^  [A-Za-z0-9_]+:[ \t]*$`)

// extractYAMLPieces reads a pack in pieces as above, and returns its top-level
// declarations and the file the first piece was read as. ok is false when the
// pack is to be read whole.
func extractYAMLPieces(src Source, fname string, pieces int) ([]ast.Decl, *ast.File, bool) {
	data := src.Data
	if pieces < 2 || len(data) < minSplitBytes || data[0] == '%' || bytes.Contains(data, []byte("\n%")) ||
		bytes.Contains(data, []byte("\n---")) || bytes.Contains(data, []byte("\n...")) ||
		bytes.HasPrefix(data, []byte("---")) || bytes.IndexByte(data, '\r') >= 0 {
		return nil, nil, false
	}
	// The entries block: from the line after "entries:" to the next line at column 0.
	lineStarts := []int{0}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			lineStarts = append(lineStarts, i+1)
		}
	}
	line := func(k int) []byte {
		end := len(data)
		if k+1 < len(lineStarts) {
			end = lineStarts[k+1] - 1
		}
		return data[lineStarts[k]:end]
	}
	first, last := -1, len(lineStarts) // the block's lines, [first, last)
	for k := range lineStarts {
		l := line(k)
		if first < 0 {
			if bytes.Equal(bytes.TrimRight(l, " \t"), []byte("entries:")) {
				first = k + 1
			}
			continue
		}
		if len(l) > 0 && l[0] != ' ' && l[0] != '#' {
			last = k
			break
		}
	}
	if first < 0 || first >= last || !entryLine.Match(line(first)) {
		return nil, nil, false
	}
	// Cuts: the first entry line at or after each share of the block's bytes.
	var cuts []int // line numbers, 0-based
	for i := 1; i < pieces; i++ {
		at := lineStarts[first] + (lineStarts[last-1]-lineStarts[first])*i/pieces
		k := first + 1
		if len(cuts) > 0 {
			k = cuts[len(cuts)-1] + 1
		}
		for ; k < last && lineStarts[k] < at; k++ {
		}
		for ; k < last && !entryLine.Match(line(k)); k++ {
		}
		if k < last {
			cuts = append(cuts, k)
		}
	}
	if len(cuts) == 0 {
		return nil, nil, false
	}
	texts := make([][]byte, len(cuts)+1)
	texts[0] = data[:lineStarts[cuts[0]]]
	for i, k := range cuts {
		end := len(data)
		if i+1 < len(cuts) {
			end = lineStarts[cuts[i+1]]
		}
		t := make([]byte, 0, k+len("entries:\n")+end-lineStarts[k])
		t = append(t, bytes.Repeat([]byte("\n"), k-1)...)
		t = append(t, "entries:\n"...)
		texts[i+1] = append(t, data[lineStarts[k]:end]...)
	}
	files := make([]*ast.File, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i, t := range texts {
		wg.Go(func() {
			files[i], errs[i] = extractYAML(Source{Name: src.Name, Data: t}, fname)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, false
		}
	}
	// Join: the first piece's declarations, with every piece's entries in its
	// entries field, and the last piece's declarations after entries.
	var decls []ast.Decl
	var entries *ast.StructLit
	seen := map[string]bool{}
	entrySeen := map[string]bool{}
	addEntries := func(f *ast.Field) bool {
		sl, ok := f.Value.(*ast.StructLit)
		if !ok {
			return false
		}
		for _, d := range sl.Elts {
			ef, ok := d.(*ast.Field)
			if !ok {
				return false
			}
			name, _, err := ast.LabelName(ef.Label)
			if err != nil || entrySeen[name] {
				return false
			}
			entrySeen[name] = true
		}
		entries.Elts = append(entries.Elts, sl.Elts...)
		return true
	}
	for i, f := range files {
		for j, d := range f.Decls {
			fd, ok := d.(*ast.Field)
			if !ok {
				return nil, nil, false
			}
			name, _, err := ast.LabelName(fd.Label)
			if err != nil {
				return nil, nil, false
			}
			switch {
			case name == "entries" && i == 0:
				sl, ok := fd.Value.(*ast.StructLit)
				if !ok {
					return nil, nil, false
				}
				joined := *sl
				joined.Elts = nil
				entries = &joined
				g := *fd
				g.Value = entries
				if !addEntries(fd) {
					return nil, nil, false
				}
				decls = append(decls, &g)
				seen[name] = true
				continue
			case name == "entries" && j == 0 && entries != nil:
				if !addEntries(fd) {
					return nil, nil, false
				}
				continue
			case i > 0 && (j == 0 || i < len(files)-1):
				// A piece after the first starts with its entries and, but for the
				// last, holds nothing else.
				return nil, nil, false
			}
			if seen[name] {
				return nil, nil, false
			}
			seen[name] = true
			decls = append(decls, d)
		}
	}
	return decls, files[0], entries != nil
}

// yamlPieces is how many pieces a large pack is read in.
func yamlPieces() int { return min(runtime.GOMAXPROCS(0), 8) }
