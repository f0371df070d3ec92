//go:build unix

package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
)

// The pieces of the security boundary under ReadAllowed, OpenAllowedDir and
// DatasetOutput, each held to its own table: the lexical containment test, what
// counts as a URL, the open that never leaves its root, the roots a client may
// add, and the naming of paths in what a client sees.

// within is the containment every check ends in: a root is a prefix only at a
// separator.
func TestWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{"/a/b/c", "/a/b", true},
		{"/a/b/c/d", "/a/b", true},
		{"/a/b", "/a/b", false}, // the root itself is not strictly under it
		{"/a/bc", "/a/b", false},
		{"/a/b.jpg", "/a/b", false},
		{"/a", "/a/b", false},
		{"/A/b/c", "/a/b", false}, // case counts: roots are spelled as resolved
		{"/x", "/", true},
		{"/", "/", false},
		{"", "/a", false},
	}
	for _, tt := range tests {
		if got := within(tt.p, tt.dir); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}

// isURL keeps URLs out of the file checks (they are refused, never fetched) while
// file names with colons stay file names.
func TestIsURL(t *testing.T) {
	tests := []struct {
		p    string
		want bool
	}{
		{"https://example.com/photo.jpg", true},
		{"HTTP://example.com/photo.jpg", true},
		{"s3://bucket/photos", true},
		{"git+ssh://host/repo", true},
		{"file:///etc/passwd", true},
		{"file:photo.jpg", true},
		{"FILE:photo.jpg", true},
		{`C:\photos\cup.jpg`, false}, // a drive letter is no scheme
		{"C://photos", false},        // one letter: a drive, not a scheme
		{"photo:1.jpg", false},
		{"photos/a://b.jpg", false}, // a slash before "://": no scheme
		{"my photo://x", false},     // a space is no scheme character
		{"/abs/path.jpg", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isURL(tt.p); got != tt.want {
			t.Errorf("isURL(%q) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

// openBeneath (openat2 with RESOLVE_BENEATH on Linux, O_NOFOLLOW on a single-file
// root) and openVerified (open, then check what was opened) are two ways to one
// rule: the descriptor returned is of a file under root, or the open fails. Both
// are held to the same table.
//
//	tmp/root/photo.jpg        "photo"
//	tmp/root/sub/deep.jpg     "deep"
//	tmp/root/link-in          -> sub/deep.jpg
//	tmp/root/link-abs-in      -> tmp/root/photo.jpg
//	tmp/root/link-out         -> ../secret.jpg
//	tmp/root/link-abs-out     -> tmp/secret.jpg
//	tmp/root/dirlink-out      -> ..
//	tmp/root/dangling         -> nowhere
//	tmp/secret.jpg            "secret"
//	tmp/file-root.jpg         "single": a root that is one file
//	tmp/link-root.jpg         -> secret.jpg: a single-file root swapped for a link
func TestOpenBeneath(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmp, "root")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"root/photo.jpg": "photo", "root/sub/deep.jpg": "deep", "secret.jpg": "secret", "file-root.jpg": "single",
	} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"root/link-in": "sub/deep.jpg", "root/link-abs-in": filepath.Join(root, "photo.jpg"),
		"root/link-out": "../secret.jpg", "root/link-abs-out": filepath.Join(tmp, "secret.jpg"),
		"root/dirlink-out": "..", "root/dangling": "nowhere", "link-root.jpg": "secret.jpg",
	} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, root, rel string
		want            string // the content read, "outside" or "missing"
	}{
		{"plain file", root, "photo.jpg", "photo"},
		{"in a folder", root, "sub/deep.jpg", "deep"},
		{"relative link that stays in", root, "link-in", "deep"},
		{"absolute link that stays in", root, "link-abs-in", "photo"},
		{"relative link out", root, "link-out", "outside"},
		{"absolute link out", root, "link-abs-out", "outside"},
		{"through a directory link out", root, "dirlink-out/secret.jpg", "outside"},
		{"dot-dot out", root, "../secret.jpg", "outside"},
		{"missing", root, "missing.jpg", "missing"},
		{"dangling link", root, "dangling", "missing"},
		{"a single-file root", filepath.Join(tmp, "file-root.jpg"), "", "single"},
		{"a single-file root swapped for a link", filepath.Join(tmp, "link-root.jpg"), "", "outside"},
	}
	for name, open := range map[string]func(root, rel string) (*os.File, error){
		"openBeneath": openBeneath, "openVerified": openVerified,
	} {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				f, err := open(tt.root, tt.rel)
				got := ""
				switch {
				case err == nil:
					b, rerr := io.ReadAll(f)
					f.Close()
					if rerr != nil {
						t.Fatal(rerr)
					}
					got = string(b)
				case errors.Is(err, errOutside):
					got = "outside"
				case errors.Is(err, fs.ErrNotExist):
					got = "missing"
				default:
					got = "error: " + err.Error()
				}
				if got != tt.want {
					t.Errorf("%s(%s, %q) = %s, want %s", name, filepath.Base(tt.root), tt.rel, got, tt.want)
				}
			})
		}
	}
}

