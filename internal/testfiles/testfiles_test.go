package testfiles_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testfiles"
)

func TestWrite(t *testing.T) {
	dir := testfiles.Write(t, t.TempDir(), map[string]string{"a.md": "A", "sub/deeper/b.md": "B"})
	for rel, want := range map[string]string{"a.md": "A", "sub/deeper/b.md": "B"} {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
}

func TestTreeEmptyDirectory(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"empty/": "", "sub/empty/": "ignored"})
	for _, rel := range []string{"empty", "sub/empty"} {
		entries, err := os.ReadDir(filepath.Join(dir, rel))
		if err != nil || len(entries) != 0 {
			t.Errorf("%s: %d entries, %v; want an empty directory", rel, len(entries), err)
		}
	}
}
