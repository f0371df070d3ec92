package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
)

const mergeSynopsis = `augment-dataset merge OUT MANIFEST...

Join the manifests of the shards of one augment_dataset run (manifest.shard-I-of-N.jsonl,
each written by a run with --shard I/N into OUT) into OUT/manifest.jsonl, and write the
COCO file when the input had one. Every shard 0..N-1 must be there exactly once, each
record in its shard, each file it names present. The result is byte for byte what one
unsharded run writes.`

// datasetMerge is `darkroom augment-dataset merge OUT MANIFEST...`.
func (m *Main) datasetMerge(args []string) error {
	fs := m.flags("augment-dataset merge", mergeSynopsis)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("augment-dataset merge takes OUT and at least one shard manifest")
	}
	out, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return usagef("OUT: %v", err)
	}
	var names []string
	for _, p := range fs.Args()[1:] {
		abs, err := filepath.Abs(p)
		if err != nil {
			return usagef("%s: %v", p, err)
		}
		rel, err := filepath.Rel(out, abs)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") || strings.Contains(filepath.ToSlash(rel), "/") {
			return usagef("%s is not a manifest directly in %s", p, fs.Arg(0))
		}
		names = append(names, rel)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		return darkroom.Wrap(darkroom.NotFound, err, "open %s", fs.Arg(0))
	}
	defer root.Close()
	if err := dataset.Merge(root, names...); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "merged %d shard manifests into %s\n", len(names), filepath.Join(fs.Arg(0), "manifest.jsonl"))
	return nil
}