// The roots: --allow-root and --allow-write-root take existing directories (or
// bucket prefixes), resolved once; the client's roots may be directories or single
// files, replace each other, and never remove the user's own.
func TestRoots(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"mine", "client", "real"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"mine/a.jpg", "client/b.jpg", "one.jpg", "other.jpg", "real/c.jpg"} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(tmp, "alias")); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(filepath.Join(tmp, "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	code := func(err error) string {
		if err == nil {
			return ""
		}
		return darkroom.Code(err)
	}
	for _, tt := range []struct {
		name, dir string
		write     bool
		want      string // the error's code, "" when allowed
	}{
		{"a directory", filepath.Join(tmp, "mine"), false, ""},
		{"a link to a directory, resolved", filepath.Join(tmp, "alias"), false, ""},
		{"missing", filepath.Join(tmp, "missing"), false, darkroom.NotFound},
		{"a file", filepath.Join(tmp, "one.jpg"), false, darkroom.InvalidInput},
		{"a bucket prefix", "s3://bucket/photos", false, ""},
		{"a bucket URL with credentials", "s3://key:secret@bucket/photos", false, darkroom.InvalidInput},
		{"a bucket prefix with ..", "s3://bucket/a/../b", false, darkroom.InvalidInput},
		{"a write root that is missing", filepath.Join(tmp, "missing"), true, darkroom.NotFound},
		{"a write root that is a file", filepath.Join(tmp, "one.jpg"), true, darkroom.InvalidInput},
	} {
		allow := ws.Allow
		if tt.write {
			allow = ws.AllowWrite
		}
		if got := code(allow(tt.dir)); got != tt.want {
			t.Errorf("%s: Allow(write %v) = %q, want %q", tt.name, tt.write, got, tt.want)
		}
	}
	// A client root is absolute: a relative one is skipped even where it exists
	// relative to the server's working directory.
	t.Chdir(tmp)
	skipped := ws.SetClientRoots([]string{filepath.Join(tmp, "client"), filepath.Join(tmp, "one.jpg"), "real", filepath.Join(tmp, "gone")})
	if diff := cmp.Diff([]string{"real", filepath.Join(tmp, "gone")}, skipped); diff != "" {
		t.Errorf("SetClientRoots skipped (-want +got):\n%s", diff)
	}
	want := []string{filepath.Join(tmp, "mine"), filepath.Join(tmp, "real"), filepath.Join(tmp, "client"), filepath.Join(tmp, "one.jpg")}
	if diff := cmp.Diff(want, ws.AllowedRoots()); diff != "" {
		t.Errorf("AllowedRoots (-want +got):\n%s", diff)
	}
	read := func(p string) string {
		b, _, err := ws.ReadAllowed(p)
		if err != nil {
			return darkroom.Code(err)
		}
		return string(b)
	}
	reads := []struct{ name, path, want string }{
		{"under an --allow-root", filepath.Join(tmp, "mine/a.jpg"), "mine/a.jpg"},
		{"under a client root", filepath.Join(tmp, "client/b.jpg"), "client/b.jpg"},
		{"a single-file client root", filepath.Join(tmp, "one.jpg"), "one.jpg"},
		{"beside a single-file client root", filepath.Join(tmp, "other.jpg"), darkroom.PermissionError},
		{"under a root allowed through a link, by its real path", filepath.Join(tmp, "real/c.jpg"), "real/c.jpg"},
		{"under a root allowed through a link, by the link", filepath.Join(tmp, "alias/c.jpg"), darkroom.PermissionError},
	}
	for _, r := range reads {
		if got := read(r.path); got != r.want {
			t.Errorf("%s: ReadAllowed = %q, want %q", r.name, got, r.want)
		}
	}
	// The client lists its roots again without the file: it is no longer readable,
	// and the user's own roots stay.
	ws.SetClientRoots([]string{filepath.Join(tmp, "client")})
	if got := read(filepath.Join(tmp, "one.jpg")); got != darkroom.PermissionError {
		t.Errorf("a client root withdrawn: ReadAllowed = %q, want permission_error", got)
	}
	if got := read(filepath.Join(tmp, "mine/a.jpg")); got != "mine/a.jpg" {
		t.Errorf("an --allow-root after the client's roots changed: ReadAllowed = %q", got)
	}
	// A single-file root swapped for a link after it was allowed is not followed.
	ws.SetClientRoots([]string{filepath.Join(tmp, "one.jpg")})
	if err := os.Remove(filepath.Join(tmp, "one.jpg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.jpg", filepath.Join(tmp, "one.jpg")); err != nil {
		t.Fatal(err)
	}
	if got := read(filepath.Join(tmp, "one.jpg")); got != darkroom.PermissionError {
		t.Errorf("a single-file root swapped for a link: ReadAllowed = %q, want permission_error", got)
	}
}

// What a client sees names a path relative to the workspace, else to the parent
// of the allowed root it lies under, else by its base name; never the server's
// absolute path. Redact does the same inside messages of deeper layers, and hides
// a temporary file's random name.
func TestRelAndRedact(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	photos, inner := filepath.Join(tmp, "photos"), filepath.Join(tmp, "photos", "inner")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(filepath.Join(tmp, "ws"), []string{photos, inner})
	if err != nil {
		t.Fatal(err)
	}
	rels := []struct{ p, want string }{
		{ws.Root, "the workspace"},
		{filepath.Join(ws.Root, "exports", "cup", "cup.jpg"), "exports/cup/cup.jpg"},
		{photos, "photos"},
		{filepath.Join(photos, "cup.jpg"), "photos/cup.jpg"},
		{filepath.Join(inner, "cup.jpg"), "photos/inner/cup.jpg"},
		{filepath.Join(tmp, "photos-2", "cup.jpg"), "cup.jpg"},
		{"/etc/passwd", "passwd"},
	}
	for _, r := range rels {
		if got := ws.Rel(r.p); got != r.want {
			t.Errorf("Rel(%s) = %q, want %q", strings.TrimPrefix(r.p, tmp), got, r.want)
		}
	}
	redacts := []struct{ msg, want string }{
		{"open " + filepath.Join(ws.Root, "images", "cup", "HEAD") + ": no such file", "open images/cup/HEAD: no such file"},
		{"stat " + ws.Root + ": denied", "stat the workspace: denied"},
		{"read " + filepath.Join(inner, "x.jpg") + " and " + filepath.Join(photos, "y.jpg"), "read inner/x.jpg and photos/y.jpg"},
		{"rename " + filepath.Join(ws.Root, "previews", ".tmp-preview.jpg-48213") + ": no space", "rename previews/.tmp-*: no space"},
		{"nothing to hide", "nothing to hide"},
	}
	for _, r := range redacts {
		if got := ws.Redact(r.msg); got != r.want {
			t.Errorf("Redact(%q) = %q, want %q", strings.ReplaceAll(r.msg, tmp, "<tmp>"), got, r.want)
		}
	}
	var nilWS *Workspace
	if got := nilWS.Rel("/a/b.jpg"); got != "/a/b.jpg" {
		t.Errorf("no workspace: Rel = %q, want the path as the user gave it", got)
	}
}
