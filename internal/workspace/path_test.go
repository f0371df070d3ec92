//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/darkroom-mcp/darkroom"
)

// pathFixture is a workspace with one allowed root and one write root beside a
// directory that is neither:
//
//	tmp/allowed/photo.jpg        "photo"
//	tmp/allowed/a..b.jpg         "dots": ".." inside a name, not a component
//	tmp/allowed/sub/             a folder
//	tmp/allowed/fifo             a named pipe
//	tmp/allowed/huge.jpg         a sparse file over MaxSourceBytes
//	tmp/allowed/link-in          -> photo.jpg (relative, stays in)
//	tmp/allowed/link-abs-in      -> tmp/allowed/photo.jpg (absolute, stays in)
//	tmp/allowed/link-out         -> ../secret/s.jpg
//	tmp/allowed/link-abs-out     -> tmp/secret/s.jpg
//	tmp/allowed/dirlink-out      -> ../secret
//	tmp/allowed/link-dev         -> /dev/null
//	tmp/allowed/dangling         -> nowhere
//	tmp/secret/s.jpg             "secret": outside every root
//	tmp/write/                   an --allow-write-root
//	tmp/write/out-link           -> ../secret
//	tmp/ws/                      the workspace
type pathFixture struct {
	tmp string
	ws  *Workspace
}

