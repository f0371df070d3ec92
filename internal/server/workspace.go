package server

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"darkroom"
	"darkroom/internal/engine"
	"darkroom/internal/history"
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
	client []string // the MCP client's roots, replaced whenever it lists them
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

// DefaultWorkspace is the per-user data directory: $XDG_DATA_HOME/darkroom, or
// ~/.local/share/darkroom (~/Library/Application Support/darkroom on macOS).
func DefaultWorkspace() (string, error) {
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

// OpenWorkspace opens (creating if needed) the workspace at root. allowRoots are the
// directories ingest may read photos from.
func OpenWorkspace(root string, allowRoots []string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InvalidInput, err, "workspace %s", root)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, darkroom.Wrap(darkroom.PermissionError, err, "workspace %s", root)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, darkroom.Wrap(darkroom.PermissionError, err, "workspace %s", root)
	}
	h, err := history.Open(abs)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Root: abs, History: h, Previews: engine.NewPreviewer(previewCacheBytes)}
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

// ReadAllowed reads a photo a client named. The path must lie under an allowed root
// once every symlink is resolved: a path with "..", an absolute path elsewhere, or a
// symlink that leads out is permission_error; a missing file is not_found.
func (w *Workspace) ReadAllowed(p string) ([]byte, string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return nil, "", darkroom.Errorf(darkroom.InvalidInput, "path is empty or has a NUL byte")
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s: .. is not allowed", p)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.InvalidInput, err, "path %s", p)
	}
	if !w.under(abs) {
		return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s is outside the allowed roots %v", p, w.AllowedRoots())
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", darkroom.Wrap(darkroom.NotFound, err, "path %s", p)
		}
		return nil, "", darkroom.Wrap(darkroom.PermissionError, err, "path %s", p)
	}
	if !w.under(real) {
		return nil, "", darkroom.Errorf(darkroom.PermissionError, "path %s leads outside the allowed roots through a symbolic link", p)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.NotFound, err, "path %s", p)
	}
	if !info.Mode().IsRegular() {
		return nil, "", darkroom.Errorf(darkroom.InvalidInput, "path %s is not a regular file", p)
	}
	if info.Size() > MaxSourceBytes {
		return nil, "", darkroom.Errorf(darkroom.LimitExceeded, "path %s is %d bytes, over the limit of %d", p, info.Size(), MaxSourceBytes)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.PermissionError, err, "read %s", p)
	}
	return b, real, nil
}

func (w *Workspace) under(p string) bool {
	for _, a := range w.AllowedRoots() {
		if p == a || strings.HasPrefix(p, a+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Dir returns a workspace directory for one kind of file of one image (sources,
// previews, exports, context), creating it.
func (w *Workspace) Dir(kind, imageID string) (string, error) {
	d := filepath.Join(w.Root, kind, imageID)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", darkroom.Wrap(darkroom.InternalError, err, "create %s", d)
	}
	return d, nil
}

// WriteFile writes a workspace file atomically: temporary file, fsync, rename, so a
// crash never leaves a half-written preview or export under its final name.
func WriteFile(name string, data []byte) error {
	return WriteFileFrom(name, func(w io.Writer) error {
		if _, err := w.Write(data); err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "write %s", name)
		}
		return nil
	})
}

// WriteFileFrom is WriteFile for content too large to hold in memory (an export):
// write streams it to the temporary file. An error write returns is returned as it
// is, and nothing is left under name.
func WriteFileFrom(name string, write func(io.Writer) error) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "write %s", name)
	}
	defer os.Remove(tmp.Name())
	// err, not a new variable: a failed write or flush must stop the rename.
	if err = tmp.Chmod(0o644); err == nil {
		bw := bufio.NewWriterSize(tmp, 1<<20)
		if werr := write(bw); werr != nil {
			tmp.Close()
			return werr
		}
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "write %s", name)
	}
	return nil
}

// SourceMeta is what the workspace records of an ingested photo, as the history
// store's metadata of the image.
type SourceMeta struct {
	File   string             `json:"file"`   // the copy, relative to the workspace root
	SHA256 string             `json:"sha256"` // of the file's bytes: the preview cache key
	Format string             `json:"format"`
	Width  int                `json:"width"`
	Height int                `json:"height"`
	EXIF   engine.EXIFSummary `json:"exif"`
	Name   string             `json:"name"` // the original file name, if any
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
			return nil, darkroom.Wrap(darkroom.InternalError, err, "image %s: source copy", imageID)
		}
		return b, nil
	}
	return m, load, nil
}

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
	if err := WriteFile(p, data); err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(w.Root, p)
	if err != nil {
		return "", "", fmt.Errorf("source path: %w", err)
	}
	return filepath.ToSlash(rel), hash, nil
}
