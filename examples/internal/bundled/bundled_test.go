package bundled

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkBundle fails t unless dir holds the bundle's files, read-only.
func checkBundle(t *testing.T, dir string) {
	t.Helper()
	for _, p := range []string{CatalogFile, filepath.Join(DocsDir, "agentfiles-tools.md")} {
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s is writable: %v", p, info.Mode())
		}
	}
}

func TestExtractTemp(t *testing.T) {
	dir, remove, err := ExtractTemp()
	if err != nil {
		t.Fatal(err)
	}
	checkBundle(t, dir)
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after remove: %v", err)
	}
}

// Extract writes the bundle to the user's cache once and returns the same directory on every
// call, in this process and the next.
func TestExtractIsStable(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var dirs []string
	for range 2 {
		dir, remove, err := Extract()
		if err != nil {
			t.Fatal(err)
		}
		checkBundle(t, dir)
		remove()
		dirs = append(dirs, dir)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cache, "agentfiles", "bundled-"+contentHash())
	if diff := cmp.Diff([]string{want, want}, dirs); diff != "" {
		t.Errorf("Extract directories (-want +got):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Join(cache, "agentfiles"))
	if err != nil || len(entries) != 1 {
		t.Errorf("the cache holds %v (%v), want the bundle alone", entries, err)
	}
}
