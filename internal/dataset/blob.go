package dataset

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// BucketSchemes are the URL schemes a dataset's input or output may have besides a
// local path: S3 and every S3-compatible store, Google Cloud Storage, Azure Blob
// Storage.
var BucketSchemes = []string{"s3", "gs", "azblob"}

// BucketURL is a prefix of a bucket: s3://bucket/prefix?query. The query is the
// driver's (endpoint, region, use_path_style for S3; see gocloud.dev/blob) besides
// lock_ttl, which is ours; credentials never come from it but from each cloud's
// standard chain (environment, profile, workload identity).
type BucketURL struct {
	Scheme, Bucket, Prefix string
	Query                  url.Values
}

// IsBucketURL reports whether s names a bucket (scheme://...) rather than a path.
func IsBucketURL(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	return ok && slices.Contains(BucketSchemes, scheme)
}

// ParseBucketURL reads scheme://bucket[/prefix][?query]. A prefix is plain names
// (no empty, ., .. or hidden parts, no trailing slash needed); user info
// (credentials) in the URL is refused without echoing it.
func ParseBucketURL(s string) (BucketURL, error) {
	u, err := url.Parse(s)
	if err != nil || !slices.Contains(BucketSchemes, u.Scheme) || u.Host == "" || u.Opaque != "" || u.Fragment != "" {
		return BucketURL{}, darkroom.Errorf(darkroom.InvalidInput, "%s is not a bucket URL (%s://bucket/prefix)", redactURL(s), strings.Join(BucketSchemes, "://, "))
	}
	if u.User != nil {
		return BucketURL{}, darkroom.Errorf(darkroom.InvalidInput, "%s://%s: a bucket URL takes no credentials; they come from the cloud's standard chain (environment, profile, workload identity)", u.Scheme, u.Host)
	}
	p := strings.Trim(u.Path, "/")
	if p != "" {
		for _, part := range strings.Split(p, "/") {
			if part == "" || part == "." || part == ".." || strings.HasPrefix(part, ".") {
				return BucketURL{}, darkroom.Errorf(darkroom.InvalidInput, "%s://%s/%s: a prefix is plain names, without empty, ., .. or hidden parts", u.Scheme, u.Host, p)
			}
		}
	}
	return BucketURL{Scheme: u.Scheme, Bucket: u.Host, Prefix: p, Query: u.Query()}, nil
}

// redactURL is s without anything after a user info's start or the query, for
// messages about a URL that could not be read.
func redactURL(s string) string {
	if i := strings.IndexAny(s, "?@"); i >= 0 {
		return s[:i] + "…"
	}
	return s
}

// String is the URL without its query: what results and messages show.
func (u BucketURL) String() string {
	if u.Prefix == "" {
		return u.Scheme + "://" + u.Bucket
	}
	return u.Scheme + "://" + u.Bucket + "/" + u.Prefix
}

// Within reports whether u lies at or under root: same store (scheme, bucket and
// query), and root's prefix is u's or a folder of it.
func (u BucketURL) Within(root BucketURL) bool {
	if u.Scheme != root.Scheme || u.Bucket != root.Bucket {
		return false
	}
	if len(u.Query) > 0 && u.Query.Encode() != root.Query.Encode() {
		return false
	}
	return root.Prefix == "" || u.Prefix == root.Prefix || strings.HasPrefix(u.Prefix, root.Prefix+"/")
}

// DefaultLockTTL is how long a bucket output's lock holds without being renewed:
// a run renews it every third of that, and a run that finds it expired (its
// holder was killed) takes it over.
const DefaultLockTTL = time.Minute

