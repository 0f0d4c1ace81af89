package expr

import (
	"os"
	"path/filepath"
	"testing"
)

// writeTree creates files (slash-separated relative path -> content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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

func docPaths(docs []Document) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.Category+"/"+d.Path)
	}
	return out
}
