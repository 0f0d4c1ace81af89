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

func TestRootAndOutside(t *testing.T) {
	root, outside := testfiles.RootAndOutside(t, map[string]string{"in.md": "in"}, map[string]string{"secret.md": "out"}, map[string]string{"link.md": "secret.md"})
	if filepath.Dir(root) != filepath.Dir(outside) || root == outside {
		t.Errorf("root %s and outside %s are not side by side", root, outside)
	}
	if resolved, err := filepath.EvalSymlinks(root); err != nil || resolved != root {
		t.Errorf("root %s resolves to %s (%v); want itself", root, resolved, err)
	}
	for rel, want := range map[string]string{"in.md": "in", "link.md": "out"} {
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(root, "link.md")); err != nil || target != filepath.Join(outside, "secret.md") {
		t.Errorf("link.md points to %q (%v); want the outside file", target, err)
	}
}