func newPathFixture(t *testing.T) pathFixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(tmp, "allowed")
	for _, d := range []string{allowed, filepath.Join(allowed, "sub"), filepath.Join(tmp, "secret"), filepath.Join(tmp, "write")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("allowed/photo.jpg", "photo")
	write("allowed/a..b.jpg", "dots")
	write("secret/s.jpg", "secret")
	huge, err := os.Create(filepath.Join(allowed, "huge.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(MaxSourceBytes + 1); err != nil {
		t.Fatal(err)
	}
	huge.Close()
	if err := syscall.Mkfifo(filepath.Join(allowed, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"allowed/link-in":      "photo.jpg",
		"allowed/link-abs-in":  filepath.Join(allowed, "photo.jpg"),
		"allowed/link-out":     "../secret/s.jpg",
		"allowed/link-abs-out": filepath.Join(tmp, "secret", "s.jpg"),
		"allowed/dirlink-out":  "../secret",
		"allowed/link-dev":     "/dev/null",
		"allowed/dangling":     "nowhere",
		"write/out-link":       "../secret",
	} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(filepath.Join(tmp, "ws"), []string{allowed})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.AllowWrite(filepath.Join(tmp, "write")); err != nil {
		t.Fatal(err)
	}
	return pathFixture{tmp: tmp, ws: ws}
}

// pathOutcome is what a client learns from a path check: the error's code, or on
// success what was read (or where the output goes).
type pathOutcome struct {
	Code string
	Got  string
}

// outcome is what err (or got) tells a client that sent path.
func (f pathFixture) outcome(t *testing.T, path, got string, err error) pathOutcome {
	t.Helper()
	if err == nil {
		return pathOutcome{Got: got}
	}
	var de *darkroom.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not coded", err)
	}
	// No client-visible message shows an absolute path of the server's beyond the
	// one the client sent itself.
	if msg := strings.ReplaceAll(de.Error(), path, "<path>"); strings.Contains(msg, f.tmp) {
		t.Errorf("message %q shows the absolute path %s", msg, f.tmp)
	}
	if len(de.Error()) > 1000 {
		t.Errorf("message is %d bytes long: %.100q...", len(de.Error()), de.Error())
	}
	return pathOutcome{Code: de.Code}
}

// longName is one path component over every file system's NAME_MAX (255), and
// longPath a path over Linux's PATH_MAX (4096) made of short components.
var (
	longName = strings.Repeat("n", 300)
	longPath = strings.Repeat("d/", 2500) + "photo.jpg"
)

// TestReadAllowed is the specification of what ingest and augment_image may read
// from a path a client names: the workspace's security boundary.
func TestReadAllowed(t *testing.T) {
	f := newPathFixture(t)
	abs := func(rel string) string { return filepath.Join(f.tmp, rel) }
	tests := []struct {
		name, path string
		want       pathOutcome
	}{
		{"plain file", abs("allowed/photo.jpg"), pathOutcome{Got: "photo"}},
		{"relative to the working directory", "allowed/photo.jpg", pathOutcome{Got: "photo"}},
		{"relative link that stays in", abs("allowed/link-in"), pathOutcome{Got: "photo"}},
		{"absolute link that stays in", abs("allowed/link-abs-in"), pathOutcome{Got: "photo"}},
		{"dot-dot out", abs("allowed") + "/../secret/s.jpg", pathOutcome{Code: darkroom.PermissionError}},
		{"dot-dot that comes back in", abs("allowed") + "/sub/../photo.jpg", pathOutcome{Code: darkroom.PermissionError}},
		{"absolute path elsewhere", abs("secret/s.jpg"), pathOutcome{Code: darkroom.PermissionError}},
		{"the workspace is not an allowed root", abs("ws/images/.lock"), pathOutcome{Code: darkroom.PermissionError}},
		{"relative link out", abs("allowed/link-out"), pathOutcome{Code: darkroom.PermissionError}},
		{"absolute link out", abs("allowed/link-abs-out"), pathOutcome{Code: darkroom.PermissionError}},
		{"through a directory link out", abs("allowed/dirlink-out/s.jpg"), pathOutcome{Code: darkroom.PermissionError}},
		{"link to a device outside", abs("allowed/link-dev"), pathOutcome{Code: darkroom.PermissionError}},
		{"missing", abs("allowed/missing.jpg"), pathOutcome{Code: darkroom.NotFound}},
		{"dangling link", abs("allowed/dangling"), pathOutcome{Code: darkroom.NotFound}},
		{"under a file", abs("allowed/photo.jpg/x"), pathOutcome{Code: darkroom.NotFound}},
		{"a directory", abs("allowed/sub"), pathOutcome{Code: darkroom.InvalidInput}},
		{"a FIFO with no writer", abs("allowed/fifo"), pathOutcome{Code: darkroom.InvalidInput}},
		{"over MaxSourceBytes", abs("allowed/huge.jpg"), pathOutcome{Code: darkroom.LimitExceeded}},
		{"a component over NAME_MAX", abs("allowed/" + longName), pathOutcome{Code: darkroom.InvalidInput}},
		{"a path over PATH_MAX", abs("allowed/" + longPath), pathOutcome{Code: darkroom.InvalidInput}},
		{"relative path over PATH_MAX", "allowed/" + longPath, pathOutcome{Code: darkroom.InvalidInput}},
		{"empty", "", pathOutcome{Code: darkroom.InvalidInput}},
		{"NUL byte", abs("allowed/photo.jpg") + "\x00.png", pathOutcome{Code: darkroom.InvalidInput}},
		{"a URL", "https://example.com/photo.jpg", pathOutcome{Code: darkroom.InvalidInput}},
		{"a file URL", "file://" + abs("allowed/photo.jpg"), pathOutcome{Code: darkroom.InvalidInput}},
		{"a file: path without slashes", "file:allowed/photo.jpg", pathOutcome{Code: darkroom.InvalidInput}},
		{".. inside a name is a name", abs("allowed/a..b.jpg"), pathOutcome{Got: "dots"}},
		{"a . component", abs("allowed/./photo.jpg"), pathOutcome{Got: "photo"}},
		{"a doubled slash", abs("allowed") + "//photo.jpg", pathOutcome{Got: "photo"}},
		{"relative dot-dot", "allowed/../secret/s.jpg", pathOutcome{Code: darkroom.PermissionError}},
		// On Unix a backslash is a character of a name, never a separator: no climb.
		{"backslash dot-dot is one name", abs("allowed/sub") + `\..\..\secret\s.jpg`, pathOutcome{Code: darkroom.NotFound}},
		{"backslash dot-dot beside the root", abs("allowed") + `\..\secret\s.jpg`, pathOutcome{Code: darkroom.PermissionError}},
		// Roots match exactly as the file system spells them: another case is
		// outside, even where the file system would find the file.
		{"the root in another case", filepath.Join(f.tmp, "ALLOWED", "photo.jpg"), pathOutcome{Code: darkroom.PermissionError}},
		{"the root itself", abs("allowed"), pathOutcome{Code: darkroom.InvalidInput}},
		{"a sibling whose name extends the root's", abs("allowed-not") + "/photo.jpg", pathOutcome{Code: darkroom.PermissionError}},
	}
	t.Chdir(f.tmp)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, _, err := f.ws.ReadAllowed(tt.path)
			if diff := cmp.Diff(tt.want, f.outcome(t, tt.path, string(data), err)); diff != "" {
				t.Errorf("ReadAllowed(%.60q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// A device under an allowed root is refused as not a regular file, without being
// read (needs mknod: root, or CAP_MKNOD).
func TestReadAllowedDevice(t *testing.T) {
	f := newPathFixture(t)
	dev := filepath.Join(f.tmp, "allowed", "zero")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // /dev/zero: 1,5
		t.Skipf("mknod: %v", err)
	}
	_, _, err := f.ws.ReadAllowed(dev)
	if diff := cmp.Diff(pathOutcome{Code: darkroom.InvalidInput}, f.outcome(t, dev, "", err)); diff != "" {
		t.Errorf("ReadAllowed(a character device) (-want +got):\n%s", diff)
	}
}

// TestOpenAllowedDir is the specification of the input folders augment_dataset may
// read.
func TestOpenAllowedDir(t *testing.T) {
	f := newPathFixture(t)
	abs := func(rel string) string { return filepath.Join(f.tmp, rel) }
	tests := []struct {
		name, path string
		want       pathOutcome
	}{
		{"the root", abs("allowed"), pathOutcome{Got: "a..b.jpg,huge.jpg,photo.jpg"}},
		{"a folder under it", abs("allowed/sub"), pathOutcome{Got: ""}},
		{"dot-dot", abs("allowed") + "/../secret", pathOutcome{Code: darkroom.PermissionError}},
		{"absolute path elsewhere", abs("secret"), pathOutcome{Code: darkroom.PermissionError}},
		{"directory link out", abs("allowed/dirlink-out"), pathOutcome{Code: darkroom.PermissionError}},
		{"missing", abs("allowed/missing"), pathOutcome{Code: darkroom.NotFound}},
		{"a file", abs("allowed/photo.jpg"), pathOutcome{Code: darkroom.InvalidInput}},
		{"a component over NAME_MAX", abs("allowed/" + longName), pathOutcome{Code: darkroom.InvalidInput}},
		{"a path over PATH_MAX", abs("allowed/" + longPath), pathOutcome{Code: darkroom.InvalidInput}},
		{"a URL", "s3://bucket/photos", pathOutcome{Code: darkroom.InvalidInput}},
		{"empty", "", pathOutcome{Code: darkroom.InvalidInput}},
		{"NUL byte", abs("allowed") + "\x00/sub", pathOutcome{Code: darkroom.InvalidInput}},
		{"the root in another case", filepath.Join(f.tmp, "ALLOWED"), pathOutcome{Code: darkroom.PermissionError}},
		{"backslash dot-dot is one name", abs("allowed") + `\..\secret`, pathOutcome{Code: darkroom.PermissionError}},
		{"a link to a file", abs("allowed/link-in"), pathOutcome{Code: darkroom.InvalidInput}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := f.ws.OpenAllowedDir(tt.path)
			got := ""
			if err == nil {
				// What the folder shows through the root: its plain files.
				des, rerr := fsReadDir(r)
				if rerr != nil {
					t.Fatal(rerr)
				}
				got = strings.Join(des, ",")
				r.Close()
			}
			if diff := cmp.Diff(tt.want, f.outcome(t, tt.path, got, err)); diff != "" {
				t.Errorf("OpenAllowedDir(%.60q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// fsReadDir lists the regular files directly in r, sorted.
func fsReadDir(r *os.Root) ([]string, error) {
	d, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	des, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, de := range des {
		if de.Type().IsRegular() {
			names = append(names, de.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// TestDatasetOutput is the specification of where augment_dataset may write: under
// an --allow-write-root, or a plain relative name under the workspace's datasets/.
func TestDatasetOutput(t *testing.T) {
	f := newPathFixture(t)
	abs := func(rel string) string { return filepath.Join(f.tmp, rel) }
	tests := []struct {
		name, path string
		want       pathOutcome
	}{
		{"a relative name", "cats/aug", pathOutcome{Got: "ws/datasets/cats/aug"}},
		{"under a write root", abs("write/run1"), pathOutcome{Got: "write/run1"}},
		{"the write root itself", abs("write"), pathOutcome{Got: "write"}},
		{"dot-dot", "../escape", pathOutcome{Code: darkroom.InvalidInput}},
		{"a hidden part", "cats/.git", pathOutcome{Code: darkroom.InvalidInput}},
		{"absolute elsewhere", abs("secret/out"), pathOutcome{Code: darkroom.PermissionError}},
		{"an allowed root that is read-only to the run", abs("allowed/out"), pathOutcome{Code: darkroom.PermissionError}},
		{"through a link out of the write root", abs("write/out-link/run"), pathOutcome{Code: darkroom.PermissionError}},
		{"a URL", "s3://bucket/out", pathOutcome{Code: darkroom.InvalidInput}},
		{"NUL byte", "cats\x00/aug", pathOutcome{Code: darkroom.InvalidInput}},
		{"empty part", "cats//aug", pathOutcome{Code: darkroom.InvalidInput}},
		{"a . part", "./cats", pathOutcome{Code: darkroom.InvalidInput}},
		{"the write root in another case", abs("WRITE/run1"), pathOutcome{Code: darkroom.PermissionError}},
		// A backslash is a character of a name on Unix: one odd folder under datasets/.
		{"backslash dot-dot is one name", `cats\..\..\escape`, pathOutcome{Got: `ws/datasets/cats\..\..\escape`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := f.ws.DatasetOutput(tt.path)
			if err == nil {
				out, _ = filepath.Rel(f.tmp, out)
				out = filepath.ToSlash(out)
			}
			if diff := cmp.Diff(tt.want, f.outcome(t, tt.path, out, err)); diff != "" {
				t.Errorf("DatasetOutput(%.60q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}
