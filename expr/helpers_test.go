package expr

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testfiles"
)

// newTestCatalog writes yaml to dir/catalog.yaml and loads it.
func newTestCatalog(t testing.TB, dir, yaml string) *Catalog {
	t.Helper()
	p := filepath.Join(dir, "catalog.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// treeCatalog writes files and, beside them, yaml as catalog.yaml into a new temporary
// directory and loads the catalog, so that its relative dirs name directories of the tree.
func treeCatalog(t testing.TB, files map[string]string, yaml string) *Catalog {
	t.Helper()
	return newTestCatalog(t, testfiles.Tree(t, files), yaml)
}

// dirCatalog loads a catalog, kept in its own temporary directory, whose one category c is dir.
func dirCatalog(t testing.TB, dir string) *Catalog {
	t.Helper()
	return newTestCatalog(t, t.TempDir(), "categories:\n  c: {dir: "+dir+"}\n")
}

// resolveExpr parses s, failing the test if it is not well formed, and resolves it against c.
func resolveExpr(t testing.TB, c *Catalog, s string, opts ResolveOptions) (*Resolution, error) {
	t.Helper()
	e, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return c.Resolve(context.Background(), e, opts)
}

// docPaths returns "category/path" of each document.
func docPaths(docs []Document) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.Category+"/"+d.Path)
	}
	return out
}
