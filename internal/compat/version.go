package compat

import (
	"fmt"
	"strconv"
	"strings"
)

// Bump says whether contract_version moved as far as a change needs. A breaking
// change raises the major version, or the minor while below 1.0.0; an additive one
// at least the minor; an unchanged surface may keep its version or take a patch.
type Bump struct {
	// Needs is "none", "minor" or "major".
	Needs string `json:"needs"`
	// Minimum is the lowest contract_version that is enough.
	Minimum string `json:"minimum"`
	OK      bool   `json:"ok"`
	Reason  string `json:"reason"`
}

type semver struct{ major, minor, patch int }

func parseSemver(s string) (semver, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return semver{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p != strconv.Itoa(v) {
			return semver{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", s)
		}
		n[i] = v
	}
	return semver{n[0], n[1], n[2]}, nil
}

func (v semver) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }

func (v semver) less(w semver) bool {
	if v.major != w.major {
		return v.major < w.major
	}
	if v.minor != w.minor {
		return v.minor < w.minor
	}
	return v.patch < w.patch
}

// semverLess reports whether version a comes before version b.
func semverLess(a, b string) (bool, error) {
	va, err := parseSemver(a)
	if err != nil {
		return false, err
	}
	vb, err := parseSemver(b)
	if err != nil {
		return false, err
	}
	return va.less(vb), nil
}

// CheckVersion decides whether going from version old to version new is enough for
// a change whose worst verdict is v (needs review counts as breaking).
func CheckVersion(old, new string, v Verdict) (Bump, error) {
	o, err := parseSemver(old)
	if err != nil {
		return Bump{}, fmt.Errorf("old contract_version: %w", err)
	}
	n, err := parseSemver(new)
	if err != nil {
		return Bump{}, fmt.Errorf("new contract_version: %w", err)
	}
	b := Bump{Needs: "none"}
	min := o
	what := ""
	switch v {
	case Breaking, NeedsReview:
		if o.major == 0 {
			b.Needs, min = "minor", semver{0, o.minor + 1, 0}
			what = "a breaking change needs the minor raised while below 1.0.0"
		} else {
			b.Needs, min = "major", semver{o.major + 1, 0, 0}
			what = "a breaking change needs the major raised"
		}
		if v == NeedsReview {
			what = "a change that needs review counts as breaking, and " + strings.TrimPrefix(what, "a breaking change ")
		}
	case Additive:
		b.Needs, min = "minor", semver{o.major, o.minor + 1, 0}
		what = "an additive change needs at least the minor raised"
	}
	b.Minimum = min.String()
	switch {
	case n.less(o):
		b.Reason = fmt.Sprintf("contract_version went down from %s to %s", o, n)
	case n.less(min):
		b.Reason = fmt.Sprintf("%s: contract_version must be %s or later, it is %s", what, min, n)
	case v == Unchanged:
		b.OK, b.Reason = true, fmt.Sprintf("no change to the tool surface; contract_version %s is fine", n)
	default:
		b.OK, b.Reason = true, fmt.Sprintf("%s: contract_version %s is enough", what, n)
	}
	return b, nil
}
