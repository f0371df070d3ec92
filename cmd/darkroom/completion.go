package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/darkroom-mcp/darkroom/internal/history"
)

// Shell completion. `darkroom completion bash|zsh|fish` prints a script that asks the
// binary itself, `darkroom __complete WORD... CURRENT`, for the candidates: so what
// it completes is always what this binary has (its commands, each command's flags as
// its -h lists them, the vocabulary's entries and presets, the workspace's images and
// their branches and tags), and nothing is restated in the scripts.

const completionSynopsis = `completion bash|zsh|fish

Prints a completion script for the shell. It completes commands, flags, vocabulary
entry names (--entry, --primitive-name, --module-name), preset names (--preset),
image ids (--image-id, --source-image-id, --target-image-ids; from --workspace, else
$DARKROOM_WORKSPACE, else the default workspace) and an image's branches and tags
(--ref-or-hash, --from, --hash, --hash-a, --hash-b). A positional argument completes
as its flag does (checkout IMAGE_ID REF_OR_HASH). Elsewhere the shell completes file
names.

  bash:  source <(darkroom completion bash)          (or save it in /etc/bash_completion.d/darkroom)
  zsh:   source <(darkroom completion zsh)           (after compinit; or save it as _darkroom on $fpath)
  fish:  darkroom completion fish > ~/.config/fish/completions/darkroom.fish`

var completionScripts = map[string]string{
	"bash": `# bash completion for darkroom (darkroom completion bash)
_darkroom() {
  local IFS=$'\n'
  COMPREPLY=($(darkroom __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _darkroom darkroom
`,
	"zsh": `#compdef darkroom
# zsh completion for darkroom (darkroom completion zsh)
_darkroom() {
  local -a c
  c=("${(@f)$(darkroom __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if (( ${#c} )) && [[ -n ${c[1]} ]]; then
    compadd -a c
  else
    _files
  fi
}
compdef _darkroom darkroom
`,
	"fish": `# fish completion for darkroom (darkroom completion fish)
function __darkroom_complete
  set -l words (commandline -opc) (commandline -ct)
  darkroom __complete $words[2..-1] 2>/dev/null
end
complete -c darkroom -a '(__darkroom_complete)'
`,
}

func (m *Main) completionCmd(args []string) error {
	fs := m.flags("completion", completionSynopsis)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == "" {
		return usagef("completion takes one of bash, zsh, fish, got %q\nusage: darkroom completion bash|zsh|fish", fs.Args())
	}
	fmt.Fprint(m.Stdout, completionScripts[fs.Arg(0)])
	return nil
}

// commands are the commands that are not tool verbs, and their subcommands.
var commands = map[string][]string{
	"serve": nil, "token": {"add", "remove", "list"}, "demo": nil, "vocab": {"list", "vet"},
	"contract": {"export", "diff"}, "render": nil, "contact-sheet": nil, "docs": nil,
	"version": nil, "completion": {"bash", "zsh", "fish"}, "help": nil,
	"augment-dataset": {"merge"},
}

// completeCmd prints the candidates for the last of args (the word being typed, ""
// for a new one), one per line.
func (m *Main) completeCmd(args []string) error {
	if len(args) == 0 {
		args = []string{""}
	}
	cur, prev := args[len(args)-1], args[:len(args)-1]
	var cands []string
	switch {
	case len(prev) == 0:
		cands = m.commandNames()
	case strings.HasPrefix(cur, "-"):
		flags, _ := m.commandFlags(commandPath(prev))
		for _, f := range flags {
			cands = append(cands, "--"+f)
		}
	default:
		path := commandPath(prev)
		_, takesValue := m.commandFlags(path)
		last := prev[len(prev)-1]
		if name := strings.TrimLeft(last, "-"); strings.HasPrefix(last, "-") && takesValue[name] {
			cands = m.flagValues(name, prev)
			break
		}
		if subs := commands[prev[0]]; len(subs) > 0 && len(prev) == 1 {
			cands = subs
			break
		}
		if name := positionalParam(m, prev[0], len(positionalArgs(prev[1:], takesValue))); name != "" {
			cands = m.flagValues(kebab(name), prev)
		}
	}
	for _, c := range cands {
		if strings.HasPrefix(c, cur) {
			fmt.Fprintln(m.Stdout, c)
		}
	}
	return nil
}

// commandPath is the command (and subcommand) a command line runs: the words -h
// applies to.
func commandPath(words []string) []string {
	if subs := commands[words[0]]; len(subs) > 0 && len(words) > 1 && slices.Contains(subs, words[1]) {
		return words[:2]
	}
	return words[:1]
}