// openBucket opens the bucket of u (its query passed on to the driver, less ours)
// narrowed to its prefix, and the lock TTL the query asks for.
func openBucket(ctx context.Context, u BucketURL) (*blob.Bucket, time.Duration, error) {
	q := url.Values{}
	ttl := DefaultLockTTL
	for k, v := range u.Query {
		if k != "lock_ttl" {
			q[k] = v
			continue
		}
		d, err := time.ParseDuration(u.Query.Get(k))
		if err != nil || d < time.Second {
			return nil, 0, darkroom.Errorf(darkroom.InvalidInput, "%s: lock_ttl %q is not a duration of at least 1s", u, u.Query.Get(k))
		}
		ttl = d
	}
	raw := u.Scheme + "://" + u.Bucket
	if len(q) > 0 {
		raw += "?" + q.Encode()
	}
	b, err := blob.OpenBucket(ctx, raw)
	if err != nil {
		// The driver's message names a bad query parameter; it holds no secret (the
		// URL has none) but may hold the query, which the message keeps out.
		return nil, 0, darkroom.Errorf(darkroom.InvalidInput, "%s cannot be opened: %s", u, scrubQuery(err.Error(), u.Query))
	}
	if u.Prefix != "" {
		b = blob.PrefixedBucket(b, u.Prefix+"/")
	}
	return b, ttl, nil
}

// scrubQuery removes the query's values from a driver's message.
func scrubQuery(msg string, q url.Values) string {
	for _, vs := range q {
		for _, v := range vs {
			if len(v) > 3 {
				msg = strings.ReplaceAll(msg, v, "…")
			}
		}
	}
	return msg
}

// blobErr codes a bucket operation's failure: not_found for a missing object or
// bucket (wrapping fs.ErrNotExist), permission_error when the store refused the
// credentials or the access (with a message of ours: the store's may quote the
// request), unavailable otherwise.
func blobErr(err error, where BucketURL, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return darkroom.Wrap(darkroom.Unavailable, err, "%s", msg)
	case gcerrors.Code(err) == gcerrors.NotFound:
		return darkroom.Wrap(darkroom.NotFound, &fs.PathError{Op: "open", Path: msg, Err: fs.ErrNotExist}, "%s", msg)
	case deniedErr(err):
		e := darkroom.Wrap(darkroom.PermissionError, fs.ErrPermission, "%s in %s: the store refused the credentials or the access; check the credentials the environment gives (the cloud's standard chain) and their rights on this prefix", msg, where)
		e.Details = map[string]any{"url": where.String()}
		return e
	}
	return darkroom.Wrap(darkroom.Unavailable, errors.New(scrubQuery(err.Error(), where.Query)), "%s", msg)
}

// deniedErr reports a refusal of the credentials or of the access: the portable
// code, an HTTP 401 or 403 under it, or an S3 error code that says so (S3 answers
// an unknown key or a bad signature with codes gocloud leaves Unknown).
func deniedErr(err error) bool {
	if gcerrors.Code(err) == gcerrors.PermissionDenied {
		return true
	}
	var st interface{ HTTPStatusCode() int }
	if errors.As(err, &st) && (st.HTTPStatusCode() == 401 || st.HTTPStatusCode() == 403) {
		return true
	}
	var ce interface{ ErrorCode() string }
	if errors.As(err, &ce) {
		switch ce.ErrorCode() {
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "AccessDenied", "InvalidClientTokenId", "AuthorizationHeaderMalformed":
			return true
		}
	}
	return false
}

// OpenBucket opens the prefix u names as a run's output. Each file is one object
// written whole (a single PUT, or a multipart upload the store shows only once
// every part is in), with its SHA-256 in the object's metadata (sha256), so a rerun
// checks a record with one HEAD per file instead of reading it back. The journal
// is a series of objects under <journal>/, one per flush (at most one a second),
// each holding whole lines; a crash loses at most the last second's lines, whose
// variants the rerun makes again (the same bytes). One run of a shard at a time
// holds the lock object <manifest>.lock/<generation>, created only if absent (a
// conditional write, If-None-Match: *), renewed every third of its TTL, and taken
// over, by creating the next generation, once its expiry passes.
//
// ctx bounds every request the store makes; the store keeps it, so a cancelled ctx
// stops a run's writes too. Close the store when done.
func OpenBucket(ctx context.Context, u BucketURL) (*BucketStore, error) {
	b, ttl, err := openBucket(ctx, u)
	if err != nil {
		return nil, err
	}
	if err := probe(ctx, b, u); err != nil {
		b.Close()
		return nil, err
	}
	return &BucketStore{b: b, ctx: ctx, url: u, ttl: ttl}, nil
}

