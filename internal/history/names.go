package history

import (
	"fmt"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// MaxNameLen bounds image ids, branch and tag names.
const MaxNameLen = 64

// ValidateName checks an image id, branch or tag name. kind ("image id", "branch",
// "tag") words the error. A valid name is 1 to MaxNameLen characters of a-z, 0-9,
// '_', '-' and '.', starting with a letter or digit, without "..". Names become file
// names, so the rule keeps out path separators and dot files (where the store keeps
// its temporary files). Image ids may also hold upper-case letters (IMG_1234, an
// upper-case UUID): they are kept as given and are case-sensitive, and DirName keeps
// two ids that differ only by case in two directories even on a case-insensitive file
// system; branch and tag names stay lower case. Returns invalid_input otherwise.
func ValidateName(kind, name string) error {
	upper := kind == "image id"
	fail := func(why string) error {
		e := darkroom.Errorf(darkroom.InvalidInput, "%s %q %s", kind, name, why)
		e.Details = map[string]any{"name": name}
		return e
	}
	switch {
	case name == "":
		return fail("is empty")
	case len(name) > MaxNameLen:
		return fail(fmt.Sprintf("is longer than %d characters", MaxNameLen))
	case !isAlnum(name[0]) && !(upper && isUpper(name[0])):
		if upper {
			return fail("must start with a letter or a digit")
		}
		return fail("must start with a lowercase letter or a digit")
	case strings.Contains(name, ".."):
		return fail(`must not contain ".."`)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' && !(upper && isUpper(c)) {
			if upper {
				return fail("may only contain letters, digits, '_', '-' and '.'")
			}
			return fail("may only contain lowercase letters, digits, '_', '-' and '.'")
		}
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// upperMark precedes, in a DirName, a letter that is upper case in the id. It is
// not a character of any valid name, and is safe in a file name everywhere.
const upperMark = '+'

// DirName is the file name image id is stored under, the same in every directory of
// the workspace (images, sources, previews, exports, context). File systems that
// ignore case (macOS, Windows) would give "IMG_1234" and "img_1234" one directory, so
// a DirName has no upper case: an upper-case letter is written as '+' and the letter
// in lower case ("IMG_1234" is "+i+m+g_1234"). An id without upper case is its own
// DirName, as in workspaces made before ids could have upper case. id must be valid.
func DirName(id string) string {
	if strings.IndexFunc(id, func(r rune) bool { return r >= 'A' && r <= 'Z' }) < 0 {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if c := id[i]; isUpper(c) {
			b.WriteByte(upperMark)
			b.WriteByte(c + 'a' - 'A')
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IDFromDirName is the image id stored under the file name name, and whether name is
// the DirName of a valid image id.
func IDFromDirName(name string) (string, bool) {
	if strings.IndexByte(name, upperMark) < 0 {
		return name, ValidateName("image id", name) == nil && DirName(name) == name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == upperMark {
			if i+1 == len(name) || name[i+1] < 'a' || name[i+1] > 'z' {
				return "", false
			}
			i++
			c = name[i] - 'a' + 'A'
		}
		b.WriteByte(c)
	}
	id := b.String()
	return id, ValidateName("image id", id) == nil && DirName(id) == name
}

// isFullHash reports whether s is a snapshot hash as the store writes it: 64 lowercase
// hex digits.
func isFullHash(s string) bool {
	return len(s) == 64 && isHex(s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
