package bundled

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExtract(t *testing.T) {
	dir, remove, err := Extract()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{CatalogFile, filepath.Join(DocsDir, "agentfiles-tools.md")} {
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s is writable: %v", p, info.Mode())
		}
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after remove: %v", err)
	}
}
