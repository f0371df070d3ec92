package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
	"github.com/darkroom-mcp/darkroom/internal/history"
)

// Workspace is where darkroom keeps everything of an editing session (layout in the
// README): the history store, copies of the sources, previews, exports and context.
// Every path it hands out lies under Root; files are read from outside it only under
// an allowed root.
type Workspace struct {
	Root     string
	History  *history.Store
	Previews *engine.Previewer

	mu     sync.RWMutex
	allow  []string // --allow-root: absolute, symlinks resolved
	write  []string // --allow-write-root: absolute, symlinks resolved
	client []string // the MCP client's roots, replaced whenever it lists them

	allowURL, writeURL []dataset.BucketURL // bucket prefixes, as allow and write
}

// Limits of the workspace.
const (
	// MaxImageB64Bytes bounds an ingest's image_b64 payload once decoded; its base64
	// (under 11 MiB) fits the argument limit, so the handler can answer
	// limit_exceeded itself. Larger photos come by path.
	MaxImageB64Bytes = 8 << 20
	// MaxSourceBytes bounds a photo file to ingest.
	MaxSourceBytes = 512 << 20
	// previewCacheBytes bounds the decoded proxies and intermediate previews kept.
	previewCacheBytes = 512 << 20
)

// Default is the per-user data directory: $XDG_DATA_HOME/darkroom, or
// ~/.local/share/darkroom (~/Library/Application Support/darkroom on macOS).
func Default() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "darkroom"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "darkroom"), nil
	}
	return filepath.Join(home, ".local", "share", "darkroom"), nil
}

