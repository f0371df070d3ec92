package edit

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
)

// Bucket prefixes (s3://, gs://, azblob://) are allowed the way folders are: an
// --allow-root URL may be read under, an --allow-write-root URL written under (and
// read). A URL given to a call must lie under one: same bucket, a prefix at or
// under the root's, and either no query or the root's query, so a caller cannot
// point an allowed bucket name at another endpoint. The root's query (endpoint,
// region, path style, lock_ttl) is what the bucket is opened with.

// allowBucket adds a bucket prefix to the read roots, and to the write roots when
// write is set.
func (w *Workspace) allowBucket(raw string, write bool) error {
	u, err := dataset.ParseBucketURL(raw)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.ContainsFunc(w.allowURL, func(r dataset.BucketURL) bool { return r.String() == u.String() }) {
		w.allowURL = append(w.allowURL, u)
	}
	if write && !slices.ContainsFunc(w.writeURL, func(r dataset.BucketURL) bool { return r.String() == u.String() }) {
		w.writeURL = append(w.writeURL, u)
	}
	return nil
}

// bucketUnder resolves a URL a call gave against the roots: the URL with the
// root's query, or permission_error.
func (w *Workspace) bucketUnder(field, raw string, write bool) (dataset.BucketURL, error) {
	u, err := dataset.ParseBucketURL(raw)
	if err != nil {
		return dataset.BucketURL{}, err
	}
	w.mu.RLock()
	roots := w.allowURL
	if write {
		roots = w.writeURL
	}
	roots = slices.Clone(roots)
	w.mu.RUnlock()
	for _, r := range roots {
		if u.Within(r) {
			u.Query = r.Query
			return u, nil
		}
	}
	flag := "--allow-root"
	if write {
		flag = "--allow-write-root"
	}
	e := darkroom.Errorf(darkroom.PermissionError, "%s %s is not under an %s bucket prefix", field, u, flag)
	e.Details = map[string]any{"field": field}
	return dataset.BucketURL{}, e
}

// datasetInput opens augment_dataset's input: a folder under an allowed root, or
// a bucket prefix under an allowed URL.
func (w *Workspace) datasetInput(ctx context.Context, p string) (fs.FS, io.Closer, error) {
	if !dataset.IsBucketURL(p) {
		in, err := w.OpenAllowedDir(p)
		if err != nil {
			return nil, nil, err
		}
		return in.FS(), in, nil
	}
	u, err := w.bucketUnder("input", p, false)
	if err != nil {
		return nil, nil, err
	}
	return dataset.OpenBucketFS(ctx, u)
}

// datasetStore opens augment_dataset's output: a folder (see datasetOutput) or a
// bucket prefix under an --allow-write-root URL; shown is what the result names it
// by (relative to the workspace, or the URL without its query).
func (w *Workspace) datasetStore(ctx context.Context, output, input string) (st dataset.Store, shown string, closer io.Closer, err error) {
	if !dataset.IsBucketURL(output) {
		outDir, err := w.datasetOutput(output)
		if err != nil {
			return nil, "", nil, err
		}
		if !dataset.IsBucketURL(input) {
			if inAbs, _ := filepath.Abs(input); inAbs != "" {
				if real, err := filepath.EvalSymlinks(inAbs); err == nil && (within(outDir, real) || outDir == real) {
					return nil, "", nil, darkroom.FieldError("output", "%s lies inside the input folder: the run would read its own outputs", output)
				}
			}
		}
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return nil, "", nil, w.FSError(err, "create %s", w.Rel(outDir))
		}
		out, err := os.OpenRoot(outDir)
		if err != nil {
			return nil, "", nil, w.FSError(err, "open %s", w.Rel(outDir))
		}
		return dataset.Local(out), w.Rel(outDir), out, nil
	}
	u, err := w.bucketUnder("output", output, true)
	if err != nil {
		return nil, "", nil, err
	}
	if dataset.IsBucketURL(input) {
		if in, err := dataset.ParseBucketURL(input); err == nil && (u.Within(dataset.BucketURL{Scheme: in.Scheme, Bucket: in.Bucket, Prefix: in.Prefix, Query: u.Query})) {
			return nil, "", nil, darkroom.FieldError("output", "%s lies inside the input prefix: the run would read its own outputs", u)
		}
	}
	b, err := dataset.OpenBucket(ctx, u)
	if err != nil {
		return nil, "", nil, err
	}
	return b, u.String(), b, nil
}
