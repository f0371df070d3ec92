package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestEveryCommandHelp runs every command, tool verbs included, with -h and --help:
// each exits 0, prints its usage on stdout (so `darkroom serve -h | less` works) and
// nothing on stderr, and gives every flag a description.
func TestEveryCommandHelp(t *testing.T) {
	m := &Main{}
	c, err := m.loadContract()
	if err != nil {
		t.Fatal(err)
	}
	paths := [][]string{}
	for _, name := range m.commandNames() {
		if name == "help" {
			continue
		}
		paths = append(paths, []string{name})
		for _, sub := range commands[name] {
			if name != "completion" {
				paths = append(paths, []string{name, sub})
			}
		}
	}
	if len(paths) < 40 {
		t.Fatalf("only %d commands: the tool verbs are missing", len(paths))
	}
	flagLine := regexp.MustCompile(`^  -(\S+)`)
	for _, p := range paths {
		for _, h := range []string{"-h", "--help"} {
			var out, errOut bytes.Buffer
			code := (&Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, contract: c, builtinContract: true}).Run(context.Background(), append(append([]string{}, p...), h))
			name := strings.Join(p, " ") + " " + h
			if code != 0 {
				t.Errorf("%s exited %d, want 0; stderr:\n%s", name, code, errOut.String())
				continue
			}
			if !strings.Contains(out.String(), "usage:") || errOut.Len() != 0 {
				t.Errorf("%s: want the usage on stdout and nothing on stderr; stdout:\n%s\nstderr:\n%s", name, out.String(), errOut.String())
			}
			lines := strings.Split(out.String(), "\n")
			for i, line := range lines {
				g := flagLine.FindStringSubmatch(line)
				if g == nil {
					continue
				}
				// PrintDefaults puts the description on the next line after a tab,
				// or on the same line after one for a one-letter flag.
				described := strings.Contains(line, "\t") && strings.TrimSpace(line[strings.Index(line, "\t"):]) != ""
				if !described && i+1 < len(lines) {
					described = strings.HasPrefix(lines[i+1], "    \t") && strings.TrimSpace(lines[i+1]) != ""
				}
				if !described {
					t.Errorf("%s: flag -%s has no description", name, g[1])
				}
			}
		}
	}
}

// TestBareGroupCommandIsUsageError keeps a group command without its subcommand a
// usage error (exit 2, on stderr): only asking for help succeeds.
func TestBareGroupCommandIsUsageError(t *testing.T) {
	for _, cmd := range []string{"token", "vocab", "contract", "completion"} {
		var out, errOut bytes.Buffer
		code := (&Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}).Run(context.Background(), []string{cmd})
		if code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "usage") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, the usage", cmd, code, out.String(), errOut.String())
		}
	}
}