// Open opens (creating if needed) the workspace at root. allowRoots are the
// directories ingest may read photos from. Temporary files that writes interrupted by
// a crash left behind are removed. A workspace that cannot be created or used is
// unavailable: the server stays up without it, and says so on the tools that need it.
func Open(root string, allowRoots []string) (*Workspace, error) {
	unusable := func(err error) error {
		// Named as the user gave it when relative; an absolute path is the server's
		// own and stays out of what a client sees.
		name := root
		if filepath.IsAbs(root) {
			name = "(--workspace, $DARKROOM_WORKSPACE or the per-user default)"
		}
		e := darkroom.Wrap(darkroom.Unavailable, scrubPath(err), "workspace %s cannot be used", name)
		e.Details = map[string]any{"workspace": name, "fix": "give --workspace a directory darkroom can create and write"}
		return e
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, unusable(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, unusable(err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, unusable(err)
	}
	h, err := history.Open(abs)
	if err != nil {
		return nil, unusable(err)
	}
	w := &Workspace{Root: abs, History: h, Previews: engine.NewPreviewer(previewCacheBytes)}
	w.removeStaleTemps()
	for _, r := range allowRoots {
		if err := w.Allow(r); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Allow adds a directory that ingest may read from (--allow-root, or a root the MCP
// client offers).
func (w *Workspace) Allow(dir string) error {
	if dataset.IsBucketURL(dir) {
		return w.allowBucket(dir, false)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return darkroom.Wrap(darkroom.InvalidInput, err, "allowed root %s", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return darkroom.Wrap(darkroom.NotFound, err, "allowed root %s", dir)
	}
	info, err := os.Stat(real)
	if err != nil || !info.IsDir() {
		return darkroom.Errorf(darkroom.InvalidInput, "allowed root %s is not a directory", dir)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.allow, real) {
		w.allow = append(w.allow, real)
	}
	return nil
}

// AllowWrite adds a directory that augment_dataset may write its outputs under
// (--allow-write-root); it may read from it too.
func (w *Workspace) AllowWrite(dir string) error {
	if dataset.IsBucketURL(dir) {
		return w.allowBucket(dir, true)
	}
	if err := w.Allow(dir); err != nil {
		return err
	}
	abs, _ := filepath.Abs(dir)
	real, _ := filepath.EvalSymlinks(abs)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.write, real) {
		w.write = append(w.write, real)
	}
	return nil
}

// SetClientRoots replaces the roots the MCP client offers (roots/list) with paths,
// directories or single files. Paths that do not exist are left out and returned,
// so the caller can log them; the user's own --allow-root directories stay.
func (w *Workspace) SetClientRoots(paths []string) (skipped []string) {
	var roots []string
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !filepath.IsAbs(p) {
			skipped = append(skipped, p)
			continue
		}
		if !slices.Contains(roots, real) {
			roots = append(roots, real)
		}
	}
	w.mu.Lock()
	w.client = roots
	w.mu.Unlock()
	return skipped
}

// AllowedRoots returns the directories (and files) ingest may read from: the
// --allow-root directories, then the client's roots.
func (w *Workspace) AllowedRoots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return append(append([]string(nil), w.allow...), w.client...)
}

// ReadAllowed reads a photo a client named and returns its bytes and its name
// relative to the allowed root it lies under. The file is opened once, under its
// root, without following a symbolic link out of it, and read through that
// descriptor: a path with "..", an absolute path elsewhere, or a symbolic link that
// leads out (even one swapped in while the call runs) is permission_error; a missing
// file is not_found; a FIFO, a device or a directory is invalid_input; a file over
// MaxSourceBytes is limit_exceeded, however much it grows while it is read. A URL is
// invalid_input: only local files are read.
func (w *Workspace) ReadAllowed(p string) ([]byte, string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return nil, "", darkroom.FieldError("path", "empty or has a NUL byte")
	}
	if isURL(p) {
		return nil, "", darkroom.FieldError("path", "%s is a URL; URLs are not accepted: give the path of a file under an allowed root, or the bytes as image_b64", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s: .. is not allowed", p)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", darkroom.FieldError("path", "%s cannot be made absolute", p)
	}
	root, rel, ok := w.locate(abs)
	if !ok {
		return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s is outside the allowed roots (the --allow-root directories and the client's roots)", p)
	}
	f, err := openBeneath(root, rel)
	// From here on the file is named as the client gave it when relative, else
	// relative to its root: never by the server's absolute path.
	if filepath.IsAbs(p) {
		p = w.Rel(abs)
	}
	switch {
	case errors.Is(err, syscall.ENAMETOOLONG):
		return nil, "", nameTooLong("path", p)
	case errors.Is(err, errOutside):
		return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s leads outside the allowed roots through a symbolic link", p)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, "", darkroom.Errorf(darkroom.NotFound, "path %s: no such file under the allowed roots", p)
	case errors.Is(err, fs.ErrPermission):
		return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s: the file cannot be read (permission denied)", p)
	case err != nil:
		return nil, "", darkroom.Wrap(darkroom.InternalError, w.scrub(err), "path %s", p)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.InternalError, w.scrub(err), "path %s", p)
	}
	if !info.Mode().IsRegular() {
		return nil, "", darkroom.FieldError("path", "%s is not a regular file but %s", p, fileKind(info.Mode()))
	}
	tooBig := func(n int64) error {
		return &darkroom.Error{Code: darkroom.LimitExceeded,
			Message: fmt.Sprintf("path %s: over %d bytes, the limit of %d", p, n, MaxSourceBytes),
			Details: map[string]any{"field": "path", "limit": MaxSourceBytes}}
	}
	if info.Size() > MaxSourceBytes {
		return nil, "", tooBig(info.Size())
	}
	// The size is only a hint for the buffer: the file may grow while it is read.
	b := make([]byte, 0, info.Size()+1)
	buf := bytes.NewBuffer(b)
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxSourceBytes+1)); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s: the file cannot be read (permission denied)", p)
		}
		return nil, "", darkroom.Wrap(darkroom.InternalError, w.scrub(err), "read %s", p)
	}
	if buf.Len() > MaxSourceBytes {
		return nil, "", tooBig(int64(buf.Len()))
	}
	return buf.Bytes(), filepath.ToSlash(filepath.Join(filepath.Base(root), rel)), nil
}

