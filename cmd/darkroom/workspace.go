package main

import (
	"flag"
	"os"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// workspaceFlags are the flags of every command that keeps state: where the
// workspace is and which directories ingest may read photos from.
type workspaceFlags struct {
	dir   string
	allow multiFlag
	write multiFlag
}

func (w *workspaceFlags) register(fs *flag.FlagSet, allowDoc string) {
	fs.StringVar(&w.dir, "workspace", "", "the workspace directory (default: $DARKROOM_WORKSPACE, else the per-user data directory)")
	fs.Var(&w.allow, "allow-root", allowDoc)
	fs.Var(&w.write, "allow-write-root", "a directory augment_dataset may write its outputs under (and read from); repeatable")
}

// workspaceDir is the workspace a command uses: --workspace, else
// $DARKROOM_WORKSPACE, else workspace.Default.
func (w *workspaceFlags) workspaceDir() (string, error) {
	if w.dir != "" {
		return w.dir, nil
	}
	if d := os.Getenv("DARKROOM_WORKSPACE"); d != "" {
		return d, nil
	}
	d, err := workspace.Default()
	if err != nil {
		return "", darkroom.Wrap(darkroom.Unavailable, err, "no default workspace: give --workspace DIR")
	}
	return d, nil
}

// open opens the workspace with the --allow-root directories, or defaultAllow
// when none was given.
func (w *workspaceFlags) open(defaultAllow []string) (*workspace.Workspace, error) {
	dir, err := w.workspaceDir()
	if err != nil {
		return nil, err
	}
	allow := []string(w.allow)
	if len(allow) == 0 {
		allow = defaultAllow
	}
	ws, err := workspace.Open(dir, allow)
	if err != nil {
		return nil, err
	}
	for _, d := range w.write {
		if err := ws.AllowWrite(d); err != nil {
			return nil, err
		}
	}
	return ws, nil
}
