package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"darkroom"
	"darkroom/internal/auth"
)

const tokenUsage = `usage: darkroom token add NAME --grants G[,G...] [--workspace-name W] [--tokens FILE]
       darkroom token remove NAME [--tokens FILE]
       darkroom token list [--tokens FILE]`

// tokenCmd manages the bearer tokens of serve --http. The file keeps only hashes:
// add prints the token once, and nothing prints it again.
func (m *Main) tokenCmd(args []string) error {
	if len(args) == 0 {
		return usagef("%s", tokenUsage)
	}
	sub, args := args[0], args[1:]
	fs := m.flags("token "+sub, strings.TrimPrefix(tokenUsage, "usage: darkroom "))
	file := fs.String("tokens", os.Getenv("DARKROOM_TOKENS"), "the token `FILE` (default $DARKROOM_TOKENS)")
	var grants, workspace *string
	if sub == "add" {
		grants = fs.String("grants", "", "comma-separated grants (contracts/grants.cue: read, validate, augment, edit, admin)")
		workspace = fs.String("workspace-name", "", "the workspace the token works in (default NAME; tokens naming one workspace share it)")
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *file == "" {
		return usagef("token %s: give --tokens FILE or set DARKROOM_TOKENS", sub)
	}
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	p, err := auth.NewPolicy(c)
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "token")
	}
	warn := func(msg string) { fmt.Fprintf(m.Stderr, "darkroom: %s\n", msg) }
	store, err := auth.Load(*file, p, warn)
	if err != nil {
		return darkroom.Wrap(darkroom.InvalidInput, err, "--tokens")
	}
	switch sub {
	case "add":
		if len(pos) != 1 {
			return usagef("token add takes one NAME, got %q", pos)
		}
		if *grants == "" {
			return usagef("token add needs --grants (one or more of %s)", strings.Join(p.GrantNames(), ", "))
		}
		token, err := store.Add(pos[0], strings.Split(*grants, ","), *workspace, nil)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, token)
		fmt.Fprintf(m.Stderr, "darkroom: token %s added; it is shown only now: give it to its holder (Authorization: Bearer ...)\n", pos[0])
		return nil
	case "remove":
		if len(pos) != 1 {
			return usagef("token remove takes one NAME, got %q", pos)
		}
		return store.Remove(pos[0])
	case "list":
		if len(pos) != 0 {
			return usagef("token list takes no arguments, got %q", pos)
		}
		tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tGRANTS\tWORKSPACE\tLIMITS")
		for _, r := range store.Records() {
			lim := "defaults"
			if l := r.Limits; l != nil {
				lim = fmt.Sprintf("%d/min burst %d, %d at once, %d bytes", l.RequestsPerMinute, l.Burst, l.ConcurrentCalls, l.MaxInputBytes)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, strings.Join(r.Grants, ","), r.Workspace, lim)
		}
		return tw.Flush()
	}
	return usagef("unknown token command %q\n%s", sub, tokenUsage)
}
