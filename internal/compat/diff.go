package compat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"

	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// Verdict says what a change does to the agents and authors that use the contract.
type Verdict string

const (
	Unchanged Verdict = "unchanged"
	Additive  Verdict = "additive"
	// NeedsReview is a change the differ cannot decide (a changed regular expression
	// or custom validator); it counts as breaking.
	NeedsReview Verdict = "needs review"
	Breaking    Verdict = "breaking"
)

func (v Verdict) rank() int {
	switch v {
	case Additive:
		return 1
	case NeedsReview:
		return 2
	case Breaking:
		return 3
	}
	return 0
}

// Worse returns the worse of two verdicts.
func (v Verdict) Worse(w Verdict) Verdict {
	if w.rank() > v.rank() {
		return w
	}
	return v
}

// Finding is one difference between two contracts. Tool is the tool's name, or one
// of the groups that are not tools (GroupManifest, GroupCatalog, GroupErrors,
// GroupEnvelope). Path is a JSON path into the tool (params.layer, data.entries[].name)
// or the group; "" is the tool itself. Old and New describe the value as JSON types.
type Finding struct {
	Tool    string  `json:"tool"`
	Path    string  `json:"path"`
	Old     string  `json:"old"`
	New     string  `json:"new"`
	Verdict Verdict `json:"verdict"`
	Rule    string  `json:"rule"`
}

// The groups of findings that are not tools. Tool names are snake_case, so these
// cannot collide with one.
const (
	GroupManifest = "#Manifest"
	GroupCatalog  = "operation catalog"
	GroupErrors   = "error codes"
	GroupEnvelope = "result envelope"
)

// Diff is what changed between two contracts, and whether the version says so.
type Diff struct {
	OldVersion string `json:"old_version"`
	NewVersion string `json:"new_version"`
	// ReleasedVersion, when set, is the version the bump is judged from instead of
	// OldVersion (JudgeSince).
	ReleasedVersion string    `json:"released_version,omitempty"`
	Verdict         Verdict   `json:"verdict"`
	Version         Bump      `json:"version"`
	Findings        []Finding `json:"findings"`
	// Unchanged lists the tools present on both sides with no finding.
	Unchanged []string `json:"unchanged"`
}

// DiffOptions are the examples that back the verdicts.
type DiffOptions struct {
	// Results are recorded tool results (the structuredContent of golden
	// transcripts), by tool name. When a tool's data change is judged compatible,
	// each must still satisfy the old output schema (unknown keys ignored).
	Results map[string][]RecordedResult
	// Packs are vocabulary manifests. When the #Manifest change is judged
	// compatible, a pack the old #Manifest accepts must pass the new one.
	Packs []Pack
}

// Pack is one vocabulary manifest and the check that validates it against a
// contract's #Manifest (internal/vocab owns reading packs).
type Pack struct {
	Name  string
	Check func(*contract.Contract) error
}