// nameTooLong is invalid_input for a path over the system's limits (the whole path,
// or one of its names), found by the kernel's ENAMETOOLONG. The path is shown cut:
// repeating a 5000-character argument helps no one.
func nameTooLong(field, p string) error {
	shown := p
	if r := []rune(p); len(r) > 80 {
		shown = fmt.Sprintf("%s... (%d characters)", string(r[:60]), len(r))
	}
	return darkroom.FieldError(field, "%s is longer than the file system allows (the whole path, or one name in it)", shown)
}

// checkNameLength reports a path over the system's limits as nameTooLong, asking
// the kernel (lstat) rather than restating its limits; nil when the kernel takes it.
// A name over the limit under a folder that does not exist yet is found when the
// folder is made (FSError).
func (w *Workspace) checkNameLength(field, p, abs string) error {
	if _, err := os.Lstat(abs); errors.Is(err, syscall.ENAMETOOLONG) {
		if filepath.IsAbs(p) {
			p = w.Rel(abs)
		}
		return nameTooLong(field, p)
	}
	return nil
}

// isURL reports whether p looks like a URL (a scheme and "://", or "file:") rather
// than a file path. A Windows drive letter ("C:\") is no scheme.
func isURL(p string) bool {
	if strings.HasPrefix(strings.ToLower(p), "file:") {
		return true
	}
	i := strings.Index(p, "://")
	if i < 2 {
		return false
	}
	for _, r := range p[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// locate finds the allowed root abs lies under (lexically) and abs relative to it,
// "" when the root is abs itself (a client root that is a single file).
func (w *Workspace) locate(abs string) (root, rel string, ok bool) {
	for _, a := range w.AllowedRoots() {
		if abs == a {
			return a, "", true
		}
		if within(abs, a) {
			r, err := filepath.Rel(a, abs)
			if err == nil {
				return a, r, true
			}
		}
	}
	return "", "", false
}

// Dir returns a workspace directory for one kind of file of one image (sources,
// previews, exports, context), creating it. Its name is the image's history.DirName.
func (w *Workspace) Dir(kind, imageID string) (string, error) {
	d := filepath.Join(w.Root, kind, history.DirName(imageID))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", w.FSError(err, "create %s", w.Rel(d))
	}
	return d, nil
}

// Temporary files of the workspace's writes start with tempPrefix. legacyTempAge is
// how old a temporary file named as earlier versions named theirs must be to be
// removed: those carry no owner's lock, and the age keeps a sweep from pulling one
// from under a write in progress in an older process; no write takes an hour.
const (
	tempPrefix    = fsx.TempPrefix
	legacyTempAge = time.Hour
)

// removeStaleTemps removes the temporary files of writes that a crash (kill -9, a
// power cut) interrupted, and only those: in the workspace's file directories the
// ones no live process holds the owner's lock of (fsx.RemoveOrphan), in the history
// the ones of images no process is writing (history.Store.RemoveStaleTemps). It
// returns how many it removed. On a workspace it cannot write it removes nothing.
// datasets/ is left to the runs (dataset.Run removes its shard's on a rerun): a
// walk of a dataset's folders at every opening would cost more than it saves.
func (w *Workspace) removeStaleTemps() int {
	n := w.History.RemoveStaleTemps()
	for _, kind := range []string{"sources", "previews", "exports", ContextDir, AugmentDir} {
		filepath.WalkDir(filepath.Join(w.Root, kind), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || !isTempName(d.Name()) {
				return nil
			}
			if strings.HasPrefix(d.Name(), tempPrefix) {
				if ok, _ := fsx.RemoveOrphan(p); ok {
					n++
				}
				return nil
			}
			if info, err := d.Info(); err == nil && time.Since(info.ModTime()) > legacyTempAge && os.Remove(p) == nil {
				n++
			}
			return nil
		})
	}
	return n
}

// isTempName reports whether name is a temporary file of WriteFileFrom: ".tmp-*", or
// ".<name>.tmp<digits>" as earlier versions named them.
func isTempName(name string) bool {
	if strings.HasPrefix(name, tempPrefix) {
		return true
	}
	i := strings.LastIndex(name, ".tmp")
	return strings.HasPrefix(name, ".") && i > 0 && strings.Trim(name[i+len(".tmp"):], "0123456789") == ""
}

