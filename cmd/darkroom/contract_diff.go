package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/darkroom-mcp/darkroom/internal/compat"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

const contractDiffDoc = `usage: darkroom contract diff [--json] [--release DIR] OLD [NEW]
       darkroom contract diff [--json] [--release DIR] --base REV [NEW]
       darkroom contract diff [--json] --snapshot DIR [NEW]

Compare two contracts tool by tool and say what the change does to the agents and
vocabulary authors that use them: breaking, additive, or needs review (which counts
as breaking). OLD and NEW are directories laid out like the repository (cue.mod/ and
contracts/); NEW defaults to the current directory. --base reads OLD from a git
revision of NEW's repository; --snapshot from the released snapshot that
'make release-contract' writes (release/contract).

Compatible verdicts are backed by examples from NEW: the agreement test's argument
corpus, the recorded results of the golden transcripts (testscripts/*.txtar) and the
vocabulary packs (vocabulary/).

A breaking change must raise contract_version (the minor while below 1.0.0, the major
after), an additive one at least the minor. --release DIR judges that against the
released snapshot's version instead of OLD's, so that a diff against the previous
commit (--base HEAD^1) asks for the bump since the release, which several commits
share, and not for one bump per commit.

Exit status: 0 when the version matches what the change needs, 1 when it does not,
2 for a usage error or a side that cannot be read.
`

// exitVersionMismatch is the exit code when contract_version does not match what the
// change needs.
const exitVersionMismatch = 1

func (m *Main) contractDiff(args []string) error {
	fs := flag.NewFlagSet("contract diff", flag.ContinueOnError)
	// Errors are reported once, as usage errors; -h prints the whole help.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	asJSON := fs.Bool("json", false, "print the report as JSON")
	base := fs.String("base", "", "read OLD from this git revision of NEW's repository")
	snapshot := fs.String("snapshot", "", "read OLD from the released snapshot directory (or its contract.json)")
	release := fs.String("release", "", "judge contract_version against this released snapshot's version instead of OLD's")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(&m.flagOut, contractDiffDoc)
		return err
	}
	if err != nil {
		return usagef("contract diff: %v (darkroom contract diff -h)", err)
	}
	if *base != "" && *snapshot != "" {
		return usagef("contract diff: --base and --snapshot are exclusive")
	}
	var oldC *contract.Contract
	newDir := "."
	switch {
	case *base != "" || *snapshot != "":
		if len(pos) > 1 {
			return usagef("contract diff: with --base or --snapshot give at most NEW, got %q", pos)
		}
		if len(pos) == 1 {
			newDir = pos[0]
		}
		if *base != "" {
			oldC, err = loadRevision(newDir, *base)
		} else {
			oldC, err = loadSnapshot(*snapshot)
		}
	default:
		if len(pos) == 0 || len(pos) > 2 {
			return usagef("contract diff: want OLD [NEW], got %d arguments (darkroom contract diff -h)", len(pos))
		}
		if len(pos) == 2 {
			newDir = pos[1]
		}
		oldC, err = loadDir(pos[0])
	}
	if err != nil {
		return err
	}
	newC, err := loadDir(newDir)
	if err != nil {
		return err
	}
	opts, err := examples(newDir)
	if err != nil {
		return err
	}
	d, err := compat.Compare(oldC, newC, opts)
	if err != nil {
		return usagef("contract diff: %v", err)
	}
	if *release != "" {
		// Several changes between two releases need one bump between them: a
		// change since OLD (the previous commit) is covered by the bump since the
		// release, not by one of its own.
		rc, err := loadSnapshot(*release)
		if err != nil {
			return err
		}
		if err := d.JudgeSince(rc.Version); err != nil {
			return usagef("contract diff: %v", err)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			return err
		}
	} else if err := d.WriteText(m.Stdout); err != nil {
		return err
	}
	if !d.Version.OK {
		return errReported{exitVersionMismatch}
	}
	return nil
}

func loadDir(dir string) (*contract.Contract, error) {
	return loadTree("contract diff", dir)
}

// loadTree loads the contract of a directory laid out like the repository (cue.mod/
// and contracts/); a directory that is missing or does not load is a usage error
// (exit 2) naming the verb.
func loadTree(verb, dir string) (*contract.Contract, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usagef("%s: %s is not a directory", verb, dir)
	}
	c, err := contract.Load(os.DirFS(dir))
	if err != nil {
		return nil, usagef("%s: %s: %v", verb, dir, err)
	}
	return c, nil
}

// loadSnapshot loads the released snapshot: a directory laid out like the
// repository, with the exported contract.json beside it for people. The two must
// name the same version, or the snapshot was edited by hand.
func loadSnapshot(p string) (*contract.Contract, error) {
	dir := p
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		dir = filepath.Dir(p)
	}
	c, err := loadDir(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "contract.json"))
	if err != nil {
		return nil, usagef("contract diff: snapshot %s has no contract.json (make release-contract writes it)", dir)
	}
	var exported struct {
		Version string `json:"contract_version"`
	}
	if err := json.Unmarshal(b, &exported); err != nil || exported.Version != c.Version {
		return nil, usagef("contract diff: snapshot %s is inconsistent: contract.json says %q, its CUE says %q (make release-contract rewrites it)", dir, exported.Version, c.Version)
	}
	return c, nil
}

// loadRevision loads cue.mod and contracts/ of dir as they were at a git revision.
func loadRevision(dir, rev string) (*contract.Contract, error) {
	git := func(dir string, args ...string) ([]byte, error) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, usagef("contract diff: --base %s: git %s: %s", rev, args[0], msg)
		}
		return out, nil
	}
	prefix, err := git(dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	p := strings.TrimSpace(string(prefix))
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	// Archive from the top so the path specs do not depend on the working directory.
	archive, err := git(strings.TrimSpace(string(top)), "archive", "--format=tar", rev, "--", p+"cue.mod/module.cue", p+"contracts")
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, usagef("contract diff: --base %s: %v", rev, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, usagef("contract diff: --base %s: %v", rev, err)
		}
		fsys[strings.TrimPrefix(h.Name, p)] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	c, err := contract.Load(fsys)
	if err != nil {
		return nil, usagef("contract diff: --base %s: %v", rev, err)
	}
	return c, nil
}

// examples gathers what backs the verdicts from NEW: recorded results and packs.
func examples(dir string) (compat.DiffOptions, error) {
	results, err := compat.RecordedResults(os.DirFS(dir), "testscripts")
	if err != nil {
		return compat.DiffOptions{}, usagef("contract diff: recorded results: %v", err)
	}
	opts := compat.DiffOptions{Results: results}
	packDir := filepath.Join(dir, "vocabulary")
	if st, err := os.Stat(packDir); err != nil || !st.IsDir() {
		return opts, nil
	}
	srcs, err := pack.Dir(packDir)
	if err != nil {
		return compat.DiffOptions{}, usagef("contract diff: packs: %v", err)
	}
	for _, src := range srcs {
		opts.Packs = append(opts.Packs, compat.Pack{
			Name: path.Join("vocabulary", path.Base(filepath.ToSlash(src.Name))),
			Check: func(c *contract.Contract) error {
				_, err := pack.Check(c, src)
				return err
			},
		})
	}
	return opts, nil
}