// positionalArgs are the words that are neither flags nor flag values.
func positionalArgs(words []string, takesValue map[string]bool) []string {
	var pos []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") {
			if !strings.Contains(w, "=") && takesValue[strings.TrimLeft(w, "-")] {
				i++
			}
			continue
		}
		pos = append(pos, w)
	}
	return pos
}

func (m *Main) commandNames() []string {
	names := make([]string, 0, len(commands)+64)
	for n := range commands {
		names = append(names, n)
	}
	c := m.snapshot()
	if c == nil {
		c, _ = m.loadContract()
	}
	if c != nil {
		for _, t := range c.Tools {
			if t.Deprecated == nil {
				names = append(names, kebab(t.Name))
			}
		}
	}
	for verb := range toolVerbAliases {
		names = append(names, verb)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

var reFlagLine = regexp.MustCompile(`^  -([^\s]+)(?: ([^\s]+))?`)

// commandFlags runs the command with -h and reads its flags, and which of them take
// a value, from what the flag package printed.
func (m *Main) commandFlags(path []string) (names []string, takesValue map[string]bool) {
	var out bytes.Buffer
	sub := &Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: io.Discard}
	sub.Run(context.Background(), append(slices.Clone(path), "-h"))
	takesValue = map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		if g := reFlagLine.FindStringSubmatch(line); g != nil {
			names = append(names, g[1])
			takesValue[g[1]] = g[2] != ""
		}
	}
	sort.Strings(names)
	return names, takesValue
}

// flagValues completes the value of the flag name.
func (m *Main) flagValues(name string, words []string) []string {
	switch {
	case name == "entry" || name == "primitive-name":
		if s, err := m.newServer(nil, nil); err == nil {
			var out []string
			for _, e := range s.Vocab.Entries {
				out = append(out, e.Name)
			}
			return out
		}
	case name == "preset":
		if s, err := m.newServer(nil, nil); err == nil {
			var out []string
			for _, p := range s.Vocab.Presets {
				out = append(out, p.Name)
			}
			return out
		}
	case name == "module-name":
		// A module is the entry that made it.
		return m.flagValues("entry", words)
	case name == "image-id" || strings.HasSuffix(name, "-image-id") || strings.HasSuffix(name, "-image-ids"):
		return m.imageIDs(words)
	case name == "ref-or-hash" || name == "from" || name == "hash" || name == "hash-a" || name == "hash-b":
		return m.refNames(words)
	}
	return nil
}

// positionalParam is the parameter a tool command's positional argument number i
// (0-based) gives, "" when it gives none: so a positional argument completes as
// its flag does (an IMAGE_ID, a REF_OR_HASH, TARGET_IMAGE_IDS...).
func positionalParam(m *Main, verb string, i int) string {
	if _, ok := commands[verb]; ok {
		return ""
	}
	// Not the start-up snapshot: it holds no input schemas.
	c, err := m.loadContract()
	if err != nil {
		return ""
	}
	t, ok := toolForVerb(c, verb)
	if !ok {
		return ""
	}
	order := positionals(t)
	if i < len(order.names) {
		return order.names[i]
	}
	return order.rest
}

// store opens the history of the workspace a command line names, without creating
// anything: completion must not leave a workspace behind.
func store(words []string) *history.Store {
	var wf workspaceFlags
	for i, w := range words {
		if v, ok := strings.CutPrefix(strings.TrimLeft(w, "-"), "workspace="); ok && strings.HasPrefix(w, "-") {
			wf.dir = v
		} else if (w == "--workspace" || w == "-workspace") && i+1 < len(words) {
			wf.dir = words[i+1]
		}
	}
	dir, err := wf.workspaceDir()
	if err != nil {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(dir, "images")); err != nil || !fi.IsDir() {
		return nil
	}
	s, err := history.Open(dir)
	if err != nil {
		return nil
	}
	return s
}

func (m *Main) imageIDs(words []string) []string {
	s := store(words)
	if s == nil {
		return nil
	}
	ids, _ := s.ListImages()
	return ids
}

// refNames are the branches and tags of the image the command line names (its
// first positional argument, or --image-id).
func (m *Main) refNames(words []string) []string {
	s := store(words)
	if s == nil {
		return nil
	}
	_, takesValue := m.commandFlags(commandPath(words))
	id := ""
	for i, w := range words {
		if (w == "--image-id" || w == "-image-id") && i+1 < len(words) {
			id = words[i+1]
		}
	}
	if pos := positionalArgs(words[1:], takesValue); id == "" && len(pos) > 0 {
		id = pos[0]
	}
	if id == "" {
		return nil
	}
	refs, err := s.Refs(id)
	if err != nil {
		return nil
	}
	var out []string
	for b := range refs.Branches {
		out = append(out, b)
	}
	for t := range refs.Tags {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