// Compare compares two loaded contracts: every tool's params (as inputs) and data
// (as outputs), its metadata, the error codes, the result envelope, #Manifest and
// the operation catalog (as inputs), and decides whether the new contract_version
// is raised as much as the change needs.
func Compare(old, new *contract.Contract, opts DiffOptions) (*Diff, error) {
	d := &Diff{OldVersion: old.Version, NewVersion: new.Version, Findings: []Finding{}, Unchanged: []string{}}
	var names []string
	for _, t := range old.Tools {
		names = append(names, t.Name)
	}
	for _, t := range new.Tools {
		if _, ok := old.Tool(t.Name); !ok {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		ot, inOld := old.Tool(name)
		nt, inNew := new.Tool(name)
		var fs []Finding
		switch {
		case !inNew:
			fs = removedTool(ot, new.Version)
		case !inOld:
			fs = []Finding{{Tool: name, Old: "absent", New: "tool (" + nt.Title + ")", Verdict: Additive, Rule: "tool added"}}
		default:
			fs = compareTool(old, new, ot, nt, opts)
		}
		if inNew && nt.Deprecated != nil {
			if _, ok := new.Tool(nt.Deprecated.Replacement); !ok {
				fs = append(fs, Finding{Tool: name, Path: "deprecated.replacement", Old: replacementOf(ot), New: nt.Deprecated.Replacement + " (no such tool)", Verdict: Breaking, Rule: "replacement missing"})
			}
		}
		if inOld && inNew && len(fs) == 0 {
			d.Unchanged = append(d.Unchanged, name)
		}
		d.add(fs)
	}

	d.add(compareManifest(old, new, opts))
	d.add(compareSchemas(GroupCatalog, input, "field", nil,
		old.Value.LookupPath(cue.MakePath(cue.Def("OperationArgs"))),
		new.Value.LookupPath(cue.MakePath(cue.Def("OperationArgs")))))
	d.add(compareErrorCodes(old, new))
	// The envelope as #Tool declares it; the code enum is the error codes' own rule.
	d.add(compareSchemas(GroupEnvelope, output, "field", map[string]bool{"error.code": true},
		old.Value.LookupPath(cue.ParsePath("#Tool.result")),
		new.Value.LookupPath(cue.ParsePath("#Tool.result"))))

	d.Verdict = Unchanged
	for _, f := range d.Findings {
		d.Verdict = d.Verdict.Worse(f.Verdict)
	}
	var err error
	d.Version, err = CheckVersion(old.Version, new.Version, d.Verdict)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// JudgeSince judges contract_version against the released version instead of the
// old one: the change from old to new must be covered by the bump since the release,
// which every change between two releases shares.
func (d *Diff) JudgeSince(released string) error {
	b, err := CheckVersion(released, d.NewVersion, d.Verdict)
	if err != nil {
		return fmt.Errorf("released contract_version: %w", err)
	}
	b.Reason = "since the release " + released + ", " + b.Reason
	d.ReleasedVersion, d.Version = released, b
	return nil
}

// add appends one group's findings, the worst first, so a reviewer reads what
// breaks before what is compatible.
func (d *Diff) add(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int { return b.Verdict.rank() - a.Verdict.rank() })
	d.Findings = append(d.Findings, fs...)
}

func replacementOf(t *contract.Tool) string {
	if t == nil || t.Deprecated == nil {
		return "not deprecated"
	}
	return t.Deprecated.Replacement
}

// removedTool is breaking unless the tool was deprecated and the new version is past
// its removeAfter.
func removedTool(t *contract.Tool, newVersion string) []Finding {
	f := Finding{Tool: t.Name, Old: "tool (" + t.Title + ")", New: "absent", Verdict: Breaking, Rule: "tool removed"}
	if t.Deprecated != nil {
		f.Old = fmt.Sprintf("deprecated tool, replaced by %s, removable after %s", t.Deprecated.Replacement, t.Deprecated.RemoveAfter)
		f.New = "absent in " + newVersion
		if after, err := semverLess(t.Deprecated.RemoveAfter, newVersion); err == nil && after {
			f.Verdict, f.Rule = Additive, "deprecated tool removed"
		} else {
			f.Rule = "tool removed before its removeAfter"
		}
	}
	return []Finding{f}
}

func compareTool(oc, nc *contract.Contract, ot, nt *contract.Tool, opts DiffOptions) []Finding {
	name := ot.Name
	var fs []Finding
	add := func(path, old, new string, v Verdict, rule string) {
		fs = append(fs, Finding{Tool: name, Path: path, Old: old, New: new, Verdict: v, Rule: rule})
	}

	// Deprecation: a promise about the future, read like an output.
	od, nd := ot.Deprecated, nt.Deprecated
	switch {
	case od == nil && nd != nil:
		add("deprecated", "not deprecated", fmt.Sprintf("deprecated, replaced by %s, removable after %s", nd.Replacement, nd.RemoveAfter), Additive, "tool deprecated")
	case od != nil && nd == nil:
		add("deprecated", fmt.Sprintf("deprecated, removable after %s", od.RemoveAfter), "not deprecated", Additive, "deprecation withdrawn")
	case od != nil && nd != nil:
		if od.RemoveAfter != nd.RemoveAfter {
			earlier, err := semverLess(nd.RemoveAfter, od.RemoveAfter)
			if err != nil || earlier {
				add("deprecated.removeAfter", od.RemoveAfter, nd.RemoveAfter, Breaking, "removeAfter moved earlier")
			} else {
				add("deprecated.removeAfter", od.RemoveAfter, nd.RemoveAfter, Additive, "removeAfter moved later")
			}
		}
		if od.Replacement != nd.Replacement {
			add("deprecated.replacement", od.Replacement, nd.Replacement, Additive, "replacement changed")
		}
	}

	// Annotations are hints clients act on (a read-only tool may run unasked): a
	// weaker promise breaks them.
	for _, a := range []struct {
		name     string
		old, new bool
		safe     bool // the value that promises more
	}{
		{"readOnly", ot.Annotations.ReadOnly, nt.Annotations.ReadOnly, true},
		{"destructive", ot.Annotations.Destructive, nt.Annotations.Destructive, false},
		{"idempotent", ot.Annotations.Idempotent, nt.Annotations.Idempotent, true},
		{"openWorld", ot.Annotations.OpenWorld, nt.Annotations.OpenWorld, false},
	} {
		if a.old == a.new {
			continue
		}
		if a.old == a.safe {
			add("annotations."+a.name, fmt.Sprint(a.old), fmt.Sprint(a.new), Breaking, "annotation weakened")
		} else {
			add("annotations."+a.name, fmt.Sprint(a.old), fmt.Sprint(a.new), Additive, "annotation strengthened")
		}
	}

	// The codes a tool declares: clients handle every code of the enum, so a change
	// here is documentation.
	for _, c := range ot.Errors {
		if !slices.Contains(nt.Errors, c) {
			add("errors."+c, "declared", "not declared", Additive, "error code undeclared")
		}
	}
	for _, c := range nt.Errors {
		if !slices.Contains(ot.Errors, c) {
			add("errors."+c, "not declared", "declared", Additive, "error code declared")
		}
	}

	params := compareSchemas(name, input, "param", nil, toolField(oc, name, "params"), toolField(nc, name, "params"))
	prefix(params, "params")
	fs = append(fs, params...)
	if worst(params).rank() <= Additive.rank() {
		if f, ok := exampleArguments(ot, nt); ok {
			fs = append(fs, f)
		}
	}

	data := compareSchemas(name, output, "field", nil, toolField(oc, name, "data"), toolField(nc, name, "data"))
	prefix(data, "data")
	fs = append(fs, data...)
	if worst(data).rank() <= Additive.rank() {
		if f, ok := recordedResults(oc, ot, opts.Results[name]); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

func toolField(c *contract.Contract, tool, field string) cue.Value {
	return c.Value.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(tool), cue.Str(field)))
}

func prefix(fs []Finding, p string) {
	for i := range fs {
		switch {
		case fs[i].Path == "":
			fs[i].Path = p
		case strings.HasPrefix(fs[i].Path, "["):
			fs[i].Path = p + fs[i].Path
		default:
			fs[i].Path = p + "." + fs[i].Path
		}
	}
}

func worst(fs []Finding) Verdict {
	v := Unchanged
	for _, f := range fs {
		v = v.Worse(f.Verdict)
	}
	return v
}

// compareSchemas compares two CUE values structurally with the given polarity.
func compareSchemas(group string, pol polarity, noun string, skip map[string]bool, old, new cue.Value) []Finding {
	switch {
	case !old.Exists() && !new.Exists():
		return nil
	case !new.Exists():
		return []Finding{{Tool: group, Old: "defined", New: "absent", Verdict: Breaking, Rule: "removed " + noun}}
	case !old.Exists():
		return []Finding{{Tool: group, Old: "absent", New: "defined", Verdict: Additive, Rule: "added " + noun}}
	}
	c := &comparer{pol: pol, tool: group, noun: noun, skip: skip}
	c.shapes("", shapeOf(old, 0), shapeOf(new, 0), false)
	return c.findings
}

func compareManifest(old, new *contract.Contract, opts DiffOptions) []Finding {
	fs := compareSchemas(GroupManifest, input, "field", nil, old.Manifest(), new.Manifest())
	if worst(fs).rank() > Additive.rank() {
		return fs
	}
	// Back a compatible verdict with the packs: one that passed must still pass.
	for _, p := range opts.Packs {
		if p.Check(old) != nil {
			continue
		}
		if err := p.Check(new); err != nil {
			fs = append(fs, Finding{Tool: GroupManifest, Path: p.Name, Old: "accepted", New: "rejected: " + errorSummary(err.Error()), Verdict: Breaking, Rule: "example pack rejected"})
		}
	}
	return fs
}

func compareErrorCodes(old, new *contract.Contract) []Finding {
	var fs []Finding
	describe := func(ec contract.ErrorCode) string {
		r := "not recoverable"
		if ec.Recoverable {
			r = "recoverable"
		}
		return fmt.Sprintf("%s, exit code %d", r, ec.ExitCode)
	}
	codes := map[string]bool{}
	for _, ec := range old.ErrorCodes {
		codes[ec.Code] = true
	}
	for _, ec := range new.ErrorCodes {
		codes[ec.Code] = true
	}
	var names []string
	for c := range codes {
		names = append(names, c)
	}
	slices.Sort(names)
	for _, code := range names {
		o, inO := old.ErrorCode(code)
		n, inN := new.ErrorCode(code)
		switch {
		case !inN:
			fs = append(fs, Finding{Tool: GroupErrors, Path: code, Old: describe(o), New: "absent", Verdict: Breaking, Rule: "error code removed"})
		case !inO:
			fs = append(fs, Finding{Tool: GroupErrors, Path: code, Old: "absent", New: describe(n), Verdict: Additive, Rule: "error code added"})
		default:
			if o.Recoverable != n.Recoverable {
				fs = append(fs, Finding{Tool: GroupErrors, Path: code + ".recoverable", Old: fmt.Sprint(o.Recoverable), New: fmt.Sprint(n.Recoverable), Verdict: Breaking, Rule: "recoverable changed"})
			}
			if o.ExitCode != n.ExitCode {
				fs = append(fs, Finding{Tool: GroupErrors, Path: code + ".exit_code", Old: fmt.Sprint(o.ExitCode), New: fmt.Sprint(n.ExitCode), Verdict: Breaking, Rule: "exit code changed"})
			}
		}
	}
	return fs
}

// errorSummary picks the line of a CUE error report that says what is wrong: the
// failing bound rather than "2 errors in empty disjunction" or the mismatch with the
// null arm.
func errorSummary(s string) string {
	var best string
	for _, l := range strings.Split(s, "\n") {
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		l = strings.TrimSuffix(l, ":")
		if best == "" || !strings.Contains(l, "errors in empty disjunction") && !strings.Contains(l, "mismatched types") {
			best = l
		}
	}
	if best == "" {
		return firstLine(s)
	}
	return truncate(best, 160)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return truncate(strings.TrimSuffix(s, ":"), 160)
}

// MarshalJSON keeps empty lists as [] so the JSON report has a fixed shape.
func (d *Diff) MarshalJSON() ([]byte, error) {
	type plain Diff
	p := plain(*d)
	if p.Findings == nil {
		p.Findings = []Finding{}
	}
	if p.Unchanged == nil {
		p.Unchanged = []string{}
	}
	return json.Marshal(p)
}
