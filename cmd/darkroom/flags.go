package main

import "flag"

// The one parser of flags among positional arguments, for every command that takes
// both (tool verbs, render, sheet, contract diff).

// parseInterspersed parses flags wherever they are among the arguments and returns
// the arguments that are not flags, in order; after "--" everything is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseTwoPaths parses flags wherever they are and returns the two positional
// arguments IN and OUT.
func parseTwoPaths(fs *flag.FlagSet, args []string) (string, string, error) {
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return "", "", err
	}
	if len(paths) != 2 {
		return "", "", usagef("want IN and OUT paths, got %d arguments %q", len(paths), paths)
	}
	return paths[0], paths[1], nil
}
