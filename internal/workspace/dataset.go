package workspace

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// DatasetInput opens augment_dataset's input: a folder under an allowed root, or
// a bucket prefix under an allowed URL.
func (w *Workspace) DatasetInput(ctx context.Context, p string) (fs.FS, io.Closer, error) {
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

// DatasetStore opens augment_dataset's output: a folder (see DatasetOutput) or a
// bucket prefix under an --allow-write-root URL; shown is what the result names it
// by (relative to the workspace, or the URL without its query).
func (w *Workspace) DatasetStore(ctx context.Context, output, input string) (st dataset.Store, shown string, closer io.Closer, err error) {
	if !dataset.IsBucketURL(output) {
		outDir, err := w.DatasetOutput(output)
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

// OpenAllowedDir opens a folder under an allowed root as an os.Root, which no path
// inside it (a symbolic link, "..") can leave: the dataset's files are read through
// it. Errors are coded as ReadAllowed's.
func (w *Workspace) OpenAllowedDir(p string) (*os.Root, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return nil, darkroom.FieldError("input", "empty or has a NUL byte")
	}
	if isURL(p) {
		return nil, darkroom.FieldError("input", "%s is a URL; give a folder under an allowed root", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return nil, darkroom.Errorf(darkroom.PermissionError, "input %s: .. is not allowed", p)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, darkroom.FieldError("input", "%s cannot be made absolute", p)
	}
	if err := w.checkNameLength("input", p, abs); err != nil {
		return nil, err
	}
	root, rel, ok := w.locate(abs)
	if !ok {
		return nil, darkroom.Errorf(darkroom.PermissionError, "input %s is outside the allowed roots (the --allow-root directories and the client's roots)", p)
	}
	if filepath.IsAbs(p) {
		p = w.Rel(abs)
	}
	r, err := os.OpenRoot(root)
	if err == nil && rel != "" && rel != "." {
		var sub *os.Root
		sub, err = r.OpenRoot(rel)
		r.Close()
		r = sub
	}
	switch {
	case err == nil:
		return r, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid) && !strings.Contains(err.Error(), "escapes"):
		return nil, darkroom.Errorf(darkroom.NotFound, "input %s: no such folder under the allowed roots", p)
	case strings.Contains(err.Error(), "escapes"):
		return nil, darkroom.Errorf(darkroom.PermissionError, "input %s leads outside the allowed roots through a symbolic link", p)
	case errors.Is(err, fs.ErrPermission):
		return nil, darkroom.Errorf(darkroom.PermissionError, "input %s: the folder cannot be read (permission denied)", p)
	}
	return nil, darkroom.FieldError("input", "%s is not a folder darkroom can read: %v", p, w.scrub(err))
}

// DatasetOutput resolves augment_dataset's output: a folder under an
// --allow-write-root directory (symbolic links resolved, so none leads out), or a
// relative path of plain names under the workspace's datasets/.
func (w *Workspace) DatasetOutput(p string) (string, error) {
	if strings.ContainsRune(p, 0) || isURL(p) {
		return "", darkroom.FieldError("output", "%s is not a folder path", p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", darkroom.FieldError("output", "%s cannot be made absolute", p)
	}
	if err := w.checkNameLength("output", p, abs); err != nil {
		return "", err
	}
	w.mu.RLock()
	roots := slices.Clone(w.write)
	w.mu.RUnlock()
	for _, r := range roots {
		if abs != r && !within(abs, r) {
			continue
		}
		// The deepest existing ancestor must still lie in the root once resolved.
		probe := abs
		for {
			if real, err := filepath.EvalSymlinks(probe); err == nil {
				if real != r && !within(real, r) {
					return "", darkroom.Errorf(darkroom.PermissionError, "output %s leads outside the write roots through a symbolic link", p)
				}
				rest, _ := filepath.Rel(probe, abs)
				return filepath.Join(real, rest), nil
			}
			parent := filepath.Dir(probe)
			if parent == probe {
				break
			}
			probe = parent
		}
	}
	if filepath.IsAbs(p) {
		return "", darkroom.Errorf(darkroom.PermissionError, "output %s is not under an --allow-write-root directory; give a relative name to write under the workspace's datasets/", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == "" || part == "." || part == ".." || strings.HasPrefix(part, ".") {
			return "", darkroom.FieldError("output", "%q: a folder under the workspace's datasets/ is named by plain relative names, without ., .. or hidden parts", p)
		}
	}
	return filepath.Join(w.Root, DatasetDir, filepath.FromSlash(p)), nil
}
