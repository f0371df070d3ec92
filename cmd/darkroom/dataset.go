package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
)

const mergeSynopsis = `augment-dataset merge OUT|URL [MANIFEST...]

Join the manifests of the shards of one augment_dataset run (manifest.shard-I-of-N.jsonl,
each written by a run with --shard I/N into OUT) into OUT/manifest.jsonl, and write the
COCO file when the input had one. With no MANIFEST named, every shard manifest at the
top of OUT is taken. OUT may be a bucket URL (s3://bucket/prefix, gs://, azblob://),
opened with the cloud's standard credentials. Every shard 0..N-1 must be there exactly
once, each record in its shard, each file it names present. The result is byte for
byte what one unsharded run writes.`

// datasetMerge is `darkroom augment-dataset merge OUT [MANIFEST...]`.
func (m *Main) datasetMerge(ctx context.Context, args []string) error {
	fs := m.flags("augment-dataset merge", mergeSynopsis)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("augment-dataset merge takes OUT and the shard manifests (all of those in OUT when none is named)")
	}
	if dataset.IsBucketURL(fs.Arg(0)) {
		if fs.NArg() > 1 {
			return usagef("augment-dataset merge %s takes no manifest names: it merges the shard manifests under the prefix", fs.Arg(0))
		}
		u, err := dataset.ParseBucketURL(fs.Arg(0))
		if err != nil {
			return err
		}
		st, err := dataset.OpenBucket(ctx, u)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := dataset.MergeIn(st); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "merged the shard manifests into %s/manifest.jsonl\n", u)
		return nil
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
	if err := dataset.MergeIn(dataset.Local(root), names...); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "merged the shard manifests into %s\n", filepath.Join(fs.Arg(0), "manifest.jsonl"))
	return nil
}

// shardAuto replaces augment-dataset's --shard auto by the shard the scheduler's
// environment names (dataset.ShardFromEnv); --shard-count is only for that.
func shardAuto(call map[string]any, count int, getenv func(string) string) error {
	if s, _ := call["shard"].(string); s != "auto" {
		if count != 0 {
			return usagef("--shard-count goes with --shard auto")
		}
		return nil
	}
	sh, err := dataset.ShardFromEnv(getenv, count)
	if err != nil {
		return err
	}
	call["shard"] = sh.String()
	return nil
}