// WriteFile writes a workspace file atomically and durably (WriteFileFrom).
func (w *Workspace) WriteFile(name string, data []byte) error {
	if err := fsx.WriteFile(name, data, nil); err != nil {
		return w.FSError(err, "write %s", w.Rel(name))
	}
	return nil
}

// WriteFileFrom writes a workspace file atomically and durably, streaming the content
// write produces (an export is too large to hold), through the one writer the
// history uses too (fsx): a temporary file in the same directory, fsynced, renamed
// over name, and the directory fsynced so the rename survives a power cut. A crash
// leaves the old file or the new one, and at worst a temporary file the next
// Open removes. An error write returns as a *darkroom.Error is returned as
// it is; nothing is left under name.
func (w *Workspace) WriteFileFrom(name string, write func(io.Writer) error) error {
	err := fsx.WriteFileFrom(name, write, nil)
	var de *darkroom.Error
	if err == nil || errors.As(err, &de) {
		return err
	}
	return w.FSError(err, "write %s", w.Rel(name))
}

// WriteFile is Workspace.WriteFile for a file outside any workspace (the CLI's
// outputs, the generated docs): the same atomic and durable writer.
func WriteFile(name string, data []byte) error {
	return (*Workspace)(nil).WriteFile(name, data)
}

// WriteFileFrom is Workspace.WriteFileFrom for a file outside any workspace.
func WriteFileFrom(name string, write func(io.Writer) error) error {
	return (*Workspace)(nil).WriteFileFrom(name, write)
}

// FSError codes a failure of the file system under the workspace, naming files
// relative to it: permission_error when the workspace refuses access (or is
// read-only), unavailable when the disk is full (freeing space and retrying helps),
// invalid_input for a name longer than the system allows (ENAMETOOLONG: a client's
// name), internal_error for the rest.
func (w *Workspace) FSError(err error, format string, args ...any) error {
	code := darkroom.InternalError
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		code = darkroom.PermissionError
	case errors.Is(err, syscall.ENOSPC):
		code = darkroom.Unavailable
	case errors.Is(err, syscall.ENAMETOOLONG):
		// Only a name the caller chose is that long: darkroom's own names are short.
		code = darkroom.InvalidInput
	}
	e := darkroom.Wrap(code, w.scrub(err), format, args...)
	if code == darkroom.Unavailable {
		e.Details = map[string]any{"fix": "the workspace's disk is full: free space, then retry"}
	}
	return e
}

// Rel names p for a client: relative to the workspace, else to the allowed root it
// lies under, else by its base name; never the server's absolute path.
func (w *Workspace) Rel(p string) string {
	if w == nil {
		return p // outside a workspace the user named the file: no server path to hide
	}
	if p == w.Root {
		return "the workspace"
	}
	if within(p, w.Root) {
		r, _ := filepath.Rel(w.Root, p)
		return filepath.ToSlash(r)
	}
	for _, a := range w.AllowedRoots() {
		if p == a || within(p, a) {
			r, _ := filepath.Rel(filepath.Dir(a), p)
			return filepath.ToSlash(r)
		}
	}
	return filepath.Base(p)
}

// Redact rewrites, in a message bound for a client, the server's absolute paths that
// errors of deeper layers (the history store, the operating system) carry: a path
// under the workspace becomes relative to it, one under an allowed root relative to
// the root's parent. A nil workspace leaves msg as it is. The server's own log keeps
// the full message.
func (w *Workspace) Redact(msg string) string {
	if w == nil {
		return msg
	}
	sep := string(filepath.Separator)
	// The workspace first: it may lie under an allowed root.
	msg = strings.ReplaceAll(msg, w.Root+sep, "")
	msg = strings.ReplaceAll(msg, w.Root, "the workspace")
	roots := w.AllowedRoots()
	// Longest first: a root inside another must not be cut by the outer one's prefix.
	slices.SortFunc(roots, func(a, b string) int { return len(b) - len(a) })
	for _, a := range roots {
		msg = strings.ReplaceAll(msg, a+sep, filepath.Base(a)+sep)
		msg = strings.ReplaceAll(msg, a, filepath.Base(a))
	}
	// A temporary file's random name means nothing to a client, and would make
	// equal failures read differently.
	return tempName.ReplaceAllString(msg, tempPrefix+"*")
}

