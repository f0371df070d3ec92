package dataset

import (
	"context"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// OpenBucketFS opens the prefix u names as a dataset's input, an fs.FS for Open:
// folders are the key prefixes up to a slash, files are objects, read as streams.
// A folder is listed a page at a time (the driver's pages, 1000 keys for S3), and
// only its own entries are kept, as a local folder's are; the images' bytes are
// read when a worker takes the image, one image per worker. ctx bounds every
// request. Close the returned closer when done.
func OpenBucketFS(ctx context.Context, u BucketURL) (fs.FS, io.Closer, error) {
	b, _, err := openBucket(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	if err := probe(ctx, b, u); err != nil {
		b.Close()
		return nil, nil, err
	}
	return &bucketFS{b: b, ctx: ctx, url: u}, b, nil
}

type bucketFS struct {
	b   *blob.Bucket
	ctx context.Context
	url BucketURL
}

func (f *bucketFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &bucketDir{fsys: f, name: "."}, nil
	}
	r, err := f.b.NewReader(f.ctx, name, nil)
	if err == nil {
		return &bucketFile{r: r, info: objectInfo{name: path.Base(name), size: r.Size(), mod: r.ModTime()}}, nil
	}
	if gcerrors.Code(err) != gcerrors.NotFound {
		return nil, blobErr(err, f.url, "open %s", name)
	}
	if ok, err := f.isDir(name); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	} else if ok {
		return &bucketDir{fsys: f, name: name}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (f *bucketFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return objectInfo{name: ".", dir: true}, nil
	}
	a, err := f.b.Attributes(f.ctx, name)
	if err == nil {
		return objectInfo{name: path.Base(name), size: a.Size, mod: a.ModTime}, nil
	}
	if gcerrors.Code(err) != gcerrors.NotFound {
		return nil, blobErr(err, f.url, "stat %s", name)
	}
	if ok, err := f.isDir(name); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	} else if ok {
		return objectInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// isDir reports whether some key lies under name/.
func (f *bucketFS) isDir(name string) (bool, error) {
	objs, _, err := f.b.ListPage(f.ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: name + "/"})
	if err != nil && err != io.EOF {
		return false, blobErr(err, f.url, "list %s", name)
	}
	return len(objs) > 0, nil
}

// ReadDir lists one folder, sorted by name as fs.ReadDir promises. A key that ends
// in a slash (a console's folder marker) is not an entry.
func (f *bucketFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	prefix := ""
	if name != "." {
		prefix = name + "/"
	}
	it := f.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var out []fs.DirEntry
	for {
		o, err := it.Next(f.ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, blobErr(err, f.url, "list %s", name)
		}
		base := strings.TrimSuffix(strings.TrimPrefix(o.Key, prefix), "/")
		if base == "" {
			continue
		}
		out = append(out, objectInfo{name: base, size: o.Size, mod: o.ModTime, dir: o.IsDir})
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

type bucketFile struct {
	r    *blob.Reader
	info objectInfo
}

func (b *bucketFile) Stat() (fs.FileInfo, error) { return b.info, nil }
func (b *bucketFile) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *bucketFile) Close() error               { return b.r.Close() }

type bucketDir struct {
	fsys *bucketFS
	name string
}

func (d *bucketDir) Stat() (fs.FileInfo, error) {
	return objectInfo{name: path.Base(d.name), dir: true}, nil
}
func (d *bucketDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *bucketDir) Close() error { return nil }
func (d *bucketDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n > 0 {
		return nil, &fs.PathError{Op: "readdir", Path: d.name, Err: fs.ErrInvalid}
	}
	return d.fsys.ReadDir(d.name)
}
