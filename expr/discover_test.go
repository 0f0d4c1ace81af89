package expr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

func TestDiscoverGlobs(t *testing.T) {
	c := dirCatalog(t, testfiles.Tree(t, map[string]string{
		"a.md": "", "b.md": "", "c.txt": "", "intro.md": "", "intro": "", "introduction.md": "",
		"x1.md": "", "x2.md": "", "xy.md": "",
		"guides/g1.md": "", "guides/deep/g2.md": "", "guides/deep/er/g3.md": "",
		".hidden.md": "", "__init__.md": "", ".git/config.md": "", "__pycache__/p.md": "", "guides/.draft.md": "",
		"l1/l2/l3/l4/l5/l6/l7/d7.md": "", "l1/l2/l3/l4/l5/l6/l7/l8/d8.md": "",
		"l1/l2/l3/l4/l5/l6/l7/l8/l9/d9.md": "", "guides/l2/l3/l4/l5/l6/l7/l8/e8.md": "", "guides/l2/l3/l4/l5/l6/l7/l8/l9/e9.md": "",
	}))
	for _, tt := range []struct {
		pattern string
		want    []string
	}{
		{"*.md", []string{"a.md", "b.md", "intro.md", "introduction.md", "x1.md", "x2.md", "xy.md"}},
		{"x?.md", []string{"x1.md", "x2.md", "xy.md"}},
		{"x[0-9].md", []string{"x1.md", "x2.md"}},
		{"{a,b}.md", []string{"a.md", "b.md"}},
		{"intro", []string{"intro", "intro.md"}}, // no extension: also intro.*
		{"intro*", []string{"intro", "intro.md", "introduction.md"}},
		{"c.txt", []string{"c.txt"}},
		{"guides/*.md", []string{"guides/g1.md"}},
		{"guides/**/*.md", []string{"guides/deep/er/g3.md", "guides/deep/g2.md", "guides/g1.md", "guides/l2/l3/l4/l5/l6/l7/l8/e8.md"}},
		{"**/g*.md", []string{"guides/deep/er/g3.md", "guides/deep/g2.md", "guides/g1.md"}},
		// MaxDepth (8) directory levels below the category directory are searched: d8.md is
		// in the eighth, d9.md in the ninth; the same bound holds below a static prefix.
		{"**/d*.md", []string{"l1/l2/l3/l4/l5/l6/l7/d7.md", "l1/l2/l3/l4/l5/l6/l7/l8/d8.md"}},
		{"guides/**/e*.md", []string{"guides/l2/l3/l4/l5/l6/l7/l8/e8.md"}},
		{"l1/**/d9.md", nil},
		{"nothing*", nil},
		{"guides/nope/*.md", nil},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			e := &Expression{Terms: []Term{{Name: "c", Patterns: []string{tt.pattern}}}}
			res, err := c.Resolve(context.Background(), e, ResolveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Documents {
				got = append(got, d.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverCapPerPattern(t *testing.T) {
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf("d%03d.md", i)] = ""
	}
	c := dirCatalog(t, testfiles.Tree(t, files))
	ctx := context.Background()
	out, err := c.Content(ctx, "c", ContentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := out.Resolution
	if len(res.Documents) != DefaultMaxDocumentsPerPattern || !res.Patterns[0].Cut || !res.Truncated || !out.Truncated {
		t.Errorf("got %d documents, cut=%v truncated=%v", len(res.Documents), res.Patterns[0].Cut, res.Truncated)
	}
	if !strings.Contains(out.Message, "matched more than 100 documents") {
		t.Errorf("message %q does not report the cut", out.Message)
	}
	res, err = resolveExpr(t, c, "c", ResolveOptions{MaxDocumentsPerPattern: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 120 || res.Truncated || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "clamped to 1000") {
		t.Errorf("clamped limit: %d documents, truncated=%v, notes %q", len(res.Documents), res.Truncated, res.Notes)
	}
}

// TestSymlinkEscapeNotFollowed: links that leave the category directory are never followed,
// neither when discovering nor when reading.
func TestSymlinkEscapeNotFollowed(t *testing.T) {
	base := testfiles.Tree(t, map[string]string{
		"outside/secret.md":  "SECRET",
		"outside/sub/s2.md":  "SECRET2",
		"cat/inner.md":       "inner",
		"cat/nested/deep.md": "deep",
	})
	cat := filepath.Join(base, "cat")
	for link, target := range map[string]string{
		"escape.md":     "../outside/secret.md",
		"abs-escape.md": filepath.Join(base, "outside/secret.md"),
		"alias.md":      "inner.md",
		"dirlink":       "../outside",
		"nested/up.md":  "../../outside/secret.md",
		"broken.md":     "missing.md",
	} {
		if err := os.Symlink(target, filepath.Join(cat, link)); err != nil {
			t.Skipf("symlinks not supported: %v", err)
		}
	}
	c := newTestCatalog(t, base, "categories:\n  c: {dir: cat, patterns: [\"**/*.md\"]}\n")
	ctx := context.Background()
	out, err := c.Content(ctx, "c,c/dirlink/*.md+escape.md", ContentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c/alias.md", "c/inner.md", "c/nested/deep.md"}, docPaths(out.Resolution.Documents)); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if strings.Contains(out.Content, "SECRET") {
		t.Error("content from outside the category directory was returned")
	}
	// A document swapped for an escaping symlink after resolution is not read either.
	_, err = Render(ctx, []Document{{Category: "c", Dir: cat, Path: "escape.md"}}, RenderOptions{})
	if err == nil {
		t.Error("Render followed a symlink out of the category directory")
	}
}