// probe lists one key of the prefix, so that credentials the store refuses, or a
// bucket that does not exist, are said before anything else is done (and coded:
// permission_error, not_found).
func probe(ctx context.Context, b *blob.Bucket, u BucketURL) error {
	if _, _, err := b.ListPage(ctx, blob.FirstPageToken, 1, nil); err != nil && err != io.EOF {
		return blobErr(err, u, "list")
	}
	return nil
}

// BucketStore is a prefix of a bucket as a run's output (OpenBucket).
type BucketStore struct {
	b   *blob.Bucket
	ctx context.Context
	url BucketURL
	ttl time.Duration
}

// Close closes the bucket.
func (s *BucketStore) Close() error { return s.b.Close() }

// URL is the prefix the store writes under.
func (s *BucketStore) URL() BucketURL { return s.url }

func isJournal(name string) bool { return strings.HasSuffix(name, ".partial.jsonl") }

func (s *BucketStore) Open(name string) (io.ReadCloser, error) {
	if isJournal(name) {
		keys, err := s.list(name+"/", "")
		if err != nil {
			return nil, err
		}
		if len(keys) == 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return &segments{s: s, keys: keys}, nil
	}
	r, err := s.b.NewReader(s.ctx, name, nil)
	if err != nil {
		return nil, blobErr(err, s.url, "open %s", name)
	}
	return r, nil
}

// segments reads the journal's objects one after another.
type segments struct {
	s    *BucketStore
	keys []string
	cur  io.ReadCloser
}