// tempName matches the name of a temporary file of the workspace or the history.
var tempName = regexp.MustCompile(regexp.QuoteMeta(tempPrefix) + `[^\s:/\\]*`)

// scrub rewrites the paths an operating-system error carries with rel, so a message
// shows no absolute path of the server.
func (w *Workspace) scrub(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: w.Rel(pe.Path), Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.LinkError{Op: le.Op, Old: w.Rel(le.Old), New: w.Rel(le.New), Err: le.Err}
	}
	return err
}

// scrubPath is scrub before there is a workspace: it keeps only the operating
// system's reason, as the caller names the path the way the user gave it.
func scrubPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// SourceMeta is what the workspace records of an ingested photo, as the history
// store's metadata of the image.
type SourceMeta struct {
	File   string     `json:"file"`   // the copy, relative to the workspace root
	SHA256 string     `json:"sha256"` // of the file's bytes: the preview cache key
	Format string     `json:"format"`
	Width  int        `json:"width"`
	Height int        `json:"height"`
	EXIF   SourceEXIF `json:"exif"`
	Name   string     `json:"name"` // the original file name, if any
}

// SourceEXIF is the EXIF summary meta.json records, with its own JSON names: the
// engine's struct may change without changing the file format.
type SourceEXIF struct {
	Orientation int     `json:"orientation"`
	Make        string  `json:"make"`
	Model       string  `json:"model"`
	LensModel   string  `json:"lens_model"`
	FocalLength float64 `json:"focal_length"` // millimetres
}

// NewSourceEXIF is the record of an engine EXIF summary.
func NewSourceEXIF(x engine.EXIFSummary) SourceEXIF {
	return SourceEXIF{Orientation: x.Orientation, Make: x.Make, Model: x.Model, LensModel: x.LensModel, FocalLength: x.FocalLength}
}

// Source returns an image's metadata and a loader of its bytes.
func (w *Workspace) Source(imageID string) (SourceMeta, engine.Loader, error) {
	raw, err := w.History.Meta(imageID)
	if err != nil {
		return SourceMeta{}, nil, err
	}
	var m SourceMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return SourceMeta{}, nil, darkroom.Wrap(darkroom.InternalError, err, "image %s: metadata", imageID)
	}
	path := filepath.Join(w.Root, filepath.FromSlash(m.File))
	load := func() ([]byte, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, w.FSError(err, "image %s: source copy", imageID)
		}
		return b, nil
	}
	return m, load, nil
}

// SourceExt is the extension of a source copy, by decoded format.
var SourceExt = map[string]string{"jpeg": ".jpg", "png": ".png", "tiff": ".tif", "webp": ".webp", "gif": ".gif", "dng": ".dng", "raw": ".raw"}

// StoreSource copies a photo's bytes into the workspace and returns its relative
// path and content hash. The copy is named by its content (source-<hash prefix>.ext),
// so two processes racing to ingest one image_id never overwrite each other's file.
func (w *Workspace) StoreSource(imageID, name string, data []byte) (string, string, error) {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	dir, err := w.Dir("sources", imageID)
	if err != nil {
		return "", "", err
	}
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" || len(ext) > 6 {
		ext = ".img"
	}
	p := filepath.Join(dir, "source-"+hash[:16]+ext)
	if err := w.WriteFile(p, data); err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(w.Root, p)
	if err != nil {
		return "", "", fmt.Errorf("source path: %w", err)
	}
	return filepath.ToSlash(rel), hash, nil
}

// ContextDir is the workspace directory of the context files (tastes, briefs, notes,
// gaps, proposals).
const ContextDir = "context"

// AugmentDir is the workspace directory of augmentation sessions:
// augment/<session_id>/ holds original.<ext>, result-<n>.<ext>, metadata.json and
// config.json.
const AugmentDir = "augment"

// DatasetDir is the workspace directory augment_dataset writes its outputs under.
const DatasetDir = "datasets"
