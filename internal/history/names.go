package history

import (
	"fmt"
	"strings"

	"darkroom"
)

// MaxNameLen bounds image ids, branch and tag names.
const MaxNameLen = 64

// ValidateName checks an image id, branch or tag name. kind ("image id", "branch",
// "tag") only words the error. A valid name is 1 to MaxNameLen characters of a-z, 0-9,
// '_', '-' and '.', starting with a letter or digit, without "..". Names become file
// names, so the rule keeps out path separators, dot files (where the store keeps its
// temporary files) and names that differ only by case, which collide on
// case-insensitive file systems. Returns invalid_input otherwise.
func ValidateName(kind, name string) error {
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
	case !isAlnum(name[0]):
		return fail("must start with a lowercase letter or a digit")
	case strings.Contains(name, ".."):
		return fail(`must not contain ".."`)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return fail("may only contain lowercase letters, digits, '_', '-' and '.'")
		}
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

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
