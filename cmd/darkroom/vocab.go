package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

const vocabUsage = `usage: darkroom vocab list [--layer L1|L2|L3] [--category C] [--tag T]... [--vocab DIR]... [--json]
       darkroom vocab vet FILE...`

func (m *Main) vocabCmd(args []string) error {
	if len(args) == 0 {
		return usagef("%s", vocabUsage)
	}
	if helpArg(args) {
		return m.groupHelp(vocabUsage + "\n\ncommands:\n  list   list the vocabulary entries (built-in packs and --vocab DIR)\n  vet    check vocabulary packs against the #Manifest schema, as cue vet does\n\nRun 'darkroom vocab list -h' for list's flags.")
	}
	switch args[0] {
	case "list":
		return m.vocabList(args[1:])
	case "vet":
		return m.vocabVet(args[1:])
	}
	return usagef("unknown vocab command %q\n%s", args[0], vocabUsage)
}

func (m *Main) vocabList(args []string) error {
	fs := m.flags("vocab list", "vocab list [flags]")
	var vocabDirs, tags multiFlag
	layer := fs.String("layer", "", "only entries of this layer (L1, L2, L3)")
	category := fs.String("category", "", "only entries of this category")
	fs.Var(&tags, "tag", "only entries with this tag (repeatable)")
	fs.Var(&vocabDirs, "vocab", "directory of extra vocabulary packs (repeatable)")
	asJSON := fs.Bool("json", false, "print one JSON object per line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := m.newServer(vocabDirs, nil)
	if err != nil {
		return err
	}
	// The same code path as the list_vocabulary tool.
	req := map[string]any{"tags": []string(tags)}
	if *layer != "" {
		req["layer"] = *layer
	}
	if *category != "" {
		req["category"] = *category
	}
	raw, _ := json.Marshal(req)
	env, _ := s.Invoke(context.Background(), "list_vocabulary", raw)
	if !env.Success {
		return &darkroom.Error{Code: env.Error.Code, Message: env.Error.Message}
	}
	var data struct {
		Entries []map[string]any `json:"entries"`
	}
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &data)
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		for _, e := range data.Entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLAYER\tCATEGORY\tVALUE\tOPERATIONS")
	for _, e := range data.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e["name"], e["layer"], e["category"], valueSummary(e), joinAny(e["operations"]))
	}
	return tw.Flush()
}

// valueSummary shows what value an entry takes: "-", "ev -5..5" or "temp, tint".
func valueSummary(e map[string]any) string {
	params, _ := e["parameters"].([]any)
	switch len(params) {
	case 0:
		return "-"
	case 1:
		p := params[0].(map[string]any)
		return fmt.Sprintf("%s %v..%v", p["name"], p["min"], p["max"])
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = fmt.Sprint(p.(map[string]any)["name"])
	}
	return "{" + strings.Join(names, ", ") + "}"
}

func joinAny(v any) string {
	l, _ := v.([]any)
	s := make([]string, len(l))
	for i, x := range l {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// vocabVet checks packs as `cue vet -c -d '#Manifest' ./contracts FILE` does and
// prints the same messages; then it checks the packs together with the built-in
// vocabulary, as the server would load them.
func (m *Main) vocabVet(args []string) error {
	fs := m.flags("vocab vet", "vocab vet FILE...\n\nChecks vocabulary packs (YAML, JSON or CUE) against the #Manifest schema, with file,\nline and column, as `cue vet -c -d '#Manifest' ./contracts FILE` does.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) == 0 {
		return usagef("vocab vet needs at least one FILE")
	}
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	var srcs []pack.Source
	failed := false
	for _, name := range args {
		src, err := pack.File(name)
		if err != nil {
			fmt.Fprintf(m.Stderr, "%s\n", err)
			failed = true
			continue
		}
		if _, err := pack.Check(c, src); err != nil {
			var pe *pack.Error
			if errors.As(err, &pe) {
				fmt.Fprint(m.Stderr, pe.Detail)
			} else {
				fmt.Fprintf(m.Stderr, "%s\n", err)
			}
			failed = true
			continue
		}
		srcs = append(srcs, src)
	}
	if failed {
		return errReported{m.exitCode(darkroom.InvalidInput)}
	}
	builtin, err := pack.Builtin()
	if err != nil {
		return err
	}
	// A vetted file that is a built-in pack (or a new version of one) stands in for it.
	vetted := map[string]bool{}
	for _, s := range srcs {
		vetted[pack.Name(c, s)] = true
	}
	all := srcs
	for _, b := range builtin {
		if !vetted[pack.Name(c, b)] {
			all = append(all, b)
		}
	}
	if _, err := pack.Load(c, all); err != nil {
		return err
	}
	return nil
}