func (g *segments) Read(p []byte) (int, error) {
	for {
		if g.cur == nil {
			if len(g.keys) == 0 {
				return 0, io.EOF
			}
			r, err := g.s.b.NewReader(g.s.ctx, g.keys[0], nil)
			if err != nil {
				return 0, blobErr(err, g.s.url, "open %s", g.keys[0])
			}
			g.cur, g.keys = r, g.keys[1:]
		}
		n, err := g.cur.Read(p)
		if err == io.EOF {
			g.cur.Close()
			g.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (g *segments) Close() error {
	if g.cur != nil {
		return g.cur.Close()
	}
	return nil
}

func (s *BucketStore) ReadFile(name string) ([]byte, error) {
	data, err := s.b.ReadAll(s.ctx, name)
	if err != nil {
		return nil, blobErr(err, s.url, "read %s", name)
	}
	return data, nil
}

func (s *BucketStore) Stat(name string) (fs.FileInfo, error) {
	a, err := s.b.Attributes(s.ctx, name)
	if err != nil {
		return nil, blobErr(err, s.url, "stat %s", name)
	}
	return objectInfo{name: path.Base(name), size: a.Size, mod: a.ModTime}, nil
}

// shaKey is the object metadata key that holds an output's SHA-256 (hex).
const shaKey = "sha256"

func (s *BucketStore) Write(name string, data []byte, durable bool) (FileRef, error) {
	sum := sha256.Sum256(data)
	ref := FileRef{Path: name, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	if err := s.put(s.ctx, name, data, map[string]string{shaKey: ref.SHA256}, false); err != nil {
		return FileRef{}, err
	}
	return ref, nil
}

// put writes one object whole; ifAbsent makes it a conditional create. A write the
// ctx cancels leaves nothing: the store keeps an object only once it has it all.
func (s *BucketStore) put(ctx context.Context, name string, data []byte, meta map[string]string, ifAbsent bool) error {
	m := md5.Sum(data)
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	err := s.b.WriteAll(ctx, name, data, &blob.WriterOptions{
		ContentType: ct, ContentMD5: m[:], Metadata: meta, IfNotExist: ifAbsent,
	})
	if err != nil {
		if ifAbsent && gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return errExists
		}
		return blobErr(err, s.url, "write %s", name)
	}
	return nil
}

var errExists = errors.New("object exists")

func (s *BucketStore) Verify(rec *Record) bool {
	refs := append([]FileRef{{rec.Output, rec.Bytes, rec.SHA256}}, rec.Labels...)
	for _, f := range refs {
		a, err := s.b.Attributes(s.ctx, f.Path)
		if err != nil || a.Size != f.Bytes || a.Metadata[shaKey] != f.SHA256 {
			return false
		}
	}
	return true
}

func (s *BucketStore) Remove(name string) error {
	keys := []string{name}
	if isJournal(name) {
		var err error
		if keys, err = s.list(name+"/", ""); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if err := s.b.Delete(context.WithoutCancel(s.ctx), k); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return blobErr(err, s.url, "remove %s", k)
		}
	}
	return nil
}

// Settle has nothing to do: an object the store acknowledged is durable.
func (s *BucketStore) Settle() error { return nil }

// Tidy has nothing to do: no object is written under a temporary name. (A multipart
// upload a killed run left unfinished is invisible and costs storage until the
// bucket's lifecycle rule aborts it; variants under the driver's part size, 5 MiB
// for S3, are single PUTs.)
func (s *BucketStore) Tidy([]Record) {}

func (s *BucketStore) Manifests() ([]string, error) {
	keys, err := s.list("manifest.shard-", "/")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, k := range keys {
		if shardManifest.MatchString(k) {
			names = append(names, k)
		}
	}
	return names, nil
}

// list returns the keys under prefix (with delim, only those not under a further
// folder), sorted; the store pages through them.
func (s *BucketStore) list(prefix, delim string) ([]string, error) {
	it := s.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: delim})
	var keys []string
	for {
		o, err := it.Next(s.ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, blobErr(err, s.url, "list %s", prefix)
		}
		if !o.IsDir {
			keys = append(keys, o.Key)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

type objectInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i objectInfo) Name() string { return i.name }
func (i objectInfo) Size() int64  { return i.size }
func (i objectInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i objectInfo) ModTime() time.Time         { return i.mod }
func (i objectInfo) IsDir() bool                { return i.dir }
func (i objectInfo) Sys() any                   { return nil }
func (i objectInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i objectInfo) Info() (fs.FileInfo, error) { return i, nil }

// lockInfo is the body of a lock object.
type lockInfo struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires"`
}

func lockPrefix(journal string) string {
	return strings.TrimSuffix(journal, ".partial.jsonl") + ".lock/"
}

// Journal takes the shard's lock and returns a journal that buffers lines and
// writes them as one object per Sync. See OpenBucket.
func (s *BucketStore) Journal(name string) (Journal, error) {
	l, err := s.lock(name)
	if err != nil {
		return nil, err
	}
	var id [6]byte
	rand.Read(id[:])
	j := &bucketJournal{s: s, name: name, run: time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(id[:]), lock: l}
	return j, nil
}

type bucketJournal struct {
	s    *BucketStore
	name string
	run  string // names this run's segments, after earlier runs' ones
	lock *bucketLock

	mu  sync.Mutex
	buf bytes.Buffer
	seq int
}

func (j *bucketJournal) Write(p []byte) (int, error) {
	if err := j.lock.lost(); err != nil {
		return 0, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.buf.Write(p)
}

// Sync writes the lines buffered since the last one as the journal's next object.
func (j *bucketJournal) Sync() error {
	if err := j.lock.lost(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.buf.Len() == 0 {
		return nil
	}
	j.seq++
	key := fmt.Sprintf("%s/%s-%06d.jsonl", j.name, j.run, j.seq)
	// Not cancelled with the run: what a stopped run finished is kept for its rerun.
	if err := j.s.put(context.WithoutCancel(j.s.ctx), key, j.buf.Bytes(), nil, false); err != nil {
		return err
	}
	j.buf.Reset()
	return nil
}

// Close writes what is buffered and gives the lock up.
func (j *bucketJournal) Close() error {
	err := j.Sync()
	j.lock.release()
	return err
}

// bucketLock is a held lock object, renewed until released.
type bucketLock struct {
	s      *BucketStore
	prefix string // <manifest>.lock/
	key    string // prefix + the generation, 10 digits
	stop   chan struct{}
	done   chan struct{}

	mu  sync.Mutex
	err error // set when another run took the lock over
}

func (s *BucketStore) lock(journal string) (*bucketLock, error) {
	prefix := lockPrefix(journal)
	keys, err := s.list(prefix, "/")
	if err != nil {
		return nil, err
	}
	gen := 1
	if len(keys) > 0 {
		top := keys[len(keys)-1]
		n, _ := strconv.Atoi(strings.TrimPrefix(top, prefix))
		data, err := s.b.ReadAll(s.ctx, top)
		var li lockInfo
		switch {
		case err != nil && gcerrors.Code(err) == gcerrors.NotFound:
			// Released between the listing and the read: take the next one.
		case err != nil:
			return nil, blobErr(err, s.url, "read the lock %s", top)
		case json.Unmarshal(data, &li) == nil && time.Now().Before(li.Expires):
			return nil, s.held(journal, li)
		}
		gen = n + 1
	}
	l := &bucketLock{s: s, prefix: prefix, key: fmt.Sprintf("%s%010d", prefix, gen), stop: make(chan struct{}), done: make(chan struct{})}
	if err := s.put(s.ctx, l.key, l.body(), nil, true); err != nil {
		if errors.Is(err, errExists) {
			return nil, s.held(journal, lockInfo{Holder: "another run that started at the same time"})
		}
		return nil, err
	}
	// Earlier generations are expired locks this run took over.
	for _, k := range keys {
		s.b.Delete(context.WithoutCancel(s.ctx), k)
	}
	go l.renew()
	return l, nil
}

func (s *BucketStore) held(journal string, li lockInfo) error {
	msg := fmt.Sprintf("another run is writing this output (%s is held by %s", strings.TrimSuffix(lockPrefix(journal), "/"), li.Holder)
	if !li.Expires.IsZero() {
		msg += " until " + li.Expires.UTC().Format(time.RFC3339) + " unless renewed"
	}
	e := darkroom.Errorf(darkroom.StateError, "%s); wait for it or stop it", msg)
	e.Details = map[string]any{"file": strings.TrimSuffix(lockPrefix(journal), "/")}
	return e
}

var lockHolder = func() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s pid %d", h, os.Getpid())
}()

func (l *bucketLock) body() []byte {
	b, _ := json.Marshal(lockInfo{Holder: lockHolder, Expires: time.Now().Add(l.s.ttl).UTC()})
	return b
}

// renew rewrites the lock with a later expiry every third of the TTL, and stops
// the run (lost) when a later generation shows that another run took it over, or
// when it could not be renewed for a whole TTL.
func (l *bucketLock) renew() {
	defer close(l.done)
	t := time.NewTicker(l.s.ttl / 3)
	defer t.Stop()
	renewed := time.Now()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		keys, err := l.s.list(l.prefix, "/")
		if err == nil && len(keys) > 0 && keys[len(keys)-1] > l.key {
			l.fail(darkroom.Errorf(darkroom.StateError, "another run took this output's lock over (%s was not renewed in time); this run stops", l.key))
			return
		}
		if err == nil {
			err = l.s.put(context.WithoutCancel(l.s.ctx), l.key, l.body(), nil, false)
		}
		if err == nil {
			renewed = time.Now()
		} else if time.Since(renewed) > l.s.ttl {
			l.fail(darkroom.Wrap(darkroom.Unavailable, err, "the lock %s could not be renewed for %s; this run stops", l.key, l.s.ttl))
			return
		}
	}
}

func (l *bucketLock) fail(err error) {
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

func (l *bucketLock) lost() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// release stops renewing and removes the lock, unless another run holds it now.
func (l *bucketLock) release() {
	select {
	case <-l.stop:
		return
	default:
	}
	close(l.stop)
	<-l.done
	if l.lost() == nil {
		l.s.b.Delete(context.WithoutCancel(l.s.ctx), l.key)
	}
}
