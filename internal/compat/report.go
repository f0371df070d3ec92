package compat

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText prints the report for people: one block per tool or group, one line
// per finding (verdict, path, old → new, rule), then the verdict on the version.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "contract_version %s → %s", d.OldVersion, d.NewVersion)
	if d.ReleasedVersion != "" {
		fmt.Fprintf(&b, " (released %s)", d.ReleasedVersion)
	}
	b.WriteString("\n")
	var groups []string
	byGroup := map[string][]Finding{}
	for _, f := range d.Findings {
		if _, ok := byGroup[f.Tool]; !ok {
			groups = append(groups, f.Tool)
		}
		byGroup[f.Tool] = append(byGroup[f.Tool], f)
	}
	if len(groups) == 0 {
		b.WriteString("\nNo change to the tool surface.\n")
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%s\n", g)
		fs := byGroup[g]
		width := 0
		for _, f := range fs {
			width = max(width, utf8.RuneCountInString(displayPath(f.Path)))
		}
		for _, f := range fs {
			p := displayPath(f.Path)
			fmt.Fprintf(&b, "  %-12s  %s%s  %s → %s  (%s)\n", f.Verdict, p, strings.Repeat(" ", width-utf8.RuneCountInString(p)), f.Old, f.New, f.Rule)
		}
	}
	if len(d.Unchanged) > 0 {
		fmt.Fprintf(&b, "\nunchanged tools: %s\n", strings.Join(d.Unchanged, ", "))
	}
	counts := map[Verdict]int{}
	for _, f := range d.Findings {
		counts[f.Verdict]++
	}
	is := "is " + string(d.Verdict)
	if d.Verdict == NeedsReview {
		is = "needs review"
	}
	fmt.Fprintf(&b, "\n%d breaking, %d needing review, %d additive: the change %s.\n", counts[Breaking], counts[NeedsReview], counts[Additive], is)
	status := "FAIL"
	if d.Version.OK {
		status = "OK"
	}
	fmt.Fprintf(&b, "%s: %s.\n", status, d.Version.Reason)
	_, err := io.WriteString(w, b.String())
	return err
}

func displayPath(p string) string {
	if p == "" {
		return "(tool)"
	}
	return p
}
