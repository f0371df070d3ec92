package server

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// readOnlyHint and idempotentHint are promises to a host about the files a tool
// leaves behind, so this test holds each tool to them on disk: every tool runs its
// own contract example twice on a fresh fixture workspace, and the tree (every
// file's path and bytes, under the workspace and the photos beside it) is taken
// before, after the first call and after the second. A tool annotated readOnly
// must leave the tree as it was; one annotated idempotent must leave after its
// second call the tree its first call left. Both calls must succeed, so a tool
// cannot pass by failing.
func TestAnnotationsHoldOnTheWorkspaceTree(t *testing.T) {
	c, _ := packtest.Builtin(t)
	checked := 0
	for _, tool := range c.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Annotations.OpenWorld {
				t.Skip("its example asks the client's model (MCP sampling), which Invoke has no client for")
			}
			args := contractExample(t, tool.Description)
			fx := fixtureOptions{moody: tool.Name != "branch", harbour: tool.Name != "ingest"}
			s, pending := contextFixture(t, fx)
			root := filepath.Dir(s.Workspace.Root)
			before := workspaceTree(t, root)
			call := func(n int) {
				t.Helper()
				last := invokeExample(s, tool.Name, args, pending)
				if last == nil {
					return
				}
				// A second call that the tool refuses because the first did its work
				// (a confirmed proposal is gone, a name is taken) changed nothing more.
				if n == 2 && !tool.Annotations.Idempotent {
					return
				}
				t.Fatalf("call %d of its contract example %v fails in the fixture: %s: %s", n, args, last.Code, last.Message)
			}
			call(1)
			first := workspaceTree(t, root)
			call(2)
			second := workspaceTree(t, root)
			checked++
			if tool.Annotations.ReadOnly {
				// A read-only tool may add one kind of file: a preview under
				// previews/<image_id>/, named by the version's hash and size, which
				// the history already determines. Its description must say so.
				for n, d := range []string{treeDiff(before, first), treeDiff(first, second)} {
					var other []string
					for _, line := range strings.Split(d, "\n") {
						if strings.HasPrefix(line, "  added   "+previewCache) && strings.Contains(tool.Description, "previews/<image_id>/") {
							continue
						}
						if line != "" {
							other = append(other, line)
						}
					}
					if len(other) > 0 {
						t.Errorf("annotated readOnly, but its call %d changed the workspace (a preview it adds must be named in its description as the previews/<image_id>/ cache):\n%s", n+1, strings.Join(other, "\n"))
					}
				}
			}
			if tool.Annotations.Idempotent {
				if d := treeDiff(first, second); d != "" {
					t.Errorf("annotated idempotent, but its second call left a different workspace than its first:\n%s", d)
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no tool ran twice")
	}
}

// workspaceTree maps every regular file under root (by its slash path) to a hash
// of its bytes; directories count by their files.
func workspaceTree(t *testing.T, root string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		tree[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// treeDiff names the files added, removed and changed from a to b ("" when none).
func treeDiff(a, b map[string]string) string {
	var lines []string
	for p, h := range b {
		switch ha, ok := a[p]; {
		case !ok:
			lines = append(lines, "  added   "+p)
		case ha != h:
			lines = append(lines, "  changed "+p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			lines = append(lines, "  removed "+p)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// previewCache is where render_preview and compare keep their JPEGs: a cache of
// pictures each version's hash determines.
const previewCache = "ws/previews/"
