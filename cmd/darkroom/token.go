package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/auth"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

const tokenUsage = `usage: darkroom token add NAME --grants G[,G...] [--workspace-name W] [--requests-per-minute N] [--burst N] [--concurrent-calls N] [--max-input-bytes N] [--tokens FILE]
       darkroom token remove NAME [--tokens FILE]
       darkroom token list [--tokens FILE]`

const tokenDoc = `commands:
  add NAME      create a token for NAME with its grants; prints the token once
  remove NAME   delete NAME's token (a running server stops accepting it within a second)
  list          names, grants, workspaces and limits; never the tokens

The token file (--tokens FILE, default $DARKROOM_TOKENS) keeps only SHA-256 hashes,
mode 0600. Run 'darkroom token add -h' for add's flags.`

// tokenCmd manages the bearer tokens of serve --http. The file keeps only hashes:
// add prints the token once, and nothing prints it again.
func (m *Main) tokenCmd(args []string) error {
	if len(args) == 0 {
		return usagef("%s", tokenUsage)
	}
	if helpArg(args) {
		return m.groupHelp(tokenUsage + "\n\n" + tokenDoc)
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "add", "remove", "list":
	default:
		return usagef("unknown token command %q\n%s", sub, tokenUsage)
	}
	fs := m.flags("token "+sub, strings.TrimPrefix(tokenUsage, "usage: darkroom "))
	file := fs.String("tokens", os.Getenv("DARKROOM_TOKENS"), "the token `FILE` (default $DARKROOM_TOKENS)")
	var grants, workspace *string
	var rpm, burst, concurrent int
	var maxInput int64
	if sub == "add" {
		grants = fs.String("grants", "", "comma-separated grants (contracts/grants.cue: read, validate, augment, edit, admin)")
		workspace = fs.String("workspace-name", "", "the workspace the token works in (default NAME; tokens naming one workspace share it)")
		fs.IntVar(&rpm, "requests-per-minute", 0, "this token's call rate (default: limit_defaults in contracts/grants.cue)")
		fs.IntVar(&burst, "burst", 0, "how many calls may come at once before the rate applies (default: limit_defaults)")
		fs.IntVar(&concurrent, "concurrent-calls", 0, "how many of this token's calls may run at the same time (default: limit_defaults)")
		fs.Int64Var(&maxInput, "max-input-bytes", 0, "the largest request body this token may send (default: limit_defaults)")
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
		var limits *contract.Limits
		if rpm != 0 || burst != 0 || concurrent != 0 || maxInput != 0 {
			l, err := c.LimitDefaults()
			if err != nil {
				return darkroom.Wrap(darkroom.InternalError, err, "token add")
			}
			for _, set := range []struct {
				v   int64
				dst func(int64)
			}{
				{int64(rpm), func(v int64) { l.RequestsPerMinute = int(v) }},
				{int64(burst), func(v int64) { l.Burst = int(v) }},
				{int64(concurrent), func(v int64) { l.ConcurrentCalls = int(v) }},
				{maxInput, func(v int64) { l.MaxInputBytes = v }},
			} {
				if set.v != 0 {
					set.dst(set.v)
				}
			}
			if err := c.CheckLimits(l); err != nil {
				return darkroom.Wrap(darkroom.InvalidInput, err, "token add")
			}
			limits = &l
		}
		token, err := store.Add(pos[0], strings.Split(*grants, ","), *workspace, limits)
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
